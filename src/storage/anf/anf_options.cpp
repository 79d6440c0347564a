#include "storage/anf/anf_options.h"

#include <cstdlib>
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "common/atomic_file.h"
#include "common/error.h"

namespace lane::storage::anf {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return (v && *v) ? v : nullptr;
}

// First of the spellings present as a string; "" when none.
std::string pick(const json& j, std::initializer_list<const char*> keys, const std::string& origin) {
  for (const char* k : keys) {
    auto it = j.find(k);
    if (it == j.end() || it->is_null()) continue;
    if (!it->is_string()) throw UsageError(origin + ": field '" + k + "' must be a string");
    return it->get<std::string>();
  }
  return "";
}

std::vector<std::string> pick_list(const json& j, const char* key, const std::string& origin) {
  std::vector<std::string> out;
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return out;
  if (!it->is_array()) throw UsageError(origin + ": field '" + key + "' must be a list of strings");
  for (const auto& v : *it) {
    if (!v.is_string()) throw UsageError(origin + ": field '" + key + "' must be a list of strings");
    out.push_back(v.get<std::string>());
  }
  return out;
}

std::string strip_slash(std::string s) {
  while (!s.empty() && s.back() == '/') s.pop_back();
  return s;
}

}  // namespace

void require_private_file(const fs::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw UsageError("ANF config file " + path.string() + " does not exist or cannot be read");
  if (st.st_mode & 077)
    throw UsageError("ANF config file " + path.string() +
                     " holds a client secret but is readable by others; run: chmod 600 " +
                     path.string());
}

void apply_backend_json(const std::string& text, const std::string& origin, AnfOptions& o) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error&) {
    // The parser's message quotes the input, which may hold the secret: say only where.
    throw UsageError(origin + ": not valid JSON (expected a Trident backend.json-style object)");
  }
  if (!j.is_object()) throw UsageError(origin + ": expected a JSON object");
  if (auto v = pick(j, {"subscriptionID", "subscriptionId"}, origin); !v.empty()) o.subscription_id = v;
  if (auto v = pick(j, {"tenantID", "tenantId"}, origin); !v.empty()) o.tenant_id = v;
  if (auto v = pick(j, {"clientID", "clientId", "clientid"}, origin); !v.empty()) o.client_id = v;
  if (auto v = pick(j, {"clientSecret", "clientsecret"}, origin); !v.empty()) o.client_secret = Secret(v);
  if (auto v = pick_list(j, "resourceGroups", origin); !v.empty()) o.resource_groups = v;
  if (auto v = pick_list(j, "netappAccounts", origin); !v.empty()) o.netapp_accounts = v;
  if (auto v = pick_list(j, "capacityPools", origin); !v.empty()) o.capacity_pools = v;
  if (auto cc = j.find("cloudConfiguration"); cc != j.end() && cc->is_object()) {
    if (auto v = pick(*cc, {"adAuthorityHost"}, origin); !v.empty()) o.authority_url = strip_slash(v);
    if (auto v = pick(*cc, {"endpoint"}, origin); !v.empty()) o.arm_url = strip_slash(v);
    if (auto v = pick(*cc, {"audience"}, origin); !v.empty()) o.scope = strip_slash(v) + "/.default";
  }
  if (auto v = pick(j, {"armURL", "armUrl"}, origin); !v.empty()) o.arm_url = strip_slash(v);
  if (auto v = pick(j, {"authorityURL", "authorityUrl"}, origin); !v.empty()) o.authority_url = strip_slash(v);
  if (auto v = pick(j, {"apiVersion"}, origin); !v.empty()) o.api_version = v;
  if (auto it = j.find("operationTimeoutSeconds"); it != j.end()) {
    if (!it->is_number_integer() || it->get<int>() <= 0)
      throw UsageError(origin + ": field 'operationTimeoutSeconds' must be a positive integer");
    o.operation_timeout_s = it->get<int>();
  }
}

AnfOptions load_anf_options(const std::optional<fs::path>& config_file) {
  AnfOptions o;
  std::optional<fs::path> file = config_file;
  if (!file) {
    if (const char* p = env(kConfigEnv)) file = fs::path(p);
  }
  if (file) {
    require_private_file(*file);
    apply_backend_json(read_file(*file), "ANF config " + file->string(), o);
  }
  // The environment fills what the file left out (the file wins: it is the explicit choice).
  if (o.tenant_id.empty()) if (const char* v = env("AZURE_TENANT_ID")) o.tenant_id = v;
  if (o.client_id.empty()) if (const char* v = env("AZURE_CLIENT_ID")) o.client_id = v;
  if (o.client_secret.empty()) if (const char* v = env("AZURE_CLIENT_SECRET")) o.client_secret = Secret(v);
  if (o.subscription_id.empty()) if (const char* v = env("AZURE_SUBSCRIPTION_ID")) o.subscription_id = v;
  if (const char* v = env("LANECTL_ANF_ARM_URL")) o.arm_url = strip_slash(v);
  if (const char* v = env("LANECTL_ANF_AUTHORITY_URL")) o.authority_url = strip_slash(v);
  if (const char* v = env("LANECTL_ANF_API_VERSION")) o.api_version = v;
  if (o.scope.empty()) o.scope = std::string(kPublicArmUrl) + "/.default";

  const char* hint = " (Trident backend.json key, or environment variable)";
  if (o.tenant_id.empty()) throw UsageError(std::string("ANF: tenantID / AZURE_TENANT_ID is not set") + hint);
  if (o.client_id.empty()) throw UsageError(std::string("ANF: clientID / AZURE_CLIENT_ID is not set") + hint);
  if (o.client_secret.empty())
    throw UsageError(std::string("ANF: clientSecret / AZURE_CLIENT_SECRET is not set") + hint);
  return o;
}

}  // namespace lane::storage::anf

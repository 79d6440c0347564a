#pragma once
// Where ANF lives and who we are: credentials (Trident backend.json keys, AZURE_* environment
// variables, or a 0600 config file), the ARM and token endpoints (never hard-wired: tests and
// sovereign clouds override them), the pinned api-version and the time budgets.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace lane::storage::anf {

inline constexpr const char* kDefaultApiVersion = "2025-12-01";
inline constexpr const char* kPublicArmUrl = "https://management.azure.com";
inline constexpr const char* kPublicAuthorityUrl = "https://login.microsoftonline.com";
inline constexpr const char* kConfigFlag = "--anf-config";     // the config file's option
inline constexpr const char* kConfigEnv = "LANECTL_ANF_CONFIG";  // ... and its variable

// A string that never prints itself; only the token request reads it.
class Secret {
 public:
  Secret() = default;
  explicit Secret(std::string value) : value_(std::move(value)) {}
  bool empty() const { return value_.empty(); }
  const std::string& reveal() const { return value_; }

 private:
  std::string value_;
};

struct AnfOptions {
  std::string tenant_id;
  std::string client_id;
  Secret client_secret;
  std::string subscription_id;
  std::string arm_url = kPublicArmUrl;              // LANECTL_ANF_ARM_URL / "armURL"
  std::string authority_url = kPublicAuthorityUrl;  // LANECTL_ANF_AUTHORITY_URL / "authorityURL"
  std::string scope;                                // default: <arm audience>/.default
  std::string api_version = kDefaultApiVersion;
  // Trident discovery filters, used by the creationToken fallback: "rg/account" or short names.
  std::vector<std::string> resource_groups, netapp_accounts, capacity_pools;
  int operation_timeout_s = 600;   // one long-running operation, start to final state
  int request_timeout_s = 60;      // one HTTP request
  int default_poll_s = 10;         // LRO poll interval when the server sends no Retry-After
  int max_attempts = 5;            // per request, for 429 / 5xx / connection failures
  int max_retry_after_s = 120;     // a larger Retry-After is capped (and said so)
  std::filesystem::path lineage_dir;  // lineage records (empty: lineage unsupported)
};

// Reads the options: `config_file` (Trident backend.json keys + lanectl extras; refused unless
// its mode is 0600 or stricter) when given, then AZURE_TENANT_ID / AZURE_CLIENT_ID /
// AZURE_CLIENT_SECRET / AZURE_SUBSCRIPTION_ID and LANECTL_ANF_ARM_URL / LANECTL_ANF_AUTHORITY_URL /
// LANECTL_ANF_API_VERSION for what the file leaves out. Throws UsageError naming the missing field.
AnfOptions load_anf_options(const std::optional<std::filesystem::path>& config_file);

// Applies the keys of a Trident backend.json-style object (subscriptionID|subscriptionId,
// tenantID|tenantId, clientID|clientId, clientSecret, resourceGroups, netappAccounts,
// capacityPools, cloudConfiguration.adAuthorityHost/endpoint, and lanectl's armURL, authorityURL,
// apiVersion, operationTimeoutSeconds) onto `options`. `origin` names the source in errors.
void apply_backend_json(const std::string& text, const std::string& origin, AnfOptions& options);

// Throws UsageError unless the file exists and has no group/other permission bits.
void require_private_file(const std::filesystem::path& path);

}  // namespace lane::storage::anf

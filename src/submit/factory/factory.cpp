#include "submit/factory/factory.h"
#include "submit/factory/training_snapshot_env.h"

#include <cstdlib>
#include <fstream>

#include <nlohmann/json.hpp>

#include "common/atomic_file.h"
#include "common/error.h"
#include "storage/anf/anf_provider.h"
#include "submit/kube/kube_backend.h"
#include "submit/local/local_backend.h"
#include "submit/local/supervisor/supervisor.h"

namespace lane::submit {
namespace fs = std::filesystem;

namespace {

const char* env_or_null(const char* name) {
  const char* v = std::getenv(name);
  return (v && *v) ? v : nullptr;
}

nlohmann::json read_config(const fs::path& home) {
  fs::path path = home / "config.json";
  if (!fs::exists(path)) return nlohmann::json::object();
  try {
    return nlohmann::json::parse(read_file(path));
  } catch (const nlohmann::json::exception& e) {
    throw Error("cannot parse " + path.string() + ": " + e.what() +
                "; fix or delete the file (it holds only `lanectl config` settings)");
  }
}

void require_known_kind(const std::string& kind, const std::string& origin) {
  if (kind != "local" && kind != "kubernetes")
    throw UsageError("unknown backend '" + kind + "' (from " + origin +
                     "); use 'local' or 'kubernetes'");
}

}  // namespace

fs::path lanectl_home() {
  if (const char* home = env_or_null("LANECTL_HOME")) return fs::path(home);
  if (const char* xdg = env_or_null("XDG_DATA_HOME")) return fs::path(xdg) / "lanectl";
  if (const char* h = env_or_null("HOME")) return fs::path(h) / ".local" / "share" / "lanectl";
  throw Error("cannot locate the lanectl state directory: set LANECTL_HOME or HOME");
}

BackendConfig load_backend_config() {
  BackendConfig config;
  config.home = lanectl_home();
  nlohmann::json file = read_config(config.home);
  if (file.contains("backend") && file["backend"].is_string()) {
    config.kind = file["backend"].get<std::string>();
    require_known_kind(config.kind, (config.home / "config.json").string());
  }
  if (file.contains("project") && file["project"].is_string())
    config.default_project = file["project"].get<std::string>();
  if (const char* kind = env_or_null("LANECTL_BACKEND")) {
    config.kind = kind;
    require_known_kind(config.kind, "LANECTL_BACKEND");
  }
  return config;
}

void save_config_value(const fs::path& home, const std::string& key, const std::string& value) {
  fs::create_directories(home);
  nlohmann::json file = read_config(home);
  file[key] = value;
  write_file_atomic(home / "config.json", file.dump(2) + "\n");
}

std::unique_ptr<Backend> open_backend(const BackendConfig& config, std::ostream* progress) {
  require_known_kind(config.kind, "configuration");
  if (config.kind == "local") return std::make_unique<local::LocalBackend>(config.home);
  return kube::open_kube_backend(config.default_project, progress, {config.kube_context, config.kubeconfig});
}

const storage::StorageTraits& storage_traits(const StorageSelection& s) {
  const storage::StorageTraits& provider = volume_provider_traits();
  if (s.backend == provider.name) return provider;
  if (!s.backend.empty() && s.backend != "local" && s.backend != "kubernetes")
    throw UsageError("unknown --backend '" + s.backend + "'; use local, kubernetes or " + provider.name);
  if (!s.ns.empty() || !s.volume_id.empty() || !s.config.empty() || s.timeout_s != 0)
    throw UsageError("-n, --volume-id, " + provider.config_option.flag + " and --timeout are for " + provider.title +
                     "; add --backend " + provider.name);
  static const storage::StorageTraits backend;
  return backend;
}

std::unique_ptr<storage::VolumeProvider> open_volume_provider() { return storage::anf::make_anf_provider(); }

const storage::StorageTraits& volume_provider_traits() { return storage::anf::anf_traits(); }

int run_internal_verb(int argc, char** argv) {
  if (argc >= 2 && std::string(argv[1]) == "__training-snapshot") return run_training_snapshot_verb(argc, argv);
  return local::run_internal_verb(argc, argv);
}

}  // namespace lane::submit

#pragma once
// Opens the configured backend. The choice comes from, in order: env LANECTL_BACKEND, the
// `backend` key of $LANECTL_HOME/config.json (`lanectl config backend local|kubernetes`),
// then "local". LANECTL_HOME defaults to $XDG_DATA_HOME/lanectl or ~/.local/share/lanectl.
#include <filesystem>
#include <memory>
#include <string>

#include "submit/core/backend.h"

namespace lane::submit {

struct BackendConfig {
  std::string kind = "local";          // local | kubernetes
  std::filesystem::path home;          // LANECTL_HOME
  std::string default_project;         // `lanectl config project P`; empty = "default"
};

// LANECTL_HOME resolved as described above (not created).
std::filesystem::path lanectl_home();

// Reads env + $LANECTL_HOME/config.json. Throws UsageError for an unknown backend name.
BackendConfig load_backend_config();

// Persists one key of $LANECTL_HOME/config.json ("backend" or "project"), atomically.
void save_config_value(const std::filesystem::path& home, const std::string& key,
                       const std::string& value);

std::unique_ptr<Backend> open_backend(const BackendConfig& config);

}  // namespace lane::submit

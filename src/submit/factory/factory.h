#pragma once
// Where the CLI gets every implementation it uses, so that it includes only interfaces: the
// configured backend (its roles: submit/core/backend.h), the volume provider a storage verb's
// --backend names (storage/core/volume_provider.h), and the dispatch of a backend's hidden verbs.
// The backend choice comes from, in order: env LANECTL_BACKEND, the
// `backend` key of $LANECTL_HOME/config.json (`lanectl config backend local|kubernetes`),
// then "local". LANECTL_HOME defaults to $XDG_DATA_HOME/lanectl or ~/.local/share/lanectl.
#include <filesystem>
#include <iosfwd>
#include <memory>
#include <string>

#include "storage/core/volume_provider.h"
#include "submit/core/backend.h"
#include "submit/core/backend_config.h"

namespace lane::submit {

// LANECTL_HOME resolved as described above (not created).
std::filesystem::path lanectl_home();

// Reads env + $LANECTL_HOME/config.json. Throws UsageError for an unknown backend name.
BackendConfig load_backend_config();

// Persists one key of $LANECTL_HOME/config.json ("backend" or "project"), atomically.
void save_config_value(const std::filesystem::path& home, const std::string& key,
                       const std::string& value);

// `progress`: where long operations (waiting for a snapshot) report; the CLI passes its error
// stream; nullptr = nowhere. Backends write nothing else: results go back to the caller.
std::unique_ptr<Backend> open_backend(const BackendConfig& config, std::ostream* progress = nullptr);

// The volume provider a storage verb's --backend names: nullptr for "" (the configured backend),
// "local" or "kubernetes" (whose own stores the verb then uses); Azure NetApp Files for "anf".
// Throws UsageError naming any other value.
std::unique_ptr<storage::VolumeProvider> open_volume_provider(const std::string& backend);

// The hidden verbs a backend runs this executable with (the local backend's job supervisor and
// MPI rank wrapper); returns their exit code, or -1 when argv[1] is not one of them.
int run_internal_verb(int argc, char** argv);

}  // namespace lane::submit

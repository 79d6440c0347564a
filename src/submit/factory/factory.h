#pragma once
// Where the CLI gets every implementation it uses, so that it includes only interfaces: the
// configured backend (its roles: submit/core/backend.h), the volume provider (and which storage
// a storage verb's options select: storage/core/volume_provider.h), and the dispatch of a
// backend's hidden verbs.
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

// The storage options of the snapshot, restore and volume verbs as the CLI parsed them; which
// storage they select, and what it needs, is the factory's to know.
struct StorageSelection {
  std::string backend;    // --backend: "" (the configured backend) | local | kubernetes | the provider's name
  std::string ns;         // -n: namespace of the PVC (default runai-<project>)
  std::string volume_id;  // the provider's id of the volume, instead of --pvc
  std::string config;     // the provider's credentials file
  int timeout_s = 0;      // long-running operations; 0 = the provider's default
};

// The traits of the storage `selection` selects: the volume provider's when --backend names it,
// else the configured backend's (for "", local and kubernetes). Throws UsageError naming an
// unknown --backend, or the provider's options given without it. Opens nothing.
const storage::StorageTraits& storage_traits(const StorageSelection& selection);

// The volume provider (Azure NetApp Files): `lanectl volume`, and the storage verbs'
// --backend <its traits().name>.
std::unique_ptr<storage::VolumeProvider> open_volume_provider();
// Its traits (open_volume_provider()->traits()), for the verbs' help and messages.
const storage::StorageTraits& volume_provider_traits();

// The hidden verbs a backend runs this executable with (the local backend's job supervisor and
// MPI rank wrapper); returns their exit code, or -1 when argv[1] is not one of them.
int run_internal_verb(int argc, char** argv);

}  // namespace lane::submit

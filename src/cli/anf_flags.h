#pragma once
// The options that point a verb at an Azure NetApp Files volume (--volume-id, --anf-config,
// --timeout, -n) and the --backend choice of the snapshot/restore verbs, wired once here so that
// `lanectl volume ...`, `lanectl snapshot ...` and `lanectl restore` read them the same way.
// The provider behind --backend anf comes from the factory (storage/core/volume_provider.h).
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/context.h"
#include "storage/core/volume_provider.h"

namespace lane::cli {

struct AnfFlags {
  std::string backend;    // --backend: "" (the configured one) | local | kubernetes | anf
  std::string ns;         // -n: namespace of the PVC (default runai-<project>)
  std::string volume_id;  // ARM id of the volume, instead of --pvc
  std::string config;     // 0600 credentials file
  int timeout_s = 0;      // long-running operations; 0 = the default
};

// Adds -n/--namespace, --volume-id, --anf-config and --timeout.
void add_anf_options(CLI::App* cmd, AnfFlags& flags);

// Adds --backend local|kubernetes|anf plus the ANF options above.
void add_backend_options(CLI::App* cmd, AnfFlags& flags);

// True for --backend anf. Throws UsageError naming an unknown --backend value, or an ANF option
// given without --backend anf (it would be silently ignored otherwise).
bool anf_backend_selected(const AnfFlags& flags);

// Opens the ANF volume behind `pvc` (namespace -n, else runai-<project>) or --volume-id.
// Progress of long operations goes to ctx.err; secrets never do.
std::unique_ptr<storage::ProviderVolume> open_anf_volume(const AnfFlags& flags, const std::string& pvc,
                                                         const std::string& project, CliContext& ctx);

// The store a snapshot verb works on: the ANF store with --backend anf, else the configured
// backend's. Keeps the opened ANF target alive for as long as the store is used.
class SelectedSnapshotStore {
 public:
  SelectedSnapshotStore(const AnfFlags& flags, const std::string& pvc, const std::string& project,
                        CliContext& ctx);
  // -p PROJECT picks that project's store (its namespace on Kubernetes).
  storage::SnapshotStore& store() { return anf_ ? anf_->snapshots() : ctx_.storage().snapshots_of(project_); }
  bool is_anf() const { return anf_ != nullptr; }
  // The ANF volume's name (only with is_anf()).
  const std::string& anf_volume() const { return anf_->ref().volume; }

 private:
  CliContext& ctx_;
  std::string project_;  // -p as given (empty: the backend's default)
  std::unique_ptr<storage::ProviderVolume> anf_;
};

}  // namespace lane::cli

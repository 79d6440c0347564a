#pragma once
// The storage options of `lanectl volume ...`, `lanectl snapshot ...` and `lanectl restore`
// (--backend, and the volume provider's -n, --volume-id, its config file, --timeout), wired once
// here and handed to the factory as data (submit::StorageSelection): which storage they select,
// how it differs and which options are the provider's own (storage::StorageTraits) is the
// factory's and the provider's to say.
#include <memory>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "cli/context.h"
#include "storage/core/volume_provider.h"
#include "submit/factory/factory.h"

namespace lane::cli {

// `text` with {backend}, {label}, {title} and {new_volume_flag} filled in from the volume
// provider's traits: the help and messages that name it.
std::string provider_text(std::string_view text);

// Adds -n/--namespace, --volume-id, the provider's config file option and --timeout.
void add_provider_options(CLI::App* cmd, submit::StorageSelection& selection);

// Adds --backend local|kubernetes|<the provider> plus the provider's options above.
void add_backend_options(CLI::App* cmd, submit::StorageSelection& selection);

// Opens the provider volume behind `pvc` (namespace -n, else runai-<project>) or --volume-id.
// Progress of long operations goes to ctx.err; secrets never do.
std::unique_ptr<storage::ProviderVolume> open_provider_volume(const submit::StorageSelection& selection,
                                                              const std::string& pvc, const std::string& project,
                                                              CliContext& ctx);

// What a snapshot or restore verb works on: the selected storage's traits from the start
// (checking the options, opening nothing), its store once open() is called.
class SelectedStorage {
 public:
  explicit SelectedStorage(submit::StorageSelection selection)
      : selection_(std::move(selection)), traits_(submit::storage_traits(selection_)) {}

  const storage::StorageTraits& traits() const { return traits_; }
  // The provider volume behind `pvc` (or --volume-id) when traits().one_volume, else the
  // configured backend's store of `project`'s snapshots (-p; its namespace's on Kubernetes).
  storage::SnapshotStore& open(const std::string& pvc, const std::string& project, CliContext& ctx);
  // The opened provider volume (traits().one_volume only).
  const storage::ProviderVolumeRef& volume() const { return provider_volume_->ref(); }

 private:
  submit::StorageSelection selection_;
  const storage::StorageTraits& traits_;
  std::unique_ptr<storage::ProviderVolume> provider_volume_;
};

}  // namespace lane::cli

#include "cli/snapshot_ops.h"

#include <fmt/format.h>

#include "common/error.h"
#include "storage/core/snapshot_lookup.h"
#include "submit/core/storage.h"

namespace lane::cli {

namespace {

// The full name of the snapshot the target names: --job's, else the name, prefix or ID typed.
// A name that is another project's snapshot is refused naming its project (exit 2).
std::string resolve(storage::SnapshotStore& store, const SnapshotTarget& t, const SelectedStorage& selected) {
  if (!t.job.empty()) return storage::snapshot_of_job(store.list(std::nullopt), t.job).name;
  try {
    return storage::resolve_snapshot(store, t.snapshot);
  } catch (const UsageError&) {
    throw;
  } catch (const Error&) {
    // Not among the project's: the project's view says whose it is (a UsageError naming the
    // owner, local backend), or that it does not exist, which the error above says better.
    if (!selected.traits().one_volume) {
      try {
        store.describe(t.snapshot);
      } catch (const UsageError&) {
        throw;
      } catch (const Error&) {  // none of that name anywhere
      }
    }
    throw;
  }
}

}  // namespace

void add_quiet_flag(CLI::App* cmd, bool& quiet) {
  cmd->add_flag("-q,--quiet", quiet, "No progress on stderr (by default a progress line on a terminal, else a summary)");
}

Reverted revert_volume(const SnapshotTarget& t, bool yes, const RevertTexts& texts, CliContext& ctx) {
  SelectedStorage selected(t.storage);
  auto& store = selected.open(t.pvc, t.project, ctx);
  Reverted out;
  out.snapshot = resolve(store, t, selected);
  out.traits = &selected.traits();
  if (out.traits->one_volume) out.provider_volume = selected.volume().volume;
  out.volume = t.pvc.empty() ? out.provider_volume : t.pvc;
  out.plan = store.plan_revert(out.snapshot, t.pvc);
  if (!out.traits->one_volume)  // a job that mounts the claim would lose its writes
    submit::require_unused(t.pvc, ctx.storage().volume_mounts(ctx.project(t.project)),
                   fmt::format("revert volume '{}' in place", t.pvc),
                   fmt::format("restore into a new volume: lanectl restore {} --to-pvc NEW", out.snapshot));
  if (!yes || texts.warn_when_confirmed) ctx.err << texts.warning(out);
  if (!yes) throw UsageError(texts.refusal);
  StoreProgress progress(store, "revert", t.quiet, ctx);
  store.revert_in_place(out.snapshot, t.pvc);
  progress.finish();
  return out;
}

Restored restore_to_new_volume(const SnapshotTarget& t, const std::string& new_volume, CliContext& ctx) {
  SelectedStorage selected(t.storage);
  auto& store = selected.open(t.pvc, t.project, ctx);
  Restored out;
  out.snapshot = resolve(store, t, selected);
  StoreProgress progress(store, "restore", t.quiet, ctx);
  store.restore_to_new_volume(out.snapshot, new_volume);
  progress.finish();
  out.traits = &selected.traits();
  if (out.traits->one_volume) {
    out.source_volume = selected.volume().volume;
    out.pool = selected.volume().pool;
  }
  return out;
}

Deleted delete_snapshot(const SnapshotTarget& t, CliContext& ctx) {
  SelectedStorage selected(t.storage);
  auto& store = selected.open(t.pvc, t.project, ctx);
  Deleted out{resolve(store, t, selected), &selected.traits()};
  store.remove(out.snapshot);
  return out;
}

}  // namespace lane::cli

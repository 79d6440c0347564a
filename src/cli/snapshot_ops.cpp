#include "cli/snapshot_ops.h"

#include <fmt/format.h>

#include "common/error.h"
#include "submit/core/storage.h"

namespace lane::cli {

Reverted revert_volume(const SnapshotTarget& t, bool yes, const RevertTexts& texts, CliContext& ctx) {
  SelectedStorage selected(t.storage);
  auto& store = selected.open(t.pvc, t.project, ctx);
  Reverted out;
  out.traits = &selected.traits();
  if (out.traits->one_volume) out.provider_volume = selected.volume().volume;
  out.volume = t.pvc.empty() ? out.provider_volume : t.pvc;
  out.plan = store.plan_revert(t.snapshot, t.pvc);
  if (!out.traits->one_volume)  // a job that mounts the claim would lose its writes
    submit::require_unused(t.pvc, ctx.storage().volume_mounts(ctx.project(t.project)),
                   fmt::format("revert volume '{}' in place", t.pvc),
                   fmt::format("restore into a new volume: lanectl restore {} --to-pvc NEW", t.snapshot));
  if (!yes || texts.warn_when_confirmed) ctx.err << texts.warning(out);
  if (!yes) throw UsageError(texts.refusal);
  store.revert_in_place(t.snapshot, t.pvc);
  return out;
}

Restored restore_to_new_volume(const SnapshotTarget& t, const std::string& new_volume, CliContext& ctx) {
  SelectedStorage selected(t.storage);
  auto& store = selected.open(t.pvc, t.project, ctx);
  store.restore_to_new_volume(t.snapshot, new_volume);
  Restored out;
  out.traits = &selected.traits();
  if (out.traits->one_volume) {
    out.source_volume = selected.volume().volume;
    out.pool = selected.volume().pool;
  }
  return out;
}

const storage::StorageTraits& delete_snapshot(const SnapshotTarget& t, CliContext& ctx) {
  SelectedStorage selected(t.storage);
  selected.open(t.pvc, t.project, ctx).remove(t.snapshot);
  return selected.traits();
}

}  // namespace lane::cli

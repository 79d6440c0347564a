// lanectl restore SNAP|--job JOB --to-pvc NEW | --in-place --pvc NAME [--yes]: bring a snapshot's
// data back (SNAP: a name, a unique prefix of one or of an ID; --job: the snapshot that job took), either as a new volume (safe; the seed's restore-snapshot-pvc.yaml) or by reverting
// the volume in place (destructive, so it asks for --yes and names what is affected).
// With --backend <the volume provider> the snapshot is a native snapshot of the provider volume
// behind --pvc (or --volume-id): its new-volume option (StorageTraits::new_volume_flag) clones it
// into a new provider volume, and --in-place reverts the volume, which DELETES the snapshots
// newer than SNAP where the provider's traits say so (revert_deletes_newer).
#include <fmt/format.h>

#include "cli/context.h"
#include "cli/snapshot_ops.h"
#include "cli/storage_flags.h"
#include "common/error.h"
#include "common/names.h"
#include "storage/core/snapshot_lookup.h"
#include "storage/core/snapshots.h"

namespace lane::cli {

namespace {

struct RestoreOptions {
  std::string snapshot, job, to_pvc, to_volume, pvc, project, output;
  bool in_place = false, yes = false, quiet = false;
  submit::StorageSelection storage;  // --backend and the provider's volume options
};

std::string newer_list(const storage::RevertPlan& plan) {
  return plan.newer_snapshots.empty() ? "none" : fmt::format("{}", fmt::join(plan.newer_snapshots, ", "));
}

// The new volume's name: the provider's option (--to-volume) for a provider volume, --to-pvc for
// a backend's claim.
const std::string& new_volume(const RestoreOptions& o, const storage::StorageTraits& traits) {
  return traits.one_volume ? o.to_volume : o.to_pvc;
}

// Usage checks that need no backend: which mode, and the names each mode needs.
void check_mode(const RestoreOptions& o, const storage::StorageTraits& traits) {
  if (o.snapshot.empty() == o.job.empty())
    throw UsageError("restore needs exactly one of SNAP (a snapshot's name, a unique prefix of it or of its ID) "
                     "or --job JOB (the snapshot that job took)");
  if (!o.job.empty()) require_dns1123_label(o.job, "--job");
  if (!o.snapshot.empty()) storage::require_snapshot_reference(o.snapshot, "SNAP");
  if (traits.one_volume && !o.to_pvc.empty())
    throw UsageError(fmt::format("with --backend {} the new volume is an {} volume: use {} NEW, not --to-pvc",
                                 traits.name, traits.label, traits.new_volume_flag));
  if (!traits.one_volume && !o.to_volume.empty())
    throw UsageError(provider_text(
        "{new_volume_flag} NEW is for --backend {backend}; other backends restore with --to-pvc NEW"));
  const std::string& target = new_volume(o, traits);
  const std::string& target_flag = traits.new_volume_flag;
  if (o.in_place == !target.empty())
    throw UsageError(fmt::format("restore needs exactly one of {} NEW (new volume) or --in-place --pvc NAME (revert)",
                                 target_flag));
  if (!o.pvc.empty()) require_dns1123_label(o.pvc, "--pvc");
  if (!o.in_place) {
    // A provider needs the source volume (--pvc or --volume-id); the other stores know it from SNAP.
    if (!traits.one_volume && !o.pvc.empty())
      throw UsageError("--pvc is for --in-place; with --to-pvc give only the new name");
    require_dns1123_label(target, target_flag);
    return;
  }
  if (o.pvc.empty() && o.storage.volume_id.empty())  // --volume-id: only with a provider (checked before)
    throw UsageError("--in-place needs --pvc NAME (the volume to revert)");
}

void print_restored(const RestoreOptions& o, const Restored& restored, CliContext& ctx) {
  const auto& traits = *restored.traits;
  const std::string& target = new_volume(o, traits);
  if (traits.one_volume) {
    ctx.out << fmt::format("Snapshot {} restored to new {} volume {} ({} {}).\n", restored.snapshot, traits.label,
                           target, traits.new_volume_place, restored.source_volume);
    return;
  }
  ctx.out << fmt::format("Snapshot {} restored to new volume {}.\n", restored.snapshot, target);
  ctx.out << fmt::format("Use it with: lanectl submit ... --pvc {}:/mnt\n", target);
}

// The warning of a revert without --yes: what it replaces and the newer snapshots.
std::string revert_warning(const std::string& snapshot, const std::string& volume, const storage::RevertPlan& plan,
                           const storage::StorageTraits& traits) {
  if (traits.revert_deletes_newer)
    return fmt::format(
        "Reverting {} volume {} to snapshot {} replaces ALL of its current data and cannot be undone.\n"
        "{} DELETES the snapshots newer than {}: {}\n",
        traits.label, volume, snapshot, traits.title, snapshot, newer_list(plan));
  return fmt::format(
      "Reverting volume {} to snapshot {} replaces ALL of its current data and cannot be undone.\n"
      "Snapshots of {} newer than {} (they will no longer match the volume; on {} a revert deletes them): {}\n",
      volume, snapshot, volume, snapshot, submit::volume_provider_traits().title, newer_list(plan));
}

void run_restore(const RestoreOptions& o, CliContext& ctx) {
  const OutputFormat format = parse_output_format(o.output);
  const bool structured = format == OutputFormat::kJson || format == OutputFormat::kYaml;
  const auto& traits = submit::storage_traits(o.storage);
  check_mode(o, traits);
  const SnapshotTarget target{o.snapshot, o.pvc, o.project, o.storage, o.job, o.quiet};

  if (!o.in_place) {
    const std::string& name = new_volume(o, traits);
    Restored restored = restore_to_new_volume(target, name, ctx);
    if (structured)
      return print_document(ctx.out, {{"snapshot", restored.snapshot}, {"volume", name}, {"mode", "new-volume"}}, format);
    return print_restored(o, restored, ctx);
  }

  RevertTexts texts;
  texts.warning = [&](const Reverted& r) { return revert_warning(r.snapshot, r.volume, r.plan, *r.traits); };
  texts.refusal = fmt::format("refusing to revert without --yes; or use {} NEW to restore into a new volume",
                              traits.new_volume_flag);
  Reverted r = revert_volume(target, o.yes, texts, ctx);
  if (structured) {
    nlohmann::json doc = storage::to_json(r.plan);
    doc["mode"] = "in-place";
    print_document(ctx.out, doc, format);
    return;
  }
  ctx.out << fmt::format("Volume {} reverted to snapshot {}. Newer snapshots {}: {}\n", r.volume, r.snapshot,
                         traits.revert_deletes_newer ? "deleted" : "affected", newer_list(r.plan));
}

}  // namespace

void add_restore_command(CLI::App& app, CliContext& ctx) {
  auto o = std::make_shared<RestoreOptions>();
  auto* cmd = app.add_subcommand("restore", "Restore a snapshot into a new volume, or revert a volume in place");
  cmd->footer("Examples:\n"
             "  lanectl restore data-20261127-143000 --to-pvc restored-data   # a new volume\n"
             "  lanectl restore data-20261127-143000 --in-place -y            # revert the volume (destructive)");
  cmd->add_option("snapshot", o->snapshot, kSnapshotRefHelp);
  cmd->add_option("--job", o->job, "Restore the snapshot this job took (instead of SNAP)");
  cmd->add_option("--to-pvc", o->to_pvc, "New volume to create with the snapshot's contents");
  cmd->add_option(submit::volume_provider_traits().new_volume_flag, o->to_volume,
                  provider_text("With --backend {backend}: new {label} volume to create from the snapshot"));
  cmd->add_flag("--in-place", o->in_place, "Revert the volume the snapshot was taken of (destructive)");
  cmd->add_option("--pvc", o->pvc,
                  provider_text("With --in-place: the volume to revert; with --backend {backend}: the PVC whose "
                                "{label} volume holds SNAP"));
  cmd->add_option("-p,--project", o->project,
                  provider_text(kSnapshotProjectHelp));
  cmd->add_flag("-y,--yes", o->yes, "Confirm an in-place revert");
  cmd->add_option("-o,--output", o->output, "json | yaml");
  add_quiet_flag(cmd, o->quiet);
  add_backend_options(cmd, o->storage);
  cmd->callback([o, &ctx] { run_restore(*o, ctx); });
}

}  // namespace lane::cli

// lanectl restore SNAP --to-pvc NEW | --in-place --pvc NAME [--yes]: bring a snapshot's data
// back, either as a new volume (safe; the seed's restore-snapshot-pvc.yaml) or by reverting
// the volume in place (destructive, so it asks for --yes and names what is affected).
// With --backend anf the snapshot is a native Azure NetApp Files snapshot of the volume behind
// --pvc (or --volume-id): --to-volume NEW clones it into a new ANF volume in the same pool, and
// --in-place reverts the volume, which DELETES the snapshots newer than SNAP.
#include <fmt/format.h>

#include "cli/anf_flags.h"
#include "cli/context.h"
#include "common/error.h"
#include "common/names.h"
#include "storage/core/snapshots.h"

namespace lane::cli {

namespace {

struct RestoreOptions {
  std::string snapshot, to_pvc, to_volume, pvc, project, output;
  bool in_place = false, yes = false;
  AnfFlags anf;  // --backend and the ANF volume options
};

std::string newer_list(const storage::RevertPlan& plan) {
  return plan.newer_snapshots.empty() ? "none" : fmt::format("{}", fmt::join(plan.newer_snapshots, ", "));
}

// Usage checks that need no backend: which mode, and the names each mode needs.
void check_mode(const RestoreOptions& o, bool anf) {
  if (anf && !o.to_pvc.empty())
    throw UsageError("with --backend anf the new volume is an ANF volume: use --to-volume NEW, not --to-pvc");
  if (!anf && !o.to_volume.empty())
    throw UsageError("--to-volume NEW is for --backend anf; other backends restore with --to-pvc NEW");
  const std::string& target = anf ? o.to_volume : o.to_pvc;
  const char* target_flag = anf ? "--to-volume" : "--to-pvc";
  if (o.in_place == !target.empty())
    throw UsageError(fmt::format("restore needs exactly one of {} NEW (new volume) or --in-place --pvc NAME (revert)",
                                 target_flag));
  if (!o.pvc.empty()) require_dns1123_label(o.pvc, "--pvc");
  if (!o.in_place) {
    // ANF needs the source volume (--pvc or --volume-id); the other stores know it from SNAP.
    if (!anf && !o.pvc.empty()) throw UsageError("--pvc is for --in-place; with --to-pvc give only the new name");
    require_dns1123_label(target, target_flag);
    return;
  }
  if (o.pvc.empty() && !(anf && !o.anf.volume_id.empty()))
    throw UsageError("--in-place needs --pvc NAME (the volume to revert)");
}

void run_restore(const RestoreOptions& o, CliContext& ctx) {
  storage::require_snapshot_name(o.snapshot);
  const OutputFormat format = parse_output_format(o.output);
  const bool structured = format == OutputFormat::kJson || format == OutputFormat::kYaml;
  const bool anf = anf_backend_selected(o.anf);
  check_mode(o, anf);
  SelectedSnapshotStore selected(o.anf, o.pvc, o.project, ctx);
  auto& store = selected.store();

  if (!o.in_place) {
    const std::string& target = anf ? o.to_volume : o.to_pvc;
    store.restore_to_new_volume(o.snapshot, target);
    if (structured) {
      print_document(ctx.out, {{"snapshot", o.snapshot}, {"volume", target}, {"mode", "new-volume"}}, format);
      return;
    }
    if (anf) {
      ctx.out << fmt::format("Snapshot {} restored to new ANF volume {} (same capacity pool as {}).\n", o.snapshot,
                             target, selected.anf_volume());
      return;
    }
    ctx.out << fmt::format("Snapshot {} restored to new volume {}.\n", o.snapshot, target);
    ctx.out << fmt::format("Use it with: lanectl submit ... --pvc {}:/mnt\n", target);
    return;
  }

  const std::string volume = o.pvc.empty() ? selected.anf_volume() : o.pvc;
  storage::RevertPlan plan = store.plan_revert(o.snapshot, o.pvc);
  if (!o.yes) {
    if (anf)
      ctx.err << fmt::format(
          "Reverting ANF volume {} to snapshot {} replaces ALL of its current data and cannot be undone.\n"
          "Azure NetApp Files DELETES the snapshots newer than {}: {}\n",
          volume, o.snapshot, o.snapshot, newer_list(plan));
    else
      ctx.err << fmt::format(
          "Reverting volume {} to snapshot {} replaces ALL of its current data and cannot be undone.\n"
          "Snapshots of {} newer than {} (they will no longer match the volume; on Azure NetApp Files "
          "a revert deletes them): {}\n",
          volume, o.snapshot, volume, o.snapshot, newer_list(plan));
    throw UsageError(fmt::format("refusing to revert without --yes; or use {} NEW to restore into a new volume",
                                 anf ? "--to-volume" : "--to-pvc"));
  }
  store.revert_in_place(o.snapshot, o.pvc);
  if (structured) {
    nlohmann::json doc = storage::to_json(plan);
    doc["mode"] = "in-place";
    print_document(ctx.out, doc, format);
    return;
  }
  ctx.out << fmt::format("Volume {} reverted to snapshot {}. Newer snapshots {}: {}\n", volume, o.snapshot,
                         anf ? "deleted" : "affected", newer_list(plan));
}

}  // namespace

void add_restore_command(CLI::App& app, CliContext& ctx) {
  auto o = std::make_shared<RestoreOptions>();
  auto* cmd = app.add_subcommand("restore", "Restore a snapshot into a new volume, or revert a volume in place");
  cmd->add_option("snapshot", o->snapshot, "Snapshot name")->required();
  cmd->add_option("--to-pvc", o->to_pvc, "New volume to create with the snapshot's contents");
  cmd->add_option("--to-volume", o->to_volume, "With --backend anf: new ANF volume to create from the snapshot");
  cmd->add_flag("--in-place", o->in_place, "Revert the volume the snapshot was taken of (destructive)");
  cmd->add_option("--pvc", o->pvc,
                  "With --in-place: the volume to revert; with --backend anf: the PVC whose ANF volume holds SNAP");
  cmd->add_option("-p,--project", o->project, "With --backend anf: project of the PVC (namespace runai-<project>)");
  cmd->add_flag("-y,--yes", o->yes, "Confirm an in-place revert");
  cmd->add_option("-o,--output", o->output, "json | yaml");
  add_backend_options(cmd, o->anf);
  cmd->callback([o, &ctx] { run_restore(*o, ctx); });
}

}  // namespace lane::cli

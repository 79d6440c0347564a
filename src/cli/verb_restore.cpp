// lanectl restore SNAP --to-pvc NEW | --in-place --pvc NAME [--yes]: bring a snapshot's data
// back, either as a new volume (safe; the seed's restore-snapshot-pvc.yaml) or by reverting
// the volume in place (destructive, so it asks for --yes and names what is affected).
#include <fmt/format.h>

#include "cli/context.h"
#include "common/error.h"
#include "common/names.h"
#include "storage/core/snapshots.h"

namespace lane::cli {

namespace {

struct RestoreOptions {
  std::string snapshot, to_pvc, pvc, output;
  bool in_place = false, yes = false;
};

std::string newer_list(const storage::RevertPlan& plan) {
  return plan.newer_snapshots.empty() ? "none" : fmt::format("{}", fmt::join(plan.newer_snapshots, ", "));
}

void run_restore(const RestoreOptions& o, CliContext& ctx) {
  storage::require_snapshot_name(o.snapshot);
  const OutputFormat format = parse_output_format(o.output);
  const bool structured = format == OutputFormat::kJson || format == OutputFormat::kYaml;
  if (o.in_place == !o.to_pvc.empty())
    throw UsageError("restore needs exactly one of --to-pvc NEW (new volume) or --in-place --pvc NAME (revert)");
  auto& store = ctx.backend().snapshots();

  if (!o.in_place) {
    if (!o.pvc.empty()) throw UsageError("--pvc is for --in-place; with --to-pvc give only the new name");
    require_dns1123_label(o.to_pvc, "--to-pvc");
    store.restore_to_new_volume(o.snapshot, o.to_pvc);
    if (structured) {
      print_document(ctx.out, {{"snapshot", o.snapshot}, {"volume", o.to_pvc}, {"mode", "new-volume"}}, format);
      return;
    }
    ctx.out << fmt::format("Snapshot {} restored to new volume {}.\n", o.snapshot, o.to_pvc);
    ctx.out << fmt::format("Use it with: lanectl submit ... --pvc {}:/mnt\n", o.to_pvc);
    return;
  }

  if (o.pvc.empty()) throw UsageError("--in-place needs --pvc NAME (the volume to revert)");
  require_dns1123_label(o.pvc, "--pvc");
  storage::RevertPlan plan = store.plan_revert(o.snapshot, o.pvc);
  if (!o.yes) {
    ctx.err << fmt::format(
        "Reverting volume {} to snapshot {} replaces ALL of its current data and cannot be undone.\n"
        "Snapshots of {} newer than {} (they will no longer match the volume; on Azure NetApp Files "
        "a revert deletes them): {}\n",
        o.pvc, o.snapshot, o.pvc, o.snapshot, newer_list(plan));
    throw UsageError("refusing to revert without --yes; or use --to-pvc NEW to restore into a new volume");
  }
  store.revert_in_place(o.snapshot, o.pvc);
  if (structured) {
    nlohmann::json doc = storage::to_json(plan);
    doc["mode"] = "in-place";
    print_document(ctx.out, doc, format);
    return;
  }
  ctx.out << fmt::format("Volume {} reverted to snapshot {}. Newer snapshots affected: {}\n", o.pvc,
                         o.snapshot, newer_list(plan));
}

}  // namespace

void add_restore_command(CLI::App& app, CliContext& ctx) {
  auto o = std::make_shared<RestoreOptions>();
  auto* cmd = app.add_subcommand("restore", "Restore a snapshot into a new volume, or revert a volume in place");
  cmd->add_option("snapshot", o->snapshot, "Snapshot name")->required();
  cmd->add_option("--to-pvc", o->to_pvc, "New volume to create with the snapshot's contents");
  cmd->add_flag("--in-place", o->in_place, "Revert the volume the snapshot was taken of (destructive)");
  cmd->add_option("--pvc", o->pvc, "With --in-place: the volume to revert");
  cmd->add_flag("-y,--yes", o->yes, "Confirm an in-place revert");
  cmd->add_option("-o,--output", o->output, "json | yaml");
  cmd->callback([o, &ctx] { run_restore(*o, ctx); });
}

}  // namespace lane::cli

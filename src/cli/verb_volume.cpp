// lanectl volume ...: volumes (claims) of the configured backend, and the volume provider's
// volumes behind PVCs (submit::open_volume_provider; its options: storage_flags.h).
//   list, describe NAME, delete NAME   the backend's claims (local directories, Kubernetes PVCs)
//   describe --pvc|--volume-id ...     the provider volume: pool, service level, quota, throughput
//   set-service-level                  move the provider volume to a pool of another level
//   snapshot create|list|delete, revert, restore   native snapshots of the provider volume
// `describe` works on the provider volume with --backend <provider> or any provider option.
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "cli/context.h"
#include "cli/snapshot_create.h"
#include "cli/snapshot_ops.h"
#include "cli/snapshot_table.h"
#include "cli/storage_flags.h"
#include "cli/volume_table.h"
#include "common/error.h"
#include "common/names.h"
#include "storage/core/snapshot_lookup.h"
#include "storage/core/volume_provider.h"
#include "submit/factory/factory.h"

namespace lane::cli {
namespace {


struct VolumeOptions {
  std::string volume, pvc, project, output, level, pool, snapshot, name, to_volume;
  submit::StorageSelection storage;  // --backend and the provider's options (shared with snapshot/restore)
  bool yes = false, all = false, quiet = false;
};

// The provider volume behind --pvc (or --volume-id), selected as `--backend <provider>` would.
SnapshotTarget provider_target(const VolumeOptions& o) {
  SnapshotTarget t{o.snapshot, o.pvc, o.project, o.storage, "", o.quiet};
  t.storage.backend = submit::volume_provider_traits().name;
  return t;
}

std::unique_ptr<storage::ProviderVolume> open_target(const VolumeOptions& o, CliContext& ctx) {
  return open_provider_volume(o.storage, o.pvc, o.project, ctx);
}

void add_target_options(CLI::App* cmd, VolumeOptions& o) {
  cmd->add_option("--pvc", o.pvc, provider_text("The PVC whose {label} volume to use (via its bound PV)"));
  cmd->add_option("-p,--project", o.project, "Project (namespace runai-<project>)");
  add_provider_options(cmd, o.storage);
}

// describe's choice: the provider volume with --backend <provider> or a provider option.
bool describes_provider_volume(const VolumeOptions& o) {
  const auto& s = o.storage;
  if (!s.backend.empty()) return submit::storage_traits(s).one_volume;
  return !s.ns.empty() || !s.volume_id.empty() || !s.config.empty() || s.timeout_s != 0;
}

void run_provider_describe(const VolumeOptions& o, CliContext& ctx) {
  const OutputFormat format = parse_output_format(o.output);
  auto target = open_target(o, ctx);
  const auto& where = target->ref();
  const nlohmann::json facts = target->describe();
  nlohmann::json doc = facts;
  doc["pvc"] = where.pvc;
  doc["pv"] = where.pv;
  doc["resolvedBy"] = where.method;
  if (format == OutputFormat::kJson || format == OutputFormat::kYaml) return print_document(ctx.out, doc, format);
  auto text = [&](const char* key) { return facts.at(key).get<std::string>(); };
  auto bytes = [&](const char* key) { return storage::format_bytes(static_cast<uint64_t>(facts.at(key).get<int64_t>())); };
  auto& out = ctx.out;
  if (!text("id").empty() && !where.pvc.empty())
    out << fmt::format("PVC:               {} (PV {}, resolved by {})\n", where.pvc, where.pv, where.method);
  out << fmt::format("{:<19}{}\n", submit::volume_provider_traits().label + " volume:", text("name"));
  out << fmt::format("Resource id:       {}\n", text("id"));
  out << fmt::format("Location:          {}\n", text("location"));
  out << fmt::format("Creation token:    {}\n", text("creationToken"));
  out << fmt::format("State:             {}\n", text("provisioningState"));
  out << fmt::format("Capacity pool:     {} ({} QoS, {})\n", text("pool"), text("poolQosType"), bytes("poolSizeBytes"));
  out << fmt::format("Service level:     {}\n", text("serviceLevel"));
  out << fmt::format("Quota:             {}\n", bytes("quotaBytes"));
  out << fmt::format("Throughput:        {:g} MiB/s (pool total {:g} MiB/s)\n", facts.at("throughputMibps").get<double>(),
                     facts.at("poolTotalThroughputMibps").get<double>());
}

void run_describe(const VolumeOptions& o, CliContext& ctx) {
  if (describes_provider_volume(o)) {
    if (!o.volume.empty()) throw UsageError(provider_text("the {label} volume is named by --pvc or --volume-id, not NAME"));
    return run_provider_describe(o, ctx);
  }
  if (!o.volume.empty() && !o.pvc.empty()) throw UsageError("give the volume as NAME or as --pvc NAME, not both");
  const std::string& name = o.volume.empty() ? o.pvc : o.volume;
  if (name.empty())
    throw UsageError(provider_text("volume describe needs NAME (see `lanectl volume list`); for the {label} volume "
                                   "behind a PVC add --backend {backend}"));
  describe_volume(ctx, name, o.project, o.output);
}

void run_delete(const VolumeOptions& o, CliContext& ctx) {
  require_dns1123_label(o.volume, "volume name");
  const std::string project = ctx.project(o.project);
  OperationProgress<submit::Storage> progress(ctx.storage(), "volume delete", o.quiet, ctx);
  ctx.storage().delete_volume(o.volume, project);
  progress.finish();
  ctx.out << fmt::format("Volume {} deleted.\n", o.volume);
}

void run_set_service_level(const VolumeOptions& o, CliContext& ctx) {
  const std::string level = submit::open_volume_provider()->parse_service_level(o.level);  // before any network
  auto target = open_target(o, ctx);
  auto r = target->set_service_level(level, o.pool);
  ctx.out << fmt::format("Volume {} moved from pool {} ({}) to pool {} ({}); no data was copied\n",
                         target->ref().volume, r.from_pool, r.from_level, r.to_pool, r.to_level);
}

// The same path as `lanectl snapshot create --backend <the provider>`.
void run_snapshot_create(const VolumeOptions& o, CliContext& ctx) {
  SnapshotCreateOptions create;
  create.pvc = o.pvc;
  create.name = o.name;
  create.project = o.project;
  create.storage = provider_target(o).storage;
  create.quiet = o.quiet;
  create_snapshot(create, ctx);
}

// The snapshots as `lanectl snapshot list --backend <the provider>` prints them (the table even
// when it is empty).
void run_snapshot_list(const VolumeOptions& o, CliContext& ctx) {
  const OutputFormat format = parse_output_format(o.output);
  auto target = open_target(o, ctx);
  print_snapshots(ctx.out, target->snapshots().list(std::nullopt), submit::volume_provider_traits(), format);
}

// The same path as `lanectl snapshot delete --backend <the provider>`.
void run_snapshot_delete(const VolumeOptions& o, CliContext& ctx) {
  storage::require_snapshot_reference(o.snapshot);
  const Deleted d = delete_snapshot(provider_target(o), ctx);
  ctx.out << fmt::format("{} snapshot {} deleted\n", d.traits->label, d.snapshot);
}

// The same path as `lanectl restore --in-place --backend <the provider>`.
void run_revert(const VolumeOptions& o, CliContext& ctx) {
  storage::require_snapshot_reference(o.snapshot);
  RevertTexts texts;
  texts.warn_when_confirmed = true;
  texts.warning = [&](const Reverted& r) {
    std::string newer = r.plan.newer_snapshots.empty() ? "none" : "";
    for (const auto& s : r.plan.newer_snapshots) newer += (newer.empty() ? "" : ", ") + s;
    return fmt::format("warning: reverting {} to {} replaces all its data and DELETES the newer snapshots: {}\n",
                       r.provider_volume, r.snapshot, newer);
  };
  texts.refusal = "revert is destructive and cannot be undone; repeat with --yes to confirm";
  Reverted r = revert_volume(provider_target(o), o.yes, texts, ctx);
  ctx.out << fmt::format("Volume {} reverted to snapshot {}\n", r.provider_volume, r.snapshot);
}

// The same path as `lanectl restore --backend <the provider>` with its new-volume option.
void run_restore(const VolumeOptions& o, CliContext& ctx) {
  storage::require_snapshot_reference(o.snapshot);
  if (o.to_volume.empty()) throw UsageError(provider_text("restore needs {new_volume_flag} NEW (the new {label} volume's name)"));
  Restored r = restore_to_new_volume(provider_target(o), o.to_volume, ctx);
  ctx.out << fmt::format("Volume {} created from snapshot {} in pool {}\n", o.to_volume, r.snapshot, r.pool);
}

void add_backend_volume_commands(CLI::App* cmd, std::shared_ptr<VolumeOptions> o, CliContext& ctx) {
  auto* list = cmd->add_subcommand("list", "List the backend's volumes: size requested and used, origin, jobs using them");
  list->add_option("-p,--project", o->project, "Project");
  list->add_flag("-A,--all-projects", o->all, "Volumes of all projects");
  list->add_option("-o,--output", o->output, "json | yaml");
  list->callback([o, &ctx] { list_volumes(ctx, o->project, o->all, o->output); });

  auto* describe = cmd->add_subcommand(
      "describe", provider_text("Show a volume; with --backend {backend}: the {label} volume behind --pvc "
                                "(pool, service level, quota, throughput)"));
  describe->add_option("name", o->volume, "Volume (claim) name");
  describe->add_option("--pvc", o->pvc, provider_text("The claim (with --backend {backend}: the PVC whose {label} volume)"));
  describe->add_option("-p,--project", o->project, "Project (namespace runai-<project>)");
  describe->add_option("-o,--output", o->output, "json | yaml");
  add_backend_options(describe, o->storage);
  describe->callback([o, &ctx] { run_describe(*o, ctx); });

  auto* del = cmd->add_subcommand("delete", "Delete a volume and its data (refused while a running or pending job uses it)");
  del->add_option("name", o->volume, "Volume (claim) name")->required();
  del->add_option("-p,--project", o->project, "Project");
  add_quiet_flag(del, o->quiet);
  del->callback([o, &ctx] { run_delete(*o, ctx); });
}

void add_snapshot_commands(CLI::App* cmd, std::shared_ptr<VolumeOptions> o, CliContext& ctx) {
  auto* snap = cmd->add_subcommand("snapshot", provider_text("Native {label} snapshots of the volume"));
  snap->require_subcommand(1);
  auto* create = snap->add_subcommand("create", provider_text("Take an {label} snapshot"));
  add_target_options(create, *o);
  create->add_option("--name", o->name, "Snapshot name (default <pvc>-<YYYYMMDD-HHMMSS>)");
  add_quiet_flag(create, o->quiet);
  create->callback([o, &ctx] { run_snapshot_create(*o, ctx); });
  auto* list = snap->add_subcommand("list", provider_text("List the volume's {label} snapshots, oldest first"));
  add_target_options(list, *o);
  list->add_option("-o,--output", o->output, "json | yaml");
  list->callback([o, &ctx] { run_snapshot_list(*o, ctx); });
  auto* del = snap->add_subcommand("delete", provider_text("Delete an {label} snapshot"));
  add_target_options(del, *o);
  del->add_option("snapshot", o->snapshot, kSnapshotRefHelp)->required();
  del->callback([o, &ctx] { run_snapshot_delete(*o, ctx); });
}

}  // namespace

void add_volume_command(CLI::App& app, CliContext& ctx) {
  auto o = std::make_shared<VolumeOptions>();
  auto* cmd = app.add_subcommand("volume", provider_text("Volumes (claims), and {title} volumes behind PVCs"));
  cmd->footer("Examples:\n"
             "  lanectl volume list -A\n"
             "  lanectl volume describe data\n"
             "  lanectl volume delete data              # refused while a job uses it");
  cmd->require_subcommand(1);
  add_backend_volume_commands(cmd, o, ctx);

  auto* level = cmd->add_subcommand("set-service-level", "Move the volume to a pool of another service level");
  add_target_options(level, *o);
  level->add_option("level", o->level, submit::volume_provider_traits().service_levels)->required();
  level->add_option("--pool", o->pool, "Target pool (default: the first large enough pool of that level)");
  level->callback([o, &ctx] { run_set_service_level(*o, ctx); });

  add_snapshot_commands(cmd, o, ctx);

  auto* revert = cmd->add_subcommand("revert", "Revert the volume in place to a snapshot (deletes newer snapshots)");
  add_target_options(revert, *o);
  revert->add_option("snapshot", o->snapshot, kSnapshotRefHelp)->required();
  revert->add_flag("-y,--yes", o->yes, "Confirm the destructive revert");
  add_quiet_flag(revert, o->quiet);
  revert->callback([o, &ctx] { run_revert(*o, ctx); });

  auto* restore = cmd->add_subcommand("restore", provider_text("Create a new {label} volume from a snapshot (same pool)"));
  add_target_options(restore, *o);
  restore->add_option("snapshot", o->snapshot, kSnapshotRefHelp)->required();
  add_quiet_flag(restore, o->quiet);
  restore->add_option(submit::volume_provider_traits().new_volume_flag, o->to_volume,
                      provider_text("Name of the new {label} volume (also its creation token)"));
  restore->callback([o, &ctx] { run_restore(*o, ctx); });
}

}  // namespace lane::cli

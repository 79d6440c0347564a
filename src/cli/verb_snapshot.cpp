// lanectl snapshot create|list|describe|delete|verify: point-in-time copies of volumes
// (a volume provider's snapshot semantics; the local backend keeps a content-addressed store).
// create/list/delete --backend <the volume provider> work on its native snapshots of the volume
// behind --pvc (or --volume-id) instead of the configured backend's store.
#include <algorithm>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "cli/context.h"
#include "cli/parse_errors.h"
#include "cli/snapshot_create.h"
#include "cli/snapshot_ops.h"
#include "cli/snapshot_table.h"
#include "cli/storage_flags.h"
#include "common/error.h"
#include "common/names.h"
#include "storage/core/lineage_view.h"
#include "storage/core/snapshot_lookup.h"
#include "storage/core/snapshots.h"
#include "storage/core/volumes.h"

namespace lane::cli {

namespace {

struct SnapshotOptions : SnapshotCreateOptions {
  std::string snapshot;
  bool all_projects = false;  // list -A
};

void print_info_text(std::ostream& out, const storage::SnapshotInfo& s) {
  out << fmt::format("Name:            {}\n", s.name);
  out << fmt::format("ID:              {}\n", storage::snapshot_id(s));
  out << fmt::format("Volume:          {}\n", s.volume);
  out << fmt::format("Namespace:       {}\n", s.ns);
  out << fmt::format("Job:             {}\n", s.job.empty() ? "<none>" : s.job);
  out << fmt::format("Created:         {}\n", storage::format_utc(s.created_unix_ms));
  out << fmt::format("Files:           {}\n", s.file_count);
  out << fmt::format("Size:            {}\n", storage::format_bytes(s.total_bytes));
  out << fmt::format("Added to store:  {}\n", storage::format_bytes(s.new_bytes));
  out << fmt::format("Content digest:  sha256:{}\n", s.content_digest);
  if (!s.metadata.empty()) {
    out << "Metadata:\n";
    for (const auto& [k, v] : s.metadata) out << fmt::format("  {}: {}\n", k, v);
  }
}

// Every project's snapshots (of `volume` when given), oldest first, each once, with its project
// ("-" for one that no project's view holds).
std::vector<std::pair<std::string, storage::SnapshotInfo>> every_projects_snapshots(
    const std::optional<std::string>& volume, CliContext& ctx) {
  std::vector<std::pair<std::string, storage::SnapshotInfo>> out;
  std::set<std::pair<std::string, std::string>> seen;
  auto add = [&](storage::SnapshotStore& store, const std::string& project) {
    for (auto& s : store.list(volume))
      if (seen.insert({s.ns, s.name}).second) out.emplace_back(project, std::move(s));
  };
  for (const auto& p : ctx.projects().list_projects()) add(ctx.storage().snapshots_of(p.spec.name), p.spec.name);
  add(ctx.storage().snapshots(), "");
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.second.created_unix_ms < b.second.created_unix_ms; });
  return out;
}

void run_list(const SnapshotOptions& o, CliContext& ctx) {
  const OutputFormat format = parse_output_format(o.output);
  std::optional<std::string> volume;
  if (!o.pvc.empty()) {
    require_dns1123_label(o.pvc, "--pvc");
    volume = o.pvc;
  }
  SelectedStorage selected(o.storage);
  std::vector<storage::SnapshotInfo> snaps;
  std::vector<std::string> projects;  // -A: each snapshot's project
  if (o.all_projects) {
    if (selected.traits().one_volume || !o.project.empty())
      throw UsageError("snapshot list -A lists every project's snapshots: drop -p and --backend");
    for (auto& [project, s] : every_projects_snapshots(volume, ctx)) {
      projects.push_back(project);
      snaps.push_back(std::move(s));
    }
  } else {
    snaps = selected.open(o.pvc, o.project, ctx).list(volume);
  }
  if (snaps.empty() && (format == OutputFormat::kTable || format == OutputFormat::kWide)) {
    ctx.out << "No snapshots found.\n";
    return;
  }
  print_snapshots(ctx.out, snaps, selected.traits(), format, projects);
}

void run_describe(const SnapshotOptions& o, CliContext& ctx) {
  const OutputFormat format = parse_output_format(o.output);
  storage::require_snapshot_reference(o.snapshot);
  auto& stores = ctx.storage();
  auto info = stores.snapshots().describe(storage::resolve_snapshot(stores.snapshots(), o.snapshot));
  auto view = storage::lineage_of_snapshot(stores.snapshots(), stores.volumes(), info.name);
  if (format == OutputFormat::kJson || format == OutputFormat::kYaml) {
    nlohmann::json doc = storage::to_json(info);
    if (view) doc["lineage"] = storage::to_json(*view);
    print_document(ctx.out, doc, format);
    return;
  }
  print_info_text(ctx.out, info);
  if (view) {
    if (!view->record.parent_snapshot.empty())
      ctx.out << fmt::format("Parent snapshot: {}\n", view->record.parent_snapshot);
    if (!view->restored_volumes.empty())
      ctx.out << fmt::format("Restored into:   {}\n", fmt::join(view->restored_volumes, ", "));
  }
  ctx.out << fmt::format("(lineage: lanectl lineage {})\n", info.name);
}

void run_delete(const SnapshotOptions& o, CliContext& ctx) {
  storage::require_snapshot_reference(o.snapshot);
  if (!submit::storage_traits(o.storage).one_volume && !o.pvc.empty())
    throw UsageError(provider_text("snapshot delete takes --pvc only with --backend {backend} (to find the {label} volume)"));
  const Deleted d = delete_snapshot({o.snapshot, o.pvc, o.project, o.storage, "", false}, ctx);
  ctx.out << (d.traits->one_volume ? fmt::format("{} snapshot {} deleted.\n", d.traits->label, d.snapshot)
                                   : fmt::format("Snapshot {} deleted.\n", d.snapshot));
}

void run_verify(const SnapshotOptions& o, CliContext& ctx) {
  const OutputFormat format = parse_output_format(o.output);
  storage::require_snapshot_reference(o.snapshot);
  auto& store = ctx.storage().snapshots();
  const std::string name = storage::resolve_snapshot(store, o.snapshot);
  StoreProgress progress(store, "snapshot verify", o.quiet, ctx);
  auto report = store.verify(name);
  progress.finish();
  if (format == OutputFormat::kJson || format == OutputFormat::kYaml) {
    print_document(ctx.out, storage::to_json(report), format);
  } else if (report.ok()) {
    ctx.out << fmt::format("Snapshot {} verified: {} objects, {} intact.\n", report.snapshot,
                           report.objects_checked, storage::format_bytes(report.bytes_checked));
  } else {
    ctx.out << fmt::format("Snapshot {} is DAMAGED ({} problems):\n", report.snapshot, report.damaged.size());
    for (const auto& d : report.damaged) ctx.out << "  " << d << "\n";
  }
  if (!report.ok())
    throw Error(fmt::format("snapshot '{}' failed verification; restore from it is unsafe", name));
}

}  // namespace

void add_snapshot_command(CLI::App& app, CliContext& ctx) {
  auto o = std::make_shared<SnapshotOptions>();
  auto* cmd = app.add_subcommand("snapshot", "Create, list, inspect, verify and delete volume snapshots");
  cmd->footer("Examples:\n"
             "  lanectl snapshot create --pvc data --job train-1\n"
             "  lanectl snapshot list --pvc data\n"
             "  lanectl snapshot verify data-20261127-143000");
  cmd->require_subcommand(1);

  auto* create = cmd->add_subcommand("create", "Snapshot a volume (all or nothing)");
  create->add_option("--pvc", o->pvc, "Volume (claim) to snapshot");
  create->add_option("--name", o->name, "Snapshot name (default <pvc>-<YYYYMMDD-HHMMSS>)")
      ->check(non_empty("give a snapshot name, or leave --name out for <pvc>-<YYYYMMDD-HHMMSS>"));
  create->add_option("--job", o->job, "Job this snapshot belongs to (lineage)");
  create->add_option("-p,--project", o->project, "Project");
  create->add_option("-o,--output", o->output, "json | yaml");
  add_quiet_flag(create, o->quiet);
  add_backend_options(create, o->storage);
  create->callback([o, &ctx] { create_snapshot(*o, ctx); });

  auto* list = cmd->add_subcommand("list", "List snapshots, oldest first");
  list->add_option("--pvc", o->pvc, "Only snapshots of this volume");
  list->add_option("-o,--output", o->output, "wide | json | yaml");
  list->add_option("-p,--project", o->project, provider_text(kSnapshotProjectHelp));
  list->add_flag("-A,--all-projects", o->all_projects, "Every project's snapshots");
  add_backend_options(list, o->storage);
  list->callback([o, &ctx] { run_list(*o, ctx); });

  auto* describe = cmd->add_subcommand("describe", "Show one snapshot");
  describe->add_option("snapshot", o->snapshot, kSnapshotRefHelp)->required();
  describe->add_option("-o,--output", o->output, "json | yaml");
  describe->callback([o, &ctx] { run_describe(*o, ctx); });

  auto* del = cmd->add_subcommand("delete", "Delete a snapshot (frees data no other snapshot shares)");
  del->add_option("snapshot", o->snapshot, kSnapshotRefHelp)->required();
  del->add_option("--pvc", o->pvc, provider_text("With --backend {backend}: the PVC whose {label} volume holds the snapshot"));
  del->add_option("-p,--project", o->project, provider_text(kSnapshotProjectHelp));
  add_backend_options(del, o->storage);
  del->callback([o, &ctx] { run_delete(*o, ctx); });

  auto* verify = cmd->add_subcommand("verify", "Re-hash every object of a snapshot; exit 1 if any is damaged");
  verify->add_option("snapshot", o->snapshot, kSnapshotRefHelp)->required();
  verify->add_option("-o,--output", o->output, "json | yaml");
  add_quiet_flag(verify, o->quiet);
  verify->callback([o, &ctx] { run_verify(*o, ctx); });
}

}  // namespace lane::cli

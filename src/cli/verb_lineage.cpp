// lanectl lineage SNAP|JOB: where a snapshot came from (job, image, command, environment with
// secrets masked, code version, parent snapshot, dataset digest, final metrics) and what was
// derived from it (volumes restored from it, snapshots of those volumes).
#include <fmt/format.h>

#include "cli/context.h"
#include "common/error.h"
#include "storage/core/lineage_view.h"
#include "storage/core/snapshots.h"

namespace lane::cli {

namespace {

struct LineageOptions {
  std::string target, output;
};

std::string or_none(const std::string& s) { return s.empty() ? "<none>" : s; }

std::string metric_text(const nlohmann::json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

void print_view(std::ostream& out, const storage::LineageView& v) {
  const auto& r = v.record;
  out << fmt::format("Snapshot:          {}{}\n", r.snapshot, v.snapshot.name.empty() ? " (deleted)" : "");
  out << fmt::format("Volume:            {}\n", or_none(r.volume));
  if (!v.snapshot.name.empty()) {
    out << fmt::format("Created:           {}\n", storage::format_utc(v.snapshot.created_unix_ms));
    out << fmt::format("Namespace:         {}\n", v.snapshot.ns);
  }
  out << fmt::format("Parent snapshot:   {}\n", or_none(r.parent_snapshot));
  if (!r.parent_volume.empty()) out << fmt::format("Parent volume:     {}\n", r.parent_volume);
  out << fmt::format("Dataset digest:    {}\n", r.dataset_digest.empty() ? "<unknown>" : "sha256:" + r.dataset_digest);
  if (r.job) {
    const auto& j = *r.job;
    out << "Job:\n";
    out << fmt::format("  Name:            {} (namespace {})\n", j.name, j.ns);
    out << fmt::format("  Image:           {}\n", or_none(j.image));
    out << fmt::format("  Command:         {}\n", j.command.empty() ? "<image default>" : fmt::format("{}", fmt::join(j.command, " ")));
    out << fmt::format("  Code version:    {}\n", j.code_version.empty() ? "<unknown>" : j.code_version);
    if (!j.env.empty()) {
      out << "  Environment:\n";
      for (const auto& [k, val] : mask_secret_env(j.env)) out << fmt::format("    {}={}\n", k, val);
    }
  } else {
    out << "Job:               <none> (taken by a user)\n";
  }
  if (r.final_metrics.is_object() && !r.final_metrics.empty()) {
    out << "Final metrics:\n";
    for (const auto& [k, val] : r.final_metrics.items()) out << fmt::format("  {}: {}\n", k, metric_text(val));
  } else {
    out << "Final metrics:     <none recorded>\n";
  }
  out << fmt::format("Restored into:     {}\n", v.restored_volumes.empty() ? "<none>" : fmt::format("{}", fmt::join(v.restored_volumes, ", ")));
  out << fmt::format("Derived snapshots: {}\n", v.derived_snapshots.empty() ? "<none>" : fmt::format("{}", fmt::join(v.derived_snapshots, ", ")));
}

void run_lineage(const LineageOptions& o, CliContext& ctx) {
  const OutputFormat format = parse_output_format(o.output);
  if (format == OutputFormat::kWide) throw UsageError("lineage -o takes json or yaml (or nothing, for text); not wide");
  if (!storage::is_snapshot_name(o.target))
    throw UsageError(fmt::format("'{}' is not a snapshot or job name (lower-case letters, digits, '-')", o.target));
  auto& stores = ctx.storage();
  std::vector<storage::LineageView> views;
  if (auto v = storage::lineage_of_snapshot(stores.snapshots(), stores.volumes(), o.target)) {
    views.push_back(std::move(*v));
  } else {
    views = storage::lineage_of_job(stores.snapshots(), stores.volumes(), o.target);
  }
  if (views.empty())
    throw Error(fmt::format("no snapshot or job '{}' with lineage; see 'lanectl snapshot list'", o.target));
  if (format == OutputFormat::kJson || format == OutputFormat::kYaml) {
    nlohmann::json items = nlohmann::json::array();
    for (const auto& v : views) items.push_back(storage::to_json(v));
    print_document(ctx.out, {{"items", items}}, format);
    return;
  }
  for (size_t i = 0; i < views.size(); ++i) {
    if (i) ctx.out << "\n";
    print_view(ctx.out, views[i]);
  }
}

}  // namespace

void add_lineage_command(CLI::App& app, CliContext& ctx) {
  auto o = std::make_shared<LineageOptions>();
  auto* cmd = app.add_subcommand("lineage", "Show where a snapshot (or a job's snapshots) came from and what derives from it");
  cmd->add_option("name", o->target, "Snapshot or job name")->required();
  cmd->add_option("-o,--output", o->output, "json | yaml");
  cmd->callback([o, &ctx] { run_lineage(*o, ctx); });
}

}  // namespace lane::cli

// lanectl lineage SNAP|JOB [--compare OTHER]: where a snapshot came from (job, image, command,
// environment with secrets masked, code version, parent snapshot, dataset digest, final metrics)
// and what was derived from it (volumes restored from it, snapshots of those volumes); with --compare, two runs'
// final metrics side by side (cli/lineage_compare.h).
#include <fmt/format.h>

#include "cli/context.h"
#include "cli/lineage_compare.h"
#include "cli/table.h"
#include "common/error.h"
#include "storage/core/lineage_view.h"
#include "storage/core/snapshot_lookup.h"
#include "storage/core/snapshots.h"

namespace lane::cli {

namespace {

struct LineageOptions {
  std::string target, output, compare;
};

std::string or_none(const std::string& s) { return s.empty() ? "<none>" : s; }

std::string metric_text(const nlohmann::json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

void print_view(std::ostream& out, const storage::LineageView& v) {
  const auto& r = v.record;
  out << fmt::format("Snapshot:          {}{}\n", r.snapshot,
                     v.snapshot.name.empty() ? " (deleted)" : " (ID " + storage::short_snapshot_id(v.snapshot) + ")");
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
    out << fmt::format("  Command:         {}\n", j.command.empty() ? "<image default>" : shell_quoted(j.command));
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

// The views `target` names: a snapshot's exact name, else a job's snapshots, else a unique
// prefix of a snapshot's name or ID (an ambiguous one is an error listing the candidates).
std::vector<storage::LineageView> views_of(const std::string& target, submit::Storage& stores) {
  storage::require_snapshot_reference(target, "snapshot or job");
  if (storage::is_snapshot_name(target)) {
    if (auto v = storage::lineage_of_snapshot(stores.snapshots(), stores.volumes(), target)) return {std::move(*v)};
    auto views = storage::lineage_of_job(stores.snapshots(), stores.volumes(), target);
    if (!views.empty()) return views;
  }
  const Error none(fmt::format("no snapshot or job '{}' with lineage; see 'lanectl snapshot list'", target));
  std::string name;
  try {
    name = storage::resolve_snapshot(stores.snapshots(), target, "snapshot or job");
  } catch (const UsageError&) {
    throw;  // ambiguous: the candidates
  } catch (const Error&) {
    throw none;
  }
  if (auto v = storage::lineage_of_snapshot(stores.snapshots(), stores.volumes(), name)) return {std::move(*v)};
  throw none;
}

// The final metrics of the run `target` names: its newest snapshot's lineage that recorded some.
const nlohmann::json& final_metrics(const std::vector<storage::LineageView>& views, const std::string& target) {
  for (auto it = views.rbegin(); it != views.rend(); ++it)
    if (it->record.final_metrics.is_object() && !it->record.final_metrics.empty()) return it->record.final_metrics;
  throw Error(fmt::format("'{}' has no final metrics recorded (its snapshots' lineage holds none); "
                          "only a training job's end-of-training snapshot records them",
                          target));
}

void compare_runs(const LineageOptions& o, CliContext& ctx, OutputFormat format) {
  if (format == OutputFormat::kWide) throw UsageError("lineage --compare takes -o json or yaml (or no -o)");
  const auto a = views_of(o.target, ctx.storage());
  const auto b = views_of(o.compare, ctx.storage());
  const MetricsComparison c = compare_final_metrics(final_metrics(a, o.target), final_metrics(b, o.compare));
  if (format == OutputFormat::kJson || format == OutputFormat::kYaml)
    return print_document(ctx.out, to_json(o.target, o.compare, c), format);
  print_comparison(ctx.out, o.target, o.compare, c);
}

void run_lineage(const LineageOptions& o, CliContext& ctx) {
  const OutputFormat format = parse_output_format(o.output);
  if (format == OutputFormat::kWide) throw UsageError("lineage -o takes json or yaml (or nothing, for text); not wide");
  if (!o.compare.empty()) return compare_runs(o, ctx, format);
  const auto views = views_of(o.target, ctx.storage());
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
  cmd->footer("Examples:\n"
             "  lanectl lineage train-1                 # the snapshots the job took or started from\n"
             "  lanectl lineage data-20261127-143000    # where a snapshot came from, what derives from it\n"
             "  lanectl lineage train-1 -o json");
  cmd->add_option("name", o->target, "Job name, or a snapshot's name (or a unique prefix of it or of its ID)")
      ->required();
  cmd->add_option("--compare", o->compare,
                  "Another job (or snapshot): print both runs' final metrics side by side and whether they are "
                  "identical (bit-exact)");
  cmd->add_option("-o,--output", o->output, "json | yaml");
  cmd->callback([o, &ctx] { run_lineage(*o, ctx); });
}

}  // namespace lane::cli

// lanectl top node | top job: GPU allocation from the scheduler's view (what jobs hold of each
// node's GPUs), in runai's column groups (reference §1.9). runai read utilization from
// Prometheus; lanectl has no such source, so every utilization/usage column prints `-` rather
// than a made-up figure.
#include <algorithm>

#include <fmt/format.h>

#include "cli/context.h"
#include "cli/duration_format.h"
#include "cli/table.h"
#include "cli/verbs.h"
#include "common/clock.h"
#include "common/error.h"
#include "submit/core/errors.h"

namespace lane::cli {

namespace {

constexpr const char* kUnknown = "-";

// -o json|yaml: a List of the rows' values; the utilization columns, unknown here, are null.
nlohmann::json node_item(const submit::NodeStatus& n) {
  return {{"name", n.spec.name}, {"status", n.ready.empty() ? nlohmann::json() : nlohmann::json(n.ready == "True" ? "Ready" : "NotReady")},
          {"gpusTotal", n.spec.gpus}, {"gpusAllocated", n.gpus_allocated},
          {"gpusFree", std::max(0.0, n.spec.gpus - n.gpus_allocated)}, {"gpuUtilization", nullptr},
          {"gpuMemoryUsage", nullptr}, {"jobs", n.jobs.size()}};
}

void top_nodes(CliContext& ctx, OutputFormat format) {
  Table table({"NODE", "STATUS", "GPUs TOTAL", "GPUs ALLOCATED", "GPUs FREE", "GPU UTIL", "GPU MEMORY USAGE", "JOBS"});
  nlohmann::json items = nlohmann::json::array();
  for (const auto& n : ctx.cluster().list_nodes()) {
    items.push_back(node_item(n));
    std::string status = n.ready.empty() ? kUnknown : n.ready == "True" ? "Ready" : "NotReady";
    table.add({n.spec.name, status, std::to_string(n.spec.gpus), format_gpus(n.gpus_allocated),
               format_gpus(std::max(0.0, n.spec.gpus - n.gpus_allocated)), kUnknown, kUnknown,
               std::to_string(n.jobs.size())});
  }
  if (format == OutputFormat::kJson || format == OutputFormat::kYaml)
    return print_document(ctx.out, list_document(std::move(items)), format);
  table.print(ctx.out);
}

std::string job_duration(const submit::JobInfo& j, int64_t now) {
  if (!j.started_unix_ms) return kUnknown;
  return short_duration((j.finished_unix_ms ? j.finished_unix_ms : now) - j.started_unix_ms);
}

nlohmann::json job_item(const submit::JobInfo& j, int64_t now) {
  auto given = [](const submit::Quantity& q) { return q.given() ? nlohmann::json(q.text()) : nlohmann::json(); };
  return {{"name", j.spec.name}, {"project", j.spec.project}, {"user", j.spec.user},
          {"type", submit::to_string(j.spec.type)}, {"status", submit::to_string(j.status)},
          {"durationSeconds", j.started_unix_ms ? nlohmann::json(((j.finished_unix_ms ? j.finished_unix_ms : now) -
                                                                  j.started_unix_ms) / 1000) : nlohmann::json()},
          {"nodes", j.nodes}, {"gpusAllocated", j.gpus_allocated}, {"gpusRequested", j.spec.total_gpus()},
          {"gpuUtilization", nullptr}, {"cpuAllocated", given(j.spec.cpu)},
          {"memoryAllocated", given(j.spec.memory)}};
}

void top_jobs(CliContext& ctx, const std::string& project_flag, bool all, OutputFormat format) {
  std::optional<std::string> project;
  if (!all) {
    project = ctx.project(project_flag);
    if (!ctx.projects().project_exists(*project)) throw submit::unknown_project(*project);
  }
  // Column groups: GENERAL | GPU | GPU MEMORY | CPU | CPU MEMORY. Allocated CPU and memory are the
  // job's requests (--cpu, --memory) where it made one.
  Table table({"NAME", "PROJECT", "USER", "TYPE", "STATUS", "DURATION", "NODE", "GPU ALLOCATED", "GPU UTIL",
               "GPU MEMORY ALLOCATED", "GPU MEMORY USAGE", "CPU ALLOCATED", "CPU USAGE", "CPU MEMORY ALLOCATED",
               "CPU MEMORY USAGE"});
  nlohmann::json items = nlohmann::json::array();
  const int64_t now = now_unix_ms();
  for (const auto& j : ctx.jobs().list_jobs(project)) {
    items.push_back(job_item(j, now));
    std::string nodes;
    for (const auto& n : j.nodes) nodes += (nodes.empty() ? "" : ",") + n;
    table.add({j.spec.name, j.spec.project, j.spec.user, submit::to_string(j.spec.type), submit::to_string(j.status),
               job_duration(j, now), nodes.empty() ? kUnknown : nodes,
               format_gpus(j.gpus_allocated) + " (" + format_gpus(j.spec.total_gpus()) + ")", kUnknown, kUnknown,
               kUnknown, j.spec.cpu.given() ? j.spec.cpu.text() : kUnknown, kUnknown,
               j.spec.memory.given() ? j.spec.memory.text() : kUnknown, kUnknown});
  }
  if (format == OutputFormat::kJson || format == OutputFormat::kYaml)
    return print_document(ctx.out, list_document(std::move(items)), format);
  if (project) ctx.out << "Showing jobs for project " << *project << "\n";
  table.print(ctx.out);
}

}  // namespace

void add_top_command(CLI::App& app, CliContext& ctx) {
  struct Options {
    std::string what, project, output;
    bool all = false;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("top", "GPU allocation per node (`top node`) or per job (`top job`)");
  cmd->footer("Examples:\n"
             "  lanectl top node                        # GPUs allocated per node\n"
             "  lanectl top job -A                      # per job, all projects");
  cmd->add_option("KIND", o->what, "node | job")->required();
  cmd->add_option("-p,--project", o->project, "Project (top job)");
  cmd->add_flag("-A,--all-projects", o->all, "Jobs of all projects (top job)");
  cmd->add_option("-o,--output", o->output, "json | yaml (a List; unknown utilization is null)");
  cmd->callback([o, &ctx] {
    const OutputFormat format = parse_output_format(o->output);
    if (format == OutputFormat::kWide) throw UsageError("top -o takes json or yaml (the table is already whole); not wide");
    if (o->what == "node" || o->what == "nodes") return top_nodes(ctx, format);
    if (o->what == "job" || o->what == "jobs") return top_jobs(ctx, o->project, o->all, format);
    throw UsageError("cannot show top '" + o->what + "'; use `lanectl top node` or `lanectl top job`");
  });
}

}  // namespace lane::cli

// lanectl list [jobs]: the Run:AI job table (11 columns), or -o wide|json|yaml; `list projects`,
// `list nodes` and `list volumes` are runai's spellings of `project list`, `cluster nodes` and
// `volume list`.
#include <set>

#include <fmt/ranges.h>

#include "cli/context.h"
#include "cli/duration_format.h"
#include "cli/table.h"
#include "cli/verbs.h"
#include "cli/volume_table.h"
#include "common/clock.h"
#include "common/error.h"
#include "submit/core/errors.h"
#include "submit/core/workload.h"
#include "submit/core/workload_json.h"

namespace lane::cli {

namespace {

std::string node_cell(const submit::JobInfo& job) {
  if (job.status != submit::JobStatus::kRunning || job.nodes.empty()) return "";
  return job.nodes.size() == 1 ? job.nodes[0] : "<multiple>";
}

std::string gpu_cell(const submit::JobInfo& job) {
  bool finished = job.status == submit::JobStatus::kSucceeded || job.status == submit::JobStatus::kFailed;
  return (finished ? std::string("-") : format_gpus(job.gpus_allocated)) + " (" + format_gpus(job.spec.total_gpus()) + ")";
}

// -o wide: the chief pod's IP (launcher or main pod; "-" when unknown, e.g. locally).
std::string ip_cell(const submit::JobInfo& job) {
  for (const auto& p : job.pods)
    if ((p.role == "launcher" || p.role == "main") && !p.ip.empty()) return p.ip;
  return "-";
}

// -o wide: the pods the job is made of (1; MPI: the launcher and one per process; PyTorch: master + workers).
int pod_count(const submit::JobSpec& spec) { return submit::is_distributed(spec.type) ? spec.processes + 1 : 1; }

struct ListOptions {
  std::vector<std::string> what;
  std::string project, output;
  bool all = false;
};

bool is_kind(const std::string& what, const char* kind) { return what == kind || what + "s" == kind; }

void run_list(const ListOptions& o, CliContext& ctx) {
  if (o.what.size() > 1)
    throw UsageError("list takes one kind: jobs (default), projects, nodes or volumes; e.g. `lanectl list jobs`");
  const std::string what = o.what.empty() ? "jobs" : o.what[0];
  if (is_kind(what, "projects")) return print_projects(ctx, o.output, true);
  if (is_kind(what, "nodes")) return print_nodes(ctx, o.output);
  if (is_kind(what, "volumes")) return list_volumes(ctx, o.project, o.all, o.output);
  if (!is_kind(what, "jobs"))
    throw UsageError("cannot list '" + what + "'; use `lanectl list jobs`, `lanectl list projects`, `lanectl list nodes` "
                     "or `lanectl list volumes`");
  OutputFormat format = parse_output_format(o.output);
  std::optional<std::string> project;
  if (!o.all) {
    project = ctx.project(o.project);
    if (!ctx.projects().project_exists(*project)) throw submit::unknown_project(*project);
  }
  auto jobs = ctx.jobs().list_jobs(project);

  if (format == OutputFormat::kJson || format == OutputFormat::kYaml) {
    nlohmann::json doc = nlohmann::json::array();
    for (const auto& j : jobs) doc.push_back(submit::job_to_json(j, false));
    print_document(ctx.out, doc, format);
    return;
  }
  std::vector<std::string> header = {"NAME", "STATUS", "AGE", "NODE", "IMAGE", "TYPE", "PROJECT", "USER",
                                     "GPUs Allocated (Requested)", "PODs Running (Pending)", "SERVICE URL(S)"};
  if (format == OutputFormat::kWide)
    header.insert(header.end(), {"REASON", "IP", "START TIME", "PODS", "PREEMPTIBLE"});
  Table table(header);
  int64_t now = now_unix_ms();
  for (const auto& j : jobs) {
    std::vector<std::string> row = {j.spec.name, submit::to_string(j.status), short_duration(now - j.created_unix_ms),
                                    node_cell(j), j.spec.image, submit::type_label(j.spec), j.spec.project,
                                    j.spec.user, gpu_cell(j),
                                    std::to_string(j.pods_running) + " (" + std::to_string(j.pods_pending) + ")",
                                    fmt::format("{}", fmt::join(j.service_urls, ","))};
    if (format == OutputFormat::kWide) {
      std::string start = submit::format_rfc3339(j.started_unix_ms);
      row.insert(row.end(), {j.status_reason, ip_cell(j), start.empty() ? "-" : start,
                             std::to_string(pod_count(j.spec)), submit::is_preemptible(j.spec) ? "yes" : "no"});
    }
    table.add(std::move(row));
  }
  if (project) ctx.out << "Showing jobs for project " << *project << "\n";
  table.print(ctx.out);
}

}  // namespace

void add_list_command(CLI::App& app, CliContext& ctx) {
  auto o = std::make_shared<ListOptions>();
  auto* cmd = app.add_subcommand(
      "list", "List jobs (`list jobs`), projects (`list projects`), nodes (`list nodes`) or volumes (`list volumes`)");
  cmd->footer("Examples:\n"
             "  lanectl list                            # jobs of the default project\n"
             "  lanectl list jobs -A -o wide\n"
             "  lanectl list projects");
  cmd->add_option("what", o->what, "jobs (default) | projects | nodes | volumes");
  cmd->add_option("-p,--project", o->project, "Project");
  cmd->add_flag("-A,--all-projects", o->all, "Jobs (volumes) of all projects");
  cmd->add_option("-o,--output", o->output, "wide | json | yaml");
  cmd->callback([o, &ctx] { run_list(*o, ctx); });
}

}  // namespace lane::cli

// lanectl list [jobs]: the job table (8 columns within 120 characters), or -o wide|json|yaml
// (json|yaml: a Kubernetes List); -l/--selector on the jobs' --label values, --sort-by, and
// -w/--watch. `list projects`, `list nodes` and `list volumes` are runai's spellings of `project
// list`, `cluster nodes` and `volume list`.
#include <chrono>
#include <cstdlib>
#include <map>
#include <thread>

#include "cli/context.h"
#include "cli/job_table.h"
#include "cli/label_selector.h"
#include "cli/table.h"
#include "cli/verbs.h"
#include "cli/volume_table.h"
#include "common/clock.h"
#include "common/error.h"
#include "submit/core/errors.h"
#include "submit/core/workload_json.h"

namespace lane::cli {

namespace {

struct ListOptions {
  std::vector<std::string> what;
  std::string project, output, selector, sort_by;
  bool all = false, watch = false;
};

bool is_kind(const std::string& what, const char* kind) { return what == kind || what + "s" == kind; }

// The jobs to show: the project's (or all), those the selector picks, in --sort-by order.
std::vector<submit::JobInfo> fetch_jobs(const ListOptions& o, const std::optional<std::string>& project,
                                        const LabelSelector& selector, CliContext& ctx) {
  std::vector<submit::JobInfo> jobs;
  for (auto& j : ctx.jobs().list_jobs(project))
    if (selector.matches(j.spec.labels)) jobs.push_back(std::move(j));
  if (!o.sort_by.empty()) sort_jobs(jobs, o.sort_by);
  return jobs;
}

// --watch's end for tests (hidden): LANECTL_WATCH_SECONDS; else until interrupted.
std::optional<std::chrono::steady_clock::time_point> watch_deadline() {
  const char* env = std::getenv("LANECTL_WATCH_SECONDS");
  if (!env || !*env) return std::nullopt;
  return std::chrono::steady_clock::now() + std::chrono::milliseconds(static_cast<int64_t>(std::atof(env) * 1000));
}

// After the table: a row, on the table's columns, for each job that appears or changes (AGE
// aside), and one with STATUS Deleted for each that goes; polled every half second.
void watch_jobs(const ListOptions& o, const std::optional<std::string>& project, const LabelSelector& selector,
                const Table& table, std::map<std::string, std::vector<std::string>> shown, CliContext& ctx) {
  const bool wide = parse_output_format(o.output) == OutputFormat::kWide;
  const auto widths = table.widths();
  const auto deadline = watch_deadline();
  auto key_of = [](const submit::JobInfo& j) { return j.spec.project + "/" + j.spec.name; };
  auto without_age = [](std::vector<std::string> row) { return (row[2].clear(), row); };
  while (!deadline || std::chrono::steady_clock::now() < *deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    std::map<std::string, std::vector<std::string>> now;
    const int64_t now_ms = now_unix_ms();
    for (const auto& j : fetch_jobs(o, project, selector, ctx)) {
      auto row = job_table_row(j, wide, now_ms);
      auto it = shown.find(key_of(j));
      if (it == shown.end() || without_age(it->second) != without_age(row)) ctx.out << Table::line(row, widths) << "\n";
      now[key_of(j)] = std::move(row);
    }
    for (auto& [key, row] : shown) {
      if (now.count(key)) continue;
      row[1] = "Deleted";
      ctx.out << Table::line(row, widths) << "\n";
    }
    ctx.out.flush();
    shown = std::move(now);
  }
}

void list_jobs(const ListOptions& o, CliContext& ctx) {
  const OutputFormat format = parse_output_format(o.output);
  const bool table_format = format == OutputFormat::kTable || format == OutputFormat::kWide;
  if (o.watch && !table_format) throw UsageError("--watch prints table rows; leave out -o json|yaml (or use -o wide)");
  const LabelSelector selector(o.selector);
  std::optional<std::string> project;
  if (!o.all) {
    project = ctx.project(o.project);
    if (!ctx.projects().project_exists(*project)) throw submit::unknown_project(*project);
  }
  const auto jobs = fetch_jobs(o, project, selector, ctx);
  if (!table_format) {
    nlohmann::json items = nlohmann::json::array();
    for (const auto& j : jobs) items.push_back(submit::job_to_json(j, false));
    return print_document(ctx.out, list_document(std::move(items)), format);
  }
  if (project) ctx.out << "Showing jobs for project " << *project << "\n";
  if (jobs.empty() && !o.watch) {
    ctx.out << "No jobs found.\n";
    return;
  }
  Table table(job_table_header(format == OutputFormat::kWide));
  std::map<std::string, std::vector<std::string>> shown;
  const int64_t now = now_unix_ms();
  for (const auto& j : jobs) {
    auto row = job_table_row(j, format == OutputFormat::kWide, now);
    if (o.watch) shown[j.spec.project + "/" + j.spec.name] = row;
    table.add(std::move(row));
  }
  table.print(ctx.out);
  if (o.watch) watch_jobs(o, project, selector, table, std::move(shown), ctx);
}

void run_list(const ListOptions& o, CliContext& ctx) {
  if (o.what.size() > 1)
    throw UsageError("list takes one kind: jobs (default), projects, nodes or volumes; e.g. `lanectl list jobs`");
  const std::string what = o.what.empty() ? "jobs" : o.what[0];
  const bool job_flags = !o.selector.empty() || !o.sort_by.empty() || o.watch;
  if (!is_kind(what, "jobs") && job_flags)
    throw UsageError("-l/--selector, --sort-by and -w/--watch apply to jobs; use them with `lanectl list jobs`");
  if (is_kind(what, "projects")) return print_projects(ctx, o.output, true);
  if (is_kind(what, "nodes")) return print_nodes(ctx, o.output);
  if (is_kind(what, "volumes")) return list_volumes(ctx, o.project, o.all, o.output);
  if (!is_kind(what, "jobs"))
    throw UsageError("cannot list '" + what + "'; use `lanectl list jobs`, `lanectl list projects`, `lanectl list nodes` "
                     "or `lanectl list volumes`");
  list_jobs(o, ctx);
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
  cmd->add_option("-l,--selector", o->selector,
                  "Jobs whose --label values match: k=v, k!=v, k, !k, k in (a,b), k notin (a,b); comma-separated");
  cmd->add_option("--sort-by", o->sort_by,
                  "Sort by a column (name, status, age, ...) or a JSONPath (.metadata.creationTimestamp, ...)");
  cmd->add_flag("-w,--watch", o->watch, "After the table, print a row for each job that changes, until interrupted");
  cmd->callback([o, &ctx] { run_list(*o, ctx); });
}

}  // namespace lane::cli

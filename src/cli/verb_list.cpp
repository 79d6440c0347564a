// lanectl list [jobs]: the job table (8 columns within 120 characters), or -o wide|json|yaml
// (json|yaml: a Kubernetes List); -l/--selector on the jobs' --label values, --sort-by, and
// -w/--watch. `list projects`, `list nodes` and `list volumes` are runai's spellings of `project
// list`, `cluster nodes` and `volume list`.
#include <chrono>
#include <cstdlib>
#include <map>

#include "cli/context.h"
#include "cli/job_table.h"
#include "submit/core/label_selector.h"
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

// The table of `jobs` (in --sort-by order); each row also goes to `rows` by project/name.
Table job_table(const ListOptions& o, const std::vector<submit::JobInfo>& jobs,
                std::map<std::string, std::vector<std::string>>* rows = nullptr) {
  const bool wide = parse_output_format(o.output) == OutputFormat::kWide;
  Table table(job_table_header(wide));
  const int64_t now = now_unix_ms();
  for (const auto& j : jobs) {
    auto row = job_table_row(j, wide, now);
    if (rows) (*rows)[j.spec.project + "/" + j.spec.name] = row;
    table.add(std::move(row));
  }
  return table;
}

// --watch's end for tests (hidden): LANECTL_WATCH_SECONDS; else until interrupted.
std::optional<std::chrono::steady_clock::time_point> watch_deadline() {
  const char* env = std::getenv("LANECTL_WATCH_SECONDS");
  if (!env || !*env) return std::nullopt;
  return std::chrono::steady_clock::now() + std::chrono::milliseconds(static_cast<int64_t>(std::atof(env) * 1000));
}

// The table, then a row, on the table's columns, for each job that appears or changes (AGE
// aside), and one with STATUS Deleted for each that goes. The backend says when to look again
// (locally every half second; on Kubernetes when a watch reports a change).
void watch_jobs(const ListOptions& o, const std::optional<std::string>& project, const submit::LabelSelector& selector,
                CliContext& ctx) {
  std::optional<std::vector<size_t>> widths;
  std::map<std::string, std::vector<std::string>> shown;
  auto without_age = [](std::vector<std::string> row) { return (row[2].clear(), row); };
  ctx.jobs().watch_jobs(project, selector, watch_deadline(), [&](std::vector<submit::JobInfo> jobs) {
    std::map<std::string, std::vector<std::string>> now;
    if (!o.sort_by.empty()) sort_jobs(jobs, o.sort_by);
    const Table table = job_table(o, jobs, &now);
    if (!widths) {
      table.print(ctx.out);
      widths = table.widths();
    } else {
      for (const auto& j : jobs) {
        const auto& row = now[j.spec.project + "/" + j.spec.name];
        auto it = shown.find(j.spec.project + "/" + j.spec.name);
        if (it == shown.end() || without_age(it->second) != without_age(row)) ctx.out << Table::line(row, *widths) << "\n";
      }
      for (auto& [key, row] : shown) {
        if (now.count(key)) continue;
        row[1] = "Deleted";
        ctx.out << Table::line(row, *widths) << "\n";
      }
    }
    ctx.out.flush();
    shown = std::move(now);
    return true;
  });
}

void list_jobs(const ListOptions& o, CliContext& ctx) {
  const OutputFormat format = parse_output_format(o.output);
  const bool table_format = format == OutputFormat::kTable || format == OutputFormat::kWide;
  if (o.watch && !table_format) throw UsageError("--watch prints table rows; leave out -o json|yaml (or use -o wide)");
  const submit::LabelSelector selector(o.selector);
  std::optional<std::string> project;
  if (!o.all) {
    project = ctx.project(o.project);
    if (!ctx.projects().project_exists(*project)) throw submit::unknown_project(*project);
  }
  if (o.watch) {
    if (project) ctx.out << "Showing jobs for project " << *project << "\n";
    return watch_jobs(o, project, selector, ctx);
  }
  auto jobs = ctx.jobs().select_jobs(project, selector);
  if (!o.sort_by.empty()) sort_jobs(jobs, o.sort_by);
  if (!table_format) {
    nlohmann::json items = nlohmann::json::array();
    for (const auto& j : jobs) items.push_back(submit::job_to_json(j, false));
    return print_document(ctx.out, list_document(std::move(items)), format);
  }
  if (project) ctx.out << "Showing jobs for project " << *project << "\n";
  if (jobs.empty()) {
    ctx.out << "No jobs found.\n";
    return;
  }
  job_table(o, jobs).print(ctx.out);
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

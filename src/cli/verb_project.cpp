// lanectl project create|list|delete|set-quota: projects with a GPU quota (deserved GPUs) and
// an over-quota flag (may borrow idle GPUs, preemptible while it does).
#include <fmt/format.h>

#include "cli/context.h"
#include "cli/table.h"
#include "cli/verbs.h"
#include "common/error.h"
#include "submit/core/status_json.h"
#include "submit/core/validate.h"

namespace lane::cli {

void print_projects(CliContext& ctx, const std::string& output, bool runai_header) {
  OutputFormat format = parse_output_format(output);
  auto projects = ctx.projects().list_projects();
  if (format == OutputFormat::kJson || format == OutputFormat::kYaml) {
    nlohmann::json doc = nlohmann::json::array();
    for (const auto& p : projects) doc.push_back(submit::project_to_json(p));
    print_document(ctx.out, doc, format);
    return;
  }
  std::vector<std::string> header = {"PROJECT", "GPU QUOTA", "OVER QUOTA", "ALLOCATED", "FAIR SHARE", "RUNNING", "PENDING"};
  if (runai_header)  // runai's names; DEPARTMENT, limits and affinities have no meaning here
    header = {"PROJECT", "DESERVED GPUs", "OVER QUOTA", "ALLOCATED GPUs", "FAIR SHARE", "RUNNING JOBS", "PENDING JOBS"};
  if (format == OutputFormat::kWide) header.push_back("EXPLANATION");
  Table table(header);
  for (const auto& p : projects) {
    std::vector<std::string> row = {p.spec.name, format_gpus(p.spec.gpu_quota), p.spec.over_quota ? "allowed" : "no",
                                    format_gpus(p.gpus_allocated), p.fair_share_known ? format_gpus(p.fair_share) : "-",
                                    std::to_string(p.running_jobs), std::to_string(p.pending_jobs)};
    if (format == OutputFormat::kWide) {
      std::string text;
      for (const auto& e : p.explanation) text += (text.empty() ? "" : "; ") + e;
      row.push_back(text);
    }
    table.add(std::move(row));
  }
  table.print(ctx.out);
}

void add_project_command(CLI::App& app, CliContext& ctx) {
  auto* cmd = app.add_subcommand("project", "Manage projects and their GPU quotas");
  cmd->footer("Examples:\n"
             "  lanectl project create lane-detection --gpu-quota 4\n"
             "  lanectl project set-quota lane-detection --gpu-quota 8\n"
             "  lanectl project list");
  cmd->require_subcommand(1);

  struct Options {
    std::string name, output;
    std::string quota;  // submit::parse_gpu_quota
    bool no_over_quota = false, over_quota = false, allow_host_network = false, no_host_network = false;
  };
  auto o = std::make_shared<Options>();

  auto* create = cmd->add_subcommand("create", "Create a project");
  create->add_option("NAME", o->name, "Project name")->required();
  create->add_option("--gpu-quota", o->quota, "Deserved GPUs (may be fractional)")->required();
  create->add_flag("--no-over-quota", o->no_over_quota, "Never use more than the quota");
  create->add_flag("--allow-host-network", o->allow_host_network,
                   "Local backend: its jobs may use the host's network (--host-network)");
  create->callback([o, &ctx] {
    const double quota = submit::parse_gpu_quota(o->quota);
    ctx.projects().create_project({o->name, quota, !o->no_over_quota, o->allow_host_network});
    ctx.out << fmt::format("Project {} created with a quota of {:g} GPUs{}\n", o->name, quota,
                           o->no_over_quota ? " (no over-quota)" : "");
  });

  auto* list = cmd->add_subcommand("list", "List projects with allocation and fair share");
  list->add_option("-o,--output", o->output, "wide | json | yaml");
  list->callback([o, &ctx] { print_projects(ctx, o->output); });

  auto* del = cmd->add_subcommand("delete", "Delete a project without jobs");
  del->add_option("NAME", o->name, "Project name")->required();
  del->callback([o, &ctx] {
    ctx.projects().delete_project(o->name);
    ctx.out << "Project " << o->name << " deleted\n";
  });

  auto* set = cmd->add_subcommand("set-quota", "Change a project's GPU quota");
  set->add_option("NAME", o->name, "Project name")->required();
  set->add_option("--gpu-quota", o->quota, "Deserved GPUs")->required();
  auto* noq = set->add_flag("--no-over-quota", o->no_over_quota, "Never use more than the quota");
  set->add_flag("--over-quota", o->over_quota, "May borrow idle GPUs")->excludes(noq);
  set->callback([o, &ctx] {
    std::optional<bool> over;
    if (o->no_over_quota) over = false;
    if (o->over_quota) over = true;
    const double quota = submit::parse_gpu_quota(o->quota);
    ctx.projects().set_project_quota(o->name, quota, over);
    ctx.out << fmt::format("Project {} quota set to {:g} GPUs\n", o->name, quota);
  });

  auto* net = cmd->add_subcommand("set-network", "Local backend: may the project's jobs use the host's network");
  net->add_option("NAME", o->name, "Project name")->required();
  auto* allow = net->add_flag("--allow-host-network", o->allow_host_network, "Its jobs may ask --host-network");
  net->add_flag("--no-host-network", o->no_host_network, "Each job gets its own network (the default)")->excludes(allow);
  net->callback([o, &ctx] {
    if (o->allow_host_network == o->no_host_network)
      throw UsageError("project set-network: give --allow-host-network or --no-host-network");
    ctx.projects().set_project_host_network(o->name, o->allow_host_network);
    ctx.out << fmt::format("Project {}: jobs {}\n", o->name,
                           o->allow_host_network ? "may use the host's network (--host-network)"
                                                 : "get their own network namespace (loopback only)");
  });

  // Run:AI v2's spelling of `config project P` (the v1 CLI had deprecated it; v2 recommends it).
  auto* set_default = cmd->add_subcommand("set", "Set the default project (= lanectl config project P)");
  set_default->add_option("NAME", o->name, "Project name")->required();
  set_default->callback([o, &ctx] { set_default_project(ctx, o->name); });
}

}  // namespace lane::cli

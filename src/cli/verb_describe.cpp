// lanectl describe job NAME: summary, pods and events (the Run:AI layout, §1.9 of the reference);
// describe node NAME: a node's GPUs and the jobs on it.
#include <algorithm>

#include <fmt/format.h>

#include "cli/context.h"
#include "cli/duration_format.h"
#include "cli/job_description.h"
#include "cli/table.h"
#include "cli/verbs.h"
#include "common/clock.h"
#include "common/error.h"
#include "common/secrets.h"
#include "submit/core/spec_fields.h"
#include "submit/core/status_json.h"
#include "submit/core/workload.h"
#include "submit/core/workload_json.h"

namespace lane::cli {

namespace {

std::string join(const std::vector<std::string>& words, const char* sep = " ") {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : sep) + w;
  return out;
}

}  // namespace

void print_job_description(const submit::JobInfo& j, bool wide, std::ostream& out) {
  int64_t now = now_unix_ms();
  const auto& s = j.spec;
  int64_t end = j.finished_unix_ms ? j.finished_unix_ms : now;
  bool mpi = s.type == submit::JobType::kMpi;
  const bool distributed = submit::is_distributed(s.type);  // MPI or PyTorch
  int succeeded = 0, failed = 0;
  for (const auto& p : j.pods) {
    succeeded += p.status == "Succeeded";
    failed += p.status == "Failed";
  }
  auto line = [&](const char* label, const std::string& value) { out << fmt::format("{:<25}{}\n", label, value); };
  line("NAME:", s.name);
  line("NAMESPACE:", submit::project_namespace(s.project));
  line("PROJECT:", s.project);
  line("TYPE:", submit::type_label(s));
  line("STATUS:", submit::to_string(j.status));
  if (!j.status_reason.empty()) line("STATUS REASON:", j.status_reason);
  line("TRAINING DURATION:", j.started_unix_ms ? short_duration(end - j.started_unix_ms) : "-");
  line("IMAGE:", s.image);
  line("GPUS:", format_gpus(s.gpu));
  line("TOTAL REQUESTED GPUS:", format_gpus(s.total_gpus()));
  line("ALLOCATED GPUS:", format_gpus(j.gpus_allocated));
  line("RUNNING PODS:", std::to_string(j.pods_running));
  line("PENDING PODS:", std::to_string(j.pods_pending));
  if (mpi) line("PROCESSES:", std::to_string(s.processes));
  line("SUCCEEDED PODS:", std::to_string(succeeded));
  line("FAILED PODS:", std::to_string(failed));
  line("IS DISTRIBUTED WORKLOAD:", distributed ? "true" : "false");
  if (j.exit_code) line("EXIT CODE:", std::to_string(*j.exit_code));
  for (const auto& [label, value] : submit::describe_flag_lines(s)) line(label.c_str(), value);
  line("NODES:", join(j.nodes, ","));
  line("CREATED BY CLI:", s.cli_argv.empty() ? "false" : "true");
  line("SERVICE URL(S):", join(j.service_urls, ","));
  line("COMMAND LINE:", shell_quoted(mask_secret_argv(s.cli_argv)));

  out << "\nPods:\n";
  // GPU DEVICES: the indices of the node's GPUs the pod holds (not a count), with the share of
  // each when it holds a fraction.
  std::vector<std::string> header = {"POD", "STATUS", "TYPE", "AGE", "NODE", "GPU DEVICES"};
  if (wide) header.insert(header.end(), {"IP", "START TIME"});
  Table pods(header);
  for (const auto& p : j.pods) {
    std::string gpus;
    for (int g : p.gpu_indices) gpus += (gpus.empty() ? "" : ",") + std::to_string(g);
    if (!gpus.empty() && p.gpu_share > 0 && p.gpu_share < 1) gpus += fmt::format(" (x{:g})", p.gpu_share);
    std::vector<std::string> row = {p.name, p.status, p.role, short_duration(now - p.created_unix_ms),
                                    p.node.empty() ? "N/A" : p.node, gpus};
    if (wide) {
      std::string start = submit::format_rfc3339(p.started_unix_ms);
      row.insert(row.end(), {p.ip.empty() ? "-" : p.ip, start.empty() ? "-" : start});
    }
    pods.add(std::move(row));
  }
  pods.print(out);

  out << "\nEvents:\n";
  Table events({"SOURCE", "TYPE", "AGE", "MESSAGE"});
  for (const auto& e : j.events)
    events.add({e.source, e.type, short_duration(now - e.time_unix_ms), "[" + e.reason + "] " + e.message});
  events.print(out);
}

namespace {

struct DescribeOptions {
  std::vector<std::string> words;
  std::string project, output;
};

void describe_node(const std::vector<std::string>& words, OutputFormat format, CliContext& ctx) {
  if (words.size() != 1) throw UsageError("describe node takes one node name: lanectl describe node NAME");
  auto nodes = ctx.cluster().list_nodes();
  auto it = std::find_if(nodes.begin(), nodes.end(),
                         [&](const submit::NodeStatus& n) { return n.spec.name == words[0]; });
  if (it == nodes.end()) throw Error("node '" + words[0] + "' does not exist; see `lanectl list nodes`");
  const auto& n = *it;
  if (format == OutputFormat::kJson || format == OutputFormat::kYaml) {
    print_document(ctx.out, submit::node_to_json(n), format);
    return;
  }
  auto line = [&](const char* label, const std::string& value) { ctx.out << fmt::format("{:<25}{}\n", label, value); };
  line("NAME:", n.spec.name + (n.declared ? "" : " (detected)"));
  line("READY:", n.ready.empty() ? "-" : n.ready);
  line("ADDRESS:", n.address.empty() ? "-" : n.address);
  line("GPU CAPACITY:", std::to_string(n.gpu_capacity >= 0 ? n.gpu_capacity : n.spec.gpus));
  line("GPU ALLOCATABLE:", std::to_string(n.spec.gpus));
  line("ALLOCATED GPUS:", format_gpus(n.gpus_allocated));
  line("FREE GPUS:", format_gpus(std::max(0.0, n.spec.gpus - n.gpus_allocated)));
  ctx.out << "\nJobs:\n";
  for (const auto& job : n.jobs) ctx.out << "  " << job << "\n";
}

void run_describe(const DescribeOptions& o, CliContext& ctx) {
  std::vector<std::string> words = o.words;
  if (!words.empty() && (words[0] == "node" || words[0] == "nodes"))
    return describe_node({words.begin() + 1, words.end()}, parse_output_format(o.output), ctx);
  if (!words.empty() && (words[0] == "job" || words[0] == "jobs")) words.erase(words.begin());
  if (words.size() != 1)
    throw UsageError("describe takes one job name: lanectl describe job NAME [-p PROJECT] (or describe node NAME)");
  OutputFormat format = parse_output_format(o.output);
  std::string project = ctx.project(o.project);
  auto job = ctx.jobs().describe_job(words[0], project);
  if (!job)
    throw Error("job '" + words[0] + "' does not exist in project '" + project +
                "'. If the job exists in a different project, use -p <project-name>.");
  if (format == OutputFormat::kJson || format == OutputFormat::kYaml) {
    print_document(ctx.out, submit::job_to_json(*job, true), format);
    return;
  }
  print_job_description(*job, format == OutputFormat::kWide, ctx.out);
}

}  // namespace

void add_describe_command(CLI::App& app, CliContext& ctx) {
  auto o = std::make_shared<DescribeOptions>();
  auto* cmd = app.add_subcommand("describe", "Describe a job (spec, status, placement, events) or a node");
  cmd->footer("Examples:\n"
             "  lanectl describe job train-1\n"
             "  lanectl describe job train-1 -o yaml\n"
             "  lanectl describe node node-1");
  cmd->alias("get");
  cmd->add_option("args", o->words, "job NAME | node NAME")->required();
  cmd->add_option("-p,--project", o->project, "Project");
  cmd->add_option("-o,--output", o->output, "wide | json | yaml");
  cmd->callback([o, &ctx] { run_describe(*o, ctx); });
}

}  // namespace lane::cli

// lanectl cluster set-nodes NAME=GPUS... | cluster nodes: the GPUs the local scheduler shares.
#include <fmt/format.h>

#include "cli/context.h"
#include "cli/table.h"
#include "cli/verbs.h"
#include "common/error.h"
#include "submit/core/status_json.h"

namespace lane::cli {

namespace {

submit::NodeSpec parse_node(const std::string& word) {
  auto eq = word.find('=');
  std::string count = eq == std::string::npos ? "" : word.substr(eq + 1);
  bool ok = eq != std::string::npos && eq > 0 && !count.empty() && count.size() <= 4;
  for (char c : count) ok = ok && c >= '0' && c <= '9';
  if (!ok) throw UsageError("node '" + word + "': use NAME=GPUS, e.g. node-a=8");
  return {word.substr(0, eq), std::stoi(count)};
}

// Locally, with no nodes declared, the one row is this machine with the GPUs nvidia-smi found:
// say so, and how to declare nodes (on stderr: the table stays what scripts read).
void print_detection_note(CliContext& ctx, const std::vector<submit::NodeStatus>& nodes) {
  if (nodes.size() != 1 || nodes[0].declared) return;
  const submit::NodeStatus& n = nodes[0];
  if (n.spec.gpus > 0)
    ctx.err << fmt::format("note: no nodes declared; {} GPU(s) detected with nvidia-smi ({}). To share them "
                           "differently, declare the nodes: lanectl cluster set-nodes {}={}\n",
                           n.spec.gpus, n.gpu_models, n.spec.name, n.spec.gpus);
  else
    ctx.err << fmt::format("note: no nodes declared and no GPU detected (nvidia-smi is missing or lists none), so "
                           "jobs run on CPU only. Declare the GPUs the scheduler may share with: lanectl cluster "
                           "set-nodes NAME=GPUS... (e.g. lanectl cluster set-nodes {}=2)\n",
                           n.spec.name);
}

}  // namespace

void print_nodes(CliContext& ctx, const std::string& output) {
  OutputFormat format = parse_output_format(output);
  auto list = ctx.cluster().list_nodes();
  if (format == OutputFormat::kJson || format == OutputFormat::kYaml) {
    nlohmann::json doc = nlohmann::json::array();
    for (const auto& n : list) doc.push_back(submit::node_to_json(n));
    print_document(ctx.out, doc, format);
    return;
  }
  std::vector<std::string> header = {"NODE", "GPUS", "ALLOCATED", "JOBS"};
  Table table(header);
  for (const auto& n : list) {
    std::string jobs;
    for (const auto& j : n.jobs) jobs += (jobs.empty() ? "" : ",") + j;
    table.add({n.spec.name + (n.declared ? "" : " (detected)"), std::to_string(n.spec.gpus),
               format_gpus(n.gpus_allocated), jobs});
  }
  table.print(ctx.out);
  print_detection_note(ctx, list);
}

void add_cluster_command(CLI::App& app, CliContext& ctx) {
  auto* cmd = app.add_subcommand("cluster", "Declare or show the cluster's nodes and GPUs");
  cmd->footer("Examples:\n"
             "  lanectl cluster set-nodes node-1=8 node-2=4   # two nodes with 8 and 4 GPUs\n"
             "  lanectl cluster nodes");
  cmd->require_subcommand(1);
  auto words = std::make_shared<std::vector<std::string>>();
  auto output = std::make_shared<std::string>();

  auto* set = cmd->add_subcommand("set-nodes", "Declare the nodes: NAME=GPUS...");
  set->add_option("NODES", *words, "NAME=GPUS ...")->required();
  set->callback([words, &ctx] {
    std::vector<submit::NodeSpec> nodes;
    for (const auto& w : *words) nodes.push_back(parse_node(w));
    ctx.cluster().set_nodes(nodes);
    int total = 0;
    for (const auto& n : nodes) total += n.gpus;
    ctx.out << fmt::format("Cluster has {} node(s) with {} GPU(s)\n", nodes.size(), total);
  });

  auto* nodes = cmd->add_subcommand("nodes", "List nodes with their GPU allocation");
  nodes->add_option("-o,--output", *output, "wide | json | yaml");
  nodes->callback([output, &ctx] { print_nodes(ctx, *output); });
}

}  // namespace lane::cli

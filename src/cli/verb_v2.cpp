// The Run:AI v2 command tree (runai 2.18 and later): `training submit|list|...`, `training mpi
// submit`, `workspace submit`, `workload ...`, `pvc list`, `node list`, `nodepool list`. Each
// command is one row of kV2Commands: the v1 words it runs (rewritten before parsing: the v1 verb's
// flags, output and exit codes), or the builder of its own verb (the submit verbs in the v2
// dialect, port-forward, nodepool list). docs/cli.md has the v1 → v2 → lanectl table.
#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "cli/table.h"
#include "cli/verbs.h"
#include "common/error.h"

namespace lane::cli {

namespace {

using Builder = void (*)(CLI::App& group, const std::string& leaf, CliContext& ctx);

struct V2Command {
  const char* path;  // the v2 words
  const char* v1;    // the words it runs; nullptr: `add` registers its own verb
  Builder add;
  const char* help;  // rows that run a v1 verb: their line in the group's --help
};

void add_port_forward(CLI::App& group, const std::string& leaf, CliContext& ctx);
void add_nodepool_list(CLI::App& group, const std::string& leaf, CliContext& ctx);

const V2Command kV2Commands[] = {
    {"training submit", nullptr,
     [](CLI::App& g, const std::string& leaf, CliContext& ctx) {
       add_submit_verb(g, leaf, Dialect::kV2, SubmitKind::kTraining, ctx);
     },
     ""},
    {"training mpi submit", nullptr,
     [](CLI::App& g, const std::string& leaf, CliContext& ctx) { add_mpi_submit_verb(g, leaf, Dialect::kV2, ctx); }, ""},
    {"training pytorch submit", nullptr,
     [](CLI::App& g, const std::string& leaf, CliContext& ctx) {
       add_pytorch_submit_command(g, ctx, leaf, Dialect::kV2);
     },
     ""},
    {"workspace submit", nullptr,
     [](CLI::App& g, const std::string& leaf, CliContext& ctx) {
       add_submit_verb(g, leaf, Dialect::kV2, SubmitKind::kWorkspace, ctx);
     },
     ""},
    {"training list", "list jobs", nullptr, "List training workloads"},
    {"training describe", "describe job", nullptr, "Describe a training workload"},
    {"training logs", "logs", nullptr, "Print a training workload's logs"},
    {"training delete", "delete job", nullptr, "Delete training workloads"},
    {"training suspend", "suspend", nullptr, "Suspend training workloads"},
    {"training resume", "resume", nullptr, "Resume suspended training workloads"},
    {"training attach", "attach", nullptr, "Follow a training workload's output"},
    {"training exec", "exec", nullptr, "Run a command inside a training workload"},
    {"training bash", "bash", nullptr, "Open a shell inside a training workload"},
    {"training port-forward", nullptr, add_port_forward, ""},
    {"workload list", "list jobs", nullptr, "List workloads of every type"},
    {"workload describe", "describe job", nullptr, "Describe a workload"},
    {"workload logs", "logs", nullptr, "Print a workload's logs"},
    {"workload delete", "delete job", nullptr, "Delete workloads"},
    {"pvc list", "volume list", nullptr, "List claims (volumes)"},
    {"node list", "list nodes", nullptr, "List nodes with their GPUs"},
    {"nodepool list", nullptr, add_nodepool_list, ""},
    // runai 2.18's first v2 spelling; `mpi` alone stays submit-mpi's alias, so `mpi submit -i X`
    // is the v2 verb, never a job named `submit`.
    {"mpi submit", "training mpi submit", nullptr, ""},
};

const std::map<std::string, std::string> kGroupHelp = {
    {"training", "Training workloads (Run:AI v2 spelling of the job verbs)"},
    {"training mpi", "MPI training workloads (Run:AI v2)"},
    {"workspace", "Interactive workloads (Run:AI v2)"},
    {"workload", "Workloads of every type (Run:AI v2)"},
    {"pvc", "Claims (Run:AI v2; = volume)"},
    {"node", "Nodes (Run:AI v2; = list nodes)"},
    {"nodepool", "Node pools (Run:AI v2)"},
};

std::vector<std::string> words_of(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

CLI::App* child(CLI::App* app, const std::string& name) {
  for (CLI::App* sub : app->get_subcommands([](const CLI::App*) { return true; }))
    if (sub->get_name() == name) return sub;
  return nullptr;
}

// A name or alias of a v1 verb (registered before the v2 tree).
bool is_v1_command(CLI::App& app, const std::string& word) {
  for (CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    if (sub->check_name(word) && !kGroupHelp.count(sub->get_name())) return true;
  return false;
}

// The group `words` names under `root`, made on first use.
CLI::App* group_of(CLI::App& root, const std::vector<std::string>& words) {
  CLI::App* at = &root;
  std::string path;
  for (const auto& w : words) {
    path += (path.empty() ? "" : " ") + w;
    CLI::App* next = child(at, w);
    if (next == nullptr) {
      auto help = kGroupHelp.find(path);
      next = at->add_subcommand(w, help != kGroupHelp.end() ? help->second : path + " workloads (Run:AI v2)");
      next->require_subcommand(1);
    }
    at = next;
  }
  return at;
}

}  // namespace

void add_v2_commands(CLI::App& app, CliContext& ctx) {
  for (const V2Command& c : kV2Commands) {
    std::vector<std::string> words = words_of(c.path);
    if (is_v1_command(app, words[0])) continue;  // only routed (`mpi submit`: `mpi` is submit-mpi's alias)
    const std::string leaf = words.back();
    words.pop_back();
    CLI::App* group = group_of(app, words);
    if (c.add != nullptr) {
      c.add(*group, leaf, ctx);
    } else {
      // Listed for --help and completion; route_v2_command runs it as `lanectl <v1>`.
      group->add_subcommand(leaf, fmt::format("{} (= lanectl {})", c.help, c.v1));
    }
  }
}

RoutedCommand route_v2_command(const std::vector<std::string>& argv) {
  static const std::set<std::string> kV1Submit = {"submit", "submit-mpi", "mpi", "mj", "submit-dist"};
  RoutedCommand routed{argv};
  const V2Command* best = nullptr;
  size_t best_words = 0;
  for (const V2Command& c : kV2Commands) {
    const std::vector<std::string> words = words_of(c.path);
    if (words.size() > best_words && argv.size() > words.size() &&
        std::equal(words.begin(), words.end(), argv.begin() + 1)) {
      best = &c;
      best_words = words.size();
    }
  }
  if (best != nullptr && best->v1 != nullptr) {
    std::vector<std::string> v1 = words_of(best->v1);
    routed.argv.erase(routed.argv.begin() + 1, routed.argv.begin() + 1 + static_cast<long>(best_words));
    routed.argv.insert(routed.argv.begin() + 1, v1.begin(), v1.end());
    return route_v2_command(routed.argv);  // `mpi submit` → `training mpi submit`, a v2 verb
  }
  const bool v2_submit = best != nullptr && words_of(best->path).back() == "submit";
  routed.submit = v2_submit || (argv.size() > 1 && kV1Submit.count(argv[1]) > 0);
  routed.v2 = v2_submit;
  return routed;
}

namespace {

// `training port-forward`: lanectl has no port forwarder of its own; the message says what does it.
void add_port_forward(CLI::App& group, const std::string& leaf, CliContext& ctx) {
  struct Options {
    std::string name, project;
    std::vector<std::string> ports;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = group.add_subcommand(leaf, "Forward local ports to a workload (kubectl port-forward; not local)");
  cmd->add_option("NAME", o->name, "Workload name")->required();
  cmd->add_option("-p,--project", o->project, "Project");
  cmd->add_option("--port", o->ports, "LOCAL:REMOTE (repeatable)")->required();
  cmd->callback([o, &ctx] {
    if (ctx.config().kind != "kubernetes")
      throw UsageError("training port-forward is not supported on the local backend: a local job has its own network "
                       "namespace; give it the host's network instead (`project set-network P --allow-host-network`, "
                       "then submit with --host-network) and its ports are this machine's");
    const std::string project = ctx.project(o->project);
    auto job = ctx.jobs().describe_job(o->name, project);
    if (!job) throw Error(fmt::format("job '{}' was not found in project '{}'", o->name, project));
    std::string pod = job->pods.empty() ? o->name : job->pods.front().name;
    for (const auto& p : job->pods)
      if (p.role == "main" || p.role == "launcher") pod = p.name;
    throw Error(fmt::format("lanectl does not forward ports itself; on Kubernetes run: kubectl port-forward -n {} "
                            "pod/{} {}",
                            submit::project_namespace(project), pod, fmt::join(o->ports, " ")));
  });
}

// `nodepool list`: nodes grouped by their kai.scheduler/node-pool label, as --node-pool selects them.
void add_nodepool_list(CLI::App& group, const std::string& leaf, CliContext& ctx) {
  auto* cmd = group.add_subcommand(leaf, "List node pools: the nodes --node-pool selects, and their GPUs");
  cmd->callback([&ctx] {
    struct Pool {
      int nodes = 0, gpus = 0;
      double allocated = 0;
    };
    std::map<std::string, Pool> pools;
    for (const auto& n : ctx.cluster().list_nodes()) {
      Pool& p = pools[n.node_pool.empty() ? "default" : n.node_pool];
      ++p.nodes;
      p.gpus += n.spec.gpus;
      p.allocated += n.gpus_allocated;
    }
    Table table({"NODEPOOL", "NODES", "GPUS", "ALLOCATED"});
    for (const auto& [name, p] : pools)
      table.add({name, std::to_string(p.nodes), std::to_string(p.gpus), format_gpus(p.allocated)});
    table.print(ctx.out);
    if (ctx.config().kind != "kubernetes")
      ctx.err << "note: the local backend's nodes (`lanectl cluster set-nodes`) form one pool, default; "
                 "--node-pool is recorded for Kubernetes and has no effect here\n";
  });
}

}  // namespace

}  // namespace lane::cli

#include "cli/submit_options.h"

#include <unistd.h>

#include <cstdlib>
#include <ostream>

#include <fmt/format.h>

#include "cli/parse_errors.h"
#include "cli/spec_parsing.h"
#include "cli/v2_spec_parsing.h"
#include "cli/verbs.h"
#include "common/error.h"
#include "common/secrets.h"
#include "submit/core/duration.h"
#include "submit/core/errors.h"
#include "submit/core/validate.h"

namespace lane::cli {

namespace {

// The v2 spellings with a v1 twin (the same field, one meaning): v2 verbs take either one (not
// both); v1 verbs refuse the v2 one, naming the twin.
struct V2Twin {
  const char* v2;
  const char* v1;    // the twin's option name
  const char* hint;  // how a v1 verb spells it
};
constexpr V2Twin kV2Twins[] = {
    {"--gpu-devices-request", "--gpu", "-g/--gpu N"},
    {"--gpu-portion-request", "--gpu", "-g/--gpu FRACTION"},
    {"--gpu-memory-request", "--gpu-memory", "--gpu-memory"},
    {"--cpu-core-request", "--cpu", "--cpu"},
    {"--cpu-memory-request", "--memory", "--memory"},
    {"--cpu-core-limit", "--cpu-limit", "--cpu-limit"},
    {"--cpu-memory-limit", "--memory-limit", "--memory-limit"},
    {"--existing-pvc", "--pvc", "--pvc CLAIM:PATH[:ro]"},
    {"--new-pvc", "--pvc", "--pvc [STORAGECLASS]:SIZE:PATH[:ro]"},
    {"--host-path", "--volume", "-v HOST:CONTAINER[:ro]"},
    {"--external-url", "--service-type", "--port N -s ingress"},
    {"--name-prefix", "--job-name-prefix", "--job-name-prefix"},
    {"--node-pools", "--node-pool", "--node-pool"},
    {"--auto-deletion-time-after-completion", "--ttl-after-finish", "--ttl-after-finish"},
};

// Adds the flags of one --help group.
struct FlagGroup {
  CLI::App* cmd;
  SubmitOptions& o;
  std::string name;
  bool v2() const { return o.dialect == Dialect::kV2; }
  // A flag both dialects spell alike.
  CLI::Option* both(CLI::Option* opt) const { return opt->group(name); }
  // A v1 spelling with a v2 twin: unlisted on v2 verbs.
  CLI::Option* v1(CLI::Option* opt) const { return opt->group(v2() ? "" : name); }
  // A v2 spelling (v2 verbs only; v1 verbs refuse it: refuse_v2_spellings).
  template <class T>
  void v2_option(const std::string& flag, T& field, const std::string& help) const {
    if (v2()) cmd->add_option(flag, field, help)->group(name);
  }
};

void add_job_flags(const FlagGroup& g) {
  submit::JobSpec& s = g.o.spec;
  const std::string name_fix = "give a job name, or leave it out to have one generated";
  g.cmd->add_option("NAME", g.o.positional_name, "Job name (same as --name)")->check(non_empty(name_fix));
  g.both(g.cmd->add_option("--name", s.name, "Job name (DNS-1123 label: lowercase letters, digits, '-')")
             ->check(non_empty(name_fix)));
  g.v1(g.cmd->add_option("--job-name-prefix", g.o.name_prefix, "Name the job <prefix>-<N> with the smallest free N"));
  g.v2_option("--name-prefix", g.o.name_prefix, "Name the job <prefix>-<N> with the smallest free N");
  g.both(g.cmd->add_option("-p,--project", s.project, "Project (default: `lanectl config project`, else 'default')"));
  g.both(g.cmd->add_option("-i,--image", s.image, "Container image (the local backend runs the project's own images)"));
  // --command (and -c on v2 verbs) is handled before parsing (both spellings); listed here for --help only.
  g.both(g.cmd->add_flag(g.v2() ? "-c,--command" : "--command",
                         "Treat the words after -- as the command (replaces the image entrypoint); "
                         "the older form --command CMD [--args ARG] also works"));
  g.both(g.cmd->add_option("--args", s.args, "Argument appended to the command (repeatable; older form of `-- ARGS`)"));
  g.both(g.cmd->add_option("--working-dir", s.working_dir, "Working directory of the command"));
  g.v1(g.cmd->add_flag("--interactive", g.o.interactive, "Interactive job: never preempted, limited to the project quota"));
}

void add_gpu_flag(const FlagGroup& g, const std::string& flag, const std::string& help) {
  SubmitOptions& o = g.o;
  auto* opt = g.cmd->add_option_function<std::string>(flag, [&o, flag](const std::string& v) {
    o.gpu = v;
    o.gpu_flag = flag;
  }, help);
  opt->type_name(flag == "--gpu-devices-request" ? "INT" : "FLOAT");
  if (flag == "-g,--gpu") {
    g.v1(opt);
  } else {
    g.both(opt);
  }
}

void add_resource_flags(const FlagGroup& g) {
  submit::JobSpec& s = g.o.spec;
  add_gpu_flag(g, "-g,--gpu", "GPUs per process: a whole number, or a fraction below 1 (e.g. 0.5)");
  if (g.v2()) {
    add_gpu_flag(g, "--gpu-devices-request", "Whole GPUs per process (e.g. 2)");
    add_gpu_flag(g, "--gpu-portion-request", "A portion of one GPU per process (e.g. 0.5)");
  }
  g.v1(g.cmd->add_option("--gpu-memory", s.gpu_memory, "GPU memory instead of -g (e.g. 4G; at least 100M)"));
  g.v2_option("--gpu-memory-request", s.gpu_memory, "GPU memory instead of a GPU count (e.g. 4G; at least 100M)");
  g.both(g.cmd->add_option("--mig,--mig-profile", s.mig_profile, "A MIG slice instead of -g (e.g. 1g.5gb, 3g.20gb)"));
  g.v1(g.cmd->add_option("--cpu", s.cpu, "CPU request (e.g. 4 or 500m)"));
  g.v2_option("--cpu-core-request", s.cpu, "CPU request in cores (e.g. 4 or 500m)");
  g.v1(g.cmd->add_option("--memory", s.memory, "Memory request (e.g. 8Gi)"));
  g.v2_option("--cpu-memory-request", s.memory, "Memory request (e.g. 8Gi)");
  g.v1(g.cmd->add_option("--cpu-limit", s.cpu_limit, "CPU limit (e.g. 4 or 500m)"));
  g.v2_option("--cpu-core-limit", s.cpu_limit, "CPU limit in cores (e.g. 4 or 500m)");
  g.v1(g.cmd->add_option("--memory-limit", s.memory_limit, "Memory limit (e.g. 8Gi)"));
  g.v2_option("--cpu-memory-limit", s.memory_limit, "Memory limit (e.g. 8Gi)");
  g.both(g.cmd->add_flag("--large-shm", s.large_shm, "Mount a large memory-backed /dev/shm"));
  g.both(g.cmd->add_option("--shm-size", s.shm_size, "Local backend: size of /dev/shm with --large-shm (e.g. 8Gi)"));
}

void add_storage_flags(const FlagGroup& g) {
  g.v1(g.cmd->add_option("--pvc", g.o.pvcs, "[StorageClass]:Size:MountPath[:ro] or ExistingClaim:MountPath[:ro] (repeatable)"));
  g.v2_option("--existing-pvc", g.o.existing_pvcs, "Mount a claim: claimname=CLAIM,path=PATH[,ro] (repeatable)");
  g.v2_option("--new-pvc", g.o.new_pvcs,
              "Create and mount a claim: [claimname=CLAIM,][storageclass=SC,]size=SIZE,path=PATH[,ro] (repeatable)");
  g.v1(g.cmd->add_option("-v,--volume", g.o.volumes, "HOST:CONTAINER[:ro] (repeatable)"));
  g.v2_option("--host-path", g.o.host_paths, "Mount a host directory: path=HOST,mount=CONTAINER[,readwrite] (repeatable)");
}

void add_network_flags(const FlagGroup& g) {
  submit::JobSpec& s = g.o.spec;
  g.both(g.cmd->add_option("--port", g.o.ports, g.v2() ? "Expose a port: container=N[,external=N][,service-type=NodePort|LoadBalancer|ClusterIP] (repeatable)"
                                                        : "[EXTERNAL:]CONTAINER port to expose (repeatable)"));
  g.v1(g.cmd->add_option("-s,--service-type", s.service_type, "portforward | loadbalancer | nodeport | ingress"));
  g.v2_option("--external-url", g.o.external_urls, "Serve a port through an Ingress: container=N (repeatable)");
  g.both(g.cmd->add_flag("--host-network", s.host_network, "Use the node's network"));
  g.both(g.cmd->add_flag("--host-ipc", s.host_ipc, "Use the node's IPC namespace"));
}

void add_scheduling_flags(const FlagGroup& g) {
  submit::JobSpec& s = g.o.spec;
  g.both(g.cmd->add_flag("--preemptible", g.o.preemptible, "Interactive job that may be preempted (with --interactive)"));
  g.both(g.cmd->add_flag("--non-preemptible", g.o.non_preemptible, "Never preempted; runs only within the project's quota"));
  g.both(g.cmd->add_option("--node-type", s.node_type, "Run on nodes labelled run.ai/type=<value>"));
  g.v1(g.cmd->add_option("--node-pool", s.node_pool, "Run on nodes labelled kai.scheduler/node-pool=<value>"));
  g.v2_option("--node-pools", s.node_pool, "Run on nodes labelled kai.scheduler/node-pool=<value> (one pool)");
  g.both(g.cmd->add_option("--toleration", g.o.tolerations, "Tolerate a node taint: KEY[=VALUE][:EFFECT] (repeatable)"));
  g.both(g.cmd->add_option("--backoff-limit,--backoffLimit", s.backoff_limit,
                           "Retries of a failed training job (Kubernetes default 6; local default 0)"));
  g.both(g.cmd->add_option("--completions", s.completions, "Successful runs needed (batch Job)"));
  g.both(g.cmd->add_option("--parallelism", s.parallelism, "Runs at once (batch Job; > 1 needs --completions)"));
  g.v1(g.cmd->add_option("--ttl-after-finish", g.o.ttl_after_finish, "Delete the job this long after it ends (e.g. 1h, 30m, 0s)"));
  g.v2_option("--auto-deletion-time-after-completion", g.o.ttl_after_finish,
              "Delete the job this long after it ends (e.g. 1h, 30m, 0s)");
  g.both(g.cmd->add_flag("--elastic", s.elastic, "Mark the job elastic (annotation elastic; Kubernetes)"));
}

void add_environment_flags(const FlagGroup& g) {
  submit::JobSpec& s = g.o.spec;
  g.both(g.cmd->add_option("-e,--environment", g.o.env, "Environment variable NAME=VALUE (repeatable)"));
  g.both(g.cmd->add_option("--image-pull-policy", s.image_pull_policy, "Always | IfNotPresent | Never (Kubernetes)"));
  g.both(g.cmd->add_flag("--local-image", g.o.local_image, "Use the image present on the node (= --image-pull-policy Never)"));
  g.both(g.cmd->add_flag("--always-pull-image", g.o.always_pull_image, "Always pull the image (= --image-pull-policy Always)"));
  g.both(g.cmd->add_flag("-t,--tty", s.tty, "Allocate a TTY (needs --stdin)"));
  g.both(g.cmd->add_flag("--stdin", s.stdin_open, "Keep stdin open"));
  g.both(g.cmd->add_flag("--attach", s.attach, "Wait for the job to start, then follow its output (implies -t --stdin)"));
  g.both(g.cmd->add_flag("--run-as-user", g.o.run_as_user, "Run as your own uid/gid (securityContext runAsUser/runAsGroup)"));
  g.both(g.cmd->add_flag("--prevent-privilege-escalation", s.prevent_privilege_escalation,
                         "The job's processes cannot gain privileges (setuid binaries, file capabilities)"));
  g.both(g.cmd->add_flag("--create-home-dir", s.create_home_dir,
                         "Give the job a writable HOME (" + std::string(submit::kRunAiHomeDir) + ")"));
  g.both(g.cmd->add_option("--label", g.o.labels, "A label KEY=VALUE on the job (repeatable; `list -l KEY=VALUE` selects on it)"));
  g.both(g.cmd->add_option("--annotation", g.o.annotations, "An annotation KEY=VALUE on the job (repeatable)"));
}

// v1 verbs: each v2 spelling is a hidden flag that fails naming its v1 twin.
void refuse_v2_spellings(CLI::App* cmd) {
  for (const V2Twin& t : kV2Twins) {
    const std::string message =
        fmt::format("unknown flag '{}' for `lanectl {}`; did you mean '{}'? ({} is Run:AI v2's spelling, taken by "
                    "the v2 verbs: `lanectl training submit`, `lanectl training mpi submit`, `lanectl workspace submit`)",
                    t.v2, cmd->get_name(), t.hint, t.v2);
    cmd->add_option_function<std::string>(t.v2, [message](const std::string&) { throw UsageError(message); })->group("");
  }
  cmd->add_flag_function("-c", [cmd](int64_t) {
    throw UsageError(fmt::format("unknown flag '-c' for `lanectl {}`; did you mean '--command'? (-c is Run:AI v2's "
                                 "short form, taken by the v2 verbs such as `lanectl training submit`)",
                                 cmd->get_name()));
  })->group("");
}

// v2 verbs: two spellings of one setting on one command line.
void refuse_two_spellings(const CLI::App* cmd) {
  std::vector<std::pair<std::string, std::string>> pairs = {{"--gpu-devices-request", "--gpu-portion-request"},
                                                            {"--workers", "--processes"}};
  for (const V2Twin& t : kV2Twins) pairs.emplace_back(t.v2, t.v1);
  for (const auto& [a, b] : pairs) {
    const CLI::Option* first = cmd->get_option_no_throw(a);
    const CLI::Option* second = cmd->get_option_no_throw(b);
    if (first != nullptr && second != nullptr && first->count() > 0 && second->count() > 0)
      throw UsageError(fmt::format("{} and {} both set the same field of the job; give one of them", a, b));
  }
}

}  // namespace

void hide_single_pod_flags(CLI::App* cmd) {
  for (const char* flag : {"--interactive", "--preemptible", "--completions", "--parallelism", "--mig"})
    cmd->get_option(flag)->group("");
}

void add_submit_flags(CLI::App* cmd, SubmitOptions& o, const std::vector<std::string>& examples) {
  add_job_flags({cmd, o, "Job"});
  add_resource_flags({cmd, o, "Resources"});
  add_storage_flags({cmd, o, "Storage"});
  add_network_flags({cmd, o, "Networking"});
  add_scheduling_flags({cmd, o, "Scheduling"});
  add_environment_flags({cmd, o, "Environment"});
  const FlagGroup output{cmd, o, "Output"};
  output.both(cmd->add_flag("--dry-run", o.dry_run, "Print what would be created (-o yaml|json) and change nothing"));
  output.both(cmd->add_option("-o,--output", o.output, "With --dry-run: yaml (default) or json"));
  if (o.dialect == Dialect::kV1) {
    refuse_v2_spellings(cmd);
  } else {
    cmd->parse_complete_callback([cmd] { refuse_two_spellings(cmd); });
  }
  std::string footer = "Examples:\n";
  for (const auto& e : examples) footer += "  " + e + "\n";
  cmd->footer(footer);
}

namespace {

std::string pull_policy(const SubmitOptions& o) {
  std::vector<std::string> given;
  if (!o.spec.image_pull_policy.empty()) given.push_back("--image-pull-policy " + o.spec.image_pull_policy);
  if (o.local_image) given.push_back("--local-image");
  if (o.always_pull_image) given.push_back("--always-pull-image");
  if (given.size() > 1)
    throw UsageError(fmt::format("{} and {} both set the image pull policy; give one", given[0], given[1]));
  if (o.local_image) return "Never";
  if (o.always_pull_image) return "Always";
  return o.spec.image_pull_policy;
}

// The Run:AI flags that are not fields of the spec as given (docs/cli.md).
void apply_run_ai_flags(const SubmitOptions& o, submit::JobSpec& spec) {
  if (o.preemptible && o.non_preemptible) throw UsageError("--preemptible and --non-preemptible contradict; give one");
  spec.preemptibility = o.preemptible       ? submit::Preemptibility::kPreemptible
                        : o.non_preemptible ? submit::Preemptibility::kNonPreemptible
                                            : submit::Preemptibility::kDefault;
  spec.image_pull_policy = pull_policy(o);
  spec.tty = spec.tty || spec.attach;
  spec.stdin_open = spec.stdin_open || spec.attach;
  if (!o.ttl_after_finish.empty()) spec.ttl_after_finish_seconds = submit::parse_ttl_after_finish(o.ttl_after_finish);
  for (const auto& t : o.tolerations) spec.tolerations.push_back(parse_toleration(t));
  spec.labels = parse_key_values("--label", o.labels);
  spec.annotations = parse_key_values("--annotation", o.annotations);
  if (o.run_as_user) {
    spec.run_as_uid = static_cast<int64_t>(getuid());
    spec.run_as_gid = static_cast<int64_t>(getgid());
  }
}

// Command: `--command -- CMD ARGS` replaces the entrypoint; plain `-- ARGS` go before any --args
// and are appended to it; the older `--command CMD --args A` form splits CMD on whitespace (never
// through a shell).
void apply_command(const CliContext& ctx, submit::JobSpec& spec) {
  if (ctx.old_command) {
    if (ctx.has_dash)
      throw UsageError("--command CMD cannot be combined with `-- ...`; use either --command -- CMD ARGS or --command CMD --args ARG");
    spec.command = split_words(*ctx.old_command);
    if (spec.command.empty()) throw UsageError("--command is empty; give the program to run");
  } else if (ctx.command_flag) {
    if (ctx.after_dash.empty()) throw UsageError("--command needs the command after --, e.g. --command -- python train.py");
    spec.command = ctx.after_dash;
  } else {
    spec.args.insert(spec.args.begin(), ctx.after_dash.begin(), ctx.after_dash.end());
  }
}

// The GPU request in -g's terms: --gpu-devices-request takes whole GPUs, --gpu-portion-request a
// portion of one (above 0, at most 1); then -g's rules (parse_gpu, validate).
double requested_gpus(const SubmitOptions& o) {
  if (!o.gpu) return 0;
  const double gpu = parse_gpu(*o.gpu, o.gpu_flag == "-g,--gpu" ? "--gpu" : o.gpu_flag);
  if (o.gpu_flag == "--gpu-devices-request" && gpu != static_cast<double>(static_cast<int64_t>(gpu)))
    throw UsageError(fmt::format("--gpu-devices-request {}: a whole number of GPUs; for a part of one GPU use "
                                 "--gpu-portion-request {}", *o.gpu, *o.gpu));
  if (o.gpu_flag == "--gpu-portion-request" && (gpu <= 0 || gpu > 1))
    throw UsageError(fmt::format("--gpu-portion-request {}: a portion of one GPU, above 0 and at most 1 "
                                 "(e.g. 0.5); for whole GPUs use --gpu-devices-request N", *o.gpu));
  return gpu;
}

// --port in the verb's dialect and --external-url: the ports, and the one Service type they ask
// (a job's ports share one Service, as with -s).
void add_ports(const SubmitOptions& o, submit::JobSpec& spec) {
  std::vector<std::pair<std::string, V2Port>> v2_ports;  // flag, port
  for (const auto& p : o.ports) {
    if (o.dialect == Dialect::kV2 && is_v2_port(p)) {
      v2_ports.emplace_back("--port " + p, parse_v2_port(p));
    } else {
      spec.ports.push_back(submit::parse_port(p));
    }
  }
  for (const auto& u : o.external_urls) v2_ports.emplace_back("--external-url " + u, parse_external_url(u));
  std::string type_flag = spec.service_type.empty() ? "" : "-s " + spec.service_type;
  for (const auto& [flag, port] : v2_ports) {
    spec.ports.push_back(port.port);
    if (port.service_type.empty()) continue;
    if (!spec.service_type.empty() && spec.service_type != port.service_type)
      throw UsageError(fmt::format("{} and {} ask for two Service types; a job's ports share one Service: give "
                                   "every port the same service-type",
                                   type_flag, flag));
    spec.service_type = port.service_type;
    type_flag = flag;
  }
}

void add_mounts(const SubmitOptions& o, submit::JobSpec& spec) {
  for (const auto& p : o.pvcs) spec.pvcs.push_back(parse_pvc(p));
  for (const auto& p : o.existing_pvcs) spec.pvcs.push_back(parse_existing_pvc(p));
  for (const auto& p : o.new_pvcs) spec.pvcs.push_back(parse_new_pvc(p));
  for (const auto& v : o.volumes) spec.volumes.push_back(parse_host_mount(v));
  for (const auto& v : o.host_paths) spec.volumes.push_back(parse_host_path(v));
  if (o.dialect == Dialect::kV2 && spec.node_pool.find_first_of(", ") != std::string::npos)
    throw UsageError(fmt::format("--node-pools '{}': lanectl schedules a job on one node pool (nodeSelector "
                                 "kai.scheduler/node-pool); give one",
                                 spec.node_pool));
}

}  // namespace

submit::JobSpec build_job_spec(const SubmitOptions& o, CliContext& ctx, submit::JobType type) {
  submit::JobSpec spec = o.spec;
  if (!o.positional_name.empty() && !spec.name.empty() && o.positional_name != spec.name)
    throw UsageError("two job names given ('" + o.positional_name + "' and --name " + spec.name + "); give one");
  if (spec.name.empty()) spec.name = o.positional_name;
  if (!spec.name.empty() && !o.name_prefix.empty())
    throw UsageError("--job-name-prefix cannot be combined with a job name; drop one of them");
  spec.project = ctx.project(spec.project);
  spec.type = o.interactive ? submit::JobType::kInteractive : type;
  if (type == submit::JobType::kMpi && o.interactive)
    throw UsageError("--interactive is not available for submit-mpi; MPI jobs are training jobs");
  spec.gpu = requested_gpus(o);
  // The job's name, project, image and size first, so that a missing --image is reported before
  // the syntax of the repeatable flags; the whole spec is checked once they are in.
  submit::validate_basics(spec);

  for (const auto& e : o.env) spec.env.push_back(parse_env(e));
  add_mounts(o, spec);
  add_ports(o, spec);
  apply_command(ctx, spec);
  spec.cli_argv = ctx.argv;
  spec.user = job_user_name();
  apply_run_ai_flags(o, spec);
  submit::validate_unnamed(spec);
  return spec;
}

namespace {

// --attach: as `lanectl attach` right after the submit (stdin and a terminal on Kubernetes, the
// output log followed locally); exits with the job's exit code.
[[noreturn]] void attach_to_submitted(submit::Jobs& backend, const submit::JobSpec& spec, CliContext& ctx) {
  ctx.err << "Waiting for job '" << spec.name << "' to start; then its output follows\n";
  submit::AttachOptions opts;
  opts.stdin = spec.stdin_open;
  opts.tty = spec.tty;
  int code = backend.attach(spec.name, spec.project, opts, ctx.out, ctx.err);
  ctx.out.flush();
  throw CommandExit(code);
}

}  // namespace

void run_submit(const SubmitOptions& o, CliContext& ctx, submit::JobType type) {
  OutputFormat format = o.output.empty() ? OutputFormat::kYaml : parse_output_format(o.output);
  if (!o.dry_run && !o.output.empty())
    throw UsageError("-o is only used with --dry-run for submit; drop -o or add --dry-run");
  if (format == OutputFormat::kWide || format == OutputFormat::kTable)
    throw UsageError("--dry-run prints yaml or json; use -o yaml or -o json");
  submit::JobSpec spec = build_job_spec(o, ctx, type);
  for (const auto& e : spec.env)
    if (is_secret_env_name(e.name) && !submit::parse_secret_ref(e.value))
      ctx.err << "warning: " << secret_env_advice(e.name) << "\n";
  auto& backend = ctx.jobs();
  for (const auto& note : backend.unhonoured_flags(spec)) ctx.err << "note: " << note << "\n";
  if (o.dry_run) {
    if (spec.name.empty()) spec.name = backend.next_job_name(spec.project, o.name_prefix.empty() ? "job" : o.name_prefix);
    print_document(ctx.out, backend.render(submit::masked_for_display(spec)), format);
    return;
  }
  submit::JobInfo submitted;
  if (!spec.name.empty()) {
    submitted = backend.submit(spec);
  } else {
    // Automatic names race with concurrent submits: retry with the next free index.
    for (int attempt = 0;; ++attempt) {
      spec.name = backend.next_job_name(spec.project, o.name_prefix.empty() ? "job" : o.name_prefix);
      try {
        submitted = backend.submit(spec);
        break;
      } catch (const submit::AlreadyExists&) {
        if (attempt >= 20) throw;
      }
    }
  }
  // What the backend wants the user to know at once (e.g. a claim provisioned thin beyond the free disk).
  for (const auto& e : submitted.events)
    if (e.type == "Warning") ctx.err << "warning: " << e.message << "\n";
  ctx.out << "The job '" << spec.name << "' has been submitted successfully\n"
          << "You can run `lanectl describe job " << spec.name << " -p " << spec.project
          << "` to check the job status\n";
  if (spec.attach) attach_to_submitted(backend, spec, ctx);
}

}  // namespace lane::cli

#include "cli/submit_options.h"

#include <unistd.h>

#include <cstdlib>
#include <ostream>

#include <fmt/format.h>

#include "cli/spec_parsing.h"
#include "cli/verbs.h"
#include "common/error.h"
#include "common/secrets.h"
#include "submit/core/duration.h"
#include "submit/core/errors.h"
#include "submit/core/validate.h"

namespace lane::cli {

namespace {

// The Run:AI flags of issue 17; their meaning on each backend: docs/cli.md.
void add_run_ai_flags(CLI::App* cmd, SubmitOptions& o) {
  submit::JobSpec& s = o.spec;
  cmd->add_flag("--preemptible", o.preemptible, "Interactive job that may be preempted (with --interactive)");
  cmd->add_flag("--non-preemptible", o.non_preemptible, "Never preempted; runs only within the project's quota");
  cmd->add_option("--image-pull-policy", s.image_pull_policy, "Always | IfNotPresent | Never (Kubernetes)");
  cmd->add_flag("--local-image", o.local_image, "Use the image present on the node (= --image-pull-policy Never)");
  cmd->add_flag("--always-pull-image", o.always_pull_image, "Always pull the image (= --image-pull-policy Always)");
  cmd->add_flag("-t,--tty", s.tty, "Allocate a TTY (needs --stdin)");
  cmd->add_flag("--stdin", s.stdin_open, "Keep stdin open");
  cmd->add_flag("--attach", s.attach, "Wait for the job to start, then follow its output (implies -t --stdin)");
  cmd->add_option("--backoff-limit,--backoffLimit", s.backoff_limit,
                  "Retries of a failed training job (Kubernetes default 6; local default 0)");
  cmd->add_option("--completions", s.completions, "Successful runs needed (batch Job)");
  cmd->add_option("--parallelism", s.parallelism, "Runs at once (batch Job; > 1 needs --completions)");
  cmd->add_option("--ttl-after-finish", o.ttl_after_finish, "Delete the job this long after it ends (e.g. 1h, 30m, 0s)");
  cmd->add_option("--cpu-limit", s.cpu_limit, "CPU limit (e.g. 4 or 500m)");
  cmd->add_option("--memory-limit", s.memory_limit, "Memory limit (e.g. 8Gi)");
  cmd->add_option("--gpu-memory", s.gpu_memory, "GPU memory instead of -g (e.g. 4G; at least 100M)");
  cmd->add_option("--node-pool", s.node_pool, "Run on nodes labelled kai.scheduler/node-pool=<value>");
  cmd->add_option("--toleration", o.tolerations, "Tolerate a node taint: KEY[=VALUE][:EFFECT] (repeatable)");
  cmd->add_flag("--run-as-user", o.run_as_user, "Run as your own uid/gid (securityContext runAsUser/runAsGroup)");
  cmd->add_flag("--host-ipc", s.host_ipc, "Use the node's IPC namespace");
  cmd->add_flag("--host-network", s.host_network, "Use the node's network");
  cmd->add_option("--mig,--mig-profile", s.mig_profile, "A MIG slice instead of -g (e.g. 1g.5gb, 3g.20gb)");
  cmd->add_flag("--elastic", s.elastic, "Mark the job elastic (annotation elastic; Kubernetes)");
  cmd->add_flag("--prevent-privilege-escalation", s.prevent_privilege_escalation,
                "The job's processes cannot gain privileges (setuid binaries, file capabilities)");
  cmd->add_option("--label", o.labels, "A label KEY=VALUE on the job (repeatable; `list -l KEY=VALUE` selects on it)");
  cmd->add_option("--annotation", o.annotations, "An annotation KEY=VALUE on the job (repeatable)");
  cmd->add_flag("--create-home-dir", s.create_home_dir, "Give the job a writable HOME (" + std::string(submit::kRunAiHomeDir) + ")");
}

}  // namespace

void add_submit_flags(CLI::App* cmd, SubmitOptions& o) {
  submit::JobSpec& s = o.spec;
  cmd->add_option("NAME", o.positional_name, "Job name (same as --name)");
  cmd->add_option("--name", s.name, "Job name (DNS-1123 label: lowercase letters, digits, '-')");
  cmd->add_option("--job-name-prefix", o.name_prefix, "Name the job <prefix>-<N> with the smallest free N");
  cmd->add_option("-p,--project", s.project, "Project (default: `lanectl config project`, else 'default')");
  cmd->add_option("-i,--image", s.image, "Container image (the local backend runs the project's own images)");
  cmd->add_option_function<std::string>(
         "-g,--gpu", [&o](const std::string& v) { o.gpu = v; },
         "GPUs per process: a whole number, or a fraction below 1 (e.g. 0.5)")
      ->type_name("FLOAT");
  cmd->add_option("-e,--environment", o.env, "Environment variable NAME=VALUE (repeatable)");
  cmd->add_option("--pvc", o.pvcs, "[StorageClass]:Size:MountPath[:ro] or ExistingClaim:MountPath[:ro] (repeatable)");
  cmd->add_option("-v,--volume", o.volumes, "HOST:CONTAINER[:ro] (repeatable)");
  cmd->add_option("--args", s.args, "Argument appended to the command (repeatable; older form of `-- ARGS`)");
  cmd->add_flag("--large-shm", s.large_shm, "Mount a large memory-backed /dev/shm");
  cmd->add_option("--shm-size", s.shm_size, "Local backend: size of /dev/shm with --large-shm (e.g. 8Gi)");
  cmd->add_flag("--interactive", o.interactive, "Interactive job: never preempted, limited to the project quota");
  cmd->add_option("--cpu", s.cpu, "CPU request (e.g. 4 or 500m)");
  cmd->add_option("--memory", s.memory, "Memory request (e.g. 8Gi)");
  cmd->add_option("--port", o.ports, "[EXTERNAL:]CONTAINER port to expose (repeatable)");
  cmd->add_option("-s,--service-type", s.service_type, "portforward | loadbalancer | nodeport | ingress");
  cmd->add_option("--node-type", s.node_type, "Run on nodes labelled run.ai/type=<value>");
  cmd->add_option("--working-dir", s.working_dir, "Working directory of the command");
  cmd->add_flag("--dry-run", o.dry_run, "Print what would be created (-o yaml|json) and change nothing");
  cmd->add_option("-o,--output", o.output, "With --dry-run: yaml (default) or json");
  add_run_ai_flags(cmd, o);
  // --command is handled before parsing (both spellings); listed here for --help only.
  cmd->add_flag("--command", "Treat the words after -- as the command (replaces the image entrypoint); "
                             "the older form --command CMD [--args ARG] also works");
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
  spec.gpu = o.gpu ? parse_gpu(*o.gpu) : 0;
  // The job's name, project, image and size first, so that a missing --image is reported before
  // the syntax of the repeatable flags; the whole spec is checked once they are in.
  submit::validate_basics(spec);

  for (const auto& e : o.env) spec.env.push_back(parse_env(e));
  for (const auto& p : o.pvcs) spec.pvcs.push_back(parse_pvc(p));
  for (const auto& v : o.volumes) spec.volumes.push_back(parse_host_mount(v));
  for (const auto& p : o.ports) spec.ports.push_back(submit::parse_port(p));
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

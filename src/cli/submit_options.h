#pragma once
// The flags `submit` and `submit-mpi` share, and how they become a JobSpec (Run:AI v1 semantics:
// see docs/cli.md). Bound to CLI11 by add_submit_flags; turned into a spec by build_job_spec.
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/context.h"

namespace lane::cli {

struct SubmitOptions {
  std::string positional_name, name, name_prefix, project, image, output;
  std::string gpu;         // parsed by parse_gpu when given (an empty value is an error, not 0)
  bool gpu_given = false;
  std::vector<std::string> env, pvcs, volumes, args, ports;
  bool large_shm = false, interactive = false, dry_run = false;
  std::string shm_size, cpu, memory, service_type, node_type, working_dir;
  int processes = 1, slots_per_worker = 1;
  // Run:AI flags (docs/cli.md, "Run:AI flags and their local meaning").
  bool preemptible = false, non_preemptible = false;
  bool local_image = false, always_pull_image = false;
  std::string image_pull_policy;
  bool tty = false, stdin_open = false, attach = false;
  std::optional<int> backoff_limit, completions, parallelism;
  std::string ttl_after_finish, cpu_limit, memory_limit, gpu_memory, node_pool, clean_pod_policy;
  std::vector<std::string> tolerations;
  bool run_as_user = false, host_ipc = false, host_network = false;
  std::string mig_profile;
  bool elastic = false, prevent_privilege_escalation = false, create_home_dir = false;
};

void add_submit_flags(CLI::App* cmd, SubmitOptions& o);

// Validates the flags (UsageError with the fix) and assembles the spec; the name is resolved
// later (run_submit) because --job-name-prefix needs the backend.
submit::JobSpec build_job_spec(const SubmitOptions& o, CliContext& ctx, submit::JobType type);

// Shared body of `submit` and `submit-mpi`: dry-run rendering or submission + the Run:AI message.
void run_submit(const SubmitOptions& o, CliContext& ctx, submit::JobType type);

}  // namespace lane::cli

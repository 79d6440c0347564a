#pragma once
// The flags the submit verbs share (v1: `submit`, `submit-mpi`; v2: `training submit`, `training
// mpi submit`, `workspace submit`), and how they become a JobSpec (docs/cli.md). Bound to CLI11 by
// add_submit_flags; turned into a spec by build_job_spec. A v2 spelling with a v1 twin binds the
// same field, so both spellings store the same spec.
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/context.h"
#include "submit/core/workload.h"

namespace lane::cli {

// Which Run:AI CLI a submit verb speaks: v1 verbs list the v1 spellings and refuse the v2-only ones
// naming their twin; v2 verbs list the v2 spellings and still take the v1 twins (unlisted).
enum class Dialect { kV1, kV2 };

struct SubmitOptions {
  Dialect dialect = Dialect::kV1;
  submit::JobSpec spec;  // the flags that are fields of the spec bind here; build_job_spec completes it
  std::string positional_name, name_prefix, output;
  bool interactive = false, dry_run = false;
  bool preemptible = false, non_preemptible = false;            // -> spec.preemptibility
  bool local_image = false, always_pull_image = false;          // -> spec.image_pull_policy
  bool run_as_user = false;                                     // -> spec.run_as_uid / run_as_gid
  // Parsed by build_job_spec once the job's name, project, image and size are checked, so that a
  // missing --image is reported before their syntax (cli/spec_parsing.h, submit::parse_port,
  // submit::parse_ttl_after_finish). The quantities bind into the spec's submit::Quantity fields,
  // parsed as they bind; validate reports a bad one, in its own order.
  std::optional<std::string> gpu;  // an empty value is an error, not 0
  std::string gpu_flag = "--gpu";  // which spelling set it (v2: --gpu-devices-request, --gpu-portion-request)
  std::vector<std::string> env, pvcs, volumes, ports, tolerations;
  std::vector<std::string> existing_pvcs, new_pvcs, host_paths, external_urls;  // v2 (cli/v2_spec_parsing.h)
  std::string ttl_after_finish;
  std::vector<std::string> labels, annotations;  // --label / --annotation KEY=VALUE -> spec maps
};

// Adds the flags in help groups (Job, Resources, Storage, Networking, Scheduling, Environment,
// Output) in `o.dialect`'s spellings. `examples`: the footer of --help, one command a line.
void add_submit_flags(CLI::App* cmd, SubmitOptions& o, const std::vector<std::string>& examples);
// Distributed verbs (submit-mpi, submit-dist pytorch): the flags of single-pod jobs stay accepted,
// so that they are refused with their reason, but --help does not list them.
void hide_single_pod_flags(CLI::App* cmd);

// Validates the flags (UsageError with the fix) and assembles the spec; the name is resolved
// later (run_submit) because --job-name-prefix needs the backend.
submit::JobSpec build_job_spec(const SubmitOptions& o, CliContext& ctx, submit::JobType type);

// Shared body of `submit` and `submit-mpi`: dry-run rendering or submission + the Run:AI message.
void run_submit(const SubmitOptions& o, CliContext& ctx, submit::JobType type);

}  // namespace lane::cli

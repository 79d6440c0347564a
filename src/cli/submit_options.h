#pragma once
// The flags `submit` and `submit-mpi` share, and how they become a JobSpec (Run:AI v1 semantics:
// see docs/cli.md). Bound to CLI11 by add_submit_flags; turned into a spec by build_job_spec.
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/context.h"
#include "submit/core/workload.h"

namespace lane::cli {

struct SubmitOptions {
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
  std::vector<std::string> env, pvcs, volumes, ports, tolerations;
  std::string ttl_after_finish;
  std::vector<std::string> labels, annotations;  // --label / --annotation KEY=VALUE -> spec maps
};

void add_submit_flags(CLI::App* cmd, SubmitOptions& o);

// Validates the flags (UsageError with the fix) and assembles the spec; the name is resolved
// later (run_submit) because --job-name-prefix needs the backend.
submit::JobSpec build_job_spec(const SubmitOptions& o, CliContext& ctx, submit::JobType type);

// Shared body of `submit` and `submit-mpi`: dry-run rendering or submission + the Run:AI message.
void run_submit(const SubmitOptions& o, CliContext& ctx, submit::JobType type);

}  // namespace lane::cli

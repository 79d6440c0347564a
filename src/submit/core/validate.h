#pragma once
// The rules every JobSpec must follow, whichever backend runs it: one function, one message
// per rule (naming the flag and the fix), used by the CLI before it talks to a backend and by
// each backend before it creates anything. What only a backend can check (does the project or
// claim exist, does the request fit the cluster) stays with that backend.
#include <cstdint>
#include <optional>
#include <string>

#include "submit/core/workload.h"

namespace lane::submit {

// What one process may ask for with --gpu: 0, a fraction from kMinGpuFraction to below 1, or a
// whole number up to kMaxGpusPerProcess (the scheduler counts GPUs in units of kMinGpuFraction).
inline constexpr double kMinGpuFraction = 0.001;
inline constexpr double kMaxGpusPerProcess = 1e6;

// A project's --gpu-quota: a decimal number of GPUs from 0 to kMaxGpuQuota (fractions allowed).
inline constexpr double kMaxGpuQuota = 1e6;
// The quota `text` gives ("4", "0.5"); UsageError naming --gpu-quota and the range for anything
// else (empty, "inf", "nan", "0x10", "1e400", a sign, more than kMaxGpuQuota).
double parse_gpu_quota(const std::string& text);
// UsageError unless 0 <= quota <= kMaxGpuQuota (NaN included): what every backend stores.
void validate_gpu_quota(double quota);

// The node port range of a default API server (--service-node-port-range): the external port of
// `--port EXT:CONTAINER` with --service-type nodeport.
inline constexpr int kMinNodePort = 30000;
inline constexpr int kMaxNodePort = 32767;
// --create-home-dir: the emptyDir mounted as the job's HOME (as runai's chart named it).
inline constexpr const char* kRunAiHomeDir = "/home/runai-home";
// --gpu-memory: the pod annotation gpu-memory counts MB (10^6 bytes), at least kMinGpuMemoryMb.
inline constexpr int64_t kMinGpuMemoryMb = 100;
// The annotation's value for a valid quantity (floor of bytes / 10^6); 0 when not a quantity.
int64_t gpu_memory_mb(const Quantity& quantity);
// The smallest size of a new --pvc claim (1Mi): a size without a unit is bytes ("100" is 100 bytes).
inline constexpr uint64_t kMinPvcBytes = uint64_t{1} << 20;
// What is wrong with a new claim's size ("size '100GB' is not a Kubernetes quantity; ..."), naming
// the size and the units or the minimum; nullopt for a good one. --pvc's parser and validate say it.
std::optional<std::string> pvc_size_problem(const Quantity& size);

// A project name: a DNS-1123 label of at most 57 characters, so that its namespace
// (project_namespace, workload.h) fits in 63 on every backend and a project moves between
// backends unchanged. `field` names the flag or argument
// in the message ("project (-p)", "project name"). Throws UsageError.
void validate_project_name(const std::string& name, const std::string& field);

// --job-name-prefix: names <prefix>-<N> follow the job name rules (a DNS-1123 label starting with
// a letter). Throws UsageError naming the flag.
void validate_job_name_prefix(const std::string& prefix);

// Throws UsageError (exit code 2) for the first rule `spec` breaks; returns when it breaks none.
void validate(const JobSpec& spec);

// The first of those rules alone: the job name (when given), the project, the image, the GPU
// request and the process counts. Submit checks them before it parses its other flags.
void validate_basics(const JobSpec& spec);

// The same rules except the job name, for a spec whose name is picked later (an empty name is
// resolved from --job-name-prefix by the backend; a name that is given is still checked).
void validate_unnamed(const JobSpec& spec);

}  // namespace lane::submit

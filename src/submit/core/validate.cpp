#include "submit/core/validate.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "common/error.h"
#include "common/names.h"
#include "common/quantity.h"

namespace lane::submit {
namespace {

bool is_whole(double g) { return std::floor(g) == g; }

// How messages about a distributed job name its verb, its size flag and its kind.
struct Distributed {
  const char* verb;
  const char* count_flag;
  const char* kind;
};
Distributed distributed(JobType type) {
  if (type == JobType::kPyTorch) return {"submit-dist pytorch", "--workers", "PyTorch"};
  return {"submit-mpi", "--processes", "MPI"};
}
bool is_absolute(const std::string& path) { return !path.empty() && path[0] == '/'; }

// A path component "..", as Kubernetes refuses in mount and host paths.
bool has_backstep(const std::string& path) {
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    if (path.compare(start, end - start, "..") == 0 && end - start == 2) return true;
    start = end + 1;
  }
  return false;
}

std::string without_trailing_slashes(std::string path) {
  while (!path.empty() && path.back() == '/') path.pop_back();
  return path;
}

bool starts_with_letter(const std::string& name) { return !name.empty() && name[0] >= 'a' && name[0] <= 'z'; }

// Run:AI's rule (a job's Service is named after it, and Service names are DNS-1035 labels).
void require_leading_letter(const std::string& name, const std::string& field) {
  if (!starts_with_letter(name))
    throw UsageError(fmt::format("invalid {} '{}': must start with a letter, as Run:AI requires (e.g. 'job-{}')",
                                 field, name, name));
}

// A PyTorch job's pods are <name>-master-0 and <name>-worker-<0..processes-1>: DNS-1123 labels too.
void check_pytorch_name(const JobSpec& spec) {
  const size_t longest = 63 - (std::string("-worker-").size() + std::to_string(std::max(spec.processes - 1, 0)).size());
  if (spec.name.size() > longest)
    throw UsageError(fmt::format(
        "invalid job name (--name) '{}': a PyTorch job's pods are named {}-master-0 and {}-worker-N, which must fit "
        "in 63 characters; with --workers {} use a name of at most {} characters",
        spec.name, spec.name, spec.name, spec.processes, longest));
}

// An MPI job's pods are <name>-launcher and <name>-worker-<0..processes-1>: DNS-1123 labels too.
void check_mpi_name(const JobSpec& spec) {
  if (spec.type == JobType::kPyTorch) return check_pytorch_name(spec);
  if (spec.type != JobType::kMpi || spec.processes < 1) return;
  const size_t suffix = std::max(std::string("-launcher").size(),
                                 std::string("-worker-").size() + std::to_string(spec.processes - 1).size());
  const size_t longest = 63 - suffix;
  if (spec.name.size() > longest)
    throw UsageError(fmt::format(
        "invalid job name (--name) '{}': an MPI job's pods are named {}-launcher and {}-worker-N, which must fit in "
        "63 characters; with --processes {} use a name of at most {} characters",
        spec.name, spec.name, spec.name, spec.processes, longest));
}

void check_name(const JobSpec& spec) {
  require_dns1123_label(spec.name, "job name (--name)");
  require_leading_letter(spec.name, "job name (--name)");
  check_mpi_name(spec);
}

void check_gpu(const JobSpec& spec) {
  if (std::isnan(spec.gpu) || spec.gpu < 0)
    throw UsageError(fmt::format("--gpu {:g}: use 0, a fraction below 1 (e.g. 0.5) or a whole number", spec.gpu));
  if (spec.gpu > 0 && spec.gpu < kMinGpuFraction)
    throw UsageError(fmt::format("--gpu {:g}: the smallest GPU fraction is {:g}; use 0 for no GPU or a fraction "
                                 "from {:g} (e.g. 0.5)",
                                 spec.gpu, kMinGpuFraction, kMinGpuFraction));
  if (spec.gpu > kMaxGpusPerProcess)
    throw UsageError(fmt::format("--gpu {:g}: at most {:.0f} GPUs per process; ask for fewer (e.g. --gpu 8)", spec.gpu,
                                 kMaxGpusPerProcess));
  if (spec.gpu > 1 && !is_whole(spec.gpu))
    throw UsageError(fmt::format(
        "--gpu {:g}: a fractional GPU must be below 1 (e.g. 0.5); use a whole number of GPUs above 1", spec.gpu));
  if (is_distributed(spec.type) && !is_whole(spec.gpu))
    throw UsageError(fmt::format("--gpu {:g} cannot be used with {}: each {} worker needs whole GPUs (e.g. --gpu 1)",
                                 spec.gpu, distributed(spec.type).count_flag, distributed(spec.type).kind));
}

void check_counts(const JobSpec& spec) {
  if (spec.type == JobType::kPyTorch && spec.processes < 0)
    throw UsageError(fmt::format("--workers {}: use 0 or more (the master is one more process)", spec.processes));
  if (spec.type != JobType::kPyTorch && spec.processes < 1)
    throw UsageError(fmt::format("--processes {}: use 1 or more", spec.processes));
  if (spec.slots_per_worker < 1)
    throw UsageError(fmt::format("--slots-per-worker {}: use 1 or more", spec.slots_per_worker));
}

// A DNS-1123 subdomain: dot-separated DNS-1123 labels, at most 253 characters in all.
bool is_dns1123_subdomain(const std::string& name) {
  if (name.empty() || name.size() > 253) return false;
  size_t start = 0;
  while (start <= name.size()) {
    const size_t dot = name.find('.', start);
    const std::string part = name.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!is_dns1123_label(part)) return false;
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return true;
}

// Entries are numbered from 1 in the order given on the command line.
void check_pvcs(const JobSpec& spec, bool named) {
  for (size_t i = 0; i < spec.pvcs.size(); ++i) {
    const PvcMount& m = spec.pvcs[i];
    if (!is_absolute(m.mount_path))
      throw UsageError(fmt::format("--pvc #{}: the mount path '{}' must be absolute (e.g. /mnt)", i + 1, m.mount_path));
    if (!m.create) {
      require_dns1123_label(m.claim, fmt::format("--pvc #{} claim name", i + 1));
      continue;
    }
    if (auto problem = pvc_size_problem(m.size)) throw UsageError(fmt::format("--pvc #{}: {}", i + 1, *problem));
    if (!m.storage_class.empty() && !is_dns1123_subdomain(m.storage_class))
      throw UsageError(fmt::format("--pvc #{}: storage class '{}' is not a storage class name (lowercase letters, "
                                   "digits, '-' and '.', at most 253 characters; e.g. azure-netapp-files)",
                                   i + 1, m.storage_class));
    if (!m.claim.empty())
      require_dns1123_label(m.claim, fmt::format("--pvc #{} new claim name (--new-pvc claimname=)", i + 1));
    else if (named)
      require_dns1123_label(generated_claim_name(spec.name, i),
                            fmt::format("--pvc #{} new claim name (pvc-<job>-{}: use a shorter job name)", i + 1, i));
  }
}

void check_host_mounts(const JobSpec& spec) {
  for (size_t i = 0; i < spec.volumes.size(); ++i) {
    const HostMount& v = spec.volumes[i];
    if (!is_absolute(v.host_path) || !is_absolute(v.container_path))
      throw UsageError(fmt::format("-v #{} '{}:{}': both paths must be absolute (e.g. -v /data:/data:ro)", i + 1,
                                   v.host_path, v.container_path));
    if (has_backstep(v.host_path))
      throw UsageError(fmt::format("-v #{} '{}:{}': the host path must not contain '..'; write the directory it "
                                   "means without it (e.g. -v /data:/data)",
                                   i + 1, v.host_path, v.container_path));
  }
}

// Every path the job's containers mount, named as the user gave it: --pvc, -v, then /dev/shm.
struct MountPoint {
  std::string source;  // "--pvc #1", "-v #2", "--large-shm"
  std::string path;
};

std::vector<MountPoint> mount_points(const JobSpec& spec) {
  std::vector<MountPoint> out;
  for (size_t i = 0; i < spec.pvcs.size(); ++i)
    out.push_back({fmt::format("--pvc #{}", i + 1), spec.pvcs[i].mount_path});
  for (size_t i = 0; i < spec.volumes.size(); ++i)
    out.push_back({fmt::format("-v #{}", i + 1), spec.volumes[i].container_path});
  if (spec.large_shm) out.push_back({"--large-shm", "/dev/shm"});
  if (spec.create_home_dir) out.push_back({"--create-home-dir", kRunAiHomeDir});
  return out;
}

// Kubernetes refuses '..' in a mount path, two mounts at one path, and the job sees nothing of its
// image under a mount at '/'. Paths compare without trailing '/' ("/mnt/" is "/mnt").
void check_mount_paths(const JobSpec& spec) {
  const auto points = mount_points(spec);
  for (size_t i = 0; i < points.size(); ++i) {
    const auto& p = points[i];
    if (has_backstep(p.path))
      throw UsageError(fmt::format("{}: the mount path '{}' must not contain '..'; write the directory it means "
                                   "(e.g. /mnt/data)",
                                   p.source, p.path));
    if (without_trailing_slashes(p.path).empty())
      throw UsageError(fmt::format("{}: the mount path '{}' would hide the image's whole filesystem; mount under a "
                                   "directory such as /mnt",
                                   p.source, p.path));
    for (size_t j = 0; j < i; ++j)
      if (without_trailing_slashes(points[j].path) == without_trailing_slashes(p.path))
        throw UsageError(fmt::format("{} and {} both mount at '{}'; give each a different mount path", points[j].source,
                                     p.source, p.path));
  }
}

// A size written with a byte unit ("2GB", "512MB", "1KiB"; a quantity's unit has no 'B'): the two
// quantities it may mean, decimal and binary ("2G", "2Gi"), or nullopt for anything else.
std::optional<std::pair<std::string, std::string>> byte_unit_forms(const std::string& value) {
  if (value.size() < 2 || (value.back() != 'B' && value.back() != 'b')) return std::nullopt;
  std::string decimal = value.substr(0, value.size() - 1);
  if (decimal.back() == 'i') decimal.pop_back();
  if (decimal.empty() || !std::isalpha(static_cast<unsigned char>(decimal.back()))) return std::nullopt;
  if (decimal.back() == 'K') decimal.back() = 'k';  // decimal kilo is 'k', binary 'Ki'
  if (!is_quantity(decimal)) return std::nullopt;
  std::string binary = decimal;
  if (binary.back() == 'k') binary.back() = 'K';
  return std::pair{decimal, binary + "i"};
}

// "2G (10^N bytes) or 2Gi (2^N bytes)" for "2GB", else "".
std::string byte_unit_hint(const std::string& value) {
  auto forms = byte_unit_forms(value);
  return forms ? fmt::format("{} (10^N bytes) or {} (2^N bytes)", forms->first, forms->second) : "";
}

// --cpu, --memory, --shm-size and the limits become requests/limits, a sizeLimit or an annotation:
// Kubernetes quantities >= 0.
void check_quantity(const Quantity& q, const char* flag, const char* example, bool bytes) {
  if (!q.given()) return;
  if (q.value() && *q.value() >= 0) return;
  std::string hint = bytes ? byte_unit_hint(q.text()) : "";
  throw UsageError(fmt::format("{} '{}': {}; use e.g. {}", flag, q.text(),
                               q.value() ? "must not be negative" : "not a Kubernetes quantity",
                               hint.empty() ? example : hint));
}

// A request above its limit, which a real API server refuses (both are valid quantities by now).
void check_request_within_limit(const Quantity& request, const char* request_flag, const Quantity& limit,
                                const char* limit_flag) {
  if (request.value() && limit.value() && *request.value() > *limit.value())
    throw UsageError(fmt::format("{} {} is above {} {}; the request must not exceed the limit", request_flag,
                                 request.text(), limit_flag, limit.text()));
}

void check_resources(const JobSpec& spec) {
  check_quantity(spec.cpu, "--cpu", "2, 0.5 or 500m (cores)", false);
  check_quantity(spec.memory, "--memory", "2G or 2Gi (suffixes k M G T P E, Ki Mi Gi Ti Pi Ei)", true);
  check_quantity(spec.shm_size, "--shm-size", "8Gi", true);
}

void check_env(const JobSpec& spec) {
  for (size_t i = 0; i < spec.env.size(); ++i) {
    // The value is never printed: it may be a secret.
    if (!is_env_name(spec.env[i].name))
      throw UsageError(fmt::format("-e #{}: '{}' is not a variable name; use NAME=VALUE with NAME made of letters, "
                                   "digits and '_' (e.g. -e BATCH_SIZE=33)",
                                   i + 1, spec.env[i].name));
  }
}

void check_ports(const JobSpec& spec) {
  // Each --port is one container port and one Service port: Kubernetes refuses a Service with a
  // port twice, and two mappings to one container port are one port.
  for (size_t i = 0; i < spec.ports.size(); ++i)
    for (size_t j = 0; j < i; ++j) {
      const PortMapping &a = spec.ports[j], &b = spec.ports[i];
      const int a_service = a.external_given ? a.external : a.container;
      const int b_service = b.external_given ? b.external : b.container;
      if (a.container == b.container || a_service == b_service)
        throw UsageError(fmt::format("--port '{}' and --port '{}' use port {} twice; give each --port its own "
                                     "container port and external port (e.g. --port 8888 --port 6006)",
                                     to_string(a), to_string(b),
                                     a.container == b.container ? a.container : a_service));
    }
  if (spec.service_type.empty()) return;
  static const char* kTypes[] = {"portforward", "loadbalancer", "nodeport", "ingress"};
  bool known = false;
  for (const char* t : kTypes) known = known || spec.service_type == t;
  if (!known)
    throw UsageError("--service-type '" + spec.service_type + "': use portforward, loadbalancer, nodeport or ingress");
  if (spec.ports.empty()) throw UsageError("--service-type needs at least one --port");
  if (spec.service_type != "nodeport") return;
  for (const auto& p : spec.ports) {
    if (!p.external_given) continue;  // Kubernetes picks the node port
    if (p.external < kMinNodePort || p.external > kMaxNodePort)
      throw UsageError(fmt::format(
          "--port '{}': with --service-type nodeport the external port is the node port, which must be {}-{} "
          "(e.g. --port {}:{}); or give only the container port and Kubernetes picks one",
          to_string(p), kMinNodePort, kMaxNodePort, kMinNodePort + 80, p.container));
  }
}

// ---- The Run:AI flags of issue 17 (docs/cli.md, "Run:AI flags and their local meaning") ----

bool one_of(const std::string& v, std::initializer_list<const char*> allowed) {
  for (const char* a : allowed)
    if (v == a) return true;
  return false;
}

// A label value (and the name part of a label key): at most 63 of [A-Za-z0-9-_.], alphanumeric
// at both ends. Kubernetes' rule, for --node-pool, --node-type and --toleration.
bool is_label_value(const std::string& v) {
  if (v.empty()) return true;
  auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  if (v.size() > 63 || !alnum(v.front()) || !alnum(v.back())) return false;
  for (char c : v)
    if (!alnum(c) && c != '-' && c != '_' && c != '.') return false;
  return true;
}

// A label key: [PREFIX/]NAME, PREFIX a DNS subdomain (lowercase), NAME a non-empty label value.
bool is_label_key(const std::string& k) {
  const size_t slash = k.rfind('/');
  const std::string name = slash == std::string::npos ? k : k.substr(slash + 1);
  if (name.empty() || !is_label_value(name)) return false;
  return slash == std::string::npos || is_dns1123_subdomain(k.substr(0, slash));
}

void check_preemptibility(const JobSpec& spec) {
  if (spec.preemptibility != Preemptibility::kPreemptible || spec.type == JobType::kInteractive) return;
  if (is_distributed(spec.type))
    throw UsageError(fmt::format("--preemptible is not available for {}: {} jobs are preemptible already; drop it "
                                 "(--non-preemptible keeps a job within the project's quota)",
                                 distributed(spec.type).verb, distributed(spec.type).kind));
  throw UsageError("--preemptible applies to interactive jobs (training jobs are preemptible already); add "
                   "--interactive or drop --preemptible");
}

void check_terminal(const JobSpec& spec) {
  if (!one_of(spec.image_pull_policy, {"", "Always", "IfNotPresent", "Never"}))
    throw UsageError("--image-pull-policy '" + spec.image_pull_policy + "': use Always, IfNotPresent or Never");
  if (spec.tty && !spec.stdin_open)
    throw UsageError("-t/--tty needs --stdin (as with runai): add --stdin, or use --attach (tty + stdin)");
  if (spec.attach && !(spec.tty && spec.stdin_open))
    throw UsageError("--attach needs a TTY and stdin (it implies -t --stdin)");
  // A container's working directory is absolute (the OCI runtime spec's process.cwd).
  if (!spec.working_dir.empty() && spec.working_dir[0] != '/')
    throw UsageError("--working-dir '" + spec.working_dir + "' is relative; give an absolute path in the job, e.g. /" +
                     spec.working_dir);
}

void check_batch_fields(const JobSpec& spec) {
  if (spec.backoff_limit) {
    if (*spec.backoff_limit < 0)
      throw UsageError(fmt::format("--backoff-limit {}: use 0 or more (the number of retries)", *spec.backoff_limit));
    if (spec.type == JobType::kInteractive && *spec.backoff_limit != 0)
      throw UsageError("--backoff-limit applies to training jobs: interactive jobs are never retried (backoffLimit 0); "
                       "drop --backoff-limit or --interactive");
  }
  if (spec.completions || spec.parallelism) {
    if (is_distributed(spec.type))
      throw UsageError(fmt::format("--completions/--parallelism are not available for {} (they are batch Job "
                                   "fields); use {} for {} workers",
                                   distributed(spec.type).verb, distributed(spec.type).count_flag,
                                   distributed(spec.type).kind));
    if (spec.type == JobType::kInteractive)
      throw UsageError("--completions/--parallelism apply to training jobs, not --interactive ones; drop one of them");
  }
  if (spec.completions && *spec.completions < 1)
    throw UsageError(fmt::format("--completions {}: use 1 or more", *spec.completions));
  if (spec.parallelism && *spec.parallelism < 1)
    throw UsageError(fmt::format("--parallelism {}: use 1 or more", *spec.parallelism));
  if (spec.parallelism && *spec.parallelism > 1 && !spec.completions)
    throw UsageError(fmt::format("--parallelism {} needs --completions (how many successful runs in all), e.g. "
                                 "--completions {} --parallelism {}",
                                 *spec.parallelism, *spec.parallelism, *spec.parallelism));
  if (spec.ttl_after_finish_seconds && *spec.ttl_after_finish_seconds < 0)
    throw UsageError("--ttl-after-finish: use a duration of 0 or more (e.g. 1h, 30m, 0s)");
  if (!one_of(spec.clean_pod_policy, {"", "Running", "All", "None"}))
    throw UsageError("--clean-pod-policy '" + spec.clean_pod_policy + "': use Running, All or None");
  if (!spec.clean_pod_policy.empty() && !is_distributed(spec.type))
    throw UsageError("--clean-pod-policy applies to submit-mpi and submit-dist only");
}

void check_limits(const JobSpec& spec) {
  check_quantity(spec.cpu_limit, "--cpu-limit", "2 or 500m", false);
  check_quantity(spec.memory_limit, "--memory-limit", "8Gi or 500M", false);
  check_quantity(spec.gpu_memory, "--gpu-memory", "4G or 500M", false);
  check_request_within_limit(spec.memory, "--memory", spec.memory_limit, "--memory-limit");
  check_request_within_limit(spec.cpu, "--cpu", spec.cpu_limit, "--cpu-limit");
  if (!spec.gpu_memory.given()) return;
  if (spec.gpu > 0)
    throw UsageError("--gpu-memory cannot be combined with -g/--gpu: give the GPU share as a memory amount or as a "
                     "GPU count, not both");
  if (gpu_memory_mb(spec.gpu_memory) < kMinGpuMemoryMb)
    throw UsageError(fmt::format("--gpu-memory {}: at least {}M (the annotation counts 10^6 bytes)",
                                 spec.gpu_memory.text(), kMinGpuMemoryMb));
}

void check_placement(const JobSpec& spec) {
  if (!is_label_value(spec.node_pool))
    throw UsageError("--node-pool '" + spec.node_pool +
                     "': a node pool name is a label value (at most 63 letters, digits, '-', '_', '.', "
                     "alphanumeric at both ends)");
  // The value of the nodes' run.ai/type label: a pod selecting anything else is refused by the API server.
  if (!is_label_value(spec.node_type))
    throw UsageError("--node-type '" + spec.node_type +
                     "': a node type is the value of the nodes' run.ai/type label (at most 63 letters, digits, "
                     "'-', '_', '.', alphanumeric at both ends)");
  for (size_t i = 0; i < spec.tolerations.size(); ++i) {
    const Toleration& t = spec.tolerations[i];
    if (!is_label_key(t.key) || !is_label_value(t.value))
      throw UsageError(fmt::format("--toleration #{} '{}': KEY must be a label key and VALUE a label value; use "
                                   "KEY[=VALUE][:EFFECT], e.g. nvidia.com/gpu:NoSchedule or pool=a100:NoExecute",
                                   i + 1, t.key + (t.value.empty() ? "" : "=" + t.value)));
    if (!one_of(t.effect, {"", "NoSchedule", "PreferNoSchedule", "NoExecute"}))
      throw UsageError(fmt::format("--toleration #{}: effect '{}': use NoSchedule, PreferNoSchedule or NoExecute "
                                   "(or leave it out for every effect)",
                                   i + 1, t.effect));
  }
}

// --mig PROFILE: an NVIDIA MIG profile "<slices>g.<memory>gb" (1g.5gb ... 7g.40gb on an A100 40GB,
// 1g.10gb ... 7g.80gb on 80GB parts), a whole GPU slice instead of -g or --gpu-memory.
void check_mig(const JobSpec& spec) {
  if (spec.mig_profile.empty()) return;
  const std::string& p = spec.mig_profile;
  size_t g = p.find("g.");
  bool ok = g == 1 && p[0] >= '1' && p[0] <= '7' && p.size() > 5 && p.compare(p.size() - 2, 2, "gb") == 0;
  for (size_t i = g + 2; ok && i < p.size() - 2; ++i) ok = std::isdigit(static_cast<unsigned char>(p[i])) != 0;
  if (!ok || p[g + 2] == '0')
    throw UsageError("--mig '" + p + "': use an NVIDIA MIG profile such as 1g.5gb, 2g.10gb, 3g.20gb or 7g.40gb");
  if (spec.gpu > 0 || spec.gpu_memory.given())
    throw UsageError("--mig cannot be combined with -g/--gpu or --gpu-memory: a MIG profile is the job's GPU share");
  if (is_distributed(spec.type))
    throw UsageError(fmt::format("--mig is not available for {}; give each worker whole GPUs with -g",
                                 distributed(spec.type).verb));
}

// --label / --annotation: Kubernetes label syntax for keys (and label values); lanectl.io/ is lanectl's own.
void check_metadata(const JobSpec& spec) {
  const char* kKeyRule = "a key is [PREFIX/]NAME, NAME at most 63 letters, digits, '-', '_', '.' (alphanumeric at "
                         "both ends), PREFIX a lowercase DNS subdomain, e.g. team or example.com/stage";
  for (const auto* flag : {"--label", "--annotation"}) {
    const bool label = std::string_view(flag) == "--label";
    size_t bytes = 0;
    for (const auto& [k, v] : label ? spec.labels : spec.annotations) {
      if (!is_label_key(k)) throw UsageError(fmt::format("{} '{}={}': {}", flag, k, v, kKeyRule));
      if (k.rfind("lanectl.io/", 0) == 0)
        throw UsageError(fmt::format("{} '{}': the prefix lanectl.io/ is lanectl's own; choose another key", flag, k));
      if (label && !is_label_value(v))
        throw UsageError(fmt::format("--label '{}={}': a label value is empty or at most 63 letters, digits, '-', "
                                     "'_', '.', alphanumeric at both ends (use --annotation for free text)", k, v));
      bytes += k.size() + v.size();
    }
    if (!label && bytes > 256 * 1024)
      throw UsageError("--annotation: the annotations total more than 256 KiB (the Kubernetes limit); shorten them");
  }
}

void check_run_ai_flags(const JobSpec& spec) {
  check_metadata(spec);
  check_mig(spec);
  check_preemptibility(spec);
  check_terminal(spec);
  check_batch_fields(spec);
  check_limits(spec);
  check_placement(spec);
}

void check_basics(const JobSpec& spec, bool named) {
  if (named) check_name(spec);
  validate_project_name(spec.project, "project (-p)");
  if (spec.image.empty()) throw UsageError("--image (-i) is required, e.g. -i scnn-train");
  check_gpu(spec);
  check_counts(spec);
}

void check_all(const JobSpec& spec, bool named) {
  check_basics(spec, named);
  check_pvcs(spec, named);
  check_host_mounts(spec);
  check_mount_paths(spec);
  check_resources(spec);
  check_env(spec);
  check_ports(spec);
  check_run_ai_flags(spec);
}

}  // namespace

double parse_gpu_quota(const std::string& text) {
  // Digits with at most one '.', and at least one digit: no sign, exponent, hex, inf or nan.
  const bool decimal = !text.empty() && text.size() <= 32 &&
                       std::all_of(text.begin(), text.end(), [](char c) { return (c >= '0' && c <= '9') || c == '.'; }) &&
                       std::count(text.begin(), text.end(), '.') <= 1 && text != ".";
  if (!decimal)
    throw UsageError(fmt::format("--gpu-quota '{}' is not a number of GPUs; use a decimal number from 0 to {:.0f} "
                                 "(e.g. 4 or 0.5)",
                                 text, kMaxGpuQuota));
  const double quota = std::strtod(text.c_str(), nullptr);
  if (!(quota <= kMaxGpuQuota))
    throw UsageError(fmt::format("--gpu-quota {} is more GPUs than a project may have; use a number from 0 to {:.0f}",
                                 text, kMaxGpuQuota));
  return quota;
}

void validate_gpu_quota(double quota) {
  if (!(quota >= 0 && quota <= kMaxGpuQuota))
    throw UsageError(fmt::format("--gpu-quota {} is out of range; use a number from 0 to {:.0f}", quota, kMaxGpuQuota));
}

void validate_project_name(const std::string& name, const std::string& field) {
  require_dns1123_label(name, field);
  const size_t longest = 63 - std::string(kProjectNamespacePrefix).size();
  if (name.size() > longest)
    throw UsageError(fmt::format("invalid {} '{}': at most {} characters, so that its namespace {}{} fits in 63; "
                                 "use a shorter name",
                                 field, name, longest, kProjectNamespacePrefix, name));
}

void validate_job_name_prefix(const std::string& prefix) {
  require_dns1123_label(prefix, "--job-name-prefix");
  require_leading_letter(prefix, "--job-name-prefix");
}

int64_t gpu_memory_mb(const Quantity& quantity) {
  auto bytes = quantity.value();
  return bytes && *bytes >= 0 ? static_cast<int64_t>(*bytes / 1e6) : 0;
}

std::optional<std::string> pvc_size_problem(const Quantity& size) {
  if (!size.value()) {
    auto forms = byte_unit_forms(size.text());
    return fmt::format("size '{}' is not a Kubernetes quantity; use the units Ki, Mi, Gi, Ti (powers of 2) or k, M, "
                       "G, T (powers of 10), e.g. {}",
                       size.text(), forms ? forms->second + " or " + forms->first : "100Gi");
  }
  if (*size.value() < static_cast<double>(kMinPvcBytes))
    return fmt::format("size '{}' is below the smallest volume, 1Mi ({} bytes); give a unit, e.g. 100Gi", size.text(),
                       kMinPvcBytes);
  if (!size.bytes()) return fmt::format("size '{}' is too large; at most 9E (9*10^18 bytes)", size.text());
  return std::nullopt;
}

void validate(const JobSpec& spec) { check_all(spec, true); }

void validate_unnamed(const JobSpec& spec) { check_all(spec, !spec.name.empty()); }

void validate_basics(const JobSpec& spec) { check_basics(spec, !spec.name.empty()); }

}  // namespace lane::submit

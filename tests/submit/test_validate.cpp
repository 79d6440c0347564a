// submit::validate: one message per rule, naming the flag and the fix; the same for every backend.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <limits>

#include <fmt/format.h>

#include "common/error.h"
#include "submit/core/errors.h"
#include "submit/core/validate.h"
#include "submit/core/workload_json.h"

using lane::submit::JobSpec;
using lane::submit::JobType;

namespace {

JobSpec valid_spec() {
  JobSpec s;
  s.name = "train-1";
  s.project = "lane-detection";
  s.image = "scnn-train";
  s.gpu = 1;
  s.pvcs.push_back({true, "", "", "10Gi", "/data", false, false});
  s.pvcs.push_back({false, "pvc-download-tusimple-data-0", "", "", "/mnt", true, false});
  s.volumes.push_back({"/host", "/in", true});
  s.env.push_back({"BATCH_SIZE", "33"});
  s.ports.push_back(lane::submit::parse_port("30080:80"));
  s.service_type = "nodeport";
  s.cpu = "500m";
  s.memory = "2Gi";
  return s;
}

std::string message_of(const JobSpec& s) {
  try {
    lane::submit::validate(s);
  } catch (const lane::UsageError& e) {
    CHECK(e.code() == lane::ExitCode::kUsage);
    return e.what();
  }
  return "";
}

struct Case {
  const char* rule;
  std::function<void(JobSpec&)> change;
  std::string message;  // the whole message: one wording per rule
};

}  // namespace

TEST_CASE("validate: a complete spec passes, single-process and MPI", "[submit][fast]") {
  JobSpec s = valid_spec();
  CHECK_NOTHROW(lane::submit::validate(s));
  s.gpu = 0.5;
  CHECK_NOTHROW(lane::submit::validate(s));
  s.gpu = 0.001;  // the smallest fraction and the largest whole request are the bounds, included
  CHECK_NOTHROW(lane::submit::validate(s));
  s.gpu = 1e6;
  CHECK_NOTHROW(lane::submit::validate(s));
  s.type = JobType::kMpi;
  s.gpu = 2;
  s.processes = 3;
  s.slots_per_worker = 2;
  CHECK_NOTHROW(lane::submit::validate(s));
}

TEST_CASE("validate: each rule has one message naming the flag and the fix", "[submit][fast]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  auto c = GENERATE_COPY(values<Case>({
      {"name", [](JobSpec& s) { s.name = "Bad_Name"; },
       "invalid job name (--name) 'Bad_Name': must be 1-63 lower-case letters, digits or '-', starting and ending "
       "with a letter or digit (e.g. 'my-job-1')"},
      {"name required", [](JobSpec& s) { s.name.clear(); },
       "invalid job name (--name) '': must be 1-63 lower-case letters, digits or '-', starting and ending with a "
       "letter or digit (e.g. 'my-job-1')"},
      {"name starts with a digit", [](JobSpec& s) { s.name = "1job"; },
       "invalid job name (--name) '1job': must start with a letter, as Run:AI requires (e.g. 'job-1job')"},
      {"MPI name without room for its pods", [](JobSpec& s) { s.type = JobType::kMpi; s.processes = 3; s.name = std::string(55, 'm'); },
       "invalid job name (--name) '" + std::string(55, 'm') + "': an MPI job's pods are named " + std::string(55, 'm') +
           "-launcher and " + std::string(55, 'm') + "-worker-N, which must fit in 63 characters; with --processes 3 "
           "use a name of at most 54 characters"},
      {"project without room for runai-", [](JobSpec& s) { s.project = std::string(58, 'p'); },
       "invalid project (-p) '" + std::string(58, 'p') + "': at most 57 characters, so that its namespace runai-" +
           std::string(58, 'p') + " fits in 63; use a shorter name"},
      {"project", [](JobSpec& s) { s.project = "-x"; },
       "invalid project (-p) '-x': must be 1-63 lower-case letters, digits or '-', starting and ending with a "
       "letter or digit (e.g. 'my-job-1')"},
      {"image", [](JobSpec& s) { s.image.clear(); }, "--image (-i) is required, e.g. -i scnn-train"},
      {"gpu negative", [](JobSpec& s) { s.gpu = -1; },
       "--gpu -1: use 0, a fraction below 1 (e.g. 0.5) or a whole number"},
      {"gpu NaN", [nan](JobSpec& s) { s.gpu = nan; },
       "--gpu nan: use 0, a fraction below 1 (e.g. 0.5) or a whole number"},
      {"gpu infinite", [inf](JobSpec& s) { s.gpu = inf; },
       "--gpu inf: at most 1000000 GPUs per process; ask for fewer (e.g. --gpu 8)"},
      {"gpu too many", [](JobSpec& s) { s.gpu = 1e9; },
       "--gpu 1e+09: at most 1000000 GPUs per process; ask for fewer (e.g. --gpu 8)"},
      {"gpu below the smallest fraction", [](JobSpec& s) { s.gpu = 0.0001; },
       "--gpu 0.0001: the smallest GPU fraction is 0.001; use 0 for no GPU or a fraction from 0.001 (e.g. 0.5)"},
      {"fraction above 1", [](JobSpec& s) { s.gpu = 1.5; },
       "--gpu 1.5: a fractional GPU must be below 1 (e.g. 0.5); use a whole number of GPUs above 1"},
      {"MPI fraction", [](JobSpec& s) { s.type = JobType::kMpi; s.gpu = 0.5; s.processes = 2; },
       "--gpu 0.5 cannot be used with --processes: each MPI worker needs whole GPUs (e.g. --gpu 1)"},
      {"processes", [](JobSpec& s) { s.type = JobType::kMpi; s.processes = 0; }, "--processes 0: use 1 or more"},
      {"slots", [](JobSpec& s) { s.slots_per_worker = -2; }, "--slots-per-worker -2: use 1 or more"},
      {"pvc mount path", [](JobSpec& s) { s.pvcs[1].mount_path = "mnt"; },
       "--pvc #2: the mount path 'mnt' must be absolute (e.g. /mnt)"},
      {"pvc size", [](JobSpec& s) { s.pvcs[0].size = "lots"; },
       "--pvc #1: size 'lots' is not a Kubernetes quantity; use the units Ki, Mi, Gi, Ti (powers of 2) or k, M, G, T "
       "(powers of 10), e.g. 100Gi"},
      {"pvc size in GB", [](JobSpec& s) { s.pvcs[0].size = "100GB"; },
       "--pvc #1: size '100GB' is not a Kubernetes quantity; use the units Ki, Mi, Gi, Ti (powers of 2) or k, M, G, "
       "T (powers of 10), e.g. 100Gi or 100G"},
      {"pvc size zero", [](JobSpec& s) { s.pvcs[0].size = "0"; },
       "--pvc #1: size '0' is below the smallest volume, 1Mi (1048576 bytes); give a unit, e.g. 100Gi"},
      {"pvc size in bytes", [](JobSpec& s) { s.pvcs[0].size = "100"; },
       "--pvc #1: size '100' is below the smallest volume, 1Mi (1048576 bytes); give a unit, e.g. 100Gi"},
      {"pvc size too large", [](JobSpec& s) { s.pvcs[0].size = "9Ei"; },
       "--pvc #1: size '9Ei' is too large; at most 9E (9*10^18 bytes)"},
      {"pvc storage class", [](JobSpec& s) { s.pvcs[0].storage_class = "Azure NetApp"; },
       "--pvc #1: storage class 'Azure NetApp' is not a storage class name (lowercase letters, digits, '-' and '.', "
       "at most 253 characters; e.g. azure-netapp-files)"},
      {"pvc storage class dots", [](JobSpec& s) { s.pvcs[0].storage_class = "anf..premium"; },
       "--pvc #1: storage class 'anf..premium' is not a storage class name (lowercase letters, digits, '-' and '.', "
       "at most 253 characters; e.g. azure-netapp-files)"},
      {"pvc claim", [](JobSpec& s) { s.pvcs[1].claim = "Data"; },
       "invalid --pvc #2 claim name 'Data': must be 1-63 lower-case letters, digits or '-', starting and ending "
       "with a letter or digit (e.g. 'my-job-1')"},
      {"generated claim too long", [](JobSpec& s) { s.name = std::string(61, 'a'); },
       "invalid --pvc #1 new claim name (pvc-<job>-0: use a shorter job name) 'pvc-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
       "aaaaaaaaaaaaaaaaaaaaaaaaaaaa-0': must be 1-63 lower-case letters, digits or '-', starting and ending with a "
       "letter or digit (e.g. 'my-job-1')"},
      {"host mount", [](JobSpec& s) { s.volumes[0].container_path = "in"; },
       "-v #1 '/host:in': both paths must be absolute (e.g. -v /data:/data:ro)"},
      {"env name", [](JobSpec& s) { s.env.push_back({"1PASSWORD", "hunter2"}); },
       "-e #2: '1PASSWORD' is not a variable name; use NAME=VALUE with NAME made of letters, digits and '_' (e.g. "
       "-e BATCH_SIZE=33)"},
      {"service type", [](JobSpec& s) { s.service_type = "magic"; },
       "--service-type 'magic': use portforward, loadbalancer, nodeport or ingress"},
      {"service without port", [](JobSpec& s) { s.ports.clear(); }, "--service-type needs at least one --port"},
      {"node port below the range", [](JobSpec& s) { s.ports = {lane::submit::parse_port("8080:80")}; },
       "--port '8080:80': with --service-type nodeport the external port is the node port, which must be "
       "30000-32767 (e.g. --port 30080:80); or give only the container port and Kubernetes picks one"},
      {"node port above the range", [](JobSpec& s) { s.ports = {lane::submit::parse_port("32768:8888")}; },
       "--port '32768:8888': with --service-type nodeport the external port is the node port, which must be "
       "30000-32767 (e.g. --port 30080:8888); or give only the container port and Kubernetes picks one"},
      {"container port twice",
       [](JobSpec& s) { s.ports = {lane::submit::parse_port("30080:8888"), lane::submit::parse_port("30081:8888")}; },
       "--port '30080:8888' and --port '30081:8888' use port 8888 twice; give each --port its own container port and "
       "external port (e.g. --port 8888 --port 6006)"},
      {"service port twice",
       [](JobSpec& s) { s.ports = {lane::submit::parse_port("30080:8888"), lane::submit::parse_port("30080:6006")}; },
       "--port '30080:8888' and --port '30080:6006' use port 30080 twice; give each --port its own container port "
       "and external port (e.g. --port 8888 --port 6006)"},
      {"cpu not a quantity", [](JobSpec& s) { s.cpu = "lots"; },
       "--cpu 'lots': not a Kubernetes quantity; use e.g. 2, 0.5 or 500m (cores)"},
      {"cpu with a byte unit", [](JobSpec& s) { s.cpu = "2GB"; },
       "--cpu '2GB': not a Kubernetes quantity; use e.g. 2, 0.5 or 500m (cores)"},
      {"memory in MB", [](JobSpec& s) { s.memory = "512MB"; },
       "--memory '512MB': not a Kubernetes quantity; use e.g. 512M (10^N bytes) or 512Mi (2^N bytes)"},
      {"memory with a bare B", [](JobSpec& s) { s.memory = "512B"; },
       "--memory '512B': not a Kubernetes quantity; use e.g. 2G or 2Gi (suffixes k M G T P E, Ki Mi Gi Ti Pi Ei)"},
      {"cpu negative", [](JobSpec& s) { s.cpu = "-1"; },
       "--cpu '-1': must not be negative; use e.g. 2, 0.5 or 500m (cores)"},
      {"memory with a B", [](JobSpec& s) { s.memory = "2GB"; },
       "--memory '2GB': not a Kubernetes quantity; use e.g. 2G (10^N bytes) or 2Gi (2^N bytes)"},
      {"memory with KiB", [](JobSpec& s) { s.memory = "512KiB"; },
       "--memory '512KiB': not a Kubernetes quantity; use e.g. 512k (10^N bytes) or 512Ki (2^N bytes)"},
      {"memory lower-case unit", [](JobSpec& s) { s.memory = "2gi"; },
       "--memory '2gi': not a Kubernetes quantity; use e.g. 2G or 2Gi (suffixes k M G T P E, Ki Mi Gi Ti Pi Ei)"},
      {"shm size", [](JobSpec& s) { s.large_shm = true; s.shm_size = "8 GB"; },
       "--shm-size '8 GB': not a Kubernetes quantity; use e.g. 8Gi"},
      {"host path with ..", [](JobSpec& s) { s.volumes[0].host_path = "/data/../etc"; },
       "-v #1 '/data/../etc:/in': the host path must not contain '..'; write the directory it means without it "
       "(e.g. -v /data:/data)"},
      {"pvc mount path with ..", [](JobSpec& s) { s.pvcs[0].mount_path = "/mnt/.."; },
       "--pvc #1: the mount path '/mnt/..' must not contain '..'; write the directory it means (e.g. /mnt/data)"},
      {"container path with ..", [](JobSpec& s) { s.volumes[0].container_path = "/in/../x"; },
       "-v #1: the mount path '/in/../x' must not contain '..'; write the directory it means (e.g. /mnt/data)"},
      {"mount at /", [](JobSpec& s) { s.pvcs[1].mount_path = "/"; },
       "--pvc #2: the mount path '/' would hide the image's whole filesystem; mount under a directory such as /mnt"},
      {"mount at //", [](JobSpec& s) { s.volumes[0].container_path = "//"; },
       "-v #1: the mount path '//' would hide the image's whole filesystem; mount under a directory such as /mnt"},
      {"two claims at one path", [](JobSpec& s) { s.pvcs[1].mount_path = "/data/"; },
       "--pvc #1 and --pvc #2 both mount at '/data/'; give each a different mount path"},
      {"a claim and a host path at one path", [](JobSpec& s) { s.volumes[0].container_path = "/mnt"; },
       "--pvc #2 and -v #1 both mount at '/mnt'; give each a different mount path"},
      {"a host path at /dev/shm with --large-shm", [](JobSpec& s) { s.large_shm = true; s.volumes[0].container_path = "/dev/shm"; },
       "-v #1 and --large-shm both mount at '/dev/shm'; give each a different mount path"},
  }));
  INFO("rule: " << c.rule);
  JobSpec s = valid_spec();
  c.change(s);
  CHECK(message_of(s) == c.message);
}

TEST_CASE("validate: an MPI job's name leaves room for -launcher and -worker-N, whatever the process count", "[submit][fast]") {
  auto [processes, longest] = GENERATE(table<int, size_t>({{1, 54}, {2, 54}, {10, 54}, {11, 53}, {100, 53}, {101, 52}}));
  INFO("--processes " << processes);
  JobSpec s = valid_spec();
  s.type = JobType::kMpi;
  s.processes = processes;
  s.name = "m" + std::string(longest - 1, 'a');
  CHECK_NOTHROW(lane::submit::validate(s));  // the longest name still fits
  s.name += "a";
  CHECK_THROWS_WITH(lane::submit::validate(s),
                    Catch::Contains(fmt::format("with --processes {} use a name of at most {} characters", processes,
                                                longest)));
  s.type = JobType::kTrain;  // a single-process job has no such pods: the 63-character label rule only
  s.processes = 1;
  CHECK_NOTHROW(lane::submit::validate(s));
}

TEST_CASE("validate: what the new path and quantity rules still accept", "[submit][fast]") {
  JobSpec s = valid_spec();
  s.ports = {lane::submit::parse_port("30000:80"), lane::submit::parse_port("32767:81"),
             lane::submit::parse_port("8888")};  // the node port range's ends; a bare port lets Kubernetes pick
  s.volumes[0].host_path = "/data/..hidden/x..y";  // '..' inside a name is not a backstep
  s.volumes[0].container_path = "/in/...";
  s.cpu = "1.5";
  s.memory = "1e9";
  s.large_shm = true;
  s.shm_size = "8Gi";
  CHECK_NOTHROW(lane::submit::validate(s));
  s.service_type = "loadbalancer";  // the node port range is a nodeport rule only
  s.ports = {lane::submit::parse_port("8080:80")};
  CHECK_NOTHROW(lane::submit::validate(s));
  s.large_shm = false;
  s.volumes[0].container_path = "/dev/shm";  // without --large-shm /dev/shm is free
  CHECK_NOTHROW(lane::submit::validate(s));
}

TEST_CASE("validate: a job name that is not a DNS-1035 label (the Service's name) is refused with --port", "[submit][fast]") {
  JobSpec s = valid_spec();
  s.name = "1job";  // a DNS-1123 label but not DNS-1035: the job-name rule covers the Service's name
  CHECK(message_of(s) == "invalid job name (--name) '1job': must start with a letter, as Run:AI requires (e.g. 'job-1job')");
}

TEST_CASE("validate_project_name: a DNS-1123 label that leaves room for runai- (57 characters)", "[submit][fast]") {
  using lane::submit::validate_project_name;
  CHECK_NOTHROW(validate_project_name(std::string(57, 'p'), "project name"));
  CHECK_NOTHROW(validate_project_name("0-lanes", "project name"));  // projects may start with a digit
  CHECK_THROWS_WITH(validate_project_name(std::string(58, 'p'), "project name"),
                    "invalid project name '" + std::string(58, 'p') + "': at most 57 characters, so that its "
                    "namespace runai-" + std::string(58, 'p') + " fits in 63; use a shorter name");
  CHECK_THROWS_WITH(validate_project_name("Lanes", "project name"), Catch::StartsWith("invalid project name 'Lanes': must be 1-63"));
}

TEST_CASE("validate_job_name_prefix: the generated names follow the job name rules", "[submit][fast]") {
  using lane::submit::validate_job_name_prefix;
  CHECK_NOTHROW(validate_job_name_prefix("job"));
  CHECK_NOTHROW(validate_job_name_prefix("train-2"));
  CHECK_THROWS_WITH(validate_job_name_prefix("2train"),
                    "invalid --job-name-prefix '2train': must start with a letter, as Run:AI requires (e.g. 'job-2train')");
  CHECK_THROWS_WITH(validate_job_name_prefix("Job"), Catch::StartsWith("invalid --job-name-prefix 'Job': must be 1-63"));
}

TEST_CASE("validate_unnamed: the name may be picked later, every other rule still applies", "[submit][fast]") {
  JobSpec s = valid_spec();
  s.name.clear();
  CHECK_NOTHROW(lane::submit::validate_unnamed(s));
  s.gpu = 1.5;
  CHECK_THROWS_WITH(lane::submit::validate_unnamed(s), Catch::Contains("fractional GPU must be below 1"));
  s = valid_spec();
  s.name = "Bad";
  CHECK_THROWS_WITH(lane::submit::validate_unnamed(s), Catch::StartsWith("invalid job name (--name) 'Bad'"));
}

TEST_CASE("port mappings: [EXTERNAL:]CONTAINER with ports 1-65535", "[submit][fast]") {
  using lane::submit::parse_port_mapping;
  auto [text, external, container] = GENERATE(table<std::string, int, int>({
      {"80", 80, 80}, {"8080:80", 8080, 80}, {"65535:1", 65535, 1},
      {"0", 0, 0}, {"65536", 0, 0}, {"", 0, 0}, {":80", 0, 0}, {"80:", 0, 0}, {"8a", 0, 0},
      {"1:2:3", 0, 0}, {"-1", 0, 0}, {"123456", 0, 0}}));
  INFO("port: '" << text << "'");
  auto m = parse_port_mapping(text);
  if (external == 0) {
    CHECK_FALSE(m);
    // The port range and form rules, now the parser's (a spec holds parsed ports).
    CHECK_THROWS_WITH(lane::submit::parse_port(text),
                      "--port '" + text + "': use CONTAINER or EXTERNAL:CONTAINER with ports 1-65535");
  } else {
    REQUIRE(m);
    CHECK(m->external == external);
    CHECK(m->container == container);
    CHECK(m->external_given == (text.find(':') != std::string::npos));
    CHECK(to_string(*m) == text);  // stored specs keep the text as written
  }
}

TEST_CASE("variable names: letters, digits and '_', not starting with a digit", "[submit][fast]") {
  auto [name, ok] = GENERATE(table<std::string, bool>({{"A", true}, {"_x1", true}, {"BATCH_SIZE", true},
                                                       {"", false}, {"1A", false}, {"A-B", false}, {"A=B", false}}));
  CHECK(lane::submit::is_env_name(name) == ok);
}

TEST_CASE("AlreadyExists: a usage error (exit 2) every backend throws with one wording", "[submit][fast]") {
  auto e = lane::submit::job_name_taken("dup", "team");
  const lane::UsageError& as_usage = e;
  CHECK(as_usage.code() == lane::ExitCode::kUsage);
  CHECK(std::string(e.what()) ==
        "job 'dup' already exists in project 'team'; choose another --name or delete it with "
        "`lanectl delete job dup -p team`");
  CHECK_THROWS_AS(throw e, lane::submit::AlreadyExists);
}

// ---- The Run:AI flags of issue 17 ----

namespace {

// valid_spec() with every Run:AI flag that a training job takes set to a valid value.
JobSpec run_ai_spec() {
  JobSpec s = valid_spec();
  s.image_pull_policy = "IfNotPresent";
  s.tty = s.stdin_open = s.attach = true;
  s.backoff_limit = 0;
  s.completions = 4;
  s.parallelism = 2;
  s.ttl_after_finish_seconds = 0;
  s.cpu = "500m";
  s.cpu_limit = "1.5";
  s.memory = "1Gi";
  s.memory_limit = "2Gi";
  s.node_pool = "a100_pool.1";
  s.node_type = "dgx-a100";
  s.pvcs[0].storage_class = "anf.premium-1";
  s.tolerations = {{"nvidia.com/gpu", "", "NoSchedule"}, {"pool", "a100", ""}};
  s.host_ipc = s.host_network = true;
  return s;
}

}  // namespace

TEST_CASE("validate: the Run:AI flags pass when well formed", "[submit][fast]") {
  using lane::submit::Preemptibility;
  JobSpec s = run_ai_spec();
  s.preemptibility = Preemptibility::kNonPreemptible;
  CHECK_NOTHROW(lane::submit::validate(s));
  s.gpu = 0;
  s.gpu_memory = "100M";  // the smallest amount is included
  CHECK_NOTHROW(lane::submit::validate(s));
  CHECK(lane::submit::gpu_memory_mb("4G") == 4000);
  CHECK(lane::submit::gpu_memory_mb("1Gi") == 1073);
  s.type = JobType::kInteractive;
  s.completions.reset();
  s.parallelism.reset();
  s.preemptibility = Preemptibility::kPreemptible;
  CHECK_NOTHROW(lane::submit::validate(s));
  s.type = JobType::kMpi;
  s.preemptibility = Preemptibility::kNonPreemptible;
  s.clean_pod_policy = "All";
  s.gpu_memory = {};
  s.gpu = 1;
  CHECK_NOTHROW(lane::submit::validate(s));
}

TEST_CASE("validate: each Run:AI flag rule has one message naming the flag and the fix", "[submit][fast]") {
  using lane::submit::Preemptibility;
  auto c = GENERATE(values<Case>({
      {"preemptible training", [](JobSpec& s) { s.preemptibility = Preemptibility::kPreemptible; },
       "--preemptible applies to interactive jobs (training jobs are preemptible already); add --interactive or "
       "drop --preemptible"},
      {"preemptible MPI", [](JobSpec& s) { s.type = JobType::kMpi; s.preemptibility = Preemptibility::kPreemptible; },
       "--preemptible is not available for submit-mpi: MPI jobs are preemptible already; drop it (--non-preemptible "
       "keeps a job within the project's quota)"},
      {"pull policy", [](JobSpec& s) { s.image_pull_policy = "always"; },
       "--image-pull-policy 'always': use Always, IfNotPresent or Never"},
      {"tty without stdin", [](JobSpec& s) { s.tty = true; },
       "-t/--tty needs --stdin (as with runai): add --stdin, or use --attach (tty + stdin)"},
      {"backoff negative", [](JobSpec& s) { s.backoff_limit = -1; },
       "--backoff-limit -1: use 0 or more (the number of retries)"},
      {"backoff interactive", [](JobSpec& s) { s.type = JobType::kInteractive; s.backoff_limit = 2; },
       "--backoff-limit applies to training jobs: interactive jobs are never retried (backoffLimit 0); drop "
       "--backoff-limit or --interactive"},
      {"parallelism without completions", [](JobSpec& s) { s.parallelism = 3; },
       "--parallelism 3 needs --completions (how many successful runs in all), e.g. --completions 3 --parallelism 3"},
      {"completions zero", [](JobSpec& s) { s.completions = 0; }, "--completions 0: use 1 or more"},
      {"parallelism zero", [](JobSpec& s) { s.completions = 1; s.parallelism = 0; }, "--parallelism 0: use 1 or more"},
      {"completions MPI", [](JobSpec& s) { s.type = JobType::kMpi; s.completions = 2; },
       "--completions/--parallelism are not available for submit-mpi (they are batch Job fields); use --processes "
       "for MPI workers"},
      {"completions interactive", [](JobSpec& s) { s.type = JobType::kInteractive; s.completions = 2; },
       "--completions/--parallelism apply to training jobs, not --interactive ones; drop one of them"},
      {"ttl negative", [](JobSpec& s) { s.ttl_after_finish_seconds = -5; },
       "--ttl-after-finish: use a duration of 0 or more (e.g. 1h, 30m, 0s)"},
      {"clean pod policy value", [](JobSpec& s) { s.type = JobType::kMpi; s.clean_pod_policy = "Some"; },
       "--clean-pod-policy 'Some': use Running, All or None"},
      {"clean pod policy not MPI", [](JobSpec& s) { s.clean_pod_policy = "All"; },
       "--clean-pod-policy applies to submit-mpi and submit-dist only"},
      {"cpu limit", [](JobSpec& s) { s.cpu_limit = "lots"; },
       "--cpu-limit 'lots': not a Kubernetes quantity; use e.g. 2 or 500m"},
      {"memory limit", [](JobSpec& s) { s.memory_limit = "2GB"; },
       "--memory-limit '2GB': not a Kubernetes quantity; use e.g. 8Gi or 500M"},
      {"gpu memory quantity", [](JobSpec& s) { s.gpu = 0; s.gpu_memory = "4 GB"; },
       "--gpu-memory '4 GB': not a Kubernetes quantity; use e.g. 4G or 500M"},
      {"memory request above limit", [](JobSpec& s) { s.memory = "4Gi"; s.memory_limit = "2Gi"; },
       "--memory 4Gi is above --memory-limit 2Gi; the request must not exceed the limit"},
      {"cpu request above limit", [](JobSpec& s) { s.cpu = "2"; s.cpu_limit = "1500m"; },
       "--cpu 2 is above --cpu-limit 1500m; the request must not exceed the limit"},
      {"gpu memory with -g", [](JobSpec& s) { s.gpu_memory = "4G"; },
       "--gpu-memory cannot be combined with -g/--gpu: give the GPU share as a memory amount or as a GPU count, not "
       "both"},
      {"gpu memory too small", [](JobSpec& s) { s.gpu = 0; s.gpu_memory = "99M"; },
       "--gpu-memory 99M: at least 100M (the annotation counts 10^6 bytes)"},
      {"node pool", [](JobSpec& s) { s.node_pool = "-pool"; },
       "--node-pool '-pool': a node pool name is a label value (at most 63 letters, digits, '-', '_', '.', "
       "alphanumeric at both ends)"},
      {"node type", [](JobSpec& s) { s.node_type = "dgx a100"; },
       "--node-type 'dgx a100': a node type is the value of the nodes' run.ai/type label (at most 63 letters, "
       "digits, '-', '_', '.', alphanumeric at both ends)"},
      {"toleration key", [](JobSpec& s) { s.tolerations = {{"bad key", "", "NoSchedule"}}; },
       "--toleration #1 'bad key': KEY must be a label key and VALUE a label value; use KEY[=VALUE][:EFFECT], e.g. "
       "nvidia.com/gpu:NoSchedule or pool=a100:NoExecute"},
      {"toleration prefix", [](JobSpec& s) { s.tolerations = {{"Example.com/gpu", "x", ""}}; },
       "--toleration #1 'Example.com/gpu=x': KEY must be a label key and VALUE a label value; use "
       "KEY[=VALUE][:EFFECT], e.g. nvidia.com/gpu:NoSchedule or pool=a100:NoExecute"},
      {"toleration effect", [](JobSpec& s) { s.tolerations = {{"gpu", "", "NoExec"}}; },
       "--toleration #1: effect 'NoExec': use NoSchedule, PreferNoSchedule or NoExecute (or leave it out for every "
       "effect)"},
  }));
  INFO("rule: " << c.rule);
  JobSpec s = valid_spec();
  c.change(s);
  CHECK(message_of(s) == c.message);
}

TEST_CASE("preemptibility and the TYPE label: interactive jobs only when asked, others unless asked", "[submit][fast]") {
  using lane::submit::Preemptibility;
  JobSpec s = valid_spec();
  CHECK(lane::submit::is_preemptible(s));
  CHECK(lane::submit::type_label(s) == "Train");
  s.preemptibility = Preemptibility::kNonPreemptible;
  CHECK_FALSE(lane::submit::is_preemptible(s));
  s.type = JobType::kInteractive;
  s.preemptibility = Preemptibility::kDefault;
  CHECK_FALSE(lane::submit::is_preemptible(s));
  CHECK(lane::submit::type_label(s) == "Interactive");
  s.preemptibility = Preemptibility::kPreemptible;
  CHECK(lane::submit::is_preemptible(s));
  CHECK(lane::submit::type_label(s) == "Interactive-Preemptible");
}

TEST_CASE("stored specs: the Run:AI fields round-trip, and a spec stored without them loads with defaults", "[submit][fast]") {
  using lane::submit::Preemptibility;
  JobSpec s = valid_spec();
  const auto plain = lane::submit::spec_to_json(s);
  for (const char* key : {"preemptibility", "imagePullPolicy", "tty", "backoffLimit", "ttlSecondsAfterFinished",
                          "tolerations", "runAsUser", "hostIPC", "cleanPodPolicy", "migProfile", "elastic",
                          "preventPrivilegeEscalation", "createHomeDir"})
    CHECK_FALSE(plain.contains(key));  // unset fields are not written: older specs keep their JSON
  JobSpec old = lane::submit::spec_from_json(plain);
  CHECK(old.preemptibility == Preemptibility::kDefault);
  CHECK_FALSE(old.backoff_limit.has_value());
  CHECK_FALSE(old.ttl_after_finish_seconds.has_value());
  CHECK(old.tolerations.empty());

  s = run_ai_spec();
  s.preemptibility = Preemptibility::kNonPreemptible;
  s.ttl_after_finish_seconds = 90;
  s.gpu_memory = "4G";
  s.run_as_uid = 1000;
  s.run_as_gid = 100;
  s.clean_pod_policy = "All";
  s.mig_profile = "1g.5gb";
  s.elastic = s.prevent_privilege_escalation = s.create_home_dir = true;
  const auto j = lane::submit::spec_to_json(s);
  CHECK(j["backoffLimit"] == 0);  // 0 is a value, not "unset"
  JobSpec back = lane::submit::spec_from_json(j);
  CHECK(back.preemptibility == Preemptibility::kNonPreemptible);
  CHECK(back.image_pull_policy == "IfNotPresent");
  CHECK((back.tty && back.stdin_open && back.attach));
  CHECK(back.backoff_limit == 0);
  CHECK(back.completions == 4);
  CHECK(back.parallelism == 2);
  CHECK(back.ttl_after_finish_seconds == 90);
  CHECK(back.cpu_limit == "1.5");
  CHECK(back.memory_limit == "2Gi");
  CHECK(back.gpu_memory == "4G");
  CHECK(back.node_pool == "a100_pool.1");
  REQUIRE(back.tolerations.size() == 2);
  CHECK(back.tolerations[0].key == "nvidia.com/gpu");
  CHECK(back.tolerations[0].effect == "NoSchedule");
  CHECK(back.tolerations[1].value == "a100");
  CHECK(back.run_as_uid == 1000);
  CHECK(back.run_as_gid == 100);
  CHECK((back.host_ipc && back.host_network));
  CHECK(back.clean_pod_policy == "All");
  CHECK(back.mig_profile == "1g.5gb");
  CHECK((back.elastic && back.prevent_privilege_escalation && back.create_home_dir));
  CHECK(lane::submit::spec_to_json(back) == j);
}

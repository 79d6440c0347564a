// The quantity and duration flags of submit, in-process: they bind into typed spec values
// (submit::Quantity, seconds), and each bad value is a usage error (exit 2) naming the flag.
#include <catch2/catch.hpp>

#include "fake_backend.h"
#include "submit/core/workload_json.h"

using lane::test::FakeBackend;

namespace {

using lane::test::CliResult;
using lane::test::run_in_process;

// A submit of job x that must fail: its whole error line, and nothing submitted.
std::string submit_error(std::vector<std::string> flags) {
  FakeBackend b;
  flags.insert(flags.begin(), {"submit", "x"});
  const CliResult r = run_in_process(b, flags);
  CHECK(r.code == 2);
  CHECK(r.out == "");
  CHECK(b.calls.empty());
  return r.err;
}

const char* kPvcForms =
    "; use [StorageClass]:Size:MountPath[:ro] for a new volume (e.g. :10Gi:/mnt) or ExistingClaim:MountPath[:ro] "
    "(e.g. pvc-download-tusimple-data-0:/mnt)\n";

}  // namespace

TEST_CASE("submit flags: quantities and the TTL bind as typed values, kept as written", "[cli][fast]") {
  FakeBackend b;
  const CliResult r = run_in_process(b, {"submit", "x", "-i", "busybox", "--cpu", "500m", "--memory", "1.5Gi", "--large-shm",
                           "--shm-size", "1024Mi", "--cpu-limit", "2", "--memory-limit", "2G", "--gpu-memory", "4e9",
                           "--pvc", "fast:0.5Ti:/data", "--ttl-after-finish", "1h30m"});
  REQUIRE(r.code == 0);
  const auto& spec = b.jobs_by_key.at("default/x").spec;
  CHECK(*spec.cpu.value() == Approx(0.5));
  CHECK(*spec.memory.bytes() == 3ull << 29);
  CHECK(*spec.shm_size.bytes() == 1ull << 30);
  CHECK(*spec.cpu_limit.value() == Approx(2));
  CHECK(*spec.memory_limit.bytes() == 2000000000ull);
  CHECK(*spec.gpu_memory.value() == Approx(4e9));
  CHECK(*spec.pvcs.at(0).size.bytes() == 1ull << 39);
  CHECK(spec.ttl_after_finish_seconds == 5400);
  // The stored spec carries the text as given.
  const auto j = lane::submit::spec_to_json(spec);
  CHECK(j["cpu"] == "500m");
  CHECK(j["memory"] == "1.5Gi");
  CHECK(j["shmSize"] == "1024Mi");
  CHECK(j["cpuLimit"] == "2");
  CHECK(j["memoryLimit"] == "2G");
  CHECK(j["gpuMemory"] == "4e9");
  CHECK(j["pvcs"][0]["size"] == "0.5Ti");
  CHECK(j["ttlSecondsAfterFinished"] == 5400);
}

TEST_CASE("submit flags: each bad quantity or duration is a usage error naming the flag", "[cli][fast]") {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--cpu", "lots"}, "--cpu 'lots': not a Kubernetes quantity; use e.g. 2, 0.5 or 500m (cores)"},
      {{"--cpu", "-1"}, "--cpu '-1': must not be negative; use e.g. 2, 0.5 or 500m (cores)"},
      {{"--memory", "2GB"}, "--memory '2GB': not a Kubernetes quantity; use e.g. 2G (10^N bytes) or 2Gi (2^N bytes)"},
      {{"--large-shm", "--shm-size", "8 GB"}, "--shm-size '8 GB': not a Kubernetes quantity; use e.g. 8Gi"},
      {{"--cpu-limit", "lots"}, "--cpu-limit 'lots': not a Kubernetes quantity; use e.g. 2 or 500m"},
      {{"--memory-limit", "2GB"}, "--memory-limit '2GB': not a Kubernetes quantity; use e.g. 8Gi or 500M"},
      {{"--gpu-memory", "4 GB"}, "--gpu-memory '4 GB': not a Kubernetes quantity; use e.g. 4G or 500M"},
      {{"--gpu-memory", "99M"}, "--gpu-memory 99M: at least 100M (the annotation counts 10^6 bytes)"},
      {{"--memory", "4Gi", "--memory-limit", "2Gi"},
       "--memory 4Gi is above --memory-limit 2Gi; the request must not exceed the limit"},
      {{"--cpu", "2", "--cpu-limit", "1500m"}, "--cpu 2 is above --cpu-limit 1500m; the request must not exceed the limit"},
      {{"--ttl-after-finish", "10"},
       "--ttl-after-finish '10' is not a duration; use a number with a unit s, m, h or d (e.g. 30s, 10m, 1h30m, 0s)"},
      {{"--ttl-after-finish", "1x"},
       "--ttl-after-finish '1x' is not a duration; use a number with a unit s, m, h or d (e.g. 30s, 10m, 1h30m, 0s)"},
  };
  for (const auto& [flags, message] : cases) {
    INFO(message);
    std::vector<std::string> args = {"-i", "busybox"};
    args.insert(args.end(), flags.begin(), flags.end());
    CHECK(submit_error(args) == "lanectl: error: " + message + "\n");
  }
  // The order is unchanged: a missing image first, then the TTL's syntax, then the quantities.
  CHECK(submit_error({"--cpu", "lots"}) == "lanectl: error: --image (-i) is required, e.g. -i scnn-train\n");
  CHECK(submit_error({"-i", "busybox", "--cpu", "lots", "--ttl-after-finish", "10"}).find("--ttl-after-finish '10'") !=
        std::string::npos);
}

TEST_CASE("submit --pvc: a size that is no quantity or below 1Mi is named, with the units", "[cli][fast]") {
  CHECK(submit_error({"-i", "busybox", "--pvc", "azurenetappfiles:100GB:/mnt"}) ==
        "lanectl: error: --pvc 'azurenetappfiles:100GB:/mnt': size '100GB' is not a Kubernetes quantity; use the "
        "units Ki, Mi, Gi, Ti (powers of 2) or k, M, G, T (powers of 10), e.g. 100Gi or 100G" +
            std::string(kPvcForms));
  CHECK(submit_error({"-i", "busybox", "--pvc", "azurenetappfiles:100:/mnt"}) ==
        "lanectl: error: --pvc 'azurenetappfiles:100:/mnt': size '100' is below the smallest volume, 1Mi (1048576 "
        "bytes); give a unit, e.g. 100Gi" +
            std::string(kPvcForms));
  CHECK(submit_error({"-i", "busybox", "--pvc", ":lots:/mnt:ro"}) ==
        "lanectl: error: --pvc ':lots:/mnt:ro': size 'lots' is not a Kubernetes quantity; use the units Ki, Mi, Gi, "
        "Ti (powers of 2) or k, M, G, T (powers of 10), e.g. 100Gi" +
            std::string(kPvcForms));
  // An existing claim's bad mode is still named as such.
  CHECK(submit_error({"-i", "busybox", "--pvc", "claim:/mnt:maybe"}) ==
        "lanectl: error: --pvc 'claim:/mnt:maybe': the last part must be 'ro' or 'rw', not 'maybe'" +
            std::string(kPvcForms));
  FakeBackend b;
  REQUIRE(run_in_process(b, {"submit", "x", "-i", "busybox", "--pvc", "azurenetappfiles:1Mi:/mnt"}).code == 0);
  CHECK(b.jobs_by_key.at("default/x").spec.pvcs.at(0).size.text() == "1Mi");
}

TEST_CASE("a single-valued option given twice names the option", "[cli][fast]") {
  CHECK(submit_error({"-i", "busybox", "-p", "a", "-p", "b"}) ==
        "lanectl: error: -p/--project was given 2 times; it takes one value: give it once; see `lanectl submit "
        "--help`\n");
  CHECK(submit_error({"-i", "busybox", "--cpu", "1", "--cpu", "2", "--cpu", "3"}) ==
        "lanectl: error: --cpu was given 3 times; it takes one value: give it once; see `lanectl submit --help`\n");
  FakeBackend b;
  const CliResult r = run_in_process(b, {"list", "--project", "a", "-p", "b"});
  CHECK(r.code == 2);
  CHECK(r.err == "lanectl: error: -p/--project was given 2 times; it takes one value: give it once; see `lanectl "
                 "list --help`\n");
}

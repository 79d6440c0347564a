// The typed values of a spec: quantities (submit::Quantity: the text as written and its value,
// parsed once) and durations (--ttl-after-finish), in validate, the stored JSON and the --pvc size.
#include <catch2/catch.hpp>

#include <string>

#include "common/error.h"
#include "submit/core/duration.h"
#include "submit/core/quantity.h"
#include "submit/core/validate.h"
#include "submit/core/workload_json.h"

using namespace lane::submit;

TEST_CASE("Quantity: the text as written, its value parsed once, bytes rounded up", "[submit][fast]") {
  const Quantity cpu("500m");
  CHECK(cpu.given());
  CHECK(cpu.text() == "500m");
  CHECK(*cpu.value() == Approx(0.5));
  CHECK(*cpu.bytes() == 1);
  CHECK(*Quantity("1.5Gi").bytes() == 3ull << 29);
  CHECK(*Quantity("1e3").value() == Approx(1000));
  // Not a quantity: the text is kept for validate's message, and there is no value.
  const Quantity bad("2GB");
  CHECK(bad.given());
  CHECK(bad.text() == "2GB");
  CHECK_FALSE(bad.value());
  CHECK_FALSE(bad.bytes());
  CHECK_FALSE(Quantity("-1Gi").bytes());  // a value, but no size
  CHECK(*Quantity("-1Gi").value() < 0);
  const Quantity none;
  CHECK_FALSE(none.given());
  CHECK(none.text().empty());
  CHECK_FALSE(none.value());
  CHECK(Quantity("") == none);
  // Equal when written the same: the JSON and the Kubernetes objects carry the text.
  CHECK(Quantity("1Gi") == Quantity("1Gi"));
  CHECK_FALSE(Quantity("1Gi") == Quantity("1024Mi"));
}

TEST_CASE("typed quantities: a stored spec reads back into the same bytes, however its sizes are written", "[submit][fast]") {
  // Spellings a user may give, kept as given (not normalised), and a spec stored before the
  // Run:AI fields (no limits, empty cpu/memory/shmSize), and a text validate would refuse.
  for (const char* stored : {
           R"json({"args":[],"cliArgv":[],"command":[],"cpu":"","env":[],"gpu":0.0,"image":"","largeShm":false,"memory":"","name":"","nodeType":"","ports":[],"processes":1,"project":"","pvcs":[],"serviceType":"","shmSize":"","slotsPerWorker":1,"type":"Train","user":"","volumes":[],"workingDir":""})json",
           R"json({"args":[],"cliArgv":[],"command":[],"cpu":"+1.50","cpuLimit":"2000m","env":[],"gpu":0.0,"gpuMemory":"4e9","image":"scnn-train","largeShm":true,"memory":"1.5Gi","memoryLimit":"2G","name":"j","nodeType":"","ports":[],"processes":1,"project":"p","pvcs":[{"claim":"","create":true,"mountPath":"/data","readOnly":false,"size":"0.5Ti","storageClass":""}],"serviceType":"","shmSize":"1024Mi","slotsPerWorker":1,"ttlSecondsAfterFinished":0,"type":"Train","user":"","volumes":[],"workingDir":""})json",
           R"json({"args":[],"cliArgv":[],"command":[],"cpu":"lots","env":[],"gpu":0.0,"image":"","largeShm":false,"memory":"2GB","name":"","nodeType":"","ports":[],"processes":1,"project":"","pvcs":[],"serviceType":"","shmSize":"","slotsPerWorker":1,"type":"Train","user":"","volumes":[],"workingDir":""})json"}) {
    INFO(stored);
    const JobSpec spec = spec_from_json(nlohmann::json::parse(stored));
    CHECK(spec_to_json(spec).dump() == stored);
  }
  const JobSpec spec = spec_from_json(nlohmann::json::parse(
      R"json({"cpu":"+1.50","memory":"1.5Gi","gpuMemory":"4e9","pvcs":[{"create":true,"size":"0.5Ti","mountPath":"/d"}]})json"));
  CHECK(*spec.cpu.value() == Approx(1.5));
  CHECK(*spec.memory.bytes() == 3ull << 29);
  CHECK(gpu_memory_mb(spec.gpu_memory) == 4000);
  CHECK(*spec.pvcs[0].size.bytes() == 1ull << 39);
}

TEST_CASE("pvc sizes: at least 1Mi, a unit named when the size is none", "[submit][fast]") {
  CHECK_FALSE(pvc_size_problem("1Mi"));
  CHECK_FALSE(pvc_size_problem("1048576"));
  CHECK_FALSE(pvc_size_problem("100Gi"));
  CHECK_FALSE(pvc_size_problem("2G"));
  CHECK(pvc_size_problem("1048575") ==
        "size '1048575' is below the smallest volume, 1Mi (1048576 bytes); give a unit, e.g. 100Gi");
  CHECK(pvc_size_problem("1Ki") == "size '1Ki' is below the smallest volume, 1Mi (1048576 bytes); give a unit, e.g. 100Gi");
  CHECK(pvc_size_problem("-1Gi") ==
        "size '-1Gi' is below the smallest volume, 1Mi (1048576 bytes); give a unit, e.g. 100Gi");
  CHECK(pvc_size_problem("512MiB") == "size '512MiB' is not a Kubernetes quantity; use the units Ki, Mi, Gi, Ti "
                                      "(powers of 2) or k, M, G, T (powers of 10), e.g. 512Mi or 512M");
  CHECK(pvc_size_problem("") == "size '' is not a Kubernetes quantity; use the units Ki, Mi, Gi, Ti (powers of 2) "
                                "or k, M, G, T (powers of 10), e.g. 100Gi");
}

TEST_CASE("durations: --ttl-after-finish parsed in core, with its message", "[submit][fast]") {
  CHECK(parse_ttl_after_finish("0") == 0);
  CHECK(parse_ttl_after_finish("0s") == 0);
  CHECK(parse_ttl_after_finish("1h30m") == 5400);
  CHECK(parse_ttl_after_finish("2d") == 172800);
  for (const char* bad : {"", "10", "1x", "h", "-5s", "1.5h"}) {
    INFO(bad);
    try {
      parse_ttl_after_finish(bad);
      FAIL("accepted");
    } catch (const lane::UsageError& e) {
      CHECK(e.code() == lane::ExitCode::kUsage);
      CHECK(std::string(e.what()) == "--ttl-after-finish '" + std::string(bad) +
                                         "' is not a duration; use a number with a unit s, m, h or d (e.g. 30s, "
                                         "10m, 1h30m, 0s)");
    }
  }
}

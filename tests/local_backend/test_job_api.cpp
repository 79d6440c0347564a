// The job API end to end: a local job asks its supervisor for the end-of-training snapshot of
// its claim (`lanectl __training-snapshot`, as scnn-train runs it), which the supervisor takes
// through the state and the Storage role alone.
#include <catch2/catch.hpp>

#include "support/lanectl_runner.h"

using lane::test::Lanectl;

TEST_CASE("a local job's end-of-training snapshot is taken by its supervisor through the job API", "[local_backend][fast]") {
  Lanectl l;
  const std::string script =
      "set -e; mkdir -p /mnt/out;"
      " printf '{\"kind\":\"train\",\"step\":1,\"loss\":0.5}\\n' > /mnt/out/metrics.jsonl;"
      " lanectl __training-snapshot --output-dir /mnt/out";
  auto s = l.run({"submit", "trainer", "-i", "busybox", "--pvc", ":1Gi:/mnt", "-e", "ENABLE_SNAPSHOT=true", "-e",
                  "PVC_NAME=pvc-trainer-0", "--command", "--", "/bin/sh", "-c", script});
  INFO(s.err);
  REQUIRE(s.code == 0);
  const auto job = l.wait_status("trainer", {"Succeeded", "Failed"});
  INFO(l.run({"logs", "trainer"}).out);
  REQUIRE(job.value("status", "") == "Succeeded");
  auto list = l.run({"snapshot", "list", "-o", "json"});
  REQUIRE(list.code == 0);
  CHECK(list.out.find("pvc-trainer-0") != std::string::npos);
  // A claim of another name is refused by the supervisor, and the job sees the reason.
  auto bad = l.run({"submit", "stranger", "-i", "busybox", "-e", "ENABLE_SNAPSHOT=true", "-e", "PVC_NAME=nosuch",
                    "--command", "--", "/bin/sh", "-c", "lanectl __training-snapshot --output-dir /tmp"});
  REQUIRE(bad.code == 0);
  CHECK(l.wait_status("stranger", {"Succeeded", "Failed"}).value("status", "") == "Failed");
  CHECK(l.run({"logs", "stranger"}).out.find("PVC_NAME 'nosuch' is not a volume of this backend") !=
        std::string::npos);
}

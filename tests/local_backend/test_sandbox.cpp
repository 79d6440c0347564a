// Volumes inside the job's private mount namespace: visible at the mount path, never written to
// the host's directory there, read-only when asked; a tmpfs /dev/shm.
#include <catch2/catch.hpp>

#include <unistd.h>

#include "support/lanectl_runner.h"
#include "support/skip_case.h"

using lane::test::Lanectl;

namespace {

void check_volume_isolation(Lanectl& l, const std::string& mode) {
  l.set_env("LANECTL_SANDBOX", mode);
  std::string probe = "lanectl-probe-" + std::to_string(getpid()) + "-" + mode;
  REQUIRE(l.run({"submit", "writer", "-i", "x", "--pvc", ":1Mi:/mnt", "--large-shm", "--shm-size", "16Mi",
                 "--command", "--", "/bin/sh", "-c",
                 "echo data > /mnt/" + probe + " && df -k /dev/shm | tail -1"}).code == 0);
  auto w = l.wait_status("writer", {"Succeeded", "Failed"});
  auto logs = l.run({"logs", "writer"});
  INFO(logs.out);
  REQUIRE(w.value("status", "") == "Succeeded");
  CHECK(logs.out.find("16384") != std::string::npos);  // the 16Mi tmpfs
  // The file is in the backend's volume directory, not in the host's /mnt.
  CHECK(lane::test::slurp(l.home() / "volumes" / "pvc-writer-0" / probe) == "data\n");
  CHECK_FALSE(std::filesystem::exists("/mnt/" + probe));

  // Read-only mount of the existing claim: reading works, writing fails.
  REQUIRE(l.run({"submit", "reader", "-i", "x", "--pvc", "pvc-writer-0:/mnt:ro", "--command", "--", "/bin/sh", "-c",
                 "cat /mnt/" + probe + " && touch /mnt/new-file"}).code == 0);
  auto r = l.wait_status("reader", {"Succeeded", "Failed"});
  auto rlogs = l.run({"logs", "reader"});
  INFO(rlogs.out);
  CHECK(r.value("status", "") == "Failed");
  CHECK(rlogs.out.find("data") == 0);
  CHECK(rlogs.out.find("Read-only file system") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(l.home() / "volumes" / "pvc-writer-0" / "new-file"));
}

}  // namespace

TEST_CASE("pvc volumes are private to the job and :ro is enforced (unshare, as root)", "[local_backend][fast]") {
  if (geteuid() != 0) {
    LANE_SKIP_CASE("the unshare sandbox needs root; the bwrap case covers non-root runs");
  }
  Lanectl l;
  check_volume_isolation(l, "unshare");
}

TEST_CASE("pvc volumes are private to the job and :ro is enforced (bubblewrap)", "[local_backend][fast]") {
  if (std::system("bwrap --dev-bind / / true > /dev/null 2>&1") != 0) {
    LANE_SKIP_CASE("bwrap is missing or cannot create namespaces in this container");
  }
  Lanectl l;
  check_volume_isolation(l, "bwrap");
}

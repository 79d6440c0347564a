// The local backend's JobFiles role (the dashboard's job page reads metrics and overlays through
// it): a real job writes the contract's files (tests/support/job_files_contract.h) on its claim
// and more on a -v host directory, then they are read back by their path inside the job, and
// every way out of the mount is refused.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "support/lanectl_runner.h"
#include "submit/local/local_backend.h"
#include "support/job_files_contract.h"
#include "support/text_has.h"

using lane::test::Lanectl;
namespace fs = std::filesystem;

using lane::test::has;

TEST_CASE("a local job's files are read through its mounts, never following a link out", "[local_backend][fast]") {
  Lanectl l;
  const fs::path host = l.home().parent_path() / (l.home().filename().string() + "-host");
  fs::create_directories(host);
  ::chmod(host.c_str(), 0777);  // the job may run as the project's own user
  {
    std::ofstream(host / "outside.txt") << "outside";
  }
  // The contract's files on the claim, plus what only a local job has: a FIFO on the claim and a
  // -v host directory.
  const std::string script = lane::test::job_files_contract_script() +
                             " mkfifo /mnt/runs/fifo; printf 'host side' > /out/written.txt";
  auto s = l.run({"submit", "files", "-i", "x", "--pvc", ":1Gi:/mnt", "-v", host.string() + ":/out", "-e",
                  "OUTPUT_DIR=/mnt/runs", "--command", "--", "/bin/sh", "-c", script});
  INFO(s.err);
  REQUIRE(s.code == 0);
  auto doc = l.wait_status("files", {"Succeeded", "Failed"});
  INFO(l.run({"logs", "files"}).out);
  REQUIRE(doc.value("status", "") == "Succeeded");

  lane::submit::local::LocalBackend backend(l.home());
  lane::submit::JobFiles& files = backend.job_files();
  lane::test::check_job_files_contract(files, "files", "default");

  auto via_host = files.read_file("files", "default", "/out/written.txt", 100, false);
  REQUIRE(via_host.ok);
  CHECK(via_host.data == "host side");
  CHECK(files.read_file("files", "default", "/out/outside.txt", 100, false).data == "outside");
  auto outside = files.read_file("files", "default", "/etc/passwd", 100, false);
  CHECK_FALSE(outside.ok);
  CHECK(has(outside.reason, "none of the job's volumes"));
  auto fifo = files.read_file("files", "default", "/mnt/runs/fifo", 100, false);  // must not block
  CHECK_FALSE(fifo.ok);
  CHECK(has(fifo.reason, "not a regular file"));
  CHECK_FALSE(files.list_dir("files", "default", "/tmp", 10).ok);

  std::error_code ec;
  fs::remove_all(host, ec);
}

TEST_CASE("a local job's OUTPUT_DIR is its -e value as given", "[local_backend][fast]") {
  Lanectl l;
  REQUIRE(l.run({"submit", "slash", "-i", "x", "-e", "OUTPUT_DIR=/mnt/runs/", "--command", "--", "/bin/true"}).code == 0);
  lane::submit::local::LocalBackend backend(l.home());
  std::string why;
  CHECK(backend.job_files().output_dir("slash", "default", why) == "/mnt/runs/");
}

TEST_CASE("a local job's OUTPUT_DIR defaults to its image's", "[local_backend][fast]") {
  Lanectl l;
  REQUIRE(l.run({"submit", "img", "-i", "scnn-train", "--command", "--", "/bin/true"}).code == 0);
  REQUIRE(l.run({"submit", "plain", "-i", "busybox", "--command", "--", "/bin/true"}).code == 0);
  lane::submit::local::LocalBackend backend(l.home());
  std::string why;
  CHECK(backend.job_files().output_dir("img", "default", why) == "/mnt/runs");  // images/scnn-train/image.json
  CHECK_FALSE(backend.job_files().output_dir("plain", "default", why));
  CHECK(has(why, "sets no OUTPUT_DIR"));
}

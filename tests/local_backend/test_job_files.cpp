// The local backend's JobFiles role (the dashboard's job page reads metrics and overlays through
// it): a real job writes files on its claim and a -v host directory, then they are read back by
// their path inside the job, and every way out of the mount is refused.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "support/lanectl_runner.h"
#include "submit/local/local_backend.h"

using lane::test::Lanectl;
namespace fs = std::filesystem;

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("a local job's files are read through its mounts, never following a link out") {
  Lanectl l;
  const fs::path host = l.home().parent_path() / (l.home().filename().string() + "-host");
  fs::create_directories(host);
  ::chmod(host.c_str(), 0777);  // the job may run as the project's own user
  {
    std::ofstream(host / "outside.txt") << "outside";
  }
  const std::string script =
      "set -e; mkdir -p /mnt/runs/overlays /mnt/runs/sub;"
      " printf '{\"kind\":\"train\",\"step\":1,\"loss\":0.5}\\n' > /mnt/runs/metrics.jsonl;"
      " printf '0123456789' > /mnt/runs/digits;"
      " printf 'png' > /mnt/runs/overlays/a.png;"
      " ln -s /etc/passwd /mnt/runs/link; ln -s /mnt /mnt/runs/dirlink; mkfifo /mnt/runs/fifo;"
      " printf 'host side' > /out/written.txt";
  auto s = l.run({"submit", "files", "-i", "x", "--pvc", ":1Gi:/mnt", "-v", host.string() + ":/out", "-e",
                  "OUTPUT_DIR=/mnt/runs/", "--command", "--", "/bin/sh", "-c", script});
  INFO(s.err);
  REQUIRE(s.code == 0);
  auto doc = l.wait_status("files", {"Succeeded", "Failed"});
  INFO(l.run({"logs", "files"}).out);
  REQUIRE(doc.value("status", "") == "Succeeded");

  lane::submit::local::LocalBackend backend(l.home());
  lane::submit::JobFiles& files = backend.job_files();
  std::string why;
  CHECK(files.output_dir("files", "default", why) == "/mnt/runs/");

  auto m = files.read_file("files", "default", "/mnt/runs/metrics.jsonl", 1 << 20, false);
  REQUIRE(m.ok);
  CHECK(m.data == "{\"kind\":\"train\",\"step\":1,\"loss\":0.5}\n");
  CHECK(m.size == m.data.size());
  CHECK_FALSE(m.truncated());
  CHECK(m.modified_unix_ms > 0);

  auto head = files.read_file("files", "default", "/mnt/runs/digits", 4, false);
  REQUIRE(head.ok);
  CHECK(head.data == "0123");
  CHECK(head.size == 10);
  CHECK(head.truncated());
  auto tail = files.read_file("files", "default", "/mnt/runs/digits", 3, true);
  REQUIRE(tail.ok);
  CHECK(tail.data == "789");

  auto via_host = files.read_file("files", "default", "/out/written.txt", 100, false);
  REQUIRE(via_host.ok);
  CHECK(via_host.data == "host side");
  CHECK(files.read_file("files", "default", "/out/outside.txt", 100, false).data == "outside");

  // Every way out of the mount, and what is not a plain file, is an answer with a reason.
  auto link = files.read_file("files", "default", "/mnt/runs/link", 100, false);
  CHECK_FALSE(link.ok);
  CHECK(has(link.reason, "symbolic link"));
  CHECK(link.data.empty());
  auto through = files.read_file("files", "default", "/mnt/runs/dirlink/runs/metrics.jsonl", 100, false);
  CHECK_FALSE(through.ok);
  CHECK(has(through.reason, "symbolic link"));
  auto dotdot = files.read_file("files", "default", "/mnt/runs/../../etc/passwd", 100, false);
  CHECK_FALSE(dotdot.ok);
  CHECK(has(dotdot.reason, "not a clean absolute path"));
  auto outside = files.read_file("files", "default", "/etc/passwd", 100, false);
  CHECK_FALSE(outside.ok);
  CHECK(has(outside.reason, "none of the job's volumes"));
  auto fifo = files.read_file("files", "default", "/mnt/runs/fifo", 100, false);  // must not block
  CHECK_FALSE(fifo.ok);
  CHECK(has(fifo.reason, "not a regular file"));
  auto dir = files.read_file("files", "default", "/mnt/runs/sub", 100, false);
  CHECK_FALSE(dir.ok);
  auto missing = files.read_file("files", "default", "/mnt/runs/nothing", 100, false);
  CHECK_FALSE(missing.ok);
  CHECK(has(missing.reason, "does not exist"));
  auto nojob = files.read_file("nojob", "default", "/mnt/runs/metrics.jsonl", 100, false);
  CHECK_FALSE(nojob.ok);
  CHECK(has(nojob.reason, "does not exist"));
  CHECK_FALSE(files.output_dir("nojob", "default", why));
  CHECK(why == "the job does not exist");

  // A listing has the regular files only (no links, FIFOs or directories), capped.
  auto list = files.list_dir("files", "default", "/mnt/runs", 100);
  REQUIRE(list.ok);
  std::set<std::string> names;
  for (const auto& e : list.entries) names.insert(e.name);
  CHECK(names == std::set<std::string>{"metrics.jsonl", "digits"});
  CHECK_FALSE(list.truncated);
  auto one = files.list_dir("files", "default", "/mnt/runs", 1);
  REQUIRE(one.ok);
  CHECK(one.entries.size() == 1);
  CHECK(one.truncated);
  auto overlays = files.list_dir("files", "default", "/mnt/runs/overlays", 10);
  REQUIRE(overlays.ok);
  REQUIRE(overlays.entries.size() == 1);
  CHECK(overlays.entries[0].name == "a.png");
  CHECK(overlays.entries[0].size == 3);
  CHECK_FALSE(files.list_dir("files", "default", "/mnt/runs/dirlink", 10).ok);
  CHECK_FALSE(files.list_dir("files", "default", "/mnt/runs/metrics.jsonl", 10).ok);
  CHECK_FALSE(files.list_dir("files", "default", "/tmp", 10).ok);

  std::error_code ec;
  fs::remove_all(host, ec);
}

TEST_CASE("a local job's OUTPUT_DIR defaults to its image's") {
  Lanectl l;
  REQUIRE(l.run({"submit", "img", "-i", "scnn-train", "--command", "--", "/bin/true"}).code == 0);
  REQUIRE(l.run({"submit", "plain", "-i", "busybox", "--command", "--", "/bin/true"}).code == 0);
  lane::submit::local::LocalBackend backend(l.home());
  std::string why;
  CHECK(backend.job_files().output_dir("img", "default", why) == "/mnt/runs");  // images/scnn-train/image.json
  CHECK_FALSE(backend.job_files().output_dir("plain", "default", why));
  CHECK(has(why, "sets no OUTPUT_DIR"));
}

#pragma once
// The JobFiles contract every backend keeps (src/submit/core/job_files.h), checked by one set of
// assertions. A backend's test makes a job `job` in `project` whose OUTPUT_DIR is /mnt/runs and
// which wrote, under it:
//   metrics.jsonl     kMetricsLine
//   digits            "0123456789"
//   overlays/a.png    "png"
//   link           -> /etc/passwd   (a symbolic link to a file outside the mount)
//   dirlink        -> /etc          (a symbolic link to a directory outside the mount)
// and nothing else that is a regular file; then it calls check_job_files_contract with that
// backend's JobFiles. What only one backend has (a FIFO, a host -v mount, a pod that stopped)
// stays in that backend's own test.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "submit/core/job_files.h"

namespace lane::test {

inline constexpr const char* kMetricsLine = "{\"kind\":\"train\",\"step\":1,\"loss\":0.5}\n";

// The shell lines that write the files above into /mnt/runs (for a backend that runs real jobs).
inline std::string job_files_contract_script() {
  return "set -e; mkdir -p /mnt/runs/overlays;"
         " printf '{\"kind\":\"train\",\"step\":1,\"loss\":0.5}\\n' > /mnt/runs/metrics.jsonl;"
         " printf '0123456789' > /mnt/runs/digits;"
         " printf 'png' > /mnt/runs/overlays/a.png;"
         " ln -s /etc/passwd /mnt/runs/link; ln -s /etc /mnt/runs/dirlink;";
}

inline bool contract_has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

inline void check_job_files_reads(submit::JobFiles& files, const std::string& job, const std::string& project) {
  auto m = files.read_file(job, project, "/mnt/runs/metrics.jsonl", 1 << 20, false);
  REQUIRE(m.ok);
  CHECK(m.data == kMetricsLine);
  CHECK(m.size == m.data.size());
  CHECK_FALSE(m.truncated());
  CHECK(m.modified_unix_ms > 0);

  auto head = files.read_file(job, project, "/mnt/runs/digits", 4, false);
  REQUIRE(head.ok);
  CHECK(head.data == "0123");
  CHECK(head.size == 10);
  CHECK(head.truncated());
  auto tail = files.read_file(job, project, "/mnt/runs/digits", 3, true);
  REQUIRE(tail.ok);
  CHECK(tail.data == "789");
}

// Every way out of the mount, and what is not a plain file, is an answer with a reason.
inline void check_job_files_refusals(submit::JobFiles& files, const std::string& job, const std::string& project) {
  auto link = files.read_file(job, project, "/mnt/runs/link", 100, false);
  CHECK_FALSE(link.ok);
  CHECK(contract_has(link.reason, "symbolic link"));
  CHECK(link.data.empty());
  auto through = files.read_file(job, project, "/mnt/runs/dirlink/passwd", 100, false);
  CHECK_FALSE(through.ok);
  CHECK(contract_has(through.reason, "symbolic link"));
  CHECK(through.data.empty());
  auto dotdot = files.read_file(job, project, "/mnt/runs/../../etc/passwd", 100, false);
  CHECK_FALSE(dotdot.ok);
  CHECK(contract_has(dotdot.reason, "not a clean absolute path"));
  auto dir = files.read_file(job, project, "/mnt/runs/overlays", 100, false);
  CHECK_FALSE(dir.ok);
  CHECK(contract_has(dir.reason, "not a regular file"));
  auto missing = files.read_file(job, project, "/mnt/runs/nothing", 100, false);
  CHECK_FALSE(missing.ok);
  CHECK(contract_has(missing.reason, "does not exist"));

  std::string why;
  CHECK_FALSE(files.output_dir("nojob", project, why));
  CHECK(why == "the job does not exist");
  auto nojob = files.read_file("nojob", project, "/mnt/runs/metrics.jsonl", 100, false);
  CHECK_FALSE(nojob.ok);
  CHECK(contract_has(nojob.reason, "does not exist"));
}

// A listing has the regular files only (no links, FIFOs or directories), capped.
inline void check_job_files_listings(submit::JobFiles& files, const std::string& job, const std::string& project) {
  auto list = files.list_dir(job, project, "/mnt/runs", 100);
  REQUIRE(list.ok);
  std::set<std::string> names;
  for (const auto& e : list.entries) names.insert(e.name);
  CHECK(names == std::set<std::string>{"metrics.jsonl", "digits"});
  CHECK_FALSE(list.truncated);
  auto one = files.list_dir(job, project, "/mnt/runs", 1);
  REQUIRE(one.ok);
  CHECK(one.entries.size() == 1);
  CHECK(one.truncated);
  auto overlays = files.list_dir(job, project, "/mnt/runs/overlays", 10);
  REQUIRE(overlays.ok);
  REQUIRE(overlays.entries.size() == 1);
  CHECK(overlays.entries[0].name == "a.png");
  CHECK(overlays.entries[0].size == 3);
  CHECK_FALSE(files.list_dir(job, project, "/mnt/runs/dirlink", 10).ok);
  CHECK_FALSE(files.list_dir(job, project, "/mnt/runs/metrics.jsonl", 10).ok);
}

// A download: the file read in pieces at offsets; a link or a directory is not opened.
inline void check_job_files_open(submit::JobFiles& files, const std::string& job, const std::string& project) {
  std::string why;
  auto digits = files.open_file(job, project, "/mnt/runs/digits", why);
  REQUIRE(digits);
  CHECK(digits->size == 10);
  CHECK(digits->modified_unix_ms > 0);
  char buf[4];
  REQUIRE(digits->read_at(3, buf, sizeof buf) == 4);
  CHECK(std::string(buf, 4) == "3456");
  CHECK(digits->read_at(8, buf, sizeof buf) == 2);
  CHECK(std::string(buf, 2) == "89");
  CHECK(digits->read_at(10, buf, sizeof buf) == 0);
  CHECK_FALSE(files.open_file(job, project, "/mnt/runs/link", why));
  CHECK(contract_has(why, "symbolic link"));
  CHECK_FALSE(files.open_file(job, project, "/mnt/runs/dirlink/passwd", why));
  CHECK(contract_has(why, "symbolic link"));
  CHECK_FALSE(files.open_file(job, project, "/mnt/runs/overlays", why));
  CHECK(contract_has(why, "not a regular file"));
}

inline void check_job_files_contract(submit::JobFiles& files, const std::string& job, const std::string& project) {
  std::string why;
  CHECK(files.output_dir(job, project, why).value_or("(none: " + why + ")") == "/mnt/runs");
  check_job_files_reads(files, job, project);
  check_job_files_refusals(files, job, project);
  check_job_files_listings(files, job, project);
  check_job_files_open(files, job, project);
}

}  // namespace lane::test

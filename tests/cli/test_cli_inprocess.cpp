// lanectl's verbs run in-process (run_cli) against an in-memory backend: exact output, exact
// exit codes, no process, no state on disk. The spawning tests keep the end-to-end paths.
#include <catch2/catch.hpp>

#include "fake_backend.h"

using lane::submit::JobStatus;
using lane::test::FakeBackend;
using lane::test::run_in_process;

TEST_CASE("in-process: list jobs of a project", "[cli][fast]") {
  FakeBackend b;
  b.add_job("default", "train-a", JobStatus::kRunning, 1);
  b.add_job("default", "train-b", JobStatus::kPending, 0.5);
  b.add_job("other", "elsewhere", JobStatus::kRunning, 2);
  const auto r = run_in_process(b, {"list"});
  CHECK(r.code == 0);
  CHECK(r.err == "");
  CHECK(r.out ==
        "Showing jobs for project default\n"
        "NAME     STATUS   AGE   NODE  TYPE   PROJECT  GPUs ALLOC (REQ)  PODs RUN (PEND)\n"
        "train-a  Running  120m        Train  default  0 (1)             0 (0)\n"
        "train-b  Pending  120m        Train  default  0 (0.5)           0 (0)\n");
}

TEST_CASE("in-process: describe job, and a job that does not exist", "[cli][fast]") {
  FakeBackend b;
  b.add_job("default", "train-a", JobStatus::kSucceeded, 1);
  auto r = run_in_process(b, {"describe", "job", "train-a", "-o", "json"});
  CHECK(r.code == 0);
  CHECK(r.err == "");
  const auto doc = nlohmann::json::parse(r.out);
  CHECK(doc["name"] == "train-a");
  CHECK(doc["status"] == "Succeeded");
  CHECK(doc["gpusRequested"] == 1.0);
  r = run_in_process(b, {"describe", "job", "nope"});
  CHECK(r.code == 1);
  CHECK(r.out == "");
  CHECK(r.err ==
        "lanectl: error: job 'nope' does not exist in project 'default'. If the job exists in a different project, "
        "use -p <project-name>.\n");
}

TEST_CASE("in-process: delete jobs, and a missing one fails the command after the others", "[cli][fast]") {
  FakeBackend b;
  b.add_job("default", "a", JobStatus::kRunning, 1);
  b.add_job("default", "b", JobStatus::kRunning, 1);
  auto r = run_in_process(b, {"delete", "job", "a", "ghost", "b"});
  CHECK(r.code == 1);
  CHECK(r.out == "Job a deleted successfully.\nJob b deleted successfully.\n");
  CHECK(r.err ==
        "Job ghost does not exist in project default. If the job exists in a different project, use -p "
        "<project-name>.\nlanectl: error: some jobs were not found\n");
  CHECK(b.calls == std::vector<std::string>{"delete default/a", "delete default/ghost", "delete default/b"});
  r = run_in_process(b, {"delete", "job"});
  CHECK(r.code == 2);
  CHECK(r.err == "lanectl: error: delete needs job names (lanectl delete job NAME...) or --all\n");
}

TEST_CASE("in-process: submit validation errors are usage errors and submit nothing", "[cli][fast]") {
  FakeBackend b;
  auto r = run_in_process(b, {"submit", "x", "--gpu", "1.5", "-i", "busybox"});
  CHECK(r.code == 2);
  CHECK(r.out == "");
  CHECK(r.err ==
        "lanectl: error: --gpu 1.5: a fractional GPU must be below 1 (e.g. 0.5); use a whole number of GPUs above 1\n");
  r = run_in_process(b, {"submit", "Bad_Name", "-i", "busybox"});
  CHECK(r.code == 2);
  CHECK(r.err ==
        "lanectl: error: invalid job name (--name) 'Bad_Name': must be 1-63 lower-case letters, digits or '-', "
        "starting and ending with a letter or digit (e.g. 'my-job-1')\n");
  r = run_in_process(b, {"submit", "--no-such-flag"});
  CHECK(r.code == 2);
  CHECK(r.err == "lanectl: error: unknown flag '--no-such-flag' for `lanectl submit`; see `lanectl submit --help`\n");
  CHECK(b.calls.empty());

  r = run_in_process(b, {"submit", "x", "-i", "busybox"});
  CHECK(r.code == 0);
  CHECK(r.out ==
        "The job 'x' has been submitted successfully\n"
        "You can run `lanectl describe job x -p default` to check the job status\n");
  CHECK(b.calls == std::vector<std::string>{"submit default/x"});
}

TEST_CASE("in-process: project list", "[cli][fast]") {
  FakeBackend b;
  lane::submit::ProjectStatus p;
  p.spec = {"lane-detection", 3, true};
  p.gpus_allocated = 1.5;
  p.running_jobs = 2;
  b.project_list = {p};
  const auto r = run_in_process(b, {"project", "list"});
  CHECK(r.code == 0);
  CHECK(r.out ==
        "PROJECT         GPU QUOTA  OVER QUOTA  ALLOCATED  FAIR SHARE  RUNNING  PENDING\n"
        "lane-detection  3          allowed     1.5        0           2        0\n");
  CHECK(r.err == "");
}

TEST_CASE("in-process: exec and attach end with the job's exit code, carried as a value", "[cli][fast]") {
  FakeBackend b;
  b.add_job("default", "a", JobStatus::kRunning, 1);
  auto r = run_in_process(b, {"exec", "a", "--", "true"});
  CHECK(r.code == 7);
  CHECK(r.out == "exec in default/a\n");
  r = run_in_process(b, {"attach", "a"});
  CHECK(r.code == 3);
  CHECK(r.err == "");
}

TEST_CASE("in-process: --help goes to the given output stream, and a verb typo is a usage error", "[cli][fast]") {
  FakeBackend b;
  auto r = run_in_process(b, {"--help"});
  CHECK(r.code == 0);
  CHECK(r.out.find("lanectl: run distributed lane-detection training") == 0);
  r = run_in_process(b, {"lsit"});
  CHECK(r.code == 2);
  CHECK(r.out == "");
  CHECK(r.err == "lanectl: error: unknown command 'lsit'; did you mean 'list'?\n");
}

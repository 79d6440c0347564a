// kubectl habits and consistent output (issue 31, items 5 and 6), in-process against the fake
// backend: list -l/--sort-by/-w and its List shape, wait --for, top -o, lineage -o, --label.
#include <stdlib.h>

#include <catch2/catch.hpp>

#include <sstream>

#include "fake_backend.h"

using lane::submit::JobInfo;
using lane::submit::JobStatus;
using lane::test::FakeBackend;
using lane::test::run_in_process;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

// A backend whose jobs change as they are read: `step` runs before every list and describe.
struct ChangingBackend : FakeBackend {
  std::function<void(ChangingBackend&, int)> step;
  int reads = 0;
  std::vector<JobInfo> list_jobs(const std::optional<std::string>& project) override {
    if (step) step(*this, reads++);
    return FakeBackend::list_jobs(project);
  }
  std::optional<JobInfo> describe_job(const std::string& name, const std::string& project) override {
    if (step) step(*this, reads++);
    return FakeBackend::describe_job(name, project);
  }
};

}  // namespace

TEST_CASE("list: a finished job shows its node and 0 GPUs allocated, as top job does", "[cli][fast]") {
  FakeBackend b;
  b.add_job("default", "done", JobStatus::kSucceeded, 2);
  b.jobs_by_key["default/done"].nodes = {"node-1"};
  const auto table = lines_of(run_in_process(b, {"list"}).out);
  REQUIRE(table.size() == 3);
  CHECK(table[2].find("done  Succeeded") == 0);
  CHECK(table[2].find("node-1") != std::string::npos);
  CHECK(table[2].find("0 (2)") != std::string::npos);
  CHECK(table[2].find("- (2)") == std::string::npos);
}

TEST_CASE("list: the default table fits 120 columns and -o wide has the rest", "[cli][fast]") {
  FakeBackend b;
  b.add_job("default", "dist-lane-detection-training", JobStatus::kRunning, 2);
  auto& j = b.jobs_by_key["default/dist-lane-detection-training"];
  j.spec.type = lane::submit::JobType::kInteractive;
  j.spec.image = "registry.example.com/lane-detection/scnn-train:2026-11-26";
  j.spec.user = "researcher";
  j.nodes = {"node-1"};
  j.service_urls = {"10.0.0.7:30080"};
  const auto r = run_in_process(b, {"list"});
  REQUIRE(r.code == 0);
  for (const auto& line : lines_of(r.out)) CHECK(line.size() <= 120);
  CHECK(r.out.find("scnn-train") == std::string::npos);
  const auto wide = run_in_process(b, {"list", "-o", "wide"}).out;
  for (const char* cell : {"researcher", "scnn-train:2026-11-26", "10.0.0.7:30080", "PREEMPTIBLE"})
    CHECK(wide.find(cell) != std::string::npos);
}

TEST_CASE("list -o json|yaml is a Kubernetes List and an empty list says so", "[cli][fast]") {
  FakeBackend b;
  auto r = run_in_process(b, {"list"});
  CHECK(r.code == 0);
  CHECK(r.out == "Showing jobs for project default\nNo jobs found.\n");
  CHECK(run_in_process(b, {"list", "-o", "json"}).out ==
        "{\n  \"apiVersion\": \"v1\",\n  \"items\": [],\n  \"kind\": \"List\"\n}\n");
  b.add_job("default", "a", JobStatus::kRunning, 1);
  const auto doc = nlohmann::json::parse(run_in_process(b, {"list", "-o", "json"}).out);
  CHECK(doc["kind"] == "List");
  CHECK(doc["apiVersion"] == "v1");
  REQUIRE(doc["items"].size() == 1);
  CHECK(doc["items"][0]["name"] == "a");
  CHECK(run_in_process(b, {"list", "-o", "yaml"}).out.find("kind: List") != std::string::npos);
}

TEST_CASE("list -l selects on the jobs' labels", "[cli][fast]") {
  FakeBackend b;
  for (const char* n : {"a", "b", "c"}) b.add_job("default", n, JobStatus::kRunning, 1);
  b.jobs_by_key["default/a"].spec.labels = {{"team", "vision"}, {"tuned", "yes"}};
  b.jobs_by_key["default/b"].spec.labels = {{"team", "nlp"}};
  auto names = [&](const std::string& selector) {
    const auto doc = nlohmann::json::parse(run_in_process(b, {"list", "-l", selector, "-o", "json"}).out);
    std::string out;
    for (const auto& item : doc["items"]) out += item["name"].get<std::string>();
    return out;
  };
  CHECK(names("team=vision") == "a");
  CHECK(names("team==vision") == "a");
  CHECK(names("team!=vision") == "bc");
  CHECK(names("team") == "ab");
  CHECK(names("!team") == "c");
  CHECK(names("team,!tuned") == "b");
  CHECK(names("team in (vision, nlp)") == "ab");
  CHECK(names("team notin (nlp)") == "ac");
  CHECK(names("team=vision,tuned=yes") == "a");
  const auto bad = run_in_process(b, {"list", "--selector", "team in vision"});
  CHECK(bad.code == 2);
  CHECK(bad.err.find("--selector: cannot read 'team in vision'") != std::string::npos);
  CHECK(run_in_process(b, {"list", "projects", "-l", "a=b"}).code == 2);
}

TEST_CASE("list --sort-by takes a column or a JSONPath", "[cli][fast]") {
  FakeBackend b;
  b.add_job("default", "b-old", JobStatus::kRunning, 1);
  b.add_job("default", "a-new", JobStatus::kPending, 1);
  b.add_job("default", "c-mid", JobStatus::kFailed, 1);
  b.jobs_by_key["default/b-old"].created_unix_ms -= 3000;
  b.jobs_by_key["default/a-new"].created_unix_ms += 3000;
  auto order = [&](const std::string& key) {
    const auto doc = nlohmann::json::parse(run_in_process(b, {"list", "--sort-by", key, "-o", "json"}).out);
    std::string out;
    for (const auto& item : doc["items"]) out += item["name"].get<std::string>().substr(0, 1);
    return out;
  };
  CHECK(order(".metadata.creationTimestamp") == "bca");
  CHECK(order("AGE") == "acb");
  CHECK(order("name") == "abc");
  CHECK(order(".metadata.name") == "abc");
  CHECK(order("status") == "cab");
  const auto bad = run_in_process(b, {"list", "--sort-by", ".spec.gpu"});
  CHECK(bad.code == 2);
  CHECK(bad.err.find("--sort-by '.spec.gpu': use a column (") != std::string::npos);
  CHECK(bad.err.find(".metadata.creationTimestamp") != std::string::npos);
}

TEST_CASE("list -w prints the table, then a row for each job that changes", "[cli][fast]") {
  ChangingBackend b;
  b.add_job("default", "train", JobStatus::kPending, 1);
  b.step = [](ChangingBackend& self, int read) {
    if (read == 1) self.jobs_by_key["default/train"].status = JobStatus::kRunning;
    if (read == 2) self.add_job("default", "eval", JobStatus::kPending, 0);
    if (read == 3) self.jobs_by_key.erase("default/eval");
  };
  setenv("LANECTL_WATCH_SECONDS", "2.2", 1);
  const auto r = run_in_process(b, {"list", "-w"});
  unsetenv("LANECTL_WATCH_SECONDS");
  CHECK(r.code == 0);
  const auto lines = lines_of(r.out);
  REQUIRE(lines.size() == 6);
  CHECK(lines[1].find("NAME   STATUS") == 0);
  CHECK(lines[2].find("train  Pending") == 0);
  CHECK(lines[3].find("train  Running") == 0);
  CHECK(lines[4].find("eval   Pending") == 0);
  CHECK(lines[5].find("eval   Deleted") == 0);
  CHECK(run_in_process(b, {"list", "-w", "-o", "json"}).code == 2);
}

TEST_CASE("wait --for=condition: met or never possible or timed out", "[cli][fast]") {
  ChangingBackend b;
  b.add_job("default", "train", JobStatus::kPending, 1);
  b.add_job("default", "broken", JobStatus::kFailed, 1);
  b.jobs_by_key["default/broken"].status_reason = "Error";
  b.step = [](ChangingBackend& self, int read) {
    if (read == 2) self.jobs_by_key["default/train"].status = JobStatus::kRunning;
    if (read == 4) self.jobs_by_key["default/train"].status = JobStatus::kSucceeded;
  };
  auto r = run_in_process(b, {"wait", "--for=condition=Running", "train", "--timeout", "10s"});
  CHECK(r.code == 0);
  CHECK(r.out == "job/train condition met\n");
  r = run_in_process(b, {"wait", "--for", "condition=succeeded", "train", "--timeout=10s"});
  CHECK(r.code == 0);
  r = run_in_process(b, {"wait", "--for=condition=Succeeded", "broken"});
  CHECK(r.code == 1);
  CHECK(r.err == "lanectl: error: job broken is Failed (Error); it can never be Succeeded\n");
  r = run_in_process(b, {"wait", "--for=condition=Running", "train"});
  CHECK(r.code == 1);
  CHECK(r.err.find("it can never be Running") != std::string::npos);
  b.add_job("default", "queued", JobStatus::kPending, 1);
  r = run_in_process(b, {"wait", "--for=condition=Running", "queued", "--timeout", "0"});
  CHECK(r.code == 1);
  CHECK(r.err == "lanectl: error: timed out after 0 waiting for job queued to be Running (it is Pending); give a "
                 "longer --timeout\n");
  r = run_in_process(b, {"wait", "--for=condition=Ready", "train"});
  CHECK(r.code == 2);
  CHECK(r.err.find("--for 'condition=Ready': use --for=condition=Succeeded") != std::string::npos);
  CHECK(run_in_process(b, {"wait", "--for=condition=Running", "ghost"}).code == 1);
}

TEST_CASE("top -o json|yaml lists the job rows and lineage and top refuse -o wide", "[cli][fast]") {
  FakeBackend b;
  b.add_job("default", "train", JobStatus::kRunning, 2);
  b.jobs_by_key["default/train"].nodes = {"node-1"};
  b.jobs_by_key["default/train"].gpus_allocated = 2;
  const auto doc = nlohmann::json::parse(run_in_process(b, {"top", "job", "-o", "json"}).out);
  CHECK(doc["kind"] == "List");
  REQUIRE(doc["items"].size() == 1);
  CHECK(doc["items"][0]["nodes"] == nlohmann::json::array({"node-1"}));
  CHECK(doc["items"][0]["gpusAllocated"] == 2.0);
  CHECK(doc["items"][0]["gpuUtilization"].is_null());
  CHECK(run_in_process(b, {"top", "job", "-o", "yaml"}).out.find("kind: List") != std::string::npos);
  CHECK(run_in_process(b, {"top", "job", "-o", "wide"}).code == 2);
  const auto lineage = run_in_process(b, {"lineage", "train", "-o", "wide"});
  CHECK(lineage.code == 2);
  CHECK(lineage.err.find("lineage -o takes json or yaml") != std::string::npos);
}

TEST_CASE("submit --label and --annotation are stored in the spec and bad ones refused naming the flag", "[cli][fast]") {
  FakeBackend b;
  auto r = run_in_process(b, {"submit", "t1", "-i", "busybox", "--label", "team=vision", "--label",
                              "example.com/stage=tune", "--annotation", "note=lr sweep, run 3"});
  REQUIRE(r.code == 0);
  const auto& spec = b.jobs_by_key.at("default/t1").spec;
  CHECK(spec.labels == std::map<std::string, std::string>{{"team", "vision"}, {"example.com/stage", "tune"}});
  CHECK(spec.annotations == std::map<std::string, std::string>{{"note", "lr sweep, run 3"}});
  for (auto [flag, value, message] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"--label", "team", "--label 'team': use KEY=VALUE, e.g. --label team=vision"},
           {"--label", "team=has space", "--label 'team=has space': a label value is empty or at most 63"},
           {"--label", "Bad_Prefix/x=y", "--label 'Bad_Prefix/x=y': a key is [PREFIX/]NAME"},
           {"--annotation", "-x=1", "--annotation '-x=1': a key is [PREFIX/]NAME"},
           {"--label", "lanectl.io/job=x", "--label 'lanectl.io/job': the prefix lanectl.io/ is lanectl's own"}}) {
    r = run_in_process(b, {"submit", "t2", "-i", "busybox", flag, value});
    CHECK(r.code == 2);
    CHECK(r.err.find(message) != std::string::npos);
  }
  r = run_in_process(b, {"submit", "t3", "-i", "busybox", "--label", "a=1", "--label", "a=2"});
  CHECK(r.err.find("--label a is given twice") != std::string::npos);
}

// The local job table's named transitions (state/job_table.h): each one moves a row from the
// states its rule lists to its target and writes what goes with it; from every other state, on
// a row that is gone or in another attempt, it is refused with JobTransitionRefused and the row
// is left as it was.
#include <catch2/catch.hpp>

#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "submit/core/workload_json.h"
#include "submit/local/state/job_table.h"
#include "submit/local/state/state_store.h"

namespace fs = std::filesystem;
using namespace lane::submit;
using namespace lane::submit::local;

namespace {

struct TableFixture {
  TableFixture() : dir(make_dir()), db(dir / "state.db") { ensure_schema(db); }
  ~TableFixture() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }

  static fs::path make_dir() {
    std::string tmpl = (fs::temp_directory_path() / "lane-job-table-XXXXXX").string();
    REQUIRE(mkdtemp(tmpl.data()) != nullptr);
    return tmpl;
  }

  int64_t submit(const std::string& name) {
    JobSpec spec;
    spec.name = name;
    spec.project = "team-a";
    spec.image = "busybox";
    spec.gpu = 1;
    return insert_job(db, spec, 1000);
  }

  JobRow row(int64_t id) {
    auto r = load_job_row_by_id(db, id, true);
    REQUIRE(r);
    return *r;
  }

  // A job in `state`, reached through the transitions themselves.
  int64_t job_in(JobStatus state, const std::string& name) {
    const int64_t id = submit(name);
    if (state == JobStatus::kPending) return id;
    if (state == JobStatus::kSuspended) {
      suspend_job(db, id, "suspended by lanectl suspend");
      return id;
    }
    const int attempt = start_job(db, id, {{"node-a", {0}, 1.0}}, 2000);
    if (state == JobStatus::kSucceeded) finish_job(db, id, attempt, true, "", 0, 3000);
    if (state == JobStatus::kFailed) finish_job(db, id, attempt, false, "the command exited with code 3", 3, 3000);
    return id;
  }

  fs::path dir;
  Database db;
};

// Applies `t` to job `id` in its current attempt, with fixed arguments.
void apply(Database& db, JobTransition t, int64_t id, int attempt) {
  switch (t) {
    case JobTransition::kStart: start_job(db, id, {{"node-a", {1}, 1.0}}, 5000); return;
    case JobTransition::kPreempt: preempt_job(db, id, "preempted: project team-b is below its fair share"); return;
    case JobTransition::kRunAgain: run_job_again(db, id, attempt, "retry 1 of 2"); return;
    case JobTransition::kSucceed: finish_job(db, id, attempt, true, "", 0, 5000); return;
    case JobTransition::kFail: finish_job(db, id, attempt, false, "exit 1", 1, 5000); return;
    case JobTransition::kLoseSupervisor: fail_lost_supervisor(db, id, "supervisor process 1 is gone", 5000); return;
    case JobTransition::kSuspend: suspend_job(db, id, "suspended by lanectl suspend"); return;
    case JobTransition::kResume: resume_job(db, id, "waiting for the scheduler"); return;
  }
}

// Every column a transition may write, to show a refused one wrote nothing.
std::string columns(const JobRow& r) {
  return std::string(to_string(r.status)) + "|" + r.reason + "|" + r.placement.dump() + "|" +
         std::to_string(r.attempt) + "|" + std::to_string(r.preemptions) + "|" + std::to_string(r.sup_pid) + "|" +
         std::to_string(r.exit_code.value_or(-1)) + "|" + std::to_string(r.started_ms) + "|" +
         std::to_string(r.finished_ms) + "|" + std::to_string(r.alloc) + "|" + r.nodes;
}

const std::vector<JobStatus> kStoredStates = {JobStatus::kPending, JobStatus::kRunning, JobStatus::kSucceeded,
                                              JobStatus::kFailed, JobStatus::kSuspended};

}  // namespace

TEST_CASE("job table: submit inserts a Pending job waiting for the scheduler", "[local_backend][fast]") {
  TableFixture t;
  const JobRow r = t.row(t.submit("a"));
  CHECK(r.status == JobStatus::kPending);
  CHECK(r.reason == "waiting for the scheduler");
  CHECK(r.attempt == 0);
  CHECK(r.created_ms == 1000);
}

TEST_CASE("job table: start makes a Pending job Running on its placement in a new attempt", "[local_backend][fast]") {
  TableFixture t;
  const int64_t id = t.submit("a");
  CHECK(start_job(t.db, id, {{"node-a", {0, 1}, 0.5}, {"node-b", {2}, 1.0}}, 2000) == 1);
  const JobRow r = t.row(id);
  CHECK(r.status == JobStatus::kRunning);
  CHECK(r.reason.empty());
  CHECK(r.attempt == 1);
  CHECK(r.started_ms == 2000);
  CHECK(r.alloc == Approx(2.0));
  CHECK(r.nodes == "node-a,node-b");
  CHECK(r.placement.size() == 2);
  CHECK(r.placement[0]["gpus"] == nlohmann::json::array({0, 1}));
}

TEST_CASE("job table: preempt sends a Running job back to Pending, off its GPUs, ending its attempt", "[local_backend][fast]") {
  TableFixture t;
  const int64_t id = t.job_in(JobStatus::kRunning, "a");
  record_supervisor(t.db, id, 1, 4242, 77);
  preempt_job(t.db, id, "preempted: project team-b is below its fair share");
  const JobRow r = t.row(id);
  CHECK(r.status == JobStatus::kPending);
  CHECK(r.reason == "preempted: project team-b is below its fair share");
  CHECK(r.attempt == 2);
  CHECK(r.preemptions == 1);
  CHECK(r.sup_pid == 0);
  CHECK(r.placement.empty());
  CHECK(r.alloc == 0);
  CHECK(r.nodes.empty());
  // It starts again later, keeping its first start time.
  CHECK(start_job(t.db, id, {{"node-a", {0}, 1.0}}, 9000) == 3);
  CHECK(t.row(id).started_ms == 2000);
}

TEST_CASE("job table: run again sends a Running job back to Pending in the same attempt", "[local_backend][fast]") {
  TableFixture t;
  const int64_t id = t.job_in(JobStatus::kRunning, "a");
  run_job_again(t.db, id, 1, "exit 1; retry 1 of 2 (--backoff-limit)");
  const JobRow r = t.row(id);
  CHECK(r.status == JobStatus::kPending);
  CHECK(r.reason == "exit 1; retry 1 of 2 (--backoff-limit)");
  CHECK(r.attempt == 1);
  CHECK(r.placement.empty());
}

TEST_CASE("job table: succeed and fail end a Running job with its exit code", "[local_backend][fast]") {
  TableFixture t;
  const int64_t ok = t.job_in(JobStatus::kRunning, "ok");
  finish_job(t.db, ok, 1, true, "", 0, 3000);
  CHECK(t.row(ok).status == JobStatus::kSucceeded);
  CHECK(t.row(ok).exit_code == 0);
  CHECK(t.row(ok).finished_ms == 3000);

  const int64_t bad = t.job_in(JobStatus::kRunning, "bad");
  finish_job(t.db, bad, 1, false, "the command exited with code 3", 3, 3500);
  const JobRow r = t.row(bad);
  CHECK(r.status == JobStatus::kFailed);
  CHECK(r.reason == "the command exited with code 3");
  CHECK(r.exit_code == 3);
  CHECK(r.finished_ms == 3500);
  CHECK(r.nodes == "node-a");  // a finished job still shows where it ran
}

TEST_CASE("job table: lose supervisor fails a Running job", "[local_backend][fast]") {
  TableFixture t;
  const int64_t id = t.job_in(JobStatus::kRunning, "a");
  fail_lost_supervisor(t.db, id, "supervisor process 1 is gone", 4000);
  const JobRow r = t.row(id);
  CHECK(r.status == JobStatus::kFailed);
  CHECK(r.reason == "supervisor process 1 is gone");
  CHECK(r.finished_ms == 4000);
  CHECK(!r.exit_code);
}

TEST_CASE("job table: suspend stops a Pending or Running job, resume makes it Pending", "[local_backend][fast]") {
  TableFixture t;
  const int64_t running = t.job_in(JobStatus::kRunning, "running");
  suspend_job(t.db, running, "suspended by lanectl suspend");
  JobRow r = t.row(running);
  CHECK(r.status == JobStatus::kSuspended);
  CHECK(r.attempt == 2);  // the stopped attempt's supervisor records nothing
  CHECK(r.placement.empty());

  const int64_t pending = t.job_in(JobStatus::kPending, "pending");
  suspend_job(t.db, pending, "suspended by lanectl suspend");
  CHECK(t.row(pending).status == JobStatus::kSuspended);

  resume_job(t.db, running, "waiting for the scheduler");
  r = t.row(running);
  CHECK(r.status == JobStatus::kPending);
  CHECK(r.reason == "waiting for the scheduler");
}

TEST_CASE("job table: every transition is allowed exactly from the states of its rule", "[local_backend][fast]") {
  for (JobTransition tr : all_job_transitions()) {
    const JobTransitionRule& rule = transition_rule(tr);
    for (JobStatus from : kStoredStates) {
      TableFixture t;
      const int64_t id = t.job_in(from, "a");
      const JobRow before = t.row(id);
      const bool allowed = std::find(rule.from.begin(), rule.from.end(), from) != rule.from.end();
      INFO(rule.name << " from " << to_string(from));
      if (allowed) {
        apply(t.db, tr, id, before.attempt);
        CHECK(t.row(id).status == rule.to);
        continue;
      }
      try {
        apply(t.db, tr, id, before.attempt);
        FAIL("not refused");
      } catch (const JobTransitionRefused& e) {
        CHECK(e.current() == from);
      }
      CHECK(columns(t.row(id)) == columns(before));
    }
  }
}

TEST_CASE("job table: a Succeeded job cannot start again", "[local_backend][fast]") {
  TableFixture t;
  const int64_t id = t.job_in(JobStatus::kSucceeded, "a");
  try {
    start_job(t.db, id, {{"node-a", {0}, 1.0}}, 9000);
    FAIL("not refused");
  } catch (const JobTransitionRefused& e) {
    CHECK(std::string(e.what()) == "cannot start job " + std::to_string(id) + ": it is Succeeded, not Pending");
  }
  CHECK(t.row(id).status == JobStatus::kSucceeded);
}

TEST_CASE("job table: a transition of a deleted job is refused", "[local_backend][fast]") {
  TableFixture t;
  const int64_t id = t.job_in(JobStatus::kRunning, "a");
  erase_job(t.db, id);
  CHECK(!load_job_row_by_id(t.db, id, false));
  try {
    finish_job(t.db, id, 1, true, "", 0, 3000);
    FAIL("not refused");
  } catch (const JobTransitionRefused& e) {
    CHECK(!e.current());
    CHECK(std::string(e.what()) == "cannot succeed job " + std::to_string(id) + ": it no longer exists");
  }
}

TEST_CASE("job table: an attempt that has ended can neither finish nor record its processes", "[local_backend][fast]") {
  TableFixture t;
  const int64_t id = t.job_in(JobStatus::kRunning, "a");
  preempt_job(t.db, id, "preempted");
  start_job(t.db, id, {{"node-a", {0}, 1.0}}, 6000);  // attempt 3 runs now
  const JobRow before = t.row(id);
  CHECK_THROWS_AS(finish_job(t.db, id, 1, true, "", 0, 7000), JobTransitionRefused);
  CHECK_THROWS_AS(run_job_again(t.db, id, 1, "retry"), JobTransitionRefused);
  CHECK_THROWS_AS(record_job_processes(t.db, id, 1, 999, 5), JobTransitionRefused);
  CHECK_THROWS_AS(record_supervisor(t.db, id, 1, 999, 5), JobTransitionRefused);
  CHECK(columns(t.row(id)) == columns(before));
  record_job_processes(t.db, id, 3, 999, 5);
  CHECK(t.row(id).child_pgid == 999);
  CHECK(t.row(id).child_start == 5);
}

TEST_CASE("job table: only a Pending job's reason is set by the scheduler", "[local_backend][fast]") {
  TableFixture t;
  const int64_t pending = t.job_in(JobStatus::kPending, "p");
  set_pending_reason(t.db, pending, "project team-a is at its quota");
  CHECK(t.row(pending).reason == "project team-a is at its quota");
  const int64_t running = t.job_in(JobStatus::kRunning, "r");
  CHECK_THROWS_AS(set_pending_reason(t.db, running, "waiting"), JobTransitionRefused);
  CHECK(t.row(running).reason.empty());
}

TEST_CASE("job table: the stored status strings are those earlier versions wrote", "[local_backend][fast]") {
  TableFixture t;
  const int64_t id = t.job_in(JobStatus::kSucceeded, "a");
  auto st = t.db.prepare("SELECT status FROM jobs WHERE id = ?1");
  st.bind(1, id);
  REQUIRE(st.step());
  CHECK(st.text(0) == "Succeeded");
  std::map<JobTransition, std::string> targets;
  for (JobTransition tr : all_job_transitions()) targets[tr] = to_string(transition_rule(tr).to);
  CHECK(targets[JobTransition::kStart] == "Running");
  CHECK(targets[JobTransition::kSuspend] == "Suspended");
  CHECK(targets[JobTransition::kLoseSupervisor] == "Failed");
}

TEST_CASE("job table: status_in names the stored texts of the states, so SQL selects what JobStatus means", "[local_backend][fast]") {
  CHECK(status_in({JobStatus::kPending, JobStatus::kRunning}) == "status IN ('Pending','Running')");
  CHECK(status_in({JobStatus::kSucceeded}) == "status IN ('Succeeded')");
  for (JobStatus s : {JobStatus::kPending, JobStatus::kRunning, JobStatus::kSucceeded, JobStatus::kFailed})
    CHECK(job_status_from_string(to_string(s)) == s);  // the text the table stores reads back as the state
}

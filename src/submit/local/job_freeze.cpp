#include "submit/local/job_freeze.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <vector>

#include <fmt/format.h>

#include "common/error.h"
#include "submit/core/workload_json.h"
#include "submit/local/runtime/cgroup_freezer.h"
#include "submit/local/runtime/job_cgroup.h"
#include "submit/local/runtime/process_identity.h"
#include "submit/local/state/state_store.h"

namespace lane::submit::local {
namespace {

// An active job that mounts the volume read-write, and its freezer ("" when it has none).
struct Writer {
  int64_t id = 0;
  std::string label;  // project/name
  JobStatus status = JobStatus::kPending;
  bool supervised = false;  // its supervisor runs (the job has or will have processes)
  std::string freezer;
  bool has_processes = false;  // any of its cgroups holds a process (its supervisor makes them all,
                               // freezer last, before the first process joins, and removes them
                               // once the last has left, before the state says so)
};

std::vector<Writer> writers_of(Database& db, const std::string& volume, const std::string& root) {
  std::vector<Writer> out;
  ReadTransaction tx(db);
  for (const JobRow& row : load_job_rows(db, std::nullopt, true, true)) {
    const JobSpec spec = spec_from_json(nlohmann::json::parse(row.spec_json));
    const auto claims = claims_of(spec);
    bool writes = false;
    for (size_t i = 0; i < claims.size(); ++i) writes = writes || (claims[i] == volume && !spec.pvcs[i].read_only);
    if (!writes) continue;
    const bool supervised = row.sup_pid > 0 && process_alive(row.sup_pid, row.sup_start);
    const std::string group = job_cgroup_name(row.sup_pid, row.id);
    // Processes before the freezer: a group that holds one has a freezer beside it until they are gone.
    const auto groups = supervised ? existing_job_cgroups(group, root) : std::vector<std::string>{};
    const bool has_processes = std::any_of(groups.begin(), groups.end(), cgroup_populated);
    out.push_back({row.id, row.project + "/" + row.name, row.status, supervised,
                   supervised ? job_freezer(group, root) : "", has_processes});
  }
  // Locks are taken in one order (job id) by every snapshot: two of them never wait on each other.
  std::sort(out.begin(), out.end(), [](const Writer& a, const Writer& b) { return a.id < b.id; });
  return out;
}

const int kHeldSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

class WriterFreeze : public storage::local::CaptureHold {
 public:
  WriterFreeze(Database& db, std::string volume, FreezeOptions options)
      : db_(db), volume_(std::move(volume)), options_(std::move(options)) {
    sigset_t held;
    sigemptyset(&held);
    for (int s : kHeldSignals) sigaddset(&held, s);
    pthread_sigmask(SIG_BLOCK, &held, &previous_);
  }
  ~WriterFreeze() override {
    for (const auto& line : frozen_.thaw()) fmt::print(stderr, "lanectl: {}\n", line);
    pthread_sigmask(SIG_SETMASK, &previous_, nullptr);  // a held signal acts now, the jobs thawed
  }

  void freeze_all();
  void annotate(std::map<std::string, std::string>& metadata) const override;
  void check() override;
  void release() override;

 private:
  void freeze_one(const Writer& w);

  Database& db_;
  std::string volume_;
  FreezeOptions options_;
  sigset_t previous_{};
  std::vector<lane::UniqueFd> locks_;  // released after the thaw (members go after the body)
  FrozenCgroups frozen_;
  std::vector<std::string> frozen_jobs_, unfrozen_;
};

// A root lanectl on a host with a freezer: a supervised job none of whose groups holds a process
// has no processes now (they have not started, or have ended and the state is not updated yet).
// Its groups may exist without a freezer yet: on cgroup v1 its supervisor makes them one by one.
bool between_processes(const Writer& w, const std::string& cgroup_root) {
  return w.freezer.empty() && !w.has_processes && geteuid() == 0 && freezer_unavailable(cgroup_root).empty();
}

void WriterFreeze::freeze_all() {
  for (const Writer& w : writers_of(db_, volume_, options_.cgroup_root)) {
    // Not started, or between processes: release() checks that it did not start meanwhile.
    if (!w.supervised || between_processes(w, options_.cgroup_root)) continue;
    freeze_one(w);
  }
}

void WriterFreeze::freeze_one(const Writer& w) {
  const bool caller = options_.caller_job == w.id;
  std::string why;
  if (w.freezer.empty()) {
    why = freezer_unavailable(options_.cgroup_root);
    if (why.empty()) why = "its cgroup has no freezer (it was started by an older lanectl, or without root)";
  } else if (in_freezer(w.freezer)) {
    why = "this lanectl runs inside that job's cgroup and would freeze itself";
  }
  if (why.empty()) {
    try {
      locks_.push_back(lock_freezes(freeze_lock_file(options_.paths, w.id), [this] { check(); }));
      frozen_.freeze(w.freezer);
    } catch (const Error& e) {
      throw Error(fmt::format("cannot snapshot volume '{}' at one point in time: job '{}' writes to it and {}; "
                              "nothing was taken: try again, or stop the job first",
                              volume_, w.label, e.what()));
    }
    frozen_jobs_.push_back(w.label);
    return;
  }
  if (!caller && !options_.no_freeze)
    throw Error(fmt::format("cannot snapshot volume '{}' at one point in time: job '{}' is {} and writes to it, "
                            "and lanectl cannot freeze it: {}. Stop the job first, or set "
                            "LANECTL_SNAPSHOT_NO_FREEZE=1 to take a snapshot that is not point in time",
                            volume_, w.label, to_string(w.status), why));
  unfrozen_.push_back(fmt::format("{} not frozen: {}", w.label, why));
}

void WriterFreeze::annotate(std::map<std::string, std::string>& metadata) const {
  if (!frozen_jobs_.empty()) metadata["frozenJobs"] = fmt::format("{}", fmt::join(frozen_jobs_, ","));
  if (!unfrozen_.empty()) metadata["pointInTime"] = fmt::format("false ({})", fmt::join(unfrozen_, "; "));
}

void WriterFreeze::check() {
  sigset_t pending;
  sigpending(&pending);
  for (int s : kHeldSignals)
    if (sigismember(&pending, s) && !sigismember(&previous_, s))
      throw Error(fmt::format("interrupted by signal {}; the snapshot was not taken and the jobs are thawed", s));
}

void WriterFreeze::release() {
  std::vector<std::string> problems;
  for (const Writer& w : writers_of(db_, volume_, options_.cgroup_root)) {
    const bool held = w.freezer.empty() || std::count(frozen_.frozen().begin(), frozen_.frozen().end(), w.freezer);
    if (!held && cgroup_populated(w.freezer))
      problems.push_back(fmt::format("job '{}' started writing to volume '{}' while the snapshot read it; nothing "
                                     "was taken: take it again",
                                     w.label, volume_));
  }
  for (auto& line : frozen_.thaw()) problems.push_back(std::move(line));
  locks_.clear();
  if (!problems.empty()) throw Error(fmt::format("{}", fmt::join(problems, "\n")));
}

}  // namespace

std::filesystem::path freeze_lock_file(const Paths& paths, int64_t job_id) {
  return paths.job_dir(job_id) / "freeze.lock";
}

FreezeOptions freeze_options_from_env(const Paths& paths, std::optional<int64_t> caller_job) {
  FreezeOptions o;
  o.paths = paths;
  o.caller_job = caller_job;
  const char* v = std::getenv("LANECTL_SNAPSHOT_NO_FREEZE");
  o.no_freeze = v && std::string(v) == "1";
  return o;
}

std::unique_ptr<storage::local::CaptureHold> hold_volume_writers(Database& db, const std::string& volume,
                                                                 const FreezeOptions& options) {
  auto hold = std::make_unique<WriterFreeze>(db, volume, options);
  hold->freeze_all();
  return hold;
}

}  // namespace lane::submit::local

// The job supervisor as an object (supervisor/job_supervisor.h), run in this process: it owns
// every descriptor it opens (the signalfd, the job API socket, the output pipe, the state
// database) and leaves none open behind it, whether the attempt ran, could not start, or was
// no longer the job's; and it gives back the signal mask it took.
#include <catch2/catch.hpp>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "submit/local/state/job_table.h"
#include "submit/local/state/local_state.h"
#include "submit/local/supervisor/job_supervisor.h"

namespace fs = std::filesystem;
using namespace lane::submit;
using namespace lane::submit::local;

namespace {

std::set<int> open_fds() {
  std::set<int> fds;
  DIR* dir = opendir("/proc/self/fd");
  REQUIRE(dir != nullptr);
  while (dirent* e = readdir(dir)) {
    if (e->d_name[0] == '.') continue;
    const int fd = std::atoi(e->d_name);
    if (fd != dirfd(dir)) fds.insert(fd);
  }
  closedir(dir);
  return fds;
}

bool is_open(int fd) { return fcntl(fd, F_GETFD) != -1; }

bool sigterm_blocked() {
  sigset_t now;
  sigprocmask(SIG_BLOCK, nullptr, &now);
  return sigismember(&now, SIGTERM) == 1;
}

struct Home {
  Home() {
    std::string tmpl = (fs::temp_directory_path() / "lane-supervisor-XXXXXX").string();
    REQUIRE(mkdtemp(tmpl.data()) != nullptr);
    path = tmpl;
    LocalState state(path);  // the schema
  }
  ~Home() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }

  // A job the scheduling pass has just started (attempt 1), without its supervisor.
  int64_t running_job(const JobSpec& spec) {
    LocalState state(path);
    WriteTransaction tx(state.db);
    const int64_t id = insert_job(state.db, spec, 1000);
    REQUIRE(start_job(state.db, id, {{"node-a", {}, 1.0}}, 2000) == 1);
    tx.commit();
    return id;
  }

  JobRow row(int64_t id) {
    LocalState state(path);
    auto r = load_job_row_by_id(state.db, id, false);
    REQUIRE(r);
    return *r;
  }

  fs::path path;
};

JobSpec spec_of(const std::string& name, std::vector<std::string> command) {
  JobSpec spec;
  spec.name = name;
  spec.project = "default";
  spec.image = "not-a-local-image";
  spec.gpu = 0;
  spec.command = std::move(command);
  return spec;
}

}  // namespace

TEST_CASE("supervisor: UniqueFd closes what it owns, once", "[local_backend][fast]") {
  int p[2];
  REQUIRE(pipe(p) == 0);
  {
    UniqueFd a(p[0]);
    UniqueFd b(std::move(a));
    CHECK(a.get() == -1);
    CHECK(is_open(p[0]));
    b.reset(p[1]);
    CHECK(!is_open(p[0]));
    CHECK(is_open(p[1]));
  }
  CHECK(!is_open(p[1]));
}

TEST_CASE("supervisor: StopSignals closes its signalfd and restores the signal mask", "[local_backend][fast]") {
  REQUIRE(!sigterm_blocked());
  int fd = -1;
  {
    StopSignals signals;
    fd = signals.fd();
    CHECK(fd >= 0);
    CHECK(is_open(fd));
    CHECK(sigterm_blocked());
    CHECK(sigismember(&signals.previous_mask(), SIGTERM) == 0);
  }
  CHECK(!is_open(fd));
  CHECK(!sigterm_blocked());
}

TEST_CASE("supervisor: an attempt that is no longer the job's runs nothing and leaves no descriptor open", "[local_backend][fast]") {
  Home home;
  const int64_t id = home.running_job(spec_of("gone", {"true"}));
  const std::set<int> before = open_fds();
  JobSupervisor(home.path, id, /*attempt=*/7).run();
  CHECK(open_fds() == before);
  CHECK(home.row(id).status == JobStatus::kRunning);  // not this supervisor's attempt: untouched
  CHECK(!sigterm_blocked());
}

TEST_CASE("supervisor: a job that cannot start is recorded Failed and leaves no descriptor open", "[local_backend][fast]") {
  Home home;
  const int64_t id = home.running_job(spec_of("nostart", {}));  // no command, no local image
  const std::set<int> before = open_fds();
  JobSupervisor(home.path, id, 1).run();
  CHECK(open_fds() == before);
  const JobRow r = home.row(id);
  CHECK(r.status == JobStatus::kFailed);
  CHECK(r.exit_code == 127);
  CHECK(r.reason.rfind("cannot start: image 'not-a-local-image'", 0) == 0);
}

TEST_CASE("supervisor: a job that runs to its end is recorded and leaves no descriptor open", "[local_backend][fast]") {
  Home home;
  const int64_t id = home.running_job(spec_of("runs", {"sh", "-c", "echo supervised; exit 3"}));
  const std::set<int> before = open_fds();
  JobSupervisor(home.path, id, 1).run();
  CHECK(open_fds() == before);
  CHECK(!sigterm_blocked());
  const JobRow r = home.row(id);
  CHECK(r.status == JobStatus::kFailed);
  CHECK(r.exit_code == 3);
  CHECK(r.reason == "the command exited with code 3");
  std::ifstream log(home.path / "jobs" / std::to_string(id) / "output.log");
  std::stringstream text;
  text << log.rdbuf();
  CHECK(text.str().find(" supervised\n") != std::string::npos);
}

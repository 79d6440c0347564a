// bench_list_jobs [JOBS=10000] [RUNS=15]
// Fills a fresh LANECTL_HOME with JOBS jobs (rows written straight into the local backend's
// schema, 90% finished, 10% pending), then times `lanectl list -A` as a real process (output to
// /dev/null; median of RUNS). Baselines from the same run: the same SELECT done in-process with
// the SQLite API, and `lanectl list -A` over JOBS/10 jobs. With BENCH_BASELINE_LANECTL=PATH, also
// that lanectl binary (e.g. an earlier commit's) over the same JOBS jobs, runs interleaved.
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

void sql(sqlite3* db, const std::string& s) {
  char* err = nullptr;
  if (sqlite3_exec(db, s.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    fmt::print(stderr, "sqlite: {}\n", err ? err : "?");
    std::exit(1);
  }
}

const std::string kLanectl = std::string(LANE_BIN_DIR) + "/lanectl";

int run_lanectl(const fs::path& home, const std::vector<std::string>& args, const std::string& exe = kLanectl) {
  pid_t pid = fork();
  if (pid == 0) {
    setenv("LANECTL_HOME", home.c_str(), 1);
    setenv("LANECTL_BACKEND", "local", 1);
    freopen("/dev/null", "w", stdout);
    std::vector<char*> argv{const_cast<char*>(exe.c_str())};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(exe.c_str(), argv.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

fs::path make_home(int jobs) {
  char tmpl[] = "/tmp/lanectl-bench-XXXXXX";
  fs::path home = mkdtemp(tmpl);
  // Let lanectl create its schema and declare a small cluster, then bulk-insert the rows.
  if (run_lanectl(home, {"cluster", "set-nodes", "node-a=8"}) != 0) std::exit(1);
  sqlite3* db = nullptr;
  sqlite3_open((home / "state.db").c_str(), &db);
  sql(db, "BEGIN IMMEDIATE");
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db,
      "INSERT INTO jobs(project, name, type, image, user, gpu, pods, spec, status, reason, placement, "
      "exit_code, created_ms, started_ms, finished_ms, alloc, nodes) "
      "VALUES(?1,?2,?3,'scnn-train','bench',?4,?5,?6,?7,?8,?9,?10,?11,?11,?11,?12,?13)",
      -1, &st, nullptr);
  int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::chrono::system_clock::now().time_since_epoch()).count();
  for (int i = 0; i < jobs; ++i) {
    std::string project = fmt::format("team-{}", i % 4);
    std::string name = fmt::format("job-{:05d}", i);
    bool pending = i % 10 == 0;
    bool mpi = i % 3 == 0;
    std::string spec = fmt::format(R"({{"name":"{}","project":"{}","image":"scnn-train","gpu":1}})", name, project);
    std::string placement = pending ? "[]" : R"([{"node":"node-a","gpus":[0],"share":1.0}])";
    sqlite3_bind_text(st, 1, project.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, name.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, mpi ? "Mpi" : "Train", -1, SQLITE_STATIC);
    sqlite3_bind_double(st, 4, pending ? 16.0 : 1.0);  // pending ones ask for more than exists... per pod
    sqlite3_bind_int(st, 5, mpi ? 3 : 1);
    sqlite3_bind_text(st, 6, spec.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 7, pending ? "Pending" : "Succeeded", -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 8, pending ? "waiting for GPUs" : "", -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 9, placement.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(st, 10, 0);
    sqlite3_bind_int64(st, 11, now - (jobs - i) * 1000);
    sqlite3_bind_double(st, 12, pending ? 0.0 : 1.0);
    sqlite3_bind_text(st, 13, pending ? "" : "node-a", -1, SQLITE_STATIC);
    sqlite3_step(st);
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  sql(db, "COMMIT");
  sqlite3_close(db);
  return home;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Medians of `runs` timed `list -A` of each binary, run in turn (a change of load hits all alike).
std::vector<double> time_lanectls(const fs::path& home, int runs, const std::vector<std::string>& exes) {
  std::vector<std::vector<double>> ms(exes.size());
  for (const auto& exe : exes) run_lanectl(home, {"list", "-A"}, exe);  // warm the page cache
  for (int i = 0; i < runs; ++i)
    for (size_t e = 0; e < exes.size(); ++e) {
      auto t0 = Clock::now();
      if (run_lanectl(home, {"list", "-A"}, exes[e]) != 0) {
        fmt::print(stderr, "{} list -A failed\n", exes[e]);
        std::exit(1);
      }
      ms[e].push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
  std::vector<double> out;
  for (auto& m : ms) out.push_back(median(m));
  return out;
}

double time_lanectl(const fs::path& home, int runs) { return time_lanectls(home, runs, {kLanectl})[0]; }

double time_raw_select(const fs::path& home, int runs) {
  std::vector<double> ms;
  for (int i = 0; i < runs; ++i) {
    auto t0 = Clock::now();
    sqlite3* db = nullptr;
    sqlite3_open((home / "state.db").c_str(), &db);
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(db,
        "SELECT id, project, name, type, image, user, gpu, pods, status, reason, placement, created_ms "
        "FROM jobs ORDER BY project, name", -1, &st, nullptr);
    size_t bytes = 0;
    while (sqlite3_step(st) == SQLITE_ROW) bytes += static_cast<size_t>(sqlite3_column_bytes(st, 2));
    sqlite3_finalize(st);
    sqlite3_close(db);
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    if (bytes == 0) std::exit(1);
  }
  return median(ms);
}

}  // namespace

int main(int argc, char** argv) {
  int jobs = argc > 1 ? std::atoi(argv[1]) : 10000;
  int runs = argc > 2 ? std::atoi(argv[2]) : 15;
  fs::path big = make_home(jobs);
  fs::path small = make_home(jobs / 10);
  const char* baseline = std::getenv("BENCH_BASELINE_LANECTL");
  std::vector<std::string> exes{kLanectl};
  if (baseline && *baseline) exes.push_back(baseline);
  const std::vector<double> t_bigs = time_lanectls(big, runs, exes);
  const double t_big = t_bigs[0];
  double t_small = time_lanectl(small, runs);
  double t_raw = time_raw_select(big, runs);
  double t_empty = 0;
  {
    fs::path empty = make_home(0);
    t_empty = time_lanectl(empty, runs);
    fs::remove_all(empty);
  }
  fmt::print("bench_list_jobs: median of {} runs\n", runs);
  fmt::print("{:<44} {:>10} {:>8}\n", "case", "ms", "ratio");
  fmt::print("{:<44} {:>10.1f} {:>8}\n", fmt::format("lanectl list -A, {} jobs", jobs), t_big, "1.00");
  if (exes.size() > 1)
    fmt::print("{:<44} {:>10.1f} {:>8.2f}\n", fmt::format("baseline lanectl list -A, {} jobs", jobs), t_bigs[1],
               t_big / t_bigs[1]);
  fmt::print("{:<44} {:>10.1f} {:>8.2f}\n", fmt::format("lanectl list -A, {} jobs", jobs / 10), t_small, t_big / t_small);
  fmt::print("{:<44} {:>10.1f} {:>8.2f}\n", "lanectl list -A, 0 jobs (process + open)", t_empty, t_big / t_empty);
  fmt::print("{:<44} {:>10.1f} {:>8.2f}\n", fmt::format("raw SQLite SELECT, {} rows, in-process", jobs), t_raw, t_big / t_raw);
  fmt::print("target: lanectl list over 10,000 jobs <= 150 ms: {}\n", t_big <= 150 ? "met" : "NOT met");
  if (std::getenv("BENCH_KEEP")) fmt::print("kept {}\n", big.string()); else fs::remove_all(big);
  fs::remove_all(small);
  return 0;
}

// Issue 28: what a job may use of the host. Its own network (host loopback unreachable, other
// jobs' sockets unseen, --host-network only where the project allows it), cgroup limits
// (--memory enforced and an OOM kill reported as such, --cpu, a process limit), a read-only
// /sys/fs/cgroup, a bounded job API and bounded logs (--tail from the end), and a full disk
// that leaves the state usable. Every check looks at the host side.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "support/lanectl_runner.h"
#include "support/skip_case.h"
#include "local_backend/sandbox_modes.h"

using lane::test::Lanectl;
using lane::test::wait_until;
namespace fs = std::filesystem;

namespace {

nlohmann::json ended(Lanectl& l, const std::string& job, const std::string& project = "default") {
  return l.wait_status(job, {"Succeeded", "Failed"}, project);
}

// A TCP listener on the host's 127.0.0.1 (a port of its own): what a job must not reach.
struct HostListener {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  int port = 0;
  HostListener() {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    REQUIRE(listen(fd, 16) == 0);
    socklen_t len = sizeof a;
    getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    port = ntohs(a.sin_port);
  }
  ~HostListener() { close(fd); }
  int accepted() const {
    int n = 0;
    for (int c; (c = accept(fd, nullptr, nullptr)) >= 0; ++n) close(c);
    return n;
  }
};

std::string probe_network(int port) {
  return "if (exec 3<>/dev/tcp/127.0.0.1/" + std::to_string(port) +
         ") 2>/tmp/err; then echo REACHED; else echo NOT-REACHED; cat /tmp/err; fi; "
         "echo unix-sockets: $(grep -c api.sock /proc/net/unix)";
}

// The cgroup (v1 controller `controller`, or v2 "") of the job's processes: from /proc/PID/cgroup
// of the process whose command line contains `marker`.
std::string cgroup_of(const std::string& marker, const std::string& controller) {
  for (const auto& e : fs::directory_iterator("/proc")) {
    std::string name = e.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string cmd = lane::test::slurp(e.path() / "cmdline");
    for (auto& c : cmd)
      if (c == '\0') c = ' ';
    if (cmd.find(marker) == std::string::npos) continue;
    std::istringstream lines(lane::test::slurp(e.path() / "cgroup"));
    for (std::string line; std::getline(lines, line);) {
      auto first = line.find(':'), second = line.find(':', first + 1);
      std::string ctrls = line.substr(first + 1, second - first - 1);
      if ((controller.empty() && ctrls.empty()) || ("," + ctrls + ",").find("," + controller + ",") != std::string::npos)
        return line.substr(second + 1);
    }
  }
  return "";
}

bool cgroup_v1(const std::string& file) { return geteuid() == 0 && fs::exists("/sys/fs/cgroup/" + file); }

}  // namespace

TEST_CASE("a job has its own network: the host's loopback is unreachable, other jobs' sockets unseen", "[local_backend][fast]") {
  Lanectl l;
  HostListener host;
  REQUIRE(l.run({"submit", "other", "-i", "x", "--command", "--", "sleep", "30"}).code == 0);
  REQUIRE(l.wait_status("other", {"Running"}).value("status", "") == "Running");
  for (const auto& mode : lane::test::sandbox_modes()) {
    l.set_env("LANECTL_SANDBOX", mode);
    const std::string job = "net-" + mode;
    REQUIRE(l.run({"submit", job, "-i", "x", "--command", "--", "/bin/bash", "-c", probe_network(host.port)}).code == 0);
    REQUIRE(ended(l, job).value("status", "") == "Succeeded");
    auto logs = l.run({"logs", job}).out;
    INFO(mode << ": " << logs);
    CHECK(host.accepted() == 0);  // the host side: nothing connected
    CHECK(logs.find("NOT-REACHED") != std::string::npos);
    CHECK(logs.find("Connection refused") != std::string::npos);  // its loopback is up (down: unreachable)
    CHECK(logs.find("unix-sockets: 0") != std::string::npos);     // no job API socket of any job listed
  }
  l.run({"delete", "other"});
}

TEST_CASE("a job asking --host-network needs a project that allows it, then uses the host's network", "[local_backend][fast]") {
  Lanectl l;
  HostListener host;
  auto refused = l.run({"submit", "hn", "-i", "x", "--host-network", "--command", "--", "/bin/bash", "-c",
                        probe_network(host.port)});
  INFO(refused.err);
  CHECK(refused.code == 2);
  CHECK(refused.err.find("project set-network default --allow-host-network") != std::string::npos);
  CHECK(l.job("hn").empty());
  auto allowed = l.run({"project", "set-network", "default", "--allow-host-network"});
  INFO(allowed.err);
  REQUIRE(allowed.code == 0);
  REQUIRE(l.run({"submit", "hn", "-i", "x", "--host-network", "--command", "--", "/bin/bash", "-c",
                 probe_network(host.port)}).code == 0);
  REQUIRE(ended(l, "hn").value("status", "") == "Succeeded");
  CHECK(l.run({"logs", "hn"}).out.find("REACHED") == 0);
  CHECK(host.accepted() == 1);
  // Taken back: refused again; a project created with the flag allows it from the start.
  REQUIRE(l.run({"project", "set-network", "default", "--no-host-network"}).code == 0);
  CHECK(l.run({"submit", "hn2", "-i", "x", "--host-network", "--command", "--", "true"}).code == 2);
  REQUIRE(l.run({"project", "create", "open", "--gpu-quota", "0", "--allow-host-network"}).code == 0);
  l.track_project("open");
  CHECK(l.run({"submit", "hn3", "-p", "open", "-i", "x", "--host-network", "--command", "--", "true"}).code == 0);
}

TEST_CASE("a job's --memory is enforced by a memory cgroup and an OOM kill is reported with the job's limit", "[local_backend][fast]") {
  if (!cgroup_v1("memory/cgroup.procs")) LANE_SKIP_CASE("needs root and the cgroup v1 memory controller");
  Lanectl l;
  REQUIRE(l.run({"submit", "hog", "-i", "x", "--memory", "100Mi", "--command", "--", "dd", "if=/dev/zero",
                 "of=/dev/null", "bs=600M", "count=1"}).code == 0);
  auto doc = ended(l, "hog");
  INFO(doc.dump());
  CHECK(doc.value("status", "") == "Failed");
  const std::string events = doc.dump();
  CHECK(events.find("OOMKilled: out of memory") != std::string::npos);
  CHECK(events.find("--memory 100Mi") != std::string::npos);
  CHECK(events.find("\"OOMKilled\"") != std::string::npos);  // the event's reason
  CHECK(l.run({"list", "-o", "wide"}).out.find("OOMKilled") != std::string::npos);
  // The host side: no group is left behind.
  std::error_code ec;
  size_t left = 0;
  for (const auto& e : fs::directory_iterator("/sys/fs/cgroup/memory/lanectl", ec))
    left += e.is_directory() && lane::test::slurp(e.path() / "cgroup.procs").empty() &&
            std::string(e.path().filename()).find("-job") != std::string::npos &&
            kill(std::stoi(std::string(e.path().filename()).substr(1)), 0) != 0;
  CHECK(left == 0);
}

TEST_CASE("a job's processes are limited (pids cgroup) and --cpu sets its CPU quota", "[local_backend][fast]") {
  if (!cgroup_v1("pids/cgroup.procs") || !cgroup_v1("cpu/cgroup.procs")) LANE_SKIP_CASE("needs root and cgroup v1 pids and cpu");
  Lanectl l;
  l.set_env("LANECTL_JOB_PIDS_MAX", "20");
  // sleep 40 first, then a subshell forks 60 sleeps (it may die on a refused fork); wait needs no fork.
  REQUIRE(l.run({"submit", "forks", "-i", "x", "--cpu", "0.5", "--command", "--", "/bin/sh", "-c",
                 "sleep 40 & (for i in $(seq 60); do sleep 41 & done) 2>/dev/null; wait"}).code == 0);
  std::string pids, cpu;
  REQUIRE(wait_until([&] { return !(pids = cgroup_of("sleep 40", "pids")).empty(); }, 30));
  cpu = cgroup_of("sleep 40", "cpu");
  INFO(pids << " " << cpu);
  const std::string dir = "/sys/fs/cgroup/pids" + pids;
  // The forks ran into the limit: pids.events counts the refusals.
  CHECK(wait_until([&] { return lane::test::slurp(dir + "/pids.events").find("max 0") == std::string::npos; }, 20));
  CHECK(std::stoi(lane::test::slurp(dir + "/pids.max")) == 20);
  CHECK(std::stoi(lane::test::slurp(dir + "/pids.current")) <= 20);
  CHECK(std::stoi(lane::test::slurp("/sys/fs/cgroup/cpu" + cpu + "/cpu.cfs_quota_us")) == 50000);
  CHECK(l.run({"delete", "forks"}).code == 0);
  CHECK(wait_until([&] { return !fs::exists(dir); }, 10));
}

TEST_CASE("/sys/fs/cgroup is read-only in a job, as the rest of /sys", "[local_backend][fast]") {
  Lanectl l;
  for (const auto& mode : lane::test::sandbox_modes()) {
    l.set_env("LANECTL_SANDBOX", mode);
    const std::string job = "sysro-" + mode;
    // Field 6 of mountinfo: the mount's own options (rw or ro first).
    REQUIRE(l.run({"submit", job, "-i", "x", "--command", "--", "/bin/sh", "-c",
                   "awk '$5 ~ \"^/sys\" {print $5, $6}' /proc/self/mountinfo"}).code == 0);
    REQUIRE(ended(l, job).value("status", "") == "Succeeded");
    auto logs = l.run({"logs", job}).out;
    INFO(mode << ":\n" << logs);
    CHECK(logs.find("/sys/fs/cgroup") != std::string::npos);
    CHECK(logs.find(" rw") == std::string::npos);
  }
}

TEST_CASE("the job API answers a bounded number of connections and requests at once", "[local_backend][fast]") {
  Lanectl l;
  REQUIRE(l.run({"submit", "api", "-i", "x", "--command", "--", "sleep", "30"}).code == 0);
  REQUIRE(l.wait_status("api", {"Running"}).value("status", "") == "Running");
  fs::path sock;
  REQUIRE(wait_until([&] {
    for (const auto& e : fs::directory_iterator(l.home() / "jobs"))
      if (fs::exists(e.path() / "api" / "api.sock")) sock = e.path() / "api" / "api.sock";
    return !sock.empty();
  }, 10));
  auto connect_api = [&] {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::strncpy(a.sun_path, sock.c_str(), sizeof a.sun_path - 1);
    REQUIRE(connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    return fd;
  };
  // 60 silent connections: the supervisor's children stay at the cap; the rest get an error.
  std::vector<int> held;
  for (int i = 0; i < 60; ++i) held.push_back(connect_api());
  std::string refusals;
  for (int fd : held) {
    timeval t{0, 20000};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &t, sizeof t);
    char buf[512];
    ssize_t n = read(fd, buf, sizeof buf);
    if (n > 0) refusals.append(buf, static_cast<size_t>(n));
  }
  int children = 0;  // processes whose parent is the job's supervisor (the API handlers and the job)
  const std::string sup = [&] {
    for (const auto& e : fs::directory_iterator("/proc")) {
      std::string cmd = lane::test::slurp(e.path() / "cmdline");
      if (cmd.find("__supervise") != std::string::npos && cmd.find(l.home().string()) != std::string::npos)
        return std::string(e.path().filename());
    }
    return std::string();
  }();
  REQUIRE(!sup.empty());
  for (const auto& e : fs::directory_iterator("/proc")) {
    std::string s = lane::test::slurp(e.path() / "stat");
    auto close_paren = s.rfind(')');
    if (close_paren == std::string::npos) continue;
    std::istringstream f(s.substr(close_paren + 2));
    std::string state, ppid;
    f >> state >> ppid;
    children += ppid == sup;
  }
  CHECK(children <= 5);  // 4 handlers + the job
  CHECK(refusals.find("being answered already") != std::string::npos);
  for (int fd : held) close(fd);
  // A request over 64 KiB gets an error, not an unbounded read.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  int fd = connect_api();
  timeval patience{15, 0};  // an unbounded read would never answer
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &patience, sizeof patience);
  std::string big(100 * 1024, 'x');
  send(fd, big.data(), big.size(), MSG_NOSIGNAL);
  std::string reply;
  char buf[512];
  for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) reply.append(buf, static_cast<size_t>(n));
  close(fd);
  INFO(reply);
  CHECK(reply.find("larger than 64 KiB") != std::string::npos);
  l.run({"delete", "api"});
}

TEST_CASE("a job's log is capped and rotated, long lines are split, and --tail reads from the end", "[local_backend][fast]") {
  Lanectl l;
  l.set_env("LANECTL_LOG_MAX", "1Mi");
  // A 3 MB line without a newline, then 200,000 numbered lines (~7 MB with timestamps).
  REQUIRE(l.run({"submit", "chatty", "-i", "x", "--command", "--", "/bin/sh", "-c",
                 "head -c 3000000 /dev/zero | tr '\\0' x; echo; seq 1 200000"}).code == 0);
  REQUIRE(ended(l, "chatty").value("status", "") == "Succeeded");
  uintmax_t total = 0;
  for (const auto& e : fs::recursive_directory_iterator(l.home() / "jobs"))
    if (e.path().filename().string().rfind("output.log", 0) == 0) total += e.file_size();
  CHECK(total <= (1u << 20) + 70 * 1024);  // the cap (plus at most one record)
  CHECK(l.run({"logs", "chatty", "--tail", "3"}).out == "199998\n199999\n200000\n");
  auto all = l.run({"logs", "chatty"});
  CHECK(all.code == 0);
  size_t longest = 0;
  std::istringstream lines(all.out);
  for (std::string line; std::getline(lines, line);) longest = std::max(longest, line.size());
  CHECK(longest <= 64 * 1024);
  CHECK(all.out.size() < (1u << 20));
}

TEST_CASE("logs --tail reads a large log from its end", "[local_backend][fast]") {
  Lanectl l;
  REQUIRE(l.run({"submit", "big", "-i", "x", "--command", "--", "true"}).code == 0);
  REQUIRE(ended(l, "big").value("status", "") == "Succeeded");
  fs::path log;
  for (const auto& e : fs::directory_iterator(l.home() / "jobs")) log = e.path() / "output.log";
  {  // 300 MB of stamped lines, as a job with a larger LANECTL_LOG_MAX leaves
    std::ofstream out(log);
    std::string line = "2026-11-27T00:00:00.000000Z " + std::string(100, 'y') + "\n";
    for (int i = 0; i < 2'400'000; ++i) out << line;
    out << "2026-11-27T00:00:00.000000Z last\n";
  }
  auto start = std::chrono::steady_clock::now();
  auto r = l.run({"logs", "big", "--tail", "2"});
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(r.out == std::string(100, 'y') + "\nlast\n");
  CHECK(seconds < 1.0);  // reading it whole took seconds
}

TEST_CASE("a job filling the disk of LANECTL_HOME is stopped and reported, and list, logs and delete keep working", "[local_backend][fast]") {
  if (geteuid() != 0) LANE_SKIP_CASE("needs root to mount a small file system");
  const fs::path small = fs::temp_directory_path() / ("lanectl-full-" + std::to_string(getpid()));
  fs::create_directories(small);
  REQUIRE(mount("tmpfs", small.c_str(), "tmpfs", 0, "size=80m") == 0);
  {
    Lanectl l;
    l.set_env("LANECTL_HOME", (small / "home").string());
    REQUIRE(l.run({"submit", "filler", "-i", "x", "--pvc", ":10Gi:/data", "--command", "--", "/bin/sh", "-c",
                   "echo start; dd if=/dev/zero of=/data/fill bs=1M; sleep 30"}).code == 0);
    auto doc = ended(l, "filler");
    INFO(doc.dump());
    CHECK(doc.value("status", "") == "Failed");
    CHECK(doc.dump().find("DiskFull: the file system holding LANECTL_HOME") != std::string::npos);
    auto list = l.run({"list"});
    CHECK(list.code == 0);
    CHECK(list.out.find("filler") != std::string::npos);
    auto logs = l.run({"logs", "filler"});
    CHECK(logs.code == 0);
    CHECK(logs.out.find("start") != std::string::npos);  // the output is kept
    CHECK(!fs::exists(small / "home" / "state.reserve"));  // released for the state
    CHECK(l.run({"delete", "filler"}).code == 0);
    fs::remove(small / "home" / "volumes" / "pvc-filler-0" / "fill");  // space freed
    CHECK(l.run({"submit", "after", "-i", "x", "--command", "--", "true"}).code == 0);
    CHECK(ended(l, "after").value("status", "") == "Succeeded");
    CHECK(fs::file_size(small / "home" / "state.reserve") == 32u << 20);  // kept again
  }
  umount2(small.c_str(), MNT_DETACH);
  fs::remove(small);
}

// Issue 28: the root supervisor never trusts a path a job controls. Each attack runs from inside
// a real job (`lanectl submit ... --command -- sh -c ...`), as root, with both sandbox
// mechanisms; each check looks at the host side (the lineage and objects in the store, owners and
// modes of host files outside LANECTL_HOME), not at what the job printed. The races run for a
// few seconds each (LANE_PATH_RACE_SECONDS, default 4). Counts: docs/reliability.md.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include <fmt/format.h>

#include "job_util.h"
#include "support/lanectl_runner.h"
#include "support/skip_case.h"

using lane::test::bwrap_works;
using lane::test::Lanectl;
using lane::test::start_until_ready;
using lane::test::slurp;
namespace fs = std::filesystem;

namespace {

constexpr int kSwapped = 200;  // directories the attacker swaps: each walk gets this many chances

std::vector<std::string> modes() {
  std::vector<std::string> out{"unshare"};
  if (bwrap_works()) out.push_back("bwrap");
  if (out.size() < 2) WARN("bubblewrap cannot run here: only the unshare sandbox is attacked");
  return out;
}

double race_seconds() {
  const char* v = std::getenv("LANE_PATH_RACE_SECONDS");
  return v && *v ? std::atof(v) : 4.0;
}

// Root-owned host files outside LANECTL_HOME: a 0600 secret holding a metrics line, and a
// directory `tree` of kSwapped subdirectories (0755) with one 0644 file each.
struct Host {
  fs::path dir;
  Host() {
    char tmpl[] = "/tmp/lanectl-host-XXXXXX";
    dir = ::mkdtemp(tmpl);
    ::chmod(dir.c_str(), 0755);
    std::ofstream(dir / "secret") << "{\"kind\":\"train\",\"stolen\":\"HOST-SECRET-28\"}\n";
    ::chmod((dir / "secret").c_str(), 0600);
    for (int i = 0; i < kSwapped; ++i) {
      fs::create_directories(dir / "tree" / fmt::format("s{}", i));
      ::chmod((dir / "tree" / fmt::format("s{}", i)).c_str(), 0755);
      std::ofstream(dir / "tree" / fmt::format("s{}/f", i)) << "host";
    }
  }
  ~Host() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  fs::path secret() const { return dir / "secret"; }
  fs::path tree() const { return dir / "tree"; }
  // Host entries of the tree (itself included) that a job's uid now owns or whose mode changed.
  int tampered() const {
    int n = 0;
    auto check = [&](const fs::path& p) {
      struct stat st {};
      ::lstat(p.c_str(), &st);
      const unsigned want = S_ISDIR(st.st_mode) ? 0755 : 0644;
      if (st.st_uid != 0 || (st.st_mode & 07777) != want) ++n;
    };
    check(tree());
    for (const auto& e : fs::recursive_directory_iterator(tree())) check(e.path());
    return n;
  }
};

// Files under `root` whose content holds `needle`.
int files_holding(const fs::path& root, const std::string& needle) {
  int n = 0;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec))
    if (it->is_regular_file() && slurp(it->path()).find(needle) != std::string::npos) ++n;
  return n;
}

std::string ended(Lanectl& l, const std::string& job, const std::string& project = "default") {
  return l.wait_status(job, {"Succeeded", "Failed"}, project, 60).value("status", "");
}

// Each /data/d<i> (i < n) a directory holding s<i>/f, as the host's `tree` does, exchanged with
// the symlink /data/l<i> -> tree (renameat2 RENAME_EXCHANGE, through Debian's python3) in a tight
// loop: a path-based operation on d<i>/s<i> that resolves d<i> after an exchange lands on the
// host's tree/s<i>.
std::string swap_dirs_script(const fs::path& tree, int n) {
  return fmt::format(
      "exec python3 -c \"\nimport ctypes, os\nlibc = ctypes.CDLL(None)\nos.chdir('/data')\n"
      "for i in range({0}):\n  os.makedirs(f'd{{i}}/s{{i}}', exist_ok=True)\n  open(f'd{{i}}/s{{i}}/f', 'w').close()\n"
      "  os.symlink('{1}', f'l{{i}}')\nopen('ready', 'w').close()\nwhile True:\n  for i in range({0}):\n"
      "    libc.renameat2(-100, f'd{{i}}'.encode(), -100, f'l{{i}}'.encode(), 2)\n\"",
      n, tree.string());
}

// Runs body(0), body(1), ... for `seconds`, and at least `at_least` times.
// Runs `attack` once per sandbox mechanism, each with a fresh host tree and LANECTL_HOME.
void each_sandbox(const std::function<void(const std::string&, Host&, Lanectl&)>& attack) {
  for (const auto& mode : modes()) {
    INFO(mode);
    Host host;
    Lanectl l;
    l.set_env("LANECTL_SANDBOX", mode);
    attack(mode, host, l);
  }
}

template <typename F>
int repeat_for(double seconds, F body, int at_least = 1) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(static_cast<int>(seconds * 1000));
  int n = 0;
  while (n < at_least || std::chrono::steady_clock::now() < end) body(n++);
  return n;
}

}  // namespace

TEST_CASE("the job API's snapshot never reads the job's metrics through a link (host secret, another project's claim)", "[reliability][slow]") {
  if (geteuid() != 0) LANE_SKIP_CASE("the attacks are on the root supervisor: run as root");
  each_sandbox([](const std::string& mode, Host& host, Lanectl& l) {
    for (const char* p : {"a", "b"}) {
      REQUIRE(l.run({"project", "create", p, "--gpu-quota", "1"}).code == 0);
      l.track_project(p);
    }
    REQUIRE(l.run({"submit", "bjob", "-p", "b", "-i", "x", "--pvc", ":1Mi:/data", "--command", "--", "/bin/sh", "-c",
                   "echo '{\"kind\":\"train\",\"stolen\":\"B-DATA-28\"}' > /data/metrics.jsonl"}).code == 0);
    REQUIRE(ended(l, "bjob", "b") == "Succeeded");
    const std::string b_file = (l.home() / "volumes/pvc-bjob-0/metrics.jsonl").string();
    const std::string script = fmt::format(
        "mkdir -p /data/o1 /data/o2 /tmp/o4; ln -s {0} /data/o1/metrics.jsonl; ln -s {1} /data/o2/metrics.jsonl;"
        " ln -s {2} /data/o3; ln -s {0} /tmp/o4/metrics.jsonl;"
        " for d in /data/o1 /data/o2 /data/o3 /tmp/o4; do sleep 1; lanectl __training-snapshot --output-dir $d; echo rc=$?; done",
        host.secret().string(), b_file, host.dir.string());
    REQUIRE(l.run({"submit", "ajob", "-p", "a", "-i", "x", "--pvc", ":1Mi:/data", "-e", "ENABLE_SNAPSHOT=true", "-e",
                   "PVC_NAME=pvc-ajob-0", "--command", "--", "/bin/sh", "-c", script}).code == 0);
    ended(l, "ajob", "a");
    const std::string log = l.run({"logs", "ajob", "-p", "a"}).out;
    INFO(log);
    CHECK(files_holding(l.home() / "snapshots", "HOST-SECRET-28") == 0);
    CHECK(files_holding(l.home() / "snapshots", "B-DATA-28") == 0);
    int refused = 0;  // each of the four, for the link (not, say, a name taken in the same second)
    for (size_t at = 0; (at = log.find("symbolic link or '..'", at)) != std::string::npos; ++at) ++refused;
    CHECK(refused == 4);
    CHECK(log.find("rc=0") == std::string::npos);
  });
}

TEST_CASE("a job swapping files for links while snapshots run never gets a host file into the store", "[reliability][slow]") {
  if (geteuid() != 0) LANE_SKIP_CASE("the attacks are on the root supervisor: run as root");
  each_sandbox([](const std::string& mode, Host& host, Lanectl& l) {
    start_until_ready(l, "swapper", ":1Mi:/data",
                   fmt::format("cd /data; for i in $(seq 0 29); do echo v > z$i; done; : > ready; while :; do"
                               " for i in $(seq 0 29); do ln -sfn {} z$i.l; mv -fT z$i.l z$i; echo v > z$i.n;"
                               " mv -fT z$i.n z$i; done; done",
                               host.secret().string()));
    int created = 0;
    const int tries = repeat_for(race_seconds(), [&](int i) {
      created += l.run({"snapshot", "create", "--pvc", "pvc-swapper-0", "--name", fmt::format("s{}", i)}).code == 0;
    });
    l.run({"delete", "swapper"});
    WARN(mode << ": " << tries << " snapshots tried while the job swapped files, " << created << " created");
    CHECK(files_holding(l.home() / "snapshots", "HOST-SECRET-28") == 0);
    for (int i = 0, checked = 0; i < tries && checked < 3; ++i)
      if (l.run({"snapshot", "describe", fmt::format("s{}", i)}).code == 0) {
        CHECK(l.run({"snapshot", "verify", fmt::format("s{}", i)}).code == 0);
        ++checked;
      }
  });
}

TEST_CASE("the ownership walk before a start never chowns a host file through a swapped directory", "[reliability][slow]") {
  if (geteuid() != 0) LANE_SKIP_CASE("the attacks are on the root supervisor: run as root");
  each_sandbox([](const std::string& mode, Host& host, Lanectl& l) {
    start_until_ready(l, "att", ":1Mi:/data", swap_dirs_script(host.tree(), kSwapped));
    const int starts = repeat_for(race_seconds(), [&](int i) {
      const std::string job = fmt::format("w{}", i);
      REQUIRE(l.run({"submit", job, "-i", "x", "--pvc", "pvc-att-0:/data", "--command", "--", "/bin/true"}).code == 0);
      ended(l, job);
    });
    l.run({"delete", "att"});
    const int tampered = host.tampered();
    WARN(mode << ": " << starts << " job starts walked the volume while the job swapped " << kSwapped << " directories; "
              << tampered << " host entries changed");
    CHECK(tampered == 0);
  });
}

TEST_CASE("restore --in-place never changes host directories through a directory the job swaps", "[reliability][slow]") {
  if (geteuid() != 0) LANE_SKIP_CASE("the attacks are on the root supervisor: run as root");
  each_sandbox([](const std::string& mode, Host& host, Lanectl& l) {
    REQUIRE(l.run({"submit", "seed", "-i", "x", "--pvc", ":1Mi:/data", "--command", "--", "/bin/sh", "-c",
                   "echo data > /data/file"}).code == 0);
    REQUIRE(ended(l, "seed") == "Succeeded");
    REQUIRE(l.run({"snapshot", "create", "--pvc", "pvc-seed-0", "--name", "base"}).code == 0);
    // A revert while the attacker's job mounts the volume is refused (its writes would be lost);
    // once the job is deleted, the revert removes the tree it left, links to host directories and
    // all, without following any of them.
    const int reverts = repeat_for(race_seconds(), [&](int i) {
      const std::string job = fmt::format("rv{}", i);
      REQUIRE(l.run({"submit", job, "-i", "x", "--pvc", "pvc-seed-0:/data", "--command", "--", "/bin/sh", "-c",
                     swap_dirs_script(host.tree(), kSwapped)}).code == 0);
      for (int k = 0; k < 200 && !fs::exists(l.home() / "volumes/pvc-seed-0/ready"); ++k)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      CHECK(l.run({"restore", "base", "--in-place", "--pvc", "pvc-seed-0", "--yes"}).code == 2);
      l.run({"delete", job});
      CHECK(l.run({"restore", "base", "--in-place", "--pvc", "pvc-seed-0", "--yes"}).code == 0);
    }, 3);
    const int tampered = host.tampered();
    WARN(mode << ": " << reverts << " reverts while a job swapped " << kSwapped << " directories in the old tree; " << tampered
              << " host entries changed");
    CHECK(tampered == 0);
    CHECK(fs::exists(host.tree() / "s0/f"));  // nothing removed through a link either
    CHECK(slurp(l.home() / "volumes/pvc-seed-0/file") == "data\n");
  });
}

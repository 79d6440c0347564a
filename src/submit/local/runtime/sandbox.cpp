#include "submit/local/runtime/sandbox.h"

#include <fcntl.h>
#include <grp.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <set>
#include <sstream>
#include <string>

#include <fmt/format.h>

#include "common/error.h"
#include "submit/local/runtime/job_view.h"
#include "submit/local/runtime/process_identity.h"
#include "submit/local/runtime/sandbox_root.h"

namespace lane::submit::local {

std::string sandbox_mode() {
  const char* forced = std::getenv("LANECTL_SANDBOX");
  if (forced && std::string(forced) == "bwrap") return "bwrap";
  if (forced && std::string(forced) == "unshare") return "unshare";
  return geteuid() == 0 ? "unshare" : "bwrap";
}

namespace {

[[noreturn]] void die(const std::string& what) {
  std::string msg = "lanectl: cannot start the job: " + what + "\n";
  ssize_t ignored = write(2, msg.data(), msg.size());
  (void)ignored;
  _exit(127);
}

// Only the plan's variables: never the submitter's or the supervisor's environment.
void use_plan_environment(const LaunchPlan& plan) {
  clearenv();
  for (const auto& [name, value] : plan.env) setenv(name.c_str(), value.c_str(), 1);
}

bool drops_to_job_user(const LaunchPlan& plan) { return geteuid() == 0 && plan.uid != 0; }

[[noreturn]] void exec_argv(const std::vector<std::string>& argv) {
  std::vector<char*> cargv;
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  execvp(cargv[0], cargv.data());
  die("exec " + argv[0] + ": " + std::strerror(errno));
}

// The job's command, inside the finished root: environment, working directory, the job's user.
[[noreturn]] void exec_job(const LaunchPlan& plan) {
  use_plan_environment(plan);
  if (chdir(plan.working_dir.c_str()) != 0) die("working directory " + plan.working_dir + ": " + std::strerror(errno));
  if (drops_to_job_user(plan)) {
    gid_t gid = plan.gid;
    if (setgroups(1, &gid) != 0 || setresgid(gid, gid, gid) != 0 || setresuid(plan.uid, plan.uid, plan.uid) != 0)
      die(std::string("cannot switch to the job's user ") + std::to_string(plan.uid) + ": " + std::strerror(errno));
  }
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) die(std::string("no_new_privs: ") + std::strerror(errno));
  exec_argv(plan.argv);
}

void on_signal(int) {}

// A new network namespace has only `lo`, down: bring it up (MPI's ranks talk over it).
void loopback_up() {
  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  ifreq ifr{};
  std::strncpy(ifr.ifr_name, "lo", IFNAMSIZ - 1);
  bool ok = fd >= 0 && ioctl(fd, SIOCGIFFLAGS, &ifr) == 0;
  ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
  ok = ok && ioctl(fd, SIOCSIFFLAGS, &ifr) == 0;
  if (!ok) die(std::string("bring up the job's loopback interface: ") + std::strerror(errno));
  close(fd);
}

// The init is a fork of the supervisor, whose command line names LANECTL_HOME: overwrite it in
// place (/proc/1/cmdline reads this memory) so that the job sees "lanectl-job-init" instead.
void hide_command_line() {
  std::ifstream in("/proc/self/stat");
  std::string stat;
  std::getline(in, stat);
  auto close = stat.rfind(')');
  if (close == std::string::npos) return;
  std::istringstream fields(stat.substr(close + 2));  // field 3 onwards
  std::string f;
  unsigned long long arg_start = 0, arg_end = 0;
  for (int i = 3; i <= 49 && fields >> f; ++i) {
    if (i == 48) arg_start = std::strtoull(f.c_str(), nullptr, 10);
    if (i == 49) arg_end = std::strtoull(f.c_str(), nullptr, 10);
  }
  if (arg_start == 0 || arg_end <= arg_start) return;
  char* args = reinterpret_cast<char*>(arg_start);
  const size_t size = arg_end - arg_start;
  std::memset(args, 0, size);
  std::strncpy(args, "lanectl-job-init", size - 1);
  prctl(PR_SET_NAME, "job-init");
}

constexpr int kInitSignals[] = {SIGTERM, SIGINT, SIGHUP, SIGCHLD};
bool is_stop(int sig) { return sig == SIGTERM || sig == SIGINT || sig == SIGHUP; }

// PID 1's signals: handled (PID 1 gets no signal it has no handler for) and blocked, for
// sigtimedwait; `waited` receives the set.
void take_init_signals(sigset_t& waited) {
  sigemptyset(&waited);
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  for (int sig : kInitSignals) {
    sigaction(sig, &sa, nullptr);
    sigaddset(&waited, sig);
  }
  sigprocmask(SIG_BLOCK, &waited, nullptr);
}

// The processes of this PID namespace other than PID 1 and `command`, zombies left out.
std::vector<pid_t> other_processes(pid_t command) {
  std::vector<pid_t> pids;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = e.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = static_cast<pid_t>(std::atol(name.c_str()));
    if (pid == 1 || pid == command) continue;
    std::ifstream stat(e.path() / "stat");
    std::string line;
    std::getline(stat, line);
    const auto close = line.rfind(')');
    if (close == std::string::npos || close + 2 >= line.size() || line[close + 2] == 'Z') continue;
    pids.push_back(pid);
  }
  return pids;
}

// PID 1's duty once the command (a child in its own process group) runs, in either mechanism:
// reap orphans, and end with the command. A stop (SIGTERM, SIGINT, SIGHUP) goes on to every
// process of the job, also those that left the session; after it, PID 1 ends once every process
// has ended, not with the command: a launcher such as mpirun may end before the ranks it started,
// which are still saving their checkpoint (the supervisor's SIGKILL after the grace period bounds
// the wait). With `command_last`, the stop reaches the other processes first (those there when
// it arrives: what they start while saving is theirs to end) and the command when they are gone
// and it has not ended by itself within kCommandLastWait.
[[noreturn]] void serve_as_init(pid_t command, bool command_last, const sigset_t& waited,
                                const std::function<void(int wait_status)>& finish) {
  constexpr auto kCommandLastWait = std::chrono::seconds(3);
  bool stopping = false, command_signalled = false, command_ended = false;
  int command_status = 0;
  bool alone = false;  // the command is the job's only process (command_last)
  std::chrono::steady_clock::time_point alone_since;
  for (;;) {
    siginfo_t info;
    const timespec tick{0, 100 * 1000 * 1000};
    // Polled only while the command waits for the others; after, their ends raise SIGCHLD.
    const bool polling = stopping && command_last && !command_signalled && !command_ended;
    const int sig = polling ? sigtimedwait(&waited, &info, &tick) : sigwaitinfo(&waited, &info);
    if (sig > 0 && is_stop(sig)) {
      stopping = true;
      if (!command_last || command_signalled || command_ended) {
        kill(-1, SIGTERM);
      } else {
        for (pid_t pid : other_processes(command)) kill(pid, SIGTERM);
      }
    }
    int status = 0;
    pid_t p;
    while ((p = waitpid(-1, &status, WNOHANG)) > 0)
      if (p == command) {
        command_ended = true;
        command_status = status;
        if (!stopping) finish(command_status);
      }
    const bool no_children = p < 0 && errno == ECHILD;
    if (stopping && command_last && !command_signalled && !command_ended) {
      const auto others = other_processes(command);
      const auto now = std::chrono::steady_clock::now();
      if (!others.empty()) alone = false;
      else if (!alone) alone = true, alone_since = now;
      if (alone && now - alone_since >= kCommandLastWait) {
        kill(command, SIGTERM);
        command_signalled = true;
      }
    }
    if (command_ended && no_children) finish(command_status);  // stopped, and every process has ended
  }
}

// The command, forked by PID 1 into its own process group: a stop sent to the supervisor's
// process group reaches PID 1, which passes it on (serve_as_init), not the command directly.
template <typename Exec>
pid_t fork_command(const sigset_t& child_mask, Exec exec) {
  pid_t command = fork();
  if (command == 0) {
    setpgid(0, 0);
    sigprocmask(SIG_SETMASK, &child_mask, nullptr);
    exec();
  }
  if (command < 0) die(std::string("fork: ") + std::strerror(errno));
  return command;
}

// PID 1 of the job's namespace in the unshare mechanism: builds the root, runs the command as
// PID 2 and serves as init; the command's wait status goes to `status_fd`.
[[noreturn]] void run_init(const LaunchPlan& plan, int status_fd, const sigset_t& child_mask) {
  hide_command_line();
  if (!plan.host_network) loopback_up();
  umask(022);  // the mount points must be enterable by the job's user
  try {
    enter_job_root(plan);
  } catch (const std::exception& e) {
    die(e.what());
  }
  sigset_t waited;
  take_init_signals(waited);
  const pid_t command = fork_command(child_mask, [&plan] { exec_job(plan); });
  serve_as_init(command, plan.stop_command_last, waited, [status_fd](int status) {
    ssize_t ignored = write(status_fd, &status, sizeof status);
    (void)ignored;
    _exit(0);
  });
}

}  // namespace

int job_init_exec(int argc, char** argv) {
  // argv: lanectl __job-init [--command-last] -- CMD ARGS...
  int at = 2;
  const bool command_last = argc > at && std::string(argv[at]) == "--command-last";
  if (command_last) ++at;
  if (argc < at + 2 || std::string(argv[at]) != "--" || getpid() != 1) {
    std::cerr << "usage: lanectl __job-init [--command-last] -- CMD ARGS... (internal: PID 1 of a job's sandbox)\n";
    return 2;
  }
  std::vector<std::string> command(argv + at + 1, argv + argc);
  sigset_t child_mask, waited;
  sigprocmask(SIG_SETMASK, nullptr, &child_mask);
  take_init_signals(waited);
  const pid_t pid = fork_command(child_mask, [&command] { exec_argv(command); });
  serve_as_init(pid, command_last, waited, [](int status) {
    // PID 1 cannot end by its own signal: a command killed by signal N reads as exit 128+N, as a
    // shell and bubblewrap report it.
    _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0));
  });
}

namespace {

bool bwrap_installed() {
  const char* path = std::getenv("PATH");
  std::string dirs = std::string(path ? path : "") + ":/usr/bin:/bin";
  for (size_t start = 0; start <= dirs.size();) {
    size_t colon = dirs.find(':', start);
    std::string dir = dirs.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    if (!dir.empty() && access((dir + "/bwrap").c_str(), X_OK) == 0) return true;
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return false;
}

bool is_standard_dev(const ViewEntry& e) {
  static const std::set<std::string> bwrap_dev = {"/dev/null", "/dev/zero", "/dev/full", "/dev/random",
                                                   "/dev/urandom", "/dev/tty", "/dev/fd", "/dev/stdin",
                                                   "/dev/stdout", "/dev/stderr"};
  return bwrap_dev.count(e.target) > 0;
}

}  // namespace

std::vector<std::string> bwrap_argv(const LaunchPlan& plan) {
  // --as-pid-1: PID 1 is lanectl's own init (`__job-init`, serve_as_init), not bubblewrap's reaper.
  std::vector<std::string> argv = {"bwrap", "--unshare-pid", "--unshare-ipc", "--die-with-parent", "--as-pid-1"};
  if (!plan.host_network) argv.push_back("--unshare-net");  // bubblewrap brings up its loopback
  auto add = [&argv](std::initializer_list<std::string> words) { argv.insert(argv.end(), words); };
  // bubblewrap creates missing parents with mode 0700, which the job's user could not enter:
  // create them first, 0755, unless they lie on something mounted before.
  std::set<std::string> made, mounted;
  auto below_mount = [&mounted](const std::string& dir) {
    for (const auto& m : mounted)
      if (dir == m || dir.rfind(m + "/", 0) == 0) return true;
    return false;
  };
  for (const auto& e : job_view(plan)) {
    std::vector<std::string> parents;  // outermost first
    for (auto d = std::filesystem::path(e.target).parent_path(); d != d.root_path() && !d.empty(); d = d.parent_path())
      parents.insert(parents.begin(), d.string());
    for (const auto& d : parents)
      if (!made.count(d) && !below_mount(d)) {
        add({"--perms", "0755", "--dir", d});
        made.insert(d);
      }
    if (e.kind != ViewEntry::kSymlink) mounted.insert(e.target);
    switch (e.kind) {
      case ViewEntry::kRoBind: add({"--ro-bind", e.source, e.target}); break;
      case ViewEntry::kBind: add({"--bind", e.source, e.target}); break;
      case ViewEntry::kDevBind:
        if (!is_standard_dev(e)) add({"--dev-bind", e.source, e.target});
        break;
      case ViewEntry::kSymlink:
        if (!is_standard_dev(e)) add({"--symlink", e.source, e.target});
        break;
      case ViewEntry::kTmpfs:
        if (e.size) add({"--size", std::to_string(e.size)});
        add({"--perms", e.mode == 01777 ? "1777" : "0755", "--tmpfs", e.target});
        break;
      case ViewEntry::kMask: add({"--perms", "0555", "--size", "4096", "--tmpfs", e.target, "--remount-ro", e.target}); break;
      case ViewEntry::kProc: add({"--proc", e.target}); break;
      case ViewEntry::kDevDir: add({"--dev", e.target}); break;
    }
  }
  add({"--remount-ro", "/", "--chdir", plan.working_dir, "--"});
  // The init before setpriv: it keeps bubblewrap's --die-with-parent (PR_SET_PDEATHSIG, which a
  // change of user clears), so that the job ends with a supervisor that is killed.
  if (!plan.init_exe.empty()) {
    argv.insert(argv.end(), {plan.init_exe, "__job-init"});
    if (plan.stop_command_last) argv.push_back("--command-last");
    argv.push_back("--");
  }
  if (drops_to_job_user(plan))  // bubblewrap run by root keeps root; setpriv drops to the job's user
    add({"setpriv", "--reuid=" + std::to_string(plan.uid), "--regid=" + std::to_string(plan.gid),
         "--clear-groups", "--no-new-privs", "--"});
  argv.insert(argv.end(), plan.argv.begin(), plan.argv.end());
  return argv;
}

SandboxedJob start_sandboxed(const LaunchPlan& plan, int out_fd, const sigset_t& child_mask) {
  if (plan.argv.empty()) throw Error("cannot start the job: empty command");
  const bool bwrap = sandbox_mode() == "bwrap";
  if (bwrap && !bwrap_installed())
    throw Error(std::string("cannot start the job: bubblewrap (bwrap) is needed to isolate jobs") +
                (geteuid() == 0 ? " with LANECTL_SANDBOX=bwrap" : " of a non-root user") +
                " and was not found in PATH; install the Debian package bubblewrap (jobs never run unconfined)");
  int status_pipe[2] = {-1, -1};
  if (!bwrap && pipe2(status_pipe, O_CLOEXEC) != 0) throw Error("cannot start the job: pipe() failed");
  const unsigned long flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | (plan.host_network ? 0 : CLONE_NEWNET);
  pid_t pid = bwrap ? fork() : static_cast<pid_t>(syscall(SYS_clone, flags | SIGCHLD, nullptr, nullptr, nullptr, nullptr));
  if (pid == 0) {
    // Into the job's cgroups before anything of the job runs: every later process is counted.
    if (!join_cgroups(plan.cgroup_procs)) die(std::string("cannot join the job's cgroup: ") + std::strerror(errno));
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // the supervisor's death ends the job
    int null_fd = open("/dev/null", O_RDONLY);
    dup2(null_fd, 0);
    dup2(out_fd, 1);
    dup2(out_fd, 2);
    // No other descriptor of the supervisor (its log in LANECTL_HOME, the state database, the
    // job API socket, whatever the submitter left open) reaches the job.
    int status_fd = -1;
    if (!bwrap) {
      status_fd = status_pipe[1] == 3 ? 3 : dup3(status_pipe[1], 3, O_CLOEXEC);
      if (status_fd < 0) die(std::string("dup3: ") + std::strerror(errno));
    }
    close_range(bwrap ? 3 : 4, ~0U, 0);
    signal(SIGPIPE, SIG_DFL);
    if (bwrap) {
      // bubblewrap itself ignores a stop: the supervisor's SIGTERM to the process group reaches
      // the job's init (`__job-init`, which handles it) and the setup, and would otherwise end
      // bubblewrap, which takes the whole job with it (--die-with-parent) before any process of
      // it could save its work. The supervisor's SIGKILL still ends everything.
      for (int sig : {SIGTERM, SIGINT, SIGHUP}) signal(sig, SIG_IGN);
      sigprocmask(SIG_SETMASK, &child_mask, nullptr);
      use_plan_environment(plan);
      // The options go through a memfd (--args) so that the job's /proc/1/cmdline does not
      // list the host paths they name.
      std::vector<std::string> argv = bwrap_argv(plan);
      auto command = std::find(argv.begin(), argv.end(), std::string("--"));
      std::string packed;
      for (auto it = argv.begin() + 1; it != command; ++it) packed.append(*it).push_back('\0');
      int args_fd = memfd_create("bwrap-args", 0);
      if (args_fd < 0 || write(args_fd, packed.data(), packed.size()) != static_cast<ssize_t>(packed.size()) ||
          lseek(args_fd, 0, SEEK_SET) != 0)
        die(std::string("memfd for bubblewrap's options: ") + std::strerror(errno));
      std::vector<std::string> short_argv = {"bwrap", "--args", std::to_string(args_fd)};
      short_argv.insert(short_argv.end(), command, argv.end());
      exec_argv(short_argv);
    }
    run_init(plan, status_fd, child_mask);
  }
  int saved = errno;
  if (status_pipe[1] >= 0) close(status_pipe[1]);
  if (pid < 0) {
    if (status_pipe[0] >= 0) close(status_pipe[0]);
    throw Error(std::string("cannot start the job: ") +
                (bwrap ? "fork" : plan.host_network ? "clone(CLONE_NEWNS|CLONE_NEWPID|CLONE_NEWIPC)"
                                          : "clone(CLONE_NEWNS|CLONE_NEWPID|CLONE_NEWIPC|CLONE_NEWNET)") + ": " + std::strerror(saved));
  }
  setpgid(pid, pid);
  return SandboxedJob{pid, status_pipe[0]};
}

namespace {

std::string mnt_namespace_of(const std::string& pid) {
  std::error_code ec;
  return std::filesystem::read_symlink("/proc/" + pid + "/ns/mnt", ec).string();
}

pid_t first_child_of(pid_t pid) {
  std::ifstream children(fmt::format("/proc/{}/task/{}/children", pid, pid));
  pid_t first = 0;
  return children >> first ? first : 0;
}

}  // namespace

JobNamespaces open_job_namespaces(pid_t sandbox_pid, long long sandbox_start) {
  const std::string host = mnt_namespace_of("self");
  auto in_job = [&](pid_t pid) {
    const std::string ns = pid > 0 ? mnt_namespace_of(std::to_string(pid)) : "";
    return !ns.empty() && ns != host;
  };
  // The job's PID 1 (the sandbox process itself, or bubblewrap's child) is in the new mount
  // namespace from its first instruction but builds the root there before it forks the command.
  // Only once the command exists is the root finished: joining earlier sees a half-built root
  // (no /tmp yet). Wait for it (up to 5 s). The namespaces are PID 1's, never the command's: a
  // job's own process may move itself into namespaces it made.
  for (int attempt = 0; attempt < 250; ++attempt) {
    if (!process_alive(sandbox_pid, sandbox_start)) break;
    pid_t init = 0;
    long long init_start = 0;
    if (in_job(sandbox_pid)) {
      init = sandbox_pid;
      init_start = sandbox_start;
    } else if (pid_t child = first_child_of(sandbox_pid); child > 0) {
      init_start = process_start_time(child);
      if (in_job(child)) init = child;
    }
    if (init > 0 && in_job(first_child_of(init))) {
      JobNamespaces ns;
      auto open_ns = [&](const char* name) {
        return UniqueFd(open(fmt::format("/proc/{}/ns/{}", init, name).c_str(), O_RDONLY | O_CLOEXEC));
      };
      ns.net = open_ns("net");
      ns.pid = open_ns("pid");
      ns.mnt = open_ns("mnt");
      // Still the same process (pids are reused): the sandbox's, or its child started before.
      const bool same = process_alive(sandbox_pid, sandbox_start) && process_alive(init, init_start) &&
                        (init == sandbox_pid || process_parent(init) == sandbox_pid);
      if (same && ns.net.ok() && ns.pid.ok() && ns.mnt.ok()) return ns;
    }
    usleep(20'000);
  }
  throw Error(fmt::format("the namespaces of the job's sandbox (process {}) are not ready or gone; try again", sandbox_pid));
}

void exec_in_job(const LaunchPlan& plan, const std::vector<std::string>& argv) {
  close_range(3, ~0U, 0);
  pid_t child = fork();  // the first child after setns(CLONE_NEWPID) is inside the namespace
  if (child == 0) {
    LaunchPlan command = plan;
    command.argv = argv;
    exec_job(command);
  }
  if (child < 0) die(std::string("fork: ") + std::strerror(errno));
  int status = 0;
  waitpid(child, &status, 0);
  _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
}

int sandboxed_wait_status(SandboxedJob& job, int init_status) {
  if (job.status_fd < 0) return init_status;
  int status = 0;
  ssize_t n = read(job.status_fd, &status, sizeof status);
  close(job.status_fd);
  job.status_fd = -1;
  return n == static_cast<ssize_t>(sizeof status) ? status : init_status;
}

}  // namespace lane::submit::local

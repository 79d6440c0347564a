#include "submit/local/runtime/process_identity.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "common/error.h"

namespace lane::submit::local {

namespace {

// The fields of /proc/<pid>/stat from field 3 (the state) on; empty when there is no such process.
std::vector<std::string> stat_fields(pid_t pid) {
  if (pid <= 0) return {};
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string content;
  if (!in || !std::getline(in, content)) return {};
  // The command name (field 2) may contain spaces and parentheses: parse after the last ')'.
  auto close = content.rfind(')');
  if (close == std::string::npos) return {};
  std::istringstream rest(content.substr(close + 2));
  std::vector<std::string> fields;
  for (std::string field; rest >> field;) fields.push_back(field);
  return fields;
}

}  // namespace

long long process_start_time(pid_t pid) {
  const auto fields = stat_fields(pid);
  if (fields.size() < 20 || fields[0] == "Z" || fields[0] == "X") return 0;
  return std::atoll(fields[19].c_str());  // field 22
}

pid_t process_parent(pid_t pid) {
  const auto fields = stat_fields(pid);
  return fields.size() < 2 ? 0 : static_cast<pid_t>(std::atol(fields[1].c_str()));  // field 4
}

bool process_alive(pid_t pid, long long start_time) {
  return start_time != 0 && process_start_time(pid) == start_time;
}

std::string self_executable() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) throw Error("cannot resolve /proc/self/exe to start a job supervisor");
  return std::string(buf, static_cast<size_t>(n));
}

SpawnedProcess spawn_detached(const std::vector<std::string>& argv, const std::string& log_path) {
  std::vector<char*> cargv;
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);

  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw Error("pipe() failed while starting a job supervisor");
  pid_t first = fork();
  if (first < 0) throw Error("fork() failed while starting a job supervisor");
  if (first == 0) {
    // Intermediate child: new session, fork the real supervisor, report its pid, exit.
    setsid();
    pid_t second = fork();
    if (second == 0) {
      int null_fd = open("/dev/null", O_RDONLY);
      int log_fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      if (log_fd < 0) log_fd = open("/dev/null", O_WRONLY);
      dup2(null_fd, 0);
      dup2(log_fd, 1);
      dup2(log_fd, 2);
      close_range(3, ~0U, 0);  // nothing of the caller's (its pipes, its files) stays open
      execv(cargv[0], cargv.data());
      _exit(127);
    }
    ssize_t ignored = write(fds[1], &second, sizeof second);
    (void)ignored;
    _exit(second > 0 ? 0 : 1);
  }
  close(fds[1]);
  pid_t pid = 0;
  ssize_t got = read(fds[0], &pid, sizeof pid);
  close(fds[0]);
  int status = 0;
  waitpid(first, &status, 0);
  if (got != sizeof pid || pid <= 0) throw Error("could not start the job supervisor");
  return SpawnedProcess{pid, process_start_time(pid)};
}

}  // namespace lane::submit::local

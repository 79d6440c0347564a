#include "submit/local/supervisor/torchrun.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>

namespace lane::submit::local {
namespace {

// A TCP port nothing listens on in this network namespace (the kernel's pick, as torchrun does).
int free_port() {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  int port = -1;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
    port = ntohs(addr.sin_port);
  close(fd);
  return port;
}

pid_t start_rank(int rank, const std::string& gpus, char** command) {
  pid_t pid = fork();
  if (pid != 0) return pid;
  const std::string r = std::to_string(rank);
  setenv("RANK", r.c_str(), 1);
  setenv("LOCAL_RANK", r.c_str(), 1);
  setenv("CUDA_VISIBLE_DEVICES", gpus.c_str(), 1);
  execvp(command[0], command);
  std::cerr << "lanectl __torchrun: rank " << rank << ": exec " << command[0] << ": " << std::strerror(errno) << "\n";
  _exit(127);
}

int exit_code(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status); }

}  // namespace

std::vector<std::string> split_rank_gpus(const std::string& all) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    size_t end = all.find(';', start);
    out.push_back(all.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) return out;
    start = end + 1;
  }
}

int torchrun_exec(int argc, char** argv) {
  // argv: lanectl __torchrun GPUS -- CMD ARGS...
  if (argc < 5 || std::string(argv[3]) != "--") {
    std::cerr << "usage: lanectl __torchrun 'GPUS;GPUS;...' -- CMD ARGS...\n";
    return 2;
  }
  const std::vector<std::string> gpus = split_rank_gpus(argv[2]);
  const int port = free_port();
  if (port < 0) {
    std::cerr << "lanectl __torchrun: no free TCP port on 127.0.0.1: " << std::strerror(errno) << "\n";
    return 1;
  }
  const std::string world = std::to_string(gpus.size());
  setenv("MASTER_ADDR", "127.0.0.1", 1);
  setenv("MASTER_PORT", std::to_string(port).c_str(), 1);
  setenv("WORLD_SIZE", world.c_str(), 1);
  setenv("LOCAL_WORLD_SIZE", world.c_str(), 1);
  setenv("GROUP_RANK", "0", 1);
  std::vector<pid_t> ranks;
  for (size_t i = 0; i < gpus.size(); ++i) ranks.push_back(start_rank(static_cast<int>(i), gpus[i], argv + 4));
  int code = 0;
  for (size_t left = ranks.size(); left > 0; --left) {
    int status = 0;
    pid_t done = waitpid(-1, &status, 0);
    if (done < 0) break;
    if (exit_code(status) == 0 || code != 0) continue;
    code = exit_code(status);  // the first failure: the job fails, the other ranks stop
    for (pid_t p : ranks)
      if (p > 0 && p != done) kill(p, SIGTERM);
  }
  return code;
}

}  // namespace lane::submit::local

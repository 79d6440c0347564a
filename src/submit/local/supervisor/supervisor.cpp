#include "submit/local/supervisor/supervisor.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include "submit/local/runtime/sandbox.h"
#include "submit/local/supervisor/job_supervisor.h"
#include "submit/local/supervisor/torchrun.h"

namespace lane::submit::local {
namespace fs = std::filesystem;

int supervise_job(const fs::path& home, int64_t job_id, int attempt) {
  JobSupervisor(home, job_id, attempt).run();
  return 0;
}

int rank_exec(int argc, char** argv) {
  // argv: lanectl __rank GPUS -- CMD ARGS...
  if (argc < 5 || std::string(argv[3]) != "--") {
    std::cerr << "usage: lanectl __rank 'GPUS;GPUS;...' -- CMD ARGS...\n";
    return 2;
  }
  const std::vector<std::string> all = split_rank_gpus(argv[2]);
  const char* rank_env = std::getenv("OMPI_COMM_WORLD_RANK");
  const int rank = rank_env ? std::atoi(rank_env) : 0;
  const std::string mine = rank >= 0 && static_cast<size_t>(rank) < all.size() ? all[rank] : std::string();
  setenv("CUDA_VISIBLE_DEVICES", mine.c_str(), 1);
  execvp(argv[4], argv + 4);
  std::cerr << "lanectl __rank: exec " << argv[4] << ": " << std::strerror(errno) << "\n";
  return 127;
}

int run_internal_verb(int argc, char** argv) {
  if (argc < 2) return -1;
  std::string verb = argv[1];
  if (verb == "__rank") return rank_exec(argc, argv);
  if (verb == "__torchrun") return torchrun_exec(argc, argv);
  if (verb == "__job-init") return job_init_exec(argc, argv);
  if (verb != "__supervise") return -1;
  if (argc != 5) {
    std::cerr << "usage: lanectl __supervise HOME JOB_ID ATTEMPT (internal)\n";
    return 2;
  }
  try {
    return supervise_job(argv[2], std::atoll(argv[3]), std::atoi(argv[4]));
  } catch (const std::exception& e) {
    std::cerr << "lanectl __supervise: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace lane::submit::local

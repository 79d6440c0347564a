#pragma once
// `lanectl __torchrun "GPUS0;GPUS1;..." -- CMD ARGS...`: the local side of a PyTorch job (one
// node), as torchrun starts it: one process per entry (rank 0 is the master), all in the job's
// network namespace, each with the rendezvous environment torchrun gives: MASTER_ADDR
// (127.0.0.1), MASTER_PORT (a port free in that namespace), WORLD_SIZE, RANK, LOCAL_RANK,
// LOCAL_WORLD_SIZE, GROUP_RANK (0) and CUDA_VISIBLE_DEVICES (its entry).
#include <string>
#include <vector>

namespace lane::submit::local {

// The entries of "A;B;C" in order ("" gives one empty entry: one rank without GPUs).
std::vector<std::string> split_rank_gpus(const std::string& all);

// Runs the ranks and waits for them all. When one fails, the others get SIGTERM; the exit code
// is the first failing rank's (128 + signal when killed), else 0. 2 on a usage error.
int torchrun_exec(int argc, char** argv);

}  // namespace lane::submit::local

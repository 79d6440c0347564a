#pragma once
// What a job's root file system shows, as a list of entries both sandbox mechanisms render
// (sandbox_root.cpp with mount(2), bwrap_argv with bubblewrap's options): the one place that
// decides what of the host a job sees.
#include <cstdint>
#include <string>
#include <vector>

#include "submit/local/runtime/job_launch.h"

namespace lane::submit::local {

struct ViewEntry {
  enum Kind {
    kRoBind,    // host `source` read-only at `target` (file or directory)
    kBind,      // host `source` writable at `target` (a volume)
    kDevBind,   // a host device node
    kSymlink,   // `target` -> `source`
    kTmpfs,     // empty private tmpfs of `size` bytes (0 = the kernel's default), mode `mode`
    kMask,      // empty read-only tmpfs hiding what lies below `target`
    kProc,      // /proc of the job's PID namespace
    kDevDir,    // an empty tmpfs for the minimal /dev
  } kind;
  std::string source, target;
  uint64_t size = 0;
  unsigned mode = 0755;
};

// Files and directories of /etc a job gets (when the host has them): the dynamic linker's cache,
// name service switch, hosts/DNS, time zone, TLS roots, alternatives (mpirun is a link there)
// and OpenMPI's defaults. passwd and group are generated per job (see LaunchPlan).
const std::vector<std::string>& job_etc_entries();

// Device nodes a job gets: null, zero, full, random, urandom, tty, and the NVIDIA devices when
// the host has them.
std::vector<std::string> job_devices();

// The whole view for `plan`, in mount order (parents before children).
std::vector<ViewEntry> job_view(const LaunchPlan& plan);

}  // namespace lane::submit::local

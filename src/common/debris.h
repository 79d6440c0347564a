#pragma once
// Cleaning up after interrupted operations: temporary files and staging directories carry the
// id of the process that made them, and are removed only once that process is gone.
#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>

#include "common/progress.h"

namespace lane {

// True while a process with this id exists (kill(pid, 0) succeeds or is refused with EPERM).
bool process_alive(pid_t pid);

// The pid in a name made by a writer: the digits following `marker` ("<marker><pid>", e.g.
// marker ".tmp." in "checkpoint_latest.pt.tmp.4242.0b1c"); nullopt when there is none.
std::optional<pid_t> pid_after(const std::string& name, const std::string& marker);

// Removes the entries of `dir` named "<pid>-..." whose process is gone (staging directories).
void remove_dead_staging(const std::filesystem::path& dir);

// Removes a tree even when it holds read-only directories (a restored volume keeps the
// snapshot's modes). Through descriptors, never following a link, so a tree a job still writes
// to cannot lead it elsewhere. Errors are ignored: this is cleanup, the caller has already failed or won.
// With `progress`: the tree is measured first (its total), then each file removed is reported.
void remove_tree(const std::filesystem::path& path, ProgressSink* progress = nullptr);

}  // namespace lane

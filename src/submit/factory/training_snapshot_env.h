#pragma once
// What scnn-train calls at the end of training (rank 0): reads ENABLE_SNAPSHOT / PVC_NAME and
// the job identity from the environment, opens the backend the job runs under (LANECTL_BACKEND,
// LANECTL_HOME) and snapshots the claim; inside a local job (LANECTL_JOB_API set) it asks the
// job's supervisor instead, as jobs do not see the backend's state. Returns the snapshot name, or
// nullopt when ENABLE_SNAPSHOT is not set. Throws lane::Error when the snapshot fails.
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>

namespace lane::submit {

std::optional<std::string> snapshot_after_training_from_env(const std::filesystem::path& output_dir,
                                                            const std::string& code_version,
                                                            std::ostream& log);

// `lanectl __training-snapshot --output-dir DIR --code-version REV` (hidden): what scnn-train runs
// at the end of training (train/trainer/after_training.h), so that the trainer links no control
// plane. Prints the snapshot's log line on stdout, an error on stderr; returns the exit code.
int run_training_snapshot_verb(int argc, char** argv);

}  // namespace lane::submit

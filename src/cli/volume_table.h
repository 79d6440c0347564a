#pragma once
// The configured backend's volumes as `lanectl volume list|describe` and `lanectl list volumes`
// show them: name, project, size requested, size used (a local directory's, measured with a
// bounded walk; "-" where the backend cannot tell), thin or not, origin, and the jobs that mount
// it. -o json|yaml: the same fields.
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "cli/context.h"
#include "storage/core/disk_usage.h"
#include "storage/core/volumes.h"
#include "submit/core/storage.h"

namespace lane::cli {

struct VolumeRow {
  storage::VolumeInfo info;
  std::optional<storage::DiskUsage> used;  // nullopt: not measurable here
  std::vector<submit::VolumeMount> users;  // the jobs that mount it, any state
};

// `project`'s volumes (nullopt: every project's, and those of no known project).
std::vector<VolumeRow> collect_volumes(CliContext& ctx, const std::optional<std::string>& project);

// `lanectl volume list` and `lanectl list volumes`: -p, -A (all projects), -o json|yaml.
void list_volumes(CliContext& ctx, const std::string& project_flag, bool all, const std::string& output);

// `lanectl volume describe NAME` on the configured backend.
void describe_volume(CliContext& ctx, const std::string& name, const std::string& project_flag,
                     const std::string& output);

}  // namespace lane::cli

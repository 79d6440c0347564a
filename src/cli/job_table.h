#pragma once
// The job table of `lanectl list` (and its --watch rows), its --sort-by keys and -l filter.
#include <optional>
#include <string>
#include <vector>

#include "cli/context.h"
#include "submit/core/workload.h"

namespace lane::cli {

// The header of the job table: 8 columns by default (within kDefaultTableWidth), 16 with -o wide.
std::vector<std::string> job_table_header(bool wide);
// One job's row; `now_ms` gives its AGE.
std::vector<std::string> job_table_row(const submit::JobInfo& job, bool wide, int64_t now_ms);

// Sorts `jobs` (stably) by a --sort-by key: a column name (name, status, age, node, type, project,
// user, image) or a JSONPath (.metadata.name, .metadata.namespace, .metadata.creationTimestamp,
// .status.phase, .status.startTime, .spec.image). Throws UsageError listing them otherwise.
void sort_jobs(std::vector<submit::JobInfo>& jobs, const std::string& key);

}  // namespace lane::cli

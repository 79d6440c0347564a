#pragma once
// JSON forms of the workload model: the stored spec of a job (local backend), and the
// `lanectl list/describe -o json` interface (field names are camelCase and stable).
#include <nlohmann/json.hpp>

#include "submit/core/workload.h"

namespace lane::submit {

// The stored spec: one key per row of spec_fields() (spec_fields.h). Fields added later are
// written only when set and read with their defaults, so that stored specs load in both directions.
nlohmann::json spec_to_json(const JobSpec& spec);
JobSpec spec_from_json(const nlohmann::json& j);

// The stable job document: name, project, type, status, gpusRequested, gpusAllocated, nodes,
// createdAt (RFC 3339), plus image, user, statusReason, podsRunning, podsPending, exitCode,
// startedAt, finishedAt, pods[], events[] (the last two only when `detailed`).
nlohmann::json job_to_json(const JobInfo& job, bool detailed);

JobType job_type_from_string(const std::string& s);      // "Train" → kTrain ...
JobStatus job_status_from_string(const std::string& s);  // "Pending" → kPending ...

std::string format_rfc3339(int64_t unix_ms);  // 2026-11-22T00:46:03Z; "" for 0

}  // namespace lane::submit

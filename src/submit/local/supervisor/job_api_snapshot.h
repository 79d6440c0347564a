#pragma once
// The job API's operations, answered by the supervisor of job `job_id` (outside the job's
// sandbox, with the backend's rights, but only for that job's project):
//   {"op": "snapshot", "pvc": CLAIM, "outputDir": DIR, "codeVersion": REV}
//     the end-of-training snapshot of CLAIM (a claim of the job's project) with the lineage of
//     the job; DIR is the training output as the job sees it (read through the claim's directory,
//     or through /proc/<peer>/root when it is not on a claim). Reply: {"snapshot", "log"}.
#include <sys/types.h>

#include <cstdint>
#include <filesystem>

#include <nlohmann/json.hpp>

namespace lane::submit::local {

nlohmann::json answer_job_api(const std::filesystem::path& home, int64_t job_id, const nlohmann::json& request,
                              pid_t peer);

}  // namespace lane::submit::local

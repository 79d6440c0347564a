#include "submit/core/workload.h"

#include "common/secrets.h"

namespace lane::submit {

const char* to_string(JobType type) {
  switch (type) {
    case JobType::kTrain: return "Train";
    case JobType::kInteractive: return "Interactive";
    case JobType::kMpi: return "Mpi";
  }
  return "Unknown";
}

const char* to_string(JobStatus status) {
  switch (status) {
    case JobStatus::kPending: return "Pending";
    case JobStatus::kRunning: return "Running";
    case JobStatus::kSucceeded: return "Succeeded";
    case JobStatus::kFailed: return "Failed";
    case JobStatus::kDeleted: return "Deleted";
    case JobStatus::kPreempted: return "Preempted";
    case JobStatus::kUnknown: return "Unknown";
  }
  return "Unknown";
}

JobSpec masked_for_display(const JobSpec& spec) {
  JobSpec out = spec;
  for (auto& e : out.env) e.value = mask_env_assignment(e.name + "=" + e.value).substr(e.name.size() + 1);
  out.cli_argv = mask_secret_argv(spec.cli_argv);
  return out;
}

std::optional<SecretRef> parse_secret_ref(const std::string& value) {
  if (value.rfind("SECRET:", 0) != 0) return std::nullopt;
  const std::string rest = value.substr(7);
  const size_t comma = rest.find(',');
  if (comma == std::string::npos || comma == 0 || comma + 1 == rest.size()) return std::nullopt;
  return SecretRef{rest.substr(0, comma), rest.substr(comma + 1)};
}

}  // namespace lane::submit

#include "submit/core/workload.h"

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

}  // namespace lane::submit

// Kubernetes list pages (JobList/MPIJobList/PodList) as the API server sends them: parsed into
// summaries or rejected with nlohmann::json's exception; never a crash or a sanitizer report.
#include <exception>

#include "fuzz_input.h"
#include "submit/kube/list_page_parse.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = lane::fuzz::text(data, size);
  try {
    std::vector<lane::submit::kube::WorkloadSummary> workloads;
    lane::submit::kube::parse_workload_page(text, "Job", workloads);
  } catch (const std::exception&) {
  }
  try {
    std::vector<lane::submit::kube::PodSummary> pods;
    lane::submit::kube::parse_pod_page(text, pods);
  } catch (const std::exception&) {
  }
  return 0;
}

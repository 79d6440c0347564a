#pragma once
// One page of a workload list (MPIJobList, JobList) or PodList parsed straight into the
// summaries job_state reads, with nlohmann::json::sax_parse: no JSON tree is built, and
// values nobody reads are scanned (the JSON is still fully validated) but never stored.
// `lanectl list` of thousands of jobs spends most of its time here.
#include <string>
#include <vector>

#include "kube/kube_client.h"
#include "submit/kube/object_summary.h"

namespace lane::submit::kube {

// Appends the page's items to `out`. Items without a kind (the API server omits it on list
// items) get `listed_kind`. Throws nlohmann::json::parse_error on malformed JSON.
lane::kube::ListPageMeta parse_workload_page(const std::string& text, const std::string& listed_kind,
                                             std::vector<WorkloadSummary>& out);
lane::kube::ListPageMeta parse_pod_page(const std::string& text, std::vector<PodSummary>& out);

}  // namespace lane::submit::kube

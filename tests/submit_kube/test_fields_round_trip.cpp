// The writer (mapping) and the readers (object_summary's tree reader, list_page_parse's list
// reader, job_state's rules) of the Kubernetes objects agree on every field lanectl reads back:
// a spec rendered by mapping reads back as the same spec, through both readers, for a batch Job
// (whole and fractional GPU) and an MPIJob. A field renamed on one side only fails here.
#include <catch2/catch.hpp>

#include "submit/core/workload_json.h"
#include "submit/kube/fields.h"
#include "submit/kube/job_state.h"
#include "submit/kube/list_page_parse.h"
#include "submit/kube/mapping.h"

using namespace lane::submit;
using namespace lane::submit::kube;
using Json = nlohmann::json;

namespace {

JobSpec spec_of(JobType type, double gpu) {
  JobSpec s;
  s.name = "lane-train";
  s.project = "lane-detection";
  s.type = type;
  s.image = "scnn-train:1.0";
  s.gpu = gpu;
  s.processes = type == JobType::kMpi ? 3 : 1;
  s.slots_per_worker = type == JobType::kMpi ? 2 : 1;
  s.user = "alice";
  s.env = {{"BATCH_SIZE", "33"}};
  s.cli_argv = {"lanectl", "submit", "lane-train"};
  return s;
}

// What the list reader makes of `object` served as the only item of a list page (the API
// server drops the kind of list items).
WorkloadSummary read_as_list_item(Json object, const std::string& kind) {
  object.erase("kind");
  std::vector<WorkloadSummary> out;
  parse_workload_page(Json{{"kind", kind + "List"}, {"items", Json::array({object})}}.dump(), kind, out);
  REQUIRE(out.size() == 1);
  return out[0];
}

// A pod as the Job or MPI controller makes it from `tmpl`: the template's metadata and spec,
// the controller's labels, scheduled and running.
Json pod_from_template(const Json& tmpl, const std::string& name, const Json& controller_labels) {
  Json pod{{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", tmpl["metadata"]}, {"spec", tmpl["spec"]}};
  pod["metadata"]["name"] = name;
  pod["metadata"]["namespace"] = "runai-lane-detection";
  for (const auto& [k, v] : controller_labels.items()) pod["metadata"]["labels"][k] = v;
  pod["spec"][kNodeName] = "node-1";
  pod["status"][kPodPhase] = "Running";
  return pod;
}

PodSummary read_pod_as_list_item(const Json& pod) {
  std::vector<PodSummary> out;
  parse_pod_page(Json{{"kind", "PodList"}, {"items", Json::array({pod})}}.dump(), out);
  REQUIRE(out.size() == 1);
  return out[0];
}

// The fields of a spec that the objects carry in their own fields (labels, templates, replica
// specs), i.e. what list/describe show for an object without lanectl's spec annotation.
void check_visible_fields(const JobSpec& read, const JobSpec& written) {
  CHECK(read.name == written.name);
  CHECK(read.project == written.project);
  CHECK(read.type == written.type);
  CHECK(read.image == written.image);
  CHECK(read.gpu == written.gpu);
  CHECK(read.processes == written.processes);
  CHECK(read.slots_per_worker == written.slots_per_worker);
  CHECK(read.user == written.user);
}

// An object edited or made by other tools: no lanectl spec annotation.
WorkloadSummary without_spec_annotation(WorkloadSummary w) {
  w.annotations.erase(std::remove_if(w.annotations.begin(), w.annotations.end(),
                                     [](const auto& kv) { return kv.first == kSpecAnnotation; }),
                      w.annotations.end());
  return w;
}

}  // namespace

TEST_CASE("kube fields: a spec written by mapping reads back the same through both readers", "[submit_kube][fast]") {
  const KubeSettings settings;
  auto [type, gpu] = GENERATE(table<JobType, double>({{JobType::kTrain, 2},
                                                      {JobType::kTrain, 0.5},
                                                      {JobType::kInteractive, 1},
                                                      {JobType::kMpi, 1},
                                                      {JobType::kMpi, 0}}));
  const JobSpec written = spec_of(type, gpu);
  INFO("type " << to_string(type) << ", --gpu " << gpu);
  const bool mpi = type == JobType::kMpi;
  const Json object = mpi ? mpijob_object(settings, written) : batch_job_object(settings, written);
  const std::string kind = mpi ? kMpiJobKind : kJobKind;
  CHECK(object["kind"] == kind);

  const WorkloadSummary tree = summarize_workload(object);
  const WorkloadSummary listed = read_as_list_item(object, kind);
  for (const WorkloadSummary* w : {&tree, &listed}) {
    INFO((w == &tree ? "tree reader" : "list reader"));
    CHECK(w->kind == kind);
    CHECK(w->name == written.name);
    CHECK(w->ns == project_namespace(settings, written.project));
    CHECK(find_value(w->labels, settings.queue_label));
    CHECK(find_value(w->labels, kJobLabel));
    REQUIRE(find_value(w->annotations, kSpecAnnotation));
    const PodTemplateSummary& tmpl = mpi ? w->worker_template : w->job_template;
    CHECK(tmpl.has_container);
    CHECK(tmpl.first_image == written.image);
    if (gpu >= 1) {
      REQUIRE(tmpl.first_gpu);
      CHECK(gpu_value(*tmpl.first_gpu) == gpu);
    } else {
      CHECK_FALSE(tmpl.first_gpu);
    }
    CHECK(tmpl.fraction.has_value() == (gpu > 0 && gpu < 1));

    // With lanectl's annotation, describe/list show the spec as written (secrets masked).
    JobInfo with_annotation = job_info_from_summaries(settings, *w, {});
    CHECK(spec_to_json(with_annotation.spec) == spec_to_json(masked_for_display(written)));

    // Without it (an object edited or made by other tools), the object's own fields tell.
    check_visible_fields(job_info_from_summaries(settings, without_spec_annotation(*w), {}).spec, written);
  }

  // The pods the controllers make from the templates: their GPUs and roles read back, and a
  // running job counts the GPUs it asked for, through both pod readers.
  std::vector<Json> pods;
  if (mpi) {
    const Json& specs = object["spec"][kReplicaSpecs];
    pods.push_back(pod_from_template(specs[kLauncherReplica]["template"], "lane-train-launcher",
                                     {{kMpiJobNameLabel, written.name}, {kMpiJobRoleLabel, "launcher"}}));
    for (int i = 0; i < written.processes; ++i)
      pods.push_back(pod_from_template(specs[kWorkerReplica]["template"], "lane-train-worker-" + std::to_string(i),
                                       {{kMpiJobNameLabel, written.name}, {kMpiJobRoleLabel, "worker"}}));
  } else {
    pods.push_back(pod_from_template(object["spec"]["template"], "lane-train-abcde",
                                     {{kBatchJobNameLabel, written.name}}));
  }
  std::vector<PodSummary> tree_pods, listed_pods;
  for (const auto& p : pods) {
    tree_pods.push_back(summarize_pod(p));
    listed_pods.push_back(read_pod_as_list_item(p));
  }
  for (const auto* summaries : {&tree_pods, &listed_pods}) {
    INFO((summaries == &tree_pods ? "tree pod reader" : "list pod reader"));
    std::vector<const PodSummary*> ptrs;
    for (const auto& p : *summaries) {
      CHECK((mpi ? p.mpi_job_name : p.job_name) == written.name);
      CHECK(p.phase == "Running");
      CHECK(p.node == "node-1");
      ptrs.push_back(&p);
    }
    JobInfo info = job_info_from_summaries(settings, tree, ptrs);
    CHECK(info.status == JobStatus::kRunning);
    CHECK(info.pods_running == static_cast<int>(pods.size()));
    CHECK(info.gpus_allocated == written.total_gpus());
    if (mpi) CHECK(info.pods.front().role == "launcher");
  }
}

TEST_CASE("kube fields: status conditions read back as the Run:AI status", "[submit_kube][fast]") {
  const KubeSettings settings;
  auto [kind, condition, status] = GENERATE(table<std::string, std::string, JobStatus>({
      {kJobKind, kConditionComplete, JobStatus::kSucceeded},
      {kMpiJobKind, kConditionSucceeded, JobStatus::kSucceeded},
      {kJobKind, kConditionFailed, JobStatus::kFailed},
      {kMpiJobKind, kConditionFailed, JobStatus::kFailed},
      {kJobKind, kConditionSuspended, JobStatus::kSuspended},
      {kMpiJobKind, kConditionSuspended, JobStatus::kSuspended}}));
  INFO(kind << " condition " << condition);
  const JobSpec written = spec_of(kind == kMpiJobKind ? JobType::kMpi : JobType::kTrain, 1);
  Json object = kind == kMpiJobKind ? mpijob_object(settings, written) : batch_job_object(settings, written);
  object["status"] = {{kStartTime, "2026-01-02T03:04:05Z"},
                      {kCompletionTime, "2026-01-02T04:04:05Z"},
                      {kConditions, Json::array({{{"type", condition},
                                                  {"status", kConditionTrue},
                                                  {"reason", "R"},
                                                  {"message", "m"}}})}};
  for (const WorkloadSummary& w : {summarize_workload(object), read_as_list_item(object, kind)}) {
    JobInfo info = job_info_from_summaries(settings, w, {});
    CHECK(info.status == status);
    CHECK(info.started_unix_ms == 1767323045000);
    CHECK(info.finished_unix_ms == 1767326645000);
    if (status == JobStatus::kFailed) CHECK(info.status_reason == "R: m");
  }
}

TEST_CASE("kube fields: a preemptible interactive job reads back as one, with or without the spec annotation", "[submit_kube][fast]") {
  const KubeSettings settings;
  JobSpec written = spec_of(JobType::kInteractive, 1);
  written.preemptibility = Preemptibility::kPreemptible;
  written.node_pool = "a100";
  written.tolerations = {{"nvidia.com/gpu", "", "NoSchedule"}};
  const WorkloadSummary tree = summarize_workload(batch_job_object(settings, written));
  CHECK(spec_to_json(job_info_from_summaries(settings, tree, {}).spec) == spec_to_json(masked_for_display(written)));
  const JobSpec read = job_info_from_summaries(settings, without_spec_annotation(tree), {}).spec;
  check_visible_fields(read, written);
  CHECK(read.preemptibility == Preemptibility::kPreemptible);  // from priorityClassName build-preemptible
  CHECK(type_label(read) == "Interactive-Preemptible");
}

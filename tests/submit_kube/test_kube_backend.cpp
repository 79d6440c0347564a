// The Kubernetes backend through its Backend interface against the test API server, which
// validates every object against the official schemas (Job, MPIJob, PVC, Service, Queue, ...).
#include <catch2/catch.hpp>

#include <sstream>

#include "common/error.h"
#include "fake_server.h"
#include "kube_backend_fixture.h"
#include "submit/core/errors.h"
#include "submit/kube/kube_backend.h"
#include "submit/kube/mapping.h"

using namespace lane::submit;
using namespace lane::submit::kube;
using Json = nlohmann::json;
namespace res = lane::kube::resources;

namespace {

using Fixture = lane::test::KubeBackendFixture;

// runai submit --name download-tusimple-data --pvc azurenetappfiles:100Gi:/mnt --image ...
JobSpec seed_download() {
  JobSpec s;
  s.name = "download-tusimple-data";
  s.project = "lane-detection";
  s.image = "muneer7589/download-tusimple:1.0";
  s.pvcs.push_back({true, "", "azurenetappfiles", "100Gi", "/mnt", false, false});
  s.cli_argv = {"lanectl", "submit", "--name", "download-tusimple-data", "--pvc", "azurenetappfiles:100Gi:/mnt",
                "--image", "muneer7589/download-tusimple:1.0"};
  s.user = "verronmartina";
  return s;
}

// runai submit-mpi --name dist-lane-detection-training --large-shm --processes=3 --gpu 1
//   --pvc pvc-download-tusimple-data-0:/mnt --image muneer7589/dist-lane-detection:3.1 -e ...
JobSpec seed_training() {
  JobSpec s;
  s.name = "dist-lane-detection-training";
  s.project = "lane-detection";
  s.type = JobType::kMpi;
  s.image = "muneer7589/dist-lane-detection:3.1";
  s.large_shm = true;
  s.processes = 3;
  s.gpu = 1;
  s.pvcs.push_back({false, "pvc-download-tusimple-data-0", "", "", "/mnt", false, false});
  s.env = {{"USE_WORKERS", "true"}, {"NUM_WORKERS", "4"},    {"BATCH_SIZE", "33"},
           {"USE_VAL", "false"},    {"VAL_BATCH_SIZE", "99"}, {"ENABLE_SNAPSHOT", "true"},
           {"PVC_NAME", "pvc-download-tusimple-data-0"}};
  s.user = "root";
  return s;
}

const Json* find_env(const Json& container, const std::string& name) {
  for (const auto& e : container["env"]) {
    if (e["name"] == name) return &e;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("kube mapping: the seed's MPI command line renders an MPIJob v2beta1", "[submit_kube][fast]") {
  KubeSettings s;
  Json job = mpijob_object(s, seed_training());
  CHECK(job["metadata"]["namespace"] == "runai-lane-detection");
  CHECK(job["metadata"]["labels"]["kai.scheduler/queue"] == "lane-detection");
  CHECK(job["metadata"]["annotations"]["totalGPUs"] == "3");
  const auto& specs = job["spec"]["mpiReplicaSpecs"];
  CHECK(specs["Launcher"]["replicas"] == 1);
  CHECK(specs["Worker"]["replicas"] == 3);
  const auto& worker = specs["Worker"]["template"]["spec"];
  CHECK(worker["schedulerName"] == "kai-scheduler");
  CHECK(worker["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] == "1");
  CHECK_FALSE(specs["Launcher"]["template"]["spec"]["containers"][0].contains("resources"));
  bool shm = false;
  for (const auto& v : worker["volumes"]) {
    if (v["name"] == "dshm") shm = v["emptyDir"]["medium"] == "Memory";
  }
  CHECK(shm);
  CHECK(worker["volumes"][0]["persistentVolumeClaim"]["claimName"] == "pvc-download-tusimple-data-0");
  const Json* bs = find_env(worker["containers"][0], "BATCH_SIZE");
  REQUIRE(bs);
  CHECK((*bs)["value"] == "33");
  CHECK(job["spec"]["runPolicy"]["cleanPodPolicy"] == "Running");

  // A fraction becomes the gpu-fraction annotation and no nvidia.com/gpu limit.
  JobSpec frac = seed_download();
  frac.gpu = 0.5;
  Json bj = batch_job_object(s, frac);
  CHECK(bj["spec"]["template"]["metadata"]["annotations"]["gpu-fraction"] == "0.5");
  CHECK_FALSE(bj["spec"]["template"]["spec"]["containers"][0].contains("resources"));
  CHECK(bj["spec"]["backoffLimit"] == 6);
  frac.type = JobType::kInteractive;
  CHECK(batch_job_object(s, frac)["spec"]["backoffLimit"] == 0);
  CHECK(batch_job_object(s, frac)["metadata"]["labels"]["priorityClassName"] == "build");

  JobSpec bad = seed_download();
  bad.gpu = 1.5;
  CHECK_THROWS_AS(render_job(s, bad), lane::UsageError);
  bad = seed_download();
  bad.pvcs[0].size = "lots";
  CHECK_THROWS_WITH(render_job(s, bad), Catch::Contains("not a Kubernetes quantity"));
  bad = seed_download();
  bad.service_type = "nodeport";
  CHECK_THROWS_WITH(render_job(s, bad), Catch::Contains("--port"));
}

TEST_CASE("kube backend: the seed workflow (submit, submit-mpi, list, logs, describe, delete)", "[submit_kube][fast]") {
  Fixture f;
  // Project = namespace labelled runai/queue + a KAI Queue.
  auto ns = f.client->get(res::kNamespace, "", "runai-lane-detection");
  CHECK(ns["metadata"]["labels"]["runai/queue"] == "lane-detection");
  auto queue = f.client->get(res::kQueue, "", "lane-detection");
  CHECK(queue["spec"]["resources"]["gpu"]["quota"] == 3.0);
  CHECK(f.backend.projects().project_exists("lane-detection"));
  CHECK_FALSE(f.backend.projects().project_exists("other"));

  JobInfo dl = f.backend.jobs().submit(seed_download());
  CHECK(dl.spec.name == "download-tusimple-data");
  auto pvc = f.client->get(res::kPvc, "runai-lane-detection", "pvc-download-tusimple-data-0");
  CHECK(pvc["spec"]["accessModes"][0] == "ReadWriteMany");  // no RWX patch needed for the MPI job
  CHECK(pvc["spec"]["storageClassName"] == "azurenetappfiles");
  CHECK(pvc["spec"]["resources"]["requests"]["storage"] == "100Gi");

  JobInfo tr = f.backend.jobs().submit(seed_training());
  CHECK(tr.spec.type == JobType::kMpi);
  CHECK(tr.pods.size() == 4);  // launcher + 3 workers

  auto jobs = f.backend.jobs().list_jobs(std::string("lane-detection"));
  REQUIRE(jobs.size() == 2);
  CHECK(jobs[0].spec.name == "dist-lane-detection-training");
  CHECK(jobs[0].status == JobStatus::kRunning);
  CHECK(jobs[0].gpus_allocated == 3.0);
  CHECK(jobs[0].pods_running == 4);
  CHECK(jobs[0].nodes.size() == 4);
  CHECK(jobs[1].spec.name == "download-tusimple-data");
  CHECK(jobs[1].spec.pvcs.size() == 1);
  CHECK(f.backend.jobs().list_jobs(std::nullopt).size() == 2);

  // Duplicate names and unknown projects are usage errors; nothing is created. A taken name is
  // the typed AlreadyExists (what --job-name-prefix catches to take the next name).
  CHECK_THROWS_AS(f.backend.jobs().submit(seed_download()), AlreadyExists);
  JobSpec elsewhere = seed_download();
  elsewhere.project = "nowhere";
  CHECK_THROWS_WITH(f.backend.jobs().submit(elsewhere), Catch::Contains("project nowhere was not found"));
  JobSpec missing_claim = seed_training();
  missing_claim.name = "t2";
  missing_claim.pvcs[0].claim = "no-such-claim";
  CHECK_THROWS_WITH(f.backend.jobs().submit(missing_claim), Catch::Contains("no-such-claim"));

  // logs: the launcher of the MPI job, with --tail.
  std::ostringstream out;
  LogOptions lo;
  f.backend.jobs().stream_logs("dist-lane-detection-training", "lane-detection", lo, out);
  CHECK(out.str().rfind("Running with 3 workers\n", 0) == 0);
  std::ostringstream tail;
  lo.tail = 1;
  f.backend.jobs().stream_logs("dist-lane-detection-training", "lane-detection", lo, tail);
  CHECK(tail.str() == "[1,0]<stdout>:epoch 10\n");

  auto d = f.backend.jobs().describe_job("dist-lane-detection-training", "lane-detection");
  REQUIRE(d);
  CHECK(d->pods.front().role == "launcher");
  bool running_condition = false;
  for (const auto& e : d->events) running_condition |= e.reason == "Running/MPIJobRunning";
  CHECK(running_condition);
  CHECK_FALSE(f.backend.jobs().describe_job("nope", "lane-detection"));

  CHECK(f.backend.jobs().next_job_name("lane-detection", "job") == "job-1");

  // delete cascades to the pods; the claim stays.
  CHECK(f.backend.jobs().delete_job("dist-lane-detection-training", "lane-detection"));
  CHECK_FALSE(f.backend.jobs().delete_job("dist-lane-detection-training", "lane-detection"));
  auto reqs = f.server.requests();
  bool foreground = false;
  for (const auto& r : reqs) {
    if (r["method"] == "DELETE" && r["body"].get<std::string>().find("Foreground") != std::string::npos) foreground = true;
  }
  CHECK(foreground);
  lane::kube::ListOptions o;
  o.label_selector = "training.kubeflow.org/job-name=dist-lane-detection-training";
  CHECK(f.client->list(res::kPod, "runai-lane-detection", o).items.empty());
  CHECK(f.client->try_get(res::kPvc, "runai-lane-detection", "pvc-download-tusimple-data-0"));
  CHECK(f.backend.jobs().list_jobs(std::string("lane-detection")).size() == 1);

  CHECK_THROWS_WITH(f.backend.projects().delete_project("lane-detection"), Catch::Contains("still has 1 job"));
  CHECK(f.backend.jobs().delete_all_jobs("lane-detection") == std::vector<std::string>{"download-tusimple-data"});
}

// A real API server sends the items of a list without kind/apiVersion (the fake does the same);
// a listed MPIJob must still be judged by the MPIJob rules (condition Succeeded, not Complete).
TEST_CASE("kube backend: a 409 AlreadyExists for the workload is the typed AlreadyExists", "[submit_kube][fast]") {
  Fixture f;
  // A batch Job the lookup before creating does not count as a job (an MPIJob's launcher Job),
  // so the name clash shows only in the API server's 409 answer to the create.
  const Json launcher = Json::parse(R"({
    "apiVersion": "batch/v1", "kind": "Job",
    "metadata": {"name": "taken", "ownerReferences": [{"apiVersion": "kubeflow.org/v2beta1", "kind": "MPIJob",
                                                        "name": "other", "uid": "0b7e6c2a-1111-2222-3333-444455556666"}]},
    "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}})");
  f.client->create(res::kJob, "runai-lane-detection", launcher);
  JobSpec spec;
  spec.name = "taken";
  spec.project = "lane-detection";
  spec.image = "busybox";
  try {
    f.backend.jobs().submit(spec);
    FAIL("the clash was not reported");
  } catch (const AlreadyExists& e) {
    CHECK(std::string(e.what()) == job_name_taken("taken", "lane-detection").what());
  }
}

TEST_CASE("kube backend: listed MPIJobs keep MPIJob status rules although list items carry no kind", "[submit_kube][fast]") {
  Fixture f;
  f.backend.jobs().submit(seed_download());  // makes the claim the MPI job mounts
  f.backend.jobs().submit(seed_training());
  auto raw = Json::parse(f.client->request("GET", res::kMpiJob.collection_path("runai-lane-detection")).body);
  REQUIRE(raw["items"].size() == 1);
  CHECK_FALSE(raw["items"][0].contains("kind"));  // the server behaves like a real one
  auto listed = f.client->list(res::kMpiJob, "runai-lane-detection").items;
  REQUIRE(listed.size() == 1);
  CHECK(listed[0]["kind"] == "MPIJob");  // stamped by KubeClient::list
  CHECK(listed[0]["apiVersion"] == "kubeflow.org/v2beta1");

  // The operator reports success while the pods still show Running (they are being torn down).
  Json mpi = f.client->get(res::kMpiJob, "runai-lane-detection", "dist-lane-detection-training");
  mpi["status"]["conditions"].push_back({{"type", "Succeeded"}, {"status", "True"}, {"reason", "MPIJobSucceeded"},
                                         {"message", "done"}, {"lastTransitionTime", "2026-01-01T00:00:00Z"}});
  f.server.control("/_test/object", mpi);
  auto jobs = f.backend.jobs().list_jobs(std::string("lane-detection"));
  REQUIRE(jobs.size() == 2);
  REQUIRE(jobs[0].spec.name == "dist-lane-detection-training");
  CHECK(jobs[0].status == JobStatus::kSucceeded);
  CHECK(jobs[0].gpus_allocated == 0);
  CHECK(f.backend.jobs().list_jobs(std::nullopt).at(0).status == JobStatus::kSucceeded);
  CHECK(f.backend.jobs().describe_job("dist-lane-detection-training", "lane-detection")->status == JobStatus::kSucceeded);
}

TEST_CASE("kube backend: render, services, status demotion and projects", "[submit_kube][fast]") {
  Fixture f;
  JobSpec nb;
  nb.name = "notebook";
  nb.project = "lane-detection";
  nb.type = JobType::kInteractive;
  nb.image = "jupyter/scipy-notebook";
  nb.gpu = 0.5;
  nb.ports = {parse_port("30888:8888")};
  nb.service_type = "nodeport";
  nb.command = {"start-notebook.sh"};
  nb.args = {"--NotebookApp.token="};
  Json rendered = f.backend.jobs().render(nb);
  REQUIRE(rendered["items"].size() == 2);
  CHECK(rendered["items"][1]["kind"] == "Service");
  CHECK(rendered["items"][1]["spec"]["ports"][0]["nodePort"] == 30888);
  CHECK(f.client->list(res::kJob, "runai-lane-detection").items.empty());  // render changed nothing
  f.backend.jobs().submit(nb);
  auto svc = f.client->get(res::kService, "runai-lane-detection", "notebook");
  CHECK(svc["spec"]["type"] == "NodePort");
  auto job = f.backend.jobs().describe_job("notebook", "lane-detection");
  REQUIRE(job);
  CHECK(job->gpus_allocated == 0.5);
  CHECK(job->spec.type == JobType::kInteractive);

  // A job whose pod is Pending while another runs is Pending (runai's rule).
  auto pods = f.client->list(res::kPod, "runai-lane-detection").items;
  REQUIRE(pods.size() == 1);
  Json extra = pods[0];
  extra["metadata"]["name"] = "notebook-extra";
  extra["status"]["phase"] = "Pending";
  f.server.control("/_test/object", extra);
  CHECK(f.backend.jobs().describe_job("notebook", "lane-detection")->status == JobStatus::kPending);

  CHECK(f.backend.jobs().delete_job("notebook", "lane-detection"));
  CHECK_FALSE(f.client->try_get(res::kService, "runai-lane-detection", "notebook"));

  f.backend.projects().create_project({"team-b", 2, false});
  CHECK_THROWS_AS(f.backend.projects().create_project({"team-b", 2, false}), lane::UsageError);
  // The project name rule of every backend (submit::validate_project_name), not the namespace's.
  const std::string long_name(58, 'p');
  CHECK_THROWS_WITH(f.backend.projects().create_project({long_name, 1, true}),
                    "invalid project name '" + long_name + "': at most 57 characters, so that its namespace runai-" +
                        long_name + " fits in 63; use a shorter name");
  auto projects = f.backend.projects().list_projects();
  REQUIRE(projects.size() == 2);
  CHECK(projects[1].spec.name == "team-b");
  CHECK(projects[1].spec.gpu_quota == 2.0);
  CHECK_FALSE(projects[1].spec.over_quota);
  f.backend.projects().set_project_quota("team-b", 4, true);
  auto q = f.client->get(res::kQueue, "", "team-b");
  CHECK(q["spec"]["resources"]["gpu"]["quota"] == 4.0);
  CHECK(q["spec"]["resources"]["gpu"]["limit"] == -1.0);
  f.backend.projects().delete_project("team-b");
  CHECK_FALSE(f.backend.projects().project_exists("team-b"));
  CHECK_THROWS_AS(f.backend.cluster().set_nodes({}), lane::UsageError);
  std::ostringstream out, err;
  CHECK_THROWS_WITH(f.backend.jobs().exec("x", "lane-detection", {"ls"}, false, "", out, err), Catch::Contains("does not exist"));
}

TEST_CASE("kube backend: storage progress goes to the stream it was given, nothing is written by itself", "[submit_kube][fast]") {
  lane::test::FakeApiServer server;
  auto client = std::make_shared<lane::kube::KubeClient>(server.connection());
  std::ostringstream progress;
  KubeBackend backend(client, KubeSettings{}, "lane-detection", &progress);
  backend.projects().create_project({"lane-detection", 1, true});
  backend.storage().volumes().create("pvc-data", "100Gi", "azurenetappfiles", lane::storage::VolumeOrigin::job("", "test"));
  auto info = backend.storage().snapshots().create("pvc-data", "snap-1", "", {});
  CHECK(info.ns == "runai-lane-detection");
  CHECK(progress.str().find("readyToUse=true") != std::string::npos);
  // A project's own store reports to the same stream.
  const auto before = progress.str().size();
  backend.storage().snapshots_of("lane-detection").create("pvc-data", "snap-2", "", {});
  CHECK(progress.str().size() > before);

  // Without a stream the backend stays silent (and still works).
  KubeBackend quiet(client, KubeSettings{}, "lane-detection");
  CHECK(quiet.storage().snapshots().create("pvc-data", "snap-3", "", {}).name == "snap-3");
}

TEST_CASE("kube backend: the API server's warnings are printed on the error stream, once each", "[submit_kube][fast]") {
  lane::test::FakeApiServer server;
  auto client = std::make_shared<lane::kube::KubeClient>(server.connection());
  std::ostringstream err;
  KubeBackend backend(client, KubeSettings{}, "lane-detection", &err);
  backend.projects().create_project({"lane-detection", 3, true});
  CHECK(err.str().empty());
  server.control("/_test/settings", {{"warnings", {"kubeflow.org/v2beta1 MPIJob is deprecated; use v2"}}});
  backend.jobs().submit(seed_download());
  backend.jobs().list_jobs(std::string("lane-detection"));
  CHECK(err.str() == "Warning: kubeflow.org/v2beta1 MPIJob is deprecated; use v2\n");
}

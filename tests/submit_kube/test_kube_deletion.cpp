// A job being deleted (foreground deletion: the workload stays, with deletionTimestamp and the
// foregroundDeletion finalizer, until its pods are gone) against the test API server: delete
// waits for it as `kubectl delete` does, and the seed's delete-then-resubmit of the same name
// waits for it, or fails within the bound naming the fix.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdlib>
#include <sstream>

#include "common/error.h"
#include "fake_server.h"
#include "submit/core/errors.h"
#include "submit/kube/kube_backend.h"
#include "submit/kube/settings.h"

using lane::submit::AlreadyExists;
using lane::submit::JobInfo;
using lane::submit::JobSpec;
using lane::submit::JobType;
using lane::submit::kube::KubeBackend;
using lane::submit::kube::KubeSettings;
using lane::submit::kube::settings_from_env;
using Json = nlohmann::json;
namespace res = lane::kube::resources;

namespace {

constexpr const char* kNs = "runai-lane-detection";  // the project lane-detection's namespace

// The seed's MPI training, small: launcher + 2 workers.
JobSpec training() {
  JobSpec s;
  s.name = "dist-lane-detection-training";
  s.project = "lane-detection";
  s.type = JobType::kMpi;
  s.processes = 2;
  s.gpu = 1;
  s.image = "muneer7589/dist-lane-detection:3.1";
  return s;
}

struct Deletion {
  lane::test::FakeApiServer server;
  std::shared_ptr<lane::kube::KubeClient> client =
      std::make_shared<lane::kube::KubeClient>(server.connection());
  std::ostringstream progress;
  KubeBackend backend;
  explicit Deletion(std::chrono::seconds wait, double termination_s)
      : backend(client, settings(wait), "lane-detection", &progress) {
    backend.projects().create_project({"lane-detection", 3, true});
    server.control("/_test/settings", {{"termination_seconds", termination_s}});
  }
  static KubeSettings settings(std::chrono::seconds wait) {
    KubeSettings s;
    s.deletion_wait = wait;
    return s;
  }
  // What `kubectl delete mpijob NAME --cascade=foreground --wait=false` leaves: the MPIJob, marked.
  Json delete_foreground(const std::string& name) {
    client->remove(res::kMpiJob, kNs, name, "Foreground");
    return client->get(res::kMpiJob, kNs, name);
  }
};

}  // namespace

TEST_CASE("kube deletion: a resubmit of a job being deleted waits for it to go, then creates it anew", "[submit_kube][slow]") {
  Deletion d(std::chrono::seconds(30), 1.0);
  d.backend.jobs().submit(training());
  const std::string first_uid =
      d.client->get(res::kMpiJob, kNs, "dist-lane-detection-training")["metadata"].value("uid", "");
  Json marked = d.delete_foreground("dist-lane-detection-training");
  CHECK(marked["metadata"].contains("deletionTimestamp"));
  CHECK(marked["metadata"]["finalizers"] == Json::array({"foregroundDeletion"}));
  // Without the wait this is job_name_taken ("already exists"): the name is still held.
  const auto t0 = std::chrono::steady_clock::now();
  JobInfo again = d.backend.jobs().submit(training());
  CHECK(std::chrono::steady_clock::now() - t0 >= std::chrono::milliseconds(800));
  CHECK(again.spec.name == "dist-lane-detection-training");
  CHECK_THAT(d.progress.str(), Catch::Contains("job 'dist-lane-detection-training' in project lane-detection is "
                                               "being deleted") &&
                                   Catch::Contains("waiting up to 30s"));
  Json now = d.client->get(res::kMpiJob, kNs, "dist-lane-detection-training");
  CHECK_FALSE(now["metadata"].contains("deletionTimestamp"));
  CHECK(now["metadata"].value("uid", "") != first_uid);
}

TEST_CASE("kube deletion: a job still being deleted after the bound is refused, naming the fix", "[submit_kube][slow]") {
  Deletion d(std::chrono::seconds(1), 30.0);
  d.backend.jobs().submit(training());
  d.delete_foreground("dist-lane-detection-training");
  const auto t0 = std::chrono::steady_clock::now();
  CHECK_THROWS_MATCHES(d.backend.jobs().submit(training()), AlreadyExists,
                       Catch::Matchers::Predicate<AlreadyExists>([](const AlreadyExists& e) {
                         const std::string m = e.what();
                         return m.find("is still being deleted after 1s") != std::string::npos &&
                                m.find("kubectl get mpijob dist-lane-detection-training -n runai-lane-detection") !=
                                    std::string::npos &&
                                m.find("LANECTL_DELETION_WAIT_SECONDS") != std::string::npos;
                       }));
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(10));
  // Nothing new was created: the marked MPIJob is the one there.
  CHECK(d.client->get(res::kMpiJob, kNs, "dist-lane-detection-training")["metadata"].contains("deletionTimestamp"));
}

TEST_CASE("kube deletion: delete waits for the foreground deletion to finish, as kubectl delete does", "[submit_kube][slow]") {
  Deletion d(std::chrono::seconds(30), 1.0);
  d.backend.jobs().submit(training());
  CHECK(d.backend.jobs().delete_job("dist-lane-detection-training", "lane-detection"));
  CHECK_FALSE(d.client->try_get(res::kMpiJob, kNs, "dist-lane-detection-training"));
  lane::kube::ListOptions o;
  o.label_selector = "training.kubeflow.org/job-name=dist-lane-detection-training";
  CHECK(d.client->list(res::kPod, kNs, o).items.empty());
  // Gone, so a resubmit neither waits nor says so.
  d.backend.jobs().submit(training());
  CHECK(d.progress.str().find("being deleted") == std::string::npos);
}

TEST_CASE("kube deletion: LANECTL_DELETION_WAIT_SECONDS sets the bound, and a bad value names the variable", "[submit_kube][fast]") {
  CHECK(settings_from_env().deletion_wait == std::chrono::seconds(60));
  setenv("LANECTL_DELETION_WAIT_SECONDS", "5", 1);
  CHECK(settings_from_env().deletion_wait == std::chrono::seconds(5));
  for (const char* bad : {"soon", "-1", "5s", "1.5"}) {
    setenv("LANECTL_DELETION_WAIT_SECONDS", bad, 1);
    CHECK_THROWS_MATCHES(settings_from_env(), lane::UsageError,
                         Catch::Matchers::Predicate<lane::UsageError>([](const lane::UsageError& e) {
                           return std::string(e.what()).find("LANECTL_DELETION_WAIT_SECONDS") != std::string::npos &&
                                  std::string(e.what()).find("whole number of seconds") != std::string::npos;
                         }));
  }
  unsetenv("LANECTL_DELETION_WAIT_SECONDS");
}

TEST_CASE("kube deletion: a claim being deleted is refused before anything is created", "[submit_kube][slow]") {
  Deletion d(std::chrono::seconds(30), 0.2);
  // What kubernetes.io/pvc-protection leaves while a pod still mounts a deleted claim.
  auto going = [&](const std::string& name) {
    Json pvc = Json::parse(R"({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
      "metadata": {"namespace": "runai-lane-detection", "deletionTimestamp": "2026-01-01T00:00:00Z",
                   "finalizers": ["kubernetes.io/pvc-protection"]},
      "spec": {"accessModes": ["ReadWriteMany"], "resources": {"requests": {"storage": "1Gi"}}}})");
    pvc["metadata"]["name"] = name;
    d.server.control("/_test/object", pvc);
  };
  going("shared-data");
  JobSpec mounts = training();
  mounts.pvcs.push_back({false, "shared-data", "", "", "/mnt", false, false});
  CHECK_THROWS_WITH(d.backend.jobs().submit(mounts),
                    Catch::Contains("--pvc: claim 'shared-data' in runai-lane-detection is being deleted") &&
                        Catch::Contains("kubectl get pvc shared-data -n runai-lane-detection"));
  going("pvc-dist-lane-detection-training-0");  // left by an earlier run of the job, now going
  JobSpec creates = training();
  creates.pvcs.push_back({true, "", "azurenetappfiles", "10Gi", "/data", false, false});
  CHECK_THROWS_WITH(d.backend.jobs().submit(creates), Catch::Contains("claim 'pvc-dist-lane-detection-training-0'"));
  CHECK_FALSE(d.client->try_get(res::kMpiJob, kNs, "dist-lane-detection-training"));
}

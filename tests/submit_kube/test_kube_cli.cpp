// The seed's command lines, with lanectl in place of runai, through the real binary with the
// kubernetes backend against the test API server (kubeconfig via KUBECONFIG). The test server
// enforces the official schemas and the API server's own rules, so every object these lines make
// is one a real cluster would accept.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "fake_server.h"
#include "support/lanectl_runner.h"
#include "kube/kube_client.h"
#include "test_paths.h"

namespace {

using Cli = lane::test::Lanectl;

}  // namespace

TEST_CASE("kube cli: the seed workflow with lanectl in place of runai", "[submit_kube][fast]") {
  lane::test::FakeApiServer server;
  Cli cli(server.url());
  auto r = cli.run_shell("project create lane-detection --gpu-quota 3");
  INFO(r.out);
  REQUIRE(r.code == 0);
  REQUIRE(cli.run_shell("config project lane-detection").code == 0);

  r = cli.run_shell("submit --name download-tusimple-data --pvc azurenetappfiles:100Gi:/mnt "
              "--image muneer7589/download-tusimple:1.0");
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("download-tusimple-data") != std::string::npos);

  const std::string mpi =
      "submit-mpi --name dist-lane-detection-training --large-shm --processes=3 --gpu 1 "
      "--pvc pvc-download-tusimple-data-0:/mnt --image muneer7589/dist-lane-detection:3.1 "
      "-e USE_WORKERS=\"true\" -e NUM_WORKERS=4 -e BATCH_SIZE=33 -e USE_VAL=\"false\" -e VAL_BATCH_SIZE=99 "
      "-e ENABLE_SNAPSHOT=\"true\" -e PVC_NAME=\"pvc-download-tusimple-data-0\"";
  r = cli.run_shell(mpi + " --dry-run -o yaml");
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("kind: MPIJob") != std::string::npos);
  CHECK(r.out.find("apiVersion: kubeflow.org/v2beta1") != std::string::npos);
  lane::kube::KubeClient client(server.connection());
  CHECK(client.list(lane::kube::resources::kMpiJob, "runai-lane-detection").items.empty());  // dry run

  r = cli.run_shell(mpi);
  INFO(r.out);
  REQUIRE(r.code == 0);
  auto job = client.get(lane::kube::resources::kMpiJob, "runai-lane-detection", "dist-lane-detection-training");
  CHECK(job["spec"]["mpiReplicaSpecs"]["Worker"]["replicas"] == 3);

  // The seed's lines after each submit, verbatim.
  for (const char* line : {"list jobs", "logs download-tusimple-data -t 10",
                           "describe job download-tusimple-data -p lane-detection", "logs dist-lane-detection-training",
                           "describe job dist-lane-detection-training -p lane-detection"}) {
    r = cli.run_shell(line);
    INFO(line << "\n" << r.out);
    CHECK(r.code == 0);
  }
  r = cli.run_shell("list");
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("dist-lane-detection-training") != std::string::npos);
  CHECK(r.out.find("download-tusimple-data") != std::string::npos);
  CHECK(r.out.find("Mpi") != std::string::npos);

  r = cli.run_shell("logs dist-lane-detection-training --tail 1");
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK(r.out == "[1,0]<stdout>:epoch 10\n");

  r = cli.run_shell("describe job dist-lane-detection-training");
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK(r.out.find("dist-lane-detection-training-worker-2") != std::string::npos);

  // snapshot and restore through lanectl, and the seed's own `kubectl create -f
  // restore-snapshot-pvc.yaml`, are in tests/kube/kubectl_e2e.py.

  r = cli.run_shell("submit --name x --gpu 1.5 --image busybox");
  CHECK(r.code == 2);  // usage error names the flag
  CHECK(r.out.find("--gpu") != std::string::npos);

  r = cli.run_shell("delete job dist-lane-detection-training");
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK_FALSE(client.try_get(lane::kube::resources::kMpiJob, "runai-lane-detection", "dist-lane-detection-training"));

  // The seed's retraining line on the restored claim (the claim made here as the seed's
  // restore-snapshot-pvc.yaml would, minus the dataSource), under the same job name.
  client.create(lane::kube::resources::kPvc, "runai-lane-detection",
                {{"apiVersion", "v1"}, {"kind", "PersistentVolumeClaim"},
                 {"metadata", {{"name", "restored-tusimple"}}},
                 {"spec", {{"storageClassName", "azurenetappfiles"}, {"accessModes", {"ReadWriteMany"}},
                           {"resources", {{"requests", {{"storage", "100Gi"}}}}}}}});
  r = cli.run_shell("submit-mpi --name dist-lane-detection-training --large-shm --processes=3 --gpu 1 "
              "--pvc restored-tusimple:/mnt --image muneer7589/dist-lane-detection:3.1 "
              "-e USE_WORKERS=\"true\" -e NUM_WORKERS=4 -e BATCH_SIZE=33 -e USE_VAL=\"false\" -e VAL_BATCH_SIZE=99 "
              "-e ENABLE_SNAPSHOT=\"true\" -e PVC_NAME=\"restored-tusimple\"");
  INFO(r.out);
  REQUIRE(r.code == 0);
  auto again = client.get(lane::kube::resources::kMpiJob, "runai-lane-detection", "dist-lane-detection-training");
  CHECK(again.dump().find("restored-tusimple") != std::string::npos);

  // The Run:AI documentation's MPI example, verbatim.
  r = cli.run_shell("submit-mpi --name dist1 --processes=2 -g 1 -i gcr.io/run-ai-demo/quickstart-distributed:v0.3.0");
  INFO(r.out);
  REQUIRE(r.code == 0);
  auto dist1 = client.get(lane::kube::resources::kMpiJob, "runai-lane-detection", "dist1");
  CHECK(dist1["spec"]["mpiReplicaSpecs"]["Worker"]["replicas"] == 2);
}

TEST_CASE("kube cli: --kubeconfig and --context choose the cluster, before or after the verb", "[submit_kube][slow]") {
  lane::test::FakeApiServer server;
  Cli cli(server.url());  // KUBECONFIG points to a kubeconfig whose only context is the test server
  // A second kubeconfig: its current context is a cluster nobody listens on; context "test" is
  // the test server.
  lane::test::TempDir dir;
  const std::string other = (dir.path / "other-kubeconfig").string();
  std::ofstream(other) << "apiVersion: v1\nkind: Config\ncurrent-context: down\nclusters:\n"
                          "- name: down\n  cluster: {server: 'http://127.0.0.1:1'}\n"
                          "- name: test\n  cluster: {server: '" << server.url() << "'}\n"
                          "users:\n- name: u\n  user: {}\ncontexts:\n"
                          "- name: down\n  context: {cluster: down, user: u}\n"
                          "- name: test\n  context: {cluster: test, user: u}\n";
  // --kubeconfig replaces $KUBECONFIG: its current context is the unreachable one.
  auto r = cli.run_shell("--kubeconfig " + other + " project create via-other --gpu-quota 1");
  INFO(r.out);
  CHECK(r.code == 1);
  CHECK(r.out.find("127.0.0.1:1") != std::string::npos);
  // --context picks the test server's context in that file, as a global flag before the verb...
  r = cli.run_shell("--kubeconfig " + other + " --context test project create via-other --gpu-quota 1");
  INFO(r.out);
  CHECK(r.code == 0);
  lane::kube::KubeClient client(server.connection());
  CHECK(client.try_get(lane::kube::resources::kNamespace, "", "runai-via-other"));
  // ... or after it, in the --flag=value form too.
  r = cli.run_shell("project list --kubeconfig=" + other + " --context=test");
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK(r.out.find("via-other") != std::string::npos);
  // KAI divides the cluster in the cluster: the fair share is unknown here, not 0.
  r = cli.run_shell("project list -o json --kubeconfig=" + other + " --context=test");
  INFO(r.out);
  CHECK(r.out.find("\"fairShare\": null") != std::string::npos);
  CHECK(r.out.find("\"fairShare\": 0") == std::string::npos);
  // A context the kubeconfig does not define, and a file that does not exist, are named.
  r = cli.run_shell("project list --context nosuch");
  CHECK(r.code == 2);  // a usage error, as an unknown project is
  CHECK(r.out.find("context 'nosuch' is not defined in the kubeconfig (it defines ") != std::string::npos);
  CHECK(r.out.find("pass one of them to --context") != std::string::npos);
  r = cli.run_shell("project list --kubeconfig " + (dir.path / "missing").string());
  CHECK(r.code == 2);
  CHECK(r.out.find("--kubeconfig '" + (dir.path / "missing").string() + "': no such file") != std::string::npos);
}

// The Run:AI flags of issue 17 through the real binary: each one's field in the objects the
// schema-checking test server received, the --dry-run rendering, describe, and the usage errors.
TEST_CASE("kube cli: Run:AI flags become the Job's and MPIJob's fields", "[submit_kube][fast]") {
  lane::test::FakeApiServer server;
  Cli cli(server.url());
  REQUIRE(cli.run_shell("project create team --gpu-quota 2").code == 0);
  lane::kube::KubeClient client(server.connection());
  const std::string flags =
      "submit --name shell -p team -i busybox --interactive --preemptible -t --stdin "
      "--image-pull-policy IfNotPresent --cpu 500m --cpu-limit 2 --memory 1Gi --memory-limit 2Gi --gpu-memory 4G "
      "--node-pool a100 --toleration nvidia.com/gpu:NoSchedule --toleration pool=a100:NoExecute "
      "--run-as-user --host-ipc --host-network --ttl-after-finish 1h30m";
  auto r = cli.run_shell(flags + " --dry-run -o json");
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("\"ttlSecondsAfterFinished\": 5400") != std::string::npos);
  CHECK(r.out.find("\"imagePullPolicy\": \"IfNotPresent\"") != std::string::npos);
  CHECK_FALSE(client.try_get(lane::kube::resources::kJob, "runai-team", "shell"));  // dry run
  r = cli.run_shell(flags);
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("note:") == std::string::npos);  // every flag has its effect on Kubernetes
  auto job = client.get(lane::kube::resources::kJob, "runai-team", "shell");
  const auto& labels = job["metadata"]["labels"];
  CHECK(labels["priorityClassName"] == "build-preemptible");
  CHECK(labels["kai.scheduler/preemptibility"] == "preemptible");
  CHECK(labels["kai.scheduler/node-pool"] == "a100");
  CHECK(job["spec"]["backoffLimit"] == 0);
  CHECK(job["spec"]["ttlSecondsAfterFinished"] == 5400);
  const auto& pod = job["spec"]["template"];
  CHECK(pod["metadata"]["annotations"]["gpu-memory"] == "4000");
  const auto& ps = pod["spec"];
  CHECK(ps["nodeSelector"]["kai.scheduler/node-pool"] == "a100");
  CHECK(ps["hostIPC"] == true);
  CHECK(ps["hostNetwork"] == true);
  CHECK(ps["securityContext"]["runAsUser"] == static_cast<int64_t>(getuid()));
  CHECK(ps["securityContext"]["runAsGroup"] == static_cast<int64_t>(getgid()));
  REQUIRE(ps["tolerations"].size() == 2);
  CHECK(ps["tolerations"][0] == nlohmann::json{{"key", "nvidia.com/gpu"}, {"operator", "Exists"}, {"effect", "NoSchedule"}});
  CHECK(ps["tolerations"][1] ==
        nlohmann::json{{"key", "pool"}, {"operator", "Equal"}, {"value", "a100"}, {"effect", "NoExecute"}});
  const auto& c = ps["containers"][0];
  CHECK(c["imagePullPolicy"] == "IfNotPresent");
  CHECK(c["tty"] == true);
  CHECK(c["stdin"] == true);
  CHECK(c["resources"]["limits"] == nlohmann::json{{"cpu", "2"}, {"memory", "2Gi"}});
  CHECK(c["resources"]["requests"] == nlohmann::json{{"cpu", "500m"}, {"memory", "1Gi"}});
  CHECK_FALSE(c["resources"]["limits"].contains("nvidia.com/gpu"));

  // describe and list show what was recorded.
  r = cli.run_shell("describe job shell -p team -o json");
  INFO(r.out);
  REQUIRE(r.code == 0);
  auto doc = nlohmann::json::parse(r.out);
  CHECK(doc["spec"]["preemptibility"] == "preemptible");
  CHECK(doc["spec"]["nodePool"] == "a100");
  CHECK(doc["spec"]["gpuMemory"] == "4G");
  r = cli.run_shell("list -p team");
  CHECK(r.out.find("Interactive-Preemptible") != std::string::npos);

  // Training: --backoff-limit (and its old spelling), completions/parallelism, --local-image.
  r = cli.run_shell("submit --name hpo -p team -i busybox --local-image --backoffLimit 2 --completions 4 --parallelism 2 "
              "--non-preemptible");
  INFO(r.out);
  REQUIRE(r.code == 0);
  job = client.get(lane::kube::resources::kJob, "runai-team", "hpo");
  CHECK(job["spec"]["backoffLimit"] == 2);
  CHECK(job["spec"]["completions"] == 4);
  CHECK(job["spec"]["parallelism"] == 2);
  CHECK(job["metadata"]["labels"]["priorityClassName"] == "train");
  CHECK(job["metadata"]["labels"]["kai.scheduler/preemptibility"] == "non-preemptible");
  CHECK(job["spec"]["template"]["spec"]["containers"][0]["imagePullPolicy"] == "Never");
  CHECK_FALSE(job["spec"]["template"]["spec"]["containers"][0].contains("tty"));

  // MPI: --clean-pod-policy, --backoff-limit and the TTL in runPolicy; --always-pull-image.
  r = cli.run_shell("submit-mpi --name dist -p team -i mpi-image --processes 2 -g 1 --clean-pod-policy All "
              "--backoff-limit 1 --ttl-after-finish 10m --always-pull-image --non-preemptible");
  INFO(r.out);
  REQUIRE(r.code == 0);
  auto mpi = client.get(lane::kube::resources::kMpiJob, "runai-team", "dist");
  CHECK(mpi["spec"]["runPolicy"] ==
        nlohmann::json{{"cleanPodPolicy", "All"}, {"backoffLimit", 1}, {"ttlSecondsAfterFinished", 600}});
  CHECK(mpi["metadata"]["labels"]["kai.scheduler/preemptibility"] == "non-preemptible");
  const auto& specs = mpi["spec"]["mpiReplicaSpecs"];
  CHECK(specs["Worker"]["template"]["spec"]["containers"][0]["imagePullPolicy"] == "Always");
  CHECK(specs["Launcher"]["template"]["spec"]["containers"][0]["imagePullPolicy"] == "Always");
  r = cli.run_shell("submit-mpi --help");
  CHECK(r.out.find("--clean-pod-policy") != std::string::npos);
  CHECK(r.out.find("--non-preemptible") != std::string::npos);
  CHECK(r.out.find("--preemptible ") == std::string::npos);  // refused there: not listed
  CHECK(r.out.find("--completions") == std::string::npos);

  // Usage errors: exit 2, the flag named, nothing created.
  struct Bad {
    std::string args, message;
  };
  for (const Bad& b : std::vector<Bad>{
           {"submit --name b1 -i x -t", "-t/--tty needs --stdin"},
           {"submit --name b1 -i x --image-pull-policy Sometimes", "--image-pull-policy 'Sometimes'"},
           {"submit --name b1 -i x --local-image --image-pull-policy Always", "both set the image pull policy"},
           {"submit --name b1 -i x --preemptible", "--preemptible applies to interactive jobs"},
           {"submit --name b1 -i x --preemptible --non-preemptible --interactive", "contradict"},
           {"submit --name b1 -i x --parallelism 2", "--parallelism 2 needs --completions"},
           {"submit --name b1 -i x --backoff-limit -1", "--backoff-limit -1"},
           {"submit --name b1 -i x --ttl-after-finish soon", "--ttl-after-finish 'soon' is not a duration"},
           {"submit --name b1 -i x -g 1 --gpu-memory 2G", "--gpu-memory cannot be combined with -g"},
           {"submit --name b1 -i x --cpu-limit lots", "--cpu-limit 'lots'"},
           {"submit --name b1 -i x --toleration =x:NoSchedule", "--toleration '=x:NoSchedule': the key is empty"},
           {"submit --name b1 -i x --toleration gpu:Never", "effect 'Never'"},
           {"submit-mpi --name b1 -i x --clean-pod-policy Some", "--clean-pod-policy 'Some'"},
           {"submit-mpi --name b1 -i x --preemptible", "--preemptible is not available for submit-mpi"},
           {"submit --name b1 -i x --mig 9g.5gb", "--mig '9g.5gb': use an NVIDIA MIG profile"},
           {"submit --name b1 -i x --mig big", "--mig 'big'"},
           {"submit --name b1 -i x --mig 1g.5gb -g 1", "--mig cannot be combined with -g/--gpu or --gpu-memory"},
           {"submit --name b1 -i x --mig 1g.5gb --gpu-memory 2G", "--mig cannot be combined"},
           {"submit-mpi --name b1 -i x --mig 1g.5gb", "--mig is not available for submit-mpi"},
           {"submit --name b1 -i x --create-home-dir -v /tmp:/home/runai-home",
            "-v #1 and --create-home-dir both mount at '/home/runai-home'"},
       }) {
    r = cli.run_shell(b.args + " -p team");
    INFO(b.args << "\n" << r.out);
    CHECK(r.code == 2);
    CHECK(r.out.find(b.message) != std::string::npos);
  }
  CHECK_FALSE(client.try_get(lane::kube::resources::kJob, "runai-team", "b1"));

  // The 2.x documentation's flags: --mig (--mig-profile), --elastic, --prevent-privilege-escalation,
  // --create-home-dir, as the chart rendered them; accepted by the schema-checking server.
  r = cli.run_shell("submit --name sliced -p team -i busybox --mig-profile 3g.20gb --elastic "
              "--prevent-privilege-escalation --create-home-dir --run-as-user");
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("note:") == std::string::npos);
  job = client.get(lane::kube::resources::kJob, "runai-team", "sliced");
  CHECK(job["metadata"]["annotations"]["elastic"] == "true");
  const auto& sliced = job["spec"]["template"];
  CHECK(sliced["metadata"]["annotations"]["nvidia.com/mig-3g.20gb"] == "1");
  const auto& sc = sliced["spec"]["containers"][0];
  CHECK(sc["securityContext"]["allowPrivilegeEscalation"] == false);
  CHECK_FALSE(sc.contains("resources"));  // no nvidia.com/gpu limit: the slice is the annotation's
  bool home_env = false, home_mount = false, home_volume = false;
  for (const auto& e : sc["env"]) home_env = home_env || (e["name"] == "HOME" && e["value"] == "/home/runai-home");
  for (const auto& m : sc["volumeMounts"])
    home_mount = home_mount || (m["name"] == "runai-home" && m["mountPath"] == "/home/runai-home");
  for (const auto& v : sliced["spec"]["volumes"])
    home_volume = home_volume || (v["name"] == "runai-home" && v.contains("emptyDir"));
  CHECK(home_env);
  CHECK(home_mount);
  CHECK(home_volume);
  r = cli.run_shell("describe job sliced -p team");
  CHECK(r.out.find("MIG PROFILE:") != std::string::npos);
  CHECK(r.out.find("3g.20gb") != std::string::npos);
}

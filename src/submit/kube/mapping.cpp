#include "submit/kube/mapping.h"

#include <fmt/format.h>

#include "submit/core/validate.h"
#include "submit/core/workload_json.h"
#include "submit/kube/fields.h"

namespace lane::submit::kube {
namespace {

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : " ") + s;
  return out;
}

// KAI's built-in classes: train (preemptible), build (interactive, not), build-preemptible.
const char* priority_class(const JobSpec& spec) {
  if (spec.type != JobType::kInteractive) return kPriorityTrain;
  return is_preemptible(spec) ? kPriorityBuildPreemptible : kPriorityBuild;
}

// Labels on the workload object and its pod templates; the queue label is what KAI reads.
// The job's --label values come first: where a key is also one of these, lanectl's value is kept.
Json workload_labels(const KubeSettings& s, const JobSpec& spec) {
  Json labels = spec.labels;
  labels.update(Json{{s.queue_label, spec.project},
                     {kProjectLabel, spec.project},
                     {kPriorityLabel, priority_class(spec)},
                     {kJobLabel, spec.name},
                     {kReleaseLabel, spec.name},
                     {kTypeLabel, to_string(spec.type)},
                     {kManagedByLabel, kManagedByValue}});
  // --preemptible / --non-preemptible: KAI's override of what the priority class implies.
  if (spec.preemptibility != Preemptibility::kDefault)
    labels[kPreemptibilityLabel] = is_preemptible(spec) ? "preemptible" : "non-preemptible";
  if (!spec.node_pool.empty()) labels[kNodePoolLabel] = spec.node_pool;
  return labels;
}

// What lanectl reads back for list/describe: secret env values masked (the pods get the real ones).
Json workload_annotations(const JobSpec& original) {
  const JobSpec spec = masked_for_display(original);
  Json a = spec.annotations;  // --annotation values; lanectl's own keys below are kept over them
  if (!spec.user.empty()) a[kUserAnnotation] = spec.user;
  if (!spec.cli_argv.empty()) a[kCommandAnnotation] = join(spec.cli_argv);
  a[kSpecAnnotation] = spec_to_json(spec).dump();
  if (spec.elastic) a[kElasticAnnotation] = "true";
  return a;
}

Json pod_annotations(const JobSpec& spec) {
  Json a = Json::object();
  if (spec.gpu > 0 && spec.gpu < 1) a[kFractionAnnotation] = format_gpu(spec.gpu);
  if (spec.gpu_memory.given()) a[kGpuMemoryAnnotation] = std::to_string(gpu_memory_mb(spec.gpu_memory));
  if (!spec.mig_profile.empty()) a[kMigAnnotationPrefix + spec.mig_profile] = "1";
  return a;
}

struct PodParts {
  Json volumes = Json::array();
  Json mounts = Json::array();
};

PodParts storage_parts(const JobSpec& spec) {
  PodParts p;
  for (size_t i = 0; i < spec.pvcs.size(); ++i) {
    const auto& m = spec.pvcs[i];
    std::string claim = claim_name(spec, i);
    std::string vol = fmt::format("pvc-volume-{}", i);
    Json source{{"claimName", claim}};
    if (m.read_only) source["readOnly"] = true;
    p.volumes.push_back({{"name", vol}, {"persistentVolumeClaim", source}});
    Json mount{{"name", vol}, {"mountPath", m.mount_path}};
    if (m.read_only) mount["readOnly"] = true;
    p.mounts.push_back(mount);
  }
  for (size_t i = 0; i < spec.volumes.size(); ++i) {
    const auto& v = spec.volumes[i];
    std::string vol = fmt::format("host-path-volume-{}", i);
    p.volumes.push_back({{"name", vol}, {"hostPath", {{"path", v.host_path}}}});
    Json mount{{"name", vol}, {"mountPath", v.container_path}};
    if (v.read_only) mount["readOnly"] = true;
    p.mounts.push_back(mount);
  }
  if (spec.large_shm) {
    Json empty{{"medium", "Memory"}};
    if (spec.shm_size.given()) empty["sizeLimit"] = spec.shm_size.text();
    p.volumes.push_back({{"name", "dshm"}, {"emptyDir", empty}});
    p.mounts.push_back({{"name", "dshm"}, {"mountPath", "/dev/shm"}});
  }
  if (spec.create_home_dir) {
    p.volumes.push_back({{"name", "runai-home"}, {"emptyDir", Json::object()}});
    p.mounts.push_back({{"name", "runai-home"}, {"mountPath", kRunAiHomeDir}});
  }
  return p;
}

Json container(const JobSpec& spec, const std::string& name, bool with_gpu, const PodParts& parts,
               bool with_command) {
  Json c{{"name", name}, {"image", spec.image}};
  if (!spec.image_pull_policy.empty()) c["imagePullPolicy"] = spec.image_pull_policy;
  if (with_command) {
    if (!spec.command.empty()) c["command"] = spec.command;
    if (!spec.args.empty()) c["args"] = spec.args;
    if (spec.tty) c["tty"] = true;
    if (spec.stdin_open) c["stdin"] = true;
  }
  if (!spec.working_dir.empty()) c["workingDir"] = spec.working_dir;
  Json env = Json::array();
  for (const auto& e : spec.env) {
    if (auto ref = parse_secret_ref(e.value))
      env.push_back({{"name", e.name}, {"valueFrom", {{"secretKeyRef", {{"name", ref->secret}, {"key", ref->key}}}}}});
    else
      env.push_back({{"name", e.name}, {"value", e.value}});
  }
  if (spec.create_home_dir) env.push_back({{"name", "HOME"}, {"value", kRunAiHomeDir}});
  env.push_back({{"name", "LANECTL_JOB_NAME"}, {"value", spec.name}});
  env.push_back({{"name", "LANECTL_PROJECT"}, {"value", spec.project}});
  c["env"] = env;
  Json res = Json::object();
  if (with_gpu && spec.gpu >= 1) res["limits"][kGpuResource] = fmt::format("{}", static_cast<int64_t>(spec.gpu));
  if (spec.cpu.given()) res["requests"]["cpu"] = spec.cpu.text();
  if (spec.memory.given()) res["requests"]["memory"] = spec.memory.text();
  if (spec.cpu_limit.given()) res["limits"]["cpu"] = spec.cpu_limit.text();
  if (spec.memory_limit.given()) res["limits"]["memory"] = spec.memory_limit.text();
  if (!res.empty()) c["resources"] = res;
  if (spec.prevent_privilege_escalation) c["securityContext"]["allowPrivilegeEscalation"] = false;
  if (!parts.mounts.empty()) c["volumeMounts"] = parts.mounts;
  if (!spec.ports.empty()) {
    Json ports = Json::array();
    for (const auto& p : spec.ports) ports.push_back({{"containerPort", p.container}});
    c["ports"] = ports;
  }
  return c;
}

Json pod_spec(const KubeSettings& s, const JobSpec& spec, Json containers, const PodParts& parts,
              const char* restart_policy) {
  Json ps{{"schedulerName", s.scheduler_name}, {"containers", std::move(containers)}};
  if (restart_policy) ps["restartPolicy"] = restart_policy;
  if (!parts.volumes.empty()) ps["volumes"] = parts.volumes;
  if (!spec.node_type.empty()) ps["nodeSelector"] = {{kNodeTypeLabel, spec.node_type}};
  if (!spec.node_pool.empty()) ps["nodeSelector"][kNodePoolLabel] = spec.node_pool;
  if (!spec.tolerations.empty()) {
    Json tolerations = Json::array();
    for (const auto& t : spec.tolerations) {
      Json item{{"key", t.key}, {"operator", t.value.empty() ? "Exists" : "Equal"}};
      if (!t.value.empty()) item["value"] = t.value;
      if (!t.effect.empty()) item["effect"] = t.effect;
      tolerations.push_back(item);
    }
    ps["tolerations"] = tolerations;
  }
  if (spec.run_as_uid) ps["securityContext"]["runAsUser"] = *spec.run_as_uid;
  if (spec.run_as_gid) ps["securityContext"]["runAsGroup"] = *spec.run_as_gid;
  if (spec.host_ipc) ps["hostIPC"] = true;
  if (spec.host_network) ps["hostNetwork"] = true;
  return ps;
}

Json pvc_object(const KubeSettings& s, const JobSpec& spec, size_t index) {
  const auto& m = spec.pvcs[index];
  Json pvc{{"apiVersion", "v1"},
           {"kind", "PersistentVolumeClaim"},
           {"metadata",
            {{"name", claim_name(spec, index)},
             {"namespace", project_namespace(s, spec.project)},
             {"labels", {{kJobLabel, spec.name}, {kProjectLabel, spec.project}, {kManagedByLabel, kManagedByValue}}}}},
           {"spec",
            {{"accessModes", Json::array({s.pvc_access_mode})},
             {"volumeMode", "Filesystem"},
             {"resources", {{"requests", {{"storage", m.size.text()}}}}}}}};
  if (!m.storage_class.empty()) pvc["spec"]["storageClassName"] = m.storage_class;
  return pvc;
}

Json service_object(const KubeSettings& s, const JobSpec& spec) {
  std::string type = "ClusterIP";
  if (spec.service_type == "nodeport") type = "NodePort";
  if (spec.service_type == "loadbalancer") type = "LoadBalancer";
  Json ports = Json::array();
  for (const auto& p : spec.ports) {
    Json port{{"name", fmt::format("{}-port", p.container)}, {"port", p.external}, {"targetPort", p.container},
              {"protocol", "TCP"}};
    if (type == "NodePort" && p.external_given) port["nodePort"] = p.external;
    ports.push_back(port);
  }
  return Json{{"apiVersion", "v1"},
              {"kind", "Service"},
              {"metadata",
               {{"name", spec.name},
                {"namespace", project_namespace(s, spec.project)},
                {"labels", {{kJobLabel, spec.name}, {kProjectLabel, spec.project}, {kManagedByLabel, kManagedByValue}}}}},
              {"spec", {{"type", type}, {"selector", {{kReleaseLabel, spec.name}}}, {"ports", ports}}}};
}

// The Ingress rule path of --port #port_index+1: /<project>-<job>, then
// /<project>-<job>-<container port> for further ports.
std::string ingress_path(const JobSpec& spec, size_t port_index) {
  std::string path = "/" + spec.project + "-" + spec.name;
  if (port_index > 0) path += "-" + std::to_string(spec.ports[port_index].container);
  return path;
}

// --service-type ingress: an Ingress named after the job in front of its ClusterIP Service, one
// path per --port (to the Service's port, the external one of EXT:CONTAINER).
Json ingress_object(const KubeSettings& s, const JobSpec& spec) {
  Json paths = Json::array();
  for (size_t i = 0; i < spec.ports.size(); ++i) {
    paths.push_back({{"path", ingress_path(spec, i)},
                     {"pathType", "Prefix"},
                     {"backend",
                      {{"service", {{"name", spec.name}, {"port", {{"number", spec.ports[i].external}}}}}}}});
  }
  return Json{{"apiVersion", kIngressApiVersion},
              {"kind", kIngressKind},
              {"metadata",
               {{"name", spec.name},
                {"namespace", project_namespace(s, spec.project)},
                {"labels", {{kJobLabel, spec.name}, {kProjectLabel, spec.project}, {kManagedByLabel, kManagedByValue}}}}},
              {"spec", {{"rules", Json::array({{{"http", {{"paths", paths}}}}})}}}};
}

}  // namespace

std::string format_gpu(double gpu) { return fmt::format("{:g}", gpu); }

std::string project_namespace(const KubeSettings& s, const std::string& project) {
  return s.namespace_prefix + project;
}

Json namespace_object(const KubeSettings& s, const std::string& project) {
  return Json{{"apiVersion", "v1"},
              {"kind", "Namespace"},
              {"metadata",
               {{"name", project_namespace(s, project)},
                {"labels", {{s.project_label, project}, {s.queue_label, project}, {kManagedByLabel, kManagedByValue}}}}}};
}

Json queue_object(const KubeSettings& s, const ProjectSpec& p) {
  // KAI units: GPUs in devices; -1 = unlimited. limit 0/unset would forbid going over quota,
  // so over-quota projects get limit -1 and weight 1, others limit = quota and weight 0.
  Json gpu{{"quota", p.gpu_quota},
           {"limit", p.over_quota ? -1.0 : p.gpu_quota},
           {"overQuotaWeight", p.over_quota ? 1.0 : 0.0}};
  Json unlimited{{"quota", -1}, {"limit", -1}, {"overQuotaWeight", 1}};
  Json q{{"apiVersion", "scheduling.run.ai/v2"},
         {"kind", "Queue"},
         {"metadata", {{"name", p.name}, {"labels", {{kManagedByLabel, kManagedByValue}}}}},
         {"spec", {{"displayName", p.name}, {"resources", {{"gpu", gpu}, {"cpu", unlimited}, {"memory", unlimited}}}}}};
  if (!s.parent_queue.empty()) q["spec"]["parentQueue"] = s.parent_queue;
  return q;
}

Json batch_job_object(const KubeSettings& s, const JobSpec& spec) {
  PodParts parts = storage_parts(spec);
  Json labels = workload_labels(s, spec);
  Json containers = Json::array({container(spec, "main", true, parts, true)});
  Json tmpl_meta{{"labels", labels}};
  if (Json a = pod_annotations(spec); !a.empty()) tmpl_meta["annotations"] = a;
  bool interactive = spec.type == JobType::kInteractive;
  Json job = Json{{"apiVersion", kJobApiVersion},
              {"kind", kJobKind},
              {"metadata",
               {{"name", spec.name},
                {"namespace", project_namespace(s, spec.project)},
                {"labels", labels},
                {"annotations", workload_annotations(spec)}}},
              {"spec",
               {{"backoffLimit", interactive ? 0 : spec.backoff_limit.value_or(6)},
                {"completions", spec.completions.value_or(1)},
                {"parallelism", spec.parallelism.value_or(1)},
                {"template", {{"metadata", tmpl_meta}, {"spec", pod_spec(s, spec, containers, parts, "Never")}}}}}};
  if (spec.ttl_after_finish_seconds) job["spec"]["ttlSecondsAfterFinished"] = *spec.ttl_after_finish_seconds;
  return job;
}

namespace {

// The Kubeflow runPolicy of MPIJob and PyTorchJob.
Json run_policy(const JobSpec& spec) {
  Json rp{{"cleanPodPolicy", spec.clean_pod_policy.empty() ? "Running" : spec.clean_pod_policy},
          {"backoffLimit", spec.backoff_limit.value_or(6)}};
  if (spec.ttl_after_finish_seconds) rp["ttlSecondsAfterFinished"] = *spec.ttl_after_finish_seconds;
  return rp;
}

// The workload's metadata, with the GPUs of all its processes (totalGPUs, as runai writes it).
Json distributed_metadata(const KubeSettings& s, const JobSpec& spec, const Json& labels) {
  Json annotations = workload_annotations(spec);
  annotations[kTotalGpusAnnotation] = format_gpu(spec.total_gpus());
  return Json{{"name", spec.name}, {"namespace", project_namespace(s, spec.project)}, {"labels", labels},
              {"annotations", annotations}};
}

}  // namespace

Json pytorchjob_object(const KubeSettings& s, const JobSpec& spec) {
  PodParts parts = storage_parts(spec);
  Json labels = workload_labels(s, spec);
  // Master and workers run the same container (the operator sets MASTER_ADDR, RANK, ... in each).
  Json meta{{"labels", labels}};
  if (Json a = pod_annotations(spec); !a.empty()) meta["annotations"] = a;
  Json tmpl{{"metadata", meta},
            {"spec", pod_spec(s, spec, Json::array({container(spec, kPyTorchContainer, true, parts, true)}), parts,
                              nullptr)}};
  Json replicas{{kMasterReplica, {{kReplicas, 1}, {"restartPolicy", "Never"}, {"template", tmpl}}}};
  if (spec.processes > 0)
    replicas[kWorkerReplica] = {{kReplicas, spec.processes}, {"restartPolicy", "Never"}, {"template", tmpl}};
  return Json{{"apiVersion", kPyTorchJobApiVersion},
              {"kind", kPyTorchJobKind},
              {"metadata", distributed_metadata(s, spec, labels)},
              {"spec", {{"runPolicy", run_policy(spec)}, {kPyTorchReplicaSpecs, replicas}}}};
}

Json mpijob_object(const KubeSettings& s, const JobSpec& spec) {
  PodParts parts = storage_parts(spec);
  Json labels = workload_labels(s, spec);
  // The launcher runs the user's command (mpirun ...) and needs no GPU; workers keep the
  // image's entrypoint (sshd for OpenMPI) and get the GPUs.
  Json launcher_c = container(spec, "mpi", false, parts, true);
  launcher_c["env"].push_back({{"name", "RUNAI_MPI_NUM_WORKERS"}, {"value", std::to_string(spec.processes)}});
  Json worker_c = container(spec, "mpi", true, parts, false);
  Json worker_meta{{"labels", labels}};
  if (Json a = pod_annotations(spec); !a.empty()) worker_meta["annotations"] = a;
  return Json{
      {"apiVersion", kMpiJobApiVersion},
      {"kind", kMpiJobKind},
      {"metadata", distributed_metadata(s, spec, labels)},
      {"spec",
       {{kSlotsPerWorker, spec.slots_per_worker},
        {"mpiImplementation", "OpenMPI"},
        {"runPolicy", run_policy(spec)},
        {kReplicaSpecs,
         {{kLauncherReplica,
           {{kReplicas, 1},
            {"restartPolicy", "OnFailure"},
            {"template",
             {{"metadata", {{"labels", labels}}},
              {"spec", pod_spec(s, spec, Json::array({launcher_c}), parts, nullptr)}}}}},
          {kWorkerReplica,
           {{kReplicas, spec.processes},
            {"restartPolicy", "Never"},
            {"template",
             {{"metadata", worker_meta}, {"spec", pod_spec(s, spec, Json::array({worker_c}), parts, nullptr)}}}}}}}}}};
}

std::vector<Json> render_job(const KubeSettings& s, const JobSpec& spec) {
  validate(spec);
  std::vector<Json> out;
  for (size_t i = 0; i < spec.pvcs.size(); ++i) {
    if (spec.pvcs[i].create) out.push_back(pvc_object(s, spec, i));
  }
  out.push_back(spec.type == JobType::kMpi       ? mpijob_object(s, spec)
                : spec.type == JobType::kPyTorch ? pytorchjob_object(s, spec)
                                                 : batch_job_object(s, spec));
  if (!spec.ports.empty() && !is_distributed(spec.type)) out.push_back(service_object(s, spec));
  if (!spec.ports.empty() && !is_distributed(spec.type) && spec.service_type == "ingress")
    out.push_back(ingress_object(s, spec));
  return out;
}

}  // namespace lane::submit::kube

#pragma once
// Cluster conventions the Kubernetes backend follows. Defaults match KAI-Scheduler >= v0.6,
// the Kubeflow MPI Operator v2beta1 and Trident on Azure NetApp Files; each can be changed
// through an environment variable (read by settings_from_env) for clusters that differ.
#include <string>

namespace lane::submit::kube {

struct KubeSettings {
  std::string namespace_prefix = "runai-";                 // LANECTL_NAMESPACE_PREFIX
  std::string queue_label = "kai.scheduler/queue";         // LANECTL_QUEUE_LABEL (runai/queue before KAI v0.6)
  std::string project_label = "runai/queue";               // namespace label naming the project (runai)
  std::string scheduler_name = "kai-scheduler";            // LANECTL_SCHEDULER_NAME
  std::string parent_queue = "default-parent-queue";       // LANECTL_PARENT_QUEUE (created by KAI's install)
  std::string pvc_access_mode = "ReadWriteMany";           // LANECTL_PVC_ACCESS_MODE: RWX so MPI workers share it
  std::string snapshot_class = "netapp-csi-snapclass";     // LANECTL_SNAPSHOT_CLASS ("" = the driver's default)
  std::string delete_propagation = "Foreground";           // LANECTL_DELETE_PROPAGATION
};

KubeSettings settings_from_env();

// Labels and annotations lanectl writes (also read back by list/describe).
inline constexpr const char* kJobLabel = "lanectl.io/job";
inline constexpr const char* kTypeLabel = "lanectl.io/type";
inline constexpr const char* kManagedByLabel = "app.kubernetes.io/managed-by";
inline constexpr const char* kProjectLabel = "project";            // runai's owner/pod label
inline constexpr const char* kPriorityLabel = "priorityClassName"; // KAI: train / build
inline constexpr const char* kReleaseLabel = "release";            // runai's Service selector
inline constexpr const char* kUserAnnotation = "user";
inline constexpr const char* kCommandAnnotation = "runai-cli-command";
inline constexpr const char* kSpecAnnotation = "lanectl.io/spec";  // the JobSpec as JSON (describe)
inline constexpr const char* kFractionAnnotation = "gpu-fraction";
inline constexpr const char* kTotalGpusAnnotation = "totalGPUs";
inline constexpr const char* kMpiJobNameLabel = "training.kubeflow.org/job-name";
inline constexpr const char* kMpiJobRoleLabel = "training.kubeflow.org/job-role";

}  // namespace lane::submit::kube

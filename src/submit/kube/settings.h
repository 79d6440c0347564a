#pragma once
// Cluster conventions the Kubernetes backend follows. Defaults match KAI-Scheduler >= v0.6,
// the Kubeflow MPI Operator v2beta1 and Trident on Azure NetApp Files; each can be changed
// through an environment variable (read by settings_from_env) for clusters that differ.
#include <chrono>
#include <string>

#include "submit/core/workload.h"
#include "submit/kube/fields.h"

namespace lane::submit::kube {

struct KubeSettings {
  std::string namespace_prefix = kProjectNamespacePrefix;  // LANECTL_NAMESPACE_PREFIX
  std::string queue_label = kKaiQueueLabel;                // LANECTL_QUEUE_LABEL (runai/queue before KAI v0.6)
  std::string project_label = kRunaiQueueLabel;            // namespace label naming the project (runai)
  std::string scheduler_name = "kai-scheduler";            // LANECTL_SCHEDULER_NAME
  std::string parent_queue = "default-parent-queue";       // LANECTL_PARENT_QUEUE (created by KAI's install)
  std::string pvc_access_mode = "ReadWriteMany";           // LANECTL_PVC_ACCESS_MODE: RWX so MPI workers share it
  std::string snapshot_class = "netapp-csi-snapclass";     // LANECTL_SNAPSHOT_CLASS ("" = the driver's default)
  std::string delete_propagation = "Foreground";           // LANECTL_DELETE_PROPAGATION
  // How long delete and submit wait for a job being deleted (its pods terminating) to go.
  std::chrono::seconds deletion_wait{60};                  // LANECTL_DELETION_WAIT_SECONDS
};

// Throws UsageError naming the variable when LANECTL_DELETION_WAIT_SECONDS is not a number >= 0.
KubeSettings settings_from_env();

}  // namespace lane::submit::kube

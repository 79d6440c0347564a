#pragma once
// The Kubernetes object layout lanectl writes (mapping.cpp) and reads back (object_summary.cpp
// and list_page_parse.cpp for describe and list, job_state.cpp for the status rules), named
// once: kinds, label and annotation keys, resource names, the MPIJob replica specs and the
// status fields and conditions. The core/v1 skeleton every object shares (metadata, spec,
// labels, annotations, template, containers, resources, limits, ...) is the API's own
// vocabulary and is written out where it is walked. tests/submit_kube/test_fields_round_trip.cpp
// renders specs with mapping and reads them back through both readers, so a name changed on
// one side only fails there.

namespace lane::submit::kube {

// Workload kinds.
inline constexpr const char* kJobKind = "Job";                      // batch/v1
inline constexpr const char* kJobApiVersion = "batch/v1";
inline constexpr const char* kMpiJobKind = "MPIJob";                // Kubeflow MPI Operator
inline constexpr const char* kMpiJobApiVersion = "kubeflow.org/v2beta1";
inline constexpr const char* kPyTorchJobKind = "PyTorchJob";        // Kubeflow training operator
inline constexpr const char* kPyTorchJobApiVersion = "kubeflow.org/v1";
inline constexpr const char* kIngressKind = "Ingress";              // --service-type ingress
inline constexpr const char* kIngressApiVersion = "networking.k8s.io/v1";

// The queue label KAI-Scheduler reads (KubeSettings::queue_label), and the label runai puts on
// a project's namespace (KubeSettings::project_label).
inline constexpr const char* kKaiQueueLabel = "kai.scheduler/queue";  // runai/queue before KAI v0.6
inline constexpr const char* kRunaiQueueLabel = "runai/queue";

// Labels lanectl writes on workloads, their pod templates, claims and Services.
inline constexpr const char* kJobLabel = "lanectl.io/job";
inline constexpr const char* kTypeLabel = "lanectl.io/type";
inline constexpr const char* kManagedByLabel = "app.kubernetes.io/managed-by";
inline constexpr const char* kManagedByValue = "lanectl";
inline constexpr const char* kProjectLabel = "project";             // runai's owner/pod label
inline constexpr const char* kPriorityLabel = "priorityClassName";  // KAI: train / build
inline constexpr const char* kPriorityTrain = "train";
inline constexpr const char* kPriorityBuild = "build";              // interactive jobs
inline constexpr const char* kPriorityBuildPreemptible = "build-preemptible";  // --interactive --preemptible
inline constexpr const char* kPriorityInteractivePreemptible = "interactive-preemptible";  // runai v1's name of it
inline constexpr const char* kPreemptibilityLabel = "kai.scheduler/preemptibility";  // --(non-)preemptible
inline constexpr const char* kNodePoolLabel = "kai.scheduler/node-pool";  // --node-pool (label + nodeSelector)
inline constexpr const char* kReleaseLabel = "release";             // runai's Service selector
inline constexpr const char* kUserLabel = "user";                   // runai's; read when there is no annotation
inline constexpr const char* kNodeTypeLabel = "run.ai/type";        // nodeSelector of --node-type

// Labels the controllers put on the pods they create.
inline constexpr const char* kBatchJobNameLabel = "job-name";       // batch Job pods
inline constexpr const char* kMpiJobNameLabel = "training.kubeflow.org/job-name";
inline constexpr const char* kMpiJobRoleLabel = "training.kubeflow.org/job-role";  // launcher | worker (MPI), master
// The training operator's PyTorchJob pods: master | worker (they carry kMpiJobNameLabel too).
inline constexpr const char* kReplicaTypeLabel = "training.kubeflow.org/replica-type";

// Annotations lanectl writes (workload, or pod template for the fraction).
inline constexpr const char* kUserAnnotation = "user";
inline constexpr const char* kCommandAnnotation = "runai-cli-command";
inline constexpr const char* kSpecAnnotation = "lanectl.io/spec";   // the JobSpec as JSON (describe)
inline constexpr const char* kFractionAnnotation = "gpu-fraction";  // pods: a GPU share below 1
inline constexpr const char* kTotalGpusAnnotation = "totalGPUs";    // MPIJob: GPUs of all workers
inline constexpr const char* kMigAnnotationPrefix = "nvidia.com/mig-";  // pods: --mig <profile> -> "1"
inline constexpr const char* kElasticAnnotation = "elastic";             // workload: --elastic
inline constexpr const char* kGpuMemoryAnnotation = "gpu-memory";   // pods: --gpu-memory in MB (10^6 bytes)

// Container resource names.
inline constexpr const char* kGpuResource = "nvidia.com/gpu";       // limits: whole GPUs

// MPIJob spec (kubeflow.org/v2beta1).
inline constexpr const char* kSlotsPerWorker = "slotsPerWorker";
inline constexpr const char* kReplicaSpecs = "mpiReplicaSpecs";
inline constexpr const char* kLauncherReplica = "Launcher";
inline constexpr const char* kWorkerReplica = "Worker";
inline constexpr const char* kReplicas = "replicas";

// PyTorchJob spec (kubeflow.org/v1): replica specs Master (1) and Worker, container "pytorch".
inline constexpr const char* kPyTorchReplicaSpecs = "pytorchReplicaSpecs";
inline constexpr const char* kMasterReplica = "Master";
inline constexpr const char* kPyTorchContainer = "pytorch";  // the operator finds its container by this name

// Workload status: times and conditions (type, status "True"/"False", reason, message).
inline constexpr const char* kStartTime = "startTime";
inline constexpr const char* kCompletionTime = "completionTime";
inline constexpr const char* kConditions = "conditions";
inline constexpr const char* kConditionComplete = "Complete";    // batch Job succeeded
inline constexpr const char* kConditionSucceeded = "Succeeded";  // MPIJob and PyTorchJob succeeded
inline constexpr const char* kConditionFailed = "Failed";
inline constexpr const char* kConditionSuspended = "Suspended";
inline constexpr const char* kConditionTrue = "True";

// Pod status and placement.
inline constexpr const char* kPodPhase = "phase";
inline constexpr const char* kNodeName = "nodeName";

}  // namespace lane::submit::kube

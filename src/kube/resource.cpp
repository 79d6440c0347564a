#include "kube/resource.h"

#include <cstdio>

namespace lane::kube {

std::string Resource::collection_path(const std::string& ns) const {
  std::string base = group.empty() ? "/api/" + version : "/apis/" + group + "/" + version;
  if (namespaced && !ns.empty()) base += "/namespaces/" + ns;
  return base + "/" + plural;
}

std::string Resource::object_path(const std::string& ns, const std::string& name) const {
  return collection_path(ns) + "/" + name;
}

namespace resources {
const Resource kNamespace{"", "v1", "namespaces", "Namespace", false};
const Resource kPod{"", "v1", "pods", "Pod", true};
const Resource kPvc{"", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", true};
const Resource kService{"", "v1", "services", "Service", true};
const Resource kEvent{"", "v1", "events", "Event", true};
const Resource kNode{"", "v1", "nodes", "Node", false};
const Resource kConfigMap{"", "v1", "configmaps", "ConfigMap", true};
const Resource kJob{"batch", "v1", "jobs", "Job", true};
const Resource kMpiJob{"kubeflow.org", "v2beta1", "mpijobs", "MPIJob", true};
const Resource kPyTorchJob{"kubeflow.org", "v1", "pytorchjobs", "PyTorchJob", true};
const Resource kVolumeSnapshot{"snapshot.storage.k8s.io", "v1", "volumesnapshots", "VolumeSnapshot", true};
const Resource kVolumeSnapshotClass{"snapshot.storage.k8s.io", "v1", "volumesnapshotclasses",
                                    "VolumeSnapshotClass", false};
const Resource kQueue{"scheduling.run.ai", "v2", "queues", "Queue", false};
const Resource kPodGroup{"scheduling.run.ai", "v2alpha2", "podgroups", "PodGroup", true};
const Resource kIngress{"networking.k8s.io", "v1", "ingresses", "Ingress", true};
}  // namespace resources

std::string url_encode(const std::string& value) {
  std::string out;
  for (unsigned char c : value) {
    if (isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    }
  }
  return out;
}

}  // namespace lane::kube

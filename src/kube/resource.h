#pragma once
// Which REST collection an object lives in, and the URL paths built from it
// (/api/v1/namespaces/{ns}/pods, /apis/{group}/{version}/{plural}, ...).
#include <string>

namespace lane::kube {

struct Resource {
  std::string group;    // "" for the core group
  std::string version;  // v1, v2beta1, ...
  std::string plural;   // pods, mpijobs, ...
  std::string kind;     // Pod, MPIJob, ...
  bool namespaced = true;

  std::string api_version() const { return group.empty() ? version : group + "/" + version; }
  // Collection path; `ns` empty on a namespaced resource means "all namespaces".
  std::string collection_path(const std::string& ns) const;
  std::string object_path(const std::string& ns, const std::string& name) const;
};

namespace resources {
extern const Resource kNamespace, kPod, kPvc, kService, kEvent, kNode, kConfigMap;
extern const Resource kJob, kMpiJob, kPyTorchJob, kVolumeSnapshot, kVolumeSnapshotClass, kQueue, kPodGroup;
extern const Resource kIngress;  // networking.k8s.io/v1
}  // namespace resources

// Percent-encodes a query parameter value (label selectors contain '=', ',', '!', ...).
std::string url_encode(const std::string& value);

}  // namespace lane::kube

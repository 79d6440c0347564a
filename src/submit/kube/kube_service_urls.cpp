// KubeJobs::fill_service_urls: SERVICE URL(S) of list and describe (service_urls.h). Reads
// Services and Ingresses only when a job asked for a URL-bearing --service-type, and the nodes
// only for a NodePort; a cluster that refuses the node list leaves node port URLs empty.
#include <map>

#include "kube/api_error.h"
#include "kube/kube_client.h"
#include "submit/kube/fields.h"
#include "submit/kube/kube_jobs.h"
#include "submit/kube/mapping.h"
#include "submit/kube/service_urls.h"

namespace lane::submit::kube {
namespace {

namespace res = lane::kube::resources;

bool has_url(const JobSpec& s) {
  return !s.ports.empty() && (s.service_type == "nodeport" || s.service_type == "loadbalancer" ||
                              s.service_type == "ingress");
}

// "<namespace>/<name>" -> object, for the objects of `r` that carry the job label.
std::map<std::string, Json> by_job(lane::kube::KubeClient& client, const lane::kube::Resource& r,
                                   const std::string& ns) {
  lane::kube::ListOptions o;
  o.label_selector = kJobLabel;
  std::map<std::string, Json> out;
  for (auto& obj : client.list(r, ns, o).items) {
    const auto& meta = obj["metadata"];
    out[meta.value("namespace", "") + "/" + meta.value("name", "")] = std::move(obj);
  }
  return out;
}

}  // namespace

void KubeJobs::fill_service_urls(const std::string& ns, std::vector<JobInfo>& jobs) {
  bool any = false, node_ports = false, ingresses = false;
  for (const auto& j : jobs) {
    any |= has_url(j.spec);
    node_ports |= has_url(j.spec) && j.spec.service_type == "nodeport";
    ingresses |= has_url(j.spec) && j.spec.service_type == "ingress";
  }
  if (!any) return;
  auto services = by_job(*ctx_.client, res::kService, ns);
  std::map<std::string, Json> ingress_objects;
  if (ingresses) ingress_objects = by_job(*ctx_.client, res::kIngress, ns);
  std::map<std::string, std::string> addresses;  // node name -> address
  if (node_ports) {
    try {
      for (const auto& n : ctx_.client->list(res::kNode, "").items)
        addresses[n["metadata"].value("name", "")] = node_address(n);
    } catch (const lane::kube::ApiError&) {
      // No permission to read nodes: node port URLs stay empty.
    }
  }
  for (auto& j : jobs) {
    if (!has_url(j.spec)) continue;
    const std::string key = ctx_.ns_of(j.spec.project) + "/" + j.spec.name;
    auto svc = services.find(key);
    if (svc == services.end()) continue;
    auto ing = ingress_objects.find(key);
    std::string address;
    if (!j.nodes.empty() && addresses.count(j.nodes.front())) address = addresses[j.nodes.front()];
    j.service_urls = service_urls(svc->second, ing == ingress_objects.end() ? nullptr : &ing->second, address);
  }
}

}  // namespace lane::submit::kube

#pragma once
// SERVICE URL(S) of `list` and `describe` on Kubernetes, from the objects lanectl made for
// --port / --service-type and what the cluster wrote in their status. Pure functions.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace lane::submit::kube {

// The address a node is reached at: its ExternalIP, else its InternalIP, else its Hostname
// (status.addresses); "" when it reports none.
std::string node_address(const nlohmann::json& node);

// One job's URLs, empty until the cluster reports an address:
//   NodePort Service      "<node_address>:<nodePort>" per port (node_address: the job's node)
//   LoadBalancer Service  "<ip or hostname>:<port>" per status.loadBalancer.ingress entry and port
//   Ingress (`ingress` may be null)  "<rule host, else ip or hostname><path>" per
//                         status.loadBalancer.ingress entry and rule path
// A ClusterIP Service alone (portforward) has no URL the cluster knows.
std::vector<std::string> service_urls(const nlohmann::json& service, const nlohmann::json* ingress,
                                      const std::string& node_address);

}  // namespace lane::submit::kube

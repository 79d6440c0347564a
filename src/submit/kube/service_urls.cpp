#include "submit/kube/service_urls.h"

#include <fmt/format.h>

namespace lane::submit::kube {
namespace {

using Json = nlohmann::json;

// j[a][b]... or an empty JSON value when a step is missing or not an object.
const Json& at(const Json& j, std::initializer_list<const char*> path) {
  static const Json kNull;
  const Json* cur = &j;
  for (const char* p : path) {
    if (!cur->is_object() || !cur->contains(p)) return kNull;
    cur = &(*cur)[p];
  }
  return *cur;
}

std::string str(const Json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

// status.loadBalancer.ingress[]: ip, else hostname.
std::vector<std::string> balancer_hosts(const Json& obj) {
  std::vector<std::string> out;
  const Json& entries = at(obj, {"status", "loadBalancer", "ingress"});
  if (!entries.is_array()) return out;
  for (const auto& e : entries) {
    std::string host = str(e, "ip");
    if (host.empty()) host = str(e, "hostname");
    if (!host.empty()) out.push_back(host);
  }
  return out;
}

}  // namespace

std::string node_address(const Json& node) {
  const Json& addresses = at(node, {"status", "addresses"});
  if (!addresses.is_array()) return "";
  for (const char* type : {"ExternalIP", "InternalIP", "Hostname"})
    for (const auto& a : addresses)
      if (str(a, "type") == type && !str(a, "address").empty()) return str(a, "address");
  return "";
}

std::vector<std::string> service_urls(const Json& service, const Json* ingress, const std::string& node_address) {
  std::vector<std::string> out;
  const std::string type = str(at(service, {"spec"}), "type");
  const Json& ports = at(service, {"spec", "ports"});
  if (type == "NodePort" && !node_address.empty() && ports.is_array()) {
    for (const auto& p : ports)
      if (p.contains("nodePort") && p["nodePort"].is_number_integer())
        out.push_back(fmt::format("{}:{}", node_address, p["nodePort"].get<int>()));
  }
  if (type == "LoadBalancer" && ports.is_array()) {
    for (const auto& host : balancer_hosts(service))
      for (const auto& p : ports)
        if (p.contains("port") && p["port"].is_number_integer()) out.push_back(fmt::format("{}:{}", host, p["port"].get<int>()));
  }
  if (ingress) {
    const auto hosts = balancer_hosts(*ingress);
    const Json& rules = at(*ingress, {"spec", "rules"});
    if (!hosts.empty() && rules.is_array()) {
      for (const auto& rule : rules) {
        const Json& paths = at(rule, {"http", "paths"});
        if (!paths.is_array()) continue;
        std::vector<std::string> rule_hosts = hosts;
        if (!str(rule, "host").empty()) rule_hosts = {str(rule, "host")};
        for (const auto& host : rule_hosts)
          for (const auto& p : paths) out.push_back(host + str(p, "path"));
      }
    }
  }
  return out;
}

}  // namespace lane::submit::kube

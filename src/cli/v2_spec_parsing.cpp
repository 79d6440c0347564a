#include "cli/v2_spec_parsing.h"

#include <map>
#include <set>
#include <vector>

#include <fmt/format.h>

#include "common/error.h"
#include "submit/core/validate.h"

namespace lane::cli {

namespace {

// One KEY=VALUE list: `keys` may have values, `words` stand alone; each at most once.
struct KeyValues {
  std::map<std::string, std::string> values;
  std::set<std::string> words;
};

struct Form {
  const char* flag;
  const char* syntax;  // the accepted form, for messages
  std::set<std::string> keys, words;
};

[[noreturn]] void bad(const Form& f, const std::string& value, const std::string& why) {
  throw UsageError(fmt::format("{} '{}': {}; use {} {}", f.flag, value, why, f.flag, f.syntax));
}

KeyValues split_key_values(const Form& f, const std::string& value) {
  KeyValues kv;
  size_t start = 0;
  while (start <= value.size()) {
    size_t end = value.find(',', start);
    if (end == std::string::npos) end = value.size();
    const std::string part = value.substr(start, end - start);
    const size_t eq = part.find('=');
    const std::string key = part.substr(0, eq);
    if (part.empty()) bad(f, value, "an empty part");
    const bool known = eq == std::string::npos ? f.words.count(key) > 0 : f.keys.count(key) > 0;
    if (!known) bad(f, value, fmt::format("unknown part '{}'", part));
    const bool again = eq == std::string::npos ? !kv.words.insert(key).second
                                               : !kv.values.emplace(key, part.substr(eq + 1)).second;
    if (again) bad(f, value, fmt::format("'{}' is given twice", key));
    start = end + 1;
  }
  return kv;
}

std::string required(const Form& f, const std::string& value, const KeyValues& kv, const std::string& key) {
  auto it = kv.values.find(key);
  if (it == kv.values.end() || it->second.empty()) bad(f, value, fmt::format("{}= is missing", key));
  return it->second;
}

// A part Run:AI v2 accepts that lanectl cannot honour: refused with the reason.
void refuse(const Form& f, const std::string& value, const KeyValues& kv, const std::string& part,
            const std::string& why) {
  if (kv.words.count(part) || kv.values.count(part)) bad(f, value, fmt::format("'{}' is not supported: {}", part, why));
}

void check_mount_path(const Form& f, const std::string& value, const std::string& path) {
  if (path.empty() || path[0] != '/') bad(f, value, fmt::format("the path '{}' must be absolute", path));
}

int port_number(const Form& f, const std::string& value, const KeyValues& kv, const std::string& key) {
  const std::string text = required(f, value, kv, key);
  auto port = submit::parse_port_mapping(text);
  if (!port || port->external_given) bad(f, value, fmt::format("{}={} is not a port from 1 to 65535", key, text));
  return port->container;
}

const std::string kAccessModeWhy = "lanectl creates claims with its backend's access mode (docs/cli.md, --pvc)";

}  // namespace

submit::PvcMount parse_existing_pvc(const std::string& value) {
  static const Form f{"--existing-pvc", "claimname=CLAIM,path=PATH[,ro]", {"claimname", "path"}, {"ro"}};
  const KeyValues kv = split_key_values(f, value);
  submit::PvcMount m;
  m.claim = required(f, value, kv, "claimname");
  m.mount_path = required(f, value, kv, "path");
  m.read_only = kv.words.count("ro") > 0;
  m.must_exist = true;
  check_mount_path(f, value, m.mount_path);
  return m;
}

submit::PvcMount parse_new_pvc(const std::string& value) {
  static const Form f{"--new-pvc", "[claimname=CLAIM,][storageclass=SC,]size=SIZE,path=PATH[,ro]",
                      {"claimname", "storageclass", "size", "path"},
                      {"ro", "accessmode-rwo", "accessmode-rom", "accessmode-rwm", "ephemeral"}};
  const KeyValues kv = split_key_values(f, value);
  refuse(f, value, kv, "accessmode-rom", kAccessModeWhy);
  refuse(f, value, kv, "accessmode-rwm", kAccessModeWhy);
  refuse(f, value, kv, "ephemeral", "a claim lives until `lanectl volume delete` (use the job's /tmp for scratch)");
  submit::PvcMount m;
  m.create = true;
  if (kv.values.count("claimname")) m.claim = required(f, value, kv, "claimname");
  if (kv.values.count("storageclass")) m.storage_class = kv.values.at("storageclass");
  m.size = required(f, value, kv, "size");
  m.mount_path = required(f, value, kv, "path");
  m.read_only = kv.words.count("ro") > 0;
  if (auto problem = submit::pvc_size_problem(m.size)) bad(f, value, *problem);
  check_mount_path(f, value, m.mount_path);
  return m;
}

submit::HostMount parse_host_path(const std::string& value) {
  static const Form f{"--host-path", "path=HOST,mount=CONTAINER[,readwrite]",
                      {"path", "mount", "mount-propagation"}, {"readwrite"}};
  const KeyValues kv = split_key_values(f, value);
  auto propagation = kv.values.find("mount-propagation");
  if (propagation != kv.values.end() && propagation->second != "None")
    bad(f, value, fmt::format("mount-propagation={} is not supported: lanectl mounts host paths without "
                              "propagation (None)", propagation->second));
  submit::HostMount m;
  m.host_path = required(f, value, kv, "path");
  m.container_path = required(f, value, kv, "mount");
  m.read_only = kv.words.count("readwrite") == 0;
  check_mount_path(f, value, m.host_path);
  check_mount_path(f, value, m.container_path);
  return m;
}

bool is_v2_port(const std::string& value) { return value.find('=') != std::string::npos; }

V2Port parse_v2_port(const std::string& value) {
  static const Form f{"--port", "container=N[,external=N][,service-type=NodePort|LoadBalancer|ClusterIP]",
                      {"container", "external", "service-type"}, {}};
  static const std::map<std::string, std::string> kTypes = {
      {"NodePort", "nodeport"}, {"LoadBalancer", "loadbalancer"}, {"ClusterIP", "portforward"}};
  const KeyValues kv = split_key_values(f, value);
  V2Port p;
  p.port.container = port_number(f, value, kv, "container");
  p.port.external = p.port.container;
  if (kv.values.count("external")) {
    p.port.external = port_number(f, value, kv, "external");
    p.port.external_given = true;
  }
  if (auto t = kv.values.find("service-type"); t != kv.values.end()) {
    auto type = kTypes.find(t->second);
    if (type == kTypes.end()) bad(f, value, fmt::format("service-type={} is not NodePort, LoadBalancer or ClusterIP", t->second));
    p.service_type = type->second;
  }
  return p;
}

V2Port parse_external_url(const std::string& value) {
  static const Form f{"--external-url", "container=N", {"container", "url", "authusers", "authgroups"}, {}};
  const KeyValues kv = split_key_values(f, value);
  const std::string ingress = "lanectl's Ingress serves the job at /<project>-<job> on the cluster's ingress host";
  refuse(f, value, kv, "url", ingress);
  refuse(f, value, kv, "authusers", ingress + ", without authentication");
  refuse(f, value, kv, "authgroups", ingress + ", without authentication");
  V2Port p;
  p.port.container = p.port.external = port_number(f, value, kv, "container");
  p.service_type = "ingress";
  return p;
}

}  // namespace lane::cli

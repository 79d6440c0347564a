#pragma once
// Parsers for the Run:AI v2 submit flags written as KEY=VALUE lists (`claimname=data,path=/mnt,ro`):
// --existing-pvc, --new-pvc, --host-path, --port service-type=…, --external-url. Each gives the
// model's type of its v1 twin (--pvc, -v, --port/-s), so both spellings store the same spec.
// Each throws UsageError naming the flag, the bad part and the accepted form.
#include <string>

#include "submit/core/workload.h"

namespace lane::cli {

// --existing-pvc claimname=CLAIM,path=PATH[,ro] (= --pvc CLAIM:PATH[:ro]).
submit::PvcMount parse_existing_pvc(const std::string& value);

// --new-pvc [claimname=CLAIM,][storageclass=SC,]size=SIZE,path=PATH[,ro][,accessmode-rwo]
// (= --pvc [SC]:SIZE:PATH[:ro]; without claimname the claim is pvc-<job>-<index>, as --pvc names it).
submit::PvcMount parse_new_pvc(const std::string& value);

// --host-path path=HOST,mount=CONTAINER[,readwrite][,mount-propagation=None] (= -v HOST:CONTAINER,
// read-only unless readwrite, as Run:AI v2 mounts host paths).
submit::HostMount parse_host_path(const std::string& value);

// --port container=N[,external=N][,service-type=NodePort|LoadBalancer|ClusterIP]: the port and the
// service type in -s's words (nodeport, loadbalancer, portforward); "" when not given.
struct V2Port {
  submit::PortMapping port;
  std::string service_type;
};
V2Port parse_v2_port(const std::string& value);
bool is_v2_port(const std::string& value);  // the KEY=VALUE form (else [EXTERNAL:]CONTAINER)

// --external-url container=N: the port, served through an Ingress (= --port N -s ingress).
V2Port parse_external_url(const std::string& value);

}  // namespace lane::cli

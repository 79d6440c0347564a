#pragma once
// libcurl setup shared by the HTTP transport and the exec WebSocket: the one-time global
// initialisation, and TLS for a handle bound to an API server (the CA from the kubeconfig,
// client certificates, verification always on unless the kubeconfig says
// insecure-skip-tls-verify).
#include "kube/credentials.h"
#include "kube/kubeconfig.h"

namespace lane::kube {

// curl_global_init, once per process (before the first handle).
void init_curl_once();

// `curl` is a CURL*. The blobs are copied by libcurl (CURL_BLOB_COPY).
void apply_tls(void* curl, const Connection& connection, const Credential& credential);

}  // namespace lane::kube

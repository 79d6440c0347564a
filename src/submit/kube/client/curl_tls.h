#pragma once
// TLS for a libcurl handle bound to an API server, shared by the HTTP transport and the exec
// WebSocket: the CA from the kubeconfig, client certificates, and verification always on
// unless the kubeconfig says insecure-skip-tls-verify.
#include "submit/kube/client/credentials.h"
#include "submit/kube/client/kubeconfig.h"

namespace lane::kube {

// `curl` is a CURL*. The blobs are copied by libcurl (CURL_BLOB_COPY).
void apply_tls(void* curl, const Connection& connection, const Credential& credential);

}  // namespace lane::kube

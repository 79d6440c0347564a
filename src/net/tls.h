#pragma once
// TLS for a libcurl handle, and libcurl's one-time global initialisation. Verification is on
// unless the caller says otherwise (a kubeconfig's insecure-skip-tls-verify); an empty CA means
// the system trust store.
#include <string>

namespace lane::net {

struct TlsOptions {
  bool verify = true;
  std::string ca_pem;           // empty: the system trust store
  std::string client_cert_pem;  // mutual TLS (empty: none)
  std::string client_key_pem;
};

// curl_global_init, once per process (before the first handle).
void init_curl_once();

// `curl` is a CURL*. The PEM blobs are copied by libcurl (CURL_BLOB_COPY).
void apply_tls(void* curl, const TlsOptions& tls);

}  // namespace lane::net

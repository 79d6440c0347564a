#pragma once
// TLS settings of a connection. Verification is on unless the caller says otherwise (a
// kubeconfig's insecure-skip-tls-verify); an empty CA means the system trust store.
#include <string>

namespace lane::net {

struct TlsOptions {
  bool verify = true;
  std::string ca_pem;           // empty: the system trust store
  std::string client_cert_pem;  // mutual TLS (empty: none)
  std::string client_key_pem;
};

}  // namespace lane::net

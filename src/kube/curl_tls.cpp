#include "kube/curl_tls.h"

#include <curl/curl.h>

#include <mutex>

namespace lane::kube {

void init_curl_once() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

void apply_tls(void* handle, const Connection& connection, const Credential& credential) {
  CURL* c = static_cast<CURL*>(handle);
  const bool verify = !connection.insecure_skip_tls_verify;
  curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, verify ? 1L : 0L);
  curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, verify ? 2L : 0L);
  if (!connection.ca_pem.empty()) {
    curl_blob ca{const_cast<char*>(connection.ca_pem.data()), connection.ca_pem.size(), CURL_BLOB_COPY};
    curl_easy_setopt(c, CURLOPT_CAINFO_BLOB, &ca);
  }
  if (!credential.client_cert_pem.empty()) {
    curl_blob cert{const_cast<char*>(credential.client_cert_pem.data()), credential.client_cert_pem.size(),
                   CURL_BLOB_COPY};
    curl_blob key{const_cast<char*>(credential.client_key_pem.data()), credential.client_key_pem.size(),
                  CURL_BLOB_COPY};
    curl_easy_setopt(c, CURLOPT_SSLCERTTYPE, "PEM");
    curl_easy_setopt(c, CURLOPT_SSLCERT_BLOB, &cert);
    curl_easy_setopt(c, CURLOPT_SSLKEYTYPE, "PEM");
    curl_easy_setopt(c, CURLOPT_SSLKEY_BLOB, &key);
  }
}

}  // namespace lane::kube

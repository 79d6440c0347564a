#include "net/tls.h"

#include <curl/curl.h>

#include <mutex>

namespace lane::net {

void init_curl_once() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

void apply_tls(void* handle, const TlsOptions& tls) {
  CURL* c = static_cast<CURL*>(handle);
  curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, tls.verify ? 1L : 0L);
  curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, tls.verify ? 2L : 0L);
  if (!tls.ca_pem.empty()) {
    curl_blob ca{const_cast<char*>(tls.ca_pem.data()), tls.ca_pem.size(), CURL_BLOB_COPY};
    curl_easy_setopt(c, CURLOPT_CAINFO_BLOB, &ca);
  }
  if (!tls.client_cert_pem.empty()) {
    curl_blob cert{const_cast<char*>(tls.client_cert_pem.data()), tls.client_cert_pem.size(), CURL_BLOB_COPY};
    curl_blob key{const_cast<char*>(tls.client_key_pem.data()), tls.client_key_pem.size(), CURL_BLOB_COPY};
    curl_easy_setopt(c, CURLOPT_SSLCERTTYPE, "PEM");
    curl_easy_setopt(c, CURLOPT_SSLCERT_BLOB, &cert);
    curl_easy_setopt(c, CURLOPT_SSLKEYTYPE, "PEM");
    curl_easy_setopt(c, CURLOPT_SSLKEY_BLOB, &key);
  }
}

}  // namespace lane::net

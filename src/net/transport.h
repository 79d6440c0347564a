#pragma once
// One libcurl easy handle: requests go out one at a time and reuse its connection (keep-alive).
// Not thread-safe: give each thread (or each long-lived stream) its own Transport.
#include "net/http.h"
#include "net/tls.h"

namespace lane::net {

class Transport {
 public:
  Transport();
  ~Transport();
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  // One attempt; never throws for HTTP statuses or transport failures (see Outcome).
  Outcome perform(const Request& request, const TlsOptions& tls = {});

 private:
  void* curl_;  // CURL*
};

}  // namespace lane::net

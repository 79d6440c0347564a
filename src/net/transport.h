#pragma once
// libcurl, behind two classes (transport.cpp is the one file of lanectl that calls it):
//   Transport      one easy handle: HTTP requests go out one at a time and reuse its connection;
//   RawConnection  a TCP (https: TLS) connection whose bytes the caller writes and reads, for
//                  protocols libcurl does not speak (the WebSocket upgrade of pods/exec).
// Neither is thread-safe: give each thread (or each long-lived stream) its own.
#include <cstddef>
#include <string>
#include <string_view>

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

class RawConnection {
 public:
  RawConnection();  // throws lane::Error when libcurl cannot make a handle
  ~RawConnection();
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  // Connects to the host and port of `url` (http or https; for https with `tls`). Returns an
  // empty string, or libcurl's message when the connection failed.
  std::string connect(const std::string& url, const TlsOptions& tls, long connect_timeout_s);
  int socket() const { return fd_; }  // poll() it; -1 before connect()

  // One non-blocking send or receive. `error` empty: `bytes` moved (0 with `again`: try later;
  // a receive of 0 bytes without `again`: the peer closed the connection).
  struct Io {
    size_t bytes = 0;
    bool again = false;
    std::string error;
  };
  Io send(std::string_view bytes);
  Io receive(char* buffer, size_t size);

 private:
  void* curl_;  // CURL*
  int fd_ = -1;
};

}  // namespace lane::net

#pragma once
// Who is on the other end of a loopback TCP connection: the uid owning the client's socket, read
// from the kernel's socket tables (/proc/net/tcp and /proc/net/tcp6). The dashboard serves its own
// user without a token on loopback and asks every other local user for the token.
#include <sys/types.h>

#include <optional>
#include <string>

namespace lane::dashboard {

struct TcpEndpoint {
  std::string address;  // numeric, as the server sees it ("127.0.0.1", "::1", "::ffff:127.0.0.1")
  int port = -1;
};

// The uid of the socket whose local end is `client` and whose remote end is `server` (the
// client's side of the connection the server accepted), from the tables under `proc_net`.
// nullopt when no such socket is listed (another network namespace, a closed connection, an
// unparsable address).
std::optional<uid_t> loopback_peer_uid(const TcpEndpoint& client, const TcpEndpoint& server,
                                       const std::string& proc_net = "/proc/net");

}  // namespace lane::dashboard

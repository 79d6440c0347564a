#include "dashboard/peer_uid.h"

#include <arpa/inet.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>

namespace lane::dashboard {

namespace {

// An address as 16 bytes, IPv4 as IPv4-mapped IPv6 (::ffff:a.b.c.d), so a v4 row and a v6 row of
// the same connection compare equal.
using Address = std::array<unsigned char, 16>;

Address mapped_v4(const unsigned char v4[4]) {
  Address a{};
  a[10] = a[11] = 0xff;
  std::memcpy(a.data() + 12, v4, 4);
  return a;
}

std::optional<Address> parse_numeric(const std::string& text) {
  unsigned char buf[16];
  if (inet_pton(AF_INET, text.c_str(), buf) == 1) return mapped_v4(buf);
  if (inet_pton(AF_INET6, text.c_str(), buf) != 1) return std::nullopt;
  Address a;
  std::memcpy(a.data(), buf, 16);
  return a;
}

// "0100007F:1F90" (IPv4) or 32 hex digits ":PORT" (IPv6): the kernel prints each 32-bit word of
// the address as a host-order number, so each word is parsed and copied back as it lies in memory.
std::optional<std::pair<Address, int>> parse_proc_endpoint(const std::string& field) {
  auto colon = field.find(':');
  if (colon != 8 && colon != 32) return std::nullopt;
  unsigned char bytes[16];
  for (size_t w = 0; w < colon / 8; ++w) {
    uint32_t word = static_cast<uint32_t>(std::stoul(field.substr(w * 8, 8), nullptr, 16));
    std::memcpy(bytes + w * 4, &word, 4);
  }
  Address a;
  if (colon == 8) {
    a = mapped_v4(bytes);
  } else {
    std::memcpy(a.data(), bytes, 16);
  }
  return std::make_pair(a, static_cast<int>(std::stoul(field.substr(colon + 1), nullptr, 16)));
}

std::optional<uid_t> find_in_table(const std::string& path, const Address& client, int client_port,
                                   const Address& server, int server_port) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);  // the header
  while (std::getline(in, line)) {
    // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid ...
    std::istringstream fields(line);
    std::string sl, local, remote, state, queues, timer, retransmits;
    long long uid = -1;
    if (!(fields >> sl >> local >> remote >> state >> queues >> timer >> retransmits >> uid)) continue;
    try {
      auto l = parse_proc_endpoint(local), r = parse_proc_endpoint(remote);
      if (l && r && l->second == client_port && r->second == server_port && l->first == client && r->first == server)
        return static_cast<uid_t>(uid);
    } catch (const std::exception&) {
      continue;  // a field that is not hex: not a row of ours
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<uid_t> loopback_peer_uid(const TcpEndpoint& client, const TcpEndpoint& server, const std::string& proc_net) {
  auto c = parse_numeric(client.address), s = parse_numeric(server.address);
  if (!c || !s || client.port <= 0 || server.port <= 0) return std::nullopt;
  for (const char* table : {"/tcp", "/tcp6"})
    if (auto uid = find_in_table(proc_net + table, *c, client.port, *s, server.port)) return uid;
  return std::nullopt;
}

}  // namespace lane::dashboard

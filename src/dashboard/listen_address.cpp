#include "dashboard/listen_address.h"

#include <arpa/inet.h>

namespace lane::dashboard {

std::optional<ListenAddress> parse_listen_address(const std::string& value) {
  auto colon = value.rfind(':');
  if (colon == std::string::npos || colon == 0) return std::nullopt;
  std::string host = value.substr(0, colon), port = value.substr(colon + 1);
  if (host.front() == '[') {
    if (host.size() < 3 || host.back() != ']') return std::nullopt;
    host = host.substr(1, host.size() - 2);
  } else if (host.find(':') != std::string::npos) {
    return std::nullopt;  // an IPv6 address needs brackets: [::1]:8080
  }
  if (port.empty() || port.size() > 5) return std::nullopt;
  for (char c : port)
    if (c < '0' || c > '9') return std::nullopt;
  for (char c : host)
    if (c == ' ' || c == '/' || c == '\t') return std::nullopt;
  int p = std::stoi(port);
  if (p > 65535) return std::nullopt;
  return ListenAddress{host, p};
}

bool is_loopback_host(const std::string& host) {
  if (host == "localhost") return true;
  in_addr v4{};
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  if (inet_pton(AF_INET6, host.c_str(), &v6) == 1) return IN6_IS_ADDR_LOOPBACK(&v6);
  return false;
}

std::string dashboard_url(const std::string& host, int port) {
  bool v6 = host.find(':') != std::string::npos;
  return "http://" + (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port) + "/";
}

}  // namespace lane::dashboard

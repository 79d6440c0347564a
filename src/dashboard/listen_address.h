#pragma once
// The --listen value of `lanectl dashboard`: HOST:PORT ([::1]:8080 for IPv6), and whether the
// host is a loopback address (no token needed there).
#include <optional>
#include <string>

namespace lane::dashboard {

struct ListenAddress {
  std::string host;  // as given, without the IPv6 brackets
  int port = 0;      // 0: any free port
};

// nullopt when `value` is not HOST:PORT with a port 0..65535.
std::optional<ListenAddress> parse_listen_address(const std::string& value);

// 127.0.0.0/8, ::1 and "localhost".
bool is_loopback_host(const std::string& host);

// "http://HOST:PORT/" (IPv6 hosts in brackets).
std::string dashboard_url(const std::string& host, int port);

}  // namespace lane::dashboard

// Who is on the other end of a loopback connection (peer_uid.h): rows of fake /proc/net tables
// (IPv4, IPv6, IPv4-mapped, the server's own row not taken for the client's) and a real loopback
// connection of this process.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "dashboard/peer_uid.h"

using namespace lane::dashboard;
namespace fs = std::filesystem;

namespace {

const char* kHeader = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n";

struct FakeProcNet {
  FakeProcNet(const std::string& tcp, const std::string& tcp6) {
    dir = fs::temp_directory_path() / ("lane-peer-" + std::to_string(getpid()));
    fs::create_directories(dir);
    std::ofstream(dir / "tcp") << kHeader << tcp;
    std::ofstream(dir / "tcp6") << kHeader << tcp6;
  }
  ~FakeProcNet() { fs::remove_all(dir); }
  fs::path dir;
};

}  // namespace

TEST_CASE("the peer's uid is the client row's: local = client, remote = server", "[dashboard][fast]") {
  // 127.0.0.1:40000 -> 127.0.0.1:8080 owned by 1001; the server's accepted side (owned by 0) and a
  // client on another port (owned by 65534) are not it.
  FakeProcNet net(
      "   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1 1 0\n"
      "   1: 0100007F:1F90 0100007F:9C40 01 00000000:00000000 00:00000000 00000000     0        0 2 1 0\n"
      "   2: 0100007F:9C41 0100007F:1F90 01 00000000:00000000 00:00000000 00000000 65534        0 3 1 0\n"
      "   3: 0100007F:9C40 0100007F:1F90 01 00000000:00000000 00:00000000 00000000  1001        0 4 1 0\n",
      // [::1]:40002 -> [::1]:8080 owned by 1002; ::ffff:127.0.0.1:40003 -> ::ffff:127.0.0.1:8080 by 1003.
      "   0: 00000000000000000000000001000000:9C42 00000000000000000000000001000000:1F90 01 "
      "00000000:00000000 00:00000000 00000000  1002        0 5 1 0\n"
      "   1: 0000000000000000FFFF00000100007F:9C43 0000000000000000FFFF00000100007F:1F90 01 "
      "00000000:00000000 00:00000000 00000000  1003        0 6 1 0\n");
  std::string proc = net.dir.string();
  CHECK(loopback_peer_uid({"127.0.0.1", 40000}, {"127.0.0.1", 8080}, proc) == uid_t{1001});
  CHECK(loopback_peer_uid({"127.0.0.1", 40001}, {"127.0.0.1", 8080}, proc) == uid_t{65534});
  CHECK(loopback_peer_uid({"::1", 40002}, {"::1", 8080}, proc) == uid_t{1002});
  CHECK(loopback_peer_uid({"::ffff:127.0.0.1", 40003}, {"::ffff:127.0.0.1", 8080}, proc) == uid_t{1003});
  // The same connection seen as plain IPv4 addresses (a v4 socket's view) is the same row.
  CHECK(loopback_peer_uid({"127.0.0.1", 40003}, {"127.0.0.1", 8080}, proc) == uid_t{1003});
  CHECK_FALSE(loopback_peer_uid({"127.0.0.1", 40009}, {"127.0.0.1", 8080}, proc));
  CHECK_FALSE(loopback_peer_uid({"127.0.0.2", 40000}, {"127.0.0.1", 8080}, proc));
  CHECK_FALSE(loopback_peer_uid({"not an address", 40000}, {"127.0.0.1", 8080}, proc));
  CHECK_FALSE(loopback_peer_uid({"127.0.0.1", 40000}, {"127.0.0.1", 8080}, proc + "/missing"));
}

TEST_CASE("a real loopback connection of this process is this user's", "[dashboard][fast]") {
  int listener = socket(AF_INET, SOCK_STREAM, 0), client = socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(listener >= 0);
  REQUIRE(client >= 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  REQUIRE(bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  REQUIRE(listen(listener, 1) == 0);
  REQUIRE(getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
  REQUIRE(connect(client, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  sockaddr_in local{};
  len = sizeof local;
  REQUIRE(getsockname(client, reinterpret_cast<sockaddr*>(&local), &len) == 0);
  auto uid = loopback_peer_uid({"127.0.0.1", ntohs(local.sin_port)}, {"127.0.0.1", ntohs(addr.sin_port)});
  close(client);
  close(listener);
  REQUIRE(uid);
  CHECK(*uid == geteuid());
}

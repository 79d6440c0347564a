// lanectl exec / bash on the Kubernetes backend: RFC 6455 framing, then the pods/exec channel
// protocol end to end through the real binary (and, for the terminal, through KubeClient with a
// pseudo-terminal) against the test API server's fake container.
#include <pty.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <thread>

#include "fake_server.h"
#include "support/lanectl_runner.h"
#include "kube/kube_client.h"
#include "kube/websocket.h"
#include "test_paths.h"

using lane::kube::WsOpcode;

namespace {

std::string bytes(std::initializer_list<int> values) {
  std::string s;
  for (int v : values) s.push_back(static_cast<char>(v));
  return s;
}

using Cli = lane::test::Lanectl;

// A project with one running Train job ("work").
void submit_job(Cli& cli) {
  auto r = cli.run_shell("project create exec-p --gpu-quota 1");
  INFO(r.out);
  REQUIRE(r.code == 0);
  r = cli.run_shell("submit --name work -p exec-p --image busybox --command -- sleep 3600");
  INFO(r.out);
  REQUIRE(r.code == 0);
}

}  // namespace

TEST_CASE("websocket: Sec-WebSocket-Accept of the RFC 6455 example key", "[kube][fast]") {
  CHECK(lane::kube::websocket_accept("dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
}

TEST_CASE("websocket: client frames are masked as in RFC 6455 section 5.7", "[kube][fast]") {
  // "Hello", masked with 37 fa 21 3d.
  CHECK(lane::kube::encode_ws_frame(WsOpcode::kText, "Hello", 0x37fa213du) ==
        bytes({0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58}));
  CHECK(lane::kube::encode_ws_frame(WsOpcode::kText, "Hello", std::nullopt) ==
        bytes({0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f}));
}

TEST_CASE("websocket: 7-, 16- and 64-bit lengths round-trip, also when bytes arrive one at a time", "[kube][fast]") {
  for (size_t n : {size_t{0}, size_t{125}, size_t{126}, size_t{65535}, size_t{65536}, size_t{100003}}) {
    std::string payload(n, '\0');
    for (size_t i = 0; i < n; ++i) payload[i] = static_cast<char>(i * 7);
    const std::string frame = lane::kube::encode_ws_frame(WsOpcode::kBinary, payload, std::nullopt);
    CHECK(frame.size() == n + (n < 126 ? 2 : n < 65536 ? 4 : 10));
    lane::kube::WsFrameDecoder d;
    if (n < 300) {
      for (size_t i = 0; i + 1 < frame.size(); ++i) {
        d.feed(frame.substr(i, 1));
        REQUIRE_FALSE(d.next().has_value());
      }
      d.feed(frame.substr(frame.size() - 1));
    } else {
      d.feed(frame);
    }
    auto m = d.next();
    REQUIRE(m.has_value());
    CHECK(m->opcode == WsOpcode::kBinary);
    CHECK(m->payload == payload);
    CHECK_FALSE(d.next().has_value());
  }
}

TEST_CASE("websocket: a fragmented message is joined, and a ping between its fragments comes out first", "[kube][fast]") {
  lane::kube::WsFrameDecoder d;
  d.feed(bytes({0x01, 0x03}) + "Hel");  // text, FIN clear
  d.feed(bytes({0x89, 0x00}));          // ping
  d.feed(bytes({0x80, 0x02}) + "lo");   // continuation, FIN
  auto ping = d.next();
  REQUIRE(ping.has_value());
  CHECK(ping->opcode == WsOpcode::kPing);
  auto text = d.next();
  REQUIRE(text.has_value());
  CHECK(text->opcode == WsOpcode::kText);
  CHECK(text->payload == "Hello");
}

TEST_CASE("websocket: protocol violations by the server are errors", "[kube][fast]") {
  auto fails = [](const std::string& frame) {
    lane::kube::WsFrameDecoder d;
    d.feed(frame);
    CHECK_THROWS_AS(d.next(), lane::Error);
  };
  fails(bytes({0x81, 0x81, 1, 2, 3, 4, 0x41}));  // masked by the server
  fails(bytes({0x80, 0x01}) + "x");              // continuation of nothing
  fails(bytes({0x09, 0x00}));                    // fragmented ping
  fails(bytes({0xC1, 0x00}));                    // reserved bit set
}

TEST_CASE("kube exec: stdout, stdin, stderr and exit codes through lanectl", "[kube][fast]") {
  lane::test::FakeApiServer server;
  Cli cli(server.url());
  submit_job(cli);

  auto r = cli.run_shell("exec work -p exec-p -- echo hello 'from the pod'");
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK(r.out == "hello from the pod\n");

  // A pipe on stdin is sent (v5 closes stdin at its end, which ends cat).
  r = cli.run_shell("exec work -p exec-p -- cat", "line one\\nline two\\n");
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK(r.out == "line one\nline two\n");

  r = cli.run_shell("exec work -p exec-p -- sh -c 'echo to stdout; echo to stderr >&2; exit 3'");
  INFO(r.out);
  CHECK(r.code == 3);
  CHECK(r.out.find("to stdout\n") != std::string::npos);
  CHECK(r.out.find("to stderr\n") != std::string::npos);

  r = cli.run_shell("exec work -p exec-p -- no-such-binary");
  INFO(r.out);
  CHECK(r.code == 1);
  CHECK(r.out.find("executable file not found") != std::string::npos);

  // A connection that ends without the Status is an error, never a silent success.
  r = cli.run_shell("exec work -p exec-p -- drop-connection");
  INFO(r.out);
  CHECK(r.code == 1);
  CHECK(r.out.find("partial output") != std::string::npos);
  CHECK(r.out.find("ended before the command's exit status") != std::string::npos);

  r = cli.run_shell("exec missing-job -p exec-p -- echo x");
  INFO(r.out);
  CHECK(r.code == 1);
  CHECK(r.out.find("'missing-job' does not exist") != std::string::npos);

  r = cli.run_shell("exec work -p exec-p --pod no-such-pod -- echo x");
  INFO(r.out);
  CHECK(r.code == 1);
  CHECK(r.out.find("no-such-pod") != std::string::npos);

  // One command= per word, stdin only when there is input to send.
  bool seen = false;
  for (const auto& req : server.requests())
    if (req["path"].get<std::string>().find("/pods/") != std::string::npos &&
        req["path"].get<std::string>().rfind("/exec") == req["path"].get<std::string>().size() - 5)
      seen = true;
  CHECK(seen);
}

TEST_CASE("kube exec: falls back to v4.channel.k8s.io, and sends the bearer token without showing it", "[kube][fast]") {
  lane::test::FakeServerOptions options;
  options.token = "s3cr3t-exec-token";
  lane::test::FakeApiServer server(options);
  server.control("/_test/settings", {{"exec_protocols", {"v4.channel.k8s.io"}}});
  Cli cli(server.url(), options.token);
  submit_job(cli);
  auto r = cli.run_shell("exec work -p exec-p -- echo spoken over v4");
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK(r.out == "spoken over v4\n");
  r = cli.run_shell("exec work -p exec-p -- sh -c 'exit 7'");
  CHECK(r.code == 7);
  CHECK(r.out.find(options.token) == std::string::npos);

  server.control("/_test/settings", {{"exec_protocols", {"v3.channel.k8s.io"}}});
  r = cli.run_shell("exec work -p exec-p -- echo x");
  INFO(r.out);
  CHECK(r.code == 1);
  CHECK(r.out.find("subprotocols") != std::string::npos);
  CHECK(r.out.find(options.token) == std::string::npos);
}

TEST_CASE("kube bash: a terminal session in raw mode with its size, restored afterwards", "[kube][fast]") {
  lane::test::FakeApiServer server;
  server.control("/_test/object", {{"kind", "Pod"},
                                   {"apiVersion", "v1"},
                                   {"metadata", {{"name", "shell-pod"}, {"namespace", "default"}}},
                                   {"spec", {{"containers", {{{"name", "main"}, {"image", "busybox"}}}}}},
                                   {"status", {{"phase", "Running"}}}});
  int master = -1, slave = -1;
  winsize size{};
  size.ws_col = 100;
  size.ws_row = 40;
  REQUIRE(openpty(&master, &slave, nullptr, nullptr, &size) == 0);
  termios before{};
  REQUIRE(tcgetattr(slave, &before) == 0);
  REQUIRE((before.c_lflag & ICANON) != 0);

  lane::kube::KubeClient client(server.connection());
  lane::kube::PodExecRequest request;
  request.ns = "default";
  request.pod = "shell-pod";
  request.command = {"/bin/bash"};
  request.stdin = true;
  request.tty = true;
  std::string output;
  termios during{};
  lane::kube::PodExecIo io;
  io.in_fd = slave;
  io.out = [&](std::string_view d) {
    if (output.empty()) tcgetattr(slave, &during);  // the first answer: the session is on
    output.append(d);
  };
  std::thread typist([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    [[maybe_unused]] auto a = write(master, "ls -l\r", 6);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    [[maybe_unused]] auto b = write(master, "exit\r", 5);
  });
  const int code = client.exec(request, io);
  typist.join();
  INFO(output);
  CHECK(code == 0);
  CHECK(output.find("[resize 100x40]") != std::string::npos);
  CHECK(output.find("$ ls -l (tty)") != std::string::npos);
  CHECK((during.c_lflag & ICANON) == 0);  // raw while the session ran
  termios after{};
  REQUIRE(tcgetattr(slave, &after) == 0);
  CHECK(after.c_lflag == before.c_lflag);  // and restored
  close(master);
  close(slave);
}

TEST_CASE("kube exec: over TLS with the kubeconfig's CA and a token, and an untrusted server is refused", "[kube][fast]") {
  lane::test::TempDir dir;
  lane::test::make_self_signed_cert(dir.path);
  lane::test::FakeApiServer server({"tls-exec-token", dir.path / "cert.pem", dir.path / "key.pem"});
  server.control("/_test/object", {{"kind", "Pod"},
                                   {"apiVersion", "v1"},
                                   {"metadata", {{"name", "tls-pod"}, {"namespace", "default"}}},
                                   {"spec", {{"containers", {{{"name", "main"}, {"image", "busybox"}}}}}},
                                   {"status", {{"phase", "Running"}}}});
  std::ifstream ca_in(dir.path / "cert.pem");
  lane::kube::Connection c = server.connection();
  c.ca_pem.assign(std::istreambuf_iterator<char>(ca_in), {});
  c.token = "tls-exec-token";
  lane::kube::PodExecRequest request;
  request.ns = "default";
  request.pod = "tls-pod";
  request.command = {"sh", "-c", "echo over tls; exit 4"};
  std::string out;
  lane::kube::PodExecIo io;
  io.out = [&](std::string_view d) { out.append(d); };
  lane::kube::KubeClient client(c);
  CHECK(client.exec(request, io) == 4);
  CHECK(out == "over tls\n");

  lane::kube::Connection untrusted = c;
  untrusted.ca_pem.clear();  // the system store does not know our self-signed CA
  lane::kube::KubeClient refused(untrusted);
  CHECK_THROWS_AS(refused.exec(request, io), lane::kube::TransportError);

  lane::kube::Connection wrong = c;
  wrong.token = "guess";
  try {
    lane::kube::KubeClient(wrong).exec(request, io);
    FAIL("expected Unauthorized");
  } catch (const lane::kube::ApiError& e) {
    CHECK(e.unauthorized());
    CHECK(std::string(e.what()).find("guess") == std::string::npos);
  }
}

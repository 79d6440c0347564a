#include "kube/pod_exec.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "kube/api_error.h"
#include "kube/resource.h"

namespace lane::kube {
namespace {

enum Channel : unsigned char { kStdin = 0, kStdout = 1, kStderr = 2, kError = 3, kResize = 4, kCloseStream = 255 };

// The local terminal in raw mode for the session (the remote tty does the echo and line
// editing), restored on every way out of scope.
class RawTerminal {
 public:
  explicit RawTerminal(int fd) : fd_(fd) {
    if (!::isatty(fd_) || ::tcgetattr(fd_, &saved_) != 0) return;
    termios raw = saved_;
    ::cfmakeraw(&raw);
    active_ = ::tcsetattr(fd_, TCSANOW, &raw) == 0;
  }
  ~RawTerminal() {
    if (active_) ::tcsetattr(fd_, TCSANOW, &saved_);
  }

 private:
  int fd_;
  termios saved_{};
  bool active_ = false;
};

// SIGWINCH → a byte on a pipe, so that the poll loop sends the new size.
int g_winch_pipe[2] = {-1, -1};
void on_winch(int) {
  const int saved = errno;
  [[maybe_unused]] auto n = ::write(g_winch_pipe[1], "w", 1);
  errno = saved;
}

class WinchWatch {
 public:
  WinchWatch() {
    if (::pipe2(g_winch_pipe, O_NONBLOCK | O_CLOEXEC) != 0) return;
    struct sigaction sa {};
    sa.sa_handler = on_winch;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    active_ = ::sigaction(SIGWINCH, &sa, &old_) == 0;
  }
  ~WinchWatch() {
    if (active_) ::sigaction(SIGWINCH, &old_, nullptr);
    for (int& fd : g_winch_pipe)
      if (fd >= 0) ::close(std::exchange(fd, -1));
  }
  int fd() const { return g_winch_pipe[0]; }

 private:
  struct sigaction old_ {};
  bool active_ = false;
};

void send_size(WebSocket& socket, int tty_fd) {
  winsize ws{};
  if (::ioctl(tty_fd, TIOCGWINSZ, &ws) != 0 || ws.ws_col == 0) return;
  const std::string size = nlohmann::json{{"Width", ws.ws_col}, {"Height", ws.ws_row}}.dump();
  socket.send(WsOpcode::kBinary, std::string(1, static_cast<char>(kResize)) + size);
}

// The Status on the error channel: Success → 0, NonZeroExitCode → its code, else an error.
int exit_code_from_status(const std::string& text, const std::string& where) {
  nlohmann::json status;
  try {
    status = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception&) {
    throw Error(fmt::format("exec in {}: {}", where, text));  // v1-v3 servers send plain text
  }
  if (status.value("status", "") == "Success") return 0;
  if (status.value("reason", "") == "NonZeroExitCode") {
    for (const auto& cause : status.value("details", nlohmann::json::object()).value("causes", nlohmann::json::array()))
      if (cause.value("reason", "") == "ExitCode") {
        try {
          return std::stoi(cause.value("message", ""));
        } catch (const std::exception&) {
          break;
        }
      }
  }
  throw Error(fmt::format("exec in {}: {}", where, status.value("message", text)));
}

}  // namespace

std::string pod_exec_path(const PodExecRequest& r) {
  std::string path = "/api/v1/namespaces/" + r.ns + "/pods/" + r.pod + (r.attach ? "/attach?" : "/exec?");
  if (!r.attach)
    for (const auto& word : r.command) path += "command=" + url_encode(word) + "&";
  if (!r.container.empty()) path += "container=" + url_encode(r.container) + "&";
  path += fmt::format("stdin={}&stdout=true&stderr={}&tty={}", r.stdin ? "true" : "false",
                      r.tty ? "false" : "true", r.tty ? "true" : "false");  // a tty merges stderr
  return path;
}

const std::vector<std::string>& pod_exec_protocols() {
  static const std::vector<std::string> protocols{"v5.channel.k8s.io", "v4.channel.k8s.io"};
  return protocols;
}

int run_pod_exec(WebSocket& socket, const PodExecRequest& request, PodExecIo& io) {
  const std::string where = request.ns + "/" + request.pod;
  const bool v5 = socket.protocol() == "v5.channel.k8s.io";
  const bool terminal = request.tty && ::isatty(io.in_fd);
  std::optional<RawTerminal> raw;
  std::optional<WinchWatch> winch;
  if (terminal) {
    raw.emplace(io.in_fd);
    winch.emplace();
    send_size(socket, io.in_fd);
  }
  bool stdin_open = request.stdin;
  char buf[65536];
  for (;;) {
    // Frames can be here before poll() says so: read with the upgrade's answer, or decrypted
    // by TLS ahead of the socket. Drain them first, then wait.
    for (auto& m : socket.read_available()) {
      if (m.opcode == WsOpcode::kClose) return 0;  // no Status: as kubectl, success
      if (m.payload.empty()) continue;
      const auto channel = static_cast<unsigned char>(m.payload[0]);
      const std::string_view data = std::string_view(m.payload).substr(1);
      if (channel == kStdout && io.out) io.out(data);
      else if (channel == kStderr && io.err) io.err(data);
      else if (channel == kError) {
        const int code = exit_code_from_status(std::string(data), where);
        socket.close(1000);
        return code;
      }
    }
    // A close frame without a Status is success (as kubectl); a connection that just ends is not.
    if (socket.closed())
      throw TransportError(fmt::format("exec in {}: the connection ended before the command's exit status "
                                       "arrived; the command may still be running",
                                       where),
                           true);

    pollfd fds[3] = {{socket.socket(), POLLIN, 0}, {-1, POLLIN, 0}, {-1, POLLIN, 0}};
    if (stdin_open) fds[1].fd = io.in_fd;
    if (winch) fds[2].fd = winch->fd();
    if (::poll(fds, 3, 1000) < 0 && errno != EINTR) throw Error("exec: poll failed");

    // A send can fail because the command just ended and the server closed: its Status is
    // then already on the way, so stop sending and let the top of the loop read it.
    try {
      if (fds[2].revents & POLLIN) {
        while (::read(winch->fd(), buf, sizeof buf) > 0) {
        }
        send_size(socket, io.in_fd);
      }
      if (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) {
        const ssize_t n = ::read(io.in_fd, buf + 1, sizeof buf - 1);
        if (n > 0) {
          buf[0] = static_cast<char>(kStdin);
          socket.send(WsOpcode::kBinary, std::string_view(buf, static_cast<size_t>(n) + 1));
        } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
          stdin_open = false;  // end of input: v5 tells the command; v4 has no way to
          if (v5)
            socket.send(WsOpcode::kBinary, std::string{static_cast<char>(kCloseStream), static_cast<char>(kStdin)});
        }
      }
    } catch (const TransportError&) {
      stdin_open = false;
      winch.reset();
    }
  }
}

}  // namespace lane::kube

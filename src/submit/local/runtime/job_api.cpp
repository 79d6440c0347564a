#include "submit/local/runtime/job_api.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/error.h"

namespace lane::submit::local {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

sockaddr_un address(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof addr.sun_path) throw Error("job API socket path too long: " + path);
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  return addr;
}

bool send_all(int fd, const std::string& data) {
  for (size_t off = 0; off < data.size();) {
    ssize_t n = send(fd, data.data() + off, data.size() - off, MSG_NOSIGNAL);
    if (n <= 0) return false;
    off += static_cast<size_t>(n);
  }
  return true;
}

// Reads until EOF, or for a request until the first newline; at most `limit` bytes (one more
// tells the caller the message was longer).
std::string read_message(int fd, bool until_newline, size_t limit) {
  std::string data;
  char buf[4096];
  while (data.size() <= limit) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    data.append(buf, static_cast<size_t>(n));
    if (until_newline && data.find('\n') != std::string::npos) break;
  }
  return data;
}

}  // namespace

json job_api_call(const std::string& socket_path, const json& request) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw Error(std::string("job API: socket: ") + std::strerror(errno));
  sockaddr_un addr = address(socket_path);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    int e = errno;
    close(fd);
    throw Error("job API " + socket_path + ": " + std::strerror(e) + " (is this running inside a lanectl job?)");
  }
  bool sent = send_all(fd, request.dump() + "\n");
  std::string reply = sent ? read_message(fd, false, 1u << 20) : "";
  close(fd);
  json doc = json::parse(reply, nullptr, false);
  if (!doc.is_object()) throw Error("job API " + socket_path + ": no valid reply from the job's supervisor");
  if (!doc.value("ok", false)) throw Error(doc.value("error", std::string("the job API refused the request")));
  return doc;
}

int job_api_listen(const fs::path& path, uid_t uid, gid_t gid) {
  std::error_code ec;
  fs::remove(path, ec);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) throw Error(std::string("job API: socket: ") + std::strerror(errno));
  sockaddr_un addr = address(path.string());
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || listen(fd, 8) != 0) {
    int e = errno;
    close(fd);
    throw Error("job API: cannot listen on " + path.string() + ": " + std::strerror(e));
  }
  // Neither call follows a link (the directory is the supervisor's, read-only in the job).
  if ((geteuid() == 0 && fchownat(AT_FDCWD, path.c_str(), uid, gid, AT_SYMLINK_NOFOLLOW) != 0) ||
      fchmodat(AT_FDCWD, path.c_str(), 0600, AT_SYMLINK_NOFOLLOW) != 0) {
    int e = errno;
    close(fd);
    throw Error("job API: cannot hand " + path.string() + " to the job's user: " + std::strerror(e));
  }
  return fd;
}

pid_t job_api_serve_one(int listen_fd, const JobApiHandler& handle, size_t running) {
  int conn = accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
  if (conn < 0) return 0;
  if (running >= kJobApiHandlers) {  // a short reply fits the socket buffer: never blocks
    send_all(conn, json{{"ok", false},
                        {"error", "job API: " + std::to_string(kJobApiHandlers) +
                                      " requests of this job are being answered already; retry when one is done"}}
                       .dump());
    close(conn);
    return 0;
  }
  pid_t child = fork();
  if (child != 0) {
    close(conn);
    return child > 0 ? child : 0;
  }
  json reply;
  try {
    ucred peer{};
    socklen_t len = sizeof peer;
    getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &peer, &len);
    const int flags = fcntl(conn, F_GETFL);
    fcntl(conn, F_SETFL, flags & ~O_NONBLOCK);
    timeval timeout{kJobApiRequestSeconds, 0};
    setsockopt(conn, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    setsockopt(conn, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
    const std::string message = read_message(conn, true, kJobApiRequestBytes);
    if (message.size() > kJobApiRequestBytes)
      throw Error("job API: the request is larger than " + std::to_string(kJobApiRequestBytes / 1024) + " KiB");
    json request = json::parse(message, nullptr, false);
    if (!request.is_object())
      throw Error("job API: the request is not a JSON object (or did not arrive within " +
                  std::to_string(kJobApiRequestSeconds) + " s)");
    reply = handle(request, peer.pid);
    reply["ok"] = true;
  } catch (const std::exception& e) {
    reply = {{"ok", false}, {"error", e.what()}};
  }
  send_all(conn, reply.dump());
  close(conn);
  _exit(0);
}

}  // namespace lane::submit::local

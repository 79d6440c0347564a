#include "http_test_server.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <optional>
#include <sstream>
#include <stdexcept>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace lane::test {
namespace {

void send_all(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL);
    if (n <= 0) return;  // the client went away; nothing to do in a test server
    data += n;
    size -= static_cast<size_t>(n);
  }
}

}  // namespace

HttpTestServer::HttpTestServer() {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  if (listen_fd_ < 0) throw std::runtime_error("socket() failed");
  int one = 1;
  ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(listen_fd_, 8) != 0)
    throw std::runtime_error("bind/listen on 127.0.0.1 failed");
  socklen_t len = sizeof addr;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  thread_ = std::thread([this] { run(); });
}

HttpTestServer::~HttpTestServer() {
  stop_ = true;
  thread_.join();
  ::close(listen_fd_);
}

void HttpTestServer::serve(const std::string& path, std::string body, ServeOptions options) {
  std::lock_guard<std::mutex> lock(mu_);
  files_[path] = {std::move(body), std::move(options)};
}

void HttpTestServer::cut_next_response_after(size_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  cut_after_ = static_cast<long>(bytes);
}

void HttpTestServer::script(const std::string& path, ScriptedResponse response) {
  std::lock_guard<std::mutex> lock(mu_);
  scripted_[path].push_back(std::move(response));
}

std::string HttpTestServer::base_url() const { return "http://127.0.0.1:" + std::to_string(port_); }

std::vector<RecordedRequest> HttpTestServer::requests() const {
  std::lock_guard<std::mutex> lock(mu_);
  return requests_;
}

void HttpTestServer::run() {
  while (!stop_) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    const int fd = ::accept(listen_fd_, nullptr, nullptr);
    if (fd < 0) continue;
    handle(fd);
    ::close(fd);
  }
}

void HttpTestServer::handle(int fd) {
  std::string head;
  char buf[4096];
  while (head.find("\r\n\r\n") == std::string::npos) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 2000) <= 0) return;
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return;
    head.append(buf, static_cast<size_t>(n));
  }
  RecordedRequest req;
  const size_t head_end = head.find("\r\n\r\n");
  req.body = head.substr(head_end + 4);
  std::istringstream lines(head.substr(0, head_end));
  std::string line;
  std::getline(lines, line);
  std::istringstream first(line);
  first >> req.method >> req.path;
  while (std::getline(lines, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string name = line.substr(0, colon);
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    req.headers[name] = line.substr(line.find_first_not_of(' ', colon + 1));
  }

  // The request body (Content-Length), read in full so that closing the socket resets nothing.
  if (auto it = req.headers.find("content-length"); it != req.headers.end()) {
    const size_t want = std::stoul(it->second);
    while (req.body.size() < want) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 2000) <= 0) return;
      const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) return;
      req.body.append(buf, static_cast<size_t>(n));
    }
  }

  std::pair<std::string, ServeOptions> file;
  bool found = false;
  long cut = -1;
  std::optional<ScriptedResponse> scripted;
  {
    std::lock_guard<std::mutex> lock(mu_);
    requests_.push_back(req);
    if (auto it = scripted_.find(req.path); it != scripted_.end() && !it->second.empty()) {
      scripted = std::move(it->second.front());
      it->second.pop_front();
    }
  }
  if (scripted) {
    std::string resp = "HTTP/1.1 " + std::to_string(scripted->status) + " Scripted\r\nContent-Length: " +
                       std::to_string(scripted->body.size()) + "\r\n";
    for (const auto& [name, value] : scripted->headers) resp += name + ": " + value + "\r\n";
    resp += "Connection: close\r\n\r\n" + scripted->body;
    send_all(fd, resp.data(), resp.size());
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = files_.find(req.path); it != files_.end()) file = it->second, found = true;
    if (found) cut = cut_after_, cut_after_ = -1;
  }
  if (!found) {
    const std::string msg = "not found\n";
    const std::string resp = "HTTP/1.1 404 Not Found\r\nContent-Length: " + std::to_string(msg.size()) +
                             "\r\nConnection: close\r\n\r\n" + msg;
    send_all(fd, resp.data(), resp.size());
    return;
  }
  send_file(fd, req, file.first, file.second, cut);
}

void HttpTestServer::send_file(int fd, const RecordedRequest& req, const std::string& body,
                               const ServeOptions& options, long cut) {
  size_t from = 0;
  std::string status = "200 OK", extra = options.etag.empty() ? "" : "ETag: " + options.etag + "\r\n";
  auto range = req.headers.find("range");
  const auto if_range = req.headers.find("if-range");
  const bool changed = options.if_range && if_range != req.headers.end() && if_range->second != options.etag;
  if (!options.ranges || changed) range = req.headers.end();  // the whole body
  if (range != req.headers.end()) {
    unsigned long long start = 0;
    if (std::sscanf(range->second.c_str(), "bytes=%llu-", &start) == 1) {
      if (start >= body.size()) {
        const std::string resp = "HTTP/1.1 416 Range Not Satisfiable\r\nContent-Range: bytes */" +
                                 std::to_string(body.size()) + "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
        send_all(fd, resp.data(), resp.size());
        return;
      }
      from = start;
      status = "206 Partial Content";
      extra += "Content-Range: bytes " + std::to_string(from) + "-" + std::to_string(body.size() - 1) + "/" +
              std::to_string(body.size()) + "\r\n";
    }
  }
  const size_t length = body.size() - from;
  const std::string resp_head = "HTTP/1.1 " + status + "\r\nContent-Length: " + std::to_string(length) + "\r\n" +
                                extra + "Accept-Ranges: bytes\r\nConnection: close\r\n\r\n";
  send_all(fd, resp_head.data(), resp_head.size());
  const size_t send_bytes = cut >= 0 ? std::min(length, static_cast<size_t>(cut)) : length;
  send_all(fd, body.data() + from, send_bytes);
}

}  // namespace lane::test

#pragma once
// A tiny HTTP/1.1 server on 127.0.0.1 for the download and HTTP transport tests: serves byte
// strings by path, honours "Range: bytes=N-" (unless told to ignore ranges) and "If-Range" with
// the file's ETag, answers scripted responses (status, headers, body) in order, 404 for unknown
// paths, records every request with its body, and can cut the connection after N body bytes to
// simulate an interrupted transfer.
#include <atomic>
#include <cstddef>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace lane::test {

struct RecordedRequest {
  std::string method, path;
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;
};

struct ScriptedResponse {
  int status = 200;
  std::map<std::string, std::string> headers;
  std::string body;
};

struct ServeOptions {
  std::string etag;           // sent as ETag and compared with If-Range; empty: none
  bool ranges = true;         // false: Range is ignored, the whole body comes with 200
  bool if_range = true;       // false: If-Range is ignored (a server that does not know it)
};

class HttpTestServer {
 public:
  HttpTestServer();  // binds an ephemeral port and starts serving
  ~HttpTestServer();
  HttpTestServer(const HttpTestServer&) = delete;
  HttpTestServer& operator=(const HttpTestServer&) = delete;

  void serve(const std::string& path, std::string body, ServeOptions options = {});
  // The next request for `path` gets `response` (queued: one scripted answer per request, in
  // order, before anything serve()d for the path).
  void script(const std::string& path, ScriptedResponse response);
  // The next response body is cut after `bytes` bytes (the headers still announce all of it).
  void cut_next_response_after(size_t bytes);
  std::string base_url() const;  // "http://127.0.0.1:<port>"
  std::vector<RecordedRequest> requests() const;

 private:
  void run();
  void handle(int fd);
  void send_file(int fd, const RecordedRequest& req, const std::string& body, const ServeOptions& options, long cut);

  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  mutable std::mutex mu_;
  std::map<std::string, std::pair<std::string, ServeOptions>> files_;
  std::map<std::string, std::deque<ScriptedResponse>> scripted_;
  std::vector<RecordedRequest> requests_;
  long cut_after_ = -1;
  std::thread thread_;
};

}  // namespace lane::test

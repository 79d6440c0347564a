#pragma once
// Starts tests/kube/fake_apiserver.py on 127.0.0.1 (ephemeral port) for one test and stops it
// afterwards. Control calls (/_test/...) go through plain libcurl.
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "kube/kubeconfig.h"

namespace lane::test {

struct FakeServerOptions {
  std::string token;                 // required bearer token; empty = none
  std::filesystem::path cert, key;   // TLS when set
};

class FakeApiServer {
 public:
  explicit FakeApiServer(FakeServerOptions options = {});
  ~FakeApiServer();
  FakeApiServer(const FakeApiServer&) = delete;
  FakeApiServer& operator=(const FakeApiServer&) = delete;

  int port() const { return port_; }
  std::string url() const;
  // A plain-http Connection for the KubeClient (namespace "default").
  lane::kube::Connection connection() const;
  // POST/GET a control endpoint; returns the JSON answer.
  nlohmann::json control(const std::string& path, const nlohmann::json& body = nullptr);
  nlohmann::json requests() { return control("/_test/requests"); }
  void fault(const nlohmann::json& f) { control("/_test/faults", nlohmann::json::array({f})); }

 private:
  FakeServerOptions options_;
  int pid_ = -1;
  int port_ = 0;
};

// How many entries of a requests() log are `method` calls whose path contains `path_part`.
inline int count_requests(const nlohmann::json& log, const std::string& method, const std::string& path_part) {
  int n = 0;
  for (const auto& r : log)
    if (r.value("method", "") == method && r.value("path", "").find(path_part) != std::string::npos) ++n;
  return n;
}

// A self-signed certificate for 127.0.0.1 made with the openssl CLI: {cert, key} in `dir`.
void make_self_signed_cert(const std::filesystem::path& dir);

// A fresh temporary directory, removed by the destructor.
struct TempDir {
  TempDir();
  ~TempDir();
  std::filesystem::path path;
};

}  // namespace lane::test

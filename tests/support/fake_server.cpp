#include "fake_server.h"

#include <curl/curl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <stdexcept>

#include "test_paths.h"

namespace lane::test {
namespace fs = std::filesystem;

FakeApiServer::FakeApiServer(FakeServerOptions options) : options_(std::move(options)) {
  int out[2];
  if (pipe(out) != 0) throw std::runtime_error("pipe");
  std::vector<std::string> args{"/usr/bin/python3", (source_dir() / "tests/kube/fake_apiserver.py").string(),
                                "--schemas", (data_dir() / "k8s-schemas").string()};
  if (!options_.token.empty()) args.insert(args.end(), {"--token", options_.token});
  if (!options_.cert.empty()) args.insert(args.end(), {"--cert", options_.cert.string(), "--key", options_.key.string()});
  pid_ = fork();
  if (pid_ == 0) {
    dup2(out[1], 1);
    close(out[0]);
    close(out[1]);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(out[1]);
  FILE* f = fdopen(out[0], "r");
  char line[128] = {0};
  if (!fgets(line, sizeof line, f) || sscanf(line, "PORT %d", &port_) != 1) {
    fclose(f);
    throw std::runtime_error("fake_apiserver.py did not start (is python3-jsonschema installed?)");
  }
  fclose(f);
}

FakeApiServer::~FakeApiServer() {
  if (pid_ > 0) {
    kill(pid_, SIGTERM);
    waitpid(pid_, nullptr, 0);
  }
}

std::string FakeApiServer::url() const {
  return std::string(options_.cert.empty() ? "http" : "https") + "://127.0.0.1:" + std::to_string(port_);
}

lane::kube::Connection FakeApiServer::connection() const {
  lane::kube::Connection c;
  c.server = url();
  c.context = "test";
  return c;
}

namespace {
size_t collect(char* d, size_t s, size_t n, void* u) {
  static_cast<std::string*>(u)->append(d, s * n);
  return s * n;
}
}  // namespace

nlohmann::json FakeApiServer::control(const std::string& path, const nlohmann::json& body) {
  CURL* c = curl_easy_init();
  std::string out, payload = body.is_null() ? "" : body.dump();
  std::string u = url() + path;
  curl_easy_setopt(c, CURLOPT_URL, u.c_str());
  curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);  // control plane of the test server only
  curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
  if (!body.is_null()) {
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, payload.c_str());
  }
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &out);
  CURLcode rc = curl_easy_perform(c);
  curl_easy_cleanup(c);
  if (rc != CURLE_OK) throw std::runtime_error("control call failed: " + path);
  return nlohmann::json::parse(out);
}

void make_self_signed_cert(const fs::path& dir) {
  std::string cmd = "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 "
                    "-addext subjectAltName=IP:127.0.0.1 -keyout '" +
                    (dir / "key.pem").string() + "' -out '" + (dir / "cert.pem").string() + "' >/dev/null 2>&1";
  if (std::system(cmd.c_str()) != 0) throw std::runtime_error("openssl could not make a certificate");
}

TempDir::TempDir() {
  std::string tmpl = (fs::temp_directory_path() / "lanekube-XXXXXX").string();
  if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp");
  path = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path, ec);
}

}  // namespace lane::test

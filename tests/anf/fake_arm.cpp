#include "fake_arm.h"

#include <curl/curl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <random>
#include <stdexcept>
#include <vector>

#include "test_paths.h"

namespace lane::test {
namespace {
size_t collect(char* d, size_t s, size_t n, void* u) {
  static_cast<std::string*>(u)->append(d, s * n);
  return s * n;
}
}  // namespace

FakeArm::FakeArm(nlohmann::json setup) {
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
  std::string script = (source_dir() / "tests/anf/fake_arm.py").string();
  std::string examples = (data_dir() / "anf-examples").string();
  pid_ = fork();
  if (pid_ == 0) {
    dup2(fds[1], 1);
    close(fds[0]);
    close(fds[1]);
    execl("/usr/bin/python3", "/usr/bin/python3", script.c_str(), examples.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(fds[1]);
  FILE* f = fdopen(fds[0], "r");
  char line[64] = {0};
  bool ok = fgets(line, sizeof line, f) && sscanf(line, "PORT %d", &port_) == 1;
  fclose(f);
  if (!ok) throw std::runtime_error("fake_arm.py did not start");
  setup["client_secret"] = kAnfSecret;
  control("/_test/reset", setup);
}

FakeArm::~FakeArm() {
  if (pid_ > 0) {
    kill(pid_, SIGTERM);
    waitpid(pid_, nullptr, 0);
  }
}

std::string FakeArm::url() const { return "http://127.0.0.1:" + std::to_string(port_); }

nlohmann::json FakeArm::control(const std::string& path, const nlohmann::json& body) {
  CURL* c = curl_easy_init();
  std::string out, data = body.dump(), u = url() + path;
  curl_easy_setopt(c, CURLOPT_URL, u.c_str());
  curl_easy_setopt(c, CURLOPT_POSTFIELDS, data.c_str());
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &out);
  CURLcode rc = curl_easy_perform(c);
  curl_easy_cleanup(c);
  if (rc != CURLE_OK) throw std::runtime_error("control " + path + " failed");
  return nlohmann::json::parse(out);
}

storage::anf::AnfOptions FakeArm::options() const {
  storage::anf::AnfOptions o;
  o.tenant_id = "tenant-1";
  o.client_id = kAnfClientId;
  o.client_secret = storage::anf::Secret(kAnfSecret);
  o.subscription_id = "00000000-0000-0000-0000-000000000000";
  o.arm_url = url();
  o.authority_url = url();
  o.scope = "https://management.azure.com/.default";
  o.default_poll_s = 0;
  o.operation_timeout_s = 30;
  return o;
}

void FakeArm::add_pvc(const std::string& ns, const std::string& pvc, const std::string& pv,
                      const nlohmann::json& attributes, const std::string& driver) {
  nlohmann::json claim = {{"apiVersion", "v1"}, {"kind", "PersistentVolumeClaim"},
                          {"metadata", {{"name", pvc}, {"namespace", ns}}},
                          {"spec", {{"volumeName", pv}}}, {"status", {{"phase", "Bound"}}}};
  nlohmann::json vol = {{"apiVersion", "v1"}, {"kind", "PersistentVolume"}, {"metadata", {{"name", pv}}},
                        {"spec", {{"csi", {{"driver", driver}, {"volumeHandle", pv}, {"volumeAttributes", attributes}}}}}};
  control("/_test/kube", {{"/api/v1/namespaces/" + ns + "/persistentvolumeclaims/" + pvc, claim},
                          {"/api/v1/persistentvolumes/" + pv, vol}});
}

TempDir::TempDir() {
  std::random_device rd;
  path = std::filesystem::temp_directory_path() / ("lane-anf-" + std::to_string(getpid()) + "-" + std::to_string(rd()));
  std::filesystem::create_directories(path);
}
TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
}

}  // namespace lane::test

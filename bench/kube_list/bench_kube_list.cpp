// bench_kube_list: how long does listing jobs take on a big project?
// Loads 2,000 MPIJobs (1 launcher + 3 workers each = 8,000 Pods) into the test API server
// (tests/kube/fake_apiserver.py), then times, median of N runs:
//   baseline  the raw paginated GETs (MPIJobs, Jobs, Pods; limit=500) with libcurl, no parsing
//   parsed    KubeClient::list of the same three collections (GET + JSON parse)
//   backend   KubeBackend::list_jobs (same GETs + JSON parsing + joining + status rules)
//   lanectl   the `lanectl list -p bench` process end to end (if the binary is built)
// Usage: bench_kube_list [runs=5]
#include <curl/curl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "submit/kube/kube_backend.h"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

size_t collect(char* d, size_t s, size_t n, void* u) {
  static_cast<std::string*>(u)->append(d, s * n);
  return s * n;
}

std::string http(CURL* c, const std::string& url, const std::string& body = "") {
  std::string out;
  curl_easy_reset(c);
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  if (!body.empty()) curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.c_str());
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &out);
  if (curl_easy_perform(c) != CURLE_OK) throw std::runtime_error("request failed: " + url);
  return out;
}

// All pages of one collection, bytes only.
size_t raw_list(CURL* c, const std::string& base, const std::string& path) {
  size_t bytes = 0;
  std::string cont;
  do {
    std::string url = base + path + "?limit=500" + (cont.empty() ? "" : "&continue=" + cont);
    std::string page = http(c, url);
    bytes += page.size();
    // Find the continue token without a full parse (the baseline must not pay for JSON).
    cont.clear();
    auto pos = page.find("\"continue\": \"");
    if (pos != std::string::npos) {
      pos += 13;
      cont = page.substr(pos, page.find('"', pos) - pos);
    }
  } while (!cont.empty());
  return bytes;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
  const int kJobs = 2000, kPodsPerJob = 4;

  int out[2];
  if (pipe(out) != 0) return 1;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(out[1], 1);
    std::string script = std::string(LANE_SOURCE_DIR) + "/tests/kube/fake_apiserver.py";
    std::string schemas = std::string(LANE_SOURCE_DIR) + "/tests/data/k8s-schemas";
    execl("/usr/bin/python3", "python3", script.c_str(), "--schemas", schemas.c_str(), (char*)nullptr);
    _exit(127);
  }
  close(out[1]);
  FILE* f = fdopen(out[0], "r");
  int port = 0;
  char line[64] = {0};
  if (!fgets(line, sizeof line, f) || sscanf(line, "PORT %d", &port) != 1) {
    std::fprintf(stderr, "bench_kube_list: the test API server did not start (python3-jsonschema installed?)\n");
    return 1;
  }
  const std::string base = fmt::format("http://127.0.0.1:{}", port);
  curl_global_init(CURL_GLOBAL_DEFAULT);
  CURL* c = curl_easy_init();
  auto t0 = Clock::now();
  http(c, base + "/_test/bulk",
       nlohmann::json{{"namespace", "runai-bench"}, {"mpijobs", kJobs}, {"pods_per_job", kPodsPerJob}}.dump());
  double load_s = std::chrono::duration<double>(Clock::now() - t0).count();

  // A kubeconfig for the lanectl process.
  fs::path dir = fs::temp_directory_path() / fmt::format("bench-kube-{}", getpid());
  fs::create_directories(dir);
  std::ofstream(dir / "config") << fmt::format(
      "apiVersion: v1\nkind: Config\ncurrent-context: bench\nclusters:\n- name: bench\n  cluster: {{server: '{}'}}\n"
      "contexts:\n- name: bench\n  context: {{cluster: bench, namespace: runai-bench}}\n",
      base);
  fs::path lanectl = fs::path(LANE_BIN_DIR) / "lanectl";
  bool have_lanectl = fs::exists(lanectl);
  std::string cmd = fmt::format("LANECTL_HOME='{}' LANECTL_BACKEND=kubernetes KUBECONFIG='{}' '{}' list -p bench > '{}' 2>&1",
                                (dir / "home").string(), (dir / "config").string(), lanectl.string(),
                                (dir / "out.txt").string());

  lane::kube::Connection conn;
  conn.server = base;
  conn.ns = "runai-bench";
  auto client = std::make_shared<lane::kube::KubeClient>(conn);
  lane::submit::kube::KubeBackend backend(client, lane::submit::kube::KubeSettings{}, "bench");

  std::vector<double> raw_ms, parsed_ms, backend_ms, cli_ms;
  size_t bytes = 0, jobs_listed = 0;
  for (int i = 0; i < runs; ++i) {
    auto a = Clock::now();
    bytes = raw_list(c, base, "/apis/kubeflow.org/v2beta1/namespaces/runai-bench/mpijobs") +
            raw_list(c, base, "/apis/batch/v1/namespaces/runai-bench/jobs") +
            raw_list(c, base, "/api/v1/namespaces/runai-bench/pods");
    raw_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - a).count());
    a = Clock::now();
    for (const auto* r : {&lane::kube::resources::kMpiJob, &lane::kube::resources::kJob, &lane::kube::resources::kPod}) {
      client->list(*r, "runai-bench");
    }
    parsed_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - a).count());
    a = Clock::now();
    jobs_listed = backend.list_jobs(std::string("bench")).size();
    backend_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - a).count());
    if (have_lanectl) {
      a = Clock::now();
      int rc = std::system(cmd.c_str());
      cli_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - a).count());
      if (rc != 0) {
        std::fprintf(stderr, "lanectl list failed (rc %d); its output is in %s\n", rc, (dir / "out.txt").c_str());
        have_lanectl = false;
        cli_ms.clear();
      }
    }
  }
  size_t rows = 0;
  if (!cli_ms.empty()) {
    std::ifstream in(dir / "out.txt");
    for (std::string l; std::getline(in, l);) rows += l.rfind("bench-", 0) == 0;
  }

  std::printf("bench_kube_list: %d MPIJobs, %d Pods in one namespace, test API server (Python) on 127.0.0.1\n",
              kJobs, kJobs * kPodsPerJob);
  std::printf("load: %.1f s; transferred per listing: %.1f MB; median of %d runs\n\n", load_s, bytes / 1e6, runs);
  std::printf("%-44s %12s %10s\n", "what", "median ms", "vs raw");
  std::printf("%-44s %12.1f %9.2fx\n", "baseline: raw paginated GETs (libcurl, no parse)", median(raw_ms), 1.0);
  std::printf("%-44s %12.1f %9.2fx\n", "KubeClient::list x3 (GET + JSON parse)", median(parsed_ms),
              median(parsed_ms) / median(raw_ms));
  std::printf("%-44s %12.1f %9.2fx   (%zu jobs)\n", "KubeBackend::list_jobs (in process)", median(backend_ms),
              median(backend_ms) / median(raw_ms), jobs_listed);
  if (!cli_ms.empty()) {
    std::printf("%-44s %12.1f %9.2fx   (%zu rows)\n", "lanectl list -p bench (process)", median(cli_ms),
                median(cli_ms) / median(raw_ms), rows);
  } else {
    std::printf("%-44s %12s\n", "lanectl list -p bench (process)", "not built");
  }
  curl_easy_cleanup(c);
  kill(pid, SIGTERM);
  waitpid(pid, nullptr, 0);
  fs::remove_all(dir);
  return 0;
}

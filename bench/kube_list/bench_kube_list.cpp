// bench_kube_list: how long does listing jobs take on a big project?
// Loads 2,000 MPIJobs (1 launcher + 3 workers each = 8,000 Pods) into the test API server
// (tests/kube/fake_apiserver.py), then times, median of N runs (wall time, and the CPU time
// of the client: this process, or the lanectl child):
//   baseline  the raw paginated GETs (MPIJobs, Jobs, Pods; limit=500) with libcurl, no parsing
//   summary   KubeClient::list_pages of the same three collections parsed into the summaries
//             list reads (list_page_parse: SAX, no JSON trees)
//   tree      KubeClient::list of the same (GET + nlohmann DOM parse; what other callers use)
//   backend   KubeBackend::list_jobs (what `list` calls: summaries + join + status rules)
//   lanectl   the `lanectl list -p bench` process end to end (if the binary is built)
// It prints the machine (CPUs, model) and the load average before and after, since wall
// times on a shared machine only compare within one run (hence the ratios to the baseline).
// Usage: bench_kube_list [runs=5]
#include <curl/curl.h>
#include <signal.h>
#include <sys/resource.h>
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
#include "submit/kube/list_page_parse.h"

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

// CPU time (user + system) in ms of this process, or of its waited-for children.
double cpu_ms(int who) {
  rusage u{};
  getrusage(who, &u);
  auto ms = [](const timeval& t) { return t.tv_sec * 1e3 + t.tv_usec / 1e3; };
  return ms(u.ru_utime) + ms(u.ru_stime);
}

// The value of the first "key : value" line of /proc/cpuinfo with that key.
std::string cpuinfo(const std::string& key) {
  std::ifstream in("/proc/cpuinfo");
  for (std::string l; std::getline(in, l);) {
    auto colon = l.find(':');
    if (l.rfind(key, 0) == 0 && colon != std::string::npos) return l.substr(std::min(l.size(), colon + 2));
  }
  return "?";
}

std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c;
  in >> a >> b >> c;
  return a + " " + b + " " + c;
}

// One timed row: wall ms and client CPU ms of each run.
struct Row {
  std::vector<double> wall, cpu;
  template <class F>
  void time(int who, F&& f) {
    double c0 = cpu_ms(who);
    auto a = Clock::now();
    f();
    wall.push_back(std::chrono::duration<double, std::milli>(Clock::now() - a).count());
    cpu.push_back(cpu_ms(who) - c0);
  }
};

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

  const std::string load_before = load_average();
  Row raw, summary, tree, backend_row, cli;
  size_t bytes = 0, jobs_listed = 0, summarised = 0;
  namespace res = lane::kube::resources;
  for (int i = 0; i < runs; ++i) {
    raw.time(RUSAGE_SELF, [&] {
      bytes = raw_list(c, base, "/apis/kubeflow.org/v2beta1/namespaces/runai-bench/mpijobs") +
              raw_list(c, base, "/apis/batch/v1/namespaces/runai-bench/jobs") +
              raw_list(c, base, "/api/v1/namespaces/runai-bench/pods");
    });
    summary.time(RUSAGE_SELF, [&] {
      std::vector<lane::submit::kube::WorkloadSummary> workloads;
      std::vector<lane::submit::kube::PodSummary> pods;
      for (const auto* r : {&res::kMpiJob, &res::kJob}) {
        client->list_pages(
            *r, "runai-bench", {},
            [&](const std::string& body) { return lane::submit::kube::parse_workload_page(body, r->kind, workloads); },
            [&] { workloads.clear(); });
      }
      client->list_pages(
          res::kPod, "runai-bench", {},
          [&](const std::string& body) { return lane::submit::kube::parse_pod_page(body, pods); },
          [&] { pods.clear(); });
      summarised = workloads.size() + pods.size();
    });
    tree.time(RUSAGE_SELF, [&] {
      for (const auto* r : {&res::kMpiJob, &res::kJob, &res::kPod}) client->list(*r, "runai-bench");
    });
    backend_row.time(RUSAGE_SELF, [&] { jobs_listed = backend.jobs().list_jobs(std::string("bench")).size(); });
    if (have_lanectl) {
      int rc = 0;
      cli.time(RUSAGE_CHILDREN, [&] { rc = std::system(cmd.c_str()); });
      if (rc != 0) {
        std::fprintf(stderr, "lanectl list failed (rc %d); its output is in %s\n", rc, (dir / "out.txt").c_str());
        have_lanectl = false;
        cli = Row{};
      }
    }
  }
  size_t rows = 0;
  if (!cli.wall.empty()) {
    std::ifstream in(dir / "out.txt");
    for (std::string l; std::getline(in, l);) rows += l.rfind("bench-", 0) == 0;
  }

  std::printf("bench_kube_list: %d MPIJobs, %d Pods in one namespace, test API server (Python) on 127.0.0.1\n",
              kJobs, kJobs * kPodsPerJob);
  std::printf("machine: %ld CPUs (nproc), %s\n", sysconf(_SC_NPROCESSORS_ONLN),
              cpuinfo("model name").c_str());
  std::printf("load average (1/5/15 min): %s before, %s after\n", load_before.c_str(), load_average().c_str());
  std::printf("bulk load into the server: %.1f s; transferred per listing: %.1f MB; median of %d runs; "
              "CPU = client process only\n\n",
              load_s, bytes / 1e6, runs);
  const double base_ms = median(raw.wall);
  auto print = [&](const char* what, const Row& r, const std::string& note) {
    std::printf("%-52s %10.1f %9.2fx %9.1f%s\n", what, median(r.wall), median(r.wall) / base_ms, median(r.cpu),
                note.c_str());
  };
  std::printf("%-52s %10s %10s %9s\n", "what", "wall ms", "vs raw", "CPU ms");
  print("baseline: raw paginated GETs (libcurl, no parse)", raw, "");
  print("client: list_pages x3 + summary parse (list's path)", summary, fmt::format("   ({} objects)", summarised));
  print("client: KubeClient::list x3 (GET + DOM parse)", tree, "");
  print("KubeBackend::list_jobs (in process)", backend_row, fmt::format("   ({} jobs)", jobs_listed));
  if (!cli.wall.empty()) {
    print("lanectl list -p bench (process)", cli, fmt::format("   ({} rows)", rows));
  } else {
    std::printf("%-52s %10s\n", "lanectl list -p bench (process)", "not built");
  }
  curl_easy_cleanup(c);
  kill(pid, SIGTERM);
  waitpid(pid, nullptr, 0);
  fs::remove_all(dir);
  return 0;
}

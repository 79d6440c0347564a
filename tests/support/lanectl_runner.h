#pragma once
// Runs the built lanectl as a real process with its own LANECTL_HOME, capturing stdout, stderr
// and the exit code: with the local backend, or with the Kubernetes backend against a test API
// server (a kubeconfig in LANECTL_HOME). The one runner of the tests that spawn lanectl
// (tests/cli, local_backend, kube, submit_kube, reliability); tests/cli/test_cli_inprocess.cpp
// runs verbs without a process.
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "test_paths.h"

namespace lane::test {

struct RunResult {
  int code = -1;
  std::string out, err;
};

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class Lanectl {
 public:
  // The local backend.
  Lanectl() {
    env_["LANECTL_HOME"] = home_.string();
    env_["LANECTL_GRACE_SECONDS"] = "2";
    env_["LANECTL_BACKEND"] = "local";
    env_["OMPI_ALLOW_RUN_AS_ROOT"] = "1";
    env_["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1";
    env_["OMPI_MCA_plm_rsh_agent"] = "";  // single machine: never look for ssh
  }
  // The Kubernetes backend against the API server at `server_url` (a bearer `token` when given).
  // Nothing to delete at the end: the test API server goes away with the test.
  explicit Lanectl(const std::string& server_url, const std::string& token = "") : projects_() {
    const auto kubeconfig = home_ / "kubeconfig";
    std::ofstream(kubeconfig)
        << "apiVersion: v1\nkind: Config\ncurrent-context: aks\nclusters:\n- name: aks\n  cluster: {server: '"
        << server_url << "'}\nusers:\n- name: u\n  user: {" << (token.empty() ? "" : "token: " + token)
        << "}\ncontexts:\n- name: aks\n  context: {cluster: aks, user: u}\n";
    env_["LANECTL_HOME"] = (home_ / "home").string();
    env_["LANECTL_BACKEND"] = "kubernetes";
    env_["KUBECONFIG"] = kubeconfig.string();
  }
  ~Lanectl() {
    // Stop whatever the test left running, then remove the state.
    for (const auto& project : projects_) run({"delete", "--all", "-p", project});
    std::error_code ec;
    std::filesystem::remove_all(home_, ec);
  }
  Lanectl(const Lanectl&) = delete;
  Lanectl& operator=(const Lanectl&) = delete;

  const std::filesystem::path& home() const { return home_; }
  void set_env(const std::string& k, const std::string& v) { env_[k] = v; }
  void track_project(const std::string& p) { projects_.push_back(p); }

  // Starts lanectl without waiting; returns the pid. Output goes to files under home/.out/.
  pid_t start(const std::vector<std::string>& args, const std::string& tag) const {
    const std::string exe = (bin_dir() / "lanectl").string();
    std::vector<std::string> argv{exe};
    argv.insert(argv.end(), args.begin(), args.end());
    return spawn(argv, tag, false);
  }

  RunResult finish(pid_t pid, const std::string& tag) const {
    int status = 0;
    waitpid(pid, &status, 0);
    RunResult r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.out = slurp(home_ / ".out" / (tag + ".out"));
    r.err = slurp(home_ / ".out" / (tag + ".err"));
    return r;
  }

  RunResult run(const std::vector<std::string>& args) const {
    const std::string tag = next_tag();
    return finish(start(args, tag), tag);
  }

  // `line` split by the shell (quotes work), `input` (printf format) on stdin, else /dev/null;
  // `out` holds stdout and stderr together, in order.
  RunResult run_shell(const std::string& line, const std::string& input = "") const {
    const std::string exe = "'" + (bin_dir() / "lanectl").string() + "' " + line;
    const std::string script = input.empty() ? "exec " + exe + " </dev/null" : "printf '" + input + "' | " + exe;
    const std::string tag = next_tag();
    return finish(spawn({"/bin/sh", "-c", script}, tag, true), tag);
  }

  // describe -o json of a job (empty object when it does not exist).
  nlohmann::json job(const std::string& name, const std::string& project = "default") const {
    auto r = run({"describe", "job", name, "-p", project, "-o", "json"});
    if (r.code != 0) return nlohmann::json::object();
    return nlohmann::json::parse(r.out);
  }

  // Polls until the job's status is one of `wanted`; returns the last document seen.
  nlohmann::json wait_status(const std::string& name, const std::vector<std::string>& wanted,
                             const std::string& project = "default", double timeout_s = 30) const {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(static_cast<int>(timeout_s * 1000));
    nlohmann::json doc;
    while (std::chrono::steady_clock::now() < deadline) {
      doc = job(name, project);
      std::string status = doc.value("status", "");
      for (const auto& w : wanted)
        if (status == w) return doc;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return doc;
  }

 private:
  static std::filesystem::path make_home() {
    char tmpl[] = "/tmp/lanectl-test-XXXXXX";
    if (!mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
    return tmpl;
  }
  static std::string next_tag() {
    static std::atomic<int> counter{0};  // tests run commands from several threads
    return "run-" + std::to_string(getpid()) + "-" + std::to_string(counter++);
  }
  // Runs argv[0] with this runner's environment; stdout to home/.out/TAG.out, stderr to TAG.err
  // (to TAG.out too when `merge`).
  pid_t spawn(const std::vector<std::string>& args, const std::string& tag, bool merge) const {
    std::filesystem::create_directories(home_ / ".out");
    const std::string out = (home_ / ".out" / (tag + ".out")).string();
    const std::string err = (home_ / ".out" / (tag + ".err")).string();
    // What the test has printed but not yet written (Catch2's "Filters: ..." line, stdout being a
    // pipe under ctest) would otherwise be written once more by every child's freopen.
    std::fflush(nullptr);
    pid_t pid = fork();
    if (pid == 0) {
      freopen(out.c_str(), "w", stdout);
      if (merge) {
        std::fclose(std::fopen(err.c_str(), "w"));
        dup2(fileno(stdout), fileno(stderr));
      } else {
        freopen(err.c_str(), "w", stderr);
      }
      for (const auto& [k, v] : env_) setenv(k.c_str(), v.c_str(), 1);
      std::vector<char*> argv;
      for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
    return pid;
  }

  std::filesystem::path home_ = make_home();
  std::map<std::string, std::string> env_;
  std::vector<std::string> projects_{"default"};
};

}  // namespace lane::test

#pragma once
// Runs the built lanectl as a real process with its own LANECTL_HOME, capturing stdout,
// stderr and the exit code. Shared by tests/cli and tests/local_backend.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
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
  Lanectl() {
    char tmpl[] = "/tmp/lanectl-test-XXXXXX";
    if (!mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
    home_ = tmpl;
    env_["LANECTL_HOME"] = home_.string();
    env_["LANECTL_GRACE_SECONDS"] = "2";
    env_["LANECTL_BACKEND"] = "local";
    env_["OMPI_ALLOW_RUN_AS_ROOT"] = "1";
    env_["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1";
    env_["OMPI_MCA_plm_rsh_agent"] = "";  // single machine: never look for ssh
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
    std::filesystem::create_directories(home_ / ".out");
    std::string out = (home_ / ".out" / (tag + ".out")).string();
    std::string err = (home_ / ".out" / (tag + ".err")).string();
    pid_t pid = fork();
    if (pid == 0) {
      freopen(out.c_str(), "w", stdout);
      freopen(err.c_str(), "w", stderr);
      for (const auto& [k, v] : env_) setenv(k.c_str(), v.c_str(), 1);
      std::string exe = (bin_dir() / "lanectl").string();
      std::vector<char*> argv{const_cast<char*>(exe.c_str())};
      for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      execv(exe.c_str(), argv.data());
      _exit(127);
    }
    return pid;
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
    static int counter = 0;
    std::string tag = "run-" + std::to_string(getpid()) + "-" + std::to_string(counter++);
    return finish(start(args, tag), tag);
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
  std::filesystem::path home_;
  std::map<std::string, std::string> env_;
  std::vector<std::string> projects_{"default"};
};

}  // namespace lane::test

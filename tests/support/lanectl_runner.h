#pragma once
// Runs the real lanectl binary with the kubernetes backend against a test API server: a
// kubeconfig in a temporary folder (with a bearer token when given), KUBECONFIG pointing to it,
// stdout and stderr captured together.
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "fake_server.h"
#include "test_paths.h"

namespace lane::test {

struct CliResult {
  int rc;
  std::string out;
};

class LanectlRunner {
 public:
  explicit LanectlRunner(const FakeApiServer& server, const std::string& token = "") {
    std::ofstream(dir_.path / "kubeconfig")
        << "apiVersion: v1\nkind: Config\ncurrent-context: aks\nclusters:\n- name: aks\n  cluster: {server: '"
        << server.url() << "'}\nusers:\n- name: u\n  user: {" << (token.empty() ? "" : "token: " + token)
        << "}\ncontexts:\n- name: aks\n  context: {cluster: aks, user: u}\n";
    env_ = "LANECTL_HOME='" + (dir_.path / "home").string() + "' LANECTL_BACKEND=kubernetes KUBECONFIG='" +
           (dir_.path / "kubeconfig").string() + "' ";
  }
  // `input` (printf format) is piped to stdin; without it stdin is /dev/null.
  CliResult run(const std::string& args, const std::string& input = "") {
    const std::string cmd = (input.empty() ? "" : "printf '" + input + "' | ") + env_ + "'" +
                            (bin_dir() / "lanectl").string() + "' " + args + (input.empty() ? " </dev/null" : "") +
                            " 2>&1";
    FILE* p = popen(cmd.c_str(), "r");
    std::string out;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    const int status = pclose(p);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
  }

 private:
  TempDir dir_;
  std::string env_;
};

}  // namespace lane::test

// Runs a client-go credential plugin (kubelogin, aws, gke-gcloud-auth-plugin, ...) and reads
// the ExecCredential it prints. Contract: client.authentication.k8s.io v1 / v1beta1.
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "kube/credentials.h"

extern char** environ;

namespace lane::kube {
namespace {

std::string exec_info(const ExecConfig& exec, const Connection& cluster) {
  nlohmann::json info = {{"apiVersion", exec.api_version},
                         {"kind", "ExecCredential"},
                         {"spec", {{"interactive", exec.interactive_mode == "Always" ||
                                                       (exec.interactive_mode == "IfAvailable" && isatty(0))}}}};
  if (exec.provide_cluster_info) {
    nlohmann::json c = {{"server", cluster.server}, {"insecure-skip-tls-verify", cluster.insecure_skip_tls_verify}};
    if (!cluster.ca_pem.empty()) {
      static const char* kB64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
      std::string out;
      const std::string& in = cluster.ca_pem;
      for (size_t i = 0; i < in.size(); i += 3) {
        unsigned n = static_cast<unsigned char>(in[i]) << 16;
        if (i + 1 < in.size()) n |= static_cast<unsigned char>(in[i + 1]) << 8;
        if (i + 2 < in.size()) n |= static_cast<unsigned char>(in[i + 2]);
        out += kB64[(n >> 18) & 63];
        out += kB64[(n >> 12) & 63];
        out += i + 1 < in.size() ? kB64[(n >> 6) & 63] : '=';
        out += i + 2 < in.size() ? kB64[n & 63] : '=';
      }
      c["certificate-authority-data"] = out;
    }
    info["spec"]["cluster"] = c;
  }
  return info.dump();
}

std::string plugin_failed(const ExecConfig& exec, const std::string& why) {
  std::string msg = fmt::format("credential plugin '{}' {}", exec.command, why);
  if (!exec.install_hint.empty()) msg += "\n" + exec.install_hint;
  return msg;
}

}  // namespace

ExecResult run_exec_plugin(const ExecConfig& exec, const Connection& cluster) {
  std::string command = exec.command;
  // A command with a slash but not absolute is relative to the kubeconfig's folder.
  if (command.find('/') != std::string::npos && command[0] != '/') command = (exec.base_dir / command).string();

  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e) env_strings.emplace_back(*e);
  for (const auto& [k, v] : exec.env) env_strings.push_back(k + "=" + v);
  env_strings.push_back("KUBERNETES_EXEC_INFO=" + exec_info(exec, cluster));
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_strings{command};
  argv_strings.insert(argv_strings.end(), exec.args.begin(), exec.args.end());
  std::vector<char*> argv;
  for (auto& s : argv_strings) argv.push_back(s.data());
  argv.push_back(nullptr);

  int out_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) throw lane::Error("pipe: " + std::string(std::strerror(errno)));
  pid_t pid = fork();
  if (pid < 0) throw lane::Error("fork: " + std::string(std::strerror(errno)));
  if (pid == 0) {
    dup2(out_pipe[1], 1);
    if (exec.interactive_mode == "Never") {
      int devnull = open("/dev/null", O_RDONLY);
      if (devnull >= 0) dup2(devnull, 0);
    }
    // stderr stays connected: plugins print login prompts (device codes) there.
    execvpe(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  close(out_pipe[1]);
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = read(out_pipe[0], buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR)) {
    if (n > 0) out.append(buf, static_cast<size_t>(n));
  }
  close(out_pipe[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
    throw lane::Error(plugin_failed(exec, "could not be started (is it installed and on PATH?)"));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw lane::Error(plugin_failed(exec, fmt::format("failed with exit status {}",
                                                      WIFEXITED(status) ? WEXITSTATUS(status) : -1)));
  }
  auto cred = nlohmann::json::parse(out, nullptr, false);
  if (!cred.is_object() || cred.value("kind", "") != "ExecCredential") {
    throw lane::Error(plugin_failed(exec, "did not print an ExecCredential JSON object"));
  }
  if (cred.value("apiVersion", "") != exec.api_version) {
    throw lane::Error(plugin_failed(exec, fmt::format("answered apiVersion '{}' but the kubeconfig asks for '{}'",
                                                      cred.value("apiVersion", ""), exec.api_version)));
  }
  const auto& st = cred.contains("status") ? cred["status"] : nlohmann::json::object();
  ExecResult r;
  r.credential.bearer_token = st.value("token", "");
  r.credential.client_cert_pem = st.value("clientCertificateData", "");
  r.credential.client_key_pem = st.value("clientKeyData", "");
  if (r.credential.bearer_token.empty() && r.credential.client_cert_pem.empty()) {
    throw lane::Error(plugin_failed(exec, "returned neither status.token nor status.clientCertificateData"));
  }
  if (r.credential.client_cert_pem.empty() != r.credential.client_key_pem.empty()) {
    throw lane::Error(plugin_failed(exec, "must return both clientCertificateData and clientKeyData"));
  }
  std::string exp = st.value("expirationTimestamp", "");
  if (!exp.empty()) {
    r.expires = parse_rfc3339(exp);
    if (!r.expires) throw lane::Error(plugin_failed(exec, "returned an invalid status.expirationTimestamp"));
  }
  return r;
}

}  // namespace lane::kube

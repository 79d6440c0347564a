// kubeconfig loading (merge rules, credentials, exec plugins, in-cluster) without a server.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <thread>

#include "common/error.h"
#include "fake_server.h"
#include "kube/credentials.h"
#include "kube/kubeconfig.h"

using namespace lane::kube;
namespace fs = std::filesystem;

namespace {
void write(const fs::path& p, const std::string& text) {
  std::ofstream(p) << text;
}
}  // namespace

TEST_CASE("kubeconfig: KUBECONFIG files merge with the first definition winning", "[kube][fast]") {
  lane::test::TempDir dir;
  write(dir.path / "ca.pem", "CA-FROM-FILE");
  write(dir.path / "a.yaml", R"(apiVersion: v1
kind: Config
current-context: aks
clusters:
- name: aks
  cluster:
    server: https://aks.example:443/
    certificate-authority: ca.pem
contexts:
- name: aks
  context: {cluster: aks, user: alice, namespace: runai-lane-detection}
users:
- name: alice
  user: {token: first-token}
)");
  // The second file redefines alice (ignored), adds a context and sets another current-context.
  write(dir.path / "b.yaml", R"(apiVersion: v1
kind: Config
current-context: other
clusters:
- name: other
  cluster:
    server: https://other:6443
    certificate-authority-data: Q0EtREFUQQ==
    insecure-skip-tls-verify: false
contexts:
- name: other
  context: {cluster: other, user: alice}
- name: mtls
  context: {cluster: other, user: bob}
users:
- name: alice
  user: {token: second-token}
- name: bob
  user: {client-certificate: certs/bob.crt, client-key-data: S0VZLVBFTQ==}
)");
  std::filesystem::create_directories(dir.path / "certs");
  write(dir.path / "certs/bob.crt", "CERT-PEM");
  KubeconfigOptions o;
  o.kubeconfig_env = (dir.path / "a.yaml").string() + "::" + (dir.path / "missing.yaml").string() + ":" +
                     (dir.path / "b.yaml").string();
  Connection c = load_kubeconfig(o);
  CHECK(c.context == "aks");
  CHECK(c.server == "https://aks.example:443");
  CHECK(c.ca_pem == "CA-FROM-FILE");  // relative to the kubeconfig's folder
  CHECK(c.token == "first-token");
  CHECK(c.ns == "runai-lane-detection");
  CHECK_FALSE(c.insecure_skip_tls_verify);

  o.context = "other";
  Connection d = load_kubeconfig(o);
  CHECK(d.server == "https://other:6443");
  CHECK(d.ca_pem == "CA-DATA");        // base64 -data form
  CHECK(d.token == "first-token");     // alice from a.yaml wins
  CHECK(d.ns == "default");

  o.context = "mtls";
  Connection m = load_kubeconfig(o);
  CHECK(m.client_cert_pem == "CERT-PEM");  // file form, relative to b.yaml
  CHECK(m.client_key_pem == "KEY-PEM");    // -data form
  CHECK(m.token.empty());

  o.context = "nope";
  CHECK_THROWS_WITH(load_kubeconfig(o), Catch::Contains("context 'nope' is not defined"));
}

TEST_CASE("kubeconfig: exec plugin v1 is re-run when its credential expires", "[kube][fast]") {
  lane::test::TempDir dir;
  fs::path counter = dir.path / "runs";
  fs::path plugin = dir.path / "kubelogin";
  // Prints an already-expired token the first time, then a long-lived one; counts its runs.
  write(plugin, "#!/bin/sh\n"
                "echo x >> '" + counter.string() + "'\n"
                "n=$(wc -l < '" + counter.string() + "')\n"
                "case \"$KUBERNETES_EXEC_INFO\" in *ExecCredential*) ;; *) exit 3;; esac\n"
                "if [ \"$n\" = 1 ]; then exp=2000-01-01T00:00:00Z; else exp=2999-01-01T00:00:00Z; fi\n"
                "echo '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\","
                "\"status\":{\"token\":\"tok-'$n'\",\"expirationTimestamp\":\"'$exp'\"}}'\n");
  fs::permissions(plugin, fs::perms::owner_all);
  write(dir.path / "config", R"(apiVersion: v1
kind: Config
current-context: aks
clusters:
- {name: aks, cluster: {server: "https://aks:443"}}
contexts:
- {name: aks, context: {cluster: aks, user: aad}}
users:
- name: aad
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: ./kubelogin
      args: [get-token, --login, azurecli, --server-id, 6dae42f8-4368-4678-94ff-3960e28e3630]
      interactiveMode: Never
)");
  KubeconfigOptions o;
  o.kubeconfig_env = (dir.path / "config").string();
  Connection c = load_kubeconfig(o);
  REQUIRE(c.exec);
  CHECK(c.exec->args.size() == 5);
  CredentialSource creds(c);
  CHECK(creds.current().bearer_token == "tok-1");  // expired on arrival
  CHECK(creds.current().bearer_token == "tok-2");  // so it ran again
  CHECK(creds.current().bearer_token == "tok-2");  // cached until 2999
  creds.invalidate();                              // a 401 forces a fresh one
  CHECK(creds.current().bearer_token == "tok-3");
}

TEST_CASE("kubeconfig: exec plugin errors name the plugin, never the output", "[kube][fast]") {
  lane::test::TempDir dir;
  fs::path plugin = dir.path / "bad";
  write(plugin, "#!/bin/sh\necho '{\"apiVersion\":\"client.authentication.k8s.io/v1beta1\",\"kind\":\"ExecCredential\","
                "\"status\":{\"token\":\"SECRET-VALUE\"}}'\n");
  fs::permissions(plugin, fs::perms::owner_all);
  Connection c;
  c.server = "https://x";
  c.exec = ExecConfig{"client.authentication.k8s.io/v1", plugin.string(), {}, {}, "Never", false,
                      "install it with az aks install-cli", dir.path};
  CredentialSource creds(c);
  try {
    creds.current();
    FAIL("expected an error");
  } catch (const lane::Error& e) {
    std::string msg = e.what();
    CHECK(msg.find("apiVersion") != std::string::npos);
    CHECK(msg.find("install it with az aks install-cli") != std::string::npos);
    CHECK(msg.find("SECRET-VALUE") == std::string::npos);
  }
  // v1 requires interactiveMode.
  write(dir.path / "config", "apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters: [{name: k, cluster: {server: "
                             "'https://k'}}]\ncontexts: [{name: c, context: {cluster: k, user: u}}]\nusers: [{name: u, "
                             "user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: x}}}]\n");
  KubeconfigOptions o;
  o.kubeconfig_env = (dir.path / "config").string();
  CHECK_THROWS_WITH(load_kubeconfig(o), Catch::Contains("interactiveMode is required"));
}

TEST_CASE("kubeconfig: in-cluster service account, token re-read when it rotates", "[kube][fast]") {
  lane::test::TempDir dir;
  write(dir.path / "token", "token-one\n");
  write(dir.path / "ca.crt", "CA");
  write(dir.path / "namespace", "runai-lane-detection");
  setenv("KUBERNETES_SERVICE_HOST", "10.0.0.1", 1);
  setenv("KUBERNETES_SERVICE_PORT", "443", 1);
  Connection c = in_cluster_config(dir.path);
  unsetenv("KUBERNETES_SERVICE_HOST");
  unsetenv("KUBERNETES_SERVICE_PORT");
  CHECK(c.server == "https://10.0.0.1:443");
  CHECK(c.ca_pem == "CA");
  CHECK(c.ns == "runai-lane-detection");
  CredentialSource creds(c);
  CHECK(creds.current().bearer_token == "token-one");
  // The kubelet swaps the projected token atomically; a new mtime means a new token.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  write(dir.path / "token.new", "token-two\n");
  fs::last_write_time(dir.path / "token.new", fs::last_write_time(dir.path / "token") + std::chrono::seconds(5));
  fs::rename(dir.path / "token.new", dir.path / "token");
  CHECK(creds.current().bearer_token == "token-two");
  CHECK_THROWS_WITH(in_cluster_config(dir.path), Catch::Contains("KUBERNETES_SERVICE_HOST"));
}

TEST_CASE("kubeconfig: config project writes the context namespace", "[kube][fast]") {
  lane::test::TempDir dir;
  write(dir.path / "config", "apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters: [{name: k, cluster: {server: "
                             "'https://k'}}]\ncontexts: [{name: c, context: {cluster: k}}]\n");
  KubeconfigOptions o;
  o.kubeconfig_env = (dir.path / "config").string();
  fs::permissions(dir.path / "config", fs::perms::owner_read | fs::perms::owner_write);
  Connection c = load_kubeconfig(o);
  CHECK(c.ns == "default");
  set_context_namespace(c, "runai-lane-detection");
  CHECK(load_kubeconfig(o).ns == "runai-lane-detection");
  CHECK(fs::status(dir.path / "config").permissions() == (fs::perms::owner_read | fs::perms::owner_write));
}

TEST_CASE("kubeconfig: config project through a symlinked kubeconfig rewrites its target, the link stays",
          "[kube][fast]") {
  lane::test::TempDir dir;
  fs::create_directories(dir.path / "managed");
  write(dir.path / "managed" / "config", "apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters: [{name: k, "
                                         "cluster: {server: 'https://k'}}]\ncontexts: [{name: c, context: {cluster: k}}]\n");
  fs::create_symlink(dir.path / "managed" / "config", dir.path / "config");
  KubeconfigOptions o;
  o.kubeconfig_env = (dir.path / "config").string();
  set_context_namespace(load_kubeconfig(o), "runai-team");
  CHECK(fs::is_symlink(dir.path / "config"));
  CHECK(load_kubeconfig(o).ns == "runai-team");
  CHECK(fs::read_symlink(dir.path / "config") == dir.path / "managed" / "config");
}

TEST_CASE("kubeconfig: a broken file, an unreadable CA file and an unknown context name the file and the fix",
          "[kube][fast]") {
  lane::test::TempDir dir;
  KubeconfigOptions o;
  o.kubeconfig_env = (dir.path / "config").string();
  write(dir.path / "config", "apiVersion: v1\nkind: Config\nclusters: [\n  - name: k\n");
  CHECK_THROWS_WITH(load_kubeconfig(o), Catch::StartsWith((dir.path / "config").string() + ": not valid YAML: error at "
                                                                                           "line") &&
                                            !Catch::Contains("yaml-cpp"));
  write(dir.path / "config", "apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters: [{name: k, cluster: "
                             "{server: 'https://k', certificate-authority: missing-ca.pem}}]\n"
                             "contexts: [{name: c, context: {cluster: k}}, {name: d, context: {cluster: k}}]\n");
  CHECK_THROWS_WITH(load_kubeconfig(o),
                    Catch::Contains((dir.path / "config").string() + ": certificate-authority: cannot read '" +
                                    (dir.path / "missing-ca.pem").string() + "'") &&
                        Catch::Contains("put the PEM text in 'certificate-authority-data'"));
  o.context = "nosuch";
  try {
    load_kubeconfig(o);
    FAIL("expected a usage error");
  } catch (const lane::UsageError& e) {
    CHECK_THAT(e.what(), Catch::Contains("context 'nosuch' is not defined in the kubeconfig (it defines c, d); "
                                         "pass one of them to --context"));
  }
}

#pragma once
// Where the API server is and how to authenticate, read the way kubectl reads it:
// KUBECONFIG (several files merged, first definition wins), ~/.kube/config, or the pod's
// service account (in-cluster). Certificates and keys are loaded into memory as PEM; a
// token file and an exec plugin are kept as sources because their contents change.
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace lane::kube {

// users[].user.exec: a credential plugin such as kubelogin (client.authentication.k8s.io).
struct ExecConfig {
  std::string api_version;  // client.authentication.k8s.io/v1 or /v1beta1
  std::string command;
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;
  std::string interactive_mode;  // Never | IfAvailable | Always
  bool provide_cluster_info = false;
  std::string install_hint;
  std::filesystem::path base_dir;  // relative commands resolve against the kubeconfig's folder
};

struct Connection {
  std::string server;              // https://host:port
  std::string ca_pem;              // empty: the system trust store
  bool insecure_skip_tls_verify = false;
  std::string tls_server_name;
  std::string client_cert_pem;     // mutual TLS (may also come from an exec plugin)
  std::string client_key_pem;
  std::string token;               // static bearer token
  std::filesystem::path token_file;  // re-read when it changes (projected service-account tokens)
  std::optional<ExecConfig> exec;
  std::string ns = "default";      // the context's namespace
  std::string context;             // the context name ("in-cluster" for service accounts)
  std::string user;                // the context's user entry (a name, never its credentials)
  std::filesystem::path config_file;  // the file that defines the context (empty in-cluster)
};

struct KubeconfigOptions {
  std::optional<std::string> context;         // --context
  std::optional<std::string> ns;              // --namespace
  std::optional<std::string> kubeconfig_env;  // overrides $KUBECONFIG (tests)
  std::optional<std::filesystem::path> home;  // overrides $HOME (tests)
};

// The options for lanectl's global --context and --kubeconfig (each empty when not given).
// Throws UsageError when `file` is given and is not a file, as kubectl refuses it.
KubeconfigOptions chosen_kubeconfig(const std::string& context, const std::string& file);

// The files KUBECONFIG names (':'-separated, empty entries skipped), or ~/.kube/config.
std::vector<std::filesystem::path> kubeconfig_files(const KubeconfigOptions& options);

// Merges the files and resolves the current (or chosen) context. Throws lane::Error naming
// the file and the field for malformed input, a missing context, cluster or user.
Connection load_kubeconfig(const KubeconfigOptions& options = {});

// The pod's service account: KUBERNETES_SERVICE_HOST/PORT and the files under `sa_dir`
// (token, ca.crt, namespace). Throws lane::Error when not running in a pod.
Connection in_cluster_config(
    const std::filesystem::path& sa_dir = "/var/run/secrets/kubernetes.io/serviceaccount");

// In-cluster when KUBERNETES_SERVICE_HOST is set and no kubeconfig file exists, as client-go's
// default loading rules do; otherwise the kubeconfig.
Connection load_default_connection(const KubeconfigOptions& options = {});

// Writes `ns` as the namespace of the context in the file that defines it (runai config
// project). Keeps the rest of the file; atomic replace.
void set_context_namespace(const Connection& connection, const std::string& ns);

std::string base64_decode(const std::string& text);  // throws lane::Error on bad input

// What is wrong with a cluster's server URL (scheme other than https/http, no host, a port
// outside 1-65535), or nullopt. Checked when the kubeconfig is read: such a URL fails at once.
std::optional<std::string> server_url_problem(const std::string& url);

}  // namespace lane::kube

#include "kube/kubeconfig.h"

#include <optional>

#include <cstdlib>
#include <map>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "common/atomic_file.h"
#include "common/error.h"
#include "net/redact.h"

namespace lane::kube {

std::optional<std::string> server_url_problem(const std::string& url) {
  const size_t sep = url.find("://");
  if (sep == std::string::npos) return std::string("no scheme");
  const std::string scheme = url.substr(0, sep);
  if (scheme != "https" && scheme != "http") return "unsupported scheme '" + scheme + "' (only https and http)";
  std::string authority = url.substr(sep + 3);
  authority = authority.substr(0, authority.find('/'));
  if (const size_t at = authority.rfind('@'); at != std::string::npos) authority = authority.substr(at + 1);
  std::string host = authority, port;
  if (!authority.empty() && authority[0] == '[') {  // [IPv6]:port
    const size_t close = authority.find(']');
    if (close == std::string::npos) return std::string("unterminated IPv6 address");
    host = authority.substr(0, close + 1);
    if (close + 1 < authority.size()) {
      if (authority[close + 1] != ':') return std::string("garbage after the IPv6 address");
      port = authority.substr(close + 2);
      if (port.empty()) return std::string("empty port");
    }
  } else if (const size_t colon = authority.rfind(':'); colon != std::string::npos) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
    if (port.empty()) return std::string("empty port");
  }
  if (host.empty()) return std::string("no host");
  if (!port.empty()) {
    if (port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos) return "invalid port '" + port + "'";
    const int p = std::stoi(port);
    if (p < 1 || p > 65535) return "invalid port " + port + " (1-65535)";
  }
  return std::nullopt;
}

namespace fs = std::filesystem;

std::string base64_decode(const std::string& text) {
  static const std::string kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  unsigned buffer = 0;
  int bits = 0;
  for (char c : text) {
    if (c == '=' || c == '\n' || c == '\r' || c == ' ') continue;
    auto pos = kAlphabet.find(c);
    if (pos == std::string::npos) throw lane::Error("invalid base64 data");
    buffer = (buffer << 6) | static_cast<unsigned>(pos);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((buffer >> bits) & 0xFF);
    }
  }
  return out;
}

namespace {

// One named entry (cluster, user or context) and the file it came from.
struct Entry {
  YAML::Node node;
  fs::path file;
};

struct Merged {
  std::map<std::string, Entry> clusters, users, contexts;
  std::string current_context;
  fs::path current_context_file;
};

std::string str(const YAML::Node& n, const char* key) {
  auto v = n[key];
  return v && v.IsScalar() ? v.as<std::string>() : std::string();
}

bool boolean(const YAML::Node& n, const char* key) {
  auto v = n[key];
  return v && v.IsScalar() && v.as<std::string>() == "true";
}

void merge_section(const YAML::Node& doc, const char* section, const char* inner,
                   std::map<std::string, Entry>& into, const fs::path& file) {
  auto list = doc[section];
  if (!list) return;
  if (!list.IsSequence()) throw lane::Error(fmt::format("{}: '{}' must be a list", file.string(), section));
  for (const auto& item : list) {
    std::string name = str(item, "name");
    if (name.empty()) throw lane::Error(fmt::format("{}: an entry of '{}' has no name", file.string(), section));
    into.emplace(name, Entry{item[inner], file});  // emplace keeps the first definition
  }
}

fs::path resolve(const fs::path& p, const fs::path& file) {
  return p.is_absolute() ? p : file.parent_path() / p;
}

// The PEM from "<key>-data" (base64) or "<key>" (a path relative to the kubeconfig).
std::string pem_from(const YAML::Node& n, const std::string& key, const fs::path& file) {
  std::string data = str(n, (key + "-data").c_str());
  if (!data.empty()) {
    try {
      return base64_decode(data);
    } catch (const lane::Error&) {
      throw lane::Error(fmt::format("{}: '{}-data' is not valid base64", file.string(), key));
    }
  }
  std::string path = str(n, key.c_str());
  if (path.empty()) return {};
  try {
    return lane::read_file(resolve(path, file));
  } catch (const lane::Error& e) {
    throw lane::Error(fmt::format("{}: {}: {}; fix the path, or put the PEM text in '{}-data' (base64)",
                                  file.string(), key, e.what(), key));
  }
}

ExecConfig exec_from(const YAML::Node& n, const fs::path& file) {
  ExecConfig e;
  e.api_version = str(n, "apiVersion");
  e.command = str(n, "command");
  if (e.command.empty()) throw lane::Error(fmt::format("{}: user.exec.command is required", file.string()));
  if (e.api_version != "client.authentication.k8s.io/v1" &&
      e.api_version != "client.authentication.k8s.io/v1beta1") {
    throw lane::Error(fmt::format(
        "{}: user.exec.apiVersion '{}' is not supported; use client.authentication.k8s.io/v1 or v1beta1",
        file.string(), e.api_version));
  }
  if (auto a = n["args"]) for (const auto& x : a) e.args.push_back(x.as<std::string>());
  if (auto env = n["env"]) {
    for (const auto& x : env) e.env.emplace_back(str(x, "name"), str(x, "value"));
  }
  e.interactive_mode = str(n, "interactiveMode");
  if (e.interactive_mode.empty()) {
    if (e.api_version == "client.authentication.k8s.io/v1") {
      throw lane::Error(fmt::format("{}: user.exec.interactiveMode is required for v1 (Never, IfAvailable or Always)",
                                    file.string()));
    }
    e.interactive_mode = "IfAvailable";
  }
  e.provide_cluster_info = boolean(n, "provideClusterInfo");
  e.install_hint = str(n, "installHint");
  e.base_dir = file.parent_path();
  return e;
}

Merged merge_files(const std::vector<fs::path>& files) {
  Merged m;
  for (const auto& file : files) {
    if (!fs::exists(file)) continue;  // kubectl skips missing files in KUBECONFIG
    YAML::Node doc;
    try {
      doc = YAML::LoadFile(file.string());
    } catch (const YAML::Exception& e) {
      std::string why = e.what();
      if (why.rfind("yaml-cpp: ", 0) == 0) why.erase(0, 10);  // the library's name says nothing to the user
      throw lane::Error(fmt::format("{}: not valid YAML: {}", file.string(), why));
    }
    if (!doc || doc.IsNull()) continue;
    merge_section(doc, "clusters", "cluster", m.clusters, file);
    merge_section(doc, "users", "user", m.users, file);
    merge_section(doc, "contexts", "context", m.contexts, file);
    std::string cc = str(doc, "current-context");
    if (m.current_context.empty() && !cc.empty()) {
      m.current_context = cc;
      m.current_context_file = file;
    }
  }
  return m;
}

}  // namespace

std::vector<fs::path> kubeconfig_files(const KubeconfigOptions& options) {
  std::vector<fs::path> files;
  std::string env;
  if (options.kubeconfig_env) {
    env = *options.kubeconfig_env;
  } else if (const char* e = std::getenv("KUBECONFIG")) {
    env = e;
  }
  if (!env.empty()) {
    size_t start = 0;
    while (start <= env.size()) {
      size_t end = env.find(':', start);
      if (end == std::string::npos) end = env.size();
      if (end > start) files.emplace_back(env.substr(start, end - start));
      start = end + 1;
    }
    return files;
  }
  fs::path home;
  if (options.home) {
    home = *options.home;
  } else if (const char* h = std::getenv("HOME")) {
    home = h;
  }
  if (!home.empty()) files.push_back(home / ".kube" / "config");
  return files;
}

KubeconfigOptions chosen_kubeconfig(const std::string& context, const std::string& file) {
  KubeconfigOptions options;
  if (!context.empty()) options.context = context;
  if (!file.empty()) {
    std::error_code ec;
    if (!fs::is_regular_file(file, ec))
      throw lane::UsageError("--kubeconfig '" + file + "': no such file; give the path of a kubeconfig file");
    options.kubeconfig_env = file;
  }
  return options;
}

Connection load_kubeconfig(const KubeconfigOptions& options) {
  auto files = kubeconfig_files(options);
  Merged m = merge_files(files);
  std::string context_name = options.context.value_or(m.current_context);
  if (context_name.empty()) {
    throw lane::Error("no current context in the kubeconfig (" +
                      (files.empty() ? std::string("no file") : files.front().string()) +
                      "); run 'kubectl config use-context NAME' or pass --context");
  }
  auto ctx = m.contexts.find(context_name);
  if (ctx == m.contexts.end()) {
    std::string known;
    for (const auto& entry : m.contexts) known += (known.empty() ? "" : ", ") + entry.first;
    throw lane::UsageError(fmt::format("context '{}' is not defined in the kubeconfig ({}); {}", context_name,
                                       known.empty() ? "it defines none" : "it defines " + known,
                                       options.context ? "pass one of them to --context"
                                                       : "run 'kubectl config use-context NAME' or pass --context"));
  }
  const YAML::Node& c = ctx->second.node;
  std::string cluster_name = str(c, "cluster"), user_name = str(c, "user");
  auto cl = m.clusters.find(cluster_name);
  if (cl == m.clusters.end()) {
    throw lane::Error(fmt::format("context '{}' refers to cluster '{}', which is not defined", context_name,
                                  cluster_name));
  }
  Connection conn;
  conn.context = context_name;
  conn.user = user_name;
  conn.config_file = ctx->second.file;
  std::string ns = str(c, "namespace");
  conn.ns = options.ns.value_or(ns.empty() ? "default" : ns);

  const YAML::Node& cn = cl->second.node;
  const fs::path& cfile = cl->second.file;
  conn.server = str(cn, "server");
  if (conn.server.empty()) throw lane::Error(fmt::format("{}: cluster '{}' has no server", cfile.string(), cluster_name));
  while (!conn.server.empty() && conn.server.back() == '/') conn.server.pop_back();
  if (auto why = server_url_problem(conn.server))
    throw lane::Error(fmt::format("{}: cluster '{}' has server '{}': {}; use https://HOST[:PORT]", cfile.string(),
                                  cluster_name, net::redact_url(conn.server), *why));
  conn.ca_pem = pem_from(cn, "certificate-authority", cfile);
  conn.insecure_skip_tls_verify = boolean(cn, "insecure-skip-tls-verify");
  conn.tls_server_name = str(cn, "tls-server-name");

  if (!user_name.empty()) {
    auto us = m.users.find(user_name);
    if (us == m.users.end()) {
      throw lane::Error(fmt::format("context '{}' refers to user '{}', which is not defined", context_name, user_name));
    }
    const YAML::Node& un = us->second.node;
    const fs::path& ufile = us->second.file;
    conn.client_cert_pem = pem_from(un, "client-certificate", ufile);
    conn.client_key_pem = pem_from(un, "client-key", ufile);
    conn.token = str(un, "token");
    std::string tf = str(un, "tokenFile");
    if (!tf.empty()) conn.token_file = resolve(tf, ufile);
    if (un["exec"]) conn.exec = exec_from(un["exec"], ufile);
    if (un["auth-provider"]) {
      throw lane::Error(fmt::format(
          "{}: user '{}' uses a legacy auth-provider; convert it with 'kubelogin convert-kubeconfig -l azurecli'",
          ufile.string(), user_name));
    }
    if (conn.client_cert_pem.empty() != conn.client_key_pem.empty()) {
      throw lane::Error(fmt::format("{}: user '{}' needs both client-certificate and client-key", ufile.string(),
                                    user_name));
    }
  }
  return conn;
}

Connection in_cluster_config(const fs::path& sa_dir) {
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
  if (!host || !*host || !port || !*port) {
    throw lane::Error("not running inside a pod: KUBERNETES_SERVICE_HOST/PORT are not set");
  }
  Connection conn;
  std::string h = host;
  if (h.find(':') != std::string::npos) h = "[" + h + "]";  // IPv6
  conn.server = "https://" + h + ":" + port;
  conn.token_file = sa_dir / "token";
  if (!fs::exists(conn.token_file)) {
    throw lane::Error(fmt::format("service account token {} is missing", conn.token_file.string()));
  }
  if (fs::exists(sa_dir / "ca.crt")) conn.ca_pem = lane::read_file(sa_dir / "ca.crt");
  if (fs::exists(sa_dir / "namespace")) {
    std::string ns = lane::read_file(sa_dir / "namespace");
    while (!ns.empty() && (ns.back() == '\n' || ns.back() == ' ')) ns.pop_back();
    if (!ns.empty()) conn.ns = ns;
  }
  conn.context = "in-cluster";
  return conn;
}

Connection load_default_connection(const KubeconfigOptions& options) {
  bool any_file = false;
  for (const auto& f : kubeconfig_files(options)) any_file = any_file || fs::exists(f);
  if (!any_file && std::getenv("KUBERNETES_SERVICE_HOST")) {
    Connection c = in_cluster_config();
    if (options.ns) c.ns = *options.ns;
    return c;
  }
  return load_kubeconfig(options);
}

void set_context_namespace(const Connection& connection, const std::string& ns) {
  if (connection.config_file.empty()) {
    throw lane::Error("the in-cluster configuration has no kubeconfig to store a default project in");
  }
  YAML::Node doc = YAML::LoadFile(connection.config_file.string());
  for (auto item : doc["contexts"]) {
    if (str(item, "name") == connection.context) {
      item["context"]["namespace"] = ns;
      YAML::Emitter out;
      out << doc;
      // A kubeconfig that is a link (to a managed or shared file) stays one: the file it points to
      // is rewritten, as kubectl config does. It holds credentials: keep its permissions (usually
      // 0600) across the rewrite.
      const fs::path target = fs::canonical(connection.config_file);
      auto perms = fs::status(target).permissions();
      lane::write_file_atomic(target, std::string(out.c_str()) + "\n");
      fs::permissions(target, perms);
      return;
    }
  }
  throw lane::Error(fmt::format("context '{}' not found in {}", connection.context, connection.config_file.string()));
}

}  // namespace lane::kube

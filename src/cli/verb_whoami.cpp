// lanectl whoami: the user name lanectl records on the jobs it submits and, on Kubernetes, the
// kubeconfig context and user entry it talks to the cluster as (names only; never credentials).
#include <pwd.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>

#include <fmt/format.h>

#include "cli/context.h"
#include "cli/verbs.h"

namespace lane::cli {

std::string job_user_name() {
  if (const char* u = std::getenv("USER"); u && *u) return u;
  if (passwd* pw = getpwuid(getuid())) return pw->pw_name;
  return std::to_string(getuid());
}

namespace {

// "Kubeconfig user" -> "kubeconfigUser".
std::string json_key(const std::string& label) {
  std::string key;
  bool upper = false;
  for (char c : label) {
    if (c == ' ') {
      upper = true;
      continue;
    }
    key += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c)))
                 : key.empty() ? static_cast<char>(std::tolower(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  return key;
}

}  // namespace

void add_whoami_command(CLI::App& app, CliContext& ctx) {
  auto output = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("whoami", "Show the user lanectl records on jobs (and the Kubernetes context)");
  cmd->add_option("-o,--output", *output, "json | yaml");
  cmd->callback([output, &ctx] {
    OutputFormat format = parse_output_format(*output);
    std::vector<std::pair<std::string, std::string>> rows = {{"User", job_user_name()},
                                                             {"Backend", ctx.config().kind}};
    for (auto& row : ctx.cluster().identity()) rows.push_back(std::move(row));
    if (format == OutputFormat::kJson || format == OutputFormat::kYaml) {
      nlohmann::json doc = nlohmann::json::object();
      for (const auto& [label, value] : rows) doc[json_key(label)] = value;
      print_document(ctx.out, doc, format);
      return;
    }
    for (const auto& [label, value] : rows) ctx.out << fmt::format("{:<17}{}\n", label + ":", value);
  });
}

}  // namespace lane::cli

#include "cli/context.h"

#include <ostream>
#include <utility>

#include "common/error.h"
#include "common/yaml_output.h"
#include "submit/core/validate.h"

namespace lane::cli {

OutputFormat parse_output_format(const std::string& value) {
  if (value.empty()) return OutputFormat::kTable;
  if (value == "wide") return OutputFormat::kWide;
  if (value == "json") return OutputFormat::kJson;
  if (value == "yaml") return OutputFormat::kYaml;
  throw UsageError("unknown output format '" + value + "' for -o; use wide, json or yaml");
}

void print_document(std::ostream& out, const nlohmann::json& doc, OutputFormat format) {
  if (format == OutputFormat::kYaml) {
    out << to_yaml(doc);
  } else {
    out << doc.dump(2) << "\n";
  }
}

CliContext::CliContext(std::istream& in_, std::ostream& out_, std::ostream& err_, BackendOpener opener)
    : in(in_), out(out_), err(err_), opener_(std::move(opener)) {}
CliContext::~CliContext() = default;

const submit::BackendConfig& CliContext::config() {
  if (!config_) {
    config_ = opener_.load_config();
    config_->kube_context = kube_context;
    config_->kubeconfig = kubeconfig;
  }
  return *config_;
}

submit::Backend& CliContext::backend() {
  if (!backend_) {
    if (config().kind == "local" && (!kube_context.empty() || !kubeconfig.empty()))
      err << "warning: --context and --kubeconfig choose the Kubernetes cluster; the local backend ignores them "
             "(`lanectl config backend kubernetes` uses them)\n";
    backend_ = opener_.open(config(), &err);
  }
  return *backend_;
}

std::string CliContext::project(const std::string& flag_value) {
  std::string p = flag_value;
  if (p.empty()) p = config().default_project;
  if (p.empty()) p = projects().configured_project();  // Kubernetes: context namespace runai-P
  if (p.empty()) p = kDefaultProject;
  submit::validate_project_name(p, "project (-p)");
  return p;
}

}  // namespace lane::cli

#include "submit/core/workload.h"

#include <cctype>

#include <fmt/format.h>

#include "common/error.h"
#include "common/secrets.h"

namespace lane::submit {

const char* to_string(JobType type) {
  switch (type) {
    case JobType::kTrain: return "Train";
    case JobType::kInteractive: return "Interactive";
    case JobType::kMpi: return "Mpi";
    case JobType::kPyTorch: return "PyTorch";
  }
  return "Unknown";
}

bool is_distributed(JobType type) { return type == JobType::kMpi || type == JobType::kPyTorch; }

const char* to_string(JobStatus status) {
  switch (status) {
    case JobStatus::kPending: return "Pending";
    case JobStatus::kRunning: return "Running";
    case JobStatus::kSucceeded: return "Succeeded";
    case JobStatus::kFailed: return "Failed";
    case JobStatus::kDeleted: return "Deleted";
    case JobStatus::kPreempted: return "Preempted";
    case JobStatus::kUnknown: return "Unknown";
    case JobStatus::kSuspended: return "Suspended";
  }
  return "Unknown";
}

bool is_preemptible(const JobSpec& spec) {
  switch (spec.preemptibility) {
    case Preemptibility::kPreemptible: return true;
    case Preemptibility::kNonPreemptible: return false;
    case Preemptibility::kDefault: break;
  }
  return spec.type != JobType::kInteractive;
}

std::string type_label(const JobSpec& spec) {
  if (spec.type == JobType::kInteractive && is_preemptible(spec)) return "Interactive-Preemptible";
  return to_string(spec.type);
}

std::string generated_claim_name(const std::string& job, size_t index) { return fmt::format("pvc-{}-{}", job, index); }

std::string claim_name(const JobSpec& spec, size_t index) {
  const PvcMount& m = spec.pvcs.at(index);
  return m.create && m.claim.empty() ? generated_claim_name(spec.name, index) : m.claim;
}

bool is_env_name(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

std::optional<PortMapping> parse_port_mapping(std::string_view text) {
  auto number = [](std::string_view s) -> std::optional<int> {
    if (s.empty() || s.size() > 5) return std::nullopt;
    int n = 0;
    for (char c : s) {
      if (c < '0' || c > '9') return std::nullopt;
      n = n * 10 + (c - '0');
    }
    if (n < 1 || n > 65535) return std::nullopt;
    return n;
  };
  const size_t colon = text.find(':');
  auto external = number(text.substr(0, colon));
  auto container = colon == std::string_view::npos ? external : number(text.substr(colon + 1));
  if (!external || !container) return std::nullopt;
  return PortMapping{*external, *container, colon != std::string_view::npos};
}

PortMapping parse_port(std::string_view text) {
  if (auto port = parse_port_mapping(text)) return *port;
  throw UsageError("--port '" + std::string(text) + "': use CONTAINER or EXTERNAL:CONTAINER with ports 1-65535");
}

std::string to_string(const PortMapping& port) {
  if (!port.external_given) return std::to_string(port.container);
  return fmt::format("{}:{}", port.external, port.container);
}

JobSpec masked_for_display(const JobSpec& spec) {
  JobSpec out = spec;
  for (auto& e : out.env) e.value = mask_env_assignment(e.name + "=" + e.value).substr(e.name.size() + 1);
  out.cli_argv = mask_secret_argv(spec.cli_argv);
  for (auto* words : {&out.command, &out.args})
    for (auto& w : *words) w = mask_secret_value(w);
  return out;
}

std::optional<SecretRef> parse_secret_ref(const std::string& value) {
  if (value.rfind("SECRET:", 0) != 0) return std::nullopt;
  const std::string rest = value.substr(7);
  const size_t comma = rest.find(',');
  if (comma == std::string::npos || comma == 0 || comma + 1 == rest.size()) return std::nullopt;
  return SecretRef{rest.substr(0, comma), rest.substr(comma + 1)};
}

std::string project_namespace(const std::string& project) { return kProjectNamespacePrefix + project; }

std::string namespace_project(const std::string& ns) {
  const std::string prefix = kProjectNamespacePrefix;
  return ns.rfind(prefix, 0) == 0 ? ns.substr(prefix.size()) : "";
}

}  // namespace lane::submit

#include "common/secrets.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

namespace lane {

bool is_secret_env_name(const std::string& name) {
  std::string upper = name;
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  static const char* kMarkers[] = {"SECRET", "PASSWORD", "PASSWD", "TOKEN", "KEY",
                                   "CREDENTIAL", "AUTH", "CERT", "PRIVATE"};
  for (const char* m : kMarkers)
    if (upper.find(m) != std::string::npos) return true;
  return false;
}

std::string mask_env_assignment(const std::string& assignment) {
  const size_t eq = assignment.find('=');
  if (eq == std::string::npos || !is_secret_env_name(assignment.substr(0, eq))) return assignment;
  if (assignment.compare(eq + 1, 7, "SECRET:") == 0) return assignment;  // a reference, not the secret
  return assignment.substr(0, eq + 1) + kMaskedValue;
}

std::map<std::string, std::string> mask_secret_env(const std::map<std::string, std::string>& env) {
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : env) out[k] = is_secret_env_name(k) ? kMaskedValue : v;
  return out;
}

std::vector<std::string> mask_secret_argv(const std::vector<std::string>& argv) {
  std::vector<std::string> out;
  out.reserve(argv.size());
  bool value_next = false;
  for (const auto& w : argv) {
    if (w == "--") {  // the job's own command: not lanectl's flags
      out.insert(out.end(), argv.begin() + static_cast<std::ptrdiff_t>(out.size()), argv.end());
      return out;
    }
    if (value_next) {
      out.push_back(mask_env_assignment(w));
      value_next = false;
      continue;
    }
    if (w == "-e" || w == "--environment") {
      value_next = true;
      out.push_back(w);
    } else if (w.rfind("--environment=", 0) == 0) {
      out.push_back("--environment=" + mask_env_assignment(w.substr(14)));
    } else if (w.rfind("-e=", 0) == 0) {
      out.push_back("-e=" + mask_env_assignment(w.substr(3)));
    } else if (w.size() > 2 && w.rfind("-e", 0) == 0) {
      out.push_back("-e" + mask_env_assignment(w.substr(2)));
    } else {
      out.push_back(w);
    }
  }
  return out;
}

std::string secret_env_advice(const std::string& name) {
  return fmt::format(
      "-e {}: the name looks like a secret, so its value is masked in describe, -o json/yaml, --dry-run and "
      "annotations; it is still stored with the job. Prefer -e {}=SECRET:<secret-name>,<key> to read it from a "
      "Kubernetes Secret",
      name, name);
}

}  // namespace lane

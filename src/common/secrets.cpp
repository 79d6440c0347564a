#include "common/secrets.h"

#include <algorithm>
#include <cctype>
#include <regex>

#include <fmt/format.h>

namespace lane {

namespace {

std::string upper(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return text;
}

// Words that mark a secret when they are a whole part of the name (GITHUB_PAT, MYSQL_PWD, PASS)
// but not inside another word (PATH, COMPASS).
bool has_secret_part(const std::string& name) {
  static const std::regex kParts("(^|[^A-Z0-9])(PASS|PWD|PAT|SAS)([^A-Z0-9]|$)");
  return std::regex_search(name, kParts);
}

// Secret parts of a value, each replaced by kMaskedValue: the whole of a PEM private key,
// the password of a URL's user info, the value of a connection string's or query's secret key,
// and tokens of known formats.
struct ValueRule {
  std::regex pattern;
  std::string replacement;
};

const std::vector<ValueRule>& value_rules() {
  using std::regex;
  static const auto icase = regex::ECMAScript | regex::icase;
  static const std::vector<ValueRule> rules{
      {regex("-----BEGIN [A-Z ]*PRIVATE KEY-----[\\s\\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)"), kMaskedValue},
      {regex("([a-z][a-z0-9+.-]*://[^/?#@\\s:]*):[^/?#@\\s]+@", icase), std::string("$1:") + kMaskedValue + "@"},
      {regex("((^|[;&?,\\s])(password|pwd|passwd|pass|accountkey|sharedaccesskey|sharedaccesssignature|sig|"
             "access_?token|token|secret|client_?secret|api_?key|x-amz-signature)=)[^;&,\\s]+",
             icase),
       std::string("$1") + kMaskedValue},
      {regex("\\b(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|(AKIA|ASIA)[0-9A-Z]{16}|"
             "xox[abposr]-[A-Za-z0-9-]{10,}|eyJ[A-Za-z0-9_-]{8,}\\.eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]+)"),
       kMaskedValue},
  };
  return rules;
}

}  // namespace

bool is_secret_env_name(const std::string& name) {
  const std::string up = upper(name);
  static const char* kMarkers[] = {"SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "TOKEN", "KEY", "CREDENTIAL",
                                   "AUTH", "CERT", "PRIVATE", "CONNECTION_STRING", "CONNECTIONSTRING", "CONNSTR"};
  for (const char* m : kMarkers)
    if (up.find(m) != std::string::npos) return true;
  return has_secret_part(up);
}

std::string mask_secret_value(const std::string& value) {
  std::string out = value;
  for (const auto& rule : value_rules()) out = std::regex_replace(out, rule.pattern, rule.replacement);
  return out;
}

bool is_secret_env(const std::string& name, const std::string& value) {
  return is_secret_env_name(name) || mask_secret_value(value) != value;
}

std::string mask_env_assignment(const std::string& assignment) {
  const size_t eq = assignment.find('=');
  if (eq == std::string::npos) return mask_secret_value(assignment);
  const std::string name = assignment.substr(0, eq), value = assignment.substr(eq + 1);
  if (value.rfind("SECRET:", 0) == 0) return assignment;  // a reference, not the secret
  return name + "=" + (is_secret_env_name(name) ? kMaskedValue : mask_secret_value(value));
}

std::map<std::string, std::string> mask_secret_env(const std::map<std::string, std::string>& env) {
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : env) out[k] = is_secret_env_name(k) ? kMaskedValue : mask_secret_value(v);
  return out;
}

std::vector<std::string> mask_secret_argv(const std::vector<std::string>& argv) {
  std::vector<std::string> out;
  out.reserve(argv.size());
  bool value_next = false;
  for (const auto& w : argv) {
    if (w == "--") {  // the job's own command: not lanectl's flags, only secret-looking values masked
      for (auto it = argv.begin() + static_cast<std::ptrdiff_t>(out.size()); it != argv.end(); ++it)
        out.push_back(mask_secret_value(*it));
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
      out.push_back(mask_secret_value(w));
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

#pragma once
// The one rule for "this environment variable carries a secret", and masking by it: lineage
// records, describe, -o json/yaml, --dry-run output and Kubernetes annotations all use it.
// The job itself always gets the real values; only what lanectl prints or annotates is masked.
#include <map>
#include <string>
#include <vector>

namespace lane {

inline constexpr const char* kMaskedValue = "****";

// True when the name contains SECRET, PASSWORD, PASSWD, PASSPHRASE, TOKEN, KEY, CREDENTIAL, AUTH,
// CERT, PRIVATE or CONNECTION_STRING, or has PASS, PWD, PAT or SAS as a whole part
// (MYSQL_PWD, GITHUB_PAT; not PATH), case-insensitive.
bool is_secret_env_name(const std::string& name);

// `value` with its secret parts replaced by kMaskedValue, whatever the variable is called: a PEM
// private key block (all of it), a URL's password (postgres://u:****@host), the values of
// Password=, Pwd=, AccountKey=, SharedAccessKey=, SharedAccessSignature=, sig=, token=, secret=,
// api_key= ... in connection strings and queries, GitHub (ghp_, github_pat_ ...), AWS (AKIA...),
// Slack (xox?-) tokens and JWTs. Other text unchanged.
std::string mask_secret_value(const std::string& value);

// True when the name looks secret or the value holds a secret part.
bool is_secret_env(const std::string& name, const std::string& value);

// "NAME=VALUE" with VALUE masked when NAME looks secret, else its secret parts masked. A value
// "SECRET:<secret>,<key>" names a Kubernetes Secret, not the secret itself: kept.
std::string mask_env_assignment(const std::string& assignment);

// Copy of `env` with secret values replaced by kMaskedValue (by name) or masked in part (by value).
std::map<std::string, std::string> mask_secret_env(const std::map<std::string, std::string>& env);

// A command line with the values of secret -e/--environment NAME=VALUE words masked (every
// spelling: "-e N=V", "-eN=V", "-e=N=V", "--environment N=V", "--environment=N=V"), and the
// secret parts of every other word (mask_secret_value), the job's own command after "--" too.
std::vector<std::string> mask_secret_argv(const std::vector<std::string>& argv);

// What to tell a user who passed a secret-looking name with a literal value.
std::string secret_env_advice(const std::string& name);

}  // namespace lane

#pragma once
// The one rule for "this environment variable carries a secret", and masking by it: lineage
// records, describe, -o json/yaml, --dry-run output and Kubernetes annotations all use it.
// The job itself always gets the real values; only what lanectl prints or annotates is masked.
#include <map>
#include <string>
#include <vector>

namespace lane {

inline constexpr const char* kMaskedValue = "****";

// True when the name contains SECRET, PASSWORD, PASSWD, TOKEN, KEY, CREDENTIAL, AUTH, CERT or
// PRIVATE (case-insensitive).
bool is_secret_env_name(const std::string& name);

// "NAME=VALUE" with VALUE masked when NAME looks secret; other text unchanged. A value
// "SECRET:<secret>,<key>" names a Kubernetes Secret, not the secret itself: kept.
std::string mask_env_assignment(const std::string& assignment);

// Copy of `env` with secret values replaced by kMaskedValue.
std::map<std::string, std::string> mask_secret_env(const std::map<std::string, std::string>& env);

// A command line with the values of secret -e/--environment NAME=VALUE words masked (every
// spelling: "-e N=V", "-eN=V", "-e=N=V", "--environment N=V", "--environment=N=V").
std::vector<std::string> mask_secret_argv(const std::vector<std::string>& argv);

// What to tell a user who passed a secret-looking name with a literal value.
std::string secret_env_advice(const std::string& name);

}  // namespace lane

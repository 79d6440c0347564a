#pragma once
// Parsers for the submit flags whose syntax is richer than a type: --pvc, -v, -e, --gpu,
// --toleration (--port: submit::parse_port, which reads stored specs too; --ttl-after-finish:
// submit::parse_ttl_after_finish; quantities bind as submit::Quantity).
// Each throws UsageError naming the flag, the bad value and the accepted forms.
#include <map>
#include <string>
#include <vector>

#include "submit/core/workload.h"

namespace lane::cli {

// `[StorageClass]:Size:MountPath[:ro]` (new claim) or `ExistingClaim:MountPath[:ro]`.
// 3-part strings: empty first part, a quantity second part, or a path third part after a second
// part that is none → new claim (its size checked by submit::pvc_size_problem); else existing + ro/rw.
submit::PvcMount parse_pvc(const std::string& value);

// `HOST:CONTAINER[:ro]`
submit::HostMount parse_host_mount(const std::string& value);

// `NAME=VALUE` (NAME: letters, digits, '_', not starting with a digit)
submit::EnvVar parse_env(const std::string& value);

// `--gpu`: a decimal number (0, 0.5, 2); empty or trailing text is refused rather than read as 0,
// naming `flag` (the v2 verbs: --gpu-devices-request, --gpu-portion-request). The range rules are
// submit::validate's.
double parse_gpu(const std::string& value, const std::string& flag = "--gpu");

// `--toleration KEY[=VALUE][:EFFECT]` (key and effect rules: submit::validate).
submit::Toleration parse_toleration(const std::string& value);

// `--label` / `--annotation KEY=VALUE`, repeatable: the map (key and value rules: submit::validate).
std::map<std::string, std::string> parse_key_values(const std::string& flag, const std::vector<std::string>& values);

// Whitespace split (the older `--command "python train.py"` string form; no shell involved).
std::vector<std::string> split_words(const std::string& text);

}  // namespace lane::cli

#pragma once
// Parsers for the submit flags whose syntax is richer than a type: --pvc, -v, -e, --gpu,
// --ttl-after-finish, --toleration (--port: submit::parse_port, which reads stored specs too).
// Each throws UsageError naming the flag, the bad value and the accepted forms.
#include <cstdint>
#include <string>

#include "submit/core/workload.h"

namespace lane::cli {

// `[StorageClass]:Size:MountPath[:ro]` (new claim) or `ExistingClaim:MountPath[:ro]`.
// 3-part strings: empty first part or a quantity second part → new claim; else existing + ro/rw.
submit::PvcMount parse_pvc(const std::string& value);

// `HOST:CONTAINER[:ro]`
submit::HostMount parse_host_mount(const std::string& value);

// `NAME=VALUE` (NAME: letters, digits, '_', not starting with a digit)
submit::EnvVar parse_env(const std::string& value);

// `--gpu`: a decimal number (0, 0.5, 2); empty or trailing text is refused rather than read as 0.
// The range rules are submit::validate's.
double parse_gpu(const std::string& value);

// `--ttl-after-finish`: a duration with units s, m, h, d ("30s", "1h30m"), or 0 ("0", "0s").
int64_t parse_ttl(const std::string& value);

// `--toleration KEY[=VALUE][:EFFECT]` (key and effect rules: submit::validate).
submit::Toleration parse_toleration(const std::string& value);

// Whitespace split (the older `--command "python train.py"` string form; no shell involved).
std::vector<std::string> split_words(const std::string& text);

}  // namespace lane::cli

#include "cli/spec_parsing.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <limits>
#include <sstream>

#include "common/error.h"
#include "submit/core/validate.h"

namespace lane::cli {

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    size_t pos = s.find(sep, start);
    parts.push_back(s.substr(start, pos == std::string::npos ? std::string::npos : pos - start));
    if (pos == std::string::npos) return parts;
    start = pos + 1;
  }
}

[[noreturn]] void bad_pvc(const std::string& value, const std::string& why) {
  throw UsageError("--pvc '" + value + "': " + why +
                   "; use [StorageClass]:Size:MountPath[:ro] for a new volume (e.g. :10Gi:/mnt) or "
                   "ExistingClaim:MountPath[:ro] (e.g. pvc-download-tusimple-data-0:/mnt)");
}

void check_mount_path(const std::string& value, const std::string& path) {
  if (path.empty() || path[0] != '/') bad_pvc(value, "the mount path '" + path + "' must be absolute");
}

// Three parts are a new claim `[StorageClass]:Size:MountPath` when the class is empty, the second
// part is a quantity, or the third (not the second) is a path ("fast:100GB:/mnt": a size
// that is no quantity); else an existing claim `ExistingClaim:MountPath:ro|rw`.
bool is_new_claim(const std::vector<std::string>& parts, const submit::Quantity& second) {
  if (parts.size() != 3) return parts.size() == 4;
  auto is_path = [](const std::string& p) { return !p.empty() && p[0] == '/'; };
  return parts[0].empty() || second.value() || (is_path(parts[2]) && !is_path(parts[1]));
}

}  // namespace

submit::PvcMount parse_pvc(const std::string& value) {
  auto parts = split(value, ':');
  submit::PvcMount m;
  auto is_mode = [](const std::string& s) { return s == "ro" || s == "rw"; };
  const submit::Quantity second(parts.size() > 1 ? parts[1] : "");
  if (is_new_claim(parts, second)) {
    m.create = true;
    m.storage_class = parts[0];
    m.size = second;
    m.mount_path = parts[2];
    if (auto problem = submit::pvc_size_problem(m.size)) bad_pvc(value, *problem);
    if (parts.size() == 4) {
      if (!is_mode(parts[3])) bad_pvc(value, "the last part must be 'ro' or 'rw', not '" + parts[3] + "'");
      m.read_only = parts[3] == "ro";
    }
  } else if (parts.size() == 2 || parts.size() == 3) {
    m.claim = parts[0];
    m.mount_path = parts[1];
    if (m.claim.empty()) bad_pvc(value, "the claim name is empty");
    if (parts.size() == 3) {
      if (!is_mode(parts[2])) bad_pvc(value, "the last part must be 'ro' or 'rw', not '" + parts[2] + "'");
      m.read_only = parts[2] == "ro";
    }
  } else {
    bad_pvc(value, "expected 2 to 4 ':'-separated parts, got " + std::to_string(parts.size()));
  }
  check_mount_path(value, m.mount_path);
  return m;
}

submit::HostMount parse_host_mount(const std::string& value) {
  auto parts = split(value, ':');
  auto fail = [&](const std::string& why) {
    throw UsageError("-v '" + value + "': " + why + "; use HOST:CONTAINER[:ro], e.g. -v /data:/data:ro");
  };
  if (parts.size() < 2 || parts.size() > 3) fail("expected HOST:CONTAINER[:ro]");
  submit::HostMount m{parts[0], parts[1], false};
  if (m.host_path.empty() || m.host_path[0] != '/') fail("the host path must be absolute");
  if (m.container_path.empty() || m.container_path[0] != '/') fail("the container path must be absolute");
  if (parts.size() == 3) {
    if (parts[2] != "ro" && parts[2] != "rw") fail("the last part must be 'ro' or 'rw'");
    m.read_only = parts[2] == "ro";
  }
  return m;
}

submit::EnvVar parse_env(const std::string& value) {
  auto eq = value.find('=');
  std::string name = value.substr(0, eq);
  if (eq == std::string::npos || !submit::is_env_name(name))
    throw UsageError("-e '" + value + "': expected NAME=VALUE with NAME made of letters, digits and '_' "
                     "(e.g. -e BATCH_SIZE=33)");
  return {name, value.substr(eq + 1)};
}

double parse_gpu(const std::string& value, const std::string& flag) {
  const char* begin = value.c_str();
  char* end = nullptr;
  errno = 0;
  double gpu = value.empty() || std::isspace(static_cast<unsigned char>(value[0])) ? 0 : std::strtod(begin, &end);
  if (end == nullptr || end == begin || *end != '\0')
    throw UsageError(flag + " '" + value + "' is not a number; use " +
                     (flag == "--gpu-devices-request"   ? std::string("a whole number of GPUs (e.g. 2)")
                      : flag == "--gpu-portion-request" ? std::string("a portion of one GPU (e.g. 0.5)")
                                                        : std::string("0, a fraction below 1 (e.g. 0.5) or a whole number")));
  // Out of range: keep the side it is on (1e400 is too many GPUs, 1e-400 too small a fraction).
  if (errno == ERANGE && gpu == 0) return std::numeric_limits<double>::denorm_min();
  return gpu;
}

submit::Toleration parse_toleration(const std::string& value) {
  submit::Toleration t;
  std::string key_value = value;
  const size_t colon = value.rfind(':');
  if (colon != std::string::npos) {
    key_value = value.substr(0, colon);
    t.effect = value.substr(colon + 1);
    if (t.effect.empty())
      throw UsageError("--toleration '" + value + "': the effect after ':' is empty; use KEY[=VALUE][:EFFECT] with "
                       "EFFECT NoSchedule, PreferNoSchedule or NoExecute");
  }
  const size_t eq = key_value.find('=');
  t.key = key_value.substr(0, eq);
  if (eq != std::string::npos) {
    t.value = key_value.substr(eq + 1);
    if (t.value.empty())
      throw UsageError("--toleration '" + value + "': the value after '=' is empty; use KEY=VALUE[:EFFECT] or "
                       "KEY[:EFFECT] (any value)");
  }
  if (t.key.empty())
    throw UsageError("--toleration '" + value + "': the key is empty; use KEY[=VALUE][:EFFECT], e.g. "
                     "nvidia.com/gpu:NoSchedule");
  return t;
}

std::vector<std::string> split_words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> words;
  std::string w;
  while (in >> w) words.push_back(w);
  return words;
}

std::map<std::string, std::string> parse_key_values(const std::string& flag, const std::vector<std::string>& values) {
  std::map<std::string, std::string> out;
  for (const auto& item : values) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw UsageError(flag + " '" + item + "': use KEY=VALUE, e.g. " + flag + " team=vision");
    if (!out.emplace(item.substr(0, eq), item.substr(eq + 1)).second)
      throw UsageError(flag + " " + item.substr(0, eq) + " is given twice; give each key once");
  }
  return out;
}

}  // namespace lane::cli

#include "train/config/train_config.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>

#include <fmt/format.h>

#include "common/boolean_text.h"
#include "common/error.h"

namespace lane::train {

int64_t parse_int(const std::string& text, const std::string& source, int64_t min_value) {
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE || std::isspace(static_cast<unsigned char>(text[0])))
    throw UsageError(fmt::format("{}: '{}' is not an integer", source, text));
  if (v < min_value)
    throw UsageError(fmt::format("{}: {} is too small (must be at least {})", source, v, min_value));
  return v;
}

double parse_double(const std::string& text, const std::string& source) {
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || errno == ERANGE || !(v == v))
    throw UsageError(fmt::format("{}: '{}' is not a number", source, text));
  return v;
}

bool parse_bool(const std::string& text, const std::string& source) {
  if (auto b = parse_boolean(text)) return *b;
  throw UsageError(fmt::format("{}: '{}' is not a boolean (use true or false)", source, text));
}

EnvLookup process_environment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  };
}

std::optional<SettingSource> pick_setting(const std::optional<std::string>& flag, const std::string& flag_name,
                                          const EnvLookup& env, const std::string& env_name) {
  if (flag) return SettingSource{*flag, flag_name};
  if (!env_name.empty())
    if (auto v = env(env_name)) return SettingSource{*v, "environment variable " + env_name};
  return std::nullopt;
}

}  // namespace lane::train

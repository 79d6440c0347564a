#include "common/boolean_text.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string>

namespace lane {

std::optional<bool> parse_boolean(std::string_view text) {
  std::string t(text);
  std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::tolower(c); });
  if (t == "true" || t == "1" || t == "yes") return true;
  if (t == "false" || t == "0" || t == "no") return false;
  return std::nullopt;
}

bool env_is_true(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && parse_boolean(v).value_or(false);
}

}  // namespace lane

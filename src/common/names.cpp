#include "common/names.h"

#include <fmt/format.h>

#include "common/error.h"

namespace lane {
namespace {
bool is_alnum_lower(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
}  // namespace

bool is_dns1123_label(std::string_view name) {
  if (name.empty() || name.size() > 63) return false;
  if (!is_alnum_lower(name.front()) || !is_alnum_lower(name.back())) return false;
  for (char c : name)
    if (!is_alnum_lower(c) && c != '-') return false;
  return true;
}

void require_dns1123_label(std::string_view name, std::string_view field) {
  if (is_dns1123_label(name)) return;
  throw UsageError(fmt::format(
      "invalid {} '{}': must be 1-63 lower-case letters, digits or '-', starting and ending "
      "with a letter or digit (e.g. 'my-job-1')",
      field, name));
}

}  // namespace lane

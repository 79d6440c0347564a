#include "submit/core/duration.h"

#include <string>

#include "common/error.h"

namespace lane::submit {

std::optional<int64_t> parse_duration_seconds(std::string_view text, bool allow_zero) {
  if (text.empty()) return std::nullopt;
  if (allow_zero && text == "0") return 0;
  int64_t total = 0, number = 0;
  bool have_digits = false;
  for (char c : text) {
    if (c >= '0' && c <= '9') {
      number = number * 10 + (c - '0');
      have_digits = true;
      if (number > 1000000000) return std::nullopt;
      continue;
    }
    int64_t unit = c == 's' ? 1 : c == 'm' ? 60 : c == 'h' ? 3600 : c == 'd' ? 86400 : 0;
    if (!unit || !have_digits) return std::nullopt;
    total += number * unit;
    number = 0;
    have_digits = false;
  }
  if (have_digits) return std::nullopt;  // a number without a unit
  if (total == 0 && !allow_zero) return std::nullopt;
  return total;
}

int64_t parse_ttl_after_finish(std::string_view text) {
  if (auto seconds = parse_duration_seconds(text, /*allow_zero=*/true)) return *seconds;
  throw UsageError("--ttl-after-finish '" + std::string(text) + "' is not a duration; use a number with a unit s, "
                   "m, h or d (e.g. 30s, 10m, 1h30m, 0s)");
}

}  // namespace lane::submit

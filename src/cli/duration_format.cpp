#include "cli/duration_format.h"

#include <fmt/format.h>

namespace lane::cli {

std::string short_duration(int64_t milliseconds) {
  int64_t s = milliseconds < 0 ? 0 : milliseconds / 1000;
  if (s < 120) return fmt::format("{}s", s);
  int64_t m = s / 60;
  if (m < 10) return s % 60 ? fmt::format("{}m{}s", m, s % 60) : fmt::format("{}m", m);
  if (m < 180) return fmt::format("{}m", m);
  int64_t h = m / 60;
  if (h < 8) return m % 60 ? fmt::format("{}h{}m", h, m % 60) : fmt::format("{}h", h);
  if (h < 48) return fmt::format("{}h", h);
  int64_t d = h / 24;
  if (d < 8) return h % 24 ? fmt::format("{}d{}h", d, h % 24) : fmt::format("{}d", d);
  if (d < 365 * 2) return fmt::format("{}d", d);
  return fmt::format("{}y", d / 365);
}

}  // namespace lane::cli

namespace lane::cli {

std::optional<int64_t> parse_duration_seconds(const std::string& text) {
  if (text.empty()) return std::nullopt;
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
  if (total <= 0) return std::nullopt;
  return total;
}

}  // namespace lane::cli

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

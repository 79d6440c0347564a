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

std::optional<int64_t> parse_rfc3339_seconds(const std::string& text) {
  // YYYY-MM-DDTHH:MM:SS[.fraction](Z|+HH:MM|-HH:MM); 't' and 'z' as RFC 3339 allows.
  auto digits = [&text](size_t pos, size_t n) -> std::optional<int> {
    if (pos + n > text.size()) return std::nullopt;
    int v = 0;
    for (size_t i = pos; i < pos + n; ++i) {
      if (text[i] < '0' || text[i] > '9') return std::nullopt;
      v = v * 10 + (text[i] - '0');
    }
    return v;
  };
  auto at = [&text](size_t pos, char c) { return pos < text.size() && (text[pos] == c || text[pos] == c + 32); };
  auto year = digits(0, 4), month = digits(5, 2), day = digits(8, 2), hour = digits(11, 2), minute = digits(14, 2),
       second = digits(17, 2);
  if (!year || !month || !day || !hour || !minute || !second || text[4] != '-' || text[7] != '-' || !at(10, 'T') ||
      text[13] != ':' || text[16] != ':')
    return std::nullopt;
  if (*month < 1 || *month > 12 || *day < 1 || *day > 31 || *hour > 23 || *minute > 59 || *second > 60)
    return std::nullopt;
  size_t pos = 19;
  if (pos < text.size() && text[pos] == '.') {
    size_t start = ++pos;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') ++pos;
    if (pos == start) return std::nullopt;
  }
  int64_t offset = 0;
  if (at(pos, 'Z') && pos + 1 == text.size()) {
    // UTC
  } else if (pos < text.size() && (text[pos] == '+' || text[pos] == '-') && pos + 6 == text.size() &&
             text[pos + 3] == ':') {
    auto oh = digits(pos + 1, 2), om = digits(pos + 4, 2);
    if (!oh || !om || *oh > 23 || *om > 59) return std::nullopt;
    offset = (*oh * 3600 + *om * 60) * (text[pos] == '+' ? 1 : -1);
  } else {
    return std::nullopt;
  }
  // Days from the civil date (proleptic Gregorian), as in H. Hinnant's days_from_civil.
  int64_t y = *year - (*month <= 2 ? 1 : 0);
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t yoe = y - era * 400;
  int64_t doy = (153 * (*month + (*month > 2 ? -3 : 9)) + 2) / 5 + *day - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  int64_t days = era * 146097 + doe - 719468;
  return days * 86400 + *hour * 3600 + *minute * 60 + *second - offset;
}

}  // namespace lane::cli

#include "common/quantity.h"

#include <cmath>
#include <cstdlib>

namespace lane {

std::optional<uint64_t> parse_quantity_bytes(const std::string& text) {
  if (text.empty()) return std::nullopt;
  size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
  if (i == 0) return std::nullopt;
  std::string number = text.substr(0, i), suffix = text.substr(i);
  if (number.find('.') != number.rfind('.')) return std::nullopt;
  double value = std::strtod(number.c_str(), nullptr);
  double mult = 0;
  static const struct { const char* s; double m; } kSuffixes[] = {
      {"", 1}, {"k", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"P", 1e15},
      {"Ki", 1024.0}, {"Mi", 1048576.0}, {"Gi", 1073741824.0},
      {"Ti", 1099511627776.0}, {"Pi", 1125899906842624.0}};
  for (const auto& s : kSuffixes)
    if (suffix == s.s) mult = s.m;
  if (mult == 0) return std::nullopt;
  double bytes = value * mult;
  if (!std::isfinite(bytes) || bytes > 9.0e18) return std::nullopt;
  return static_cast<uint64_t>(std::ceil(bytes));
}

}  // namespace lane

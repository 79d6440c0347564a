#include "common/quantity.h"

#include <cmath>
#include <cstdlib>

namespace lane {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Length of the <signedNumber> at the start of `t` (0 when there is none).
size_t number_length(std::string_view t, bool allow_fraction) {
  size_t i = 0;
  if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
  size_t digits = 0;
  while (i < t.size() && is_digit(t[i])) ++i, ++digits;
  if (allow_fraction && i < t.size() && t[i] == '.') {
    ++i;
    while (i < t.size() && is_digit(t[i])) ++i, ++digits;
  }
  return digits == 0 ? 0 : i;
}

// The multiplier of a suffix, or nullopt when it is not one.
std::optional<double> suffix_multiplier(std::string_view s) {
  static const struct {
    std::string_view suffix;
    double multiplier;
  } kSuffixes[] = {{"", 1},        {"n", 1e-9},  {"u", 1e-6},  {"m", 1e-3},  {"k", 1e3},
                   {"M", 1e6},     {"G", 1e9},   {"T", 1e12},  {"P", 1e15},  {"E", 1e18},
                   {"Ki", 0x1p10}, {"Mi", 0x1p20}, {"Gi", 0x1p30}, {"Ti", 0x1p40}, {"Pi", 0x1p50}, {"Ei", 0x1p60}};
  for (const auto& k : kSuffixes)
    if (s == k.suffix) return k.multiplier;
  if (s.size() >= 2 && (s[0] == 'e' || s[0] == 'E')) {
    std::string_view exponent = s.substr(1);
    if (number_length(exponent, false) != exponent.size()) return std::nullopt;
    return std::pow(10.0, std::strtod(std::string(exponent).c_str(), nullptr));
  }
  return std::nullopt;
}

}  // namespace

bool is_quantity(std::string_view text) {
  size_t n = number_length(text, true);
  return n > 0 && suffix_multiplier(text.substr(n)).has_value();
}

std::optional<double> parse_quantity(std::string_view text) {
  size_t n = number_length(text, true);
  if (n == 0) return std::nullopt;
  auto multiplier = suffix_multiplier(text.substr(n));
  if (!multiplier) return std::nullopt;
  double value = std::strtod(std::string(text.substr(0, n)).c_str(), nullptr) * *multiplier;
  if (!std::isfinite(value)) return std::nullopt;
  return value;
}

std::optional<uint64_t> quantity_bytes(double value) {
  if (value < 0 || value > 9.0e18) return std::nullopt;
  return static_cast<uint64_t>(std::ceil(value));
}

std::optional<uint64_t> parse_quantity_bytes(const std::string& text) {
  auto value = parse_quantity(text);
  return value ? quantity_bytes(*value) : std::nullopt;
}

}  // namespace lane

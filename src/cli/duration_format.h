#pragma once
// kubectl-style short ages ("9s", "5m", "3h", "68d") for the AGE column (parsing a duration:
// submit/core/duration.h).
#include <cstdint>
#include <optional>
#include <string>

namespace lane::cli {

std::string short_duration(int64_t milliseconds);

}  // namespace lane::cli

namespace lane::cli {

// An RFC 3339 time as kubectl's --since-time takes it ("2021-03-05T16:23:42Z",
// "2021-03-05T17:23:42.5+01:00") → Unix seconds (fractions dropped); nullopt when malformed.
std::optional<int64_t> parse_rfc3339_seconds(const std::string& text);

}  // namespace lane::cli

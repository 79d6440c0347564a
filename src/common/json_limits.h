#pragma once
// Parsing untrusted JSON (label and prediction lines, list pages): nesting is bounded, so a
// deeply nested document is a clear error instead of a stack overflow, and every library
// error (syntax, numbers out of range such as 1e999) becomes one lane::UsageError.
#include <string>

#include <nlohmann/json.hpp>

namespace lane {

// Deeper than any real label, prediction or API object (TuSimple lines nest 3 levels).
inline constexpr int kMaxJsonDepth = 64;

// Parses `text`; throws lane::UsageError with the reason (no file:line: callers add it).
nlohmann::json parse_json_bounded(const std::string& text, int max_depth = kMaxJsonDepth);

}  // namespace lane

#pragma once
// Durations as flags take them: `submit --ttl-after-finish` and `logs --since`.
#include <cstdint>
#include <optional>
#include <string_view>

namespace lane::submit {

// "5s", "2m", "3h", "1h30m", "1d" → seconds; nullopt when malformed, or zero unless allow_zero
// (then "0" without a unit is zero too, as a TTL takes it).
std::optional<int64_t> parse_duration_seconds(std::string_view text, bool allow_zero = false);

// --ttl-after-finish: a duration, zero allowed ("0", "0s": delete as soon as the job ends).
// Throws UsageError naming the flag, the value and the units.
int64_t parse_ttl_after_finish(std::string_view text);

}  // namespace lane::submit

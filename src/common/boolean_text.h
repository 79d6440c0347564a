#pragma once
// The one spelling of a boolean in settings and environment variables: true, 1 or yes and
// false, 0 or no, in any case (ENABLE_SNAPSHOT=TRUE, USE_VAL=false).
#include <optional>
#include <string_view>

namespace lane {

// true or false for the spellings above, nullopt for anything else ("", "maybe", "2").
std::optional<bool> parse_boolean(std::string_view text);

// Whether the environment variable `name` is set to a true spelling (unset or anything else: false).
bool env_is_true(const char* name);

}  // namespace lane

#include "common/json_limits.h"

#include <fmt/format.h>

#include "common/error.h"

namespace lane {

nlohmann::json parse_json_bounded(const std::string& text, int max_depth) {
  // The callback sees each container start with the depth of its parent: stop before the
  // parser builds (and later recurses into) anything deeper than max_depth.
  auto limit = [max_depth](int depth, nlohmann::json::parse_event_t event, nlohmann::json&) {
    if ((event == nlohmann::json::parse_event_t::object_start ||
         event == nlohmann::json::parse_event_t::array_start) &&
        depth >= max_depth)
      throw UsageError(fmt::format("JSON nested more than {} levels deep; this is not a valid record", max_depth));
    return true;
  };
  try {
    return nlohmann::json::parse(text, limit);
  } catch (const nlohmann::json::exception& e) {
    // parse_error (syntax) and out_of_range (a number such as 1e999 that no double holds).
    std::string what = e.what();
    if (e.id == 406) what = "a number is out of range (" + what + ")";
    throw UsageError(fmt::format("not valid JSON ({})", what));
  }
}

}  // namespace lane

#pragma once
// kubectl-style short ages ("9s", "5m", "3h", "68d") for the AGE column.
#include <cstdint>
#include <string>

namespace lane::cli {

std::string short_duration(int64_t milliseconds);

}  // namespace lane::cli

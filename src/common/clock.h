#pragma once
// The wall clock as the project stores and compares times: milliseconds since the Unix epoch
// (job, pod, event and snapshot times; `lanectl list`/`describe` ages; `logs --since`).
#include <chrono>
#include <cstdint>

namespace lane {

inline int64_t now_unix_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace lane

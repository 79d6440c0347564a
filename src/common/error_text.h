#pragma once
// Error text for users.
#include <string>

namespace lane {

// A library's message without the C++ backtrace some append (libtorch's c10::Error: "...\n
// Exception raised from F at file:line (most recent call first):\nframe #0: ..."): what a user
// reads. Text without one comes back as it is.
inline std::string without_backtrace(const std::string& message) {
  const size_t at = message.find("Exception raised from ");
  std::string out = at == std::string::npos ? message : message.substr(0, at);
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

}  // namespace lane

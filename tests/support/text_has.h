#pragma once
// has(text, part): whether a command's output (or any text) contains `part`. The one definition
// for every test: files of a test executable share a translation unit in a unity build.
#include <string>

namespace lane::test {

inline bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace lane::test

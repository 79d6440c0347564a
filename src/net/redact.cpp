#include "net/redact.h"

#include "common/secrets.h"

namespace lane::net {

std::string redact(std::string text, const std::vector<std::string>& secrets) {
  for (const auto& s : secrets) {
    if (s.empty()) continue;
    for (size_t p = 0; (p = text.find(s, p)) != std::string::npos; p += std::char_traits<char>::length(kMaskedValue))
      text.replace(p, s.size(), kMaskedValue);
  }
  return text;
}

}  // namespace lane::net

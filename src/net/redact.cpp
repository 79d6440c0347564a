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

std::string redact_url(const std::string& url) {
  const auto scheme = url.find("://");
  const auto at = url.find('@');
  const auto slash = url.find('/', scheme == std::string::npos ? 0 : scheme + 3);
  if (scheme == std::string::npos || at == std::string::npos || (slash != std::string::npos && at > slash)) return url;
  return url.substr(0, scheme + 3) + "***" + url.substr(at);
}

}  // namespace lane::net

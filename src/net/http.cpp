#include "net/http.h"

#include <algorithm>
#include <cctype>

namespace lane::net {

std::string Response::header(const std::string& name) const {
  auto it = headers.find(name);
  return it == headers.end() ? std::string() : it->second;
}

bool idempotent(const std::string& method) { return method != "POST"; }

std::string url_escape(const std::string& text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if ((c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '-' || c == '.' || c == '_' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0x0F]);
    }
  }
  return out;
}

std::optional<std::pair<std::string, std::string>> parse_header_line(std::string_view line) {
  const auto colon = line.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  auto trim = [](std::string_view v) {
    const auto b = v.find_first_not_of(" \t\r\n");
    if (b == std::string_view::npos) return std::string();
    return std::string(v.substr(b, v.find_last_not_of(" \t\r\n") - b + 1));
  };
  std::string name = trim(line.substr(0, colon));
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return std::make_pair(std::move(name), trim(line.substr(colon + 1)));
}

}  // namespace lane::net

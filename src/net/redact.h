#pragma once
// Secret-safe text for errors and logs: every occurrence of a secret becomes "****", and a
// URL's credentials "***".
#include <string>
#include <vector>

namespace lane::net {

// `text` with each non-empty secret of `secrets` replaced by kMaskedValue ("****").
std::string redact(std::string text, const std::vector<std::string>& secrets);

// A URL with its user information hidden: "https://user:secret@host/x" -> "https://***@host/x".
std::string redact_url(const std::string& url);

}  // namespace lane::net

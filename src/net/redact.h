#pragma once
// Secret-safe text for errors and logs: every occurrence of a secret becomes "****".
#include <string>
#include <vector>

namespace lane::net {

// `text` with each non-empty secret of `secrets` replaced by kMaskedValue ("****").
std::string redact(std::string text, const std::vector<std::string>& secrets);

}  // namespace lane::net

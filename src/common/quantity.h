#pragma once
// Kubernetes resource quantities as used by --pvc sizes and --memory: "100Gi", "3G", "500M",
// "1Ti", "1024", "1.5Gi". Binary suffixes Ki Mi Gi Ti Pi, decimal k M G T P.
#include <cstdint>
#include <optional>
#include <string>

namespace lane {

// Bytes, or nullopt when `text` is not a valid quantity.
std::optional<uint64_t> parse_quantity_bytes(const std::string& text);

}  // namespace lane

#pragma once
// Kubernetes resource quantities (k8s.io/apimachinery resource.Quantity), used by --cpu,
// --memory, --pvc sizes and any other flag that becomes a requests/limits value:
//   <quantity> ::= <signedNumber><suffix>
//   <suffix>   ::= Ki | Mi | Gi | Ti | Pi | Ei          (binary)
//                | n | u | m | "" | k | M | G | T | P | E   (decimal)
//                | e<signedInteger> | E<signedInteger>  (decimal exponent)
//   <signedNumber> ::= [+|-] ( digits | digits. | digits.digits | .digits )
// So "100Gi", "1.5Gi", "500m", "2G", "1e3" are quantities; "2GB", "lots", "1 Gi", "" are not.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace lane {

// True when `text` follows the grammar above (sign included: range rules are the caller's).
bool is_quantity(std::string_view text);

// The value of a quantity in base units (cores, bytes: "500m" → 0.5, "1Ki" → 1024), or nullopt
// when `text` is not a quantity or its value is not finite.
std::optional<double> parse_quantity(std::string_view text);

// A quantity's value as bytes, rounded up; nullopt when it is negative or above 9e18.
std::optional<uint64_t> quantity_bytes(double value);

// Bytes, rounded up, or nullopt when `text` is not a quantity, is negative or above 9e18.
std::optional<uint64_t> parse_quantity_bytes(const std::string& text);

}  // namespace lane

#include "submit/core/quantity.h"

#include <utility>

#include "common/quantity.h"

namespace lane::submit {

Quantity::Quantity(std::string text) : text_(std::move(text)), value_(parse_quantity(text_)) {}

std::optional<uint64_t> Quantity::bytes() const { return value_ ? quantity_bytes(*value_) : std::nullopt; }

}  // namespace lane::submit

#pragma once
// A Kubernetes quantity given to a submit flag (--cpu, --memory, --shm-size, --cpu-limit,
// --memory-limit, --gpu-memory, a --pvc size): the text as the user wrote it, which the stored
// spec, `describe` and the Kubernetes objects carry unchanged, and its value, parsed once here
// (grammar: common/quantity.h). A text that is not a quantity is kept, without a value, so that
// validate (validate.h) names it in its message; empty text is a flag that was not given.
#include <cstdint>
#include <optional>
#include <string>

namespace lane::submit {

class Quantity {
 public:
  Quantity() = default;
  // Implicit, as a flag's text binds to it (CLI11 assigns the text) and specs are written "8Gi".
  Quantity(std::string text);  // NOLINT(google-explicit-constructor)
  Quantity(const char* text) : Quantity(std::string(text)) {}  // NOLINT(google-explicit-constructor)

  bool given() const { return !text_.empty(); }
  const std::string& text() const { return text_; }
  // The value in base units (cores, bytes: "500m" → 0.5, "1Ki" → 1024); nullopt when the text
  // is not a quantity (or is empty).
  std::optional<double> value() const { return value_; }
  // The value in bytes, rounded up; nullopt when it has none, is negative or is above 9e18.
  std::optional<uint64_t> bytes() const;

  // Two quantities are the same when written the same ("1Gi" and "1024Mi" are two texts).
  bool operator==(const Quantity& other) const { return text_ == other.text_; }

 private:
  std::string text_;
  std::optional<double> value_;
};

}  // namespace lane::submit

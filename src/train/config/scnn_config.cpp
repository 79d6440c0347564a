#include "train/config/scnn_config.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "common/error.h"

namespace lane::model {

int ScnnConfig::channels(int full) const {
  return std::max(4, static_cast<int>(std::lround(full * width_mult)));
}

int ScnnConfig::exist_fc_inputs() const {
  return num_classes * ((input_height / 8) / 2) * ((input_width / 8) / 2);
}

ScnnConfig model_preset(const std::string& name, const std::string& field) {
  ScnnConfig config;
  if (name == "full") return config;
  if (name == "small") {
    config.width_mult = 0.125;
    return config;
  }
  throw UsageError(field + ": unknown model '" + name + "' (use 'full' or 'small')");
}

void validate(const ScnnConfig& c) {
  auto fail = [](const std::string& m) { throw UsageError(m); };
  if (c.num_classes < 2) fail("number of classes must be at least 2 (background + one lane)");
  // At most kMaxInputSide: a TuSimple frame is 1280x720, and far larger sizes overflow a tensor's size.
  if (c.input_height < 16 || c.input_height % 8 != 0 || c.input_height > kMaxInputSide)
    fail("--input-height must be a multiple of 8 from 16 to " + std::to_string(kMaxInputSide) + ", got " +
         std::to_string(c.input_height));
  if (c.input_width < 16 || c.input_width % 8 != 0 || c.input_width > kMaxInputSide)
    fail("--input-width must be a multiple of 8 from 16 to " + std::to_string(kMaxInputSide) + ", got " +
         std::to_string(c.input_width));
  if (!(c.width_mult > 0.0) || c.width_mult > 4.0)
    fail("width multiplier must be in (0, 4], got " + std::to_string(c.width_mult));
  if (!(c.dropout >= 0.0 && c.dropout < 1.0))
    fail("dropout must be in [0, 1), got " + std::to_string(c.dropout));
  if (c.scnn_kernel < 1 || c.scnn_kernel % 2 == 0)
    fail("message-passing kernel must be odd, got " + std::to_string(c.scnn_kernel));
}

}  // namespace lane::model

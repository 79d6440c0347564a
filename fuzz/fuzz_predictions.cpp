// Prediction files for `scnn-train eval`: parsed or rejected with a lane::UsageError (file:line).
#include "common/error.h"
#include "fuzz_input.h"
#include "train/eval/tusimple_metric.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  lane::fuzz::MemFile file(data, size);
  try {
    lane::eval::load_predictions(file.path());
  } catch (const lane::UsageError&) {
  }
  return 0;
}

// TuSimple label files (scnn-train train/eval/inspect): any input is parsed or rejected with a
// lane::UsageError; never a crash, a sanitizer report or another exception type.
#include "common/error.h"
#include "fuzz_input.h"
#include "train/data/tusimple_labels.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  lane::fuzz::MemFile file(data, size);
  try {
    lane::data::load_label_file(file.path());
  } catch (const lane::UsageError&) {
  }
  lane::data::LabelParseOptions skip;
  skip.skip_bad = true;
  lane::data::load_label_file(file.path(), skip);  // skip_bad: every bad line is counted, none throws
  return 0;
}

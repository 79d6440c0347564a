// Names and small values users type: DNS-1123 labels, snapshot names (generated ones must be
// valid), quantities, and the -e secret masking of a command line (NUL-separated words).
#include "common/error.h"
#include "common/names.h"
#include "common/secrets.h"
#include "fuzz_input.h"
#include "storage/core/snapshots.h"
#include "common/quantity.h"

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string s = lane::fuzz::text(data, size);
  const bool label = lane::is_dns1123_label(s);
  try {
    lane::require_dns1123_label(s, "name");
    if (!label) std::abort();  // the check and the requirement disagree
  } catch (const lane::UsageError&) {
    if (label) std::abort();
  }
  const bool snap = lane::storage::is_snapshot_name(s);
  try {
    lane::storage::require_snapshot_name(s);
    if (!snap) std::abort();
  } catch (const lane::UsageError&) {
    if (snap) std::abort();
  }
  if (label) {  // names built from a valid claim and job are valid snapshot names
    if (!lane::storage::is_snapshot_name(lane::storage::training_snapshot_name(s, s, 1764000000000)))
      std::abort();
    if (!lane::storage::is_snapshot_name(lane::storage::default_snapshot_name(s, 1764000000000))) std::abort();
  }
  (void)lane::parse_quantity_bytes(s);
  std::vector<std::string> argv;
  for (size_t start = 0;;) {
    size_t nul = s.find('\0', start);
    argv.push_back(s.substr(start, nul == std::string::npos ? std::string::npos : nul - start));
    if (nul == std::string::npos) break;
    start = nul + 1;
  }
  if (lane::mask_secret_argv(argv).size() != argv.size()) std::abort();
  return 0;
}

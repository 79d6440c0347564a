// Submit flag values: --pvc [CLASS:]SIZE:PATH | CLAIM:PATH[:ro], -v, -e, --port. Accepted or
// a lane::UsageError naming the flag.
#include "cli/spec_parsing.h"
#include "common/error.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string value = lane::fuzz::text(data, size);
  auto guarded = [&](auto parse) {
    try {
      parse(value);
    } catch (const lane::UsageError&) {
    }
  };
  guarded(lane::cli::parse_pvc);
  guarded(lane::cli::parse_host_mount);
  guarded(lane::cli::parse_env);
  guarded(lane::cli::parse_port);
  return 0;
}

// Submit flag values: --pvc [CLASS:]SIZE:PATH | CLAIM:PATH[:ro], -v, -e, --port. Accepted or
// a lane::UsageError naming the flag.
#include "cli/spec_parsing.h"
#include "common/error.h"
#include "submit/core/workload.h"
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
  guarded([](const std::string& v) {
    // --port and stored specs share one parser; what it accepts prints back to the same mapping.
    const auto port = lane::submit::parse_port(v);
    const auto again = lane::submit::parse_port(lane::submit::to_string(port));
    if (again.external != port.external || again.container != port.container ||
        again.external_given != port.external_given)
      __builtin_trap();
  });
  return 0;
}

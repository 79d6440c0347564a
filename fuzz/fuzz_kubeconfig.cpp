// kubeconfig files (KUBECONFIG): loaded or rejected with an exception (lane::Error naming the
// file, or yaml-cpp's parse error); never a crash or a sanitizer report.
#include <exception>

#include "fuzz_input.h"
#include "kube/kubeconfig.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  lane::fuzz::MemFile file(data, size);
  lane::kube::KubeconfigOptions o;
  o.kubeconfig_env = file.path();
  o.home = "/nonexistent";
  try {
    lane::kube::load_kubeconfig(o);
  } catch (const std::exception&) {
  }
  return 0;
}

// scnn-train: the front. It links no libtorch (whose initialisers take about 2 s before main),
// so --help and argument errors answer at once; a valid command is handed, with the same
// argv, to scnn-train-core beside this binary, which parses it again and runs it.
#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>
#include <unistd.h>

#include "common/error.h"
#include "train/commands/verbs.h"

namespace {

// Replaces this process by the trainer (same pid, so mpirun and job supervisors see no change).
[[noreturn]] void exec_core(char** argv) {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw lane::Error(fmt::format("cannot find the scnn-train binary (/proc/self/exe: {})", ec.message()));
  const std::string core = (self.parent_path() / "scnn-train-core").string();
  execv(core.c_str(), argv);
  throw lane::Error(fmt::format("cannot run the trainer '{}': {}; scnn-train-core is installed beside scnn-train",
                                core, std::strerror(errno)));
}

}  // namespace

int main(int argc, char** argv) {
  using namespace lane::train;
  const auto core = [argv](const auto&) { exec_core(argv); };
  Verbs verbs;
  verbs.train = core;
  verbs.predict = core;
  verbs.export_model = core;
  verbs.eval = core;
  verbs.synth = core;
  verbs.inspect = core;
#ifdef LANE_WITH_DOWNLOAD
  verbs.download = core;  // as in scnn-train-core: not in the trainer-only build
#endif
  return run_scnn_train(argc, argv, verbs);
}

#pragma once
// The storage CLI tests run the built lanectl on the local backend with LANECTL_HOME=home.
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "common/atomic_file.h"
#include "test_paths.h"

namespace lane::test {

struct CliRun {
  int code;
  std::string out;
  std::string err;  // with `split` only; otherwise in out
};

// lanectl's stdout and stderr together in `out`, or with `split` each in its own file.
inline CliRun lanectl(const std::filesystem::path& home, const std::string& args, bool split = false) {
  const auto out = home / "out.txt", err = home / "err.txt";
  std::string cmd = "LANECTL_HOME='" + home.string() + "' LANECTL_BACKEND=local '" +
                    (bin_dir() / "lanectl").string() + "' " + args + " > '" + out.string() + "' " +
                    (split ? "2> '" + err.string() + "'" : "2>&1");
  int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_file(out), split ? read_file(err) : ""};
}

}  // namespace lane::test

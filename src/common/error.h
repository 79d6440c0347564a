#pragma once
// Error types shared by both programs. The exit code travels with the error so that
// main() can map usage mistakes to 2 and failed operations to 1, as the CLI contract says.
#include <stdexcept>
#include <string>

namespace lane {

enum class ExitCode : int { kOk = 0, kFailure = 1, kUsage = 2 };

// Something the user asked for could not be done (I/O, backend, state).
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message, ExitCode code = ExitCode::kFailure)
      : std::runtime_error(message), code_(code) {}
  ExitCode code() const { return code_; }

 private:
  ExitCode code_;
};

// The command line or an input file is malformed; the message names the field and the fix.
class UsageError : public Error {
 public:
  explicit UsageError(const std::string& message) : Error(message, ExitCode::kUsage) {}
};

}  // namespace lane

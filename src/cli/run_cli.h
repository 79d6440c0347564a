#pragma once
// lanectl's command line, in-process: parses `argv` (argv[0] is the program), runs the verb
// with the given streams and backend, and returns the exit code (0; 2 for usage errors; 1 for
// failures; a job's code for attach and exec). main.cpp calls it; so do the verb tests.
#include <iosfwd>
#include <string>
#include <vector>

#include "cli/context.h"

namespace lane::cli {

int run_cli(const std::vector<std::string>& argv, std::istream& in, std::ostream& out, std::ostream& err,
            BackendOpener opener);

}  // namespace lane::cli

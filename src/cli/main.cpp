// lanectl: submit and manage lane-detection training jobs, Run:AI style.
#include <iostream>

#include "cli/run_cli.h"
#include "submit/factory/factory.h"

int main(int argc, char** argv) {
  // Hidden verbs of a backend (the local job supervisor, MPI rank wrapper): not user commands.
  if (int code = lane::submit::run_internal_verb(argc, argv); code >= 0) return code;
  const lane::cli::BackendOpener factory{lane::submit::load_backend_config, lane::submit::open_backend};
  return lane::cli::run_cli(std::vector<std::string>(argv, argv + argc), std::cin, std::cout, std::cerr, factory);
}

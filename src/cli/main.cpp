// lanectl: submit and manage lane-detection training jobs, Run:AI style.
#include <iostream>

#include <CLI/CLI.hpp>

#include "common/error.h"
#include "lane/version.h"

int main(int argc, char** argv) {
  CLI::App app{"lanectl: run distributed lane-detection training on Kubernetes or on this machine"};
  app.set_version_flag("--version", std::string("lanectl ") + lane::kVersion + " (" + lane::kGitRevision + ")");
  app.require_subcommand(1);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : static_cast<int>(lane::ExitCode::kUsage);
  } catch (const lane::Error& e) {
    std::cerr << "lanectl: error: " << e.what() << "\n";
    return static_cast<int>(e.code());
  }
  return 0;
}

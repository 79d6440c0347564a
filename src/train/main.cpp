// scnn-train: SCNN lane detection on TuSimple, single process or under mpirun.
#include <iostream>

#include <CLI/CLI.hpp>

#include "common/error.h"
#include "lane/version.h"
#include "train/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"scnn-train: train and evaluate the SCNN lane-detection network on TuSimple"};
  app.set_version_flag("--version", std::string("scnn-train ") + lane::kVersion + " (" + lane::kGitRevision + ")");
  app.require_subcommand(1);
  lane::train::add_train_command(app);
  lane::train::add_predict_command(app);
  lane::train::add_export_command(app);
  lane::train::add_eval_command(app);
  lane::train::add_synth_command(app);
  lane::train::add_inspect_command(app);
#ifdef LANE_WITH_DOWNLOAD
  lane::train::add_download_command(app);  // not in the trainer-only build (no libcurl)
#endif
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : static_cast<int>(lane::ExitCode::kUsage);
  } catch (const lane::Error& e) {
    std::cerr << "scnn-train: error: " << e.what() << "\n";
    return static_cast<int>(e.code());
  } catch (const std::exception& e) {
    std::cerr << "scnn-train: error: " << e.what() << "\n";
    return static_cast<int>(lane::ExitCode::kFailure);
  }
  return 0;
}

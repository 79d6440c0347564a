// scnn-train-core: the trainer the scnn-train front (front.cpp) hands a valid command to; it
// parses the same command tree and runs the verb (single process or under mpirun).
#include <sys/prctl.h>

#include "train/commands/verbs.h"
#include "train/trainer/after_training.h"
#include "train/trainer/device_setup.h"
#include "train/trainer/predictor.h"
#include "train/trainer/stop_signal.h"
#include "train/trainer/trainer.h"

int main(int argc, char** argv) {
  // The front execs this binary in its own process: keep that process's name (ps, pkill -x, the
  // ranks mpirun and the tests look for), as the pid and argv are kept.
  prctl(PR_SET_NAME, "scnn-train");
  using namespace lane::train;
  cap_onednn_isa();  // before any oneDNN kernel runs
  Verbs verbs;
  verbs.train = [](const TrainConfig& config) {
    install_stop_handlers();  // SIGTERM/SIGINT: stop after the step, save the checkpoint
    run_training(config, after_training);
  };
  verbs.predict = [](const PredictOptions& options) { run_predict(options); };
  verbs.export_model = run_export_verb;
  verbs.eval = run_eval_verb;
  verbs.synth = run_synth_verb;
  verbs.inspect = run_inspect_verb;
#ifdef LANE_WITH_DOWNLOAD
  verbs.download = run_download_verb;  // not in the trainer-only build (no libcurl)
#endif
  return run_scnn_train(argc, argv, verbs);
}

// The scnn-train binary: configuration errors exit 2 naming the variable or flag; predict on
// the six real TuSimple frames writes six submission lines and six overlays, and reports the
// first image's time apart from the steady mean over the others.
#include "catch_torch.h"

#include <fstream>
#include <regex>

#include <nlohmann/json.hpp>

#include "common/atomic_file.h"
#include "train/trainer/checkpoint.h"
#include "train/trainer/device_setup.h"
#include "train/trainer/predictor.h"
#include "train/config/train_settings.h"
#include "trainer_test_util.h"

using namespace lane;

TEST_CASE("scnn-train train rejects bad configuration with exit 2 and the variable's name", "[trainer][slow]") {
  const std::string data = "--data-dir " + test::tusimple_dir().string() + " ";
  struct Case { std::string env, args, expect; };
  const std::vector<Case> cases = {
      {"BATCH_SIZE=abc", data, "BATCH_SIZE"},
      {"BATCH_SIZE=0", data, "BATCH_SIZE"},
      {"EPOCHS=-1", data, "EPOCHS"},
      {"VAL_BATCH_SIZE=x", data, "VAL_BATCH_SIZE"},
      {"NUM_WORKERS=two", data, "NUM_WORKERS"},
      {"USE_WORKERS=perhaps", data, "USE_WORKERS"},
      {"USE_VAL=sometimes", data, "USE_VAL"},
      {"DATA_DIR=/nonexistent/tusimple", "", "DATA_DIR"},
      {"", "", "DATA_DIR"},
      {"", data + "--batch-size 0", "--batch-size"},
      {"", data + "--model giant", "--model"},
      {"", data + "--epochs 2x", "--epochs"},
      {"", data + "--lr inf", "--lr: inf is not a finite number"},
      {"", data + "--momentum 1.5", "--momentum: 1.5 must be below 1"},
      {"", data + "--output-dir " + test::tusimple_dir().string() + "/label_data_0601_first6.json",
       "is a file, not a directory"},
      {"", data + "--resume maybe", "--resume: 'maybe' is not off, on or auto"},
  };
  for (const auto& c : cases) {
    INFO(c.env << " " << c.args);
    const auto r = test::run_command("env -u DATA_DIR -u BATCH_SIZE " + c.env + " " + test::scnn_train() +
                                     " train " + c.args);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output, Catch::Contains(c.expect));
  }
}

TEST_CASE("the full network from scratch trains at the default learning rate and warm-up", "[trainer][slow]") {
  // Without warm-up its second step took the loss from 7.2 to 4.6 million (fp32, these frames).
  test::ScratchDir out("full_defaults");
  const auto r = test::run_command(
      "env -u DATA_DIR -u BATCH_SIZE -u EPOCHS " + test::scnn_train() + " train --data-dir " +
      test::tusimple_dir().string() + " --output-dir " + out.path.string() +
      " --train-labels label_data_0601_first6.json --model full --input-height 128 --input-width 224"
      " --batch-size 6 --epochs 4 --threads 1 --precision fp32 --log-every 1 --no-tensorboard");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const auto losses = test::logged_train_losses(out.path / "metrics.jsonl");
  REQUIRE(losses.size() == 4);
  // The first is 7.2; early steps of a network from scratch spike (34 at the fourth, LR 0.02),
  // a divergence is in the millions.
  for (double loss : losses) CHECK(loss < 1000.0);
}

TEST_CASE("scnn-train train --help lists every setting with its variable and real default", "[trainer][slow]") {
  const auto r = test::run_command(test::scnn_train() + " train --help");
  REQUIRE(r.exit_code == 0);
  for (const auto& s : train::train_settings()) {
    INFO(s.flag);
    CHECK_THAT(r.output, Catch::Contains(s.flag) && Catch::Contains(train::setting_help(s)));
  }
  CHECK_THAT(r.output, Catch::Contains("Environment (flags win): DATA_DIR OUTPUT_DIR BATCH_SIZE"));
}

TEST_CASE("predict's time per image keeps the first image (the warm-up) out of the steady mean", "[trainer][fast]") {
  train::PredictTiming timing;
  timing.add(12.25);
  CHECK(timing.describe() == "12.2 ms for its only image");
  timing = {};
  for (double ms : {3675.0, 7.0, 8.0, 9.0}) timing.add(ms);
  CHECK(timing.images == 4);
  CHECK(timing.first_ms == 3675.0);
  CHECK(timing.steady_ms == Approx(8.0));  // with the first averaged in: 924.75
  CHECK(timing.describe() == "8.0 ms per image after a 3675.0 ms first image");
}

TEST_CASE("scnn-train predict on the real 0601 frames writes json-lines and overlays", "[trainer][slow]") {
  test::ScratchDir dir("predict");
  torch::manual_seed(7);
  auto cfg = test::tiny_config(dir.path);
  model::Scnn net(cfg.model);
  torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(0.1));
  const auto ckpt = dir.path / "checkpoint_latest.pt";
  train::save_checkpoint(ckpt, net, opt, {}, {cfg.model, 0});

  const auto clips = test::tusimple_dir() / "clips";
  const auto r = test::run_command(test::scnn_train() + " predict --threads 1 --checkpoint " + ckpt.string() +
                                   " --input " + (clips / "0601").string() + " --raw-root " +
                                   test::tusimple_dir().string() + " --out " + (dir.path / "pred").string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  // The summary's two figures are the per-image lines': the first, and the mean of the other five.
  std::vector<double> per_image;
  const std::regex image_line(R"(: \d+ lanes, ([\d.]+) ms\n)");
  const std::regex summary(
      R"(6 images, ([\d.]+) ms per image after a ([\d.]+) ms first image \(network \+ post-processing, )");
  for (auto it = std::sregex_iterator(r.output.begin(), r.output.end(), image_line); it != std::sregex_iterator(); ++it)
    per_image.push_back(std::stod((*it)[1]));
  REQUIRE(per_image.size() == 6);
  std::smatch m;
  REQUIRE(std::regex_search(r.output, m, summary));
  CHECK(std::stod(m[2]) == per_image[0]);
  double rest = 0;
  for (size_t i = 1; i < per_image.size(); ++i) rest += per_image[i];
  CHECK(std::stod(m[1]) == Approx(rest / 5).margin(0.11));  // each figure is rounded to 0.1 ms

  std::ifstream in(dir.path / "pred" / "predictions.json");
  size_t lines = 0;
  for (std::string line; std::getline(in, line); ++lines) {
    const auto j = nlohmann::json::parse(line);
    CHECK(j["raw_file"].get<std::string>().rfind("clips/0601/", 0) == 0);
    CHECK(j["h_samples"].size() == 56);
    CHECK(j["lanes"].is_array());
    CHECK(j["run_time"].get<double>() > 0);
  }
  CHECK(lines == 6);
  size_t pngs = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.path / "pred" / "overlays"))
    pngs += e.path().extension() == ".png" && std::filesystem::file_size(e.path()) > 0;
  CHECK(pngs == 6);

  const auto bad = test::run_command(test::scnn_train() + " predict --checkpoint " +
                                     (dir.path / "missing.pt").string() + " --input " + clips.string() +
                                     " --out " + (dir.path / "x").string());
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.output, Catch::Contains("missing.pt"));

  // The device: named explicitly it is reported; a bad value from the flag or DEVICE is exit 2
  // naming where it came from; CUDA on a CPU-only build is refused the same way.
  const std::string one = " predict --threads 1 --checkpoint " + ckpt.string() + " --input " +
                          (clips / "0601" / "1494453497604532231" / "20.jpg").string() + " --out " +
                          (dir.path / "one").string();
  const auto on_cpu = test::run_command(test::scnn_train() + one + " --device cpu");
  INFO(on_cpu.output);
  CHECK(on_cpu.exit_code == 0);
  CHECK_THAT(on_cpu.output, Catch::Contains("1 images, ") && Catch::Contains(" ms for its only image (network + post-processing, cpu)"));
  const auto bad_flag = test::run_command(test::scnn_train() + one + " --device tpu");
  CHECK(bad_flag.exit_code == 2);
  CHECK_THAT(bad_flag.output, Catch::Contains("--device"));
  const auto bad_env = test::run_command("DEVICE=tpu " + test::scnn_train() + one);
  CHECK(bad_env.exit_code == 2);
  CHECK_THAT(bad_env.output, Catch::Contains("DEVICE"));
  if (!train::build_has_cuda()) {
    const auto no_cuda = test::run_command(test::scnn_train() + one + " --device cuda");
    CHECK(no_cuda.exit_code == 2);
    CHECK_THAT(no_cuda.output, Catch::Contains("--device"));
  }
}

TEST_CASE("resume refuses another --crop-top or --scnn-edge, and libtorch's backtrace never reaches the user",
          "[trainer][slow]") {
  test::ScratchDir dir("resume_geometry");
  const std::string out = (dir.path / "run").string();
  const std::string train = "OMP_NUM_THREADS=1 " + test::scnn_train() + " train --data-dir " +
                            test::tusimple_dir().string() + " --train-labels label_data_0601_first6.json --model small " +
                            "--input-height 64 --input-width 128 " +
                            "--batch-size 2 --threads 1 --output-dir " + out + " ";
  REQUIRE(test::run_command(train + "--stop-after 1").exit_code == 0);
  auto crop = test::run_command(train + "--resume --crop-top 240");
  CHECK(crop.exit_code == 2);
  CHECK_THAT(crop.output, Catch::Contains("--resume: the checkpoint was trained with --crop-top 0, this run asks "
                                          "for 240"));
  auto edge = test::run_command(train + "--resume --scnn-edge pad");
  CHECK(edge.exit_code == 2);
  CHECK_THAT(edge.output, Catch::Contains("was trained with --scnn-edge orig") &&
                              Catch::Contains("the run asks for --scnn-edge pad"));
  CHECK(test::run_command(train + "--resume --stop-after 2").exit_code == 0);  // the same geometry resumes

  // A --pretrained file that is not a state dict: the reason, without "Exception raised from ... frame #0".
  const std::string garbage = (dir.path / "garbage.pt").string();
  std::ofstream(garbage) << "garbage";
  auto pre = test::run_command(test::scnn_train() + " train --data-dir " + test::tusimple_dir().string() +
                               " --train-labels label_data_0601_first6.json --model full --input-height 64 --input-width 128 "
                               "--batch-size 2 --threads 1 "
                               "--output-dir " + (dir.path / "pre").string() + " --pretrained " + garbage);
  CHECK(pre.exit_code == 2);
  CHECK_THAT(pre.output, Catch::Contains("is not a torch.save() file of a state dict (PytorchStreamReader failed"));
  CHECK_THAT(pre.output, !Catch::Contains("Exception raised from") && !Catch::Contains("frame #0"));
}

TEST_CASE("SIGTERM stops training after the step in progress with its checkpoint saved, and --resume continues",
          "[trainer][slow]") {
  test::ScratchDir dir("sigterm");
  const std::string out = (dir.path / "run").string(), log = (dir.path / "train.log").string();
  const std::string train = "OMP_NUM_THREADS=1 " + test::scnn_train() + " train --data-dir " +
                            test::tusimple_dir().string() + " --train-labels label_data_0601_first6.json --model small " +
                            "--input-height 64 --input-width 128 --batch-size 2 --threads 1 --log-every 1 " +
                            "--epochs 100000 --output-dir " + out + " ";
  // In the background; SIGTERM once it has logged step 3 (as the local backend and Kubernetes stop a
  // job, with a grace period before SIGKILL), twice at once as the local backend delivers it (to the
  // process group, and from the sandbox's init); the shell prints the status it ended with.
  auto r = test::run_command("bash -c '" + train + " > " + log + " 2>&1 & p=$!; for i in $(seq 600); do " +
                             "grep -q \" step 3/\" " + log + " && break; sleep 0.1; done; kill -TERM $p; kill -TERM $p; wait $p; " +
                             "echo status=$?'");
  const std::string text = lane::read_file(log);
  INFO(r.output << "\n" << text);
  CHECK_THAT(r.output, Catch::Contains("status=143"));  // ended by SIGTERM, after saving
  std::smatch m;
  REQUIRE(std::regex_search(text, m, std::regex("stopped by SIGTERM after step (\\d+): checkpoint saved")));
  const int64_t step = std::stoll(m[1]);
  CHECK(step >= 3);
  REQUIRE(std::filesystem::exists(out + "/checkpoint_latest.pt"));  // --checkpoint-every is 500: only the stop saved it
  auto resumed = test::run_command(train + "--resume --stop-after " + std::to_string(step + 2));
  CHECK(resumed.exit_code == 0);
  CHECK_THAT(resumed.output, Catch::Contains("resuming at step " + std::to_string(step)) &&
                                 Catch::Contains("stopped at step " + std::to_string(step + 2)));
}

TEST_CASE("RESUME=auto starts, continues the same run, refuses another run's checkpoint, and stops at the end",
          "[trainer][slow]") {
  test::ScratchDir dir("auto_resume");
  const std::string out = (dir.path / "run").string(), checkpoint = out + "/checkpoint_latest.pt";
  const std::string train = "OMP_NUM_THREADS=1 RESUME=auto " + test::scnn_train() + " train --data-dir " +
                            test::tusimple_dir().string() + " --train-labels label_data_0601_first6.json --model small " +
                            "--input-height 64 --input-width 128 --batch-size 2 --threads 1 --max-steps 4 " +
                            "--output-dir " + out + " ";
  auto first = test::run_command(train + "--stop-after 2");  // stopped as a preempted job is
  INFO(first.output);
  REQUIRE(first.exit_code == 0);
  CHECK_THAT(first.output, Catch::Contains("auto-resume: no checkpoint in '" + out + "' yet: starting at step 0") &&
                               Catch::Contains("stopped at step 2"));
  const std::string saved = lane::read_file(checkpoint);

  // Another run's settings: refused with the differences, its checkpoint left as it was.
  auto other = test::run_command(train + "--lr 0.05");
  INFO(other.output);
  CHECK(other.exit_code == 2);
  CHECK_THAT(other.output, Catch::Contains("environment variable RESUME is auto: '" + checkpoint +
                                           "' was saved by a run with other training settings (lr: 0.025 there, "
                                           "0.05 here)"));
  CHECK(lane::read_file(checkpoint) == saved);

  // The same command (without the stop): continues at step 2 and finishes.
  auto same = test::run_command(train);
  INFO(same.output);
  CHECK(same.exit_code == 0);
  CHECK_THAT(same.output, Catch::Contains("resuming at step 2") && Catch::Contains("finished at step 4"));

  // Restarted once more (as a job killed after training would be): nothing left to train.
  auto again = test::run_command(train);
  INFO(again.output);
  CHECK(again.exit_code == 0);
  CHECK_THAT(again.output, Catch::Contains("resuming at step 4") &&
                               Catch::Contains("has finished its 4 steps: nothing left to train") &&
                               Catch::Contains("finished at step 4"));
  CHECK(train::read_checkpoint_info(checkpoint).model.input_width == 128);

  // --resume alone, last on the line, is on; a word that is no mode is refused by name.
  auto bare = test::run_command("env -u RESUME " + train.substr(std::string("OMP_NUM_THREADS=1 RESUME=auto ").size()) +
                                "--resume");
  CHECK(bare.exit_code == 0);
  CHECK_THAT(bare.output, Catch::Contains("resuming at step 4"));
  auto bad = test::run_command(train + "--resume sometimes");
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.output, Catch::Contains("--resume: 'sometimes' is not off, on or auto"));
}

TEST_CASE("a closed stdout neither ends training nor keeps a stop from saving its checkpoint", "[trainer][slow]") {
  // mpirun closes the pipe that carries a rank's output as soon as it is stopped; the rank's next
  // progress line must not end it (SIGPIPE) before it has saved.
  test::ScratchDir dir("closed_stdout");
  const std::string out = (dir.path / "run").string(), fifo = (dir.path / "stdout").string();
  const std::string train = "OMP_NUM_THREADS=1 " + test::scnn_train() + " train --data-dir " +
                            test::tusimple_dir().string() + " --train-labels label_data_0601_first6.json --model small " +
                            "--input-height 64 --input-width 128 --batch-size 2 --threads 1 --log-every 1 " +
                            "--epochs 100000 --output-dir " + out;
  // The reader of its stdout goes away after the first bytes; training must go on to step 6
  // (metrics.jsonl is written beside), then SIGTERM stops it with its checkpoint.
  auto r = test::run_command("bash -c 'mkfifo " + fifo + "; head -c 1 " + fifo + " > /dev/null & " + train + " > " +
                             fifo + " 2> " + out + ".err & t=$!; for i in $(seq 600); do " +
                             "[ -f " + out + "/metrics.jsonl ] && [ $(wc -l < " + out + "/metrics.jsonl) -ge 6 ] && break; " +
                             "sleep 0.1; done; kill -TERM $t; wait $t; echo status=$?'");
  INFO(r.output << lane::read_file(out + ".err"));
  CHECK_THAT(r.output, Catch::Contains("status=143"));
  CHECK(std::filesystem::exists(out + "/checkpoint_latest.pt"));
}

TEST_CASE("training on frames of another size uses labels in their pixels and refuses labels made for larger frames",
          "[trainer][slow]") {
  test::ScratchDir dir("frame_sizes");
  const auto small = test::tusimple_dir() / "tusimple_sample_512x288";
  const std::string train = "OMP_NUM_THREADS=1 " + test::scnn_train() +
                            " train --model small --input-height 64 --input-width 128 --batch-size 5 --threads 1 "
                            "--epochs 1 --crop-top 160 ";
  // The sample's own labels (scaled with its 512x288 frames): trains and validates.
  auto fits = test::run_command(train + "--data-dir " + small.string() +
                                " --train-labels label_data.json --use-val true --val-labels label_data.json "
                                "--val-batch-size 5 --output-dir " +
                                (dir.path / "fits").string());
  INFO(fits.output);
  CHECK(fits.exit_code == 0);
  CHECK_THAT(fits.output, Catch::Contains("validation at step 2:") && Catch::Contains("(10 frames)"));
  // The original 1280x720 label lines over the same frames: exit 2 before a step, with the fix.
  std::filesystem::create_directories(dir.path / "mismatch");
  std::filesystem::copy(small / "clips", dir.path / "mismatch" / "clips", std::filesystem::copy_options::recursive);
  std::filesystem::copy_file(test::tusimple_dir() / "label_data_0313_sample10_1280x720.json",
                             dir.path / "mismatch" / "labels.json");
  auto other = test::run_command(train + "--data-dir " + (dir.path / "mismatch").string() +
                                 " --train-labels labels.json --use-val false --output-dir " +
                                 (dir.path / "other").string());
  INFO(other.output);
  CHECK(other.exit_code == 2);
  CHECK_THAT(other.output, Catch::Contains("has points down to row 710 but the frame is 512x288") &&
                               Catch::Contains("scale them to these frames (x and h_samples by about 0.41)"));
  CHECK_FALSE(std::filesystem::exists(dir.path / "other" / "checkpoint_latest.pt"));
}

// bench_train_step: images/s of one SGD training step (forward + loss + backward + step) of the
// full SCNN on CPU, with the fast message passing against the naive slice-by-slice baseline
// (narrow + conv2d + cat per slice) in the same run; also the message-passing module alone.
// Usage: bench_train_step [--steps N] [--threads T] [--batch B] [--sizes 288x512,368x640]
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "train/model/scnn.h"
#include "train/trainer/scnn_loss.h"

namespace {

using Clock = std::chrono::steady_clock;

double peak_rss_mib() {
  struct rusage u {};
  ::getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

// Seconds per training step (after one warm-up step).
double time_train_step(lane::model::Scnn& net, int batch, int steps) {
  const auto& c = net->config();
  torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(0.01).momentum(0.9).weight_decay(1e-4));
  const lane::train::ScnnLoss loss_fn(c.num_classes, 0.4, 0.1);
  auto images = torch::randn({batch, 3, c.input_height, c.input_width});
  auto seg = torch::randint(0, c.num_classes, {batch, c.input_height, c.input_width}, torch::kInt64);
  auto exist = torch::randint(0, 2, {batch, c.num_classes - 1}).to(torch::kFloat32);
  auto step = [&] {
    auto l = loss_fn(net->forward(images), seg, exist);
    opt.zero_grad();
    l.total.backward();
    opt.step();
  };
  step();
  const auto t0 = Clock::now();
  for (int i = 0; i < steps; ++i) step();
  return std::chrono::duration<double>(Clock::now() - t0).count() / steps;
}

// Seconds per forward + backward of the message passing alone on a [B, 128, H/8, W/8] map.
double time_message_passing(lane::model::MessagePassing& mp, int batch, int h, int w, int reps) {
  auto x = torch::randn({batch, 128, h / 8, w / 8}).requires_grad_(true);
  auto run = [&] {
    mp->forward(x).sum().backward();
  };
  run();
  const auto t0 = Clock::now();
  for (int i = 0; i < reps; ++i) run();
  return std::chrono::duration<double>(Clock::now() - t0).count() / reps;
}

}  // namespace

int main(int argc, char** argv) {
  int steps = 2, threads = 1, batch = 4;
  std::string sizes = "288x512,368x640";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--steps") steps = std::atoi(argv[i + 1]);
    else if (a == "--threads") threads = std::atoi(argv[i + 1]);
    else if (a == "--batch") batch = std::atoi(argv[i + 1]);
    else if (a == "--sizes") sizes = argv[i + 1];
    else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      return 2;
    }
  }
  torch::set_num_threads(threads);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // rows appear as they are measured
  std::printf("SCNN full network, batch %d, %d thread(s), %d timed step(s) after 1 warm-up\n", batch, threads, steps);
  std::printf("%-9s %-26s %12s %10s %14s\n", "input", "what", "s/step", "img/s", "peak RSS MiB");
  std::stringstream list(sizes);
  for (std::string size; std::getline(list, size, ',');) {
    lane::model::ScnnConfig c;
    std::sscanf(size.c_str(), "%dx%d", &c.input_height, &c.input_width);
    torch::manual_seed(0);
    lane::model::Scnn net(c);
    double t[2];
    for (int naive = 0; naive < 2; ++naive) {
      net->message_passing()->naive = naive == 1;
      t[naive] = time_train_step(net, batch, steps);
      std::printf("%-9s %-26s %12.3f %10.3f %14.0f\n", size.c_str(),
                  naive ? "train step, naive MP" : "train step, fast MP", t[naive], batch / t[naive], peak_rss_mib());
      std::fflush(stdout);
    }
    std::printf("%-9s %-26s %12.3fx\n", size.c_str(), "speed-up fast/naive", t[1] / t[0]);
    double m[2];
    for (int naive = 0; naive < 2; ++naive) {
      net->message_passing()->naive = naive == 1;
      m[naive] = time_message_passing(net->message_passing(), batch, c.input_height, c.input_width, 3);
      std::printf("%-9s %-26s %12.3f %10.3f %14.0f\n", size.c_str(),
                  naive ? "MP fwd+bwd only, naive" : "MP fwd+bwd only, fast", m[naive], batch / m[naive],
                  peak_rss_mib());
    }
    std::printf("%-9s %-26s %12.3fx\n", size.c_str(), "MP speed-up fast/naive", m[1] / m[0]);
  }
  return 0;
}

// Test tool for the checkpoint crash test: saves checkpoint_latest.pt in DIR N times (a tiny
// SCNN, one SGD step between saves, step = 1..N), as training does at each checkpoint.
//   checkpoint_writer DIR N
#include <cstdio>
#include <cstdlib>

#include <torch/torch.h>

#include "train/trainer/checkpoint.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: checkpoint_writer DIR N\n");
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  const int n = std::atoi(argv[2]);
  torch::manual_seed(1);
  auto cfg = lane::model::model_preset("small");
  cfg.input_height = 32;
  cfg.input_width = 64;
  lane::model::Scnn net(cfg);
  torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));
  lane::train::remove_stale_checkpoint_temporaries(dir);
  for (int step = 1; step <= n; ++step) {
    auto out = net->forward(torch::randn({1, 3, 32, 64}));
    auto loss = out.seg_logits.pow(2).mean();
    opt.zero_grad();
    loss.backward();
    opt.step();
    lane::train::save_checkpoint(dir / "checkpoint_latest.pt", net, opt, {step, 0, step, -1}, {cfg, 0});
  }
  return 0;
}

// Checkpoints: a round trip restores weights, momentum and the RNG; an interrupted write
// (the file-size limit makes write() fail half-way) leaves the previous checkpoint intact.
#include "catch_torch.h"

#include <csignal>
#include <sys/resource.h>

#include "common/error.h"
#include "train/trainer/checkpoint.h"
#include "trainer_test_util.h"

using namespace lane;

namespace {

using test::tiny_model;

void one_step(model::Scnn& net, torch::optim::SGD& opt) {
  auto out = net->forward(torch::randn({2, 3, 32, 64}));
  auto loss = out.seg_logits.pow(2).mean() + out.exist_logits.pow(2).mean();
  opt.zero_grad();
  loss.backward();
  opt.step();
}

bool same_parameters(model::Scnn& a, model::Scnn& b) {
  auto pa = a->named_parameters(), pb = b->named_parameters();
  for (const auto& item : pa)
    if (!item.value().equal(pb[item.key()])) return false;
  for (const auto& item : a->named_buffers())
    if (!item.value().equal(b->named_buffers()[item.key()])) return false;
  return true;
}

}  // namespace

TEST_CASE("checkpoint round trip restores model, optimiser, progress and RNG", "[trainer][slow]") {
  test::ScratchDir dir("ckpt_roundtrip");
  torch::manual_seed(5);
  model::Scnn net(tiny_model());
  torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));
  one_step(net, opt);
  const train::TrainingProgress p{7, 1, 2, 0.5};
  const auto path = dir.path / "checkpoint_latest.pt";
  train::save_checkpoint(path, net, opt, p, {net->config(), 40});
  const auto next_random = torch::rand({4});  // drawn after the save

  torch::manual_seed(99);
  model::Scnn other(tiny_model());
  torch::optim::SGD other_opt(other->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));
  CHECK_FALSE(same_parameters(net, other));
  const auto q = train::load_checkpoint(path, other, &other_opt);
  CHECK(same_parameters(net, other));
  CHECK(q.step == 7);
  CHECK(q.epoch == 1);
  CHECK(q.batch_in_epoch == 2);
  CHECK(q.best_accuracy == 0.5);
  CHECK(torch::rand({4}).equal(next_random));
  CHECK(train::read_checkpoint_info(path).crop_top == 40);

  // The momentum buffers came back too: one more identical step keeps both models equal.
  torch::manual_seed(11);
  one_step(net, opt);
  torch::manual_seed(11);
  one_step(other, other_opt);
  CHECK(same_parameters(net, other));

  auto wider = tiny_model();
  wider.num_classes = 5;
  model::Scnn mismatched(wider);
  CHECK_THROWS_AS(train::load_checkpoint(path, mismatched, nullptr), UsageError);
  CHECK_THROWS_AS(train::read_checkpoint_info(dir.path / "missing.pt"), UsageError);
}

TEST_CASE("a CheckpointFile reads the file once: settings, shape and weights come from that read", "[trainer][fast]") {
  test::ScratchDir dir("ckpt_file");
  torch::manual_seed(5);
  model::Scnn net(tiny_model());
  torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));
  one_step(net, opt);
  const auto path = dir.path / "checkpoint_latest.pt";
  train::save_checkpoint(path, net, opt, {3, 0, 3, -1}, {net->config(), 16}, {{"lr", 0.1}});

  train::CheckpointFile checkpoint(path);
  // What the resume of a run does between its settings check and the load: the file may change
  // (a restore, another writer); what was checked is what is loaded.
  std::filesystem::remove(path);
  CHECK(checkpoint.settings() == nlohmann::json{{"lr", 0.1}});
  CHECK(checkpoint.info().crop_top == 16);
  torch::manual_seed(99);
  model::Scnn other(tiny_model());
  torch::optim::SGD other_opt(other->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));
  CHECK(checkpoint.load_into(other, &other_opt).step == 3);
  CHECK(same_parameters(net, other));
  CHECK_THROWS_WITH(train::CheckpointFile(path), Catch::Contains("does not exist"));
}

TEST_CASE("a channels-last run's checkpoint loads into a contiguous model in its own layout", "[trainer][fast]") {
  test::ScratchDir dir("ckpt_layout");
  torch::manual_seed(5);
  model::Scnn net(tiny_model());
  net->set_memory_format(at::MemoryFormat::ChannelsLast);  // what a GPU run trains in
  torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));
  one_step(net, opt);
  const auto path = dir.path / "checkpoint_latest.pt";
  train::save_checkpoint(path, net, opt, {1, 0, 1, 0.0}, {net->config(), 0});

  model::Scnn other(tiny_model());  // what predict and a CPU resume build: contiguous
  train::load_checkpoint(path, other, nullptr);
  CHECK(same_parameters(net, other));
  for (const auto& p : other->parameters()) CHECK(p.is_contiguous());
  const auto conv = other->vgg_units().front().conv->weight;
  CHECK_FALSE(conv.is_contiguous(at::MemoryFormat::ChannelsLast));
  CHECK(net->vgg_units().front().conv->weight.is_contiguous(at::MemoryFormat::ChannelsLast));
}

TEST_CASE("an interrupted checkpoint write never breaks the latest checkpoint", "[trainer][fast]") {
  test::ScratchDir dir("ckpt_atomic");
  torch::manual_seed(6);
  model::Scnn net(tiny_model());
  torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));
  const auto path = dir.path / "checkpoint_latest.pt";
  train::save_checkpoint(path, net, opt, {1, 0, 1, -1}, {net->config(), 0});
  const auto size = std::filesystem::file_size(path);
  model::Scnn saved(tiny_model());
  train::load_checkpoint(path, saved, nullptr);
  one_step(net, opt);  // the model moves on; the next save must replace the file or leave it alone

  // Let write() fail with EFBIG after a third of the checkpoint, as a full disk would.
  struct rlimit old_limit {};
  REQUIRE(::getrlimit(RLIMIT_FSIZE, &old_limit) == 0);
  auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = old_limit;
  small.rlim_cur = size / 3;
  REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
  bool failed = false;
  try {
    train::save_checkpoint(path, net, opt, {2, 0, 2, -1}, {net->config(), 0});
  } catch (const Error&) {
    failed = true;
  }
  ::setrlimit(RLIMIT_FSIZE, &old_limit);
  std::signal(SIGXFSZ, old_handler);
  CHECK(failed);

  // The previous checkpoint is untouched and complete; no temporary file is left behind.
  model::Scnn restored(tiny_model());
  CHECK(train::load_checkpoint(path, restored, nullptr).step == 1);
  CHECK(same_parameters(restored, saved));
  CHECK_FALSE(same_parameters(restored, net));
  size_t files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path)) ++files;
  CHECK(files == 1);

  // And a write that completes replaces it.
  train::save_checkpoint(path, net, opt, {2, 0, 2, -1}, {net->config(), 0});
  CHECK(train::load_checkpoint(path, restored, nullptr).step == 2);
  CHECK(same_parameters(restored, net));
}

// Checkpoint integrity (issue 15, items 3 and 5): every saved checkpoint carries a SHA-256 of its
// payload; a flipped byte anywhere is refused on load (UsageError naming the file and "damaged"),
// a checkpoint without a digest (older, or its digest line removed) is refused (issue 28, item 12),
// and temporaries of a killed save are removed.
#include "catch_torch.h"

#include <fstream>

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/atomic_file.h"
#include "common/error.h"
#include "train/trainer/checkpoint.h"
#include "trainer_test_util.h"

using namespace lane;
namespace fs = std::filesystem;

namespace {

using test::tiny_model;

struct Saved {
  model::Scnn net{tiny_model()};
  torch::optim::SGD opt{net->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9)};
};

}  // namespace

TEST_CASE("a checkpoint with any single flipped byte is refused as damaged, naming the file", "[trainer][slow]") {
  test::ScratchDir dir("ckpt_digest");
  torch::manual_seed(3);
  Saved s;
  const auto path = dir.path / "checkpoint_latest.pt";
  train::save_checkpoint(path, s.net, s.opt, {4, 0, 4, -1}, {s.net->config(), 0});
  const std::string good = read_file(path);
  REQUIRE(good.rfind("lanectl-checkpoint sha256=", 0) == 0);

  // Twelve flips spread over the file (the audit: all were accepted before), plus
  // one in the digest line itself.
  std::vector<size_t> offsets;
  for (int i = 1; i <= 12; ++i) offsets.push_back(good.size() * i / 13);
  offsets.push_back(30);
  for (size_t off : offsets) {
    INFO("offset " << off << " of " << good.size());
    std::string bad = good;
    bad[off] = static_cast<char>(bad[off] ^ 0x10);
    write_file_atomic(path, bad);
    model::Scnn net(tiny_model());
    torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(0.1));
    try {
      train::load_checkpoint(path, net, &opt);
      FAIL("a damaged checkpoint was loaded");
    } catch (const UsageError& e) {
      CHECK_THAT(e.what(), Catch::Contains(path.string()) && Catch::Contains("damaged"));
    }
    CHECK_THROWS_AS(train::read_checkpoint_info(path), UsageError);
  }
  // A truncated file too.
  write_file_atomic(path, good.substr(0, good.size() / 2));
  model::Scnn net(tiny_model());
  CHECK_THROWS_WITH(train::load_checkpoint(path, net, nullptr), Catch::Contains("damaged"));

  write_file_atomic(path, good);
  CHECK(train::load_checkpoint(path, net, nullptr).step == 4);
}

TEST_CASE("a checkpoint without its digest line is refused, also with a flipped weight byte", "[trainer][fast]") {
  test::ScratchDir dir("ckpt_legacy");
  torch::manual_seed(4);
  Saved s;
  const train::TrainingProgress p{9, 1, 0, 0.25};
  const auto saved = dir.path / "checkpoint_latest.pt";
  train::save_checkpoint(saved, s.net, s.opt, p, {s.net->config(), 12});
  // The digest line removed (what the old format looked like), then one byte of the archive flipped.
  std::string file = read_file(saved);
  std::string payload = file.substr(file.find('\n') + 1);
  REQUIRE(file.rfind("lanectl-checkpoint sha256=", 0) == 0);
  const auto path = dir.path / "checkpoint_old.pt";
  for (const bool flip : {false, true}) {
    if (flip) payload[payload.size() / 2] = static_cast<char>(payload[payload.size() / 2] ^ 0x01);
    write_file_atomic(path, payload);
    model::Scnn net(tiny_model());
    INFO("flipped: " << flip);
    CHECK_THROWS_WITH(train::load_checkpoint(path, net, nullptr),
                      Catch::Contains("checkpoint '" + path.string() + "' has no integrity digest") &&
                          Catch::Contains("refused") && Catch::Contains("retrain"));
    CHECK_THROWS_AS(train::read_checkpoint_info(path), UsageError);
  }
}

TEST_CASE("temporaries of a killed checkpoint save are removed by the next save, live writers' are kept", "[trainer][fast]") {
  test::ScratchDir dir("ckpt_tmp");
  torch::manual_seed(5);
  Saved s;
  const auto path = dir.path / "checkpoint_latest.pt";
  // A save killed after writing its temporary: a dead pid's file (a child that exited).
  pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);
  const fs::path dead = dir.path / fmt::format("checkpoint_latest.pt.tmp.{}.0badc0de", child);
  const fs::path live = dir.path / fmt::format("checkpoint_best.pt.tmp.{}.00c0ffee", ::getpid());
  const fs::path other = dir.path / "notes.txt.tmp.1.x";
  for (const auto& p : {dead, live, other}) std::ofstream(p) << "partial";
  train::save_checkpoint(path, s.net, s.opt, {1, 0, 1, -1}, {s.net->config(), 0});
  CHECK_FALSE(fs::exists(dead));
  CHECK(fs::exists(live));   // its writer (this process) is alive
  CHECK(fs::exists(other));  // not a checkpoint temporary
  train::remove_stale_checkpoint_temporaries(dir.path);
  CHECK(fs::exists(live));
}

// `lanectl volume ...` end to end: the built binary, a kubeconfig pointing at fake_arm.py (which
// also serves the PVC/PV reads), credentials from AZURE_* or a 0600 file. Every output is
// searched for the client secret.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sys/wait.h>

#include "common/atomic_file.h"
#include "fake_arm.h"
#include "test_paths.h"

using lane::test::FakeArm;
using lane::test::kAnfSecret;

namespace {

struct Run {
  int code;
  std::string out, err;
};

struct CliEnv {
  FakeArm& arm;
  lane::test::TempDir dir;
  explicit CliEnv(FakeArm& a) : arm(a) {
    std::ofstream(dir.path / "kubeconfig") << "apiVersion: v1\nkind: Config\ncurrent-context: t\n"
        "clusters: [{name: c, cluster: {server: \"" << arm.url() << "\"}}]\n"
        "users: [{name: u, user: {token: kube-token}}]\n"
        "contexts: [{name: t, context: {cluster: c, user: u, namespace: runai-team}}]\n";
  }
  Run run(const std::string& args, const std::string& secret = kAnfSecret) {
    std::string cmd = "env -u LANECTL_ANF_CONFIG KUBECONFIG='" + (dir.path / "kubeconfig").string() +
                      "' LANECTL_HOME='" + (dir.path / "home").string() + "' AZURE_TENANT_ID=tenant-1 " +
                      "AZURE_CLIENT_ID=" + lane::test::kAnfClientId + " AZURE_CLIENT_SECRET='" + secret +
                      "' AZURE_SUBSCRIPTION_ID=00000000-0000-0000-0000-000000000000 LANECTL_ANF_ARM_URL=" +
                      arm.url() + " LANECTL_ANF_AUTHORITY_URL=" + arm.url() + " " +
                      (lane::test::bin_dir() / "lanectl").string() + " " + args + " >'" +
                      (dir.path / "out").string() + "' 2>'" + (dir.path / "err").string() + "'";
    int status = std::system(cmd.c_str());
    Run r{WIFEXITED(status) ? WEXITSTATUS(status) : -1, lane::read_file(dir.path / "out"),
          lane::read_file(dir.path / "err")};
    CHECK(r.out.find(kAnfSecret) == std::string::npos);
    CHECK(r.err.find(kAnfSecret) == std::string::npos);
    return r;
  }
};

}  // namespace

TEST_CASE("anf cli: volume describe, snapshots, revert and set-service-level", "[anf][slow]") {
  FakeArm arm(nlohmann::json{{"polls", 1}, {"pools", {{{"name", "pool-ultra"}, {"serviceLevel", "Ultra"}}}}});
  arm.add_pvc("runai-team", "data", "pvc-1111", {{"internalID", lane::test::kVolume1}});
  CliEnv env(arm);

  auto d = env.run("volume describe --pvc data -n runai-team");
  INFO(d.err);
  REQUIRE(d.code == 0);
  CHECK(d.out.find("Service level:     Premium") != std::string::npos);
  CHECK(d.out.find("resolved by internalID") != std::string::npos);
  auto dj = env.run("volume describe --pvc data -n runai-team -o json");
  CHECK(nlohmann::json::parse(dj.out)["quotaBytes"] == 107374182400);

  for (const char* s : {"s1", "s2"}) {
    auto c = env.run(std::string("volume snapshot create --pvc data -n runai-team --name ") + s);
    INFO(c.err);
    REQUIRE(c.code == 0);
    CHECK(c.out == std::string("ANF snapshot ") + s + " created on volume volume1\n");
  }
  // One path with `snapshot create --backend anf`: the same refusal of a duplicate name.
  auto dup = env.run("volume snapshot create --pvc data -n runai-team --name s1");
  CHECK(dup.code == 2);
  CHECK(dup.err.find("snapshot 's1' already exists on ANF volume 'volume1'") != std::string::npos);
  auto l = env.run("volume snapshot list --pvc data -n runai-team");
  CHECK(l.out.find("s1") != std::string::npos);
  CHECK(l.out.find("s2") != std::string::npos);

  auto no = env.run("volume revert s1 --pvc data -n runai-team");
  CHECK(no.code == 2);
  CHECK(no.err.find("DELETES the newer snapshots: s2") != std::string::npos);
  CHECK(no.err.find("--yes") != std::string::npos);
  auto yes = env.run("volume revert s1 --pvc data -n runai-team --yes");
  CHECK(yes.code == 0);
  CHECK(env.run("volume snapshot list --pvc data -n runai-team").out.find("s2") == std::string::npos);

  auto clone = env.run("volume restore s1 --to-volume fromsnap --pvc data -n runai-team");
  CHECK(clone.code == 0);
  CHECK(env.run("volume snapshot delete s1 --pvc data -n runai-team").code == 0);

  auto lvl = env.run("volume set-service-level Ultra --pvc data -n runai-team");
  // The PV's internalID still names pool1 after the move (Trident would update it); use the id.
  CHECK(lvl.code == 0);
  CHECK(lvl.out.find("to pool pool-ultra (Ultra)") != std::string::npos);
  auto none = env.run("volume set-service-level Standard --volume-id " +
                      std::string(lane::test::kVolume1).replace(std::string(lane::test::kVolume1).find("pool1"), 5, "pool-ultra"));
  CHECK(none.code == 1);
  CHECK(none.err.find("no Standard capacity pool") != std::string::npos);
  CHECK(env.run("volume set-service-level Gold --pvc data").code == 2);
}

TEST_CASE("anf cli: wrong secret, bad config file and bad input fail cleanly without the secret", "[anf][fast]") {
  FakeArm arm;
  arm.add_pvc("runai-team", "data", "pvc-1111", {{"internalID", lane::test::kVolume1}});
  CliEnv env(arm);
  auto bad = env.run("volume describe --pvc data -n runai-team", std::string(kAnfSecret) + "x");
  CHECK(bad.code == 1);
  CHECK(bad.err.find("invalid_client") != std::string::npos);

  auto cfg = env.dir.path / "anf.json";
  std::ofstream(cfg) << R"({"tenantID":"tenant-1","clientID":"x","clientSecret":")" << kAnfSecret << "\"}";
  std::filesystem::permissions(cfg, std::filesystem::perms(0644));
  auto open = env.run("volume describe --pvc data --anf-config " + cfg.string());
  CHECK(open.code == 2);
  CHECK(open.err.find("chmod 600") != std::string::npos);

  CHECK(env.run("volume describe").code == 2);  // neither --pvc nor --volume-id
  CHECK(env.run("volume describe --volume-id /subscriptions/x").code == 2);
  auto missing = env.run("volume describe --pvc nope -n runai-team");
  CHECK(missing.code == 1);
  CHECK(missing.err.find("PVC 'nope' not found") != std::string::npos);
}

namespace {

int count_requests_ending(const nlohmann::json& state, const std::string& method, const std::string& path_end) {
  int n = 0;
  for (const auto& r : state["requests"]) {
    const std::string path = r["path"];
    if (r["method"] == method && path.size() >= path_end.size() &&
        path.compare(path.size() - path_end.size(), path_end.size(), path_end) == 0)
      ++n;
  }
  return n;
}

bool has(const nlohmann::json& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

}  // namespace

TEST_CASE("anf cli: snapshot and restore verbs with --backend anf", "[anf][slow]") {
  FakeArm arm(nlohmann::json{{"polls", 1}});
  arm.add_pvc("runai-team", "data", "pvc-1111", {{"internalID", lane::test::kVolume1}});
  CliEnv env(arm);
  const std::string snap1 = std::string(lane::test::kVolume1) + "/snapshots/s1";
  const std::string snap2 = std::string(lane::test::kVolume1) + "/snapshots/s2";

  for (const char* s : {"s1", "s2"}) {
    auto c = env.run(std::string("snapshot create --pvc data -p team --backend anf --name ") + s);
    INFO(c.err);
    REQUIRE(c.code == 0);
    CHECK(c.out.find(std::string("ANF snapshot ") + s + " created on volume volume1") != std::string::npos);
  }
  CHECK(has(arm.state()["snapshots"], snap1));
  CHECK(has(arm.state()["snapshots"], snap2));
  auto dup = env.run("snapshot create --pvc data -p team --backend anf --name s1");
  CHECK(dup.code == 2);
  CHECK(dup.err.find("already exists") != std::string::npos);

  auto l = env.run("snapshot list --pvc data -n runai-team --backend anf");
  INFO(l.err);
  REQUIRE(l.code == 0);
  CHECK(l.out.find("s1") != std::string::npos);
  CHECK(l.out.find("s2") != std::string::npos);
  auto lj = env.run("snapshot list --volume-id " + std::string(lane::test::kVolume1) + " --backend anf -o json");
  REQUIRE(lj.code == 0);
  CHECK(nlohmann::json::parse(lj.out)["items"].size() == 2);

  // In place without --yes: exit 2, names the snapshot ANF will delete, nothing sent.
  auto no = env.run("restore s1 --in-place --backend anf --pvc data -p team");
  CHECK(no.code == 2);
  CHECK(no.err.find("DELETES the snapshots newer than s1: s2") != std::string::npos);
  CHECK(no.err.find("--yes") != std::string::npos);
  CHECK(count_requests_ending(arm.state(), "POST", "/volume1/revert") == 0);
  CHECK(has(arm.state()["snapshots"], snap2));

  auto yes = env.run("restore s1 --in-place --backend anf --pvc data -p team --yes");
  INFO(yes.err);
  CHECK(yes.code == 0);
  CHECK(yes.out.find("Volume data reverted to snapshot s1. Newer snapshots deleted: s2") != std::string::npos);
  auto after = arm.state();
  CHECK(count_requests_ending(after, "POST", "/volume1/revert") == 1);
  CHECK_FALSE(has(after["snapshots"], snap2));
  CHECK(has(after["snapshots"], snap1));

  // New volume from the snapshot, in the same pool.
  auto clone = env.run("restore s1 --to-volume fromsnap --backend anf --pvc data -p team");
  INFO(clone.err);
  CHECK(clone.code == 0);
  CHECK(clone.out.find("restored to new ANF volume fromsnap") != std::string::npos);
  const std::string new_volume = std::string(lane::test::kVolume1).substr(0, std::string(lane::test::kVolume1).rfind('/') + 1) + "fromsnap";
  CHECK(has(arm.state()["volumes"], new_volume));

  auto del = env.run("snapshot delete s1 --pvc data -p team --backend anf");
  INFO(del.err);
  CHECK(del.code == 0);
  CHECK_FALSE(has(arm.state()["snapshots"], snap1));
}

TEST_CASE("anf cli: --backend and the ANF options are checked before any network call", "[anf][fast]") {
  FakeArm arm;
  CliEnv env(arm);
  auto bad = env.run("snapshot list --backend netapp");
  CHECK(bad.code == 2);
  CHECK(bad.err.find("unknown --backend 'netapp'") != std::string::npos);
  CHECK(env.run("restore s1 --in-place --pvc data --backend nfs").code == 2);
  auto stray = env.run("snapshot list --volume-id " + std::string(lane::test::kVolume1));
  CHECK(stray.code == 2);
  CHECK(stray.err.find("add --backend anf") != std::string::npos);
  auto mix = env.run("restore s1 --to-pvc x --backend anf --pvc data");
  CHECK(mix.code == 2);
  CHECK(mix.err.find("--to-volume") != std::string::npos);
  CHECK(env.run("restore s1 --to-volume x --pvc data").code == 2);  // --to-volume needs --backend anf
  CHECK(env.run("restore s1 --in-place --backend anf").code == 2);  // neither --pvc nor --volume-id
  CHECK(env.run("snapshot delete s1 --pvc data").code == 2);       // --pvc on delete needs --backend anf
  CHECK(arm.state()["requests"].empty());
}

TEST_CASE("anf cli: after set-service-level, --pvc finds the moved volume by name and remembers its id",
          "[anf][slow]") {
  FakeArm arm(nlohmann::json{{"polls", 1}, {"pools", {{{"name", "pool-ultra"}, {"serviceLevel", "Ultra"}}}}});
  arm.add_pvc("runai-team", "data", "pvc-1111", {{"internalID", lane::test::kVolume1}});
  CliEnv env(arm);
  auto lvl = env.run("volume set-service-level Ultra --pvc data -n runai-team");
  INFO(lvl.err);
  REQUIRE(lvl.code == 0);
  // The PV's internalID still names pool1.
  auto d = env.run("volume describe --pvc data -n runai-team");
  INFO(d.err);
  REQUIRE(d.code == 0);
  CHECK(d.out.find("Capacity pool:     pool-ultra") != std::string::npos);
  const auto moves = nlohmann::json::parse(lane::read_file(env.dir.path / "home" / "anf-volume-moves.json"));
  const std::string moved = std::string(lane::test::kVolume1).replace(std::string(lane::test::kVolume1).find("pool1"), 5, "pool-ultra");
  CHECK(moves[lane::test::kVolume1] == moved);
  const int lists = count_requests_ending(arm.state(), "GET", "/capacityPools");
  auto c = env.run("snapshot create --pvc data -p team --backend anf --name after-move");
  INFO(c.err);
  CHECK(c.code == 0);
  CHECK(count_requests_ending(arm.state(), "GET", "/capacityPools") == lists);  // the remembered id: no search
}

TEST_CASE("anf cli: no file of the CLI names a storage provider, the provider declares its options", "[anf][fast]") {
  for (const auto& e : std::filesystem::directory_iterator(lane::test::source_dir() / "src" / "cli")) {
    std::string text = lane::read_file(e.path());
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
    for (const char* name : {"anf", "azure", "netapp", "trident"}) {
      INFO(e.path().string() << " names " << name);
      CHECK(text.find(name) == std::string::npos);
    }
  }
  FakeArm arm;
  CliEnv env(arm);
  auto help = env.run("snapshot list --help");
  CHECK(help.out.find("--anf-config") != std::string::npos);
  CHECK(help.out.find("LANECTL_ANF_CONFIG") != std::string::npos);
}

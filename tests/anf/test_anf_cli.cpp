// `lanectl volume ...` end to end: the built binary, a kubeconfig pointing at fake_arm.py (which
// also serves the PVC/PV reads), credentials from AZURE_* or a 0600 file. Every output is
// searched for the client secret.
#include <catch2/catch.hpp>

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

TEST_CASE("anf cli: volume describe, snapshots, revert and set-service-level") {
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

  for (const char* s : {"s1", "s2"}) REQUIRE(env.run(std::string("volume snapshot create --pvc data -n runai-team --name ") + s).code == 0);
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

TEST_CASE("anf cli: wrong secret, bad config file and bad input fail cleanly without the secret") {
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

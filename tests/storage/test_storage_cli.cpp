// lanectl snapshot / restore / lineage end to end on the local backend (no training): a job
// fills a new volume, then the verbs run as a user would type them.
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "common/atomic_file.h"
#include "test_paths.h"
#include "tree_util.h"

namespace {

struct Run {
  int code;
  std::string out;
};

Run lanectl(const std::filesystem::path& home, const std::string& args) {
  const auto out = home / "out.txt";
  std::string cmd = "LANECTL_HOME='" + home.string() + "' LANECTL_BACKEND=local '" +
                    (lane::test::bin_dir() / "lanectl").string() + "' " + args + " > '" + out.string() + "' 2>&1";
  int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, lane::read_file(out)};
}

}  // namespace

TEST_CASE("snapshot, restore and lineage through lanectl, and in-place revert needs --yes", "[storage][fast]") {
  lane::test::TempDir home("cli");
  REQUIRE(lanectl(home.path, "submit fill -i ubuntu --pvc :1Gi:/mnt -e API_TOKEN=xyz --command -- "
                             "sh -c 'echo data > /mnt/a && echo model > /mnt/b'").code == 0);
  for (int i = 0; i < 100 && lanectl(home.path, "list").out.find("Succeeded") == std::string::npos; ++i)
    std::system("sleep 0.2");

  Run c = lanectl(home.path, "snapshot create --pvc pvc-fill-0 --name s1 --job fill");
  REQUIRE(c.code == 0);
  CHECK(c.out.find("Snapshot s1 created in namespace runai-default") != std::string::npos);
  CHECK(lanectl(home.path, "snapshot create --pvc pvc-fill-0 --name s1").code == 2);
  CHECK(lanectl(home.path, "snapshot create --pvc pvc-fill-0 --name ../x").code == 2);
  REQUIRE(lanectl(home.path, "snapshot create --pvc pvc-fill-0 --name s2").code == 0);

  Run refuse = lanectl(home.path, "restore s1 --in-place --pvc pvc-fill-0");
  CHECK(refuse.code == 2);
  CHECK(refuse.out.find("--yes") != std::string::npos);
  CHECK(refuse.out.find(": s2") != std::string::npos);  // names the newer snapshot

  REQUIRE(lanectl(home.path, "restore s1 --to-pvc restored").code == 0);
  CHECK(lane::read_file(home.path / "volumes" / "restored" / "a") == "data\n");
  CHECK(lanectl(home.path, "restore s1 --in-place --pvc pvc-fill-0 --yes").code == 0);
  CHECK(lanectl(home.path, "snapshot verify s1").code == 0);

  Run lin = lanectl(home.path, "lineage s1 -o json");
  REQUIRE(lin.code == 0);
  auto doc = nlohmann::json::parse(lin.out);
  CHECK(doc["items"][0]["restoredVolumes"][0] == "restored");
  CHECK(lanectl(home.path, "lineage no-such-thing").code == 1);
  CHECK(lanectl(home.path, "snapshot delete s2").code == 0);
  CHECK(lanectl(home.path, "snapshot list -o json").out.find("\"s2\"") == std::string::npos);
}

// lanectl snapshot / restore / lineage end to end on the local backend (no training): a job
// fills a new volume, then the verbs run as a user would type them.
#include <sys/wait.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "common/atomic_file.h"
#include "storage_cli_util.h"
#include "support/skip_case.h"
#include "test_paths.h"
#include "tree_util.h"

using lane::test::lanectl;
using Run = lane::test::CliRun;

namespace {

// A job `job` that fills its new volume pvc-<job>-0 with `mib` MiB; waits until it succeeded.
void fill_volume(const std::filesystem::path& home, const std::string& job, int mib) {
  REQUIRE(lanectl(home, "submit " + job + " -i ubuntu --pvc :1Gi:/mnt --command -- sh -c 'head -c " +
                            std::to_string(mib) + "M /dev/urandom > /mnt/a && echo b > /mnt/b'")
              .code == 0);
  for (int i = 0; i < 100 && lanectl(home, "list").out.find("Succeeded") == std::string::npos; ++i)
    std::system("sleep 0.2");
  REQUIRE(lanectl(home, "list").out.find("Succeeded") != std::string::npos);
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
  // --job records the job in the lineage (image, command, env with the secret masked).
  const auto& job = doc["items"][0]["job"];
  INFO(lin.out);
  CHECK(job.value("name", "") == "fill");
  CHECK(job.value("image", "") == "ubuntu");
  CHECK(job["env"].value("API_TOKEN", "") == "****");
  CHECK(lin.out.find("xyz") == std::string::npos);
  // A job that is gone is named, with a warning that its lineage cannot say more.
  Run nojob = lanectl(home.path, "snapshot create --pvc pvc-fill-0 --name s3 --job nope -q");
  CHECK(nojob.code == 0);
  CHECK(nojob.out.find("warning: --job nope: no such job in project 'default'") != std::string::npos);
  CHECK(nlohmann::json::parse(lanectl(home.path, "lineage s3 -o json").out)["items"][0]["job"].is_null());
  CHECK(lanectl(home.path, "lineage no-such-thing").code == 1);
  CHECK(lanectl(home.path, "snapshot delete s2").code == 0);
  CHECK(lanectl(home.path, "snapshot list -o json").out.find("\"s2\"") == std::string::npos);
}

TEST_CASE("snapshot create, verify and restore: a summary line on stderr when it is a file, nothing with --quiet", "[storage][slow]") {
  lane::test::TempDir home("cli-progress");
  fill_volume(home.path, "fill", 6);

  Run c = lanectl(home.path, "snapshot create --pvc pvc-fill-0 --name big-one", true);
  REQUIRE(c.code == 0);
  CHECK(c.out.find("Snapshot big-one created") != std::string::npos);  // stdout as before
  CHECK(c.err.rfind("snapshot create: 6.0 MiB, 2 files in ", 0) == 0);
  CHECK(c.err.find("MiB/s)\n") != std::string::npos);
  CHECK(std::count(c.err.begin(), c.err.end(), '\n') == 1);
  CHECK(c.err.find('\r') == std::string::npos);

  Run q = lanectl(home.path, "snapshot create --pvc pvc-fill-0 --name big-two --quiet", true);
  REQUIRE(q.code == 0);
  CHECK(q.err.empty());
  Run v = lanectl(home.path, "snapshot verify big-one", true);
  CHECK(v.err.rfind("snapshot verify: 6.0 MiB, 2 files in ", 0) == 0);
  CHECK(lanectl(home.path, "snapshot verify big-one -q", true).err.empty());
  Run r = lanectl(home.path, "restore big-one --to-pvc copy", true);
  CHECK(r.err.rfind("restore: 6.0 MiB, 2 files in ", 0) == 0);
  CHECK(lanectl(home.path, "restore big-two --to-pvc copy2 --quiet", true).err.empty());

  // On a terminal (a pty through script(1)): the line drawn with '\r', ended with a newline.
  if (std::system("command -v script >/dev/null 2>&1") != 0) LANE_SKIP_CASE("script(1) is not installed");
  const std::string inner = "LANECTL_HOME=" + home.path.string() + " LANECTL_BACKEND=local " +
                            (lane::test::bin_dir() / "lanectl").string() + " snapshot verify big-one 2>&1 >/dev/null";
  const auto tty = home.path / "tty.txt";
  REQUIRE(std::system(("script -q -e -c '" + inner + "' /dev/null > '" + tty.string() + "'").c_str()) == 0);
  const std::string shown = lane::read_file(tty);
  CHECK(shown.find("\rsnapshot verify: ") != std::string::npos);
  CHECK(shown.find(" / 6.0 MiB (") != std::string::npos);
  CHECK(shown.find("/2 files") != std::string::npos);
  CHECK(shown.find("\rsnapshot verify: 6.0 MiB, 2 files in ") != std::string::npos);
}

TEST_CASE("snapshots named by a unique prefix or short ID, restore --job, and ambiguous prefixes", "[storage][slow]") {
  lane::test::TempDir home("cli-names");
  fill_volume(home.path, "fill", 1);
  const std::string a = "snap-pvc-fill-0-dist-lane-detection-training-launcher-2026-11-26-14-24-57";
  const std::string b = "snap-pvc-fill-0-retrain-restored-launcher-2026-11-26-14-31-02";
  REQUIRE(lanectl(home.path, "snapshot create --pvc pvc-fill-0 --name " + a + " --job train-a -q").code == 0);
  REQUIRE(lanectl(home.path, "snapshot create --pvc pvc-fill-0 --name " + b + " -q").code == 0);

  const auto items = nlohmann::json::parse(lanectl(home.path, "snapshot list -o json").out)["items"];
  REQUIRE(items.size() == 2);
  const std::string id_b = items[1]["id"].get<std::string>().substr(0, 8);
  Run table = lanectl(home.path, "snapshot list");
  CHECK(table.out.rfind("ID        NAME", 0) == 0);
  CHECK(table.out.find(id_b + "  " + b) != std::string::npos);

  Run amb = lanectl(home.path, "snapshot describe snap-pvc-fill-0-");
  CHECK(amb.code == 2);
  CHECK(amb.out.find("is ambiguous: it matches 2 snapshots") != std::string::npos);
  CHECK(amb.out.find("  " + a) != std::string::npos);
  CHECK(amb.out.find("  " + b) != std::string::npos);

  CHECK(lanectl(home.path, "snapshot describe snap-pvc-fill-0-r").out.find("Name:            " + b) != std::string::npos);
  CHECK(lanectl(home.path, "snapshot verify " + id_b).out.find("Snapshot " + b + " verified") != std::string::npos);
  CHECK(lanectl(home.path, "lineage " + id_b).out.find("Snapshot:          " + b + " (ID " + id_b + ")") != std::string::npos);

  Run by_job = lanectl(home.path, "restore --job train-a --to-pvc from-job -q");
  CHECK(by_job.code == 0);
  CHECK(by_job.out.find("Snapshot " + a + " restored to new volume from-job.") != std::string::npos);
  Run no_job = lanectl(home.path, "restore --job nobody --to-pvc x");
  CHECK(no_job.code == 1);
  CHECK(no_job.out.find("job 'nobody' took no snapshot") != std::string::npos);
  CHECK(lanectl(home.path, "restore " + id_b + " --job train-a --to-pvc y").code == 2);
  CHECK(lanectl(home.path, "restore --to-pvc y").code == 2);

  Run del = lanectl(home.path, "snapshot delete snap-pvc-fill-0-d");
  CHECK(del.code == 0);
  CHECK(del.out == "Snapshot " + a + " deleted.\n");
}

namespace {

// Gives the lineage record of `snapshot` a job and final metrics, as an end-of-training snapshot has.
void record_run(const std::filesystem::path& home, const std::string& snapshot, const std::string& job,
                const nlohmann::json& metrics) {
  const auto path = home / "snapshots" / "lineage" / (snapshot + ".json");
  auto rec = nlohmann::json::parse(lane::read_file(path));
  rec["job"] = {{"name", job}, {"namespace", "runai-default"}, {"image", "scnn-train"}, {"command", nlohmann::json::array()},
                {"env", nlohmann::json::object()}, {"codeVersion", ""}, {"spec", nlohmann::json::object()}};
  rec["finalMetrics"] = metrics;
  lane::write_file_atomic(path, rec.dump(2));
}

}  // namespace

TEST_CASE("lineage --compare: two runs' final metrics side by side, identical to the bit or not", "[storage][slow]") {
  lane::test::TempDir home("cli-compare");
  fill_volume(home.path, "fill", 1);
  const double loss = 0.13324342978497347, acc = 0.9577442956349206;
  const std::map<std::string, double> runs = {{"first", loss}, {"again", loss}, {"other", std::nextafter(loss, 1.0)}};
  double speed = 10.0;  // a timing: differs from run to run, not compared
  for (const auto& [job, l] : runs) {
    REQUIRE(lanectl(home.path, "snapshot create --pvc pvc-fill-0 --name snap-" + job + " --job " + job + " -q").code == 0);
    record_run(home.path, "snap-" + job, job,
               {{"train", {{"loss", l}, {"images_per_s", speed++}}}, {"val", {{"accuracy", acc}}}});
  }

  Run same = lanectl(home.path, "lineage first --compare again");
  INFO(same.out);
  REQUIRE(same.code == 0);
  CHECK(same.out ==
        "METRIC              first                again\n"
        "train.images_per_s  11.0                 10.0\n"
        "train.loss          0.13324342978497347  0.13324342978497347\n"
        "val.accuracy        0.9577442956349206   0.9577442956349206\n"
        "The final metrics of first and again are identical (bit-exact): all 2 values.\n"
        "Not compared (timings): train.images_per_s.\n");

  Run diff = lanectl(home.path, "lineage first --compare other");
  REQUIRE(diff.code == 0);
  CHECK(diff.out.find("train.loss          0.13324342978497347  0.1332434297849735\n") != std::string::npos);
  CHECK(diff.out.find("The final metrics of first and other differ in 1 of 2 values: train.loss.\n") != std::string::npos);

  auto doc = nlohmann::json::parse(lanectl(home.path, "lineage first --compare again -o json").out);
  CHECK(doc["identical"] == true);
  CHECK(doc["metrics"][1]["a"] == loss);
  CHECK(doc["metrics"][0]["timing"] == true);
  CHECK(lanectl(home.path, "lineage first --compare fill").code == 1);  // no metrics recorded
  CHECK(lanectl(home.path, "lineage first --compare nobody").code == 1);
}

TEST_CASE("snapshots are per project: -p scopes list, create, restore, revert and delete, -A lists them all",
          "[storage][fast]") {
  lane::test::TempDir home("cli-projects");
  REQUIRE(lanectl(home.path, "project create team-a --gpu-quota 0").code == 0);
  REQUIRE(lanectl(home.path, "project create team-b --gpu-quota 0").code == 0);
  REQUIRE(lanectl(home.path, "submit w -p team-a -i ubuntu --pvc :10Mi:/mnt --command -- sh -c 'echo a > /mnt/f'")
              .code == 0);
  for (int i = 0; i < 100 && lanectl(home.path, "list -p team-a").out.find("Succeeded") == std::string::npos; ++i)
    std::system("sleep 0.2");
  REQUIRE(lanectl(home.path, "snapshot create --pvc pvc-w-0 -p team-a --name snap-a -q").code == 0);

  // Another project's volume and snapshot: refused, naming the owner, and nothing made.
  Run create = lanectl(home.path, "snapshot create --pvc pvc-w-0 -p team-b --name snap-b -q");
  CHECK(create.code == 2);
  CHECK(create.out.find("volume 'pvc-w-0' belongs to project 'team-a', not 'team-b'; add -p team-a") !=
        std::string::npos);
  Run restore = lanectl(home.path, "restore snap-a --to-pvc mine -p team-b -q");
  CHECK(restore.code == 2);
  CHECK(restore.out.find("snapshot 'snap-a' belongs to project 'team-a', not 'team-b'; add -p team-a") !=
        std::string::npos);
  CHECK(!std::filesystem::exists(home.path / "volumes" / "mine"));
  CHECK(lanectl(home.path, "restore snap-a --in-place --pvc pvc-w-0 -p team-b --yes -q").code == 2);
  CHECK(lanectl(home.path, "snapshot delete snap-a -p team-b").code == 2);
  CHECK(lanectl(home.path, "snapshot delete snap-a").code == 2);  // the configured project: default
  CHECK(lanectl(home.path, "snapshot list -p nope").code == 2);

  // Listings: the project's own; -A every project's.
  CHECK(lanectl(home.path, "snapshot list -p team-b -o json").out.find("snap-a") == std::string::npos);
  CHECK(lanectl(home.path, "snapshot list -p team-a -o json").out.find("\"snap-a\"") != std::string::npos);
  CHECK(lanectl(home.path, "snapshot list -A -o json").out.find("\"snap-a\"") != std::string::npos);
  CHECK(lanectl(home.path, "snapshot list -A -p team-a").code == 2);
  // -A says whose each snapshot is: a PROJECT column after NAME, "project" in JSON.
  const Run all = lanectl(home.path, "snapshot list -A");
  INFO(all.out);
  CHECK(all.out.find("ID        NAME    PROJECT  VOLUME") != std::string::npos);
  CHECK(all.out.find("snap-a  team-a   pvc-w-0") != std::string::npos);
  CHECK(lanectl(home.path, "snapshot list -p team-a").out.find("PROJECT") == std::string::npos);
  const auto listed = nlohmann::json::parse(lanectl(home.path, "snapshot list -A -o json").out);
  REQUIRE(listed["items"].size() == 1);
  CHECK(listed["items"][0]["project"] == "team-a");

  // In its own project it all works; the restored volume is team-a's.
  REQUIRE(lanectl(home.path, "restore snap-a --to-pvc mine -p team-a -q").code == 0);
  CHECK(lanectl(home.path, "volume list -p team-a").out.find("mine") != std::string::npos);
  CHECK(lanectl(home.path, "restore snap-a --in-place --pvc pvc-w-0 -p team-a --yes -q").code == 0);
  CHECK(lanectl(home.path, "snapshot delete snap-a -p team-a").code == 0);

  // A project is deleted only without jobs and volumes: its volumes would be hidden, not gone.
  REQUIRE(lanectl(home.path, "delete w -p team-a").code == 0);
  Run del = lanectl(home.path, "project delete team-a");
  CHECK(del.code == 1);
  CHECK(del.out.find("project 'team-a' still has 2 volume(s) (mine, pvc-w-0)") != std::string::npos);
  CHECK(lanectl(home.path, "project list").out.find("team-a") != std::string::npos);
  REQUIRE(lanectl(home.path, "volume delete mine -p team-a -q").code == 0);
  REQUIRE(lanectl(home.path, "volume delete pvc-w-0 -p team-a -q").code == 0);
  CHECK(lanectl(home.path, "project delete team-a").code == 0);
}

TEST_CASE("snapshots of one volume without --name in the same second get distinct names", "[storage][fast]") {
  lane::test::TempDir home("cli-names");
  REQUIRE(lanectl(home.path, "submit w -i ubuntu --pvc :10Mi:/mnt --command -- sh -c 'echo a > /mnt/f'").code == 0);
  for (int i = 0; i < 100 && lanectl(home.path, "list").out.find("Succeeded") == std::string::npos; ++i)
    std::system("sleep 0.2");
  // Three at once: the generated names (<pvc>-<YYYYMMDD-HHMMSS>) mostly share their second.
  REQUIRE(std::system(("cd '" + home.path.string() + "' && for i in 1 2 3; do LANECTL_HOME='" + home.path.string() +
                       "' '" + (lane::test::bin_dir() / "lanectl").string() +
                       "' snapshot create --pvc pvc-w-0 -q > out-$i.txt 2>&1 & done; wait")
                          .c_str()) == 0);
  for (int i = 1; i <= 3; ++i) {
    const std::string out = lane::read_file(home.path / ("out-" + std::to_string(i) + ".txt"));
    INFO(out);
    CHECK(out.find("Snapshot pvc-w-0-") != std::string::npos);
    CHECK(out.find("error") == std::string::npos);
  }
  auto doc = nlohmann::json::parse(lanectl(home.path, "snapshot list -o json", true).out);
  std::set<std::string> names;
  for (const auto& s : doc["items"]) names.insert(s.value("name", ""));
  CHECK(names.size() == 3);
  // A name the user gives is not changed: a taken one is refused.
  const std::string first = *names.begin();
  CHECK(lanectl(home.path, "snapshot create --pvc pvc-w-0 -q --name " + first).code == 2);
}

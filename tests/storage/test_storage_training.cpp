// The end-of-training snapshot (ENABLE_SNAPSHOT/PVC_NAME) and the lineage views built from it.
#include <cstdlib>
#include <regex>
#include <sstream>

#include <catch2/catch.hpp>

#include "common/atomic_file.h"
#include "common/error.h"
#include "common/run_outputs.h"
#include "dir_volumes.h"
#include "storage/core/lineage_view.h"
#include "storage/local/local_snapshot_store.h"
#include "submit/training/training_snapshot.h"
#include "tree_util.h"

using namespace lane;
using namespace lane::storage;
using namespace lane::submit;
using lane::test::TempDir;
using lane::test::write_text;

namespace {

submit::JobSpec training_spec() {
  submit::JobSpec spec;
  spec.name = "dist-lane-detection-training";
  spec.project = "lane-detection";
  spec.image = "lanectl/scnn-train:local";
  spec.command = {"scnn-train", "train"};
  spec.args = {"--steps", "2"};
  spec.env = {{"BATCH_SIZE", "4"}, {"ENABLE_SNAPSHOT", "true"}, {"PVC_NAME", "pvc-data"},
              {"AZURE_CLIENT_SECRET", "s3cr3t-value"}, {"HF_TOKEN", "tok-value"}};
  submit::PvcMount m;
  m.claim = "pvc-data";
  m.mount_path = "/mnt";
  spec.pvcs = {m};
  return spec;
}

}  // namespace

TEST_CASE("ENABLE_SNAPSHOT and PVC_NAME select the end-of-training snapshot", "[storage][fast]") {
  ::unsetenv("ENABLE_SNAPSHOT");
  CHECK_FALSE(training_snapshot_request_from_env("/out", "abc"));
  ::setenv("ENABLE_SNAPSHOT", "false", 1);
  CHECK_FALSE(training_snapshot_request_from_env("/out", "abc"));
  ::setenv("ENABLE_SNAPSHOT", "TRUE", 1);
  ::unsetenv("PVC_NAME");
  CHECK_THROWS_AS(training_snapshot_request_from_env("/out", "abc"), UsageError);
  ::setenv("PVC_NAME", "Bad_Name", 1);
  CHECK_THROWS_AS(training_snapshot_request_from_env("/out", "abc"), UsageError);
  ::setenv("PVC_NAME", "pvc-data", 1);
  ::setenv("LANECTL_JOB_NAME", "train-1", 1);
  ::setenv("LANECTL_PROJECT", "team-a", 1);
  auto req = training_snapshot_request_from_env("/out", "abc");
  REQUIRE(req);
  CHECK(req->pvc == "pvc-data");
  CHECK(req->job == "train-1");
  CHECK(req->project == "team-a");
  for (const char* v : {"ENABLE_SNAPSHOT", "PVC_NAME", "LANECTL_JOB_NAME", "LANECTL_PROJECT"}) ::unsetenv(v);
}

TEST_CASE("final metrics are the last value of each key per kind, torn lines skipped", "[storage][fast]") {
  TempDir tmp("metrics");
  write_text(tmp.path / "metrics.jsonl",
             "{\"kind\":\"train\",\"step\":1,\"loss\":0.9}\n"
             "{\"kind\":\"val\",\"step\":1,\"accuracy\":0.5}\n"
             "{\"kind\":\"train\",\"step\":2,\"loss\":0.4,\"lr\":0.01}\n"
             "{\"kind\":\"train\",\"st");  // killed mid-write
  nlohmann::json m = read_final_metrics(tmp.path);
  CHECK(m["train"]["loss"] == 0.4);
  CHECK(m["train"]["step"] == 2);
  CHECK(m["train"]["lr"] == 0.01);
  CHECK(m["val"]["accuracy"] == 0.5);
  CHECK(read_final_metrics(tmp.path / "nothing-here").empty());
}

TEST_CASE("final metrics read what the trainer's MetricsRecord lines say", "[storage][fast]") {
  TempDir tmp("metrics-records");
  const lane::RunLayout run{tmp.path};
  const lane::MetricsRecord train{std::string(lane::MetricsRecord::kTrain), {{"step", 7}, {"loss", 0.125}}};
  const lane::MetricsRecord val{std::string(lane::MetricsRecord::kVal), {{"step", 7}, {"accuracy", 0.875}}};
  write_text(run.metrics(), train.to_line() + "\n" + val.to_line() + "\n");
  const nlohmann::json m = read_final_metrics(run.dir);
  CHECK(m["train"] == train.fields);
  CHECK(m["val"] == val.fields);
}

TEST_CASE("snapshot after training: seed name and log line, lineage with masked secrets and metrics", "[storage][fast]") {
  TempDir tmp("train-snap");
  test::DirVolumes volumes(tmp.path / "volumes");
  local::LocalSnapshotStore store(tmp.path / "snapshots", volumes);
  auto vol = volumes.create("pvc-data", "1Gi", "", lane::storage::VolumeOrigin::user()).local_path;
  write_text(vol / "tusimple/clips/0001.jpg", "image-bytes");
  write_text(vol / "output/metrics.jsonl", "{\"kind\":\"train\",\"step\":2,\"loss\":0.25}\n");
  write_text(vol / "output/checkpoint_latest.pt", "weights");

  TrainingSnapshotRequest req{"pvc-data", "dist-lane-detection-training", "lane-detection",
                              vol / "output", "0123abc", {}, {}};
  std::ostringstream log;
  auto spec = training_spec();
  TrainingSnapshotResult r = snapshot_after_training(store, volumes, req, spec, log);

  CHECK(std::regex_match(r.snapshot, std::regex(
      "snap-pvc-data-dist-lane-detection-training-launcher-\\d{4}-\\d\\d-\\d\\d-\\d\\d-\\d\\d-\\d\\d")));
  CHECK(r.ns == "runai-lane-detection");
  CHECK(log.str() == "Snapshot " + r.snapshot + " created in namespace runai-lane-detection\n");

  SnapshotInfo info = store.describe(r.snapshot);
  CHECK(info.job == "dist-lane-detection-training");
  CHECK(info.ns == "runai-lane-detection");
  CHECK(info.metadata.at("outputPath") == "output");

  auto rec = store.lineage(r.snapshot);
  REQUIRE(rec);
  REQUIRE(rec->job);
  CHECK(rec->job->image == "lanectl/scnn-train:local");
  CHECK(rec->job->command == std::vector<std::string>{"scnn-train", "train", "--steps", "2"});
  CHECK(rec->job->env.at("AZURE_CLIENT_SECRET") == "****");
  CHECK(rec->job->env.at("HF_TOKEN") == "****");
  CHECK(rec->job->env.at("BATCH_SIZE") == "4");
  CHECK(rec->job->code_version == "0123abc");
  CHECK(rec->final_metrics["train"]["loss"] == 0.25);
  // The dataset digest leaves out the output dir: retraining into it keeps the same digest.
  CHECK(rec->dataset_digest != info.content_digest);
  std::string stored = lane::read_file(tmp.path / "snapshots" / "lineage" / (r.snapshot + ".json"));
  CHECK(stored.find("s3cr3t-value") == std::string::npos);
  CHECK(stored.find("tok-value") == std::string::npos);
}

TEST_CASE("OUTPUT_DIR inside the job maps into the volume through the PVC mount path", "[storage][fast]") {
  TempDir tmp("mount-map");
  test::DirVolumes volumes(tmp.path / "volumes");
  local::LocalSnapshotStore store(tmp.path / "snapshots", volumes);
  auto vol = volumes.create("pvc-data", "", "", lane::storage::VolumeOrigin::user()).local_path;
  write_text(vol / "runs/exp1/metrics.jsonl", "{}\n");
  std::ostringstream log;
  // The job sees the claim at /mnt, so its OUTPUT_DIR is /mnt/runs/exp1 (not a host path).
  auto r = snapshot_after_training(store, volumes, {"pvc-data", "j", "default", "/mnt/runs/exp1", "", {}, {}},
                                   training_spec(), log);
  CHECK(store.describe(r.snapshot).metadata.at("outputPath") == "runs/exp1");
  // Without a spec and outside the volume, nothing is excluded.
  auto r2 = snapshot_after_training(store, volumes, {"pvc-data", "j2", "default", "/elsewhere", "", {}, {}},
                                    std::nullopt, log);
  CHECK(store.describe(r2.snapshot).metadata.count("outputPath") == 0);
  CHECK(store.lineage(r2.snapshot)->job->name == "j2");
}

TEST_CASE("lineage views: a restored volume's snapshot is derived from its parent, and job lookup", "[storage][fast]") {
  TempDir tmp("lineage-view");
  test::DirVolumes volumes(tmp.path / "volumes");
  local::LocalSnapshotStore store(tmp.path / "snapshots", volumes);
  auto vol = volumes.create("pvc-data", "", "", lane::storage::VolumeOrigin::user()).local_path;
  write_text(vol / "data/x", "x");
  write_text(vol / "output/metrics.jsonl", "{\"kind\":\"train\",\"loss\":1.0}\n");
  std::ostringstream log;
  auto spec = training_spec();
  spec.name = "run-1";
  auto first = snapshot_after_training(store, volumes, {"pvc-data", "run-1", "default", vol / "output", "r1", {}, {}}, spec, log);

  store.restore_to_new_volume(first.snapshot, "restored-data");
  auto vol2 = volumes.find("restored-data")->local_path;
  write_text(vol2 / "output/metrics.jsonl", "{\"kind\":\"train\",\"loss\":0.5}\n");
  spec.name = "run-2";
  auto second = snapshot_after_training(store, volumes, {"restored-data", "run-2", "default", vol2 / "output", "r1", {}, {}}, spec, log);

  auto v1 = lineage_of_snapshot(store, volumes, first.snapshot);
  REQUIRE(v1);
  CHECK(v1->restored_volumes == std::vector<std::string>{"restored-data"});
  CHECK(v1->derived_snapshots == std::vector<std::string>{second.snapshot});
  auto v2 = lineage_of_snapshot(store, volumes, second.snapshot);
  REQUIRE(v2);
  CHECK(v2->record.parent_snapshot == first.snapshot);
  CHECK(v2->record.dataset_digest == v1->record.dataset_digest);  // same data, new model
  CHECK(v2->record.final_metrics["train"]["loss"] == 0.5);

  auto by_job = lineage_of_job(store, volumes, "run-2");
  REQUIRE(by_job.size() == 1);
  CHECK(by_job[0].record.snapshot == second.snapshot);
  CHECK(lineage_of_job(store, volumes, "no-such-job").empty());
  CHECK_FALSE(lineage_of_snapshot(store, volumes, "no-such-snapshot"));
  nlohmann::json j = to_json(*v1);
  CHECK(j["derivedSnapshots"][0] == second.snapshot);
  CHECK(j["job"]["env"]["AZURE_CLIENT_SECRET"] == "****");
}

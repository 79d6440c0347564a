// The job page's API: /api/jobs/P/N/metrics, /overlays, /overlays/FILE over fake roles (what a
// backend's JobFiles answers is scripted here), and the pure parts behind them (metrics columns,
// where predictions are looked for, overlay names, image types, the path checks of JobFiles).
#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <stdexcept>
#include <string>

#include "common/run_outputs.h"
#include "dashboard/api.h"
#include "dashboard/job_outputs.h"
#include "submit/core/job_files.h"
#include "submit/core/storage.h"

using namespace lane::dashboard;
using lane::submit::JobDirRead;
using lane::submit::JobFileRead;
using lane::submit::JobInfo;
using lane::submit::JobSpec;

namespace {

class FakeJobs : public lane::submit::Jobs {
 public:
  std::map<std::string, JobInfo> jobs;  // "project/name"
  nlohmann::json render(const JobSpec&) override { return {}; }
  JobInfo submit(const JobSpec& s) override {
    JobInfo j;
    j.spec = s;
    return j;
  }
  std::string next_job_name(const std::string&, const std::string&) override { return ""; }
  std::vector<JobInfo> list_jobs(const std::optional<std::string>&) override {
    std::vector<JobInfo> out;
    for (const auto& [k, j] : jobs) out.push_back(j);
    return out;
  }
  std::optional<JobInfo> describe_job(const std::string& name, const std::string& project) override {
    auto it = jobs.find(project + "/" + name);
    if (it == jobs.end()) return std::nullopt;
    return it->second;
  }
  void stream_logs(const std::string&, const std::string&, const lane::submit::LogOptions&, std::ostream&) override {}
  bool delete_job(const std::string&, const std::string&) override { return false; }
  std::vector<std::string> delete_all_jobs(const std::string&) override { return {}; }
  int exec(const std::string&, const std::string&, const std::vector<std::string>&, bool, const std::string&,
           std::ostream&, std::ostream&) override {
    return 0;
  }
  lane::submit::SwitchResult suspend_job(const std::string&, const std::string&) override {
    return lane::submit::SwitchResult::kNoJob;
  }
  lane::submit::SwitchResult resume_job(const std::string&, const std::string&) override {
    return lane::submit::SwitchResult::kNoJob;
  }
  int attach(const std::string&, const std::string&, const lane::submit::AttachOptions&, std::ostream&,
             std::ostream&) override {
    return 0;
  }
};

class FakeProjects : public lane::submit::Projects {
 public:
  void create_project(const lane::submit::ProjectSpec&) override {}
  std::vector<lane::submit::ProjectStatus> list_projects() override { return {}; }
  bool project_exists(const std::string&) override { return true; }
  void delete_project(const std::string&) override {}
  void set_project_quota(const std::string&, double, std::optional<bool>) override {}
  std::string use_project(const std::string&) override { return ""; }
  std::string configured_project() override { return ""; }
};

class FakeCluster : public lane::submit::Cluster {
 public:
  void set_nodes(const std::vector<lane::submit::NodeSpec>&) override {}
  std::vector<lane::submit::NodeStatus> list_nodes() override { return {}; }
  std::vector<std::pair<std::string, std::string>> identity() override { return {}; }
};

// Files by path; every request is recorded, so a test can check what the API asked for.
class FakeFiles : public lane::submit::JobFiles {
 public:
  std::optional<std::string> out_dir;
  std::map<std::string, std::string> files;                          // path -> content
  std::map<std::string, std::vector<std::string>> dirs;              // path -> file names
  std::vector<std::string> reads, listings;
  std::vector<uint64_t> caps;
  std::optional<std::string> output_dir(const std::string&, const std::string&, std::string& why) override {
    if (!out_dir) why = "the job sets no OUTPUT_DIR (fake)";
    return out_dir;
  }
  JobFileRead read_file(const std::string&, const std::string&, const std::string& path, uint64_t max_bytes,
                        bool tail) override {
    reads.push_back(path);
    caps.push_back(max_bytes);
    JobFileRead r;
    auto it = files.find(path);
    if (it == files.end()) {
      r.reason = path + " does not exist (yet)";
      return r;
    }
    r.ok = true;
    r.size = it->second.size();
    r.modified_unix_ms = 1000;
    const size_t n = std::min<size_t>(max_bytes, it->second.size());
    r.data = tail ? it->second.substr(it->second.size() - n) : it->second.substr(0, n);
    return r;
  }
  JobDirRead list_dir(const std::string&, const std::string&, const std::string& path, size_t) override {
    listings.push_back(path);
    JobDirRead r;
    auto it = dirs.find(path);
    if (it == dirs.end()) {
      r.reason = path + " does not exist (yet)";
      return r;
    }
    r.ok = true;
    for (const auto& n : it->second) r.entries.push_back({n, 10, 5});
    return r;
  }
};

// The job page's routes never reach the storage role.
class NoStorage : public lane::submit::Storage {
 public:
  lane::storage::Volumes& volumes() override { throw std::logic_error("the job routes used the volumes"); }
  lane::storage::SnapshotStore& snapshots() override { throw std::logic_error("the job routes used the snapshots"); }
  std::vector<lane::submit::VolumeMount> volume_mounts(const std::string&) override {
    throw std::logic_error("the job routes used the volume mounts");
  }
  void delete_volume(const std::string&, const std::string&) override {
    throw std::logic_error("the job routes deleted a volume");
  }
};

struct Fixture {
  FakeJobs jobs;
  FakeProjects projects;
  FakeCluster cluster;
  FakeFiles files;
  NoStorage storage;
  Api api{Roles{jobs, projects, cluster, files, storage}};

  Fixture() {
    JobInfo j;
    j.spec.name = "train";
    j.spec.project = "team-a";
    jobs.jobs["team-a/train"] = j;
  }
  Reply get(const std::string& path) { return api.get(path, {}); }
  nlohmann::json doc(const std::string& path) {
    Reply r = get(path);
    REQUIRE(r.status == 200);
    REQUIRE(r.content_type == "application/json");
    return nlohmann::json::parse(r.body);
  }
};

const std::string kPng = std::string("\x89PNG\r\n\x1a\n", 8) + "rest-of-png";

}  // namespace

TEST_CASE("metrics.jsonl becomes columns per kind, torn and foreign lines skipped", "[dashboard][fast]") {
  const std::string text =
      "{\"kind\":\"train\",\"step\":1,\"loss\":2.5,\"lr\":0.01,\"images_per_s\":40}\n"
      "not json\n"
      "{\"kind\":\"val\",\"step\":1,\"accuracy\":0.5,\"fp\":0.2,\"fn\":0.3,\"frames\":10}\n"
      "{\"kind\":\"train\",\"step\":2,\"loss\":2.0,\"lr\":\"x\"}\n"
      "{\"step\":9,\"custom\":1}\n"
      "[1,2]\n"
      "{\"kind\":\"train\",\"step\":3,\"lo";  // a torn last line
  auto c = metrics_columns(text);
  CHECK(c["train"]["step"] == nlohmann::json({1, 2}));
  CHECK(c["train"]["loss"] == nlohmann::json({2.5, 2.0}));
  CHECK(c["train"]["lr"] == nlohmann::json({0.01, nullptr}));  // not a number: null, the column stays aligned
  CHECK(c["train"]["images_per_s"] == nlohmann::json({40, nullptr}));
  CHECK(c["val"]["accuracy"] == nlohmann::json({0.5}));
  CHECK(c["val"]["fn"] == nlohmann::json({0.3}));
  CHECK(c["metrics"]["custom"] == nlohmann::json({1}));  // no kind
  CHECK_FALSE(c["train"].contains("kind"));
  CHECK(metrics_columns("") == nlohmann::json::object());
}

TEST_CASE("the columns of what the trainer writes (MetricsRecord lines)", "[dashboard][fast]") {
  const lane::MetricsRecord a{std::string(lane::MetricsRecord::kTrain), {{"step", 1}, {"loss", 0.5}}};
  const lane::MetricsRecord b{std::string(lane::MetricsRecord::kTrain), {{"step", 2}, {"loss", 0.25}}};
  const auto c = metrics_columns(a.to_line() + "\n" + b.to_line() + "\n");
  CHECK(c == nlohmann::json{{"train", {{"step", {1, 2}}, {"loss", {0.5, 0.25}}}}});
}

TEST_CASE("many records are thinned evenly, keeping the first and the last", "[dashboard][fast]") {
  std::string text;
  for (int i = 0; i < 1001; ++i) text += "{\"kind\":\"train\",\"step\":" + std::to_string(i) + ",\"loss\":1}\n";
  auto c = metrics_columns(text, 100);
  const auto& steps = c["train"]["step"];
  CHECK(steps.size() <= 102);
  CHECK(steps.size() >= 90);
  CHECK(steps.front() == 0);
  CHECK(steps.back() == 1000);
  CHECK(c["train"]["loss"].size() == steps.size());
  CHECK(metrics_columns(text, 5000)["train"]["step"].size() == 1001);
}

TEST_CASE("predictions are looked for in OUTPUT_DIR and each --out of the command", "[dashboard][fast]") {
  JobSpec s;
  s.command = {"sh", "-c", "scnn-train predict --checkpoint /mnt/c.pt --out /out/predictions >/out/p.log && "
                           "scnn-train predict --out='/out/b/' --x; other --out relative/dir; last --out"};
  s.args = {"--out=/extra", "--out", "/out/predictions"};
  CHECK(prediction_roots(s, "/mnt/runs/") ==
        std::vector<std::string>{"/mnt/runs", "/out/predictions", "/out/b", "/extra"});
  CHECK(prediction_roots(JobSpec{}, "").empty());
  CHECK(prediction_roots(JobSpec{}, "relative").empty());
  CHECK(clean_dir("/a/./b/../c//") == "/a/c");
  CHECK(clean_dir("/") == "");
  CHECK(clean_dir("/..") == "");
}

TEST_CASE("overlay names and image types are checked", "[dashboard][fast]") {
  for (const char* ok : {"a.png", "clips_0530_1.PNG", "x-y.jpg", "frame.jpeg"}) CHECK(is_overlay_name(ok));
  for (const char* bad : {"", ".png", "../a.png", "a/b.png", "a.gif", "png", "a .png", "a.png\n", "%2e.png"})
    CHECK_FALSE(is_overlay_name(bad));
  CHECK_FALSE(is_overlay_name(std::string(252, 'a') + ".png"));
  CHECK(image_type(kPng) == "image/png");
  CHECK(image_type(std::string("\xff\xd8\xff\xe0", 4)) == "image/jpeg");
  CHECK(image_type("GIF89a") == "");
  CHECK(image_type("") == "");
}

TEST_CASE("JobFiles paths: clean absolute paths only, mounts matched deepest first", "[dashboard][fast]") {
  using namespace lane::submit;
  for (const char* ok : {"/a", "/mnt/runs/metrics.jsonl", "/a-b/.hidden"}) CHECK(is_clean_absolute_path(ok));
  for (const char* bad : {"", "/", "a/b", "/a/", "//a", "/a//b", "/a/./b", "/a/../b", "/..", "/a/.."})
    CHECK_FALSE(is_clean_absolute_path(bad));
  CHECK_FALSE(is_clean_absolute_path(std::string("/a\0b", 4)));
  CHECK(relative_path_under("/mnt/runs/x", "/mnt") == "runs/x");
  CHECK(relative_path_under("/mnt", "/mnt") == "");
  CHECK(relative_path_under("/mntx/a", "/mnt") == "");
  CHECK(relative_path_under("/mnt/../etc/passwd", "/mnt") == "");
  CHECK(relative_path_under("/a", "") == "");

  JobSpec s;
  s.pvcs.push_back({false, "data", "", "", "/mnt", true, false});
  s.pvcs.push_back({false, "runs", "", "", "/mnt/runs", false, false});
  s.volumes.push_back({"/host/out", "/out", false});
  auto a = locate_in_mounts(s, "/mnt/runs/metrics.jsonl");
  REQUIRE(a);
  CHECK(a->claim);
  CHECK(a->source == "runs");  // the deeper mount covers /mnt's
  CHECK(a->relative == "metrics.jsonl");
  CHECK_FALSE(a->read_only);
  auto b = locate_in_mounts(s, "/mnt/tusimple/x.json");
  REQUIRE(b);
  CHECK(b->source == "data");
  CHECK(b->read_only);
  auto c = locate_in_mounts(s, "/out/predictions/overlays/a.png");
  REQUIRE(c);
  CHECK_FALSE(c->claim);
  CHECK(c->source == "/host/out");
  CHECK(c->relative == "predictions/overlays/a.png");
  auto d = locate_in_mounts(s, "/out");
  REQUIRE(d);
  CHECK(d->relative == "");
  CHECK_FALSE(locate_in_mounts(s, "/tmp/x"));
  CHECK_FALSE(locate_in_mounts(s, "/mntx/a"));
  s.env = {{"OUTPUT_DIR", "/a"}, {"X", "1"}, {"OUTPUT_DIR", "/b"}};
  CHECK(env_value(s, "OUTPUT_DIR") == "/b");
  CHECK_FALSE(env_value(s, "Y"));
}

TEST_CASE("GET /api/jobs/P/N/metrics answers the series of OUTPUT_DIR/metrics.jsonl", "[dashboard][fast]") {
  Fixture f;
  f.files.out_dir = "/mnt/runs/";
  const std::string text = "{\"kind\":\"train\",\"step\":1,\"loss\":0.5}\n";
  f.files.files["/mnt/runs/metrics.jsonl"] = text;
  auto d = f.doc("/api/jobs/team-a/train/metrics");
  CHECK(d["available"] == true);
  CHECK(d["path"] == "/mnt/runs/metrics.jsonl");
  CHECK(d["run_dir"] == "/mnt/runs");
  CHECK(d["truncated"] == false);
  CHECK(d["size"] == text.size());
  CHECK(d["kinds"]["train"]["loss"] == nlohmann::json({0.5}));
  REQUIRE(f.files.caps.size() == 1);
  CHECK(f.files.caps[0] == kMaxMetricsBytes);
}

TEST_CASE("a metrics file larger than the cap is read from its end, the partial first line dropped", "[dashboard][fast]") {
  Fixture f;
  f.files.out_dir = "/o";
  std::string big;
  int i = 0;
  while (big.size() <= kMaxMetricsBytes + 100)
    big += "{\"kind\":\"train\",\"step\":" + std::to_string(i++) + ",\"loss\":1.25,\"pad\":\"" + std::string(200, 'x') + "\"}\n";
  f.files.files["/o/metrics.jsonl"] = big;
  auto d = f.doc("/api/jobs/team-a/train/metrics");
  CHECK(d["available"] == true);
  CHECK(d["truncated"] == true);
  CHECK(d["size"] == big.size());
  const auto& steps = d["kinds"]["train"]["step"];
  CHECK(steps.back() == i - 1);  // the newest record is there
  CHECK(steps.front() > 0);      // the oldest are not
  for (const auto& l : d["kinds"]["train"]["loss"]) CHECK(l == 1.25);  // no broken record
}

TEST_CASE("metrics that cannot be read are an answer with the reason, not an error", "[dashboard][fast]") {
  Fixture f;
  auto none = f.doc("/api/jobs/team-a/train/metrics");
  CHECK(none["available"] == false);
  CHECK(none["reason"] == "the job sets no OUTPUT_DIR (fake)");  // the backend's reason
  CHECK(f.files.reads.empty());
  f.files.out_dir = "runs";
  CHECK(f.doc("/api/jobs/team-a/train/metrics")["reason"].get<std::string>().find("not an absolute path") !=
        std::string::npos);
  f.files.out_dir = "/mnt/runs";
  auto missing = f.doc("/api/jobs/team-a/train/metrics");
  CHECK(missing["available"] == false);
  CHECK(missing["path"] == "/mnt/runs/metrics.jsonl");
  CHECK(missing["reason"] == "/mnt/runs/metrics.jsonl does not exist (yet)");
}

TEST_CASE("the job page API: 404 for an unknown job, 400 for bad names", "[dashboard][fast]") {
  Fixture f;
  f.files.out_dir = "/o";
  for (const char* p : {"/api/jobs/team-a/nope/metrics", "/api/jobs/team-a/nope/overlays",
                        "/api/jobs/team-a/nope/overlays/a.png", "/api/jobs/team-b/train/metrics"})
    CHECK(f.get(p).status == 404);
  for (const char* p : {"/api/jobs/Team/train/metrics", "/api/jobs/team-a/tr_ain/overlays",
                        "/api/jobs/team-a/train/overlays/..png", "/api/jobs/team-a/train/overlays/a.txt",
                        "/api/jobs/team-a/train/overlays/.hidden.png"})
    CHECK(f.get(p).status == 400);
  CHECK(f.get("/api/jobs/team-a/train/overlays/a.png/more").status == 404);
  CHECK(f.get("/api/jobs/team-a/train/metricz").status == 404);
  CHECK(f.files.reads.empty());  // nothing was read for a refused request
}

TEST_CASE("overlays are listed from the first prediction directory that has images", "[dashboard][fast]") {
  Fixture f;
  f.files.out_dir = "/mnt/runs";
  f.jobs.jobs["team-a/train"].spec.command = {"sh", "-c", "scnn-train predict --out /out/predictions"};
  f.files.dirs["/out/predictions/overlays"] = {"a.png", "notes.txt", "b.jpg"};
  auto d = f.doc("/api/jobs/team-a/train/overlays");
  CHECK(d["available"] == true);
  CHECK(d["dir"] == "/out/predictions/overlays");
  REQUIRE(d["images"].size() == 2);
  CHECK(d["images"][0]["name"] == "a.png");
  CHECK(d["images"][1]["name"] == "b.jpg");
  CHECK(f.files.listings == std::vector<std::string>{"/mnt/runs/overlays", "/out/predictions/overlays"});
  REQUIRE(d["tried"].size() == 1);
  CHECK(d["tried"][0]["dir"] == "/mnt/runs/overlays");

  FakeFiles& files = f.files;
  files.dirs.clear();
  auto none = f.doc("/api/jobs/team-a/train/overlays");
  CHECK(none["available"] == false);
  CHECK(none["images"].empty());
  CHECK(none["tried"].size() == 2);
}

TEST_CASE("an overlay image is served with its type, capped, checked", "[dashboard][fast]") {
  Fixture f;
  f.files.out_dir = "/mnt/runs";
  f.jobs.jobs["team-a/train"].spec.args = {"--out", "/out/p"};
  f.files.files["/out/p/overlays/a.png"] = kPng;
  Reply ok = f.get("/api/jobs/team-a/train/overlays/a.png");
  CHECK(ok.status == 200);
  CHECK(ok.content_type == "image/png");
  CHECK(ok.body == kPng);
  CHECK(f.files.reads == std::vector<std::string>{"/mnt/runs/overlays/a.png", "/out/p/overlays/a.png"});
  CHECK(f.files.caps.back() == kMaxOverlayBytes + 1);

  f.files.files["/out/p/overlays/fake.png"] = "<html>not an image</html>";
  CHECK(f.get("/api/jobs/team-a/train/overlays/fake.png").status == 415);
  f.files.files["/out/p/overlays/big.png"] = kPng + std::string(kMaxOverlayBytes, 'x');
  Reply big = f.get("/api/jobs/team-a/train/overlays/big.png");
  CHECK(big.status == 413);
  CHECK(big.content_type == "application/json");
  Reply missing = f.get("/api/jobs/team-a/train/overlays/gone.png");
  CHECK(missing.status == 404);
  CHECK(nlohmann::json::parse(missing.body)["error"].get<std::string>().find("does not exist") != std::string::npos);
}

namespace {

// An evaluation.json as `scnn-train eval` writes it (src/train/eval/frame_table.cpp), rows given
// in another order than worst first.
std::string evaluation_json() {
  nlohmann::json rows = nlohmann::json::array();
  rows.push_back({{"raw_file", "clips/a/1.jpg"}, {"overlay", "clips_a_1.png"}, {"accuracy", 1.0}, {"fp", 0.0},
                  {"fn", 0.0}, {"gt_lanes", 2}, {"pred_lanes", 2}});
  rows.push_back({{"raw_file", "clips/b/2.jpg"}, {"overlay", "clips_b_2.png"}, {"accuracy", 0.5}, {"fp", 0.0},
                  {"fn", 0.5}, {"gt_lanes", 2}, {"pred_lanes", 1}});
  rows.push_back({{"raw_file", "clips/c/3.jpg"}, {"overlay", "../etc/passwd"}, {"accuracy", 0.5}, {"fp", 0.5},
                  {"fn", 0.5}, {"gt_lanes", 2}, {"pred_lanes", 3}});
  return nlohmann::json{{"metric", "tusimple"}, {"accuracy", 0.6667}, {"fp", 0.1667}, {"fn", 0.3333},
                        {"frames", 3},          {"rows", rows}}
      .dump();
}

}  // namespace

TEST_CASE("artifact names, kinds, paths and content types", "[dashboard][fast]") {
  CHECK(artifact_kind("metrics.jsonl") == "metrics");
  CHECK(artifact_kind("checkpoint_latest.pt") == "checkpoint");
  CHECK(artifact_kind("training_curves.png") == "curves");
  CHECK(artifact_kind("predictions.json") == "predictions");
  CHECK(artifact_kind("evaluation.json") == "evaluation");
  CHECK(artifact_kind("notes.txt").empty());
  CHECK(artifact_kind(".hidden.pt").empty());
  CHECK(artifact_kind("a\"b.pt").empty());
  const std::vector<std::string> roots = {"/mnt/runs", "/out/p"};
  CHECK(is_artifact_path("/mnt/runs/checkpoint_best.pt", roots));
  CHECK(is_artifact_path("/out/p/overlays/x.png", roots));
  CHECK_FALSE(is_artifact_path("/out/p/overlays/x.pt", roots));
  CHECK_FALSE(is_artifact_path("/mnt/runs/sub/checkpoint_best.pt", roots));
  CHECK_FALSE(is_artifact_path("/mnt/runs/../runs/metrics.jsonl", roots));
  CHECK_FALSE(is_artifact_path("/etc/passwd", roots));
  CHECK_FALSE(is_artifact_path("/mnt/other/metrics.jsonl", roots));
  CHECK(artifact_content_type("metrics.jsonl") == "application/x-ndjson");
  CHECK(artifact_content_type("evaluation.json") == "application/json");
  CHECK(artifact_content_type("a.PNG") == "image/png");
  CHECK(artifact_content_type("a.jpeg") == "image/jpeg");
  CHECK(artifact_content_type("checkpoint_latest.pt") == "application/octet-stream");
}

TEST_CASE("GET /api/jobs/P/N/artifacts lists the run's and the predictions' files", "[dashboard][fast]") {
  Fixture f;
  f.files.out_dir = "/mnt/runs";
  f.jobs.jobs["team-a/train"].spec.args = {"--out", "/out/p"};
  f.files.dirs["/mnt/runs"] = {"metrics.jsonl", "checkpoint_latest.pt", "training_curves.png", "notes.txt"};
  f.files.dirs["/out/p"] = {"predictions.json", "evaluation.json"};
  f.files.dirs["/out/p/overlays"] = {"a.png", "b.txt"};
  auto d = f.doc("/api/jobs/team-a/train/artifacts");
  CHECK(d["available"] == true);
  std::vector<std::string> paths;
  for (const auto& i : d["items"]) paths.push_back(i["path"]);
  CHECK(paths == std::vector<std::string>{"/mnt/runs/checkpoint_latest.pt", "/mnt/runs/metrics.jsonl",
                                          "/mnt/runs/training_curves.png", "/out/p/predictions.json",
                                          "/out/p/evaluation.json", "/out/p/overlays/a.png"});
  CHECK(d["items"][0]["kind"] == "checkpoint");
  CHECK(d["items"][0]["size"] == 10);
  REQUIRE(d["tried"].size() == 1);
  CHECK(d["tried"][0]["dir"] == "/mnt/runs/overlays");
}

TEST_CASE("an artifact is served as an open file with its type and name, other paths refused", "[dashboard][fast]") {
  Fixture f;
  f.files.out_dir = "/mnt/runs";
  const std::string line = "{\"kind\":\"train\",\"step\":1,\"loss\":0.5}\n";
  f.files.files["/mnt/runs/metrics.jsonl"] = line;
  Reply r = f.api.get("/api/jobs/team-a/train/artifacts/file", {{"path", "/mnt/runs/metrics.jsonl"}});
  REQUIRE(r.status == 200);
  REQUIRE(r.file);
  CHECK(r.content_type == "application/x-ndjson");
  CHECK(r.headers == std::vector<std::pair<std::string, std::string>>{
                         {"Content-Disposition", "attachment; filename=\"metrics.jsonl\""}});
  std::string got(r.file->size, '\0');
  CHECK(r.file->read_at(0, got.data(), got.size()) == got.size());
  CHECK(got == line);
  CHECK(f.api.get("/api/jobs/team-a/train/artifacts/file", {}).status == 400);
  CHECK(f.api.get("/api/jobs/team-a/train/artifacts/file", {{"path", "/etc/passwd"}}).status == 400);
  CHECK(f.api.get("/api/jobs/team-a/train/artifacts/file", {{"path", "/mnt/runs/notes.txt"}}).status == 400);
  Reply gone = f.api.get("/api/jobs/team-a/train/artifacts/file", {{"path", "/mnt/runs/checkpoint_best.pt"}});
  CHECK(gone.status == 404);
  CHECK_FALSE(gone.file);
  CHECK(f.api.get("/api/jobs/team-a/nojob/artifacts/file", {{"path", "/mnt/runs/metrics.jsonl"}}).status == 404);
}

TEST_CASE("the evaluation table: checked, worst first, and the overlay panel's order", "[dashboard][fast]") {
  Fixture f;
  f.files.out_dir = "/mnt/runs";
  f.jobs.jobs["team-a/train"].spec.args = {"--out", "/out/p"};
  CHECK(f.doc("/api/jobs/team-a/train/evaluation")["available"] == false);
  f.files.files["/out/p/evaluation.json"] = evaluation_json();
  auto d = f.doc("/api/jobs/team-a/train/evaluation");
  CHECK(d["available"] == true);
  CHECK(d["dir"] == "/out/p");
  CHECK(d["accuracy"] == 0.6667);
  REQUIRE(d["rows"].size() == 3);
  CHECK(d["rows"][0]["raw_file"] == "clips/c/3.jpg");  // 0.5 with a false positive before 0.5 without
  CHECK(d["rows"][0]["overlay"].is_null());            // not an overlay name: never a path
  CHECK(d["rows"][1]["raw_file"] == "clips/b/2.jpg");
  CHECK(d["rows"][2]["raw_file"] == "clips/a/1.jpg");

  // Newest first without the table; worst first with it.
  f.files.dirs["/out/p/overlays"] = {"clips_a_1.png", "clips_b_2.png", "other.png"};
  auto ov = f.doc("/api/jobs/team-a/train/overlays");
  std::vector<std::string> names;
  for (const auto& i : ov["images"]) names.push_back(i["name"]);
  CHECK(names == std::vector<std::string>{"clips_b_2.png", "clips_a_1.png", "other.png"});
  CHECK(ov["order"] == "worst first (/out/p/evaluation.json)");

  f.files.files["/out/p/evaluation.json"] = R"({"rows": [{"raw_file": "x", "accuracy": "high"}]})";
  auto bad = f.doc("/api/jobs/team-a/train/evaluation");
  CHECK(bad["available"] == false);
  CHECK(bad["tried"][1]["reason"].get<std::string>().find("\"accuracy\" is not a number") != std::string::npos);
  CHECK(f.doc("/api/jobs/team-a/train/overlays")["order"] == "newest first");
}

// Helpers every SnapshotStore backend shares: names, secret masking, JSON forms.
#include "storage/core/snapshots.h"

#include <algorithm>
#include <cctype>
#include <ctime>

#include <fmt/format.h>

#include "common/clock.h"
#include "common/error.h"
#include "common/secrets.h"
#include "storage/core/snapshot_lookup.h"

namespace lane::storage {

bool is_snapshot_name(const std::string& name) {
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (name.empty() || name.size() > kMaxSnapshotName) return false;
  if (!alnum(name.front()) || !alnum(name.back())) return false;
  return std::all_of(name.begin(), name.end(), [&](char c) { return alnum(c) || c == '-'; });
}

void require_snapshot_name(const std::string& name, const std::string& field) {
  if (is_snapshot_name(name)) return;
  throw UsageError(fmt::format(
      "invalid {} '{}': must be 1-{} lower-case letters, digits or '-', starting and ending "
      "with a letter or digit (e.g. 'tusimple-v1')",
      field, name, kMaxSnapshotName));
}

static std::tm utc_tm(int64_t unix_ms) {
  std::time_t secs = static_cast<std::time_t>(unix_ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  return tm;
}

std::string format_utc(int64_t unix_ms) {
  std::tm tm = utc_tm(unix_ms);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

// Cuts `s` to at most `max` chars and strips trailing '-' so the joined label stays valid.
static std::string clip(const std::string& s, size_t max) {
  std::string out = s.substr(0, std::min(max, s.size()));
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

std::string training_snapshot_name(const std::string& pvc, const std::string& job, int64_t unix_ms) {
  std::tm tm = utc_tm(unix_ms);
  std::string stamp = fmt::format("{:04}-{:02}-{:02}-{:02}-{:02}-{:02}", tm.tm_year + 1900,
                                  tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
  // "snap-" + pvc + "-" + job + "-launcher-" + stamp must fit in kMaxSnapshotName chars.
  const size_t fixed = 5 + 1 + 10 + stamp.size();
  size_t budget = kMaxSnapshotName - fixed;  // shared by pvc and job
  std::string p = pvc, j = job;
  if (p.size() + j.size() > budget) {
    size_t half = budget / 2;
    if (p.size() <= half) j = clip(j, budget - p.size());
    else if (j.size() <= half) p = clip(p, budget - j.size());
    else { p = clip(p, half); j = clip(j, budget - p.size()); }
  }
  return fmt::format("snap-{}-{}-launcher-{}", p, j, stamp);
}

std::string default_snapshot_name(const std::string& pvc, int64_t unix_ms) {
  std::tm tm = utc_tm(unix_ms);
  std::string stamp = fmt::format("{:04}{:02}{:02}-{:02}{:02}{:02}", tm.tm_year + 1900,
                                  tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
  return fmt::format("{}-{}", clip(pvc, 63 - 1 - stamp.size()), stamp);
}

SnapshotInfo SnapshotStore::create_with_lineage(const std::string& volume, const std::string& name,
                                                const std::string& job,
                                                const std::map<std::string, std::string>& metadata,
                                                const LineageRecord& record) {
  SnapshotInfo info = create(volume, name, job, metadata);
  LineageRecord rec = lineage(name).value_or(LineageRecord{});
  merge_job_lineage(rec, record);
  rec.snapshot = name;
  rec.volume = volume;
  rec.recorded_unix_ms = now_unix_ms();
  record_lineage(rec);
  return info;
}

void merge_job_lineage(LineageRecord& base, const LineageRecord& from_job) {
  base.job = from_job.job;
  base.final_metrics = from_job.final_metrics;
  if (!from_job.parent_volume.empty()) base.parent_volume = from_job.parent_volume;
  if (!from_job.parent_snapshot.empty()) base.parent_snapshot = from_job.parent_snapshot;
}

// --- JSON -----------------------------------------------------------------------------------

nlohmann::json to_json(const SnapshotInfo& s) {
  return {{"name", s.name},
          {"id", snapshot_id(s)},  // snapshot_lookup.h: what a short ID is a prefix of
          {"volume", s.volume},
          {"job", s.job},
          {"namespace", s.ns},
          {"createdUnixMs", s.created_unix_ms},
          {"created", format_utc(s.created_unix_ms)},
          {"fileCount", s.file_count},
          {"totalBytes", s.total_bytes},
          {"newBytes", s.new_bytes},
          {"contentDigest", s.content_digest},
          {"metadata", s.metadata}};
}

SnapshotInfo snapshot_info_from_json(const nlohmann::json& j) {
  SnapshotInfo s;
  s.name = j.at("name").get<std::string>();
  s.volume = j.at("volume").get<std::string>();
  s.job = j.value("job", "");
  s.ns = j.value("namespace", "default");
  s.created_unix_ms = j.value("createdUnixMs", int64_t{0});
  s.file_count = j.value("fileCount", uint64_t{0});
  s.total_bytes = j.value("totalBytes", uint64_t{0});
  s.new_bytes = j.value("newBytes", uint64_t{0});
  s.content_digest = j.value("contentDigest", "");
  if (j.contains("metadata")) s.metadata = j.at("metadata").get<std::map<std::string, std::string>>();
  return s;
}

nlohmann::json to_json(const VerifyReport& r) {
  return {{"snapshot", r.snapshot},
          {"ok", r.ok()},
          {"objectsChecked", r.objects_checked},
          {"bytesChecked", r.bytes_checked},
          {"damaged", r.damaged}};
}

nlohmann::json to_json(const RevertPlan& p) {
  return {{"snapshot", p.snapshot}, {"volume", p.volume}, {"newerSnapshots", p.newer_snapshots}};
}

nlohmann::json to_json(const JobRecord& job) {
  return {{"name", job.name},       {"namespace", job.ns},
          {"image", job.image},     {"command", job.command},
          {"env", mask_secret_env(job.env)},  // masked again: records never hold a secret
          {"codeVersion", job.code_version}, {"spec", job.spec}};
}

JobRecord job_record_from_json(const nlohmann::json& j) {
  JobRecord job;
  job.name = j.value("name", "");
  job.ns = j.value("namespace", "default");
  job.image = j.value("image", "");
  if (j.contains("command")) job.command = j.at("command").get<std::vector<std::string>>();
  if (j.contains("env")) job.env = j.at("env").get<std::map<std::string, std::string>>();
  job.code_version = j.value("codeVersion", "");
  job.spec = j.value("spec", nlohmann::json::object());
  return job;
}

nlohmann::json to_json(const LineageRecord& r) {
  nlohmann::json j = {{"snapshot", r.snapshot},
                      {"volume", r.volume},
                      {"parentSnapshot", r.parent_snapshot},
                      {"parentVolume", r.parent_volume},
                      {"datasetDigest", r.dataset_digest},
                      {"finalMetrics", r.final_metrics},
                      {"recordedUnixMs", r.recorded_unix_ms}};
  j["job"] = r.job ? to_json(*r.job) : nlohmann::json(nullptr);
  return j;
}

LineageRecord lineage_record_from_json(const nlohmann::json& j) {
  LineageRecord r;
  r.snapshot = j.at("snapshot").get<std::string>();
  r.volume = j.value("volume", "");
  r.parent_snapshot = j.value("parentSnapshot", "");
  r.parent_volume = j.value("parentVolume", "");
  r.dataset_digest = j.value("datasetDigest", "");
  r.final_metrics = j.value("finalMetrics", nlohmann::json::object());
  r.recorded_unix_ms = j.value("recordedUnixMs", int64_t{0});
  if (j.contains("job") && j.at("job").is_object()) r.job = job_record_from_json(j.at("job"));
  return r;
}

}  // namespace lane::storage

#include "submit/training/training_snapshot.h"

#include <fcntl.h>

#include <cerrno>
#include <cstdlib>
#include <ostream>

#include <fmt/format.h>

#include "common/beneath.h"
#include "common/boolean_text.h"
#include "common/error.h"
#include "common/names.h"
#include "common/run_outputs.h"
#include "submit/core/job_files.h"

namespace lane::submit {
namespace fs = std::filesystem;
using storage::JobRecord;
using storage::LineageRecord;
using storage::VolumeInfo;

namespace {

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

// OUTPUT_DIR relative to the volume root, when the job mounted the claim at a path above it
// (Kubernetes/bwrap mounts) or when it is literally inside the volume's directory (local).
std::string output_path_in_volume(const TrainingSnapshotRequest& req, const std::optional<JobSpec>& spec,
                                  const VolumeInfo& vol) {
  const fs::path out = fs::absolute(req.output_dir).lexically_normal();
  if (spec)
    for (const auto& m : spec->pvcs)
      if (m.claim == req.pvc)
        if (auto s = relative_path_under(out.string(), m.mount_path); !s.empty()) return s;
  if (!req.output_root.empty()) return "";  // never resolve links in a tree the job controls
  std::error_code ec;
  fs::path canon_out = fs::weakly_canonical(out, ec);
  fs::path canon_vol = vol.local_path.empty() ? fs::path() : fs::weakly_canonical(vol.local_path, ec);
  if (!canon_vol.empty()) {
    std::string s = canon_out.lexically_relative(canon_vol).generic_string();
    if (!s.empty() && s != "." && s.rfind("..", 0) != 0) return s;
  }
  return "";
}

}  // namespace

std::optional<TrainingSnapshotRequest> training_snapshot_request_from_env(const fs::path& output_dir,
                                                                          const std::string& code_version) {
  if (!env_is_true("ENABLE_SNAPSHOT")) return std::nullopt;
  TrainingSnapshotRequest req;
  req.pvc = env_or("PVC_NAME", "");
  if (req.pvc.empty())
    throw UsageError("ENABLE_SNAPSHOT=true needs PVC_NAME=<claim to snapshot> (e.g. -e PVC_NAME=pvc-data-0)");
  require_dns1123_label(req.pvc, "PVC_NAME");
  req.job = env_or("LANECTL_JOB_NAME", env_or("JOB_NAME", "manual"));
  req.project = env_or("LANECTL_PROJECT", "default");
  req.output_dir = output_dir;
  req.code_version = code_version;
  return req;
}

nlohmann::json read_final_metrics(const TrainingSnapshotRequest& req) {
  nlohmann::json out = nlohmann::json::object();
  const bool beneath = !req.output_root.empty();
  // Without a root the caller reads its own outputs (the trainer in the job): links are its own.
  UniqueFd root(::open((beneath ? req.output_root : req.output_dir).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!root.ok()) return out;
  const std::string rel = (fs::path(beneath ? req.output_beneath : "") / RunLayout::kMetrics).string();
  const std::string what = fmt::format("the metrics file '{}'", (req.output_dir / RunLayout::kMetrics).string());
  UniqueFd probe = open_beneath(root.get(), rel, O_RDONLY | O_NONBLOCK);
  if (!probe.ok() && errno == ENOENT) return out;
  UniqueFd fd = open_regular_beneath(root.get(), rel, what);
  for (const auto& record : parse_metrics_records(read_tail(fd.get(), kMaxMetricsBytes, what)))
    for (const auto& [k, v] : record.fields.items()) out[record.kind][k] = v;
  return out;
}

nlohmann::json read_final_metrics(const fs::path& output_dir) {
  TrainingSnapshotRequest req;
  req.output_dir = output_dir;
  return read_final_metrics(req);
}

JobRecord job_record_from_spec(const JobSpec& spec, const std::string& code_version) {
  JobRecord job;
  job.name = spec.name;
  job.ns = project_namespace(spec.project);
  job.image = spec.image;
  job.command = spec.command;
  job.command.insert(job.command.end(), spec.args.begin(), spec.args.end());
  std::map<std::string, std::string> env;
  for (const auto& e : spec.env) env[e.name] = e.value;
  job.env = mask_secret_env(env);
  job.code_version = code_version;
  nlohmann::json pvcs = nlohmann::json::array();
  for (const auto& m : spec.pvcs) pvcs.push_back({{"claim", m.claim}, {"mountPath", m.mount_path}});
  job.spec = {{"project", spec.project}, {"gpu", spec.gpu},    {"processes", spec.processes},
              {"pvcs", pvcs},            {"user", spec.user},  {"workingDir", spec.working_dir}};
  return job;
}

TrainingSnapshotResult snapshot_after_training(storage::SnapshotStore& store, storage::Volumes& volumes,
                                               const TrainingSnapshotRequest& req,
                                               const std::optional<JobSpec>& job_spec,
                                               std::ostream& log) {
  auto vol = volumes.find(req.pvc);
  if (!vol) throw Error(fmt::format("PVC_NAME '{}' is not a volume of this backend; cannot snapshot it", req.pvc));
  TrainingSnapshotResult result;
  result.ns = project_namespace(req.project);
  result.snapshot = storage::training_snapshot_name(req.pvc, req.job, storage::now_unix_ms());

  std::map<std::string, std::string> metadata = {{"namespace", result.ns}, {"reason", "end-of-training"}};
  const std::string out_rel = output_path_in_volume(req, job_spec, *vol);
  if (!out_rel.empty()) metadata["outputPath"] = out_rel;
  LineageRecord rec;
  if (job_spec) {
    rec.job = job_record_from_spec(*job_spec, req.code_version);
  } else {
    JobRecord job;
    job.name = req.job;
    job.ns = result.ns;
    job.code_version = req.code_version;
    rec.job = job;
  }
  rec.final_metrics = read_final_metrics(req);
  // One record: a crash can leave no snapshot, never a snapshot whose lineage lacks the job.
  store.create_with_lineage(req.pvc, result.snapshot, req.job, metadata, rec);
  log << fmt::format("Snapshot {} created in namespace {}", result.snapshot, result.ns) << std::endl;
  return result;
}

}  // namespace lane::submit

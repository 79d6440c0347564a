#include "submit/local/supervisor/job_api_snapshot.h"

#include <sstream>

#include <fmt/format.h>

#include "common/error.h"
#include "common/names.h"
#include "submit/training/training_snapshot.h"
#include "submit/core/workload_json.h"
#include "submit/local/runtime/job_launch.h"
#include "submit/local/local_storage.h"

namespace lane::submit::local {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Where the job's `in_job` lies on the host: the directory of the claim mounted above it, else
// the job's root as /proc shows it, and the path beneath that. Nothing below that directory is
// trusted: the job controls it, so it is read beneath it without following links.
struct BeneathPath {
  fs::path root;
  std::string rel;
};

BeneathPath host_path(const JobSpec& spec, const Paths& paths, const fs::path& in_job, pid_t peer) {
  size_t best = 0;
  BeneathPath host;
  for (const auto& p : spec.pvcs) {
    auto rel = relative_within(in_job, p.mount_path);
    if (!rel || p.mount_path.size() < best) continue;
    best = p.mount_path.size();
    host = {paths.volumes_dir() / p.claim, rel->lexically_normal().string()};
  }
  if (!host.root.empty()) return host;
  return {fs::path(fmt::format("/proc/{}/root", peer)), in_job.relative_path().string()};
}

}  // namespace

json answer_job_api(const fs::path& home, int64_t job_id, const json& request, pid_t peer) {
  if (request.value("op", "") != "snapshot")
    throw UsageError("job API: unknown op '" + request.value("op", "") + "' (known: snapshot)");
  // The state and the Storage role over it: what a snapshot needs, and no more (no other role,
  // no supervisor check or TTL expiry on the way).
  LocalState state(home);
  const Paths& paths = state.paths;
  std::optional<JobRow> row = load_job_row_by_id(state.db, job_id, true);
  if (!row) throw Error("job API: the job no longer exists");
  JobSpec spec = spec_from_json(json::parse(row->spec_json));
  LocalStorage storage(state);
  storage.set_snapshot_caller(job_id);

  TrainingSnapshotRequest req;
  req.pvc = request.value("pvc", "");
  require_dns1123_label(req.pvc, "PVC_NAME");
  if (!storage.local_volumes().find(req.pvc))
    throw Error(fmt::format("PVC_NAME '{}' is not a volume of this backend; cannot snapshot it", req.pvc));
  std::string owner = storage.local_volumes().owner(req.pvc);
  if (owner != spec.project)
    throw Error(fmt::format("PVC_NAME '{}' belongs to project '{}'; a job of project '{}' can snapshot only "
                            "its own project's claims", req.pvc, owner.empty() ? "<none>" : owner, spec.project));
  fs::path out = request.value("outputDir", "");
  if (!out.is_absolute()) throw UsageError("job API: outputDir must be an absolute path");
  out = out.lexically_normal();
  BeneathPath host = host_path(spec, paths, out, peer);
  req.output_dir = out;
  req.output_root = host.root;
  req.output_beneath = host.rel;
  req.job = spec.name;
  req.project = spec.project;
  req.code_version = request.value("codeVersion", "");
  std::ostringstream log;
  auto result = snapshot_after_training(storage.snapshots(), storage.volumes(), req, spec, log);
  return {{"snapshot", result.snapshot}, {"log", log.str()}};
}

}  // namespace lane::submit::local

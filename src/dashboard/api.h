#pragma once
// The dashboard's read-only JSON API over the backend roles the verbs use. The documents are
// those of `lanectl list -o json`, `describe job -o json`, `project list -o json` and
// `cluster nodes -o json` (one function each in submit/core), secrets masked. Every backend call
// goes through one mutex: the HTTP server answers on several threads, a backend is not shared.
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "submit/core/cluster.h"
#include "submit/core/job_files.h"
#include "submit/core/jobs.h"
#include "submit/core/projects.h"
#include "submit/core/storage.h"

namespace lane::dashboard {

class GpuSampler;

struct Roles {
  submit::Jobs& jobs;
  submit::Projects& projects;
  submit::Cluster& cluster;
  submit::JobFiles& files;  // the job page's metrics and overlays (job_outputs.h)
  submit::Storage& storage;
  GpuSampler* gpu_sampler = nullptr;  // GPU utilization over time (gpu_sampler.h); null: not sampled
};

struct Reply {
  Reply(int s = 200, std::string type = "application/json", std::string b = "")
      : status(s), content_type(std::move(type)), body(std::move(b)) {}
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // more response headers
  std::shared_ptr<submit::JobFileReader> file;               // set: the body is this file, streamed
};

class Api {
 public:
  explicit Api(Roles roles) : roles_(roles) {}

  // GET `path` (starting with /api/) with its query parameters:
  //   /api/jobs[?project=P]  /api/jobs/P/NAME  /api/jobs/P/NAME/logs[?tail=N]  /api/projects  /api/nodes
  //   /api/jobs/P/NAME/metrics  /api/jobs/P/NAME/overlays  /api/jobs/P/NAME/overlays/FILE (job_outputs.cpp)
  //   /api/gpus  /api/gpus/metrics  /api/snapshots  /api/lineage (api_cluster.cpp)
  //   /api/jobs/P/NAME/artifacts  /api/jobs/P/NAME/artifacts/file?path=PATH  /api/jobs/P/NAME/evaluation
  //   (api_artifacts.cpp)
  // 404 for another path or a job that does not exist, 400 for a bad name or parameter.
  Reply get(const std::string& path, const std::map<std::string, std::string>& query);

  // The jobs list document (all projects, or one), as /api/jobs sends it.
  nlohmann::json jobs_document(const std::optional<std::string>& project);
  // Every job's list document (the elements of jobs_document), serialized, keyed "project/name",
  // in the backend's order: what the event stream's feed compares and sends.
  std::vector<std::pair<std::string, std::string>> job_documents();

 private:
  Reply job(const std::string& project, const std::string& name);
  Reply logs(const std::string& project, const std::string& name, const std::map<std::string, std::string>& query);
  // job_outputs.cpp: what the job wrote in its OUTPUT_DIR (and a predict run's --out).
  Reply metrics(const std::string& project, const std::string& name);
  Reply overlays(const std::string& project, const std::string& name);
  Reply overlay_image(const std::string& project, const std::string& name, const std::string& file);
  // api_artifacts.cpp: a job's downloadable files and its evaluation; nullopt for another path.
  std::optional<Reply> artifacts_route(const std::vector<std::string>& parts,
                                       const std::map<std::string, std::string>& query);
  Reply artifacts(const std::string& project, const std::string& name);
  Reply artifact_file(const std::string& project, const std::string& name, const std::string& path);
  Reply evaluation(const std::string& project, const std::string& name);
  // The Nodes/GPUs and Snapshots pages' routes (api_cluster.cpp); nullopt for another path.
  std::optional<Reply> cluster_route(const std::vector<std::string>& parts);

  Roles roles_;
  std::mutex backend_mutex_;
};

// {"error": message} with `status`.
Reply error_reply(int status, const std::string& message);
// 200 with the document.
Reply json_reply(const nlohmann::json& doc);
// 404: the job does not exist.
Reply no_job_reply(const std::string& project, const std::string& name);

}  // namespace lane::dashboard

#pragma once
// The dashboard's JSON API over the backend roles the verbs use: read-only (get), and the job
// actions (post) that `lanectl dashboard --allow-actions` serves (the server guards them). The documents are
// those of `lanectl list -o json`, `describe job -o json`, `project list -o json` and
// `cluster nodes -o json` (one function each in submit/core), secrets masked. Every backend call
// goes through one mutex: the HTTP server answers on several threads, a backend is not shared.
#include <functional>
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

// What a resubmit changes of a job's stored spec (POST /api/jobs/P/NAME/resubmit), each field as
// its `lanectl submit` flag takes it; an absent one keeps the stored value.
struct SpecChanges {
  std::string name;                              // empty: the next free NAME-N
  std::optional<std::string> image;              // -i
  std::optional<std::vector<std::string>> env;   // -e NAME=VALUE each: the whole environment
  std::optional<std::vector<std::string>> args;  // the words after -- (the command, when the job has one)
  std::optional<std::string> gpu;                // -g
};
// The stored spec with `changes` applied by the CLI's submit parsers and validation, so the same
// errors (UsageError) come back; `lanectl dashboard` (src/cli, which owns them) gives it.
using SpecEditor = std::function<submit::JobSpec(const submit::JobSpec& stored, const SpecChanges& changes)>;

struct Roles {
  submit::Jobs& jobs;
  submit::Projects& projects;
  submit::Cluster& cluster;
  submit::JobFiles& files;  // the job page's metrics and overlays (job_outputs.h)
  submit::Storage& storage;
  GpuSampler* gpu_sampler = nullptr;  // GPU utilization over time (gpu_sampler.h); null: not sampled
  SpecEditor edit_spec = nullptr;     // resubmit's changes (empty: resubmit is refused, 501)
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

  // POST /api/jobs/P/NAME/ACTION (api_actions.cpp): suspend, resume, delete (no body), resubmit
  // (`body`: JSON {name?, image?, env?: ["N=V"...], args?: [...], gpu?: "0.5"}) through the Jobs
  // role as the verbs do. 200 {"message"} (resubmit: 201 {"message", "project", "name"}); 404 for
  // an unknown job, 400 with the CLI's message for what the backend or the submit rules refuse.
  // Only the server's guards (token, same origin, CSRF token, --allow-actions) make it reachable.
  Reply post(const std::string& path, const std::string& body);

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
  Reply resubmit(const std::string& project, const std::string& name, const std::string& body);
  // The Nodes/GPUs and Snapshots pages' routes (api_cluster.cpp); nullopt for another path.
  std::optional<Reply> cluster_route(const std::vector<std::string>& parts);

  Roles roles_;
  std::mutex backend_mutex_;
};

// "/api/jobs/p/n" → {"api", "jobs", "p", "n"}; one trailing '/' is dropped, but an empty part
// inside ("/api/jobs//") stays "", so that such a path matches no route (404).
std::vector<std::string> split_api_path(const std::string& path);
// {"error": message} with `status`.
Reply error_reply(int status, const std::string& message);
// 200 with the document.
Reply json_reply(const nlohmann::json& doc);
// 404: the job does not exist.
Reply no_job_reply(const std::string& project, const std::string& name);

}  // namespace lane::dashboard

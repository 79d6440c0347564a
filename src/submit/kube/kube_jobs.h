#pragma once
// The Jobs role on Kubernetes: jobs are batch/v1 Jobs and Kubeflow MPIJobs in the project's
// namespace, scheduled by KAI. Written in three files: kube_jobs.cpp (create, name, delete),
// kube_job_reads.cpp (list, describe), kube_job_pods.cpp (logs, exec, attach: the chief pod's
// I/O) and kube_job_suspend.cpp (suspend, resume). It is also the JobFiles role
// (kube_job_files.cpp): a job's files read in its chief pod while it runs.
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "submit/core/job_files.h"
#include "submit/core/jobs.h"
#include "submit/kube/kube_context.h"

namespace lane::submit::kube {

// The resource of a workload kind: MPIJob, PyTorchJob, else batch/v1 Job.
const lane::kube::Resource& workload_resource(const std::string& kind);
// A kind as kubectl takes it and events name it: "mpijob", "pytorchjob", "job".
std::string lower_kind(std::string kind);

class KubeJobs : public Jobs, public JobFiles {
 public:
  explicit KubeJobs(const KubeContext& context) : ctx_(context) {}

  nlohmann::json render(const JobSpec& spec) override;
  JobInfo submit(const JobSpec& spec) override;
  std::string next_job_name(const std::string& project, const std::string& prefix) override;
  std::vector<JobInfo> list_jobs(const std::optional<std::string>& project) override;
  // The selector goes to the API server as the workloads' labelSelector.
  std::vector<JobInfo> select_jobs(const std::optional<std::string>& project, const LabelSelector& selector) override;
  // List, then watch Jobs, MPIJobs, PyTorchJobs and pods from the list's resourceVersion
  // (bookmarks on; a 410 Gone lists that resource again), one thread per watch; on_jobs runs
  // on this thread after each batch of events (kube_job_watch.cpp).
  void watch_jobs(const std::optional<std::string>& project, const LabelSelector& selector,
                  std::optional<std::chrono::steady_clock::time_point> until, const JobsObserver& on_jobs) override;
  std::optional<JobInfo> describe_job(const std::string& name, const std::string& project) override;
  void stream_logs(const std::string& name, const std::string& project, const LogOptions& opts,
                   std::ostream& out) override;
  bool delete_job(const std::string& name, const std::string& project) override;
  std::vector<std::string> delete_all_jobs(const std::string& project) override;
  int exec(const std::string& name, const std::string& project, const std::vector<std::string>& argv, bool tty,
           const std::string& pod, std::ostream& out, std::ostream& err) override;
  SwitchResult suspend_job(const std::string& name, const std::string& project) override;
  SwitchResult resume_job(const std::string& name, const std::string& project) override;
  // pods/attach to the chief pod while it runs (stdin and tty as asked); a pod that has already
  // ended has its log printed instead. The exit code is the workload's outcome.
  int attach(const std::string& name, const std::string& project, const AttachOptions& opts, std::ostream& out,
             std::ostream& err) override;

  // JobFiles: OUTPUT_DIR from the workload's env, else the chief pod's environment (printenv: the
  // image's default); files are read by exec in the chief pod while it runs (realpath must give
  // the path back unchanged, so no symbolic link is followed; stat; tail/head -c). A pod that is
  // not running, or gone, makes the answer unreachable with that reason.
  std::optional<std::string> output_dir(const std::string& name, const std::string& project,
                                        std::string& why) override;
  JobFileRead read_file(const std::string& name, const std::string& project, const std::string& path,
                        uint64_t max_bytes, bool tail) override;
  JobDirRead list_dir(const std::string& name, const std::string& project, const std::string& path,
                      size_t max_entries) override;
  // As kubectl cp: realpath of the directory (no links), a one-file tar stream on stdin to
  // `tar xmf - -C DIR`, then `mv -f -T` of that temporary file over the name.
  JobFileWrite write_file(const std::string& name, const std::string& project, const std::string& path,
                          const std::string& data) override;

  // The jobs of namespace `ns` (empty = all namespaces) whose workloads `selector` picks, unsorted.
  std::vector<JobInfo> jobs_in(const std::string& ns, const std::string& selector = "");

 private:
  // The workload (Job or MPIJob) named `name` in `ns`, or nullopt.
  std::optional<nlohmann::json> find_workload(const std::string& ns, const std::string& name);
  // Waits (settings.deletion_wait, saying so on progress) for `workload`, which carries a
  // deletionTimestamp, to go; throws AlreadyExists naming the fix when it is still there.
  void await_deletion(const std::string& ns, const nlohmann::json& workload, const std::string& project);
  // Throws UsageError for a claim the job mounts that does not exist (--pvc NAME:PATH) or is being
  // deleted (also one an earlier run left), before anything is created.
  void check_claims(const std::string& ns, const JobSpec& spec, const std::vector<nlohmann::json>& objects);
  // The namespaces labelled as projects.
  std::set<std::string> project_namespaces();
  // A listing's last steps: without a project, only jobs of `project_ns`; service URLs (when
  // `fill_urls`); sorted by project, name.
  void finish_list(const std::optional<std::string>& project, const std::set<std::string>& project_ns,
                   std::vector<JobInfo>& jobs, bool fill_urls = true);
  std::string chief_pod(const std::string& ns, const nlohmann::json& workload);
  // What one submit has made so far, for its rollback.
  struct Submitted {
    std::string ns, job, project;
    std::string id;  // stamped on every object: KubeClient::new_submission_id()
    std::vector<std::pair<const lane::kube::Resource*, std::string>> created;  // confirmed, claims aside
  };
  // After a failed submit: removes what it had created (in reverse order), first `unanswered`
  // (the object whose create failed without a definite answer) if the API server did make it,
  // noting each removal, or why one failed, on stderr.
  void roll_back(const Submitted& done,
                 const std::optional<std::pair<const lane::kube::Resource*, std::string>>& unanswered);
  // Deletes the object `job` of `r` in `ns` when it carries the job's label (a Service or Ingress).
  void remove_if_job_owns(const lane::kube::Resource& r, const std::string& ns, const std::string& job);
  // Fills JobInfo::service_urls of `jobs` (all in `ns`, "" = any) from their Services, Ingresses
  // and the nodes they run on (kube_service_urls.cpp).
  void fill_service_urls(const std::string& ns, std::vector<JobInfo>& jobs);

  // The chief pod of job `name` when it is Running and `path` is clean (is_clean_absolute_path;
  // "" = no path to check), else why not (kube_job_files.cpp).
  std::optional<std::string> pod_for_path(const std::string& name, const std::string& project,
                                          const std::string& path, std::string& why);
  // Runs argv in `pod` of `ns` (no stdin, no tty); its stdout, at most `max_bytes` of it, in `out`.
  int exec_capture(const std::string& ns, const std::string& pod, const std::vector<std::string>& argv,
                   size_t max_bytes, std::string& out);

  const KubeContext& ctx_;
};

}  // namespace lane::submit::kube

#pragma once
// The Jobs role of the local backend: jobs run on this machine under detached supervisors,
// GPUs shared by the fair-share scheduler. Written in three files: local_jobs.cpp (validate,
// render, submit, name, delete), local_job_reads.cpp (list, describe, logs), local_job_exec.cpp,
// local_job_suspend.cpp (suspend, resume) and local_job_attach.cpp. It is also the JobFiles role
// (local_job_files.cpp): a job's files read through its --pvc/-v mounts on this machine.
#include "submit/core/job_files.h"
#include "submit/core/jobs.h"
#include "submit/local/state/local_state.h"

namespace lane::submit::local {

class LocalJobs : public Jobs, public JobFiles {
 public:
  explicit LocalJobs(LocalState& state) : st_(state) {}

  nlohmann::json render(const JobSpec& spec) override;
  std::vector<std::string> unhonoured_flags(const JobSpec& spec) const override;
  JobInfo submit(const JobSpec& spec) override;
  std::string next_job_name(const std::string& project, const std::string& prefix) override;
  std::vector<JobInfo> list_jobs(const std::optional<std::string>& project) override;
  std::optional<JobInfo> describe_job(const std::string& name, const std::string& project) override;
  void stream_logs(const std::string& name, const std::string& project, const LogOptions& opts,
                   std::ostream& out) override;
  bool delete_job(const std::string& name, const std::string& project) override;
  std::vector<std::string> delete_all_jobs(const std::string& project) override;
  // The command runs with this process's descriptors (it is a child of it): `out` and `err`
  // are not written.
  int exec(const std::string& name, const std::string& project, const std::vector<std::string>& argv,
           bool tty, const std::string& pod, std::ostream& out, std::ostream& err) override;
  // Suspend stops the job's supervisor as preemption does (SIGTERM, then SIGKILL) and keeps the
  // row 'Suspended', which the scheduling pass does not see; resume makes it 'Pending'.
  SwitchResult suspend_job(const std::string& name, const std::string& project) override;
  SwitchResult resume_job(const std::string& name, const std::string& project) override;
  // Follows the job's output log (from its start) until the job ends; stdin is not forwarded
  // (a local job's stdin is /dev/null).
  int attach(const std::string& name, const std::string& project, const AttachOptions& opts, std::ostream& out,
             std::ostream& err) override;

  // JobFiles: OUTPUT_DIR from -e, else the project image's image.json env; a path is read in the
  // directory of the claim or -v host directory mounted there, opened component by component
  // without following symbolic links. A path on no mount is unreachable (the job's own /tmp and
  // root are private to it).
  std::optional<std::string> output_dir(const std::string& name, const std::string& project,
                                        std::string& why) override;
  JobFileRead read_file(const std::string& name, const std::string& project, const std::string& path,
                        uint64_t max_bytes, bool tail) override;
  JobDirRead list_dir(const std::string& name, const std::string& project, const std::string& path,
                      size_t max_entries) override;
  // Keeps the file's descriptor: a download reads it in pieces, never the whole file at once.
  std::unique_ptr<JobFileReader> open_file(const std::string& name, const std::string& project,
                                           const std::string& path, std::string& why) override;
  // Written beneath the mount's directory through descriptors (common/beneath.h): a temporary
  // file in the directory opened without following links, then renameat over the name (a link
  // there is replaced, never followed); owned like the directory when lanectl runs as root.
  JobFileWrite write_file(const std::string& name, const std::string& project, const std::string& path,
                          const std::string& data) override;

 private:
  void validate(const JobSpec& spec);

  LocalState& st_;
};

}  // namespace lane::submit::local

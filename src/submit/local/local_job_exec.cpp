#include "submit/local/local_jobs.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ostream>

#include <fmt/format.h>

#include "common/error.h"
#include "submit/core/workload_json.h"
#include "submit/local/runtime/job_cgroup.h"
#include "submit/local/runtime/job_launch.h"
#include "submit/local/state/project_users.h"
#include "submit/local/runtime/process_identity.h"
#include "submit/local/runtime/sandbox.h"

namespace lane::submit::local {
using nlohmann::json;

int LocalJobs::exec(const std::string& name, const std::string& project, const std::vector<std::string>& argv,
                    bool tty, const std::string& pod, std::ostream& out, std::ostream& err) {
  (void)out;  // the command writes to this process's descriptors itself
  if (argv.empty()) throw UsageError("exec needs a command: lanectl exec JOB -- CMD ARGS...");
  auto row = load_job_row(st_.db, project, name, true);
  if (!row) throw Error("job '" + name + "' does not exist in project '" + project + "'");
  if (!pod.empty()) {  // locally a job's pods share one sandbox: any of them runs the command there
    bool known = false;
    for (const auto& p : job_info_from_row(*row).pods) known = known || p.name == pod;
    if (!known)
      throw UsageError("--pod " + pod + ": job '" + name + "' has no such pod; see `lanectl describe job " + name +
                       " -p " + project + "`");
  }
  if (row->status != JobStatus::kRunning)
    throw Error("job '" + name + "' is " + to_string(row->status) + ", not running; exec needs a running job");
  // Recorded Running, but its processes are not there: just started (no pid yet) or just ended.
  if (row->child_pgid <= 0)
    throw Error("job '" + name + "' is starting and has no process yet; try again in a moment");
  if (!process_alive(row->child_pgid, row->child_start))
    throw Error("job '" + name + "' has just ended; exec needs a running job");
  JobSpec spec = spec_from_json(json::parse(row->spec_json));
  // The job's environment and user, as its own processes have them (no LANECTL_HOME).
  LaunchPlan plan =
      make_launch_plan(spec, row->placement, st_.paths.claim_dirs(spec), st_.paths.home.string(), self_executable());
  JobUser user;
  {
    WriteTransaction tx(st_.db);
    user = job_user_for_project(st_.db, spec.project);
    tx.commit();
  }
  plan.uid = user.uid;
  plan.gid = user.gid;
  const JobNamespaces ns = open_job_namespaces(row->child_pgid, row->child_start);
  // The job's cgroups too: its limits count the command, and a snapshot freezes it with the job.
  const std::vector<std::string> groups = existing_job_cgroups(job_cgroup_name(row->sup_pid, row->id));
  std::vector<std::string> procs;
  for (const auto& g : groups) procs.push_back(g + "/cgroup.procs");
  pid_t child = fork();
  if (child == 0) {
    if (!join_cgroups(procs)) {
      err << fmt::format("lanectl: cannot join the job's cgroups: {}\n", std::strerror(errno)) << std::flush;
      _exit(126);
    }
    const std::pair<const char*, int> joins[] = {{"net", ns.net.get()}, {"pid", ns.pid.get()}, {"mnt", ns.mnt.get()}};
    for (const auto& [name, fd] : joins) {
      if (setns(fd, 0) != 0) {
        err << fmt::format("lanectl: cannot enter the job's {} namespace: {}\n", name, std::strerror(errno))
            << std::flush;
        _exit(126);
      }
    }
    exec_in_job(plan, argv);  // forks into the PID namespace; never returns
  }
  int status = 0;
  waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace lane::submit::local

#include "submit/local/local_jobs.h"

#include <signal.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/clock.h"
#include "common/error.h"
#include "common/names.h"
#include "submit/core/errors.h"
#include "submit/core/spec_fields.h"
#include "submit/core/validate.h"
#include "submit/core/workload_json.h"
#include "submit/local/local_projects.h"
#include "submit/local/runtime/job_launch.h"
#include "submit/local/runtime/process_identity.h"
#include "submit/local/runtime/sandbox.h"
#include "submit/local/state/job_table.h"
#include "submit/local/state/scheduling_pass.h"

namespace lane::submit::local {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// True when `path` is `root` or lies below it, symlinks resolved where they exist.
bool path_within(const std::string& path, const std::string& root) {
  std::error_code ec;
  return relative_within(fs::weakly_canonical(fs::absolute(path), ec), fs::weakly_canonical(fs::absolute(root), ec))
      .has_value();
}

// --existing-pvc names a claim the project does not have.
UsageError missing_claim(LocalVolumes& volumes, const PvcMount& p, const std::string& project) {
  std::vector<std::string> claims;
  for (const auto& v : volumes.list())
    if (volumes.owner(v.name) == project) claims.push_back(v.name);
  return UsageError(fmt::format(
      "--existing-pvc claimname={}: project '{}' has no claim '{}' ({}). Check the name with `lanectl volume list "
      "-p {}`, or let the job create it with --new-pvc claimname={},size=SIZE,path={}",
      p.claim, project, p.claim,
      claims.empty() ? "it has no claims" : "its claims: " + fmt::format("{}", fmt::join(claims, ", ")), project,
      p.claim, p.mount_path));
}

}  // namespace

void LocalJobs::validate(const JobSpec& spec) {
  submit::validate(spec);
  if (!find_project(st_.db, spec.project))
    throw unknown_project(spec.project);
  if (spec.host_network && !project_allows_host_network(st_.db, spec.project))
    throw UsageError(fmt::format(
        "--host-network: project '{}' does not let its jobs use the host's network (each job gets its own "
        "network namespace with only loopback; the job API stays reachable). Allow it with `lanectl project "
        "set-network {} --allow-host-network`, or submit without --host-network",
        spec.project, spec.project));
  for (const auto& p : spec.pvcs) {
    if (p.create) continue;
    const bool exists = st_.volumes.find(p.claim).has_value();
    if (!exists && p.must_exist) throw missing_claim(st_.volumes, p, spec.project);
    if (!exists) continue;  // a missing --pvc CLAIM:PATH is created by submit
    std::string owner = st_.volumes.owner(p.claim);
    if (!owner.empty() && owner != spec.project)
      throw UsageError(fmt::format(
          "--pvc {}:{}: claim '{}' belongs to project '{}'; a job of project '{}' can mount only its own "
          "project's claims (as a PVC belongs to its namespace). Submit the job in project '{}' (-p {}), "
          "or give it a claim of project '{}' (`--pvc :SIZE:{}` creates one)",
          p.claim, p.mount_path, p.claim, owner, spec.project, owner, owner, spec.project, p.mount_path));
  }
  for (const auto& v : spec.volumes) {
    if (!fs::is_directory(v.host_path))
      throw UsageError("-v host path '" + v.host_path + "' is not an existing directory");
    if (path_within(v.host_path, st_.paths.home.string()))
      throw UsageError("-v host path '" + v.host_path + "' is inside LANECTL_HOME (" + st_.paths.home.string() +
                       "), the backend's state, which jobs never see; mount claims with --pvc CLAIM:PATH instead");
  }
  shm_size_bytes(spec);
  job_command(spec);  // throws when the command is unknown
  sched::ClusterState state = build_cluster_state(st_.db);
  JobRow probe;
  probe.project = spec.project;
  probe.name = spec.name;
  probe.type = to_string(spec.type);
  probe.gpu = spec.gpu;
  probe.pods = spec.gpu_ranks();
  probe.preemptible = preemptible_column(spec);
  if (auto why = sched::never_fits_with_fix(state, workload_from_row(probe))) throw UsageError(*why);
}

std::vector<std::string> LocalJobs::unhonoured_flags(const JobSpec& spec) const {
  std::vector<std::string> notes;
  for (const auto& [flag, why] : unhonoured_locally(spec))
    notes.push_back(flag + " has no effect on the local backend" + (why.empty() ? "" : " (" + why + ")") +
                    "; recorded for Kubernetes");
  return notes;
}

json LocalJobs::render(const JobSpec& spec) {
  validate(spec);
  JobSpec resolved = spec;
  json items = json::array();
  std::vector<std::string> volume_paths;
  for (size_t i = 0; i < resolved.pvcs.size(); ++i) {
    auto& p = resolved.pvcs[i];
    if (p.create) {
      p.claim = claim_name(resolved, i);
      items.push_back({{"kind", "Volume"}, {"name", p.claim}, {"size", p.size.text()},
                       {"storageClass", p.storage_class},
                       {"path", (st_.paths.volumes_dir() / p.claim).string()}});
    }
    volume_paths.push_back((st_.paths.volumes_dir() / p.claim).string());
  }
  json placeholder = json::array();
  for (int i = 0; i < spec.gpu_ranks(); ++i)
    placeholder.push_back({{"node", "<scheduled>"}, {"gpus", json::array()}, {"share", 1.0}});
  LaunchPlan plan = make_launch_plan(resolved, placeholder, volume_paths, st_.paths.home.string(), self_executable());
  json mounts = json::array();
  for (const auto& m : plan.mounts)
    mounts.push_back({{"source", m.source}, {"target", m.target}, {"readOnly", m.read_only}});
  json env = json::array();
  for (const auto& [name, value] : plan.env) env.push_back({{"name", name}, {"value", value}});
  items.push_back({{"kind", "LocalJob"},
                   {"name", resolved.name},
                   {"project", resolved.project},
                   {"spec", spec_to_json(resolved)},
                   {"launch", {{"argv", plan.argv}, {"env", env}, {"mounts", mounts},
                               {"shmBytes", plan.shm_bytes}}}});
  return {{"apiVersion", "lanectl/v1"}, {"kind", "List"}, {"items", items}};
}

JobInfo LocalJobs::submit(const JobSpec& input) {
  JobSpec spec = input;
  PassEffects effects;
  {
    WriteTransaction tx(st_.db);
    validate(spec);
    if (load_job_row(st_.db, spec.project, spec.name, false)) throw job_name_taken(spec.name, spec.project);
    std::vector<std::pair<std::string, std::string>> thin;  // claim, warning
    std::vector<std::string> named;                         // named claims created, as runai does
    for (size_t i = 0; i < spec.pvcs.size(); ++i) {
      auto& p = spec.pvcs[i];
      const auto owner = storage::VolumeOrigin::job(spec.project, spec.name);
      if (!p.create && !st_.volumes.find(p.claim)) {
        auto created = st_.volumes.create_in_transaction(p.claim, LocalVolumes::kDefaultClaimSize, "", owner);
        if (!created.warning.empty()) thin.emplace_back(p.claim, created.warning);
        named.push_back(p.claim);
      }
      if (!p.create) continue;
      p.claim = claim_name(spec, i);
      if (auto existing = st_.volumes.find(p.claim)) {
        // A resubmitted job (same name) gets its old claim back, as a re-created PVC would bind.
        if (existing->origin != owner)
          throw Error("volume '" + p.claim + "' already exists (created by " + existing->origin.str() +
                      "); use another job name or mount it with --pvc " + p.claim + ":" + p.mount_path);
      } else {
        auto created = st_.volumes.create_in_transaction(p.claim, p.size.text(), p.storage_class, owner);
        if (!created.warning.empty()) thin.emplace_back(p.claim, created.warning);
      }
    }
    std::vector<std::string> adopted;
    for (const auto& p : spec.pvcs)
      if (!p.create && st_.volumes.owner(p.claim).empty()) {
        st_.volumes.adopt(p.claim, spec.project);
        adopted.push_back(p.claim);
      }
    const int64_t job_id = insert_job(st_.db, spec, now_unix_ms());
    add_event(st_.db, job_id, "job/" + spec.name, "Normal", "Submitted",
              fmt::format("job submitted by {}", spec.user.empty() ? "unknown user" : spec.user));
    for (const auto& [claim, warning] : thin)
      add_event(st_.db, job_id, "pvc/" + claim, "Warning", "ProvisionedThin", warning);
    for (const auto& claim : named)
      add_event(st_.db, job_id, "pvc/" + claim, "Normal", "ClaimCreated",
                fmt::format("claim {} did not exist; created it in project {} with the default size {} (as runai "
                            "does for --pvc NAME:PATH)",
                            claim, spec.project, LocalVolumes::kDefaultClaimSize));
    for (const auto& claim : adopted)
      add_event(st_.db, job_id, "pvc/" + claim, "Normal", "ClaimAdopted",
                "claim " + claim + " had no project (recorded by an earlier version); it now belongs to project " +
                    spec.project);
    effects = run_scheduling_pass(st_.db, st_.paths);
    tx.commit();
  }
  terminate_supervisors(effects);
  return *describe_job(spec.name, spec.project);
}

std::string LocalJobs::next_job_name(const std::string& project, const std::string& prefix) {
  validate_job_name_prefix(prefix);
  for (int n = 1;; ++n) {
    std::string name = fmt::format("{}-{}", prefix, n);
    if (!load_job_row(st_.db, project, name, false)) return name;
  }
}

bool LocalJobs::delete_job(const std::string& name, const std::string& project) {
  std::optional<JobRow> row;
  PassEffects effects;
  {
    WriteTransaction tx(st_.db);
    row = load_job_row(st_.db, project, name, false);
    if (!row) return false;
    erase_job(st_.db, row->id);
    effects = run_scheduling_pass(st_.db, st_.paths);
    tx.commit();
  }
  if (row->status == JobStatus::kRunning) {
    if (process_alive(row->sup_pid, row->sup_start)) {
      effects.terminate.emplace_back(row->sup_pid, row->sup_start);
    } else if (row->child_pgid > 0 && process_alive(row->child_pgid, row->child_start)) {
      kill(-row->child_pgid, SIGKILL);
    }
  }
  terminate_supervisors(effects);
  std::error_code ec;
  fs::remove_all(st_.paths.job_dir(row->id), ec);
  return true;
}

std::vector<std::string> LocalJobs::delete_all_jobs(const std::string& project) {
  std::vector<std::string> names;
  for (const auto& row : load_job_rows(st_.db, project, false))
    if (delete_job(row.name, project)) names.push_back(row.name);
  return names;
}

}  // namespace lane::submit::local

#include "submit/local/local_cluster.h"

#include <set>

#include "common/error.h"
#include "common/names.h"
#include "submit/local/runtime/job_view.h"
#include "submit/local/state/scheduling_pass.h"

namespace lane::submit::local {

namespace {

// The pod that placement entry `i` of a job is (as job_info_from_row names them): an MPI job's
// worker i, a PyTorch job's master (0) or worker i-1, else the job's one pod.
std::string pod_name(const JobRow& row, size_t i) {
  if (row.type == to_string(JobType::kPyTorch))
    return i == 0 ? row.name + "-master-0" : row.name + "-worker-" + std::to_string(i - 1);
  return row.type == "Mpi" ? row.name + "-worker-" + std::to_string(i) : row.name + "-0";
}

}  // namespace

void LocalCluster::set_nodes(const std::vector<NodeSpec>& nodes) {
  if (nodes.empty()) throw UsageError("set-nodes needs at least one NAME=GPUS");
  std::set<std::string> names;
  for (const auto& n : nodes) {
    require_dns1123_label(n.name, "node name");
    if (n.gpus < 0) throw UsageError("node " + n.name + ": GPU count must be 0 or more");
    if (!names.insert(n.name).second)
      throw UsageError("node " + n.name + " is given twice; name each node once (NAME=GPUS)");
  }
  {
    WriteTransaction tx(st_.db);
    for (const auto& row : load_job_rows(st_.db, std::nullopt, false, true)) {
      if (row.status != JobStatus::kRunning) continue;
      for (const auto& p : row.placement) {
        bool ok = false;
        for (const auto& n : nodes)
          if (n.name == p.value("node", "")) {
            ok = true;
            for (const auto& g : p["gpus"]) ok = ok && g.get<int>() < n.gpus;
          }
        if (!ok)
          throw Error("running job " + row.project + "/" + row.name + " uses node " + p.value("node", "") +
                      " GPUs that the new node list removes; delete or wait for it first");
      }
    }
    st_.db.exec("DELETE FROM nodes");
    for (const auto& n : nodes)
      st_.db.prepare("INSERT INTO nodes(name, gpus) VALUES(?1, ?2)").bind(1, n.name).bind(2, static_cast<int64_t>(n.gpus)).run();
    tx.commit();
  }
  st_.reschedule();
}

std::vector<NodeStatus> LocalCluster::list_nodes() {
  ReadTransaction tx(st_.db);
  bool declared = false;
  std::vector<NodeStatus> out;
  for (const auto& n : effective_nodes(st_.db, &declared))
    out.push_back({n, 0, {}, declared, declared ? "" : detected_gpu_models(st_.db), -1, {}, {}, {}, {}});
  for (const auto& row : load_job_rows(st_.db, std::nullopt, false, true)) {
    if (row.status != JobStatus::kRunning) continue;
    for (size_t i = 0; i < row.placement.size(); ++i) {
      const auto& p = row.placement[i];
      for (auto& n : out)
        if (n.spec.name == p.value("node", "")) {
          GpuHold hold{row.project + "/" + row.name, pod_name(row, i), p["gpus"].get<std::vector<int>>(),
                       p.value("share", 1.0), 0};
          hold.gpus = hold.share_per_gpu * static_cast<double>(hold.gpu_indices.size());
          n.gpus_allocated += hold.gpus;
          if (n.jobs.empty() || n.jobs.back() != hold.job) n.jobs.push_back(hold.job);
          if (!hold.gpu_indices.empty()) n.holds.push_back(std::move(hold));
        }
    }
  }
  return out;
}

}  // namespace lane::submit::local

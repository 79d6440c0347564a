#include "submit/local/local_cluster.h"

#include "common/error.h"
#include "common/names.h"
#include "submit/local/job_view.h"
#include "submit/local/scheduling_pass.h"

namespace lane::submit::local {

void LocalCluster::set_nodes(const std::vector<NodeSpec>& nodes) {
  if (nodes.empty()) throw UsageError("set-nodes needs at least one NAME=GPUS");
  for (const auto& n : nodes) {
    require_dns1123_label(n.name, "node name");
    if (n.gpus < 0) throw UsageError("node " + n.name + ": GPU count must be 0 or more");
  }
  {
    WriteTransaction tx(st_.db);
    for (const auto& row : load_job_rows(st_.db, std::nullopt, false, true)) {
      if (row.status != "Running") continue;
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
  for (const auto& n : effective_nodes(st_.db, &declared)) out.push_back({n, 0, {}, declared});
  for (const auto& row : load_job_rows(st_.db, std::nullopt, false, true)) {
    if (row.status != "Running") continue;
    for (const auto& p : row.placement)
      for (auto& n : out)
        if (n.spec.name == p.value("node", "")) {
          n.gpus_allocated += p.value("share", 1.0) * static_cast<double>(p["gpus"].size());
          std::string id = row.project + "/" + row.name;
          if (n.jobs.empty() || n.jobs.back() != id) n.jobs.push_back(id);
        }
  }
  return out;
}

}  // namespace lane::submit::local

// The routes of the Nodes/GPUs and Snapshots pages: per-GPU allocation (Cluster role), GPU
// utilization samples (the server's sampler), snapshots and the lineage graph (Storage role).
#include "dashboard/api.h"
#include "dashboard/gpu_allocation.h"
#include "dashboard/gpu_sampler.h"
#include "dashboard/lineage_graph.h"
#include "storage/core/snapshots.h"
#include "storage/core/volumes.h"

namespace lane::dashboard {

std::optional<Reply> Api::cluster_route(const std::vector<std::string>& parts) {
  auto reply = [](const nlohmann::json& doc) { return Reply{200, "application/json", doc.dump()}; };
  if (parts.size() == 3 && parts[1] == "gpus" && parts[2] == "metrics") {
    if (!roles_.gpu_sampler) return reply({{"available", false}, {"reason", "the server samples no GPUs"}, {"gpus", nlohmann::json::array()}});
    return reply(roles_.gpu_sampler->document());  // the sampler's own lock; no backend call
  }
  if (parts.size() != 2) return std::nullopt;
  if (parts[1] == "gpus") {
    std::lock_guard<std::mutex> lock(backend_mutex_);
    return reply(gpus_document(roles_.cluster.list_nodes()));
  }
  if (parts[1] == "snapshots") {
    std::lock_guard<std::mutex> lock(backend_mutex_);
    nlohmann::json items = nlohmann::json::array();
    for (const auto& s : roles_.storage.snapshots().list(std::nullopt)) items.push_back(storage::to_json(s));
    return reply({{"items", items}});  // as `lanectl snapshot list -o json`
  }
  if (parts[1] == "lineage") {
    std::lock_guard<std::mutex> lock(backend_mutex_);
    auto& store = roles_.storage.snapshots();
    return reply(lineage_graph(store.list(std::nullopt), store.all_lineage(), roles_.storage.volumes().list()));
  }
  return std::nullopt;
}

}  // namespace lane::dashboard

// The routes of the Nodes/GPUs and Snapshots pages: per-GPU allocation (Cluster role), GPU
// utilization samples (the server's sampler), snapshots and the lineage graph (Storage role).
#include <set>
#include <utility>

#include "dashboard/api.h"
#include "dashboard/gpu_allocation.h"
#include "dashboard/gpu_sampler.h"
#include "dashboard/lineage_graph.h"
#include "storage/core/snapshots.h"
#include "storage/core/volumes.h"
#include "submit/core/storage.h"

namespace lane::dashboard {

namespace {

struct StoreContents {
  std::vector<storage::SnapshotInfo> snapshots;
  std::vector<storage::LineageRecord> lineage;
  std::vector<storage::VolumeInfo> volumes;
};

// The snapshots, lineage and volumes of every project: the backend's own store, then each
// project's (one store for all on the local backend; a namespace each on Kubernetes, where the
// default store is also some project's). A snapshot is taken once by (namespace, name), a
// volume once by name (the graph names volumes by name).
StoreContents all_snapshots(submit::Storage& storage, submit::Projects& projects) {
  StoreContents out;
  std::set<storage::SnapshotStore*> seen_stores;
  std::set<std::pair<std::string, std::string>> seen;
  auto add = [&](storage::SnapshotStore& store) {
    if (!seen_stores.insert(&store).second) return;
    std::set<std::string> added;
    for (auto& s : store.list(std::nullopt))
      if (seen.insert({s.ns, s.name}).second) {
        added.insert(s.name);
        out.snapshots.push_back(std::move(s));
      }
    for (auto& r : store.all_lineage())
      if (added.count(r.snapshot)) out.lineage.push_back(std::move(r));
  };
  std::set<storage::Volumes*> seen_volume_sets;
  std::set<std::string> seen_volumes;
  auto add_volumes = [&](storage::Volumes& volumes) {
    if (!seen_volume_sets.insert(&volumes).second) return;
    for (auto& v : volumes.list())
      if (seen_volumes.insert(v.name).second) out.volumes.push_back(std::move(v));
  };
  add(storage.snapshots());
  add_volumes(storage.volumes());
  for (const auto& p : projects.list_projects()) {
    add(storage.snapshots_of(p.spec.name));
    add_volumes(storage.volumes_of(p.spec.name));
  }
  return out;
}

}  // namespace

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
    for (const auto& s : all_snapshots(roles_.storage, roles_.projects).snapshots) items.push_back(storage::to_json(s));
    return reply({{"items", items}});  // `lanectl snapshot list -o json`, of every project
  }
  if (parts[1] == "lineage") {
    std::lock_guard<std::mutex> lock(backend_mutex_);
    auto all = all_snapshots(roles_.storage, roles_.projects);
    return reply(lineage_graph(all.snapshots, all.lineage, all.volumes));
  }
  return std::nullopt;
}

}  // namespace lane::dashboard

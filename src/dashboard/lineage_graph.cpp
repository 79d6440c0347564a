#include "dashboard/lineage_graph.h"

#include <map>
#include <set>
#include <string>
#include <tuple>

#include "common/secrets.h"
#include "storage/core/lineage_view.h"
#include "storage/core/snapshot_lookup.h"
#include "submit/core/workload.h"

namespace lane::dashboard {

namespace {

using nlohmann::json;

// The project of a record's namespace ("runai-p" -> "p"; a bare name is kept).
std::string project_of(const std::string& ns) {
  std::string p = submit::namespace_project(ns);
  return p.empty() ? ns : p;
}

class GraphBuilder {
 public:
  json& node(const std::string& id, const std::string& kind, const std::string& name) {
    auto [it, added] = nodes_.try_emplace(id);
    if (added) it->second = {{"id", id}, {"kind", kind}, {"name", name}, {"meta", json::object()}};
    return it->second;
  }
  void edge(const std::string& from, const std::string& to, const std::string& kind) {
    if (from != to) edges_.insert({from, to, kind});
  }
  json document() const {
    json nodes = json::array(), edges = json::array();
    for (const auto& [_, n] : nodes_) nodes.push_back(n);
    for (const auto& [f, t, k] : edges_) edges.push_back({{"from", f}, {"to", t}, {"kind", k}});
    return {{"nodes", nodes}, {"edges", edges}};
  }

 private:
  std::map<std::string, json> nodes_;
  std::set<std::tuple<std::string, std::string, std::string>> edges_;
};

std::string volume_id(const std::string& name) { return "volume:" + name; }
std::string snapshot_id(const std::string& name) { return "snapshot:" + name; }
std::string job_id(const std::string& project, const std::string& name) { return "job:" + project + "/" + name; }

json job_meta(const storage::JobRecord& j) {
  json m = {{"project", project_of(j.ns)}, {"namespace", j.ns}, {"image", j.image},
            {"command", mask_secret_argv(j.command)}, {"env", mask_secret_env(j.env)},
            {"codeVersion", j.code_version}};
  for (const char* key : {"gpu", "processes", "user", "workingDir", "pvcs"})
    if (j.spec.is_object() && j.spec.contains(key)) m[key] = j.spec[key];
  return m;
}

// The graph of one state: nodes for volumes, snapshots and jobs, edges between them.
class LineageGraph {
 public:
  LineageGraph(const std::vector<storage::SnapshotInfo>& snapshots, const std::vector<storage::LineageRecord>& records,
               const std::vector<storage::VolumeInfo>& volumes)
      : records_(records), volumes_(volumes) {
    for (const auto& v : volumes) volume_by_name_[v.name] = &v;
    for (const auto& r : records) record_of_[r.snapshot] = &r;
    for (const auto& s : snapshots) listed_.insert(s.name);
    for (const auto& s : snapshots) {
      auto it = record_of_.find(s.name);
      add_snapshot(s.name, &s, it == record_of_.end() ? nullptr : it->second);
    }
    for (const auto& r : records)  // records of deleted snapshots
      if (!listed_.count(r.snapshot)) add_snapshot(r.snapshot, nullptr, &r);
    add_links();
  }
  json document() const { return g_.document(); }

 private:
  std::string add_volume(const std::string& name) {
    std::string id = volume_id(name);
    json& n = g_.node(id, "volume", name);
    auto it = volume_by_name_.find(name);
    n["meta"]["exists"] = it != volume_by_name_.end();
    if (it != volume_by_name_.end()) {
      const auto& v = *it->second;
      n["meta"]["size"] = v.size;
      n["meta"]["storageClass"] = v.storage_class;
      n["meta"]["createdBy"] = v.origin.str();
      n["meta"]["created"] = v.created_unix_ms ? storage::format_utc(v.created_unix_ms) : "";
    }
    return id;
  }

  static void snapshot_meta(json& m, const storage::SnapshotInfo* info, const storage::LineageRecord* rec) {
    m["exists"] = info != nullptr;
    if (info) {
      m["namespace"] = info->ns;
      m["created"] = storage::format_utc(info->created_unix_ms);
      m["files"] = info->file_count;
      m["bytes"] = info->total_bytes;
      m["size"] = storage::format_bytes(info->total_bytes);
      m["contentDigest"] = info->content_digest;
      m["metadata"] = info->metadata;
    }
    if (rec) {
      m["parentSnapshot"] = rec->parent_snapshot;
      m["parentVolume"] = rec->parent_volume;
      m["datasetDigest"] = rec->dataset_digest;
      m["finalMetrics"] = rec->final_metrics;
    }
  }

  // The job of a snapshot: its lineage record, else the job name the snapshot was tagged with;
  // "" when neither is known.
  std::string add_job(const std::string& volume, const storage::SnapshotInfo* info, const storage::LineageRecord* rec) {
    if (rec && rec->job) {
      const auto& j = *rec->job;
      std::string job = job_id(project_of(j.ns), j.name);
      g_.node(job, "job", j.name)["meta"] = job_meta(j);
      if (j.spec.is_object() && j.spec.contains("pvcs") && j.spec["pvcs"].is_array())
        for (const auto& p : j.spec["pvcs"])
          if (p.is_object() && p.value("claim", "") != "") g_.edge(add_volume(p.value("claim", "")), job, "mounted");
      if (!rec->parent_volume.empty() && rec->parent_volume != volume)
        g_.edge(add_volume(rec->parent_volume), job, "read");
      return job;
    }
    if (!info || info->job.empty()) return "";
    std::string project = project_of(info->ns);
    std::string job = job_id(project, info->job);
    json& jn = g_.node(job, "job", info->job);
    if (jn["meta"].empty())
      jn["meta"] = {{"project", project}, {"record", "none: the snapshot was only tagged with the job (snapshot create --job)"}};
    return job;
  }

  void add_snapshot(const std::string& name, const storage::SnapshotInfo* info, const storage::LineageRecord* rec) {
    std::string id = snapshot_id(name);
    json& m = g_.node(id, "snapshot", name)["meta"];
    const std::string volume = info ? info->volume : rec->volume;
    m["volume"] = volume;
    snapshot_meta(m, info, rec);
    const std::string vol = volume.empty() ? "" : add_volume(volume);
    const std::string job = add_job(volume, info, rec);
    if (!job.empty()) {
      g_.edge(job, id, "snapshot");
      if (!vol.empty()) g_.edge(vol, job, "mounted");
    } else if (!vol.empty()) {
      g_.edge(vol, id, "snapshot of");
    }
    m["job"] = job.empty() ? "" : job.substr(4);
  }

  std::string add_known_snapshot(const std::string& name) {
    if (!listed_.count(name) && !record_of_.count(name))
      g_.node(snapshot_id(name), "snapshot", name)["meta"] = {{"exists", false}};
    return snapshot_id(name);
  }

  // The links `lanectl lineage` shows too (storage/core/lineage_view.h).
  void add_links() {
    const storage::LineageLinks links(records_, volumes_);
    // Restores: snapshot -> the volume made from it (also when that volume is not otherwise used).
    for (const auto& r : links.restores()) g_.edge(add_known_snapshot(r.snapshot), add_volume(r.volume), "restored");
    // A parent no restored volume links to its child (the volume was deleted): a direct edge.
    for (const auto& d : links.derivations())
      if (!d.through_volume) g_.edge(add_known_snapshot(d.parent), snapshot_id(d.child), "derived");
  }

  const std::vector<storage::LineageRecord>& records_;
  const std::vector<storage::VolumeInfo>& volumes_;
  GraphBuilder g_;
  std::map<std::string, const storage::VolumeInfo*> volume_by_name_;
  std::map<std::string, const storage::LineageRecord*> record_of_;
  std::set<std::string> listed_;
};

// Each snapshot node's "label": its short ID and the part of its name the others do not share
// (storage::snapshot_labels), so that long names alike do not all show as the same prefix.
void label_snapshots(json& graph, const std::vector<storage::SnapshotInfo>& snapshots) {
  std::map<std::string, std::string> short_ids;
  for (const auto& s : snapshots) short_ids[s.name] = storage::short_snapshot_id(s);
  std::vector<json*> nodes;
  std::vector<std::string> names, ids;
  for (auto& n : graph["nodes"]) {
    if (n["kind"] != "snapshot") continue;
    nodes.push_back(&n);
    names.push_back(n["name"].get<std::string>());
    auto it = short_ids.find(names.back());
    ids.push_back(it == short_ids.end() ? "" : it->second);
  }
  const auto labels = storage::snapshot_labels(names, ids);
  for (size_t i = 0; i < nodes.size(); ++i) {
    (*nodes[i])["label"] = labels[i];
    if (!ids[i].empty()) (*nodes[i])["meta"]["shortId"] = ids[i];
  }
}

}  // namespace

json lineage_graph(const std::vector<storage::SnapshotInfo>& snapshots,
                   const std::vector<storage::LineageRecord>& records,
                   const std::vector<storage::VolumeInfo>& volumes) {
  json graph = LineageGraph(snapshots, records, volumes).document();
  label_snapshots(graph, snapshots);
  return graph;
}

}  // namespace lane::dashboard

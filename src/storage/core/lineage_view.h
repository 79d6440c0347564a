#pragma once
// What `lanectl lineage SNAP|JOB` shows, assembled from a store's lineage records and the
// volumes: for a snapshot its job, parent, dataset digest and metrics plus everything derived
// from it (volumes restored from it and the snapshots later taken of those volumes).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "storage/core/snapshots.h"
#include "storage/core/volumes.h"

namespace lane::storage {

struct LineageView {
  LineageRecord record;
  SnapshotInfo snapshot;                       // empty name when the snapshot was deleted
  std::vector<std::string> restored_volumes;   // volumes created by restoring this snapshot
  std::vector<std::string> derived_snapshots;  // snapshots whose parent is this one
};

// Lineage of one snapshot; nullopt when the store has no such snapshot and no record of it.
std::optional<LineageView> lineage_of_snapshot(SnapshotStore& store, Volumes& volumes,
                                               const std::string& snapshot);

// Lineage of every snapshot a job produced (oldest first); empty when none.
std::vector<LineageView> lineage_of_job(SnapshotStore& store, Volumes& volumes, const std::string& job);

nlohmann::json to_json(const LineageView& view);

}  // namespace lane::storage

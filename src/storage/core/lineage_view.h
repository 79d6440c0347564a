#pragma once
// Lineage as `lanectl lineage SNAP|JOB` and the dashboard's graph (dashboard/lineage_graph.h)
// show it. LineageLinks is the one derivation of what links snapshots and volumes, from a
// store's lineage records and the volumes' origins; LineageView is one snapshot's part of it:
// its job, parent, dataset digest and metrics plus everything derived from it (volumes
// restored from it and the snapshots later taken of those volumes).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "storage/core/snapshots.h"
#include "storage/core/volumes.h"

namespace lane::storage {

class LineageLinks {
 public:
  // A volume restored from a snapshot (VolumeOrigin kRestore).
  struct Restore {
    std::string snapshot, volume;
  };
  // A snapshot whose record names a parent: the snapshot its volume was restored from.
  // `through_volume`: that volume still exists and still says so (a Restore links the two).
  struct Derivation {
    std::string parent, child;
    bool through_volume = false;
  };

  LineageLinks(const std::vector<LineageRecord>& records, const std::vector<VolumeInfo>& volumes);

  const std::vector<Restore>& restores() const { return restores_; }        // in the volumes' order
  const std::vector<Derivation>& derivations() const { return derivations_; }  // in the records' order
  std::vector<std::string> restored_volumes(const std::string& snapshot) const;
  std::vector<std::string> derived_snapshots(const std::string& snapshot) const;

 private:
  std::vector<Restore> restores_;
  std::vector<Derivation> derivations_;
};

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

#pragma once
// The Snapshots page's lineage graph (GET /api/lineage): snapshots, the jobs that took them, the
// volumes they were taken of and the volumes restored from them, as {nodes, edges}, from what the
// Storage role's stores hold: the same records, and the same links (storage::LineageLinks),
// that `lanectl lineage` shows. Secret env values of the job records stay masked (masked again
// here, whatever a record holds).
//
// Node ids: "snapshot:NAME", "volume:NAME", "job:PROJECT/NAME". A snapshot node's "label" is its
// short ID and the part of its name that tells it from the others (storage/core/snapshot_lookup.h). Edges (from -> to, kind):
//   volume -> job       "mounted"      the job's claim (the snapshotted volume, the spec's --pvc claims)
//   volume -> job       "read"         the volume the job read its data from, when another one
//   job -> snapshot     "snapshot"     the job took (or was tagged with) the snapshot
//   volume -> snapshot  "snapshot of"  a snapshot without a job (taken by a user)
//   snapshot -> volume  "restored"     the volume was restored from the snapshot
//   snapshot -> snapshot "derived"     the parent snapshot, when no restored volume links them
#include <vector>

#include <nlohmann/json.hpp>

#include "storage/core/snapshots.h"
#include "storage/core/volumes.h"

namespace lane::dashboard {

nlohmann::json lineage_graph(const std::vector<storage::SnapshotInfo>& snapshots,
                             const std::vector<storage::LineageRecord>& records,
                             const std::vector<storage::VolumeInfo>& volumes);

}  // namespace lane::dashboard

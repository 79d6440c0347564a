#pragma once
// SnapshotStore over native ANF snapshots of one volume (the store is bound to the volume the
// PVC resolved to). Snapshot names are unique per ANF volume, so describe/remove look them up
// there. restore = new volume cloned from the snapshot in the same pool; revert = POST revert,
// which deletes the newer snapshots (plan_revert lists them). Lineage records live in a small
// local JSON store (AnfOptions::lineage_dir), since ANF has nowhere to keep them.
#include <memory>

#include "storage/anf/arm_client.h"
#include "storage/anf/resource_id.h"
#include "storage/core/snapshots.h"

namespace lane::storage::anf {

class AnfSnapshotStore : public SnapshotStore {
 public:
  // `label` is how the volume is shown (the PVC name, or the ANF volume name).
  AnfSnapshotStore(std::unique_ptr<ArmClient> arm, VolumeRef volume, std::string label);

  SnapshotInfo create(const std::string& volume, const std::string& name, const std::string& job,
                      const std::map<std::string, std::string>& metadata) override;
  std::vector<SnapshotInfo> list(const std::optional<std::string>& volume) override;
  SnapshotInfo describe(const std::string& name) override;
  void remove(const std::string& name) override;
  VerifyReport verify(const std::string& name) override;
  void restore_to_new_volume(const std::string& name, const std::string& new_volume) override;
  RevertPlan plan_revert(const std::string& name, const std::string& volume) override;
  RevertPlan revert_in_place(const std::string& name, const std::string& volume) override;
  void record_lineage(const LineageRecord& record) override;
  std::optional<LineageRecord> lineage(const std::string& snapshot) override;
  std::vector<LineageRecord> all_lineage() override;

  ArmClient& arm() { return *arm_; }

 private:
  void require_same_volume(const std::string& volume) const;
  SnapshotInfo info_of(const Json& snapshot) const;
  std::vector<Json> snapshots_oldest_first();

  std::unique_ptr<ArmClient> arm_;
  VolumeRef volume_;
  std::string label_;
};

// Opens the store for the volume `volume_id` (an ARM id); `label` as above.
std::unique_ptr<SnapshotStore> open_anf_snapshot_store(const AnfOptions& options,
                                                       const std::string& volume_id,
                                                       const std::string& label,
                                                       std::ostream* progress);

// ISO-8601 UTC ("2017-08-15T13:23:33Z", fractions allowed) → unix ms; 0 when unparsable.
int64_t parse_arm_time(const std::string& text);

}  // namespace lane::storage::anf

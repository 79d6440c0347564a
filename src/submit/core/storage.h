#pragma once
// The Storage role: the backend's volumes and snapshot stores, for the snapshot, restore and
// lineage verbs and for the snapshot a training job takes when it ends.
#include <string>

namespace lane::storage {
class Volumes;
class SnapshotStore;
}  // namespace lane::storage

namespace lane::submit {

class Storage {
 public:
  virtual ~Storage() = default;

  virtual storage::Volumes& volumes() = 0;
  virtual storage::SnapshotStore& snapshots() = 0;
  // The store for `project`'s snapshots (-p): on Kubernetes its namespace's; backends with one
  // store for every project return snapshots().
  virtual storage::SnapshotStore& snapshots_of(const std::string& project) {
    (void)project;
    return snapshots();
  }
  // `project`'s volumes: on Kubernetes its namespace's claims; backends with one set of volumes
  // for every project return volumes().
  virtual storage::Volumes& volumes_of(const std::string& project) {
    (void)project;
    return volumes();
  }
};

}  // namespace lane::submit

#pragma once
// The Storage role: the backend's volumes and snapshot stores, for the volume, snapshot, restore
// and lineage verbs and for the snapshot a training job takes when it ends; and which jobs mount
// which volume (`volume list`, and the refusals of `volume delete` and `restore --in-place`).
#include <string>
#include <vector>

#include "common/error.h"
#include "common/progress.h"
#include "submit/core/workload.h"

namespace lane::storage {
class Volumes;
class SnapshotStore;
}  // namespace lane::storage

namespace lane::submit {

// A job's mount of a volume (one of its --pvc claims).
struct VolumeMount {
  std::string volume;   // the claim
  std::string job, project;
  JobStatus status = JobStatus::kUnknown;
  // Pending or Running: the job writes to the volume now or will once it starts.
  bool active() const { return status == JobStatus::kPending || status == JobStatus::kRunning; }
};

// The claims `spec` mounts, in --pvc order (a new claim by its generated name).
std::vector<std::string> claims_of(const JobSpec& spec);
// The mounts of `spec`'s claims by the job in `status`, appended to `out`.
void add_mounts(const JobSpec& spec, JobStatus status, std::vector<VolumeMount>& out);

// A change refused because an active job mounts the volume (exit 2): names the job and the fix.
class VolumeInUse : public UsageError {
 public:
  using UsageError::UsageError;
};

// Throws VolumeInUse when an active mount of `mounts` is of `volume`. `action` is what was
// refused ("delete volume 'x'"), `other_fix` a further way out ("" for none).
void require_unused(const std::string& volume, const std::vector<VolumeMount>& mounts, const std::string& action,
                    const std::string& other_fix);

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
  // Every job's mount of one of `project`'s volumes, whatever the job's state ("" = every
  // project's). Where claims share one namespace (local), every job that mounts one.
  virtual std::vector<VolumeMount> volume_mounts(const std::string& project) = 0;
  // Deletes `project`'s volume `name`, its data included: refuses (VolumeInUse) while an active
  // job mounts it, and (Error) a volume that does not exist or is another project's. The data
  // is reported to report_progress_to's sink where this machine removes it (local).
  virtual void delete_volume(const std::string& name, const std::string& project) = 0;

  // Where delete_volume reports its progress (nullptr: nowhere); the caller keeps it alive.
  void report_progress_to(ProgressSink* sink) { progress_ = sink; }

 protected:
  ProgressSink* progress_ = nullptr;
};

}  // namespace lane::submit

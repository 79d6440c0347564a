#pragma once
// Where a volume came from: made by a user, created by a job for its claim, or restored from a
// snapshot. The stores keep it as text, written by str() and read by parse() only:
//   "user"                 made by a user (or by a tool that left no mark)
//   "job/<project>/<job>"  the local backend's claim a job created
//   "<job>"                a PVC's job label on Kubernetes (its project is the PVC's namespace)
//   "restore:<snapshot>"   restored from the snapshot
// A job named "user" on Kubernetes reads as "user": the label cannot tell them apart.
#include <optional>
#include <string>
#include <string_view>

namespace lane::storage {

class VolumeOrigin {
 public:
  enum class Kind { kUser, kJob, kRestore };

  static VolumeOrigin user() { return VolumeOrigin(Kind::kUser, "", ""); }
  // `project` empty: a Kubernetes job label, which names the job only. Throws lane::Error for
  // names the stored forms cannot hold.
  static VolumeOrigin job(const std::string& project, const std::string& name);
  static VolumeOrigin restore(const std::string& snapshot);

  // The stored form back; nullopt for text that is none of the forms above.
  static std::optional<VolumeOrigin> parse(std::string_view text);
  std::string str() const;

  Kind kind() const { return kind_; }
  const std::string& project() const { return project_; }  // kJob; "" for a Kubernetes label
  const std::string& job() const { return name_; }          // kJob
  const std::string& snapshot() const { return name_; }     // kRestore
  bool restored_from(const std::string& snapshot) const { return kind_ == Kind::kRestore && name_ == snapshot; }

  bool operator==(const VolumeOrigin& o) const {
    return kind_ == o.kind_ && project_ == o.project_ && name_ == o.name_;
  }
  bool operator!=(const VolumeOrigin& o) const { return !(*this == o); }

 private:
  VolumeOrigin(Kind kind, std::string project, std::string name)
      : kind_(kind), project_(std::move(project)), name_(std::move(name)) {}

  Kind kind_;
  std::string project_;
  std::string name_;  // the job, or the snapshot
};

}  // namespace lane::storage

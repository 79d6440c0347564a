#include "submit/local/state/local_volumes.h"

#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "common/atomic_file.h"
#include "common/clock.h"
#include "common/debris.h"
#include "common/error.h"
#include "common/names.h"
#include "common/quantity.h"

namespace lane::submit::local {
namespace fs = std::filesystem;

namespace {

// The created_by column: VolumeOrigin's stored form.
storage::VolumeOrigin origin_of(const std::string& volume, const std::string& created_by) {
  if (auto origin = storage::VolumeOrigin::parse(created_by)) return *origin;
  throw Error("volume '" + volume + "' has an unreadable origin '" + created_by + "' in the state database");
}

storage::VolumeInfo read_volume(Statement& st, const Paths& paths) {
  storage::VolumeInfo v;
  v.name = st.text(0);
  v.size = st.text(1);
  v.storage_class = st.text(2);
  v.origin = origin_of(v.name, st.text(3));
  v.created_unix_ms = st.integer(4);
  v.project = st.text(5);
  v.thin = true;  // nothing is reserved (see local_volumes.h)
  v.local_path = paths.volumes_dir() / v.name;
  return v;
}

// "" when the file system has room for the whole request, else what the user should know.
std::string thin_provisioning_warning(const std::string& name, const std::string& size, uint64_t bytes,
                                      const fs::path& dir) {
  struct statvfs sv {};
  if (statvfs(dir.c_str(), &sv) != 0) return "";
  uint64_t free_bytes = static_cast<uint64_t>(sv.f_bavail) * sv.f_frsize;
  if (bytes <= free_bytes) return "";
  return fmt::format("volume '{}' asks for {} but only {} are free under {}; it is provisioned thin "
                     "(nothing is reserved) and writes fail once the disk is full",
                     name, size, fmt::format("{:.1f}Gi", static_cast<double>(free_bytes) / (1ull << 30)), dir.string());
}

// "<pid>-claim-<name>" in the staging directory: this process may leave volumes/<name> without a row.
constexpr std::string_view kClaimTag = "-claim-";

class ClaimMarker {
 public:
  ClaimMarker(const fs::path& staging, const std::string& claim)
      : path_(path(staging, claim)) {
    fs::create_directories(staging);
    write_file_atomic(path_, "");
  }
  ~ClaimMarker() {
    std::error_code ec;
    fs::remove(path_, ec);
  }
  static fs::path path(const fs::path& staging, const std::string& claim) {
    return staging / fmt::format("{}{}{}", ::getpid(), kClaimTag, claim);
  }
  ClaimMarker(const ClaimMarker&) = delete;
  ClaimMarker& operator=(const ClaimMarker&) = delete;

 private:
  fs::path path_;
};

const char* kSelect = "SELECT name, size, storage_class, created_by, created_ms, project FROM volumes ";

}  // namespace

std::optional<storage::VolumeInfo> LocalVolumes::find(const std::string& name) {
  auto st = db_.prepare(std::string(kSelect) + "WHERE name = ?1");
  st.bind(1, name);
  if (!st.step()) return std::nullopt;
  return read_volume(st, paths_);
}

std::vector<storage::VolumeInfo> LocalVolumes::list() {
  std::vector<storage::VolumeInfo> out;
  {
    auto st = db_.prepare(std::string(kSelect) + "ORDER BY name");
    while (st.step()) out.push_back(read_volume(st, paths_));
  }
  for (auto& v : out)
    if (v.project.empty()) v.project = owner(v.name);  // a claim of an earlier version
  return out;
}

storage::VolumeInfo LocalVolumes::create_in_transaction(const std::string& name, const std::string& size,
                                                        const std::string& storage_class,
                                                        const storage::VolumeOrigin& origin) {
  require_dns1123_label(name, "volume name");
  auto bytes = parse_quantity_bytes(size);
  if (!bytes || *bytes == 0)
    throw UsageError("invalid volume size '" + size + "'; use a quantity such as 10Gi or 500Mi");
  if (find(name)) throw Error("volume '" + name + "' already exists; choose another name or mount it with --pvc " + name + ":PATH");
  fs::create_directories(paths_.volumes_dir());
  db_.prepare("INSERT INTO volumes(name, size, size_bytes, storage_class, created_by, created_ms, project) "
              "VALUES(?1,?2,?3,?4,?5,?6,?7)")
      .bind(1, name).bind(2, size).bind(3, static_cast<int64_t>(*bytes)).bind(4, storage_class)
      .bind(5, origin.str()).bind(6, now_unix_ms()).bind(7, project_of_creator(origin)).run();
  // A directory without a row is debris of an interrupted create (empty), of a restore or delete this
  // backend recorded (sweep_claim_markers), or data the state does not own: never reused nor deleted.
  const fs::path dir = paths_.volumes_dir() / name;
  if (fs::exists(dir)) sweep_claim_markers();
  if (fs::exists(dir) && ::rmdir(dir.c_str()) != 0)
    throw Error(fmt::format("directory {} exists but the state lists no volume '{}' (data of an interrupted "
                            "operation, or of a state restored from a backup); move it aside, then retry",
                            dir.string(), name));
  fs::create_directories(dir);
  auto info = *find(name);
  info.warning = thin_provisioning_warning(name, size, *bytes, paths_.volumes_dir());
  return info;
}

storage::VolumeInfo LocalVolumes::create(const std::string& name, const std::string& size,
                                         const std::string& storage_class, const storage::VolumeOrigin& origin) {
  WriteTransaction tx(db_);
  auto info = create_in_transaction(name, size, storage_class, origin);
  tx.commit();
  return info;
}

std::string LocalVolumes::project_of_creator(const storage::VolumeOrigin& origin) {
  if (!origin.project().empty()) return origin.project();
  if (!resolver_ || resolving_ > 8) return "";
  ++resolving_;
  std::string project;
  try {
    project = resolver_(origin);
  } catch (...) {
  }
  --resolving_;
  return project;
}

std::string LocalVolumes::owner(const std::string& name) {
  auto st = db_.prepare("SELECT project, created_by FROM volumes WHERE name = ?1");
  st.bind(1, name);
  if (!st.step()) return "";
  std::string project = st.text(0), created_by = st.text(1);
  return project.empty() ? project_of_creator(origin_of(name, created_by)) : project;
}

void LocalVolumes::adopt(const std::string& name, const std::string& project) {
  db_.prepare("UPDATE volumes SET project = ?1 WHERE name = ?2 AND project = ''").bind(1, project).bind(2, name).run();
}

void LocalVolumes::remove(const std::string& name) {
  {
    WriteTransaction tx(db_);
    remove_row(name);
    tx.commit();
  }
  remove_data(name);
}

void LocalVolumes::remove_row(const std::string& name) {
  require_dns1123_label(name, "volume name");
  if (!find(name)) throw Error("volume '" + name + "' does not exist");
  // Recorded before the row goes: a crash between the commit and remove_data leaves an
  // unregistered directory that the next remove_debris knows it may remove.
  fs::create_directories(staging_dir());
  write_file_atomic(ClaimMarker::path(staging_dir(), name), "");
  db_.prepare("DELETE FROM volumes WHERE name = ?1").bind(1, name).run();
}

void LocalVolumes::remove_data(const std::string& name, ProgressSink* progress) {
  require_dns1123_label(name, "volume name");  // a name, never a path
  if (find(name)) throw Error("volume '" + name + "' is still recorded; its directory is not removed");
  const fs::path dir = paths_.volumes_dir() / name;
  std::error_code ec;
  if (fs::is_directory(fs::symlink_status(dir, ec))) {  // else gone, or not a directory the state made
    // Out of the claims' namespace first (one rename), so that a crash leaves staging debris only.
    fs::create_directories(staging_dir(), ec);
    const fs::path doomed = staging_dir() / fmt::format("{}-delete-{}", ::getpid(), name);
    remove_tree(::rename(dir.c_str(), doomed.c_str()) == 0 ? doomed : dir, progress);
  }
  fs::remove(ClaimMarker::path(staging_dir(), name), ec);
}

// --- publishing prepared data (restore) ------------------------------------------------------

fs::path LocalVolumes::staging_dir() { return paths_.volumes_dir() / ".staging"; }

// The row and the rename commit together: a crash before the commit leaves an unregistered
// directory (never listed, removed by remove_debris or by the next create of the name).
storage::VolumeInfo LocalVolumes::create_from(const std::string& name, const std::string& size,
                                              const std::string& storage_class, const storage::VolumeOrigin& origin,
                                              const fs::path& prepared) {
  WriteTransaction tx(db_);
  auto info = create_in_transaction(name, size, storage_class, origin);  // row + empty directory
  const ClaimMarker marker(staging_dir(), name);  // a crash before the commit leaves a recorded directory
  if (::rename(prepared.c_str(), info.local_path.c_str()) != 0)  // replaces the empty directory
    throw Error(fmt::format("cannot move '{}' into place as volume '{}': {}", prepared.string(), name,
                            std::strerror(errno)));
  fsync_directory(paths_.volumes_dir());
  tx.commit();
  return info;
}

void LocalVolumes::sweep_claim_markers() {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(staging_dir(), ec)) {
    const std::string file = e.path().filename().string();
    const auto pid = pid_after("-" + file, "-");
    const size_t tag = file.find(kClaimTag);
    if (!pid || lane::process_alive(*pid) || tag == std::string::npos || file.find('-') != tag) continue;
    const std::string claim = file.substr(tag + kClaimTag.size());
    if (!claim.empty() && !find(claim)) remove_tree(paths_.volumes_dir() / claim);
    fs::remove(e.path(), ec);
  }
}

void LocalVolumes::remove_debris() {
  if (!fs::is_directory(paths_.volumes_dir())) return;
  WriteTransaction tx(db_);  // no create_from can be between its rename and its commit meanwhile
  sweep_claim_markers();
  // Staging entries are named "<pid>-<what>-<volume>"; pre-staging reverts left ".<vol>.revert-<pid>".
  remove_dead_staging(staging_dir());
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(paths_.volumes_dir(), ec)) {
    const std::string file = e.path().filename().string();
    if (file.empty()) continue;
    if (file[0] == '.') {
      auto pid = pid_after(file, ".revert-");
      if (pid && !lane::process_alive(*pid)) remove_tree(e.path());
      continue;
    }
    // Unregistered and not recorded: only an empty one (an interrupted create) goes.
    if (e.is_directory(ec) && !find(file)) ::rmdir(e.path().c_str());
  }
  tx.commit();
}

}  // namespace lane::submit::local

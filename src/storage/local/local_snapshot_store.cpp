#include "storage/local/local_snapshot_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <random>
#include <unordered_map>

#include <fmt/format.h>

#include "common/atomic_file.h"
#include "common/beneath.h"
#include "common/debris.h"
#include "common/error.h"
#include "storage/local/store_lock.h"

namespace lane::storage::local {
namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail_errno(const std::string& what, const fs::path& p) {
  throw Error(fmt::format("{} '{}': {}", what, p.string(), std::strerror(errno)));
}

Error not_found(const std::string& name) {
  return Error(fmt::format("snapshot '{}' not found; see 'lanectl snapshot list'", name));
}

// A file whose mtime is this close to the previous snapshot's start could have been changed
// again within the same timestamp tick after it was read; such files are always re-hashed.
constexpr int64_t kRacyWindowNs = 2'000'000'000;

// The entry's owner, mode and mtime on `leaf` of the directory `dir` (never through a link).
void apply_metadata(int dir, const std::string& leaf, const ManifestEntry& e, bool chown_ok, const fs::path& shown) {
  if (chown_ok) ::fchownat(dir, leaf.c_str(), e.uid, e.gid, AT_SYMLINK_NOFOLLOW);
  if (e.kind != EntryKind::kSymlink && ::fchmodat(dir, leaf.c_str(), e.mode, AT_SYMLINK_NOFOLLOW) != 0)
    fail_errno("cannot chmod", shown);
  struct timespec ts[2];
  ts[0].tv_sec = 0;
  ts[0].tv_nsec = UTIME_OMIT;  // atime is not part of a snapshot
  ts[1].tv_sec = e.mtime_ns / 1000000000;
  ts[1].tv_nsec = e.mtime_ns % 1000000000;
  if (::utimensat(dir, leaf.c_str(), ts, AT_SYMLINK_NOFOLLOW) != 0) fail_errno("cannot set times of", shown);
}

// Stores the file `e` of the volume open on `root`, opened beneath it without following links
// and hashed from that descriptor; its size, inode and times become those of what was read.
// Refused when the file changes while it is copied.
IngestResult ingest_entry(ObjectStore& objects, int root, const std::string& volume, ManifestEntry& e) {
  const std::string what = fmt::format("'{}' of volume '{}'", e.path, volume);
  struct stat st {};
  UniqueFd fd;
  try {
    fd = open_regular_beneath(root, e.path, what, &st);
  } catch (const Error& err) {
    throw Error(fmt::format("{}; the volume changed while the snapshot was taken: take it again once "
                            "nothing replaces its files",
                            err.what()));
  }
  IngestResult r = objects.ingest(fd.get(), what);
  // Written to while it was copied (a job appending or rewriting it): no point-in-time copy.
  struct stat after {};
  if (::fstat(fd.get(), &after) != 0 || after.st_size != st.st_size || after.st_mtim.tv_sec != st.st_mtim.tv_sec ||
      after.st_mtim.tv_nsec != st.st_mtim.tv_nsec || static_cast<uint64_t>(st.st_size) != r.size)
    throw Error(fmt::format("{} was written to while it was copied; the volume changed while the snapshot was "
                            "taken: take it again once nothing writes to it",
                            what));
  e.size = r.size;
  e.mode = st.st_mode & 07777;
  e.uid = st.st_uid;
  e.gid = st.st_gid;
  e.inode = st.st_ino;
  e.mtime_ns = int64_t{st.st_mtim.tv_sec} * 1000000000 + st.st_mtim.tv_nsec;
  return r;
}

// The files of a volume's previous snapshot, to reuse the digests of those unchanged since.
class PreviousSnapshot {
 public:
  explicit PreviousSnapshot(std::optional<Manifest> m) : m_(std::move(m)) {
    if (!m_) return;
    for (const auto& e : m_->entries)
      if (e.kind == EntryKind::kFile) files_[e.path] = &e;
    racy_after_ns_ = m_->info.created_unix_ms * 1000000 - kRacyWindowNs;
  }
  PreviousSnapshot(const PreviousSnapshot&) = delete;  // files_ points into m_
  PreviousSnapshot& operator=(const PreviousSnapshot&) = delete;
  // Its entry for `e` when (path, size, mtime, inode) match and e's mtime is not racy.
  const ManifestEntry* unchanged(const ManifestEntry& e) const {
    auto it = files_.find(e.path);
    if (it == files_.end()) return nullptr;
    const ManifestEntry* old = it->second;
    const bool same = old->size == e.size && old->mtime_ns == e.mtime_ns && old->inode == e.inode;
    return same && e.mtime_ns < racy_after_ns_ ? old : nullptr;
  }

 private:
  std::optional<Manifest> m_;
  std::unordered_map<std::string, const ManifestEntry*> files_;
  int64_t racy_after_ns_ = 0;
};

// The bytes and files of `entries` as the total of an operation's progress.
void report_total(ProgressSink* progress, const std::vector<ManifestEntry>& entries) {
  if (!progress) return;
  uint64_t bytes = 0, files = 0;
  for (const auto& e : entries)
    if (e.kind == EntryKind::kFile) bytes += e.size, ++files;
  progress->set_total(bytes, files);
}

// The lineage record of the new snapshot `m` of a volume of `origin`, with the job's part when given.
LineageRecord creation_lineage(const Manifest& m, const VolumeOrigin& origin, const LineageRecord* job_lineage) {
  LineageRecord rec;
  rec.snapshot = m.info.name;
  rec.volume = m.info.volume;
  if (origin.kind() == VolumeOrigin::Kind::kRestore) rec.parent_snapshot = origin.snapshot();
  auto out = m.info.metadata.find("outputPath");
  rec.dataset_digest = out == m.info.metadata.end() ? m.info.content_digest : content_digest(m.entries, out->second);
  if (job_lineage) merge_job_lineage(rec, *job_lineage);
  rec.recorded_unix_ms = now_unix_ms();
  return rec;
}

}  // namespace

LocalSnapshotStore::LocalSnapshotStore(fs::path root, DirectoryVolumes& volumes, LocalStoreOptions options)
    : root_(std::move(root)), volumes_(volumes), options_(std::move(options)), objects_(root_ / "objects") {
  fs::create_directories(root_ / "manifests");
  fs::create_directories(root_ / "lineage");
  fs::create_directories(root_ / "index");
}

fs::path LocalSnapshotStore::index_path(const std::string& name) const {
  return root_ / "index" / (name + ".json");
}

// The index entry when it is there and parses; otherwise the manifest (the truth).
SnapshotInfo LocalSnapshotStore::read_info(const std::string& name) {
  const fs::path p = index_path(name);
  if (fs::exists(p)) {
    auto j = nlohmann::json::parse(read_file(p), nullptr, /*allow_exceptions=*/false);
    if (j.is_object() && j.contains("name")) return snapshot_info_from_json(j);
  }
  return manifest(name).info;
}

fs::path LocalSnapshotStore::manifest_path(const std::string& name) const {
  return root_ / "manifests" / (name + ".json");
}

fs::path LocalSnapshotStore::lineage_path(const std::string& name) const {
  return root_ / "lineage" / (name + ".json");
}

Manifest LocalSnapshotStore::manifest(const std::string& name) {
  require_snapshot_name(name);
  const fs::path p = manifest_path(name);
  if (!fs::exists(p)) throw not_found(name);
  try {
    return parse_manifest(read_file(p), p.string());
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("snapshot '{}' has an unreadable manifest '{}': {}", name, p.string(), e.what()));
  }
}

std::optional<Manifest> LocalSnapshotStore::latest_manifest_of(const std::string& volume) {
  auto snaps = list(volume);
  if (snaps.empty()) return std::nullopt;
  return manifest(snaps.back().name);
}

// --- create --------------------------------------------------------------------------------

SnapshotInfo LocalSnapshotStore::create(const std::string& volume, const std::string& name,
                                        const std::string& job,
                                        const std::map<std::string, std::string>& metadata) {
  return create_impl(volume, name, job, metadata, nullptr);
}

SnapshotInfo LocalSnapshotStore::create_with_lineage(const std::string& volume, const std::string& name,
                                                     const std::string& job,
                                                     const std::map<std::string, std::string>& metadata,
                                                     const LineageRecord& record) {
  return create_impl(volume, name, job, metadata, &record);
}

SnapshotInfo LocalSnapshotStore::create_impl(const std::string& volume, const std::string& name,
                                             const std::string& job,
                                             const std::map<std::string, std::string>& metadata,
                                             const LineageRecord* job_lineage) {
  require_snapshot_name(name);
  const auto vol = volumes_.find(volume);
  if (!vol) throw Error(fmt::format("volume '{}' not found; see 'lanectl volume list'", volume));
  if (vol->local_path.empty() || !fs::is_directory(vol->local_path))
    throw Error(fmt::format("volume '{}' has no local directory ('{}')", volume, vol->local_path.string()));

  StoreLock lock(root_ / "lock", StoreLock::Mode::kShared);
  if (fs::exists(manifest_path(name)))
    throw UsageError(fmt::format("snapshot '{}' already exists; choose another --name", name));

  Manifest m;
  m.info.name = name;
  m.info.volume = volume;
  m.info.job = job;
  m.info.metadata = metadata;
  if (auto it = metadata.find("namespace"); it != metadata.end()) m.info.ns = it->second;
  m.info.created_unix_ms = now_unix_ms();

  // Digests of the previous snapshot of this volume, for files that have not changed since.
  const PreviousSnapshot previous(latest_manifest_of(volume));

  // The volume's writers held still (frozen) from the scan to the last file read.
  std::unique_ptr<CaptureHold> hold = options_.hold_writers ? options_.hold_writers(volume) : nullptr;
  if (hold) hold->annotate(m.info.metadata);
  std::vector<std::string> skipped;
  m.entries = scan_volume(vol->local_path, &skipped);
  report_total(progress_, m.entries);
  const UniqueFd root = open_trusted_dir(vol->local_path.string());
  uint64_t files_done = 0;
  bool ingested = false;  // every object came from the previous (already flushed) manifest?
  for (auto& e : m.entries) {
    if (e.kind != EntryKind::kFile) continue;
    if (hold) hold->check();
    const ManifestEntry* old = previous.unchanged(e);
    if (old && objects_.has(old->digest)) {
      e.digest = old->digest;
    } else {
      IngestResult r = ingest_entry(objects_, root.get(), volume, e);
      ingested = true;
      e.digest = r.digest;
      m.info.new_bytes += r.new_bytes;
    }
    ++m.info.file_count;
    m.info.total_bytes += e.size;
    if (progress_) progress_->advance(e.size, 1);
    if (options_.after_file) options_.after_file(++files_done);
  }
  if (hold) hold->release();
  hold.reset();  // held signals act from here (the jobs are thawed)
  if (!skipped.empty())
    m.info.metadata["skippedSpecialFiles"] = std::to_string(skipped.size());
  m.info.content_digest = content_digest(m.entries);

  // Every object durable before the manifest that names them. Objects reused from the
  // previous manifest were flushed before it was published, so an unchanged volume skips this.
  if (ingested) objects_.sync();

  // The lineage (with the job's part when given) is written before the manifest publishes the
  // snapshot: whenever the snapshot is visible, its whole lineage is there. A lineage file
  // without a manifest (a crash in between) is ignored by lineage() and replaced by a retry.
  write_file_atomic(lineage_path(name), to_json(creation_lineage(m, vol->origin, job_lineage)).dump(2) + "\n");

  ::unlink(index_path(name).c_str());  // a stale entry left by a delete that was interrupted
  publish_manifest(m);
  write_file_atomic(index_path(name), storage::to_json(m.info).dump() + "\n");
  return m.info;
}

// Write-temp, fsync, then link() to the final name: link fails if the name exists, so two
// processes creating the same name cannot both succeed, and readers never see a partial file.
void LocalSnapshotStore::publish_manifest(const Manifest& m) {
  const fs::path final_path = manifest_path(m.info.name);
  const fs::path tmp = root_ / "manifests" /
                       fmt::format(".tmp.{}.{:08x}", ::getpid(), std::random_device{}());
  const std::string text = serialize_manifest(m);
  check_publishable(m, text);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444);
  if (fd < 0) fail_errno("cannot create", tmp);
  try {
    write_all(fd, text.data(), text.size(), fmt::format("'{}'", tmp.string()));
    if (::fsync(fd) != 0) fail_errno("cannot fsync", tmp);
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  ::close(fd);
  if (::link(tmp.c_str(), final_path.c_str()) != 0) {
    int saved = errno;
    ::unlink(tmp.c_str());
    if (saved == EEXIST)
      throw UsageError(fmt::format("snapshot '{}' already exists; choose another --name", m.info.name));
    errno = saved;
    fail_errno("cannot publish manifest", final_path);
  }
  ::unlink(tmp.c_str());
  fsync_directory(final_path.parent_path());
}

// A snapshot is visible only once it verifies: its text reads back as its entries with their
// content digest, and every object it names is in the store, a regular file of its size. (Each
// new object was hashed as it was stored; a full re-hash is `verify`.)
void LocalSnapshotStore::check_publishable(const Manifest& m, const std::string& text) const {
  std::vector<std::string> problems;
  const Manifest back = parse_manifest(text, fmt::format("the manifest of '{}'", m.info.name));
  if (back.entries.size() != m.entries.size() || content_digest(back.entries) != m.info.content_digest)
    problems.push_back("manifest: its text does not read back as the snapshot's entries");
  std::unordered_set<std::string> seen;
  for (const auto& e : back.entries)
    if (e.kind == EntryKind::kFile && seen.insert(e.digest).second)
      if (auto problem = objects_.present(e.digest, e.size)) problems.push_back(e.path + ": " + *problem);
  if (!problems.empty())
    throw Error(fmt::format("snapshot '{}' does not verify and was not published:\n  {}", m.info.name,
                            fmt::join(problems, "\n  ")));
}

// --- read ----------------------------------------------------------------------------------

std::vector<SnapshotInfo> LocalSnapshotStore::list(const std::optional<std::string>& volume) {
  std::vector<SnapshotInfo> out;
  for (const auto& f : fs::directory_iterator(root_ / "manifests")) {
    const std::string file = f.path().filename().string();
    if (file.empty() || file[0] == '.' || f.path().extension() != ".json") continue;
    SnapshotInfo info = read_info(f.path().stem().string());
    if (!volume || info.volume == *volume) out.push_back(std::move(info));
  }
  std::sort(out.begin(), out.end(), [](const SnapshotInfo& a, const SnapshotInfo& b) {
    return a.created_unix_ms != b.created_unix_ms ? a.created_unix_ms < b.created_unix_ms : a.name < b.name;
  });
  return out;
}

SnapshotInfo LocalSnapshotStore::describe(const std::string& name) {
  require_snapshot_name(name);
  if (!fs::exists(manifest_path(name))) throw not_found(name);
  return read_info(name);
}

VerifyReport LocalSnapshotStore::verify(const std::string& name) {
  StoreLock lock(root_ / "lock", StoreLock::Mode::kShared);
  Manifest m = manifest(name);
  VerifyReport report;
  report.snapshot = name;
  report_total(progress_, m.entries);
  std::unordered_map<std::string, std::optional<std::string>> checked;  // digest -> problem
  for (const auto& e : m.entries) {
    if (e.kind != EntryKind::kFile) continue;
    auto it = checked.find(e.digest);
    if (it == checked.end()) {
      it = checked.emplace(e.digest, objects_.check(e.digest, e.size)).first;
      ++report.objects_checked;
      report.bytes_checked += e.size;
    }
    if (it->second) report.damaged.push_back(fmt::format("{}: {}", e.path, *it->second));
    if (progress_) progress_->advance(e.size, 1);
  }
  if (content_digest(m.entries) != m.info.content_digest)
    report.damaged.push_back("manifest: entries do not match the recorded content digest");
  return report;
}

// --- delete --------------------------------------------------------------------------------

void LocalSnapshotStore::remove(const std::string& name) {
  require_snapshot_name(name);
  StoreLock lock(root_ / "lock", StoreLock::Mode::kExclusive);
  const fs::path p = manifest_path(name);
  if (::unlink(p.c_str()) != 0) {
    if (errno == ENOENT) throw not_found(name);
    fail_errno("cannot delete", p);
  }
  fsync_directory(p.parent_path());
  ::unlink(index_path(name).c_str());
  ::unlink(lineage_path(name).c_str());
  sweep_locked();
}

SweepResult LocalSnapshotStore::collect_garbage() {
  StoreLock lock(root_ / "lock", StoreLock::Mode::kExclusive);
  return sweep_locked();
}

// Mark and sweep: every object some manifest names is live; the rest (objects only the
// deleted snapshot used, orphans of interrupted snapshots) goes.
SweepResult LocalSnapshotStore::sweep_locked() {
  std::unordered_set<std::string> live;
  for (const auto& f : fs::directory_iterator(root_ / "manifests")) {
    const std::string file = f.path().filename().string();
    if (!file.empty() && file[0] == '.') {
      ::unlink(f.path().c_str());  // a manifest temp file whose writer died
      continue;
    }
    if (f.path().extension() != ".json") continue;
    for (const auto& e : manifest(f.path().stem().string()).entries)
      if (e.kind == EntryKind::kFile) live.insert(e.digest);
  }
  return objects_.sweep(live);
}

// --- restore / revert ----------------------------------------------------------------------

// Builds the snapshot's tree under `dest` (an empty directory), checking every file's content
// against its digest as it is copied. Throws naming every damaged path; the caller discards dest.
void LocalSnapshotStore::materialize_tree(const Manifest& m, const fs::path& dest) {
  // The check verify makes: entries changed after the snapshot (a forged manifest) are refused.
  if (content_digest(m.entries) != m.info.content_digest)
    throw Error(fmt::format("snapshot '{}' is damaged: its entries do not match its recorded content digest; "
                            "nothing was restored. Run 'lanectl snapshot verify {}'",
                            m.info.name, m.info.name));
  const bool chown_ok = ::geteuid() == 0;
  const UniqueFd root = open_trusted_dir(dest.string());
  ParentDirs dirs(root.get());
  std::string leaf;
  std::vector<std::string> damaged;
  report_total(progress_, m.entries);
  // Every entry is created beneath dest through its parent's descriptor, never through a link
  // (a manifest whose symlink "a" precedes "a/x" cannot write outside). Everything is created
  // writable first, then modes and times applied (directories last, deepest first, so a
  // read-only directory is locked only after its contents are in place).
  for (const auto& e : m.entries) {
    const int dir = dirs.of(e.path, leaf);
    const fs::path shown = dest / e.path;
    switch (e.kind) {
      case EntryKind::kDir:
        if (::mkdirat(dir, leaf.c_str(), 0700) != 0) fail_errno("cannot create directory", shown);
        break;
      case EntryKind::kFile:
        if (auto problem = objects_.materialize(e.digest, e.size, dir, leaf, shown.string()))
          damaged.push_back(e.path + ": " + *problem);
        if (progress_) progress_->advance(e.size, 1);
        if (options_.after_restore_file) options_.after_restore_file(e.path);
        break;
      case EntryKind::kSymlink:
        if (::symlinkat(e.target.c_str(), dir, leaf.c_str()) != 0) fail_errno("cannot create symlink", shown);
        break;
    }
  }
  if (!damaged.empty())
    throw Error(fmt::format("snapshot '{}' is damaged; nothing was restored. Damaged files ({}):\n  {}\n"
                            "Run 'lanectl snapshot verify {}' for the full report",
                            m.info.name, damaged.size(), fmt::join(damaged, "\n  "), m.info.name));
  for (const auto& e : m.entries)
    if (e.kind != EntryKind::kDir) apply_metadata(dirs.of(e.path, leaf), leaf, e, chown_ok, dest / e.path);
  for (auto it = m.entries.rbegin(); it != m.entries.rend(); ++it)
    if (it->kind == EntryKind::kDir) apply_metadata(dirs.of(it->path, leaf), leaf, *it, chown_ok, dest / it->path);
}

// A fresh staging directory for `what` of `volume`, named "<pid>-<what>-<volume>" so that
// DirectoryVolumes::remove_debris can tell when its maker is gone.
fs::path LocalSnapshotStore::make_staging(const std::string& what, const std::string& volume) {
  const fs::path root = volumes_.staging_dir();
  fs::create_directories(root);
  const fs::path staging = root / fmt::format("{}-{}-{}", ::getpid(), what, volume);
  remove_tree(staging);
  if (::mkdir(staging.c_str(), 0700) != 0) fail_errno("cannot create", staging);
  return staging;
}

// Everything under `dir` durable (one syncfs for the file system) before it is published.
static void sync_tree(const fs::path& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) fail_errno("cannot open", dir);
  int rc = ::syncfs(fd);
  int saved = errno;
  ::close(fd);
  errno = saved;
  if (rc != 0) fail_errno("cannot flush", dir);
}

// Built in a hidden staging directory, flushed, then published with the volume's registration
// in one step (DirectoryVolumes::create_from): a crash leaves no volume, only debris the next run removes.
void LocalSnapshotStore::restore_to_new_volume(const std::string& name, const std::string& new_volume) {
  require_snapshot_name(name);
  StoreLock lock(root_ / "lock", StoreLock::Mode::kShared);
  Manifest m = manifest(name);
  volumes_.remove_debris();
  if (volumes_.find(new_volume))
    throw UsageError(fmt::format("volume '{}' already exists; pick a new name for --to-pvc", new_volume));
  std::string size;
  if (auto src = volumes_.find(m.info.volume)) size = src->size;
  const fs::path staging = make_staging("restore", new_volume);
  try {
    materialize_tree(m, staging);
    if (::chmod(staging.c_str(), 0755) != 0) fail_errno("cannot chmod", staging);
    sync_tree(staging);
    volumes_.create_from(new_volume, size, "", VolumeOrigin::restore(name), staging);
  } catch (...) {
    remove_tree(staging);  // all or nothing: a half-restored volume would look like valid data
    throw;
  }
}

RevertPlan LocalSnapshotStore::plan_revert(const std::string& name, const std::string& volume) {
  SnapshotInfo target = describe(name);
  if (target.volume != volume)
    throw UsageError(fmt::format("snapshot '{}' is of volume '{}', not '{}'; use --pvc {}", name,
                                 target.volume, volume, target.volume));
  RevertPlan plan;
  plan.snapshot = name;
  plan.volume = volume;
  bool after = false;
  for (const auto& s : list(volume)) {
    if (after) plan.newer_snapshots.push_back(s.name);
    if (s.name == name) after = true;
  }
  return plan;
}

RevertPlan LocalSnapshotStore::revert_in_place(const std::string& name, const std::string& volume) {
  RevertPlan plan = plan_revert(name, volume);
  auto vol = volumes_.find(volume);
  if (!vol) throw Error(fmt::format("volume '{}' not found; see 'lanectl volume list'", volume));
  StoreLock lock(root_ / "lock", StoreLock::Mode::kShared);
  Manifest m = manifest(name);
  volumes_.remove_debris();
  const fs::path live = vol->local_path;
  const fs::path staging = make_staging("revert", volume);
  try {
    materialize_tree(m, staging);
    struct stat st {};
    if (::stat(live.c_str(), &st) == 0) ::chmod(staging.c_str(), st.st_mode & 07777);
    sync_tree(staging);
    // Swap the directories in one step: readers see the old or the new tree, never a mix.
    if (::renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, live.c_str(), RENAME_EXCHANGE) != 0)
      fail_errno("cannot swap the reverted data into", live);
    fsync_directory(live.parent_path());
    fsync_directory(staging.parent_path());
  } catch (...) {
    remove_tree(staging);
    throw;
  }
  remove_tree(staging);  // now holds the replaced data
  return plan;
}

// --- lineage -------------------------------------------------------------------------------

void LocalSnapshotStore::record_lineage(const LineageRecord& record) {
  require_snapshot_name(record.snapshot);
  write_file_atomic(lineage_path(record.snapshot), to_json(record).dump(2) + "\n");
}

// A lineage record; lane::Error naming the file when it is not one.
static LineageRecord read_lineage_record(const fs::path& p) {
  try {
    return lineage_record_from_json(nlohmann::json::parse(read_file(p)));
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("lineage record '{}' is unreadable: {}", p.string(), e.what()));
  }
}

std::optional<LineageRecord> LocalSnapshotStore::lineage(const std::string& snapshot) {
  require_snapshot_name(snapshot);
  const fs::path p = lineage_path(snapshot);
  if (!fs::exists(p) || !fs::exists(manifest_path(snapshot))) return std::nullopt;
  return read_lineage_record(p);
}

// Every readable record; one that is not (a damaged file) is skipped with a warning naming it,
// so it cannot hide the lineage of every other snapshot.
std::vector<LineageRecord> LocalSnapshotStore::all_lineage() {
  std::vector<LineageRecord> out;
  for (const auto& f : fs::directory_iterator(root_ / "lineage")) {
    const std::string file = f.path().filename().string();
    if (file.empty() || file[0] == '.' || f.path().extension() != ".json") continue;
    if (!fs::exists(manifest_path(f.path().stem().string()))) continue;  // its snapshot was never published
    try {
      out.push_back(read_lineage_record(f.path()));
    } catch (const Error& e) {
      std::cerr << "warning: " << e.what() << "; skipped (delete or repair the file)" << std::endl;
    }
  }
  std::sort(out.begin(), out.end(), [](const LineageRecord& a, const LineageRecord& b) {
    return a.recorded_unix_ms < b.recorded_unix_ms;
  });
  return out;
}

}  // namespace lane::storage::local

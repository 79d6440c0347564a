#pragma once
// A snapshot's manifest: every directory, file and symlink of the volume with its metadata and,
// for files, the SHA-256 of the content (the object that holds it). Written last, atomically;
// its existence is what makes a snapshot visible.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "storage/core/snapshots.h"

namespace lane::storage::local {

enum class EntryKind { kDir, kFile, kSymlink };

struct ManifestEntry {
  std::string path;        // relative to the volume root, '/'-separated, never "." or ".."
  EntryKind kind = EntryKind::kFile;
  uint32_t mode = 0;       // permission bits (07777)
  uint32_t uid = 0, gid = 0;
  uint64_t size = 0;       // files: bytes
  int64_t mtime_ns = 0;
  uint64_t inode = 0;      // source inode, only to recognise unchanged files next time
  std::string digest;      // files: SHA-256 hex of the content
  std::string target;      // symlinks: the link text
};

struct Manifest {
  SnapshotInfo info;
  std::vector<ManifestEntry> entries;  // sorted by path; parents before children
};

// Walks `root` without following symlinks. Files get no digest yet. Sockets, FIFOs and device
// nodes cannot be stored and are returned in `skipped`.
std::vector<ManifestEntry> scan_volume(const std::filesystem::path& root,
                                       std::vector<std::string>* skipped);

// SHA-256 over (kind, mode, path, digest|target) of each entry: two snapshots with the same
// contents and permissions get the same digest, whatever their times and inodes. With a
// non-empty `exclude_prefix`, entries at or under that relative path are left out.
std::string content_digest(const std::vector<ManifestEntry>& entries,
                           const std::string& exclude_prefix = "");

// The on-disk form: a line-oriented text file (JSON would cost ~0.5 s per 10,000 entries to
// parse and print, which is most of an unchanged re-snapshot):
//   lanectl-snapshot-manifest 1
//   {info as one line of JSON}
//   <type>\t<mode octal>\t<uid>\t<gid>\t<size>\t<mtime ns>\t<inode>\t<sha256>\t<path>\t<link target>
//   ...
//   end <sha256 of every byte above this line>
// Paths and targets escape '%', TAB, LF and CR as %25 %09 %0A %0D. The end line detects a
// truncated or altered manifest.
std::string serialize_manifest(const Manifest& m);
// Throws lane::Error naming `source` when the text is not a complete, intact manifest.
Manifest parse_manifest(const std::string& text, const std::string& source);

// The entries as JSON (for -o json of a snapshot's file list, and tests).
nlohmann::json entries_to_json(const std::vector<ManifestEntry>& entries);

}  // namespace lane::storage::local

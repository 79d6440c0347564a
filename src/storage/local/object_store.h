#pragma once
// Content-addressed objects: objects/<first 2 hex>/<other 62 hex> of a file's SHA-256, as in
// DVC's cache. Identical contents are stored once however many snapshots or paths use them.
// Objects are read-only (0444) and written through tmp/ + rename, so an object that exists
// is always complete; whatever a crash leaves in tmp/ is removed by the next sweep.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <unordered_set>

#include "common/beneath.h"
#include "storage/local/file_clone.h"

namespace lane::storage::local {

struct IngestResult {
  std::string digest;
  uint64_t size = 0;       // bytes stored (what was read, whatever the file's size was when scanned)
  uint64_t new_bytes = 0;  // 0 when an identical object already existed
  bool reflinked = false;
};

struct SweepResult {
  uint64_t objects_removed = 0;
  uint64_t bytes_freed = 0;
};

class ObjectStore {
 public:
  explicit ObjectStore(std::filesystem::path root);  // root = <store>/objects

  std::filesystem::path path_of(const std::string& digest) const;
  bool has(const std::string& digest) const;

  // Stores the content of the file open on `source_fd` (reflinked when possible, else copied
  // while hashing): the digest is of exactly the bytes stored. `source` names it in errors.
  IngestResult ingest(int source_fd, const std::string& source);

  // Creates `name` in the directory `dir_fd` (must not exist; never through a link) with the
  // object's content: reflinked or copied, never hard-linked, because the restored volume is
  // writable and the object must stay intact. The content is hashed while it is copied (a
  // reflinked copy is hashed once made): returns what is wrong ("object ... corrupted ...")
  // when it is not the object's digest and size, in which case the file holds the damaged
  // bytes and the caller must discard it. `what` names the file in errors.
  std::optional<std::string> materialize(const std::string& digest, uint64_t expected_size, int dir_fd,
                                         const std::string& name, const std::string& what);

  // Without reading it: an error text when the object is missing, not a regular file or not of
  // `expected_size` bytes.
  std::optional<std::string> present(const std::string& digest, uint64_t expected_size) const;

  // Re-hashes the object; an error text when it is missing or its content changed.
  std::optional<std::string> check(const std::string& digest, uint64_t expected_size) const;

  // Removes every object not in `live` and everything in tmp/. Caller holds the exclusive lock.
  SweepResult sweep(const std::unordered_set<std::string>& live);

  uint64_t count() const;  // objects present (tests, bench)

  // Flushes the file system holding the objects (one syncfs instead of an fsync per object).
  void sync() const;

  bool reflink_possible() const { return clone_.reflink_possible(); }

 private:
  UniqueFd open_object(const std::string& digest, std::string& problem) const;

  std::filesystem::path root_, tmp_;
  CloneMode clone_;
};

}  // namespace lane::storage::local

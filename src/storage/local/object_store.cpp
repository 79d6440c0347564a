#include "storage/local/object_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>
#include <vector>

#include <fmt/format.h>

#include "common/beneath.h"
#include "common/error.h"
#include "common/sha256.h"

namespace lane::storage::local {
namespace fs = std::filesystem;

namespace {

// Closes the descriptor and, unless released, unlinks the temporary file it belongs to.
class TempFile {
 public:
  explicit TempFile(fs::path path) : path_(std::move(path)) {
    fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd_ < 0)
      throw Error(fmt::format("cannot create '{}': {}", path_.string(), std::strerror(errno)));
  }
  ~TempFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!released_) ::unlink(path_.c_str());
  }
  int fd() const { return fd_; }
  const fs::path& path() const { return path_; }
  void release() { released_ = true; }

 private:
  fs::path path_;
  int fd_ = -1;
  bool released_ = false;
};

std::string unique_tmp_name() {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  return fmt::format("{}.{:016x}", ::getpid(), rng());
}

// Hashes an open file from its start; counts the bytes.
std::string hash_fd(int fd, uint64_t* bytes, const std::string& what) {
  Sha256 h;
  std::vector<char> buf(1 << 20);
  uint64_t total = 0;
  off_t off = 0;
  for (;;) {
    ssize_t n = ::pread(fd, buf.data(), buf.size(), off);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error(fmt::format("cannot read {}: {}", what, std::strerror(errno)));
    }
    if (n == 0) break;
    h.update(buf.data(), static_cast<size_t>(n));
    off += n;
    total += static_cast<uint64_t>(n);
  }
  if (bytes) *bytes = total;
  return h.hex_digest();
}

// One pass: reads `src` from its position to the end, hashing it and writing it to `dst`.
std::string copy_hashing(int src, int dst, uint64_t* bytes, const std::string& src_what, const std::string& dst_what) {
  Sha256 h;
  std::vector<char> buf(1 << 20);
  uint64_t total = 0;
  for (;;) {
    ssize_t n = ::read(src, buf.data(), buf.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error(fmt::format("cannot read {}: {}", src_what, std::strerror(errno)));
    }
    if (n == 0) break;
    h.update(buf.data(), static_cast<size_t>(n));
    write_all(dst, buf.data(), static_cast<size_t>(n), dst_what);
    total += static_cast<uint64_t>(n);
  }
  *bytes = total;
  return h.hex_digest();
}

// The verdict on content read back: nullopt when it is the object's.
std::optional<std::string> mismatch(const std::string& digest, uint64_t expected_size, const std::string& actual,
                                    uint64_t size) {
  if (actual == digest && size == expected_size) return std::nullopt;
  return fmt::format("object {} corrupted: content hashes to {} ({} bytes, expected {})", digest, actual, size,
                     expected_size);
}

}  // namespace

// The object's file, refused unless it is a regular file: a FIFO put in its place must not
// block a verify or a restore (opened O_NONBLOCK, then checked), a symlink is not followed.
UniqueFd ObjectStore::open_object(const std::string& digest, std::string& problem) const {
  UniqueFd fd(::open(path_of(digest).c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC));
  struct stat st {};
  if (!fd.ok()) {
    problem = fmt::format("object {} missing: {}", digest, std::strerror(errno));
  } else if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    problem = fmt::format("object {} is not a regular file", digest);
    fd = UniqueFd();
  }
  return fd;
}

ObjectStore::ObjectStore(fs::path root) : root_(std::move(root)), tmp_(root_ / "tmp") {
  fs::create_directories(tmp_);
}

fs::path ObjectStore::path_of(const std::string& digest) const {
  return root_ / digest.substr(0, 2) / digest.substr(2);
}

bool ObjectStore::has(const std::string& digest) const {
  struct stat st {};
  return ::stat(path_of(digest).c_str(), &st) == 0;
}

IngestResult ObjectStore::ingest(int source_fd, const std::string& source) {
  TempFile tmp(tmp_ / unique_tmp_name());
  IngestResult result;
  uint64_t size = 0;
  if (clone_.try_reflink(source_fd, tmp.fd(), source)) {
    // The clone is private to us, so hashing it gives the digest of exactly what we keep.
    result.reflinked = true;
    result.digest = hash_fd(tmp.fd(), &size, tmp.path().string());
  } else {
    result.digest = copy_hashing(source_fd, tmp.fd(), &size, fmt::format("'{}'", source),
                                 fmt::format("'{}'", tmp.path().string()));
  }
  result.size = size;
  const fs::path final_path = path_of(result.digest);
  if (has(result.digest)) return result;  // already stored: the temporary copy is dropped
  if (::fchmod(tmp.fd(), 0444) != 0)
    throw Error(fmt::format("cannot chmod '{}': {}", tmp.path().string(), std::strerror(errno)));
  std::error_code ec;
  fs::create_directories(final_path.parent_path(), ec);
  if (ec) throw Error(fmt::format("cannot create '{}': {}", final_path.parent_path().string(), ec.message()));
  // Two processes storing the same content race harmlessly: rename replaces like with like.
  if (::rename(tmp.path().c_str(), final_path.c_str()) != 0)
    throw Error(fmt::format("cannot store object '{}': {}", final_path.string(), std::strerror(errno)));
  tmp.release();
  result.new_bytes = size;
  return result;
}

std::optional<std::string> ObjectStore::materialize(const std::string& digest, uint64_t expected_size, int dir_fd,
                                                    const std::string& name, const std::string& what) {
  std::string problem;
  UniqueFd src = open_object(digest, problem);
  if (!src.ok()) return problem;
  UniqueFd out(::openat(dir_fd, name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!out.ok()) throw Error(fmt::format("cannot create '{}': {}", what, std::strerror(errno)));
  const std::string quoted = fmt::format("'{}'", what);
  uint64_t size = 0;
  std::string actual;
  if (clone_.try_reflink(src.get(), out.get(), quoted)) {
    actual = hash_fd(out.get(), &size, quoted);  // the clone shares the object's blocks: hash what we got
  } else {
    actual = copy_hashing(src.get(), out.get(), &size, fmt::format("object {}", digest), quoted);
  }
  return mismatch(digest, expected_size, actual, size);
}

std::optional<std::string> ObjectStore::present(const std::string& digest, uint64_t expected_size) const {
  std::string problem;
  UniqueFd fd = open_object(digest, problem);
  if (!fd.ok()) return problem;
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || static_cast<uint64_t>(st.st_size) != expected_size)
    return fmt::format("object {} has {} bytes, expected {}", digest, st.st_size, expected_size);
  return std::nullopt;
}

std::optional<std::string> ObjectStore::check(const std::string& digest, uint64_t expected_size) const {
  std::string problem;
  UniqueFd fd = open_object(digest, problem);
  if (!fd.ok()) return problem;
  uint64_t size = 0;
  std::string actual;
  try {
    actual = hash_fd(fd.get(), &size, path_of(digest).string());
  } catch (const Error& e) {
    return fmt::format("object {} unreadable: {}", digest, e.what());
  }
  return mismatch(digest, expected_size, actual, size);
}

SweepResult ObjectStore::sweep(const std::unordered_set<std::string>& live) {
  SweepResult r;
  std::error_code ec;
  for (const auto& dir : fs::directory_iterator(root_, ec)) {
    const std::string prefix = dir.path().filename().string();
    if (!dir.is_directory() || prefix == "tmp" || prefix.size() != 2) continue;
    for (const auto& obj : fs::directory_iterator(dir.path(), ec)) {
      const std::string digest = prefix + obj.path().filename().string();
      if (live.count(digest)) continue;
      struct stat st {};
      if (::lstat(obj.path().c_str(), &st) == 0 && ::unlink(obj.path().c_str()) == 0) {
        ++r.objects_removed;
        r.bytes_freed += static_cast<uint64_t>(st.st_size);
      }
    }
  }
  // Leftovers of interrupted ingests: nobody is writing while we hold the exclusive lock.
  for (const auto& t : fs::directory_iterator(tmp_, ec)) ::unlink(t.path().c_str());
  return r;
}

uint64_t ObjectStore::count() const {
  uint64_t n = 0;
  std::error_code ec;
  for (const auto& dir : fs::directory_iterator(root_, ec)) {
    if (!dir.is_directory() || dir.path().filename() == "tmp") continue;
    for (auto it = fs::directory_iterator(dir.path(), ec); it != fs::directory_iterator(); ++it) ++n;
  }
  return n;
}

void ObjectStore::sync() const {
  UniqueFd fd(::open(root_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() >= 0 && ::syncfs(fd.get()) != 0)
    throw Error(fmt::format("cannot flush '{}': {}", root_.string(), std::strerror(errno)));
}

}  // namespace lane::storage::local

#include "storage/local/manifest.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <memory>
#include <string_view>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "common/error.h"
#include "common/sha256.h"

namespace lane::storage::local {
namespace fs = std::filesystem;

namespace {

struct DirCloser {
  void operator()(DIR* d) const { ::closedir(d); }
};

// Walks one directory through its descriptor (openat/fstatat: no path re-resolution, no
// following symlinks), appending entries and recursing into subdirectories.
void scan_dir(int dir_fd, const std::string& prefix, const fs::path& root,
              std::vector<ManifestEntry>& entries, std::vector<std::string>* skipped) {
  std::unique_ptr<DIR, DirCloser> dir(::fdopendir(dir_fd));
  if (!dir) {
    ::close(dir_fd);
    throw Error(fmt::format("cannot read directory '{}': {}", (root / prefix).string(), std::strerror(errno)));
  }
  std::vector<std::string> subdirs;
  while (dirent* de = ::readdir(dir.get())) {
    const std::string name = de->d_name;
    if (name == "." || name == "..") continue;
    struct stat st {};
    if (::fstatat(dir_fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
      throw Error(fmt::format("cannot stat '{}': {}", (root / prefix / name).string(), std::strerror(errno)));
    ManifestEntry e;
    e.path = prefix.empty() ? name : prefix + "/" + name;
    e.mode = st.st_mode & 07777;
    e.uid = st.st_uid;
    e.gid = st.st_gid;
    e.mtime_ns = int64_t{st.st_mtim.tv_sec} * 1000000000 + st.st_mtim.tv_nsec;
    e.inode = st.st_ino;
    if (S_ISDIR(st.st_mode)) {
      e.kind = EntryKind::kDir;
      subdirs.push_back(name);
    } else if (S_ISREG(st.st_mode)) {
      e.kind = EntryKind::kFile;
      e.size = static_cast<uint64_t>(st.st_size);
    } else if (S_ISLNK(st.st_mode)) {
      e.kind = EntryKind::kSymlink;
      std::string buf(static_cast<size_t>(st.st_size) + 1, '\0');
      ssize_t n = ::readlinkat(dir_fd, de->d_name, buf.data(), buf.size());
      if (n < 0)
        throw Error(fmt::format("cannot read symlink '{}': {}", (root / e.path).string(), std::strerror(errno)));
      buf.resize(static_cast<size_t>(n));
      e.target = buf;
    } else {
      if (skipped) skipped->push_back(e.path);
      continue;
    }
    entries.push_back(std::move(e));
  }
  for (const auto& name : subdirs) {
    int fd = ::openat(dir_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    const std::string rel = prefix.empty() ? name : prefix + "/" + name;
    if (fd < 0) throw Error(fmt::format("cannot open directory '{}': {}", (root / rel).string(), std::strerror(errno)));
    scan_dir(fd, rel, root, entries, skipped);
  }
}

}  // namespace

std::vector<ManifestEntry> scan_volume(const fs::path& root, std::vector<std::string>* skipped) {
  std::vector<ManifestEntry> entries;
  int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) throw Error(fmt::format("cannot read volume directory '{}': {}", root.string(), std::strerror(errno)));
  scan_dir(fd, "", root, entries, skipped);
  // Sorted paths put every directory before its contents ("a" < "a/b").
  std::sort(entries.begin(), entries.end(),
            [](const ManifestEntry& a, const ManifestEntry& b) { return a.path < b.path; });
  return entries;
}

static const char* kind_name(EntryKind k) {
  switch (k) {
    case EntryKind::kDir: return "dir";
    case EntryKind::kFile: return "file";
    case EntryKind::kSymlink: return "symlink";
  }
  return "?";
}

static EntryKind kind_from_name(const std::string& s) {
  if (s == "dir") return EntryKind::kDir;
  if (s == "file") return EntryKind::kFile;
  if (s == "symlink") return EntryKind::kSymlink;
  throw Error(fmt::format("manifest entry has unknown type '{}'", s));
}

static bool under(const std::string& path, const std::string& prefix) {
  return path == prefix || (path.size() > prefix.size() && path.compare(0, prefix.size(), prefix) == 0 &&
                            path[prefix.size()] == '/');
}

std::string content_digest(const std::vector<ManifestEntry>& entries, const std::string& exclude_prefix) {
  Sha256 h;
  for (const auto& e : entries) {
    if (!exclude_prefix.empty() && under(e.path, exclude_prefix)) continue;
    std::string line = fmt::format("{} {:o} {}\t{}\n", kind_name(e.kind), e.mode, e.path,
                                   e.kind == EntryKind::kSymlink ? e.target : e.digest);
    h.update(line.data(), line.size());
  }
  return h.hex_digest();
}

nlohmann::json entries_to_json(const std::vector<ManifestEntry>& entries) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& e : entries) {
    nlohmann::json j = {{"path", e.path}, {"type", kind_name(e.kind)}, {"mode", fmt::format("{:04o}", e.mode)}};
    if (e.kind == EntryKind::kFile) {
      j["size"] = e.size;
      j["sha256"] = e.digest;
    }
    if (e.kind == EntryKind::kSymlink) j["target"] = e.target;
    out.push_back(std::move(j));
  }
  return out;
}

namespace {

constexpr const char* kMagic = "lanectl-snapshot-manifest 1";

void append_escaped(std::string& out, const std::string& s) {
  for (char c : s) {
    switch (c) {
      case '%': out += "%25"; break;
      case '\t': out += "%09"; break;
      case '\n': out += "%0A"; break;
      case '\r': out += "%0D"; break;
      default: out += c;
    }
  }
}

std::string unescape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned value = 0;
    if (s[i] == '%' && i + 2 < s.size() &&
        std::from_chars(s.data() + i + 1, s.data() + i + 3, value, 16).ptr == s.data() + i + 3) {
      out += static_cast<char>(value);
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

std::vector<std::string_view> split_tabs(std::string_view line) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (;;) {
    size_t tab = line.find('\t', start);
    out.push_back(line.substr(start, tab == std::string_view::npos ? std::string_view::npos : tab - start));
    if (tab == std::string_view::npos) return out;
    start = tab + 1;
  }
}

template <typename T>
T parse_number(std::string_view s, int base, const std::string& source) {
  T value{};
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value, base);
  if (ec != std::errc() || ptr != s.data() + s.size())
    throw Error(fmt::format("manifest '{}' is damaged: bad number '{}'", source, std::string(s)));
  return value;
}

// Rejects entry paths that could escape the volume on restore (a tampered manifest).
void require_safe_relative(const std::string& p, const std::string& source) {
  fs::path path(p);
  bool bad = p.empty() || path.is_absolute();
  for (const auto& part : path)
    if (part == ".." || part == ".") bad = true;
  if (bad) throw Error(fmt::format("manifest '{}': entry path '{}' is not a safe relative path", source, p));
}

}  // namespace

std::string serialize_manifest(const Manifest& m) {
  std::string out = kMagic;
  out += "\n";
  out += storage::to_json(m.info).dump();
  out += "\n";
  out.reserve(out.size() + m.entries.size() * 160);
  for (const auto& e : m.entries) {
    out += fmt::format("{}\t{:o}\t{}\t{}\t{}\t{}\t{}\t{}\t", kind_name(e.kind), e.mode, e.uid, e.gid, e.size,
                       e.mtime_ns, e.inode, e.digest);
    append_escaped(out, e.path);
    out += '\t';
    append_escaped(out, e.target);
    out += '\n';
  }
  out += "end " + sha256_hex(out) + "\n";
  return out;
}

Manifest parse_manifest(const std::string& text, const std::string& source) {
  auto damaged = [&](const std::string& why) {
    return Error(fmt::format("manifest '{}' is damaged: {}; run 'lanectl snapshot verify'", source, why));
  };
  const size_t end_pos = text.rfind("end ");
  if (text.rfind(kMagic, 0) != 0 || end_pos == std::string::npos || text.back() != '\n')
    throw damaged("missing header or end line");
  const std::string_view body(text.data(), end_pos);
  if (text.substr(end_pos + 4, 64) != sha256_hex(body)) throw damaged("checksum mismatch");

  Manifest m;
  size_t pos = text.find('\n') + 1;
  size_t eol = text.find('\n', pos);
  m.info = snapshot_info_from_json(nlohmann::json::parse(text.substr(pos, eol - pos)));
  pos = eol + 1;
  while (pos < end_pos) {
    eol = text.find('\n', pos);
    std::string_view line(text.data() + pos, eol - pos);
    pos = eol + 1;
    auto f = split_tabs(line);
    if (f.size() != 10) throw damaged(fmt::format("entry with {} fields", f.size()));
    ManifestEntry e;
    e.kind = kind_from_name(std::string(f[0]));
    e.mode = parse_number<uint32_t>(f[1], 8, source) & 07777;
    e.uid = parse_number<uint32_t>(f[2], 10, source);
    e.gid = parse_number<uint32_t>(f[3], 10, source);
    e.size = parse_number<uint64_t>(f[4], 10, source);
    e.mtime_ns = parse_number<int64_t>(f[5], 10, source);
    e.inode = parse_number<uint64_t>(f[6], 10, source);
    e.digest = std::string(f[7]);
    e.path = unescape(f[8]);
    e.target = unescape(f[9]);
    require_safe_relative(e.path, source);
    if (e.kind == EntryKind::kFile &&
        (e.digest.size() != 64 || e.digest.find_first_not_of("0123456789abcdef") != std::string::npos))
      throw damaged(fmt::format("entry '{}' has a malformed sha256", e.path));
    m.entries.push_back(std::move(e));
  }
  return m;
}

}  // namespace lane::storage::local

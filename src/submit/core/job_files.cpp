#include "submit/core/job_files.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <utility>

namespace lane::submit {

BufferedJobFile::BufferedJobFile(JobFileRead read) : data_(std::move(read.data)) {
  size = data_.size();
  modified_unix_ms = read.modified_unix_ms;
}

size_t BufferedJobFile::read_at(uint64_t offset, char* buf, size_t n) {
  if (offset >= data_.size()) return 0;
  const size_t count = std::min<uint64_t>(n, data_.size() - offset);
  std::memcpy(buf, data_.data() + offset, count);
  return count;
}

JobFileWrite JobFiles::write_file(const std::string& name, const std::string& project, const std::string& path,
                                  const std::string& data) {
  (void)project, (void)data;
  return {false, "this backend cannot write " + name + ":" + path + "; mount a directory with -v or a volume with --pvc "
                 "at submit instead"};
}

std::unique_ptr<JobFileReader> JobFiles::open_file(const std::string& name, const std::string& project,
                                                   const std::string& path, std::string& why) {
  auto read = read_file(name, project, path, kMaxBufferedRead + 1, false);
  if (!read.ok) {
    why = read.reason;
    return nullptr;
  }
  if (read.size > kMaxBufferedRead) {
    why = path + " is " + std::to_string(read.size) + " bytes; this backend downloads files of at most " +
          std::to_string(kMaxBufferedRead) + " bytes";
    return nullptr;
  }
  return std::make_unique<BufferedJobFile>(std::move(read));
}

bool is_clean_absolute_path(std::string_view path) {
  if (path.size() < 2 || path.size() > 4096 || path[0] != '/' || path.back() == '/') return false;
  if (path.find('\0') != std::string_view::npos) return false;
  size_t start = 1;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view part = path.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") return false;
    start = end + 1;
  }
  return true;
}

std::string relative_path_under(const std::string& path, const std::string& root) {
  namespace fs = std::filesystem;
  if (root.empty()) return "";
  const std::string rel = fs::path(path).lexically_normal().lexically_relative(fs::path(root).lexically_normal()).generic_string();
  if (rel.empty() || rel == "." || rel == ".." || rel.rfind("../", 0) == 0) return "";
  return rel;
}

std::optional<MountedPath> locate_in_mounts(const JobSpec& spec, const std::string& container_path) {
  std::optional<MountedPath> best;
  size_t best_depth = 0;
  auto consider = [&](const std::string& mount_path, bool claim, const std::string& source, bool read_only) {
    if (mount_path.empty() || source.empty()) return;
    const std::string norm = std::filesystem::path(mount_path).lexically_normal().generic_string();
    std::string rel;
    if (norm != std::filesystem::path(container_path).lexically_normal().generic_string()) {
      rel = relative_path_under(container_path, mount_path);
      if (rel.empty()) return;
    }
    // Later mounts of the same depth win, as the later bind mount covers the earlier one.
    if (best && norm.size() < best_depth) return;
    best = MountedPath{claim, source, rel, read_only};
    best_depth = norm.size();
  };
  for (const auto& m : spec.pvcs) consider(m.mount_path, true, m.claim, m.read_only);
  for (const auto& v : spec.volumes) consider(v.container_path, false, v.host_path, v.read_only);
  return best;
}

std::string write_refusal(const std::string& path, const MountedPath& mount) {
  if (mount.read_only) return path + " is on a read-only mount of the job (:ro); copy to a path on a writable one";
  if (mount.relative.empty()) return path + " is the mount itself; name a file in it, e.g. " + path + "/file";
  return "";
}

std::optional<std::string> env_value(const JobSpec& spec, std::string_view name) {
  std::optional<std::string> value;
  for (const auto& e : spec.env)
    if (e.name == name) value = e.value;
  return value;
}

}  // namespace lane::submit

#include "train/download/download_extract.h"

#include <memory>
#include <vector>

#include <archive.h>
#include <archive_entry.h>
#include <fmt/format.h>

#include "common/error.h"

namespace lane::data {
namespace fs = std::filesystem;
namespace {

using ReadArchive = std::unique_ptr<archive, decltype(&archive_read_free)>;
using DiskWriter = std::unique_ptr<archive, decltype(&archive_write_free)>;

// Only plain relative paths: no absolute path, no "..", nothing empty.
bool is_safe_entry(const std::string& name) {
  if (name.empty() || name[0] == '/') return false;
  for (const auto& part : fs::path(name))
    if (part == "..") return false;
  return true;
}

void copy_data(archive* in, archive* out, const std::string& name, const fs::path& archive_path) {
  const void* buf = nullptr;
  size_t size = 0;
  la_int64_t offset = 0;
  for (;;) {
    const int r = archive_read_data_block(in, &buf, &size, &offset);
    if (r == ARCHIVE_EOF) return;
    if (r != ARCHIVE_OK)
      throw Error(fmt::format("'{}' is corrupt at '{}': {}; delete it and download again", archive_path.string(), name,
                              archive_error_string(in)));
    if (archive_write_data_block(out, buf, size, offset) != ARCHIVE_OK)
      throw Error(fmt::format("cannot write '{}': {}", name, archive_error_string(out)));
  }
}

}  // namespace

size_t extract_archive(const fs::path& archive_path, const fs::path& dest) {
  fs::create_directories(dest);
  ReadArchive in(archive_read_new(), archive_read_free);
  archive_read_support_format_all(in.get());
  archive_read_support_filter_all(in.get());
  if (archive_read_open_filename(in.get(), archive_path.c_str(), 1 << 16) != ARCHIVE_OK)
    throw Error(fmt::format("cannot open archive '{}': {}", archive_path.string(), archive_error_string(in.get())));
  DiskWriter out(archive_write_disk_new(), archive_write_free);
  // Entry names are checked below (relative, no "..", no links), so the target paths we build
  // are absolute by design and may sit below a symlinked folder such as /tmp.
  archive_write_disk_set_options(out.get(), ARCHIVE_EXTRACT_TIME | ARCHIVE_EXTRACT_SECURE_NODOTDOT);
  size_t files = 0;
  archive_entry* entry = nullptr;
  for (;;) {
    const int r = archive_read_next_header(in.get(), &entry);
    if (r == ARCHIVE_EOF) break;
    if (r != ARCHIVE_OK && r != ARCHIVE_WARN)
      throw Error(fmt::format("'{}' is corrupt: {}; delete it and download again", archive_path.string(),
                              archive_error_string(in.get())));
    const char* raw_name = archive_entry_pathname(entry);
    const std::string name = raw_name ? raw_name : "";
    if (!is_safe_entry(name))
      throw UsageError(fmt::format("archive '{}' holds an unsafe path '{}'; refusing to extract it",
                                   archive_path.string(), name));
    const auto type = archive_entry_filetype(entry);
    if (type != AE_IFREG && type != AE_IFDIR)
      throw UsageError(fmt::format("archive '{}' holds '{}', which is not a plain file or folder; refusing it",
                                   archive_path.string(), name));
    const std::string target = (dest / name).string();
    archive_entry_set_pathname(entry, target.c_str());
    if (archive_write_header(out.get(), entry) != ARCHIVE_OK)
      throw Error(fmt::format("cannot extract '{}': {}", target, archive_error_string(out.get())));
    if (type == AE_IFREG) {
      copy_data(in.get(), out.get(), name, archive_path);
      ++files;
    }
    if (archive_write_finish_entry(out.get()) != ARCHIVE_OK)
      throw Error(fmt::format("cannot finish '{}': {}", target, archive_error_string(out.get())));
  }
  return files;
}

fs::path content_root(const fs::path& staged) {
  fs::path root = staged;
  for (int depth = 0; depth < 2; ++depth) {
    std::vector<fs::directory_entry> entries(fs::directory_iterator(root), fs::directory_iterator{});
    if (entries.size() != 1 || !entries[0].is_directory() || entries[0].path().filename() == "clips") break;
    root = entries[0].path();
  }
  return root;
}

void merge_tree(const fs::path& from, const fs::path& to) {
  fs::create_directories(to);
  for (const auto& entry : fs::directory_iterator(from)) {
    const fs::path target = to / entry.path().filename();
    if (entry.is_directory() && fs::is_directory(target)) {
      merge_tree(entry.path(), target);
      continue;
    }
    if (fs::exists(target) && !fs::is_directory(target)) fs::remove(target);
    if (fs::exists(target))
      throw Error(fmt::format("cannot replace folder '{}' with a file from the archive", target.string()));
    fs::rename(entry.path(), target);
  }
}

}  // namespace lane::data

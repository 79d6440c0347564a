#pragma once
// Archive extraction with libarchive (zip, and any tar variant) into a staging folder, and
// merging a staged tree into the dataset root one rename at a time.
#include <filesystem>

namespace lane::data {

// Extracts every regular file and directory of `archive` below `dest` (created). Entries with
// absolute paths, ".." components or links are refused with lane::UsageError. Returns the
// number of files written.
size_t extract_archive(const std::filesystem::path& archive, const std::filesystem::path& dest);

// The folder inside `staged` that holds the data: descends through a single wrapping folder
// (train_set.zip holds "train_set/...") unless that folder is "clips".
std::filesystem::path content_root(const std::filesystem::path& staged);

// Moves the tree under `from` into `to`: new entries are renamed, existing folders merged,
// existing files replaced. Both must be on the same file system.
void merge_tree(const std::filesystem::path& from, const std::filesystem::path& to);

}  // namespace lane::data

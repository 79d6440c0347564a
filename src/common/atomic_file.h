#pragma once
// Crash-safe file replacement: write to a temporary sibling, fsync it, rename over the
// target, fsync the directory. A reader sees either the old or the new file, never a mix.
#include <filesystem>
#include <string_view>

namespace lane {

void write_file_atomic(const std::filesystem::path& path, std::string_view contents);

// fsync a directory so that a rename inside it survives a power loss.
void fsync_directory(const std::filesystem::path& dir);

// Read a whole file; throws lane::Error naming the path when it cannot be read.
std::string read_file(const std::filesystem::path& path);

}  // namespace lane

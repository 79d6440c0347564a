#pragma once
// The project's own images for the local backend. images/<name>/image.json declares the
// entrypoint (e.g. ["scnn-train", "train"]) and optional aliases (the seed workflow's Docker
// image names); the first entrypoint word is resolved to the built binaries next to lanectl.
// Any other image has no entrypoint locally, so such a job needs an explicit --command.
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace lane::submit::local {

struct LocalImage {
  std::string name;                     // images/<name>
  std::vector<std::string> entrypoint;  // first word resolved to an absolute path when found
  // The image's ENV defaults (image.json "env"), applied before the job's own -e values.
  std::vector<std::pair<std::string, std::string>> env;
  // Where the image's programs live locally (the built binaries next to lanectl): put first on
  // the job's PATH, as the image's PATH would, so `--command -- scnn-train ...` works.
  std::filesystem::path bin_dir;
};

// Where image.json files are looked up: $LANECTL_IMAGES_DIR, <exe>/../share/lanectl/images,
// then the source tree's images/ (compiled in).
std::vector<std::filesystem::path> image_search_dirs();

// "repo/name:tag", "name@sha256:..." → matched on the name without tag/digest against each
// image's name and aliases. nullopt when it is not one of the project's images.
std::optional<LocalImage> resolve_local_image(const std::string& image);

// Names of all known images (for error messages).
std::vector<std::string> known_image_names();

}  // namespace lane::submit::local

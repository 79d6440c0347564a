#include "submit/local/runtime/images.h"

#include <unistd.h>

#include <cstdlib>

#include <nlohmann/json.hpp>

#include "common/atomic_file.h"
#include "common/error.h"
#include "submit/local/runtime/process_identity.h"

namespace lane::submit::local {
namespace fs = std::filesystem;

std::vector<fs::path> image_search_dirs() {
  std::vector<fs::path> dirs;
  if (const char* env = std::getenv("LANECTL_IMAGES_DIR"); env && *env) dirs.emplace_back(env);
  fs::path exe_dir = fs::path(self_executable()).parent_path();
  dirs.push_back(exe_dir.parent_path() / "share" / "lanectl" / "images");
  dirs.emplace_back(LANE_IMAGES_DIR);
  return dirs;
}

namespace {

std::string strip_tag(const std::string& image) {
  std::string s = image.substr(0, image.find('@'));
  auto slash = s.rfind('/');
  auto colon = s.rfind(':');
  if (colon != std::string::npos && (slash == std::string::npos || colon > slash)) s = s.substr(0, colon);
  return s;
}

struct Declared {
  std::string name;
  nlohmann::json doc;
};

std::vector<Declared> declared_images() {
  std::vector<Declared> out;
  for (const auto& dir : image_search_dirs()) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) continue;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      fs::path file = entry.path() / "image.json";
      if (!fs::exists(file)) continue;
      try {
        out.push_back({entry.path().filename().string(), nlohmann::json::parse(read_file(file))});
      } catch (const nlohmann::json::exception& e) {
        throw Error("malformed " + file.string() + ": " + e.what());
      }
    }
    if (!out.empty()) break;  // the first directory that has images wins
  }
  return out;
}

std::string resolve_program(const std::string& word) {
  if (word.find('/') != std::string::npos) return word;
  fs::path beside = fs::path(self_executable()).parent_path() / word;
  if (access(beside.c_str(), X_OK) == 0) return beside.string();
  return word;  // left to execvp's PATH search
}

}  // namespace

std::optional<LocalImage> resolve_local_image(const std::string& image) {
  std::string wanted = strip_tag(image);
  for (const auto& d : declared_images()) {
    bool match = wanted == d.name;
    for (const auto& alias : d.doc.value("aliases", nlohmann::json::array()))
      if (alias.is_string() && alias.get<std::string>() == wanted) match = true;
    if (!match) continue;
    LocalImage img{d.name, d.doc.value("entrypoint", std::vector<std::string>{}), {}, {}};
    if (img.entrypoint.empty())
      throw Error("image " + d.name + " declares no entrypoint in its image.json");
    img.entrypoint[0] = resolve_program(img.entrypoint[0]);
    const nlohmann::json env = d.doc.value("env", nlohmann::json::object());
    for (const auto& [name, value] : env.items()) {
      if (!value.is_string())
        throw Error("image " + d.name + ": env value of " + name + " must be a string in its image.json");
      img.env.emplace_back(name, value.get<std::string>());
    }
    img.bin_dir = fs::path(self_executable()).parent_path();
    return img;
  }
  return std::nullopt;
}

std::vector<std::string> known_image_names() {
  std::vector<std::string> names;
  for (const auto& d : declared_images()) names.push_back(d.name);
  return names;
}

}  // namespace lane::submit::local

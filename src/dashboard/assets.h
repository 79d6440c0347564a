#pragma once
// The web UI's files (src/dashboard/assets/), embedded into the binary at build time by
// cmake/embed_assets.cmake (the generated dashboard_assets.cpp defines the table).
#include <cstddef>
#include <string>

namespace lane::dashboard {

struct Asset {
  const char* name;  // "index.html", "app.js", ...
  const unsigned char* data;
  size_t size;
};

// The asset named `name`, or nullptr.
const Asset* find_asset(const std::string& name);

// The Content-Type for an asset name by its extension (text/html; charset=utf-8, ...).
std::string asset_content_type(const std::string& name);

}  // namespace lane::dashboard

namespace lane::dashboard {

// Defined by the generated file: every embedded asset, in name order.
extern const Asset kEmbeddedAssets[];
extern const size_t kEmbeddedAssetCount;

}  // namespace lane::dashboard

#include "dashboard/assets.h"

namespace lane::dashboard {

const Asset* find_asset(const std::string& name) {
  for (size_t i = 0; i < kEmbeddedAssetCount; ++i)
    if (name == kEmbeddedAssets[i].name) return &kEmbeddedAssets[i];
  return nullptr;
}

std::string asset_content_type(const std::string& name) {
  auto ends = [&](const std::string& ext) {
    return name.size() >= ext.size() && name.compare(name.size() - ext.size(), ext.size(), ext) == 0;
  };
  if (ends(".html")) return "text/html; charset=utf-8";
  if (ends(".js")) return "text/javascript; charset=utf-8";
  if (ends(".css")) return "text/css; charset=utf-8";
  if (ends(".svg")) return "image/svg+xml";
  if (ends(".png")) return "image/png";
  if (ends(".json")) return "application/json";
  return "application/octet-stream";
}

}  // namespace lane::dashboard

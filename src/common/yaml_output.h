#pragma once
// Render JSON documents as YAML for `-o yaml` and `--dry-run -o yaml`.
#include <string>

#include <nlohmann/json.hpp>

namespace lane {

std::string to_yaml(const nlohmann::json& doc);

}  // namespace lane

#pragma once
// Parses JSON into nlohmann::json while dropping subtrees the caller never reads (a SAX
// handler: the dropped parts are scanned but never allocated). Used by KubeClient::list for
// callers such as `lanectl list` that read a few fields of thousands of objects.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace lane::kube {

// A path from the document root: object keys, "*" for any key or any array element.
// {"items", "*", "metadata", "managedFields"} drops managedFields of every list item.
using JsonPath = std::vector<std::string>;

// Like nlohmann::json::parse(text) (throws nlohmann::json::parse_error on bad input), without
// the values at `drop`.
nlohmann::json parse_pruned(const std::string& text, const std::vector<JsonPath>& drop);

}  // namespace lane::kube

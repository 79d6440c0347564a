#pragma once
// Kubernetes-style name rules, used for jobs, projects, volumes and snapshots alike.
#include <string>
#include <string_view>

namespace lane {

// RFC 1123 label: 1-63 chars of [a-z0-9-], starting and ending with an alphanumeric.
bool is_dns1123_label(std::string_view name);

// Throws UsageError naming `field` and the rule when `name` is not a DNS-1123 label.
void require_dns1123_label(std::string_view name, std::string_view field);

}  // namespace lane

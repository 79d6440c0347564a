#include "submit/kube/kube_context.h"

#include <ostream>

#include <fmt/format.h>

#include "common/error.h"
#include "common/names.h"
#include "submit/kube/mapping.h"

namespace lane::submit::kube {

namespace res = lane::kube::resources;

std::string text(const Json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string KubeContext::ns_of(const std::string& project) const { return project_namespace(settings, project); }

bool KubeContext::project_exists(const std::string& name) const {
  if (!is_dns1123_label(name)) return false;
  auto n = client->try_get(res::kNamespace, "", ns_of(name));
  if (!n) return false;
  return text((*n)["metadata"].value("labels", Json::object()), settings.project_label.c_str()) == name;
}

void KubeContext::require_project(const std::string& project) const {
  if (!project_exists(project)) {
    throw UsageError(fmt::format("project {} was not found (no namespace {} labelled {}={}); create it with "
                                 "'lanectl project create {} --gpu-quota N' or list them with 'lanectl project list'",
                                 project, ns_of(project), settings.project_label, project, project));
  }
}

void KubeContext::note(const std::string& line) const {
  if (progress) *progress << line << std::endl;
}

}  // namespace lane::submit::kube

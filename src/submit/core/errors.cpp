#include "submit/core/errors.h"

#include <fmt/format.h>

namespace lane::submit {

AlreadyExists job_name_taken(const std::string& name, const std::string& project) {
  return AlreadyExists(fmt::format("job '{}' already exists in project '{}'; choose another --name or delete it with "
                                   "`lanectl delete job {} -p {}`",
                                   name, project, name, project));
}

JobDeleted job_deleted(const std::string& name, const std::string& project) {
  return JobDeleted(fmt::format("job {} was deleted (project '{}')", name, project));
}

UsageError unknown_project(const std::string& project) {
  return UsageError(fmt::format("project '{}' does not exist; create it with `lanectl project create {} --gpu-quota N` "
                                "or pick one from `lanectl project list`",
                                project, project));
}

}  // namespace lane::submit

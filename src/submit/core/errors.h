#pragma once
// Errors with a meaning callers act on, thrown by every backend alike.
#include <string>

#include "common/error.h"

namespace lane::submit {

// The name is taken (a job of that name exists in the project: the local store has its row, or
// the API server answered 409 AlreadyExists). A usage error (exit 2): the fix is another name.
// Callers that pick names themselves (--job-name-prefix) catch it by type and try the next one.
class AlreadyExists : public UsageError {
 public:
  using UsageError::UsageError;
};

// What every backend throws when project `project` already has a job named `name`.
AlreadyExists job_name_taken(const std::string& name, const std::string& project);

// A job that was deleted while lanectl waited on it (`logs -f`, `attach`): exit 1 with
// "job NAME was deleted". Both backends throw it (job_deleted below).
class JobDeleted : public Error {
 public:
  using Error::Error;
};
JobDeleted job_deleted(const std::string& name, const std::string& project);

// A usage error (exit 2) for a project that does not exist, naming `project create` and
// `project list`: what submit and list say alike.
UsageError unknown_project(const std::string& project);

}  // namespace lane::submit

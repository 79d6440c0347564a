#pragma once
// A backend: the local one (submit/local) or Kubernetes (submit/kube), opened by the factory
// (submit/factory). It is only the bundle of its roles; each verb takes the role it needs
// (jobs.h, projects.h, cluster.h, storage.h; the dashboard also job_files.h) and depends on
// nothing else. Errors are lane::Error (exit 1) or lane::UsageError (exit 2) whose message names the bad
// value and the fix.
#include <string>

#include "submit/core/cluster.h"
#include "submit/core/job_files.h"
#include "submit/core/jobs.h"
#include "submit/core/projects.h"
#include "submit/core/storage.h"

namespace lane::submit {

class Backend {
 public:
  virtual ~Backend() = default;

  virtual std::string kind() const = 0;  // "local" | "kubernetes"
  virtual Jobs& jobs() = 0;
  virtual Projects& projects() = 0;
  virtual Cluster& cluster() = 0;
  virtual Storage& storage() = 0;
  virtual JobFiles& job_files() = 0;
};

}  // namespace lane::submit

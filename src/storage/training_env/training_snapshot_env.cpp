#include "storage/training_env/training_snapshot_env.h"

#include "submit/factory/factory.h"
#include "storage/training/training_snapshot.h"

namespace lane::storage {

std::optional<std::string> snapshot_after_training_from_env(const std::filesystem::path& output_dir,
                                                            const std::string& code_version,
                                                            std::ostream& log) {
  auto request = training_snapshot_request_from_env(output_dir, code_version);
  if (!request) return std::nullopt;
  auto backend = submit::open_backend(submit::load_backend_config());
  std::optional<submit::JobSpec> spec;
  if (auto job = backend->describe_job(request->job, request->project)) spec = job->spec;
  return snapshot_after_training(backend->snapshots(), backend->volumes(), *request, spec, log).snapshot;
}

}  // namespace lane::storage

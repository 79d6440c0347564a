#include "submit/factory/training_snapshot_env.h"

#include <cstdlib>
#include <iostream>
#include <string>

#include "common/error.h"
#include "submit/factory/factory.h"
#include "submit/local/runtime/job_api.h"
#include "submit/training/training_snapshot.h"

namespace lane::submit {

std::optional<std::string> snapshot_after_training_from_env(const std::filesystem::path& output_dir,
                                                            const std::string& code_version,
                                                            std::ostream& log) {
  auto request = training_snapshot_request_from_env(output_dir, code_version);
  if (!request) return std::nullopt;
  if (const char* api = std::getenv("LANECTL_JOB_API"); api && *api) {
    // Inside a local job, which does not see the backend's state: its supervisor takes the
    // snapshot for it (submit/local/runtime/job_api.h).
    auto reply = local::job_api_call(
        api, {{"op", "snapshot"}, {"pvc", request->pvc},
              {"outputDir", std::filesystem::absolute(output_dir).lexically_normal().string()},
              {"codeVersion", code_version}});
    log << reply.value("log", std::string()) << std::flush;
    return reply.value("snapshot", std::string());
  }
  auto backend = open_backend(load_backend_config(), &std::cerr);
  std::optional<JobSpec> spec;
  if (auto job = backend->jobs().describe_job(request->job, request->project)) spec = job->spec;
  return snapshot_after_training(backend->storage().snapshots(), backend->storage().volumes(), *request, spec, log).snapshot;
}

int run_training_snapshot_verb(int argc, char** argv) {
  std::string output_dir, code_version;
  bool ok = true;
  for (int i = 2; i < argc; ++i) {
    const std::string flag = argv[i];
    std::string* value = flag == "--output-dir" ? &output_dir : flag == "--code-version" ? &code_version : nullptr;
    if (!value || i + 1 == argc) { ok = false; break; }
    *value = argv[++i];
  }
  if (!ok || output_dir.empty()) {
    std::cerr << "usage: lanectl __training-snapshot --output-dir DIR [--code-version REV] (internal: run by "
                 "scnn-train at the end of training)\n";
    return static_cast<int>(ExitCode::kUsage);
  }
  try {
    snapshot_after_training_from_env(output_dir, code_version, std::cout);
    std::cout.flush();
    return 0;
  } catch (const Error& e) {
    std::cerr << "lanectl __training-snapshot: error: " << e.what() << "\n";
    return static_cast<int>(e.code());
  } catch (const std::exception& e) {
    std::cerr << "lanectl __training-snapshot: error: " << e.what() << "\n";
    return static_cast<int>(ExitCode::kFailure);
  }
}

}  // namespace lane::submit

#include "submit/core/storage.h"

#include <fmt/format.h>

namespace lane::submit {

std::vector<std::string> claims_of(const JobSpec& spec) {
  std::vector<std::string> claims;
  for (size_t i = 0; i < spec.pvcs.size(); ++i) claims.push_back(claim_name(spec, i));
  return claims;
}

void add_mounts(const JobSpec& spec, JobStatus status, std::vector<VolumeMount>& out) {
  for (auto& claim : claims_of(spec)) out.push_back({std::move(claim), spec.name, spec.project, status});
}

void require_unused(const std::string& volume, const std::vector<VolumeMount>& mounts, const std::string& action,
                    const std::string& other_fix) {
  std::vector<const VolumeMount*> active;
  for (const auto& m : mounts)
    if (m.volume == volume && m.active()) active.push_back(&m);
  if (active.empty()) return;
  const VolumeMount& first = *active.front();
  std::string others;
  if (active.size() > 1) others = fmt::format(" (and {} more active job(s))", active.size() - 1);
  throw VolumeInUse(fmt::format(
      "cannot {}: job '{}' of project '{}' is {} and mounts volume '{}'{}; delete the job first "
      "(`lanectl delete {} -p {}`){}",
      action, first.job, first.project, to_string(first.status), volume, others, first.job, first.project,
      other_fix.empty() ? "" : ", or " + other_fix));
}

}  // namespace lane::submit

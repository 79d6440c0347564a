#include "submit/local/local_backend.h"

namespace lane::submit::local {

LocalBackend::LocalBackend(const std::filesystem::path& home)
    : state_(home), jobs_(state_), projects_(state_), cluster_(state_), storage_(state_) {
  state_.check_supervisors();
  state_.expire_finished_jobs();
}

LocalBackend::~LocalBackend() = default;

}  // namespace lane::submit::local

#pragma once
// The Kubernetes backend against a fresh test API server, with the project lane-detection
// (namespace runai-lane-detection) created: for tests that link lane_submit_kube.
#include <memory>

#include "fake_server.h"
#include "submit/kube/kube_backend.h"

namespace lane::test {

struct KubeBackendFixture {
  FakeApiServer server;
  std::shared_ptr<lane::kube::KubeClient> client;
  lane::submit::kube::KubeBackend backend;
  explicit KubeBackendFixture(lane::kube::RetryPolicy retry = {})
      : client(std::make_shared<lane::kube::KubeClient>(server.connection(), retry)),
        backend(client, lane::submit::kube::KubeSettings{}, "lane-detection") {
    backend.projects().create_project({"lane-detection", 3, true});
  }
};

}  // namespace lane::test

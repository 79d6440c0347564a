// Every YAML file under deploy/ parses, every document names apiVersion/kind/metadata.name,
// and the documents with an official schema (VolumeSnapshotClass, Queue, Namespace, ...)
// validate strictly through the test API server's validator.
#include <catch2/catch.hpp>

#include <set>

#include "fake_server.h"
#include "test_paths.h"

TEST_CASE("kube deploy: manifests parse and validate against the official schemas", "[submit_kube][fast]") {
  lane::test::FakeApiServer server;
  std::set<std::string> validated_kinds;
  int documents = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(lane::test::source_dir() / "deploy")) {
    if (entry.path().extension() != ".yaml") continue;
    INFO(entry.path().string());
    auto results = server.control("/_test/validate_file", {{"path", entry.path().string()}});
    REQUIRE(results.is_array());
    for (const auto& r : results) {
      ++documents;
      CHECK(r["kind"].is_string());
      CHECK(r["apiVersion"].is_string());
      CHECK(r["name"].is_string());
      CHECK(r["errors"].empty());
      if (r["validated"].get<bool>()) validated_kinds.insert(r["kind"].get<std::string>());
    }
  }
  CHECK(documents >= 8);
  CHECK(validated_kinds.count("VolumeSnapshotClass") == 1);
  CHECK(validated_kinds.count("Queue") == 1);
  CHECK(validated_kinds.count("Namespace") == 1);
}

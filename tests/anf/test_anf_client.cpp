// The ARM client against fake_arm.py: token cache and refresh, wrong credentials, 429 with
// Retry-After, ARM errors, LRO failure, config-file rules and Trident key spellings.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>

#include "common/error.h"
#include "fake_arm.h"
#include "storage/anf/anf_options.h"
#include "storage/anf/arm_client.h"

using namespace lane::storage::anf;
using lane::test::FakeArm;
using lane::test::kAnfSecret;
using lane::test::kVolume1;

static int count_requests(const nlohmann::json& state, const std::string& method, const std::string& part) {
  int n = 0;
  for (const auto& r : state["requests"])
    if (r["method"] == method && r["path"].get<std::string>().find(part) != std::string::npos) ++n;
  return n;
}

TEST_CASE("anf client: token is cached, and fetched again once after a 401", "[anf][fast]") {
  FakeArm arm;
  ArmClient client(arm.options(), nullptr);
  auto vol = client.get(kVolume1);
  CHECK(vol["properties"]["creationToken"] == "my-unique-file-path");  // from Volumes_Get.json
  client.get(kVolume1);
  CHECK(arm.state()["token_requests"] == 1);
  arm.control("/_test/expire_tokens");
  CHECK(client.get(kVolume1)["name"] == "account1/pool1/volume1");
  CHECK(arm.state()["token_requests"] == 2);
  CHECK(client.token_requests() == 2);
}

TEST_CASE("anf client: wrong credentials give invalid_client without the secret", "[anf][fast]") {
  FakeArm arm;
  auto o = arm.options();
  o.client_secret = Secret(std::string(kAnfSecret) + "-wrong");
  ArmClient client(o, nullptr);
  try {
    client.get(kVolume1);
    FAIL("expected an authentication error");
  } catch (const ArmError& e) {
    std::string what = e.what();
    CHECK(e.status() == 401);
    CHECK(e.code() == "invalid_client");
    CHECK(what.find("AADSTS7000215") != std::string::npos);
    CHECK(what.find("clientSecret") != std::string::npos);  // says what to fix
    CHECK(what.find(kAnfSecret) == std::string::npos);
  }
}

TEST_CASE("anf client: 429 with Retry-After is retried, then succeeds", "[anf][slow]") {
  FakeArm arm;
  arm.control("/_test/faults", nlohmann::json::array(
      {{{"method", "GET"}, {"path_contains", "/volumes/volume1"}, {"status", 429}, {"retry_after", 1}, {"times", 2}}}));
  std::ostringstream progress;
  ArmClient client(arm.options(), &progress);
  auto t0 = std::chrono::steady_clock::now();
  CHECK(client.get(kVolume1)["location"] == "eastus");
  auto waited = std::chrono::steady_clock::now() - t0;
  CHECK(waited >= std::chrono::seconds(2));  // honoured Retry-After: 1 twice
  CHECK(count_requests(arm.state(), "GET", "/volumes/volume1") == 3);
  CHECK(progress.str().find("HTTP 429, retrying in 1 s") != std::string::npos);
}

TEST_CASE("anf client: persistent throttling and ARM errors surface code and message", "[anf][fast]") {
  FakeArm arm;
  auto o = arm.options();
  o.max_attempts = 2;
  arm.control("/_test/faults", nlohmann::json::array(
      {{{"method", "GET"}, {"status", 429}, {"retry_after", 0}, {"times", 5}}}));
  ArmClient client(o, nullptr);
  try {
    client.get(kVolume1);
    FAIL("expected throttling error");
  } catch (const ArmError& e) {
    CHECK(e.status() == 429);
    CHECK(std::string(e.what()).find("Rate limit exceeded") != std::string::npos);
  }
  ArmClient fresh(arm.options(), nullptr);
  std::string missing = std::string(kVolume1).replace(std::string(kVolume1).find("volume1"), 7, "nope");
  arm.control("/_test/reset", {{"client_secret", kAnfSecret}});
  CHECK_FALSE(fresh.try_get(missing).has_value());
  try {
    fresh.get(missing);
    FAIL("expected 404");
  } catch (const ArmError& e) {
    CHECK(e.code() == "ResourceNotFound");
    CHECK(std::string(e.what()).find("HTTP 404 Not Found: ResourceNotFound: The requested volume was not found") !=
          std::string::npos);
  }
}

TEST_CASE("anf client: a POST answered 503 is not repeated (its outcome is unknown), a GET is", "[anf][slow]") {
  FakeArm arm;
  arm.control("/_test/faults", nlohmann::json::array(
      {{{"method", "POST"}, {"path_contains", "/revert"}, {"status", 503}, {"code", "ServiceUnavailable"}, {"times", 1}},
       {{"method", "GET"}, {"path_contains", "/volumes/volume1"}, {"status", 503}, {"code", "ServiceUnavailable"}, {"times", 1}}}));
  std::ostringstream progress;
  ArmClient client(arm.options(), &progress);
  try {
    client.post_action(kVolume1, "revert", {{"snapshotId", std::string(kVolume1) + "/snapshots/s1"}}, "revert");
    FAIL("expected the 503 to surface");
  } catch (const ArmError& e) {
    CHECK(e.status() == 503);
    CHECK(e.code() == "ServiceUnavailable");
  }
  CHECK(count_requests(arm.state(), "POST", "/revert") == 1);
  CHECK(client.get(kVolume1)["location"] == "eastus");
  CHECK(count_requests(arm.state(), "GET", "/volumes/volume1") == 2);
  CHECK(progress.str().find("anf: GET HTTP 503, retrying in ") != std::string::npos);
  CHECK(progress.str().find("anf: POST") == std::string::npos);
}

TEST_CASE("anf client: api-version is pinned and configurable", "[anf][fast]") {
  FakeArm arm;
  auto o = arm.options();
  o.api_version = "2019-11-01";
  ArmClient old(o, nullptr);
  try {
    old.get(kVolume1);
    FAIL("the fake server accepts only 2025-12-01");
  } catch (const ArmError& e) {
    CHECK(e.code() == "InvalidApiVersionParameter");
  }
  ArmClient pinned(arm.options(), nullptr);
  pinned.get(kVolume1);
  CHECK(arm.state()["requests"].back()["query"] == "api-version=2025-12-01");
}

TEST_CASE("anf client: a failed long-running operation reports the operation's error", "[anf][fast]") {
  FakeArm arm(nlohmann::json{{"polls", 3}});
  arm.control("/_test/fail_next_op", {{"code", "InternalServerError"}, {"message", "Failed to split new volume from source volume snapshot"}});
  std::ostringstream progress;
  ArmClient client(arm.options(), &progress);
  nlohmann::json body = {{"location", "eastus"},
                         {"properties", {{"creationToken", "vol-new"}, {"subnetId", "/sub/x"}, {"usageThreshold", 107374182400}}}};
  std::string id = std::string(kVolume1).replace(std::string(kVolume1).find("volume1"), 7, "vol-new");
  try {
    client.put(id, body, "create volume vol-new");
    FAIL("expected the operation to fail");
  } catch (const ArmError& e) {
    CHECK(e.code() == "InternalServerError");
    CHECK(std::string(e.what()).find("create volume vol-new Failed") != std::string::npos);
    CHECK(std::string(e.what()).find("Failed to split") != std::string::npos);
  }
  // Three InProgress polls were shown before the failure.
  std::string p = progress.str();
  size_t n = 0;
  for (size_t at = 0; (at = p.find("InProgress", at)) != std::string::npos; ++at) ++n;
  CHECK(n == 3);
}

TEST_CASE("anf options: Trident spellings, environment fallback and 0600 rule", "[anf][fast]") {
  lane::test::TempDir dir;
  auto file = dir.path / "anf.json";
  std::ofstream(file) << R"({"version":1,"storageDriverName":"azure-netapp-files","subscriptionID":"sub-1",
    "tenantId":"t-1","clientId":"c-1","clientSecret":")" << kAnfSecret << R"(","netappAccounts":["myRG/account1"],
    "armURL":"http://127.0.0.1:1/","authorityURL":"http://127.0.0.1:2"})";
  std::filesystem::permissions(file, std::filesystem::perms(0644));
  try {
    load_anf_options(file);
    FAIL("a group/world-readable secret file must be refused");
  } catch (const lane::UsageError& e) {
    CHECK(std::string(e.what()).find("chmod 600") != std::string::npos);
  }
  std::filesystem::permissions(file, std::filesystem::perms(0600));
  auto o = load_anf_options(file);
  CHECK(o.subscription_id == "sub-1");
  CHECK(o.tenant_id == "t-1");
  CHECK(o.client_id == "c-1");
  CHECK(o.client_secret.reveal() == kAnfSecret);
  CHECK(o.arm_url == "http://127.0.0.1:1");
  CHECK(o.authority_url == "http://127.0.0.1:2");
  CHECK(o.api_version == "2025-12-01");
  CHECK(o.netapp_accounts == std::vector<std::string>{"myRG/account1"});

  // Broken JSON: the error must not quote the file (it holds the secret).
  std::ofstream(file) << R"({"clientSecret":")" << kAnfSecret << R"(", oops})";
  try {
    load_anf_options(file);
    FAIL("expected a parse error");
  } catch (const lane::UsageError& e) {
    CHECK(std::string(e.what()).find(kAnfSecret) == std::string::npos);
  }

  // Environment only; missing secret names the variable.
  setenv("AZURE_TENANT_ID", "t-env", 1);
  setenv("AZURE_CLIENT_ID", "c-env", 1);
  unsetenv("AZURE_CLIENT_SECRET");
  unsetenv("LANECTL_ANF_CONFIG");
  CHECK_THROWS_WITH(load_anf_options(std::nullopt), Catch::Contains("AZURE_CLIENT_SECRET"));
  setenv("AZURE_CLIENT_SECRET", "x", 1);
  setenv("LANECTL_ANF_ARM_URL", "http://127.0.0.1:9", 1);
  auto e = load_anf_options(std::nullopt);
  CHECK(e.tenant_id == "t-env");
  CHECK(e.arm_url == "http://127.0.0.1:9");
  for (const char* v : {"AZURE_TENANT_ID", "AZURE_CLIENT_ID", "AZURE_CLIENT_SECRET", "LANECTL_ANF_ARM_URL"}) unsetenv(v);
}

TEST_CASE("anf client: a long-running operation that outlives its timeout stops with a clear error", "[anf][slow]") {
  FakeArm arm(nlohmann::json{{"polls", 100000}});
  auto o = arm.options();
  o.operation_timeout_s = 1;
  ArmClient client(o, nullptr);
  CHECK_THROWS_WITH(client.remove(kVolume1, "delete volume1"), Catch::Contains("did not finish within 1 s"));
}

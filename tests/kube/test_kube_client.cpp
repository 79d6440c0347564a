// The REST client against the test API server: typed errors, retries, idempotent create,
// pagination, watches, logs and TLS with a bearer token.
#include <catch2/catch.hpp>

#include <chrono>
#include <fstream>
#include <thread>

#include "fake_server.h"
#include "kube/kube_client.h"

using namespace lane::kube;
using Json = nlohmann::json;
using lane::test::count_requests;
namespace res = lane::kube::resources;

namespace {
RetryPolicy fast_retries() {
  RetryPolicy r;
  r.base_delay = std::chrono::milliseconds(10);
  r.max_delay = std::chrono::milliseconds(50);
  return r;
}

Json ns_object(const std::string& name) {
  return {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}};
}

Json configmap(const std::string& name) {
  return {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", name}}}, {"data", {{"k", name}}}};
}

}  // namespace

TEST_CASE("client: typed errors from Status objects", "[kube][fast]") {
  lane::test::FakeApiServer server;
  KubeClient client(server.connection(), fast_retries());
  client.create(res::kNamespace, "", ns_object("team"));
  try {
    client.get(res::kConfigMap, "team", "absent");
    FAIL("expected NotFound");
  } catch (const ApiError& e) {
    CHECK(e.not_found());
    CHECK(e.reason() == "NotFound");
  }
  CHECK_FALSE(client.try_get(res::kConfigMap, "team", "absent"));
  client.create(res::kConfigMap, "team", configmap("a"));
  try {
    client.create(res::kConfigMap, "team", configmap("a"));
    FAIL("expected AlreadyExists");
  } catch (const ApiError& e) {
    CHECK(e.already_exists());
    CHECK(e.http_code() == 409);
  }
  Json bad = configmap("b");
  bad["spec"] = {{"unknown", 1}};  // the client asks for strict field validation: a 400 naming the field
  try {
    client.create(res::kConfigMap, "team", bad);
    FAIL("expected BadRequest");
  } catch (const ApiError& e) {
    CHECK(e.http_code() == 400);
    CHECK(e.reason() == "BadRequest");
    CHECK_THAT(e.what(), Catch::Contains("strict decoding error: unknown field \"spec\""));
  }
  Json wrong = configmap("c");
  wrong["data"]["k"] = 5;  // a schema violation: 422 Invalid with its causes
  try {
    client.create(res::kConfigMap, "team", wrong);
    FAIL("expected Invalid");
  } catch (const ApiError& e) {
    CHECK(e.invalid());
    REQUIRE_FALSE(e.causes().empty());
    CHECK(std::string(e.what()).find("data") != std::string::npos);
  }
  // Optimistic concurrency: a stale resourceVersion is a Conflict.
  Json cm = client.get(res::kConfigMap, "team", "a");
  Json stale = cm;
  cm["data"]["k"] = "v2";
  client.replace(res::kConfigMap, "team", "a", cm);
  try {
    client.replace(res::kConfigMap, "team", "a", stale);
    FAIL("expected Conflict");
  } catch (const ApiError& e) {
    CHECK(e.conflict());
  }
}

TEST_CASE("client: 401 and 403 say what to do besides the server's text", "[kube][fast]") {
  const std::string forbidden =
      R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":"configmaps is forbidden: User \"u\" cannot )"
      R"(list resource \"configmaps\" in API group \"\" in the namespace \"team\"","reason":"Forbidden","code":403})";
  const ApiError denied = api_error_from_response(403, forbidden, "GET /api/v1/namespaces/team/configmaps");
  CHECK(denied.forbidden());
  CHECK_THAT(denied.what(), Catch::StartsWith("GET /api/v1/namespaces/team/configmaps: configmaps is forbidden: User "
                                              "\"u\" cannot list") &&
                                Catch::Contains("(Forbidden); the kubeconfig's user may not do this"));
  const ApiError refused = api_error_from_response(401, "", "GET /api/v1/namespaces");
  CHECK(refused.unauthorized());
  CHECK_THAT(refused.what(), Catch::Contains("HTTP 401 Unauthorized (Unauthorized); the API server refused the "
                                             "credentials") &&
                                 Catch::Contains("--context"));
  const ApiError missing = api_error_from_response(404, "", "GET /x");
  CHECK(std::string(missing.what()) == "GET /x: HTTP 404 NotFound (NotFound)");  // no hint where none helps
}

TEST_CASE("client: retries 429 honouring Retry-After and 5xx on idempotent requests", "[kube][slow]") {
  lane::test::FakeApiServer server;
  KubeClient client(server.connection(), fast_retries());
  client.create(res::kNamespace, "", ns_object("team"));
  server.fault({{"method", "GET"}, {"path", "/namespaces/team"}, {"action", "429"}, {"retry_after", 1}, {"count", 1}});
  auto t0 = std::chrono::steady_clock::now();
  CHECK(client.get(res::kNamespace, "", "team")["metadata"]["name"] == "team");
  CHECK(std::chrono::steady_clock::now() - t0 >= std::chrono::milliseconds(950));  // waited as told

  server.fault({{"method", "GET"}, {"path", "/namespaces/team"}, {"action", "500"}, {"count", 2}});
  server.fault({{"method", "GET"}, {"path", "/namespaces/team"}, {"action", "drop"}, {"count", 1}});
  CHECK(client.get(res::kNamespace, "", "team")["metadata"]["name"] == "team");
  CHECK(count_requests(server.requests(), "GET", "/api/v1/namespaces/team") == 2 + 4);

  // A POST answered with 503 may have been applied: it is not repeated blindly.
  server.fault({{"method", "POST"}, {"path", "configmaps"}, {"action", "503"}, {"count", 1}});
  CHECK_THROWS_AS(client.create(res::kConfigMap, "team", configmap("c")), ApiError);
  CHECK(count_requests(server.requests(), "POST", "configmaps") == 1);
  // 429 means "not processed": even a POST is retried.
  server.fault({{"method", "POST"}, {"path", "configmaps"}, {"action", "429"}, {"retry_after", 0}, {"count", 1}});
  client.create(res::kConfigMap, "team", configmap("d"));
  CHECK(client.try_get(res::kConfigMap, "team", "d"));

  // Retries end: persistent 500s surface as a typed error.
  server.fault({{"method", "GET"}, {"path", "/namespaces/gone"}, {"action", "500"}, {"count", 100}});
  try {
    client.get(res::kNamespace, "", "gone");
    FAIL("expected InternalError");
  } catch (const ApiError& e) {
    CHECK(e.http_code() == 500);
  }
}

TEST_CASE("client: a lost POST answer is recovered by name and submission id", "[kube][fast]") {
  lane::test::FakeApiServer server;
  KubeClient client(server.connection(), fast_retries());
  client.create(res::kNamespace, "", ns_object("team"));
  // The server creates the object, then drops the connection without answering.
  server.fault({{"method", "POST"}, {"path", "configmaps"}, {"action", "drop_after"}, {"count", 1}});
  Json created = client.create_idempotent(res::kConfigMap, "team", configmap("job-lock"));
  CHECK(created["metadata"]["name"] == "job-lock");
  CHECK(created["metadata"]["annotations"].contains(kSubmissionIdAnnotation));
  // Somebody else's object of the same name is not mistaken for ours.
  server.fault({{"method", "POST"}, {"path", "configmaps"}, {"action", "503"}, {"count", 1}});
  try {
    client.create_idempotent(res::kConfigMap, "team", configmap("job-lock"));
    FAIL("expected AlreadyExists");
  } catch (const ApiError& e) {
    CHECK(e.already_exists());
  }
  CHECK(client.list(res::kConfigMap, "team").items.size() == 1);
}

TEST_CASE("client: remove_if_submitted deletes only the object its submission made", "[kube][fast]") {
  lane::test::FakeApiServer server;
  KubeClient client(server.connection(), fast_retries());
  client.create(res::kNamespace, "", ns_object("team"));
  const std::string ours = KubeClient::new_submission_id();
  client.create_idempotent(res::kConfigMap, "team", configmap("job-lock"), "other-submission");
  CHECK_FALSE(client.remove_if_submitted(res::kConfigMap, "team", "job-lock", ours));  // another's: left
  CHECK(client.try_get(res::kConfigMap, "team", "job-lock"));
  CHECK_FALSE(client.remove_if_submitted(res::kConfigMap, "team", "absent", ours));
  CHECK(client.remove_if_submitted(res::kConfigMap, "team", "job-lock", "other-submission"));
  CHECK_FALSE(client.try_get(res::kConfigMap, "team", "job-lock"));
  // The DELETE names the uid it read.
  const auto deletes = server.requests();
  bool preconditioned = false;
  for (const auto& q : deletes)
    if (q["method"] == "DELETE" && q["body"].get<std::string>().find("\"preconditions\"") != std::string::npos)
      preconditioned = true;
  CHECK(preconditioned);
}

TEST_CASE("client: lists page through limit/continue and restart on an expired token", "[kube][fast]") {
  lane::test::FakeApiServer server;
  KubeClient client(server.connection(), fast_retries());
  client.create(res::kNamespace, "", ns_object("team"));
  for (int i = 0; i < 25; ++i) client.create(res::kConfigMap, "team", configmap("cm-" + std::to_string(100 + i)));
  ListOptions o;
  o.limit = 10;
  auto lr = client.list(res::kConfigMap, "team", o);
  CHECK(lr.items.size() == 25);
  CHECK(lr.items.front()["metadata"]["name"] == "cm-100");
  CHECK(lr.items.back()["metadata"]["name"] == "cm-124");
  CHECK(count_requests(server.requests(), "GET", "/configmaps") == 3);
  // The second page's token has expired: the whole list starts over.
  server.fault({{"method", "GET"}, {"path", "continue="}, {"action", "gone"}, {"count", 1}});
  CHECK(client.list(res::kConfigMap, "team", o).items.size() == 25);
  o.label_selector = "nothing=here";
  CHECK(client.list(res::kConfigMap, "team", o).items.empty());
}

TEST_CASE("client: list drops the item fields the caller names, across pages", "[kube][fast]") {
  lane::test::FakeApiServer server;
  KubeClient client(server.connection(), fast_retries());
  client.create(res::kNamespace, "", ns_object("team"));
  for (int i = 0; i < 5; ++i) client.create(res::kConfigMap, "team", configmap("cm-" + std::to_string(i)));
  ListOptions o;
  o.limit = 2;
  o.drop = {{"items", "*", "data"}};
  auto lr = client.list(res::kConfigMap, "team", o);
  REQUIRE(lr.items.size() == 5);
  for (const auto& it : lr.items) {
    CHECK_FALSE(it.contains("data"));
    CHECK(it["metadata"]["name"].get<std::string>().rfind("cm-", 0) == 0);
  }
  CHECK_FALSE(lr.resource_version.empty());
  CHECK(client.list(res::kConfigMap, "team").items.front()["data"]["k"] == "cm-0");
}

TEST_CASE("client: watches resume from the last resourceVersion and report 410 Gone", "[kube][fast]") {
  lane::test::FakeApiServer server;
  KubeClient client(server.connection(), fast_retries());
  client.create(res::kNamespace, "", ns_object("team"));
  auto lr = client.list(res::kConfigMap, "team");
  std::string rv = lr.resource_version;
  const std::string listed_rv = rv;
  client.create(res::kConfigMap, "team", configmap("one"));
  client.create(res::kConfigMap, "team", configmap("two"));
  std::vector<std::string> seen;
  auto end = client.watch(res::kConfigMap, "team", {}, rv, 5, [&](const std::string& type, const Json& obj) {
    seen.push_back(type + ":" + obj["metadata"]["name"].get<std::string>());
    return seen.size() < 2;
  });
  CHECK(end == WatchEnd::kStopped);
  CHECK(seen == std::vector<std::string>{"ADDED:one", "ADDED:two"});
  // Resuming from the returned version sees only what happened afterwards.
  client.remove(res::kConfigMap, "team", "one");
  seen.clear();
  client.watch(res::kConfigMap, "team", {}, rv, 5, [&](const std::string& type, const Json& obj) {
    seen.push_back(type + ":" + obj["metadata"]["name"].get<std::string>());
    return false;
  });
  CHECK(seen == std::vector<std::string>{"DELETED:one"});
  // After compaction the old version is gone.
  server.control("/_test/compact", Json::object());
  std::string old_rv = listed_rv;
  CHECK(client.watch(res::kConfigMap, "team", {}, old_rv, 5, [](auto&, auto&) { return true; }) == WatchEnd::kGone);
}

TEST_CASE("client: wait_for relists after 410 and survives a dropped watch", "[kube][fast]") {
  lane::test::FakeApiServer server;
  KubeClient client(server.connection(), fast_retries());
  client.create(res::kNamespace, "", ns_object("team"));
  client.create(res::kConfigMap, "team", configmap("flag"));
  server.fault({{"method", "GET"}, {"path", "watch=1"}, {"action", "gone"}, {"count", 1}});
  server.fault({{"method", "GET"}, {"path", "watch=1"}, {"action", "drop_stream"}, {"after_events", 0}, {"count", 1}});
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    server.control("/_test/object", {{"apiVersion", "v1"}, {"kind", "ConfigMap"},
                                     {"metadata", {{"name", "flag"}, {"namespace", "team"}}},
                                     {"data", {{"k", "ready"}}}});
  });
  auto obj = client.wait_for(res::kConfigMap, "team", "flag",
                             [](const Json& o) { return o["data"].value("k", "") == "ready"; }, std::chrono::seconds(10));
  writer.join();
  REQUIRE(obj);
  CHECK((*obj)["data"]["k"] == "ready");
  CHECK(count_requests(server.requests(), "GET", "/configmaps") >= 3);  // list, watch (410), relist, ...
}

TEST_CASE("client: pod logs stream with tail, timestamps, follow and container checks", "[kube][fast]") {
  lane::test::FakeApiServer server;
  KubeClient client(server.connection(), fast_retries());
  client.create(res::kNamespace, "", ns_object("team"));
  Json pod{{"apiVersion", "v1"},
           {"kind", "Pod"},
           {"metadata", {{"name", "p"}}},
           {"spec", {{"containers", {{{"name", "a"}, {"image", "x"}}, {{"name", "b"}, {"image", "x"}}}}}}};
  client.create(res::kPod, "team", pod);
  server.control("/_test/logs", {{"namespace", "team"}, {"pod", "p"}, {"lines", {"l1", "l2", "l3"}},
                                 {"follow", {"f1", "f2"}}, {"interval", 0.05}});
  LogOptions o;
  try {
    client.stream_logs("team", "p", o, [](std::string_view) {});
    FAIL("expected BadRequest");
  } catch (const ApiError& e) {
    CHECK(e.http_code() == 400);
    CHECK(std::string(e.what()).find("container") != std::string::npos);
  }
  o.container = "a";
  o.tail_lines = 2;
  std::string out;
  client.stream_logs("team", "p", o, [&](std::string_view c) { out.append(c); });
  CHECK(out == "l2\nl3\n");
  o.tail_lines.reset();
  o.follow = true;
  o.timestamps = true;
  out.clear();
  std::vector<std::string> chunks;
  client.stream_logs("team", "p", o, [&](std::string_view c) {
    out.append(c);
    chunks.emplace_back(c);
  });
  CHECK(chunks.size() >= 5);  // arrived line by line, not as one body
  CHECK(out.find("Z l1\n") != std::string::npos);
  CHECK(out.find("Z f2\n") != std::string::npos);
  auto req = server.requests().back();
  CHECK(req["query"]["follow"] == "true");
  CHECK(req["query"]["timestamps"] == "true");
}

TEST_CASE("client: TLS with the kubeconfig's CA and a bearer token", "[kube][fast]") {
  lane::test::TempDir dir;
  lane::test::make_self_signed_cert(dir.path);
  lane::test::FakeApiServer server({"s3cret-token", dir.path / "cert.pem", dir.path / "key.pem"});
  std::ifstream ca_in(dir.path / "cert.pem");
  std::string ca((std::istreambuf_iterator<char>(ca_in)), {});
  Connection c = server.connection();
  c.ca_pem = ca;
  c.token = "s3cret-token";
  KubeClient client(c, fast_retries());
  client.create(res::kNamespace, "", ns_object("team"));
  CHECK(client.get(res::kNamespace, "", "team")["metadata"]["name"] == "team");
  CHECK(server.requests().back()["authorized"] == true);

  Connection wrong = c;
  wrong.token = "guess";
  try {
    KubeClient(wrong, fast_retries()).get(res::kNamespace, "", "team");
    FAIL("expected Unauthorized");
  } catch (const ApiError& e) {
    CHECK(e.unauthorized());
    CHECK(std::string(e.what()).find("guess") == std::string::npos);
    CHECK_THAT(e.what(), Catch::Contains("the API server refused the credentials of the kubeconfig's current user"));
  }
  Connection untrusted = c;
  untrusted.ca_pem.clear();  // the system store does not know our self-signed CA
  CHECK_THROWS_WITH(KubeClient(untrusted, fast_retries()).get(res::kNamespace, "", "team"),
                    Catch::Contains("TLS verification failed"));
  Connection insecure = untrusted;
  insecure.insecure_skip_tls_verify = true;  // only because the kubeconfig says so
  CHECK(KubeClient(insecure, fast_retries()).get(res::kNamespace, "", "team")["metadata"]["name"] == "team");
}

TEST_CASE("client: writes ask for strict field validation, and the server's warnings reach the sink once each", "[kube][fast]") {
  lane::test::FakeApiServer server;
  KubeClient client(server.connection(), fast_retries());
  std::vector<std::string> warnings;
  client.set_warning_sink([&](const std::string& w) { warnings.push_back(w); });
  client.create(res::kNamespace, "", ns_object("team"));
  client.create(res::kConfigMap, "team", configmap("a"));
  Json cm = client.get(res::kConfigMap, "team", "a");
  client.replace(res::kConfigMap, "team", "a", cm);
  client.merge_patch(res::kConfigMap, "team", "a", {{"data", {{"k", "v"}}}});
  int strict = 0, writes = 0;
  for (const auto& r : server.requests()) {
    if (r["method"] == "GET") continue;
    ++writes;
    strict += r["query"].value("fieldValidation", "") == "Strict";
  }
  CHECK(writes == 4);
  CHECK(strict == 4);
  CHECK(warnings.empty());
  // A write that leaves validation to the server's default (Warn): the unknown fields are dropped,
  // each named in a Warning header; the same warning again is not repeated.
  Json extra = configmap("b");
  extra["spec"] = 1;
  extra["colour"] = "blue";
  for (int i = 0; i < 2; ++i) {
    extra["metadata"]["name"] = "b" + std::to_string(i);
    auto resp = client.request("POST", res::kConfigMap.collection_path("team"), extra.dump());
    CHECK_FALSE(Json::parse(resp.body).contains("spec"));
  }
  CHECK(warnings == std::vector<std::string>{"unknown field \"colour\"", "unknown field \"spec\""});
}

TEST_CASE("client: Warning header values are read as RFC 7234 says (code, agent, quoted text, date)", "[kube][fast]") {
  CHECK(warning_texts(R"(299 - "unknown field \"spec.x\"")") == std::vector<std::string>{"unknown field \"spec.x\""});
  CHECK(warning_texts(R"(299 - "a, b", 299 kube-apiserver "c" "Sat, 25 Aug 2012 23:34:45 GMT")") ==
        std::vector<std::string>{"a, b", "c"});
  CHECK(warning_texts("garbage, 299 - \"d\"") == std::vector<std::string>{"d"});
  CHECK(warning_texts("").empty());
}

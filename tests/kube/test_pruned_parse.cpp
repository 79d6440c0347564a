// parse_pruned: the SAX parse that list() uses to skip subtrees its caller never reads.
#include <catch2/catch.hpp>

#include "kube/pruned_parse.h"

using lane::kube::parse_pruned;
using Json = nlohmann::json;

namespace {
// A pod list page shaped like the API server's, with fields list never reads.
const char* kPage = R"({
  "kind": "PodList", "metadata": {"resourceVersion": "42", "continue": "tok"},
  "items": [
    {"metadata": {"name": "a", "labels": {"env": "prod", "command": "x"},
                  "managedFields": [{"manager": "kubelet", "fieldsV1": {"f:status": {}}}]},
     "spec": {"nodeName": "n1", "volumes": [{"name": "v"}],
              "containers": [{"name": "c", "image": "i", "env": [{"name": "K", "value": "V"}],
                              "command": ["sh", "-c", "true"], "resources": {"limits": {"nvidia.com/gpu": "1"}}},
                             {"name": "d", "args": [[1, 2], {"deep": [null, true, 1.5, -3]}]}]},
     "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}},
    {"metadata": {"name": "b"}, "spec": {"containers": []}, "status": {"phase": "Pending"}}
  ]
})";

const std::vector<lane::kube::JsonPath> kDrop{{"items", "*", "metadata", "managedFields"},
                                              {"items", "*", "spec", "volumes"},
                                              {"items", "*", "spec", "containers", "*", "env"},
                                              {"items", "*", "spec", "containers", "*", "command"},
                                              {"items", "*", "spec", "containers", "*", "args"},
                                              {"items", "*", "status", "conditions"}};
}  // namespace

TEST_CASE("pruned parse: without drop paths it equals json::parse", "[kube][fast]") {
  CHECK(parse_pruned(kPage, {}) == Json::parse(kPage));
  CHECK(parse_pruned("[1, \"two\", {\"three\": 3.5}, null, false]", kDrop) ==
        Json::parse("[1, \"two\", {\"three\": 3.5}, null, false]"));
  CHECK(parse_pruned("7", kDrop) == Json(7));
}

TEST_CASE("pruned parse: drops exactly the named subtrees", "[kube][fast]") {
  Json expected = Json::parse(kPage);
  for (auto& item : expected["items"]) {
    item["metadata"].erase("managedFields");
    item["spec"].erase("volumes");
    item["status"].erase("conditions");
    for (auto& c : item["spec"]["containers"]) {
      c.erase("env");
      c.erase("command");
      c.erase("args");
    }
  }
  Json got = parse_pruned(kPage, kDrop);
  CHECK(got == expected);
  // Same names elsewhere survive: labels called env/command, the page's own metadata.
  CHECK(got["items"][0]["metadata"]["labels"] == Json({{"env", "prod"}, {"command", "x"}}));
  CHECK(got["metadata"]["continue"] == "tok");
  CHECK(got["items"][0]["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] == "1");
  CHECK(got["items"][0]["spec"]["containers"][1] == Json({{"name", "d"}}));
}

TEST_CASE("pruned parse: malformed JSON is an error, also inside a dropped subtree", "[kube][fast]") {
  CHECK_THROWS_AS(parse_pruned("{\"items\": [", kDrop), Json::parse_error);
  CHECK_THROWS_AS(parse_pruned(R"({"items": [{"spec": {"volumes": [1, 2,]}}]})", kDrop), Json::parse_error);
  CHECK_THROWS_AS(parse_pruned("{} trailing", kDrop), Json::parse_error);
}

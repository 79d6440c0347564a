#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>

#include "common/atomic_file.h"
#include "common/error.h"
#include "common/error_text.h"
#include "common/names.h"
#include "common/yaml_output.h"

#include <yaml-cpp/yaml.h>

namespace fs = std::filesystem;

TEST_CASE("write_file_atomic replaces the whole file and leaves no temporary behind", "[common][fast]") {
  fs::path dir = fs::temp_directory_path() / ("lane-atomic-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::path file = dir / "sub" / "state.json";
  lane::write_file_atomic(file, "first");
  lane::write_file_atomic(file, "second version");
  CHECK(lane::read_file(file) == "second version");
  int entries = 0;
  for (auto& e : fs::directory_iterator(file.parent_path())) { (void)e; ++entries; }
  CHECK(entries == 1);
  fs::remove_all(dir);
}

TEST_CASE("read_file names the missing path", "[common][fast]") {
  try {
    lane::read_file("/nonexistent/lane/file");
    FAIL("expected an error");
  } catch (const lane::Error& e) {
    CHECK(std::string(e.what()).find("/nonexistent/lane/file") != std::string::npos);
  }
}

TEST_CASE("DNS-1123 labels", "[common][fast]") {
  CHECK(lane::is_dns1123_label("dist-lane-detection-training"));
  CHECK(lane::is_dns1123_label("a1"));
  CHECK_FALSE(lane::is_dns1123_label(""));
  CHECK_FALSE(lane::is_dns1123_label("-a"));
  CHECK_FALSE(lane::is_dns1123_label("a-"));
  CHECK_FALSE(lane::is_dns1123_label("Upper"));
  CHECK_FALSE(lane::is_dns1123_label("a_b"));
  CHECK_FALSE(lane::is_dns1123_label("../etc"));
  CHECK_FALSE(lane::is_dns1123_label(std::string(64, 'a')));
  CHECK_THROWS_AS(lane::require_dns1123_label("Bad_Name", "job name"), lane::UsageError);
}

TEST_CASE("to_yaml quotes strings that would read back as other types", "[common][fast]") {
  nlohmann::json j = {{"a", "true"}, {"b", "1.5"}, {"c", "plain"}, {"d", 3}, {"e", {1, 2}}};
  std::string y = lane::to_yaml(j);
  CHECK(y.find("a: \"true\"") != std::string::npos);
  CHECK(y.find("b: \"1.5\"") != std::string::npos);
  CHECK(y.find("c: plain") != std::string::npos);
  CHECK(y.find("d: 3") != std::string::npos);
}

TEST_CASE("to_yaml quotes strings YAML cannot parse as a plain scalar (masked secrets, flow starts)", "[common][fast]") {
  nlohmann::json j = {{"token", "****"}, {"anchor", "&x"}, {"flow", "[a"}, {"map", "a: b: c"}};
  std::string y;
  REQUIRE_NOTHROW(y = lane::to_yaml(j));
  CHECK(y.find("token: \"****\"") != std::string::npos);
  YAML::Node back = YAML::Load(y);
  for (const auto& [k, v] : j.items()) CHECK(back[k].as<std::string>() == v.get<std::string>());
}

TEST_CASE("without_backtrace keeps a library's message and drops the C++ backtrace after it", "[common][fast]") {
  CHECK(lane::without_backtrace("PytorchStreamReader failed reading zip archive: not a ZIP archive\n"
                                "Exception raised from valid at ../caffe2/serialize/inline_container.cc:184 (most "
                                "recent call first):\nframe #0: c10::Error::Error(...)\n") ==
        "PytorchStreamReader failed reading zip archive: not a ZIP archive");
  CHECK(lane::without_backtrace("plain message") == "plain message");
  CHECK(lane::without_backtrace("") == "");
}

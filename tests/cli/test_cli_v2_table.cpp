// docs/cli.md's v1 → v2 → lanectl tables, row by row, through the real binary on the local
// backend: each v2 command and flag does what its v1 twin does (exit code, output, stored spec).
// Its own executable: the rows run about 300 lanectl processes, so it is left out of the
// sanitizer suite (no-sanitizer), where the same parsing is covered by test_cli's cases.
#include <catch2/catch.hpp>

#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "fake_backend.h"
#include "support/lanectl_runner.h"
#include "support/text_has.h"
#include "test_paths.h"

using lane::test::Lanectl;
using lane::test::RunResult;

namespace {

using lane::test::has;

std::vector<std::string> words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// The `lanectl ...` command in a table cell, without `lanectl`; empty when the cell has none.
std::vector<std::string> command_in(const std::string& cell) {
  const std::string mark = "`lanectl ";
  const size_t at = cell.find(mark);
  if (at == std::string::npos) return {};
  const size_t end = cell.find('`', at + 1);
  return words(cell.substr(at + mark.size(), end - at - mark.size()));
}

struct Row {
  std::string line;
  std::vector<std::string> v2, v1;  // the lanectl commands of the third and fourth columns
  std::string expected;             // the fourth column when it is no command
};

// The rows of the table under `heading` in docs/cli.md's "Run:AI v1 → v2 → lanectl" section.
std::vector<Row> table_rows(const std::string& heading) {
  std::ifstream in(lane::test::source_dir() / "docs" / "cli.md");
  std::string line;
  bool in_section = false, in_table = false;
  std::vector<Row> rows;
  while (std::getline(in, line)) {
    if (line.rfind("## ", 0) == 0) in_section = line == "## Run:AI v1 → v2 → lanectl";
    if (line.rfind("### ", 0) == 0) in_table = in_section && line == "### " + heading;
    if (!in_table || line.rfind("| ", 0) != 0 || line.rfind("| runai v1", 0) == 0) continue;
    std::vector<std::string> cells;
    std::stringstream split(line.substr(1));
    for (std::string cell; std::getline(split, cell, '|');) cells.push_back(cell);
    REQUIRE(cells.size() >= 4);
    Row r{line, command_in(cells[2]), command_in(cells[3]), cells[3]};
    INFO(line);
    REQUIRE(!r.v2.empty());
    rows.push_back(r);
  }
  return rows;
}

// What may differ between two homes: the home's path, ages and times.
std::string normalized(std::string text, const Lanectl& l) {
  for (size_t at; (at = text.find(l.home().string())) != std::string::npos;) text.replace(at, l.home().string().size(), "<home>");
  text = std::regex_replace(text, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z?)"), "<time>");
  return std::regex_replace(text, std::regex(R"(\b\d+(ms|s|m|h|d)\b)"), "<age>");
}

// Nodes, a project and, when the row names them, the claim `data` and a finished job j1.
void prepare(const Lanectl& l, const Row& row) {
  REQUIRE(l.run({"cluster", "set-nodes", "node-a=2"}).code == 0);
  REQUIRE(l.run({"project", "create", "team-a", "--gpu-quota", "1"}).code == 0);
  if (has(row.line, "claimname=data,"))  // --existing-pvc mounts only a claim that exists
    REQUIRE(l.run({"submit", "mkdata", "-i", "x", "--pvc", "data:/data", "--command", "--", "true"}).code == 0);
  if (!has(row.line, " j1")) return;
  REQUIRE(l.run({"submit", "j1", "-i", "x", "--command", "--", "echo", "hello"}).code == 0);
  REQUIRE(l.wait_status("j1", {"Succeeded"}).value("status", "") == "Succeeded");
}

// The spec a submit stored, without the command line that made it.
nlohmann::json stored_spec(const Lanectl& l, const RunResult& submitted) {
  std::smatch m;
  REQUIRE(std::regex_search(submitted.out, m, std::regex("The job '([^']+)'")));
  nlohmann::json spec = l.job(m[1].str())["spec"];
  spec.erase("cliArgv");
  if (spec.contains("pvcs"))
    for (auto& pvc : spec["pvcs"]) pvc.erase("mustExist");  // --existing-pvc's one difference from --pvc
  return spec;
}

// A row: its v2 command does what its v1 command does, each in a fresh home prepared alike.
void check_row(const Row& row) {
  INFO(row.line);
  Lanectl v2_home, v1_home;
  prepare(v2_home, row);
  const RunResult v2 = v2_home.run(row.v2);
  INFO("v2: " << v2.code << "\n" << v2.out << v2.err);
  prepare(v1_home, row);
  const RunResult v1 = v1_home.run(row.v1);
  INFO("v1: " << v1.code << "\n" << v1.out << v1.err);
  CHECK(v2.code == v1.code);
  CHECK(normalized(v2.out, v2_home) == normalized(v1.out, v1_home));
  CHECK(normalized(v2.err, v2_home) == normalized(v1.err, v1_home));
  if (v2.code == 0 && has(row.line, "submit")) CHECK(stored_spec(v2_home, v2).dump() == stored_spec(v1_home, v1).dump());
}

}  // namespace

TEST_CASE("docs/cli.md v1 → v2 table: every command row runs as the v1 verb it names", "[cli][slow]") {
  // The rows whose fourth column says what to expect instead of naming a v1 command.
  const std::map<std::string, std::function<void(const Lanectl&, const RunResult&)>> own = {
      {"training port-forward j1 --port 8080:80",
       [](const Lanectl&, const RunResult& r) {
         CHECK(r.code == 2);
         CHECK(has(r.err, "training port-forward is not supported on the local backend"));
       }},
      {"nodepool list",
       [](const Lanectl&, const RunResult& r) {
         CHECK(r.code == 0);
         CHECK(r.out == "NODEPOOL  NODES  GPUS  ALLOCATED\ndefault   1      2     0\n");
         CHECK(has(r.err, "form one pool, default"));
       }},
  };
  const auto rows = table_rows("Commands");
  CHECK(rows.size() >= 20);
  for (const Row& row : rows) {
    if (!row.v1.empty()) {
      check_row(row);
      continue;
    }
    std::string key;
    for (const auto& w : row.v2) key += (key.empty() ? "" : " ") + w;
    INFO(row.line);
    auto check = own.find(key);
    if (check == own.end()) FAIL("no check for this row of docs/cli.md: add one to this test");
    Lanectl l;
    prepare(l, row);
    check->second(l, l.run(row.v2));
  }
}

TEST_CASE("docs/cli.md v1 → v2 table: every submit flag row stores the spec its v1 twin stores", "[cli][slow]") {
  const auto rows = table_rows("Submit flags");
  CHECK(rows.size() >= 15);
  for (const Row& row : rows) {
    INFO(row.line);
    REQUIRE(!row.v1.empty());
    check_row(row);
  }
}

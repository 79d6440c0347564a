// The Run:AI verbs beyond the job basics on the local backend, through the real binary:
// version, project set, list projects, list nodes / describe node, whoami, top, completion.
#include <catch2/catch.hpp>

#include <fstream>

#include "support/lanectl_runner.h"
#include "lane/version.h"
#include "support/text_has.h"

using lane::test::Lanectl;

namespace {

using lane::test::has;

// Runs `script` in bash; stdout and stderr together.
std::string bash(const std::string& script, const std::filesystem::path& dir) {
  const auto file = dir / "script.sh";
  std::ofstream(file) << script;
  FILE* p = popen(("bash --norc --noprofile '" + file.string() + "' 2>&1").c_str(), "r");
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  pclose(p);
  return out;
}

}  // namespace

TEST_CASE("version prints the CMake project version and the git commit", "[cli][fast]") {
  Lanectl l;
  auto r = l.run({"version"});
  REQUIRE(r.code == 0);
  CHECK(r.out == std::string("Version:    ") + lane::kVersion + "\nGit commit: " + lane::kGitRevision + "\n");
  r = l.run({"version", "-o", "json"});
  REQUIRE(r.code == 0);
  auto doc = nlohmann::json::parse(r.out);
  CHECK(doc["version"] == lane::kVersion);
  CHECK(doc["gitCommit"] == lane::kGitRevision);
  CHECK(l.run({"version", "-o", "xml"}).code == 2);
}

TEST_CASE("project set is Run:AI v2's spelling of config project and list projects uses runai's columns", "[cli][fast]") {
  Lanectl l;
  REQUIRE(l.run({"project", "create", "team-a", "--gpu-quota", "2"}).code == 0);
  auto r = l.run({"project", "set", "team-a"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out == "Project team-a has been set as default project\n");
  CHECK(r.err.empty());  // v2 recommends this spelling: no deprecation note
  CHECK(l.run({"list"}).out.rfind("Showing jobs for project team-a\n", 0) == 0);
  CHECK(l.run({"project", "set", "nosuch"}).code == 2);

  r = l.run({"list", "projects"});
  REQUIRE(r.code == 0);
  CHECK(r.out.rfind("PROJECT  DESERVED GPUs  OVER QUOTA  ALLOCATED GPUs  FAIR SHARE  RUNNING JOBS  PENDING JOBS\n", 0) == 0);
  CHECK(has(r.out, "\nteam-a   2              allowed"));
  // The same data as `project list`, whose JSON it prints too.
  CHECK(l.run({"list", "projects", "-o", "json"}).out == l.run({"project", "list", "-o", "json"}).out);
  r = l.run({"list", "gadgets"});
  CHECK(r.code == 2);
  CHECK(has(r.err, "list projects"));
}

TEST_CASE("list nodes and describe node show the scheduler's nodes", "[cli][fast]") {
  Lanectl l;
  REQUIRE(l.run({"cluster", "set-nodes", "node-a=4", "node-b=2"}).code == 0);
  auto r = l.run({"list", "nodes"});
  REQUIRE(r.code == 0);
  CHECK(r.out == l.run({"cluster", "nodes"}).out);
  CHECK(has(r.out, "node-a  4     0"));
  r = l.run({"describe", "node", "node-b"});
  REQUIRE(r.code == 0);
  CHECK(has(r.out, "NAME:                    node-b\n"));
  CHECK(has(r.out, "GPU ALLOCATABLE:         2\n"));
  CHECK(has(r.out, "ALLOCATED GPUS:          0\n"));
  CHECK(has(r.out, "FREE GPUS:               2\n"));
  CHECK(has(r.out, "READY:                   -\n"));
  auto doc = nlohmann::json::parse(l.run({"describe", "node", "node-a", "-o", "json"}).out);
  CHECK(doc["name"] == "node-a");
  CHECK(doc["gpus"] == 4);
  r = l.run({"describe", "node", "node-z"});
  CHECK(r.code == 1);
  CHECK(has(r.err, "node 'node-z' does not exist; see `lanectl list nodes`"));
}

TEST_CASE("whoami prints the user recorded on jobs", "[cli][fast]") {
  Lanectl l;
  l.set_env("USER", "alice");
  auto r = l.run({"whoami"});
  REQUIRE(r.code == 0);
  CHECK(r.out == "User:            alice\nBackend:         local\n");
  auto doc = nlohmann::json::parse(l.run({"whoami", "-o", "json"}).out);
  CHECK(doc["user"] == "alice");
  CHECK(doc["backend"] == "local");
}

TEST_CASE("top node and top job show GPU allocation with '-' for unknown utilization", "[cli][fast]") {
  Lanectl l;
  REQUIRE(l.run({"cluster", "set-nodes", "node-a=2"}).code == 0);
  auto r = l.run({"top", "node"});
  REQUIRE(r.code == 0);
  CHECK(r.out ==
        "NODE    STATUS  GPUs TOTAL  GPUs ALLOCATED  GPUs FREE  GPU UTIL  GPU MEMORY USAGE  JOBS\n"
        "node-a  -       2           0               2          -         -                 0\n");
  REQUIRE(l.run({"submit", "pending-one", "-i", "busybox", "-g", "4", "--command", "--", "/bin/true"}).code == 2);
  r = l.run({"top", "job"});
  REQUIRE(r.code == 0);
  CHECK(r.out.rfind("Showing jobs for project default\nNAME  PROJECT  USER  TYPE  STATUS  DURATION  NODE  GPU ALLOCATED  "
                    "GPU UTIL  GPU MEMORY ALLOCATED  GPU MEMORY USAGE  CPU ALLOCATED  CPU USAGE  CPU MEMORY ALLOCATED  "
                    "CPU MEMORY USAGE\n",
                    0) == 0);
  r = l.run({"top", "gpus"});
  CHECK(r.code == 2);
  CHECK(has(r.err, "top node"));
}

TEST_CASE("completion bash defines a function bash uses to complete lanectl's subcommands", "[cli][fast]") {
  Lanectl l;
  auto r = l.run({"completion", "bash"});
  REQUIRE(r.code == 0);
  const auto script = l.home() / "lanectl.bash";
  std::ofstream(script) << r.out;
  auto out = bash("source '" + script.string() + "'\n"
                  "complete -p lanectl\n"
                  "COMP_WORDS=(lanectl sub); COMP_CWORD=1; _lanectl; echo \"top: ${COMPREPLY[*]}\"\n"
                  "COMP_WORDS=(lanectl config ''); COMP_CWORD=2; _lanectl; echo \"config: ${COMPREPLY[*]}\"\n"
                  "COMP_WORDS=(lanectl mj --proc); COMP_CWORD=2; _lanectl; echo \"alias: ${COMPREPLY[*]}\"\n"
                  "COMP_WORDS=(lanectl list --all); COMP_CWORD=2; _lanectl; echo \"flag: ${COMPREPLY[*]}\"\n",
                  l.home());
  INFO(out);
  CHECK(has(out, "complete -F _lanectl lanectl\n"));
  CHECK(has(out, "top: submit submit-mpi submit-dist\n"));
  CHECK(has(out, "config: project backend --help -h\n"));
  CHECK(has(out, "alias: --processes\n"));  // `mj` is submit-mpi's alias
  CHECK(has(out, "flag: --all-projects\n"));

  r = l.run({"completion", "zsh"});
  CHECK(r.code == 0);
  CHECK(has(r.out, "bashcompinit"));
  r = l.run({"completion", "fish"});
  CHECK(r.code == 0);
  CHECK(has(r.out, "complete -c lanectl -n '__fish_use_subcommand' -a submit-mpi"));
  CHECK(has(r.out, "complete -c lanectl -n '__fish_seen_subcommand_from submit' -l gpu -s g"));
  r = l.run({"completion", "tcsh"});
  CHECK(r.code == 2);
  CHECK(has(r.err, "bash, zsh or fish"));
}

// Shell completion and the man page, through the real binary: bash's completion function run in
// a real bash against a local home with two jobs (names from `lanectl __complete`), the zsh and
// fish scripts parsed by their shells, the man page rendered by groff.
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>

#include "support/lanectl_runner.h"
#include "support/skip_case.h"
#include "support/text_has.h"
#include "test_paths.h"

using lane::test::Lanectl;

namespace {

using lane::test::has;

struct Shell {
  int code = -1;
  std::string out;  // stdout and stderr together
};

Shell shell(const std::string& command) {
  Shell r;
  FILE* p = popen((command + " 2>&1").c_str(), "r");
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

bool installed(const std::string& program) { return shell("command -v " + program).code == 0; }

// Completes each line of `lines` (the words typed so far, the last one being completed) with the
// bash script `script`, in bash, as lanectl with `l`'s home; prints "<words>: <candidates>" (an empty word prints as nothing).
std::string complete(Lanectl& l, const std::string& script, const std::vector<std::string>& lines) {
  const auto file = l.home() / "complete.sh";
  std::ofstream f(file);
  f << "export LANECTL_HOME='" << l.home().string() << "' LANECTL_BACKEND=local\n"
    << "source '" << script << "'\n"
    << "t() { COMP_WORDS=(\"$@\"); COMP_CWORD=$(($# - 1)); _lanectl; echo \"${*:2}: ${COMPREPLY[*]}\"; }\n";
  const std::string bin = (lane::test::bin_dir() / "lanectl").string();
  for (const auto& words : lines) f << "t '" << bin << "' " << words << "\n";
  f.close();
  return shell("bash --norc --noprofile '" + file.string() + "'").out;
}

}  // namespace

TEST_CASE("bash completion offers the backend's job, project and snapshot names and each verb's subjects",
          "[cli][slow]") {
  Lanectl l;
  REQUIRE(l.run({"cluster", "set-nodes", "node-1=4"}).code == 0);
  REQUIRE(l.run({"project", "create", "vision", "--gpu-quota", "1"}).code == 0);
  for (const char* job : {"train-a", "train-b"})
    REQUIRE(l.run({"submit", job, "-i", "busybox", "-g", "4", "--command", "--", "/bin/sleep", "60"}).code == 0);
  auto r = l.run({"completion", "bash"});
  REQUIRE(r.code == 0);
  const auto script = l.home() / "lanectl.bash";
  std::ofstream(script) << r.out;

  auto out = "\n" + complete(l, script.string(),
                      {"logs ''", "logs train-b", "describe ''", "describe job ''", "delete ''", "attach t",
                       "list ''", "top ''", "logs -p ''", "logs -p vision ''", "restore ''", "completion ''",
                       "submit-mpi --inter", "submit-mpi --mi", "submit --mi", "config ''"});
  INFO(out);
  CHECK(has(out, "\nlogs : train-a train-b\n"));
  CHECK(has(out, "\nlogs train-b: train-b\n"));
  CHECK(has(out, "\ndescribe : job node\n"));
  CHECK(has(out, "\ndescribe job : train-a train-b\n"));
  CHECK(has(out, "\ndelete : job train-a train-b\n"));
  CHECK(has(out, "\nattach t: train-a train-b\n"));
  CHECK(has(out, "\nlist : jobs projects nodes volumes\n"));
  CHECK(has(out, "\ntop : node job\n"));
  CHECK(has(out, "\nlogs -p : default vision\n"));
  CHECK(has(out, "\nlogs -p vision : \n"));  // that project has no jobs
  CHECK(has(out, "\nrestore : \n"));         // no snapshots, and no error text either
  CHECK(has(out, "\ncompletion : bash zsh fish\n"));
  CHECK(has(out, "\nsubmit-mpi --inter: \n"));  // refused there, so never offered
  CHECK(has(out, "\nsubmit-mpi --mi: \n"));
  CHECK(has(out, "\nsubmit --mi: --mig --mig-profile\n"));
  CHECK(has(out, "\nconfig : project backend --help -h\n"));
  l.run({"delete", "train-a", "train-b"});
}

TEST_CASE("__complete prints matching names only, and nothing at all when it cannot answer", "[cli][fast]") {
  Lanectl l;
  REQUIRE(l.run({"project", "create", "vision", "--gpu-quota", "1"}).code == 0);
  auto r = l.run({"__complete", "projects", "vi"});
  CHECK(r.code == 0);
  CHECK(r.out == "vision\n");
  r = l.run({"__complete", "jobs", "--project", "missing"});
  CHECK(r.code == 0);
  CHECK(r.out.empty());
  CHECK(r.err.empty());
  r = l.run({"__complete", "bogus"});
  CHECK(r.code == 0);
  CHECK(r.out.empty());
  r = l.run({"--help"});
  CHECK_FALSE(has(r.out, "__complete"));  // hidden
  CHECK_FALSE(has(r.out, "__man"));
}

TEST_CASE("the zsh and fish completion scripts parse in their shells", "[cli][fast]") {
  Lanectl l;
  int parsed = 0;
  for (const char* sh : {"zsh", "fish"}) {
    if (!installed(sh)) continue;
    auto r = l.run({"completion", sh});
    REQUIRE(r.code == 0);
    const auto file = l.home() / (std::string("lanectl.") + sh);
    std::ofstream(file) << r.out;
    auto parse = shell(std::string(sh) + " -n '" + file.string() + "'");
    INFO(sh << ": " << parse.out);
    CHECK(parse.code == 0);
    ++parsed;
  }
  if (parsed == 0) LANE_SKIP_CASE("neither zsh nor fish is installed (scripts/deps/test)");
}

TEST_CASE("the fish script completes names from __complete and leaves out submit-mpi's refused flags", "[cli][fast]") {
  Lanectl l;
  auto r = l.run({"completion", "fish"});
  REQUIRE(r.code == 0);
  CHECK(has(r.out, "complete -c lanectl -n '__fish_seen_subcommand_from logs' -a ' (lanectl __complete jobs 2>/dev/null)'"));
  CHECK(has(r.out, "-n '__fish_seen_subcommand_from snapshot; and __fish_seen_subcommand_from verify' -a ' (lanectl "
                   "__complete snapshots 2>/dev/null)'"));
  CHECK_FALSE(has(r.out, "-n '__fish_seen_subcommand_from submit-mpi' -l interactive"));
  CHECK_FALSE(has(r.out, "-n '__fish_seen_subcommand_from submit-mpi' -l mig"));
  CHECK(has(r.out, "-n '__fish_seen_subcommand_from submit' -l mig"));
}

TEST_CASE("the man page covers every listed command and renders without groff warnings", "[cli][fast]") {
  Lanectl l;
  auto r = l.run({"__man"});
  REQUIRE(r.code == 0);
  CHECK(r.out.rfind(".\\\" Generated by `lanectl __man`", 0) == 0);
  for (const char* section : {".SS \"lanectl submit\\-mpi\"", ".SS \"lanectl snapshot verify\"", ".SH EXIT STATUS"})
    CHECK(has(r.out, section));
  CHECK_FALSE(has(r.out, "__complete"));
  CHECK_FALSE(has(r.out, "\\-\\-interactive\\fR\nInteractive job: never preempted, limited to the project quota\n.TP\n"
                         "\\fB\\-\\-preemptible"));  // submit-mpi hides it; submit lists it
  if (!installed("groff")) LANE_SKIP_CASE("groff is not installed");
  const auto page = l.home() / "lanectl.1";
  std::ofstream(page) << r.out;
  auto render = shell("LC_ALL=C.UTF-8 groff -man -Tutf8 -ww -z '" + page.string() + "'");
  INFO(render.out);
  CHECK(render.code == 0);
  CHECK(render.out.empty());
}

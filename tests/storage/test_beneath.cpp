// The descriptor primitives every operation on a job-controlled tree goes through
// (common/beneath.h), with openat2 and with the per-component walk used without it: a symlink in
// any component, "..", an absolute path and a /proc magic link are refused; a FIFO is refused
// without blocking; reads are capped; the tree walk and remove_tree never follow a link.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <algorithm>
#include <cerrno>
#include <functional>

#include "common/atomic_file.h"
#include "common/beneath.h"
#include "common/debris.h"
#include "common/error.h"
#include "support/skip_case.h"
#include "tree_util.h"

using namespace lane;
using lane::test::TempDir;
using lane::test::write_text;
namespace fs = std::filesystem;

namespace {

using Opener = std::function<UniqueFd(int, const std::string&, int)>;

std::vector<std::pair<std::string, Opener>> openers() {
  std::vector<std::pair<std::string, Opener>> out;
  out.emplace_back("walk", [](int r, const std::string& p, int f) { return open_beneath_by_walk(r, p, f); });
  if (have_openat2()) out.emplace_back("openat2", [](int r, const std::string& p, int f) { return open_beneath(r, p, f); });
  return out;
}

// A root holding a/b/file, a symlinked directory "link" -> outside, a symlinked file and an
// outside directory with a secret.
struct Tree {
  TempDir tmp{"beneath"};
  fs::path root = tmp.path / "root", outside = tmp.path / "outside";
  Tree() {
    write_text(root / "a/b/file", "inside");
    write_text(outside / "secret", "host secret");
    fs::create_directory_symlink(outside, root / "link");
    fs::create_directory_symlink(outside, root / "a/link");
    fs::create_symlink(outside / "secret", root / "a/b/secret-link");
  }
};

}  // namespace

TEST_CASE("open_beneath opens paths below the root and refuses symlinks in any component, '..' and absolute paths", "[storage][fast]") {
  Tree t;
  UniqueFd root = open_trusted_dir(t.root.string());
  for (const auto& [name, open] : openers()) {
    INFO(name);
    CHECK(open(root.get(), "a/b/file", O_RDONLY).ok());
    CHECK(open(root.get(), "a//b/./file", O_RDONLY).ok());
    CHECK(open(root.get(), "", O_RDONLY | O_DIRECTORY).ok());
    for (const std::string bad : {"link/secret", "a/link/secret", "a/b/secret-link", "link"}) {
      INFO(bad);
      errno = 0;
      CHECK_FALSE(open(root.get(), bad, O_RDONLY).ok());
      CHECK((errno == ELOOP || errno == ENOTDIR));
    }
    for (const std::string bad : {"../outside/secret", "a/../../outside/secret", "a/../a/b/file", "/etc/passwd"}) {
      INFO(bad);
      errno = 0;
      CHECK_FALSE(open(root.get(), bad, O_RDONLY).ok());
      CHECK(errno == EXDEV);
    }
  }
}

TEST_CASE("open_beneath refuses /proc magic links", "[storage][fast]") {
  UniqueFd proc_self(::open("/proc/self", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!proc_self.ok()) LANE_SKIP_CASE("no /proc here");
  for (const auto& [name, open] : openers()) {
    INFO(name);
    CHECK(open(proc_self.get(), "status", O_RDONLY).ok());
    CHECK_FALSE(open(proc_self.get(), "root/etc/passwd", O_RDONLY).ok());
    CHECK_FALSE(open(proc_self.get(), "cwd", O_RDONLY | O_DIRECTORY).ok());
    CHECK_FALSE(open(proc_self.get(), "fd/0", O_RDONLY).ok());
  }
}

TEST_CASE("open_regular_beneath refuses a FIFO without blocking, and read_tail caps what it reads", "[storage][fast]") {
  Tree t;
  REQUIRE(::mkfifo((t.root / "a/fifo").c_str(), 0600) == 0);
  UniqueFd root = open_trusted_dir(t.root.string());
  ::alarm(10);  // a blocking open would hang the test: fail it instead
  CHECK_THROWS_WITH(open_regular_beneath(root.get(), "a/fifo", "the fifo"), Catch::Contains("not a regular file"));
  CHECK_THROWS_WITH(open_regular_beneath(root.get(), "a", "a directory"), Catch::Contains("not a regular file"));
  CHECK_THROWS_WITH(open_regular_beneath(root.get(), "a/b/secret-link", "the link"), Catch::Contains("symbolic link"));
  ::alarm(0);
  write_text(t.root / "big", std::string(1000, 'x') + "tail");
  UniqueFd big = open_regular_beneath(root.get(), "big", "big");
  bool truncated = false;
  CHECK(read_tail(big.get(), 4, "big", &truncated) == "tail");
  CHECK(truncated);
  CHECK(read_tail(big.get(), 1 << 20, "big", &truncated).size() == 1004);
  CHECK_FALSE(truncated);
}

TEST_CASE("walk_tree and remove_tree never follow a symlinked directory", "[storage][fast]") {
  Tree t;
  ::chmod(t.outside.c_str(), 0755);
  write_text(t.root / "a/ro/f", "x");
  ::chmod((t.root / "a/ro").c_str(), 0500);
  UniqueFd root = open_trusted_dir(t.root.string());
  std::vector<std::string> others;
  int dirs = 0;
  TreeVisitor v;
  v.enter_dir = [&](int, const struct stat&) { ++dirs; };
  v.other = [&](int, const char* name, const struct stat&) { others.emplace_back(name); };
  walk_tree(root.get(), v);
  CHECK(dirs == 4);  // root, a, a/b, a/ro
  std::sort(others.begin(), others.end());
  CHECK(others == std::vector<std::string>{"f", "file", "link", "link", "secret-link"});

  ParentDirs parents(root.get());
  std::string leaf;
  CHECK(parents.of("a/b/file", leaf) >= 0);
  CHECK(leaf == "file");
  CHECK_THROWS_WITH(parents.of("link/secret", leaf), Catch::Contains("without following links"));

  remove_tree(t.root);
  CHECK_FALSE(fs::exists(fs::symlink_status(t.root)));
  CHECK(lane::read_file(t.outside / "secret") == "host secret");
  struct stat st {};
  REQUIRE(::stat(t.outside.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0755);
}

TEST_CASE("remove_tree run by an unprivileged user removes directories it may not read (mode 0000)", "[storage][fast]") {
  if (geteuid() != 0) LANE_SKIP_CASE("needs root to switch to an unprivileged user");
  TempDir tmp("beneath-user");
  const fs::path parent = tmp.path / "parent", tree = parent / "tree";
  write_text(tree / "locked/deeper/f", "x");
  for (const auto& p : {parent, tree, tree / "locked", tree / "locked/deeper", tree / "locked/deeper/f"})
    REQUIRE(::chown(p.c_str(), 65534, 65534) == 0);
  ::chmod(tmp.path.c_str(), 0755);
  ::chmod((tree / "locked/deeper").c_str(), 0);
  ::chmod((tree / "locked").c_str(), 0);
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(2);
    remove_tree(tree);
    ::_exit(0);
  }
  CHECK(WEXITSTATUS(lane::test::wait_child(pid)) == 0);
  CHECK_FALSE(fs::exists(fs::symlink_status(tree)));
}

// Issue 28, item 11: secrets that the name rule alone missed (a password in DATABASE_URL, a
// connection string, SSH_PASSPHRASE, GITHUB_PAT, MYSQL_PWD, PASS, a token in a neutral name) are
// masked in every place lanectl shows a job's environment (and command): --dry-run (yaml, json), describe
// (text, yaml, json) and the dashboard's job API; the job still gets the real values.
#include <catch2/catch.hpp>

#include "dashboard/api.h"
#include "submit/local/local_backend.h"
#include "support/lanectl_runner.h"

using lane::test::Lanectl;

namespace {

const char* kClearValues[] = {"pw-in-url-7", "passphrase-7", "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789", "mysql-pw-7",
                              "acct-key-7", "plain-pass-7"};

void check_masked(const std::string& text, const std::string& where) {
  INFO(where << ":\n" << text.substr(0, 4000));
  for (const char* clear : kClearValues) CHECK(text.find(clear) == std::string::npos);
  CHECK(text.find("postgres://u:****@db/app") != std::string::npos);
  CHECK(text.find("visible-7") != std::string::npos);
}

}  // namespace

TEST_CASE("secrets in values and in PASS/PWD/PAT/PASSPHRASE names are masked in dry-run, describe and the dashboard", "[local_backend][fast]") {
  Lanectl l;
  const std::vector<std::string> env{"DATABASE_URL=postgres://u:pw-in-url-7@db/app",
                                     "SSH_PASSPHRASE=passphrase-7",
                                     "NOTE=ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
                                     "MYSQL_PWD=mysql-pw-7",
                                     "AZURE_STORAGE_CONNECTION_STRING=AccountName=a;AccountKey=acct-key-7",
                                     "GITHUB_PAT=ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
                                     "PASS=plain-pass-7",
                                     "PLAIN=visible-7"};
  std::vector<std::string> submit{"submit", "sec", "-i", "x", "--pvc", ":1Mi:/mnt"};
  for (const auto& e : env) submit.insert(submit.end(), {"-e", e});
  const std::vector<std::string> command{"--command", "--", "sh", "-c",
                                         "printf %s \"$DATABASE_URL\" > /mnt/url # postgres://u:pw-in-url-7@db/app"};

  for (const char* format : {"yaml", "json"}) {
    auto dry = submit;
    dry.insert(dry.end(), {"--dry-run", "-o", format});
    dry.insert(dry.end(), command.begin(), command.end());
    auto d = l.run(dry);
    INFO(d.err);
    REQUIRE(d.code == 0);
    check_masked(d.out, std::string("--dry-run -o ") + format);
  }

  submit.insert(submit.end(), command.begin(), command.end());
  REQUIRE(l.run(submit).code == 0);
  REQUIRE(l.wait_status("sec", {"Succeeded", "Failed"}).value("status", "") == "Succeeded");
  for (const char* format : {"text", "yaml", "json"}) {
    std::vector<std::string> args{"describe", "job", "sec"};
    if (std::string(format) != "text") args.insert(args.end(), {"-o", format});
    auto desc = l.run(args);
    REQUIRE(desc.code == 0);
    check_masked(desc.out, std::string("describe ") + format);
  }

  lane::submit::local::LocalBackend backend(l.home());
  lane::dashboard::Api api({backend.jobs(), backend.projects(), backend.cluster(), backend.job_files(), backend.storage()});
  const auto reply = api.get("/api/jobs/default/sec", {});
  REQUIRE(reply.status == 200);
  check_masked(reply.body, "dashboard /api/jobs/default/sec");

  CHECK(lane::test::slurp(l.home() / "volumes" / "pvc-sec-0" / "url") == "postgres://u:pw-in-url-7@db/app");
}

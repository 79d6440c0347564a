// Secret -e values on the local backend (issue 15, item 7): masked in describe (text, -o json,
// -o yaml), in --dry-run output and in lineage, while the job itself receives the real value.
#include <catch2/catch.hpp>

#include "common/secrets.h"
#include "support/lanectl_runner.h"

using lane::test::Lanectl;

namespace {

void check_masked(const std::string& text, const std::string& where) {
  INFO(where << ":\n" << text.substr(0, 4000));
  CHECK(text.find("s3cr3t-api-token") == std::string::npos);
  CHECK(text.find("db-pa55word") == std::string::npos);
  CHECK(text.find("****") != std::string::npos);
}

}  // namespace

TEST_CASE("the one secret-name rule and argv masking cover every -e spelling", "[cli][fast]") {
  CHECK(lane::is_secret_env_name("API_TOKEN"));
  CHECK(lane::is_secret_env_name("azure_client_secret"));
  CHECK(lane::is_secret_env_name("DB_PASSWORD"));
  CHECK_FALSE(lane::is_secret_env_name("BATCH_SIZE"));
  const std::vector<std::string> argv{"submit", "-e",      "API_TOKEN=t1", "-eDB_PASSWORD=t2", "-e=MY_KEY=t3",
                                      "--environment", "SECRET_X=t4", "--environment=AUTH=t5", "-e",
                                      "BATCH_SIZE=33", "-e", "HF_TOKEN=SECRET:hf,token", "--", "-e", "API_TOKEN=arg"};
  const std::vector<std::string> want{"submit", "-e", "API_TOKEN=****", "-eDB_PASSWORD=****", "-e=MY_KEY=****",
                                      "--environment", "SECRET_X=****", "--environment=AUTH=****", "-e",
                                      "BATCH_SIZE=33", "-e", "HF_TOKEN=SECRET:hf,token", "--", "-e", "API_TOKEN=arg"};
  CHECK(lane::mask_secret_argv(argv) == want);
}

TEST_CASE("secret -e values are masked in describe and --dry-run, and the job gets the real value", "[cli][fast]") {
  Lanectl cli;
  const std::vector<std::string> submit{"submit", "sec",  "-i", "ubuntu", "-e", "API_TOKEN=s3cr3t-api-token",
                                        "-e", "DB_PASSWORD=db-pa55word", "-e", "PLAIN=visible", "--pvc", ":1Gi:/mnt",
                                        "--command", "--", "sh", "-c", "printf %s \"$API_TOKEN\" > /mnt/token"};
  auto dry = submit;
  dry.insert(dry.end() - 5, {"--dry-run", "-o", "yaml"});
  auto d = cli.run(dry);
  INFO(d.err);
  REQUIRE(d.code == 0);
  check_masked(d.out, "--dry-run -o yaml");
  CHECK(d.err.find("SECRET:<secret-name>,<key>") != std::string::npos);

  auto r = cli.run(submit);
  INFO(r.err);
  REQUIRE(r.code == 0);
  auto doc = cli.wait_status("sec", {"Succeeded", "Failed"});
  REQUIRE(doc.value("status", "") == "Succeeded");
  check_masked(doc.dump(), "describe -o json");
  for (const char* out : {"text", "yaml", "json"}) {
    std::vector<std::string> args{"describe", "job", "sec"};
    if (std::string(out) != "text") args.insert(args.end(), {"-o", out});
    auto desc = cli.run(args);
    REQUIRE(desc.code == 0);
    if (std::string(out) == "text") {
      INFO(desc.out);
      CHECK(desc.out.find("s3cr3t-api-token") == std::string::npos);
      CHECK(desc.out.find("API_TOKEN=****") != std::string::npos);
    } else {
      check_masked(desc.out, std::string("describe -o ") + out);
    }
  }
  CHECK(lane::test::slurp(cli.home() / "volumes" / "pvc-sec-0" / "token") == "s3cr3t-api-token");
}

// Issue 28, item 11: secrets are masked by value as well as by name (common/secrets.h), so a
// password in a URL, a connection string's key or a known token format never shows in describe,
// -o yaml/json, --dry-run, lineage or the dashboard, whatever the variable is called.
#include <catch2/catch.hpp>

#include "common/secrets.h"

TEST_CASE("secret names: PASS, PWD, PAT, PASSPHRASE and connection strings, not PATH or COMPASS", "[common][fast]") {
  for (const char* name : {"SSH_PASSPHRASE", "GITHUB_PAT", "MYSQL_PWD", "PASS", "db_pass",
                           "AZURE_STORAGE_CONNECTION_STRING", "SERVICEBUS_CONNSTR", "AZURE_SAS", "API_TOKEN"})
    CHECK(lane::is_secret_env_name(name));
  for (const char* name : {"PATH", "COMPASS_DIR", "PATIENCE", "BYPASS_CACHE", "BATCH_SIZE", "DATABASE_URL", "PWDX"})
    CHECK_FALSE(lane::is_secret_env_name(name));
}

TEST_CASE("secret values are masked whatever the variable's name", "[common][fast]") {
  using lane::mask_secret_value;
  CHECK(mask_secret_value("postgres://u:pw@db.example:5432/app") == "postgres://u:****@db.example:5432/app");
  CHECK(mask_secret_value("https://user:p%40ss:word@host/x?y=1") == "https://user:****@host/x?y=1");
  CHECK(mask_secret_value("https://host/path?y=1") == "https://host/path?y=1");
  CHECK(mask_secret_value("Server=tcp:x,1433;User ID=sa;Password=Hunter2!;Encrypt=true") ==
        "Server=tcp:x,1433;User ID=sa;Password=****;Encrypt=true");
  CHECK(mask_secret_value("DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=abc+/def==;"
                          "EndpointSuffix=core.windows.net") ==
        "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=****;EndpointSuffix=core.windows.net");
  CHECK(mask_secret_value("Endpoint=sb://n.servicebus.windows.net/;SharedAccessKeyName=root;SharedAccessKey=k3y=") ==
        "Endpoint=sb://n.servicebus.windows.net/;SharedAccessKeyName=root;SharedAccessKey=****");
  CHECK(mask_secret_value("BlobEndpoint=https://a.blob.core.windows.net/;SharedAccessSignature=sv=2021&sig=abc") ==
        "BlobEndpoint=https://a.blob.core.windows.net/;SharedAccessSignature=****&sig=****");
  CHECK(mask_secret_value("https://a.blob.core.windows.net/c?sv=2021-08-06&se=2030&sig=AbC%2Bd") ==
        "https://a.blob.core.windows.net/c?sv=2021-08-06&se=2030&sig=****");
  const std::string jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
  for (const std::string& token :
       {std::string("ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"), std::string("github_pat_11ABCDEFG0123456789_abcdefghijklmnop"),
        std::string("AKIAIOSFODNN7EXAMPLE"), std::string("xoxb-123456789012-abcdefABCDEF"), jwt}) {
    INFO(token);
    CHECK(mask_secret_value(token) == "****");
    CHECK(mask_secret_value("Bearer " + token) == "Bearer ****");
  }
  const std::string pem = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\nAAAA\n-----END OPENSSH PRIVATE KEY-----\n";
  CHECK(mask_secret_value(pem) == "****\n");
  CHECK(mask_secret_value("-----BEGIN RSA PRIVATE KEY-----\nMIIE (cut)") == "****");
  for (const char* plain : {"visible", "0.025", "/mnt/runs", "tcp://host:80", "a=b;c=d", "ghp_short"})
    CHECK(mask_secret_value(plain) == plain);
}

TEST_CASE("every masking entry point masks by value: env maps, NAME=VALUE words and command lines", "[common][fast]") {
  const std::map<std::string, std::string> env{{"DATABASE_URL", "postgres://u:pw@h/db"},
                                               {"GITHUB_PAT", "anything"},
                                               {"AZURE_STORAGE_CONNECTION_STRING", "AccountName=a;AccountKey=k"},
                                               {"NOTE", "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"},
                                               {"PLAIN", "visible"}};
  const auto masked = lane::mask_secret_env(env);
  CHECK(masked.at("DATABASE_URL") == "postgres://u:****@h/db");
  CHECK(masked.at("GITHUB_PAT") == "****");
  CHECK(masked.at("AZURE_STORAGE_CONNECTION_STRING") == "****");
  CHECK(masked.at("NOTE") == "****");
  CHECK(masked.at("PLAIN") == "visible");
  CHECK(lane::mask_env_assignment("DATABASE_URL=postgres://u:pw@h/db") == "DATABASE_URL=postgres://u:****@h/db");
  CHECK(lane::mask_env_assignment("MYSQL_PWD=pw") == "MYSQL_PWD=****");
  CHECK(lane::mask_env_assignment("GITHUB_PAT=SECRET:gh,pat") == "GITHUB_PAT=SECRET:gh,pat");
  CHECK(lane::is_secret_env("URL", "postgres://u:pw@h/db"));
  CHECK_FALSE(lane::is_secret_env("URL", "postgres://h/db"));

  const auto argv = lane::mask_secret_argv({"submit", "-e", "DATABASE_URL=mysql://root:pw@h/x", "-eSSH_PASSPHRASE=p",
                                            "--", "psql", "postgres://u:pw@h/db", "-e", "API_TOKEN=arg"});
  CHECK(argv == std::vector<std::string>{"submit", "-e", "DATABASE_URL=mysql://root:****@h/x", "-eSSH_PASSPHRASE=****",
                                         "--", "psql", "postgres://u:****@h/db", "-e", "API_TOKEN=arg"});
}

// lanectl as a real process: usage errors exit 2 with a message naming the value and the fix;
// the seed workflow's command line is accepted unchanged.
#include <catch2/catch.hpp>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "support/lanectl_runner.h"

using lane::test::Lanectl;

namespace {

void check_usage_error(const Lanectl& l, const std::vector<std::string>& args, const std::string& needle) {
  auto r = l.run(args);
  INFO("args: " << args[0] << (args.size() > 1 ? " " + args[1] : "") << "\nstderr: " << r.err);
  CHECK(r.code == 2);
  CHECK(r.err.find(needle) != std::string::npos);
}

}  // namespace

TEST_CASE("usage errors exit 2 and name the value and the fix", "[cli][fast]") {
  Lanectl l;
  REQUIRE(l.run({"cluster", "set-nodes", "node-a=2"}).code == 0);
  const std::vector<std::string> cmd = {"--command", "--", "/bin/true"};
  auto with = [&](std::vector<std::string> a) {
    a.insert(a.end(), cmd.begin(), cmd.end());
    return a;
  };
  check_usage_error(l, with({"submit", "Bad_Name", "-i", "x"}), "invalid job name");
  check_usage_error(l, with({"submit", "j1", "-i", "x", "--pvc", "a:b:c:d:e"}), "a:b:c:d:e");
  check_usage_error(l, with({"submit", "j1", "-i", "x", "-g", "1.5"}), "fractional GPU must be below 1");
  check_usage_error(l, with({"submit-mpi", "j1", "-i", "x", "-g", "0.5", "--processes", "2"}), "--processes");
  check_usage_error(l, with({"submit", "j1", "-i", "x", "-p", "nosuch"}), "project create nosuch");
  check_usage_error(l, with({"submit", "j1", "-i", "x", "-g", "3"}), "cluster set-nodes");
  check_usage_error(l, with({"submit", "j1", "-e", "NOEQUALS"}), "--image");
  check_usage_error(l, with({"submit", "j1", "-i", "x", "-e", "NOEQUALS"}), "NAME=VALUE");
  check_usage_error(l, {"submit", "j1", "-i", "not-our-image:1"}, "--command -- CMD");
  check_usage_error(l, {"list", "-o", "table"}, "wide, json or yaml");
  check_usage_error(l, {"logs", "x", "--since", "ten"}, "--since 'ten'");
  check_usage_error(l, {"logs", "x", "--since-time", "yesterday"}, "--since-time 'yesterday': use an RFC 3339 time");
  check_usage_error(l, {"logs", "x", "--since-time", "2999-01-01T00:00:00Z"}, "is in the future");
  check_usage_error(l, {"logs", "x", "--since", "5s", "--since-time", "2021-03-05T16:23:42Z"}, "cannot be combined");
  check_usage_error(l, {"cluster", "set-nodes", "node-a"}, "NAME=GPUS");
  check_usage_error(l, {"submit", "j1", "-i", "x", "--unknown-flag"}, "unknown-flag");
  check_usage_error(l, {"frobnicate"}, "unknown command 'frobnicate'");

  check_usage_error(l, with({"submit", "j1", "-i", "x", "--working-dir", "relative"}),
                    "--working-dir 'relative' is relative");
  check_usage_error(l, {"cluster", "set-nodes", "node-a=1", "node-a=2"}, "node node-a is given twice");
  // An empty value is a mistake, not "no value": nothing is made under a generated name.
  check_usage_error(l, with({"submit", "", "-i", "x"}), "NAME: the value is empty; give a job name");
  check_usage_error(l, with({"submit", "--name", "", "-i", "x"}), "--name: the value is empty");
  check_usage_error(l, {"snapshot", "create", "--pvc", "v", "--name", ""}, "--name: the value is empty");
  CHECK(l.run({"list", "-o", "json"}).out.find("job-1") == std::string::npos);

  // Duplicate job name: the first submit succeeds, the second is refused.
  REQUIRE(l.run(with({"submit", "dup", "-i", "x"})).code == 0);
  check_usage_error(l, with({"submit", "dup", "-i", "x"}), "already exists");
}

TEST_CASE("the seed workflow's command lines run unchanged (dry run of the MPI job)", "[cli][fast]") {
  Lanectl l;
  REQUIRE(l.run({"cluster", "set-nodes", "aks-gpupool-0=1", "aks-gpupool-1=1", "aks-gpupool-2=1"}).code == 0);
  REQUIRE(l.run({"project", "create", "lane-detection", "--gpu-quota", "3"}).code == 0);
  l.track_project("lane-detection");
  auto cfg = l.run({"config", "project", "lane-detection"});
  REQUIRE(cfg.code == 0);
  CHECK(cfg.out == "Project lane-detection has been set as default project\n");

  // The download job creates pvc-download-tusimple-data-0 with the seed's own --pvc (100Gi of the
  // ANF class: provisioned thin locally, whatever the free disk); its real command (a TuSimple
  // download) is replaced here so that the test needs no network.
  auto dl = l.run({"submit", "--name", "download-tusimple-data", "--pvc", "azurenetappfiles:100Gi:/mnt", "--image",
                   "muneer7589/download-tusimple:1.0", "--command", "--", "/bin/true"});
  INFO(dl.err);
  REQUIRE(dl.code == 0);
  CHECK(dl.out.find("The job 'download-tusimple-data' has been submitted successfully") == 0);
  // The seed's lines that follow the download job, verbatim.
  for (const std::vector<std::string>& line :
       std::vector<std::vector<std::string>>{{"list", "jobs"},
                                             {"logs", "download-tusimple-data", "-t", "10"},
                                             {"describe", "job", "download-tusimple-data", "-p", "lane-detection"}}) {
    auto lr = l.run(line);
    INFO(line[0] << " " << line[1] << ": " << lr.err);
    CHECK(lr.code == 0);
  }

  auto r = l.run({"submit-mpi", "--name", "dist-lane-detection-training", "--large-shm", "--processes=3", "--gpu", "1",
                  "--pvc", "pvc-download-tusimple-data-0:/mnt", "--image", "muneer7589/dist-lane-detection:3.1",
                  "-e", "USE_WORKERS=true", "-e", "NUM_WORKERS=4", "-e", "BATCH_SIZE=33", "-e", "USE_VAL=false",
                  "-e", "VAL_BATCH_SIZE=99", "-e", "ENABLE_SNAPSHOT=true", "-e", "PVC_NAME=pvc-download-tusimple-data-0",
                  "--dry-run", "-o", "json"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  auto doc = nlohmann::json::parse(r.out);
  const auto& job = doc["items"].back();
  CHECK(job["kind"] == "LocalJob");
  CHECK(job["project"] == "lane-detection");
  auto argv = job["launch"]["argv"].get<std::vector<std::string>>();
  REQUIRE(argv.size() > 6);
  CHECK(argv[0] == "mpirun");
  CHECK(argv[2] == "3");
  CHECK(std::find(argv.begin(), argv.end(), "--tag-output") != argv.end());
  // The seed's image name maps to the project's own scnn-train image: `scnn-train train`.
  CHECK(argv[argv.size() - 1] == "train");
  CHECK(argv[argv.size() - 2].find("scnn-train") != std::string::npos);
  CHECK(job["launch"]["mounts"][0]["target"] == "/mnt");
  CHECK(job["spec"]["pvcs"][0]["claim"] == "pvc-download-tusimple-data-0");

  // The same line as YAML (the default with --dry-run).
  auto y = l.run({"submit-mpi", "--name", "dist-lane-detection-training", "--processes=3", "--gpu", "1",
                  "--image", "muneer7589/dist-lane-detection:3.1", "--dry-run"});
  REQUIRE(y.code == 0);
  CHECK(y.out.find("kind: LocalJob") != std::string::npos);
  // Nothing was created by the dry runs.
  CHECK(l.run({"describe", "job", "dist-lane-detection-training"}).code == 1);
}

TEST_CASE("a claim larger than the free disk is provisioned thin, with a warning at submit and in describe", "[cli][fast]") {
  Lanectl l;
  // 100Pi is more than any disk this runs on.
  auto r = l.run({"submit", "big", "-i", "x", "--pvc", "fast:100Pi:/data", "--command", "--", "/bin/true"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("The job 'big' has been submitted successfully") == 0);
  CHECK(r.err.find("warning: volume 'pvc-big-0' asks for 100Pi but only ") != std::string::npos);
  CHECK(r.err.find("provisioned thin") != std::string::npos);
  auto d = l.run({"describe", "job", "big", "-o", "json"});
  REQUIRE(d.code == 0);
  auto job = nlohmann::json::parse(d.out);
  bool found = false;
  for (const auto& e : job["events"])
    if (e["reason"] == "ProvisionedThin" && e["type"] == "Warning" && e["source"] == "pvc/pvc-big-0") found = true;
  CHECK(found);
  CHECK(job["spec"]["pvcs"][0]["size"] == "100Pi");
  // A claim that fits says nothing.
  auto small = l.run({"submit", "small", "-i", "x", "--pvc", ":1Mi:/data", "--command", "--", "/bin/true"});
  REQUIRE(small.code == 0);
  CHECK(small.err.find("provisioned thin") == std::string::npos);
}

TEST_CASE("gpu flag: a value that is not a GPU amount is a usage error naming the rule it breaks", "[cli][fast]") {
  auto [value, message] = GENERATE(table<std::string, std::string>({
      {"", "--gpu '' is not a number; use 0, a fraction below 1 (e.g. 0.5) or a whole number"},
      {"abc", "--gpu 'abc' is not a number; use 0, a fraction below 1 (e.g. 0.5) or a whole number"},
      {"1x", "--gpu '1x' is not a number; use 0, a fraction below 1 (e.g. 0.5) or a whole number"},
      {"0.0001", "--gpu 0.0001: the smallest GPU fraction is 0.001; use 0 for no GPU or a fraction from 0.001 (e.g. "
                 "0.5)"},
      {"1e9", "--gpu 1e+09: at most 1000000 GPUs per process; ask for fewer (e.g. --gpu 8)"},
      {"1.5", "--gpu 1.5: a fractional GPU must be below 1 (e.g. 0.5); use a whole number of GPUs above 1"},
  }));
  Lanectl l;
  auto r = l.run({"submit", "j1", "-i", "x", "-g", value, "--dry-run", "--command", "--", "/bin/true"});
  INFO("-g '" << value << "'");
  CHECK(r.code == 2);
  CHECK(r.err == "lanectl: error: " + message + "\n");
}

TEST_CASE("gpu flag: the bounds and ordinary values are accepted", "[cli][fast]") {
  auto value = GENERATE(as<std::string>{}, "0", "0.001", "0.5", "1", "2");
  Lanectl l;
  REQUIRE(l.run({"cluster", "set-nodes", "node-a=2"}).code == 0);
  auto r = l.run({"submit", "j1", "-i", "x", "-g", value, "--dry-run", "-o", "json", "--command", "--", "/bin/true"});
  INFO("-g '" << value << "'\nstderr: " << r.err);
  REQUIRE(r.code == 0);
  CHECK(nlohmann::json::parse(r.out)["items"].back()["spec"]["gpu"] == std::stod(value));
}

TEST_CASE("an unknown project is a usage error (exit 2) for list as for submit, naming project list", "[cli][fast]") {
  Lanectl l;
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"list", "-p", "nope"}, {"list", "jobs", "-p", "nope", "-o", "json"},
        {"submit", "j1", "-i", "x", "-p", "nope", "--command", "--", "/bin/true"}}) {
    auto r = l.run(args);
    INFO("args: " << args[0] << " ...\nstderr: " << r.err);
    CHECK(r.code == 2);
    CHECK(r.err ==
          "lanectl: error: project 'nope' does not exist; create it with `lanectl project create nope --gpu-quota N` "
          "or pick one from `lanectl project list`\n");
    CHECK(r.out.empty());
  }
  // Existing projects list as before: the implicit default, a created one, and all of them.
  CHECK(l.run({"list"}).code == 0);
  REQUIRE(l.run({"project", "create", "p1", "--gpu-quota", "1"}).code == 0);
  l.track_project("p1");
  auto r = l.run({"list", "-p", "p1"});
  CHECK(r.code == 0);
  CHECK(r.out.rfind("Showing jobs for project p1\n", 0) == 0);
  CHECK(l.run({"list", "-A"}).code == 0);
}

TEST_CASE("name rules: a job name starts with a letter, an MPI job's leaves room for its pods, a project for runai-", "[cli][fast]") {
  const std::string mpi_name(55, 'm'), project(58, 'p');
  using Args = std::vector<std::string>;
  auto [args, message] = GENERATE_COPY(table<Args, std::string>({
      {Args{"submit", "1job", "-i", "x", "--dry-run"},
       "invalid job name (--name) '1job': must start with a letter, as Run:AI requires (e.g. 'job-1job')"},
      {Args{"submit", "--job-name-prefix", "2train", "-i", "x", "--dry-run"},
       "invalid --job-name-prefix '2train': must start with a letter, as Run:AI requires (e.g. 'job-2train')"},
      {Args{"submit-mpi", mpi_name, "--processes", "3", "-i", "x", "--dry-run"},
       "invalid job name (--name) '" + mpi_name + "': an MPI job's pods are named " + mpi_name + "-launcher and " +
           mpi_name + "-worker-N, which must fit in 63 characters; with --processes 3 use a name of at most 54 "
           "characters"},
      {Args{"project", "create", project, "--gpu-quota", "1"},
       "invalid project name '" + project + "': at most 57 characters, so that its namespace runai-" + project +
           " fits in 63; use a shorter name"},
      {Args{"list", "-p", project},
       "invalid project (-p) '" + project + "': at most 57 characters, so that its namespace runai-" + project +
           " fits in 63; use a shorter name"},
  }));
  Lanectl l;
  if (args[0].rfind("submit", 0) == 0) args.insert(args.end(), {"--command", "--", "/bin/true"});
  auto r = l.run(args);
  INFO("args: " << args[0] << " " << args[1]);
  CHECK(r.code == 2);
  CHECK(r.err == "lanectl: error: " + message + "\n");
  // Nothing was created: the long project does not exist afterwards.
  CHECK(l.run({"project", "list", "-o", "json"}).out.find(project) == std::string::npos);
}

TEST_CASE("name rules: the longest names that fit are accepted", "[cli][fast]") {
  Lanectl l;
  REQUIRE(l.run({"cluster", "set-nodes", "node-a=2"}).code == 0);
  const std::string project(57, 'p');
  auto r = l.run({"project", "create", project, "--gpu-quota", "1"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  l.track_project(project);
  CHECK(l.run({"list", "-p", project}).code == 0);
  r = l.run({"submit-mpi", std::string(54, 'm'), "--processes", "3", "-i", "x", "-p", project, "--dry-run",
             "--command", "--", "/bin/true"});
  INFO(r.err);
  CHECK(r.code == 0);
  r = l.run({"submit", "--job-name-prefix", "train", "-i", "x", "--dry-run", "--command", "--", "/bin/true"});
  INFO(r.err);
  CHECK(r.code == 0);
}

TEST_CASE("submit-mpi --help lists only what works: no --interactive, whole GPUs", "[cli][fast]") {
  Lanectl l;
  auto verb = GENERATE(as<std::string>{}, "submit-mpi", "mpi", "mj");
  auto help = l.run({verb, "--help"});
  INFO(verb << " --help:\n" << help.out);
  REQUIRE(help.code == 0);
  CHECK(help.out.find("--processes") != std::string::npos);
  CHECK(help.out.find("--interactive") == std::string::npos);
  CHECK(help.out.find("fraction") == std::string::npos);
  // Given anyway, --interactive is refused with its reason.
  auto r = l.run({verb, "j1", "-i", "x", "--interactive", "--dry-run", "--command", "--", "/bin/true"});
  CHECK(r.code == 2);
  CHECK(r.err == "lanectl: error: --interactive is not available for submit-mpi; MPI jobs are training jobs\n");
  // submit still lists both.
  auto single = l.run({"submit", "--help"});
  CHECK(single.out.find("--interactive") != std::string::npos);
  CHECK(single.out.find("a fraction below 1") != std::string::npos);
}

TEST_CASE("submit-mpi --help lists only what works: every listed flag is accepted by a dry run", "[cli][fast]") {
  Lanectl l;
  REQUIRE(l.run({"cluster", "set-nodes", "node-a=2", "node-b=2"}).code == 0);
  REQUIRE(l.run({"project", "set-network", "default", "--allow-host-network"}).code == 0);  // for --host-network
  // A sample use of each flag; a flag --help lists without a sample here fails the test.
  const std::map<std::string, std::vector<std::string>> samples = {
      {"--help", {}}, {"--dry-run", {}}, {"--output", {}}, {"--command", {}}, {"--image", {}},
      {"--name", {"--name", "j1"}}, {"--job-name-prefix", {"--job-name-prefix", "train"}},
      {"--project", {"-p", "default"}}, {"--gpu", {"-g", "2"}}, {"--environment", {"-e", "A=1"}},
      {"--pvc", {"--pvc", ":1Mi:/data"}}, {"--volume", {"-v", "/tmp:/in:ro"}}, {"--args", {"--args", "a"}},
      {"--large-shm", {"--large-shm"}}, {"--shm-size", {"--large-shm", "--shm-size", "1Gi"}},
      {"--cpu", {"--cpu", "1"}}, {"--memory", {"--memory", "1Gi"}}, {"--port", {"--port", "8080"}},
      {"--service-type", {"--port", "8080", "-s", "nodeport"}}, {"--node-type", {"--node-type", "a100"}},
      {"--working-dir", {"--working-dir", "/"}}, {"--processes", {"--processes", "2"}},
      {"--slots-per-worker", {"--slots-per-worker", "2"}},
      {"--non-preemptible", {"--non-preemptible"}}, {"--image-pull-policy", {"--image-pull-policy", "Never"}},
      {"--local-image", {"--local-image"}}, {"--always-pull-image", {"--always-pull-image"}},
      {"--tty", {"-t", "--stdin"}}, {"--stdin", {"--stdin"}}, {"--attach", {"--attach"}},
      {"--backoff-limit", {"--backoff-limit", "2"}}, {"--ttl-after-finish", {"--ttl-after-finish", "1h"}},
      {"--cpu-limit", {"--cpu-limit", "2"}}, {"--memory-limit", {"--memory-limit", "2Gi"}},
      {"--gpu-memory", {"--gpu-memory", "1G"}}, {"--node-pool", {"--node-pool", "a100"}},
      {"--toleration", {"--toleration", "gpu:NoSchedule"}}, {"--run-as-user", {"--run-as-user"}},
      {"--host-ipc", {"--host-ipc"}}, {"--host-network", {"--host-network"}},
      {"--clean-pod-policy", {"--clean-pod-policy", "All"}}, {"--elastic", {"--elastic"}},
      {"--prevent-privilege-escalation", {"--prevent-privilege-escalation"}},
      {"--create-home-dir", {"--create-home-dir"}}, {"--label", {"--label", "team=vision"}},
      {"--annotation", {"--annotation", "note=sweep 3"}}};
  auto help = l.run({"submit-mpi", "--help"});
  REQUIRE(help.code == 0);
  std::istringstream lines(help.out);
  std::string line;
  int listed = 0;
  while (std::getline(lines, line)) {
    auto at = line.find("--");
    if (line.rfind("  -", 0) != 0 || at == std::string::npos) continue;
    std::string flag = line.substr(at, line.find_first_of(" ,", at) - at);
    ++listed;
    INFO("listed flag " << flag);
    auto sample = samples.find(flag);
    if (sample == samples.end()) FAIL("no sample use of " << flag << " in this test: add one");
    std::vector<std::string> args = {"submit-mpi", "-i", "x", "--dry-run", "-o", "json"};
    if (flag != "--job-name-prefix" && flag != "--name") args.push_back("j1");
    args.insert(args.end(), sample->second.begin(), sample->second.end());
    args.insert(args.end(), {"--command", "--", "/bin/true"});
    auto r = l.run(args);
    INFO("stderr: " << r.err);
    CHECK(r.code == 0);
  }
  CHECK(listed >= 20);
}

TEST_CASE("command-line library errors read like ours: prefix, flag named, order kept, did you mean", "[cli][slow]") {
  using Args = std::vector<std::string>;
  auto [args, message] = GENERATE(table<Args, std::string>({
      {Args{"sumbit", "foo"}, "unknown command 'sumbit'; did you mean 'submit'?"},
      {Args{"lisst"}, "unknown command 'lisst'; did you mean 'list'?"},
      {Args{"frobnicate"}, "unknown command 'frobnicate'; see `lanectl --help` for the commands"},
      {Args{"project", "crate", "x"}, "unknown command 'crate' for `lanectl project`; did you mean 'create'?"},
      {Args{"project"}, "`lanectl project` needs a command: create, list, delete, set-quota, set-network, set; see `lanectl project --help`"},
      {Args{"submit", "j1", "-i", "x", "--gpus", "1"}, "unknown flag '--gpus' for `lanectl submit`; did you mean '--gpu'?"},
      {Args{"submit", "j1", "-i", "x", "--procesess=2"},
       "unknown flag '--procesess' for `lanectl submit`; see `lanectl submit --help`"},  // submit-mpi's, not submit's
      {Args{"submit-mpi", "j1", "-i", "x", "--procesess=2"},
       "unknown flag '--procesess' for `lanectl submit-mpi`; did you mean '--processes'?"},
      {Args{"list", "-x"}, "unknown flag '-x' for `lanectl list`; see `lanectl list --help`"},
      {Args{"submit", "j1", "k2", "l3", "-i", "x"},
       "`lanectl submit` does not take the arguments 'k2' 'l3' (in the order given); see `lanectl submit --help`"},
      {Args{"submit-mpi", "j1", "-i", "x", "--processes", "abc"},
       "--processes 'abc' is not a whole number; see `lanectl submit-mpi --help`"},
      {Args{"project", "create", "p", "--gpu-quota", "x"},
       "--gpu-quota 'x' is not a number of GPUs; use a decimal number from 0 to 1000000 (e.g. 4 or 0.5)"},
      {Args{"logs"}, "`lanectl logs` needs NAME; see `lanectl logs --help`"},
      {Args{"submit", "j1", "-i", "x", "-p"}, "--project needs a value; see `lanectl submit --help`"},
      {Args{"list", "--context"},
       "--context needs a value: the name of a kubeconfig context (kubectl config get-contexts)"},
      {Args{"--kubeconfig"}, "--kubeconfig needs a value: the path of a kubeconfig file"},
      // Flags before the command: a typo of a global flag, or a command's flag in the wrong place.
      {Args{"--contxt", "aks", "list"}, "unknown flag '--contxt' for `lanectl`; did you mean '--context'?"},
      {Args{"-p", "team", "list"},
       "unknown flag '-p' for `lanectl`; a command's flags go after the command (`lanectl COMMAND -p ...`); see "
       "`lanectl --help`"},
      {Args{"--gpu", "1", "submit"},
       "unknown flag '--gpu' for `lanectl`; a command's flags go after the command (`lanectl COMMAND --gpu ...`); "
       "see `lanectl --help`"},
      {Args{"project", "--gpu-quota", "2", "create", "p"},
       "unknown flag '--gpu-quota' for `lanectl project`; a command's flags go after the command (`lanectl project "
       "COMMAND --gpu-quota ...`); see `lanectl project --help`"},
  }));
  Lanectl l;
  auto r = l.run(args);
  INFO("args: " << args[0]);
  CHECK(r.code == 2);
  CHECK(r.err == "lanectl: error: " + message + "\n");
  CHECK(r.out.empty());
}

TEST_CASE("help and version flags still exit 0 on stdout", "[cli][fast]") {
  Lanectl l;
  auto help = l.run({"--help"});
  CHECK(help.code == 0);
  CHECK(help.err.empty());
  // The global Kubernetes flags are listed (the kubeconfig error suggests --context).
  CHECK(help.out.find("--context") != std::string::npos);
  CHECK(help.out.find("--kubeconfig") != std::string::npos);
  CHECK(l.run({"submit", "--help"}).code == 0);
  auto version = l.run({"--version"});
  CHECK(version.code == 0);
  CHECK(version.out.rfind("lanectl ", 0) == 0);
}

TEST_CASE("global flags: --context and --kubeconfig are accepted anywhere before --, the local backend says it ignores them", "[cli][fast]") {
  Lanectl l;
  auto r = l.run({"--context", "aks", "list", "--kubeconfig=/nonexistent"});
  CHECK(r.code == 0);
  CHECK(r.out.rfind("Showing jobs for project default\n", 0) == 0);
  CHECK(r.err ==
        "warning: --context and --kubeconfig choose the Kubernetes cluster; the local backend ignores them "
        "(`lanectl config backend kubernetes` uses them)\n");
}

TEST_CASE("lanectl __training-snapshot, which scnn-train runs at the end of training, checks its input", "[cli][fast]") {
  Lanectl l;
  auto r = l.run({"__training-snapshot"});
  CHECK(r.code == 2);
  CHECK(r.err.find("usage: lanectl __training-snapshot --output-dir DIR") != std::string::npos);
  CHECK(l.run({"__training-snapshot", "--output-dir"}).code == 2);
  CHECK(l.run({"__training-snapshot", "--output-dir", "/tmp/x", "--unknown", "y"}).code == 2);
  // No ENABLE_SNAPSHOT: nothing to do, nothing printed.
  r = l.run({"__training-snapshot", "--output-dir", (l.home() / "runs").string(), "--code-version", "abc1234"});
  CHECK(r.code == 0);
  CHECK(r.out.empty());
  // ENABLE_SNAPSHOT=true without the claim: the seed's variable named, exit 2.
  l.set_env("ENABLE_SNAPSHOT", "true");
  l.set_env("PVC_NAME", "");
  check_usage_error(l, {"__training-snapshot", "--output-dir", (l.home() / "runs").string()}, "PVC_NAME");
}

TEST_CASE("a project's --gpu-quota is a decimal number from 0 to 1000000, and a refused one changes nothing",
          "[cli][fast]") {
  Lanectl l;
  for (const std::string bad : {"inf", "nan", "", "0x10", "1e400", "-1", " 4", "1.2.3", "."})
    check_usage_error(l, {"project", "create", "p", "--gpu-quota", bad}, "--gpu-quota '" + bad + "' is not a number");
  check_usage_error(l, {"project", "create", "p", "--gpu-quota", "2000000"}, "use a number from 0 to 1000000");
  check_usage_error(l, {"project", "create", "p", "--gpu-quota", "99999999999999999999"}, "from 0 to 1000000");
  REQUIRE(l.run({"project", "create", "p", "--gpu-quota", "0.5"}).code == 0);
  check_usage_error(l, {"project", "set-quota", "p", "--gpu-quota", "inf"}, "--gpu-quota 'inf' is not a number");
  check_usage_error(l, {"project", "set-quota", "default", "--gpu-quota", "1000001"}, "from 0 to 1000000");
  REQUIRE(l.run({"project", "create", "q", "--gpu-quota", "1000000"}).code == 0);
  // The other projects still list and take jobs (a quota out of range once broke both).
  auto list = l.run({"project", "list"});
  CHECK(list.code == 0);
  CHECK(list.out.find("p ") != std::string::npos);
  CHECK(l.run({"submit", "after", "-i", "x", "--command", "--", "/bin/true"}).code == 0);
}

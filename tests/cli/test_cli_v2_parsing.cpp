// The Run:AI v2 spellings in-process (run_cli with an in-memory backend): what each v2 submit flag
// stores, its own rules, the v2 spellings refused on v1 verbs with "did you mean", `mpi submit`,
// unknown v2 commands, and the grouped --help with examples of the submit verbs.
#include <catch2/catch.hpp>

#include "fake_backend.h"
#include "submit/core/workload_json.h"
#include "support/text_has.h"

using lane::test::FakeBackend;
using lane::test::run_in_process;

namespace {

using Args = std::vector<std::string>;

using lane::test::has;

// The spec `args` submit (job j2 unless the args name none), without its command line.
nlohmann::json submitted_spec(Args args) {
  FakeBackend b;
  auto r = run_in_process(b, args);
  INFO(r.err);
  REQUIRE(r.code == 0);
  REQUIRE(b.jobs_by_key.size() == 1);
  nlohmann::json spec = lane::submit::spec_to_json(b.jobs_by_key.begin()->second.spec);
  spec.erase("cliArgv");
  return spec;
}

Args with(Args verb, const Args& flags) {
  verb.insert(verb.end(), {"-i", "x"});
  verb.insert(verb.end(), flags.begin(), flags.end());
  verb.insert(verb.end(), {"--command", "--", "true"});
  return verb;
}

}  // namespace

TEST_CASE("v2 submit flags store what their v1 twins store", "[cli][fast]") {
  const std::vector<std::pair<Args, Args>> twins = {
      {{"--gpu-devices-request", "2"}, {"-g", "2"}},
      {{"--gpu-portion-request", "0.5"}, {"-g", "0.5"}},
      {{"--gpu-portion-request", "1"}, {"-g", "1"}},
      {{"--gpu-memory-request", "4G"}, {"--gpu-memory", "4G"}},
      {{"--cpu-core-request", "1.5"}, {"--cpu", "1.5"}},
      {{"--cpu-memory-request", "3Gi"}, {"--memory", "3Gi"}},
      {{"--cpu-core-limit", "2"}, {"--cpu-limit", "2"}},
      {{"--cpu-memory-limit", "4Gi"}, {"--memory-limit", "4Gi"}},
      {{"--existing-pvc", "claimname=data,path=/data"}, {"--pvc", "data:/data"}},
      {{"--existing-pvc", "path=/data,ro,claimname=data"}, {"--pvc", "data:/data:ro"}},
      {{"--new-pvc", "storageclass=fast,size=2Gi,path=/d,ro"}, {"--pvc", "fast:2Gi:/d:ro"}},
      {{"--new-pvc", "size=2Gi,path=/d,accessmode-rwo"}, {"--pvc", ":2Gi:/d"}},
      {{"--host-path", "path=/srv,mount=/in"}, {"-v", "/srv:/in:ro"}},
      {{"--host-path", "path=/srv,mount=/in,readwrite,mount-propagation=None"}, {"-v", "/srv:/in"}},
      {{"--port", "container=80,service-type=NodePort"}, {"--port", "80", "-s", "nodeport"}},
      {{"--port", "container=80,external=8080,service-type=ClusterIP"}, {"--port", "8080:80", "-s", "portforward"}},
      {{"--port", "container=80"}, {"--port", "80"}},
      {{"--port", "8080:80"}, {"--port", "8080:80"}},  // the v1 form works on v2 verbs too
      {{"--external-url", "container=8888"}, {"--port", "8888", "-s", "ingress"}},
      {{"--node-pools", "a100"}, {"--node-pool", "a100"}},
      {{"--auto-deletion-time-after-completion", "90m"}, {"--ttl-after-finish", "90m"}},
      {{"--name-prefix", "train"}, {"--job-name-prefix", "train"}},
  };
  for (const auto& [v2, v1] : twins) {
    INFO(v2[0] << " " << v2[1]);
    Args name = v2[0] == "--name-prefix" ? Args{} : Args{"j2"};
    Args v2_args = {"training", "submit"}, v1_args = {"submit"};
    v2_args.insert(v2_args.end(), name.begin(), name.end());
    v1_args.insert(v1_args.end(), name.begin(), name.end());
    nlohmann::json v2_spec = submitted_spec(with(v2_args, v2));
    if (v2[0] == "--existing-pvc") {  // the one difference: the claim must exist (--pvc creates it locally)
      CHECK(v2_spec["pvcs"][0]["mustExist"] == true);
      v2_spec["pvcs"][0].erase("mustExist");
    }
    CHECK(v2_spec.dump() == submitted_spec(with(v1_args, v1)).dump());
  }
  // -c is --command; --workers is --processes; workspace submit is submit --interactive.
  CHECK(submitted_spec({"training", "submit", "j2", "-i", "x", "-c", "--", "sleep", "1"}).dump() ==
        submitted_spec({"submit", "j2", "-i", "x", "--command", "--", "sleep", "1"}).dump());
  CHECK(submitted_spec(with({"training", "mpi", "submit", "j2"}, {"--workers", "3", "--gpu-devices-request", "1"})).dump() ==
        submitted_spec(with({"submit-mpi", "j2"}, {"--processes", "3", "-g", "1"})).dump());
  CHECK(submitted_spec(with({"workspace", "submit", "j2"}, {})).dump() ==
        submitted_spec(with({"submit", "j2"}, {"--interactive"})).dump());
  // A named new claim keeps its name.
  auto spec = submitted_spec(with({"training", "submit", "j2"}, {"--new-pvc", "claimname=scratch,size=1Gi,path=/s"}));
  CHECK(spec["pvcs"][0]["claim"] == "scratch");
  CHECK(spec["pvcs"][0]["create"] == true);
}

TEST_CASE("v2 submit flags refuse what lanectl cannot honour, naming the part and the form", "[cli][fast]") {
  const std::vector<std::pair<Args, std::string>> refused = {
      {{"--gpu-devices-request", "0.5"}, "--gpu-devices-request 0.5: a whole number of GPUs; for a part of one GPU use --gpu-portion-request 0.5"},
      {{"--gpu-portion-request", "2"}, "--gpu-portion-request 2: a portion of one GPU, above 0 and at most 1"},
      // Messages name the v2 flag that was given, not -g/--gpu.
      {{"--gpu-devices-request", "abc"}, "--gpu-devices-request 'abc' is not a number; use a whole number of GPUs"},
      {{"--gpu-portion-request", "half"}, "--gpu-portion-request 'half' is not a number; use a portion of one GPU"},
      {{"--new-pvc", "size=1Gi,path=/d,accessmode-rwm"}, "--new-pvc 'size=1Gi,path=/d,accessmode-rwm': 'accessmode-rwm' is not supported"},
      {{"--new-pvc", "size=1Gi,path=/d,ephemeral"}, "'ephemeral' is not supported"},
      {{"--new-pvc", "path=/d"}, "--new-pvc 'path=/d': size= is missing; use --new-pvc [claimname=CLAIM,]"},
      {{"--new-pvc", "size=100,path=/d"}, "--new-pvc 'size=100,path=/d': "},
      {{"--existing-pvc", "claimname=data"}, "--existing-pvc 'claimname=data': path= is missing"},
      {{"--existing-pvc", "claimname=data,path=rel"}, "the path 'rel' must be absolute"},
      {{"--existing-pvc", "claim=data,path=/d"}, "unknown part 'claim=data'"},
      {{"--existing-pvc", "claimname=a,claimname=b,path=/d"}, "'claimname' is given twice"},
      {{"--host-path", "path=/srv,mount=/in,mount-propagation=HostToContainer"}, "mount-propagation=HostToContainer is not supported"},
      {{"--port", "container=80,service-type=Ingress"}, "service-type=Ingress is not NodePort, LoadBalancer or ClusterIP"},
      {{"--port", "container=99999"}, "container=99999 is not a port from 1 to 65535"},
      {{"--port", "container=80,service-type=NodePort", "--port", "container=81,service-type=LoadBalancer"},
       "--port container=80,service-type=NodePort and --port container=81,service-type=LoadBalancer ask for two Service types"},
      {{"--port", "container=80,service-type=NodePort", "--external-url", "container=81"}, "ask for two Service types"},
      {{"--external-url", "container=80,url=https://x.example"}, "'url' is not supported"},
      {{"--node-pools", "a,b"}, "--node-pools 'a,b': lanectl schedules a job on one node pool"},
      {{"--new-pvc", "claimname=Bad_Name,size=1Gi,path=/d"}, "--pvc #1 new claim name (--new-pvc claimname=)"},
      {{"--cpu", "1", "--cpu-core-request", "2"},
       "lanectl: error: --cpu-core-request and --cpu both set the same field of the job; give one of them\n"},
      {{"--gpu-devices-request", "1", "--gpu-portion-request", "0.5"},
       "--gpu-devices-request and --gpu-portion-request both set the same field of the job"},
      {{"-g", "1", "--gpu-devices-request", "1"}, "--gpu-devices-request and --gpu both set"},
      {{"--pvc", "d:/d", "--existing-pvc", "claimname=e,path=/e"}, "--existing-pvc and --pvc both set"},
  };
  for (const auto& [flags, message] : refused) {
    INFO(flags[0] << " " << flags[1]);
    FakeBackend b;
    auto r = run_in_process(b, with({"training", "submit", "j2"}, flags));
    CHECK(r.code == 2);
    CHECK(has(r.err, message));
    CHECK(b.calls.empty());
  }
}

TEST_CASE("v2 spellings on v1 verbs are refused with the v1 spelling to use", "[cli][fast]") {
  const std::vector<std::pair<std::string, std::string>> twins = {
      {"--gpu-devices-request", "-g/--gpu N"}, {"--gpu-portion-request", "-g/--gpu FRACTION"},
      {"--gpu-memory-request", "--gpu-memory"}, {"--cpu-core-request", "--cpu"}, {"--cpu-memory-request", "--memory"},
      {"--existing-pvc", "--pvc CLAIM:PATH[:ro]"}, {"--new-pvc", "--pvc [STORAGECLASS]:SIZE:PATH[:ro]"},
      {"--host-path", "-v HOST:CONTAINER[:ro]"}, {"--external-url", "--port N -s ingress"},
      {"--name-prefix", "--job-name-prefix"}, {"--node-pools", "--node-pool"},
      {"--auto-deletion-time-after-completion", "--ttl-after-finish"}};
  for (const std::string verb : {"submit", "submit-mpi"}) {
    for (const auto& [v2, v1] : twins) {
      FakeBackend b;
      auto r = run_in_process(b, {verb, "j2", "-i", "x", v2, "1", "--command", "--", "true"});
      INFO(r.err);
      CHECK(r.code == 2);
      CHECK(r.err == "lanectl: error: unknown flag '" + v2 + "' for `lanectl " + verb + "`; did you mean '" + v1 +
                         "'? (" + v2 + " is Run:AI v2's spelling, taken by the v2 verbs: `lanectl training submit`, "
                         "`lanectl training mpi submit`, `lanectl workspace submit`)\n");
      CHECK(b.calls.empty());
    }
  }
  FakeBackend b;
  for (const std::string workers : {"0", "-1", "2x"}) {  // v2's own verb names its own flag
    auto r = run_in_process(b, {"training", "mpi", "submit", "j2", "-i", "x", "--workers", workers, "-c", "--", "true"});
    CHECK(r.code == 2);
    CHECK(has(r.err, "--workers: '" + workers + "': use 1 or more workers (e.g. --workers 2)"));
    CHECK_FALSE(has(r.err, "--processes"));
  }
  CHECK(b.calls.empty());
  auto r = run_in_process(b, {"submit-mpi", "j2", "-i", "x", "--workers", "3", "--command", "--", "true"});
  CHECK(r.code == 2);
  CHECK(has(r.err, "unknown flag '--workers' for `lanectl submit-mpi`; did you mean '--processes'?"));
  r = run_in_process(b, {"submit", "j2", "-i", "x", "--workers", "3", "--command", "--", "true"});
  CHECK(r.code == 2);
  CHECK(has(r.err, "did you mean `lanectl submit-mpi --processes`?"));
  r = run_in_process(b, {"submit", "j2", "-i", "x", "-c", "--", "true"});
  CHECK(r.code == 2);
  CHECK(has(r.err, "unknown flag '-c' for `lanectl submit`; did you mean '--command'?"));
  CHECK(b.calls.empty());
}

TEST_CASE("mpi submit is the v2 MPI verb, never an MPI job named submit", "[cli][fast]") {
  FakeBackend b;
  auto r = run_in_process(b, {"mpi", "submit", "-i", "x", "--workers", "2", "-c", "--", "true"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  REQUIRE(b.calls == std::vector<std::string>{"submit default/job-1"});
  CHECK(b.jobs_by_key.at("default/job-1").spec.type == lane::submit::JobType::kMpi);
  CHECK(b.jobs_by_key.at("default/job-1").spec.processes == 2);
  r = run_in_process(b, {"mpi", "submit", "named", "-i", "x", "-c", "--", "true"});
  CHECK(r.code == 0);
  CHECK(b.calls.back() == "submit default/named");
  // `mpi` alone stays submit-mpi's alias.
  r = run_in_process(b, {"mpi", "other", "-i", "x", "--processes", "2", "--command", "--", "true"});
  CHECK(r.code == 0);
  CHECK(b.calls.back() == "submit default/other");
}

TEST_CASE("unknown v2 commands get did you mean, and a v2 group alone lists its commands", "[cli][fast]") {
  FakeBackend b;
  const std::vector<std::pair<Args, std::string>> cases = {
      {{"training", "sumbit"}, "lanectl: error: unknown command 'sumbit' for `lanectl training`; did you mean 'submit'?\n"},
      {{"workload", "lsit"}, "lanectl: error: unknown command 'lsit' for `lanectl workload`; did you mean 'list'?\n"},
      {{"trainig", "list"}, "lanectl: error: unknown command 'trainig'; did you mean 'training'?\n"},
      {{"nodepool"}, "lanectl: error: `lanectl nodepool` needs a command: list; see `lanectl nodepool --help`\n"},
      {{"training", "mpi"}, "lanectl: error: `lanectl training mpi` needs a command: submit; see `lanectl training mpi --help`\n"},
  };
  for (const auto& [args, message] : cases) {
    auto r = run_in_process(b, args);
    CHECK(r.code == 2);
    CHECK(r.err == message);
  }
}

TEST_CASE("v2 commands run the v1 verbs: list, describe, delete, logs", "[cli][fast]") {
  FakeBackend b;
  b.add_job("default", "train-a", lane::submit::JobStatus::kRunning, 1);
  CHECK(run_in_process(b, {"training", "list"}).out == run_in_process(b, {"list", "jobs"}).out);
  CHECK(run_in_process(b, {"workload", "describe", "train-a", "-o", "json"}).out ==
        run_in_process(b, {"describe", "job", "train-a", "-o", "json"}).out);
  auto r = run_in_process(b, {"training", "delete", "train-a"});
  CHECK(r.code == 0);
  CHECK(b.calls == std::vector<std::string>{"delete default/train-a"});
  r = run_in_process(b, {"training", "exec", "gone", "--", "true"});
  CHECK(r.out == "exec in default/gone\n");
  CHECK(r.code == 7);
}

TEST_CASE("submit verbs' --help groups the flags and ends with examples", "[cli][fast]") {
  FakeBackend b;
  for (const Args& verb : {Args{"submit"}, Args{"submit-mpi"}, Args{"training", "submit"},
                           Args{"training", "mpi", "submit"}, Args{"workspace", "submit"}}) {
    Args help = verb;
    help.push_back("--help");
    auto r = run_in_process(b, help);
    INFO(r.out);
    CHECK(r.code == 0);
    for (const char* group : {"Job:", "Resources:", "Storage:", "Networking:", "Scheduling:", "Environment:", "Output:"})
      CHECK(has(r.out, std::string("\n") + group + "\n"));
    CHECK(has(r.out, "\nExamples:\n  lanectl " + verb[0]));
    const bool v2 = verb[0] != "submit" && verb[0] != "submit-mpi";
    CHECK(has(r.out, "--existing-pvc") == v2);
    CHECK(has(r.out, "--host-path") == v2);
    CHECK(has(r.out, "--pvc ") != v2);
    CHECK(has(r.out, "-g,--gpu") != v2);
    CHECK(has(r.out, "--gpu-devices-request") == v2);
  }
  auto r = run_in_process(b, {"training", "mpi", "submit", "--help"});
  CHECK(has(r.out, "\nDistributed:\n"));
  CHECK(has(r.out, "--workers"));
  CHECK(!has(r.out, "--processes"));
  CHECK(!has(r.out, "--gpu-portion-request"));
}

TEST_CASE("every example in the submit verbs' --help is accepted by a dry run", "[cli][fast]") {
  FakeBackend b;
  for (const Args& verb : {Args{"submit"}, Args{"submit-mpi"}, Args{"training", "submit"},
                           Args{"training", "mpi", "submit"}, Args{"workspace", "submit"}}) {
    Args help = verb;
    help.push_back("--help");
    std::istringstream lines(run_in_process(b, help).out);
    int examples = 0;
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("  lanectl ", 0) != 0) continue;
      ++examples;
      std::istringstream in(line);
      Args args;
      for (std::string w; in >> w;) args.push_back(w);
      args.erase(args.begin());  // lanectl
      args.insert(args.begin() + static_cast<long>(verb.size()), "--dry-run");
      INFO(line);
      auto r = run_in_process(b, args);
      INFO(r.err);
      CHECK(r.code == 0);
    }
    CHECK(examples >= 2);
  }
  CHECK(b.calls.empty());
}

#!/usr/bin/env python3
"""scripts/gpu-check's results file, phase bookkeeping and phases, on any machine (no GPU, no torch).

1. `scripts/gpu-check --device cpu --phases env,bundle --bundle-file MISSING --out TMP`: the results
   file is valid JSON, finished, every phase listed once in order with a status, a number of
   seconds and its budget (ctest-gpu at least 90 s, bench-compile last, a total of 470 s); env
   passed or failed (python3 may lack torch here) with a reason when it failed; bundle failed
   naming the missing file; the phases not selected skipped with that reason; the log written;
   exit status 1 (a phase failed). An unknown phase and an unknown option exit 2.
2. A stand-in CUDA build (shell scripts for scnn-train, scnn-train-core, test_gpu and bench_train_step; a stub
   `torch` module for python3) made into a bundle with `--bundle`, then run with
   `--phases ctest-gpu,e2e,bench-cpp --budget-scale 2`: the bundle's CTestTestfile skips by
   LANE_TEST_SKIPPED and not by an exit status, so a case that fails with exit 4 is Failed and
   a case that prints the marker is Skipped; e2e records predict's steady time per image and its
   first image apart; bench-cpp runs the plan's fixed batch and its batch list and records each
   planned row measured or out of memory; the summary table shows both; the budgets are doubled.
3. The same with a bench that reads `--batch 3,4` as 3 (built before the list): bench-cpp fails
   naming the row that is missing.

    check_gpu_check.py REPO_ROOT
"""
import json
import os
import stat
import subprocess
import sys
import tempfile

PHASES = ["env", "bundle", "ctest-gpu", "e2e", "bench-cpp", "bench-eager", "trace", "trainer", "bench-compile"]

# A stub torch for the env phase: a version, no CUDA.
TORCH_STUB = '''__version__ = "0.0.0+stub"
class version:
    cuda = None
class backends:
    class cudnn:
        @staticmethod
        def is_available():
            return False
class cuda:
    @staticmethod
    def is_available():
        return False
'''

SCNN_TRAIN = r'''#!/usr/bin/env bash
# Stand-in for scnn-train: what scripts/gpu-check's e2e phase reads of each verb.
verb=$1; shift
out=""
while (($#)); do case "$1" in --out|--output-dir) out=$2; shift ;; esac; shift; done
case "$verb" in
  --version) echo "scnn-train 0.1.0 (stand-in)" ;;
  synth) mkdir -p "$out" ;;
  train) mkdir -p "$out"
         printf '{"kind":"train","step":1,"loss":0.9}\n{"kind":"train","step":2,"loss":0.5}\n' >"$out/metrics.jsonl"
         echo "epoch 1/1 step 2/2 loss 0.5 12.50 img/s" ;;
  predict) mkdir -p "$out"
           printf 'a.jpg: 2 lanes, 3675.0 ms\nb.jpg: 2 lanes, 7.0 ms\nc.jpg: 2 lanes, 9.0 ms\n'
           echo "3 images, 8.0 ms per image after a 3675.0 ms first image (network + post-processing, cpu); wrote $out" ;;
  eval) echo '[{"name":"Accuracy","order":"desc","value":0.9},{"name":"FP","order":"asc","value":0.05},{"name":"FN","order":"asc","value":0.04}]' ;;
esac
'''

# Three cases: one passes, one skips itself the way every lane test does, one fails 4 assertions
# (Catch2 v2's exit status: the number of failures).
TEST_GPU = r'''#!/usr/bin/env bash
case "$1" in
  --list-test-names-only) printf 'a case that passes\na case that skips itself\na case that fails four assertions\n' ;;
  "a case that passes") echo "All tests passed" ;;
  "a case that skips itself") echo "LANE_TEST_SKIPPED: needs 1 visible GPU(s), found 0" ;;
  *) echo "test cases: 1 | 1 failed; assertions: 4 | 4 failed"; exit 4 ;;
esac
'''

# bench_train_step with --json and --batch as a list; batch 4 runs out of memory. FAKE_OLD_BENCH=1:
# a bench from before the list, which reads "3,4" as 3.
BENCH = r'''#!/usr/bin/env bash
prec="" batch="" json="" size=""
while (($#)); do
  case "$1" in --precision) prec=$2; shift ;; --batch) batch=$2; shift ;; --json) json=$2; shift ;; --sizes) size=$2; shift ;; esac
  shift
done
[ -n "${FAKE_OLD_BENCH:-}" ] && batch=${batch%%,*}
for b in ${batch//,/ }; do
  for p in ${prec//,/ }; do
    if [ "$b" = 4 ]; then
      echo "$size $p $b out of memory"
      row="{\"kind\":\"step\",\"input\":\"$size\",\"precision\":\"$p\",\"batch\":$b,\"error\":\"out of memory\"}"
    else
      echo "$size $p $b 0.1 $((b * 10))"
      row="{\"kind\":\"step\",\"input\":\"$size\",\"precision\":\"$p\",\"batch\":$b,\"s_per_step\":0.1,\"img_per_s\":$((b * 10))}"
    fi
    [ -z "$json" ] || echo "$row" >>"$json"
  done
done
'''


def write(path, text, executable=False):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    if executable:
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def stand_in_build(root, repo):
    """A build folder as scripts/build-cuda leaves it, with stand-ins for the binaries."""
    build = os.path.join(root, "build")
    torch_dir = os.path.join(root, "torch", "share", "cmake", "Torch")
    write(os.path.join(torch_dir, "TorchConfigVersion.cmake"), 'set(PACKAGE_VERSION "0.0.0+stub")\n')
    write(os.path.join(build, "CMakeCache.txt"), "Torch_DIR:PATH=%s\nCMAKE_HOME_DIRECTORY:INTERNAL=%s\n" % (torch_dir, repo))
    write(os.path.join(build, "bin", "scnn-train"), SCNN_TRAIN, True)
    write(os.path.join(build, "bin", "scnn-train-core"), SCNN_TRAIN, True)  # the trainer the front execs
    write(os.path.join(build, "tests", "test_gpu"), TEST_GPU, True)
    write(os.path.join(build, "bench", "bench_train_step"), BENCH, True)
    write(os.path.join(root, "pystub", "torch", "__init__.py"), TORCH_STUB)
    return build


def main():
    repo = sys.argv[1]
    script = os.path.join(repo, "scripts", "gpu-check")
    failures = []

    def check(cond, what, output=""):
        print(("ok " if cond else "FAIL ") + what + ("" if cond or not output else "\n" + output))
        if not cond:
            failures.append(what)

    def results(out, run):
        try:
            return json.load(open(os.path.join(out, "gpu-check.json")))
        except (OSError, ValueError) as e:
            check(False, "results file is valid JSON (%s)" % e, run.stdout[-3000:])
            return None

    with tempfile.TemporaryDirectory() as tmp:
        # 1. Bookkeeping, with a missing bundle.
        out = os.path.join(tmp, "out")
        missing = os.path.join(tmp, "no-such-bundle.tar.xz")
        run = subprocess.run([script, "--device", "cpu", "--phases", "env,bundle", "--bundle-file", missing,
                              "--out", out], capture_output=True, text=True, timeout=100)
        check(run.returncode == 1, "exit status 1 when a phase failed (got %d)" % run.returncode)
        r = results(out, run)
        if r is None:
            return 1
        check(r.get("finished") is True, "the results file says finished")
        check(r.get("device") == "cpu", "device recorded")
        check(r.get("total_budget_s") == 470, "the whole run's budget is 470 s: %s" % r.get("total_budget_s"))
        names = [p["name"] for p in r["phases"]]
        check(names == PHASES, "every phase once, in order: %s" % names)
        by = {p["name"]: p for p in r["phases"]}
        budgets = {p["name"]: p["budget_s"] for p in r["phases"]}
        for p in r["phases"]:
            check(p["status"] in ("passed", "failed", "skipped"), "%s: status %s" % (p["name"], p["status"]))
            check(isinstance(p["seconds"], (int, float)) and isinstance(p["budget_s"], (int, float)),
                  "%s: seconds and budget are numbers" % p["name"])
            check(isinstance(p["figures"], dict), "%s: figures is an object" % p["name"])
        check(budgets["ctest-gpu"] >= 90, "ctest-gpu's budget is at least 90 s: %s" % budgets["ctest-gpu"])
        env = by["env"]
        check(env["status"] in ("passed", "failed"), "env ran")
        check(env["status"] == "passed" or env["reason"], "a failed env phase says why")
        check("cpu_count" in env["figures"], "env records the CPU count")
        check(by["bundle"]["status"] == "failed" and missing in by["bundle"]["reason"],
              "a missing bundle fails the bundle phase, naming the file: %r" % by["bundle"]["reason"])
        for name in PHASES[2:]:
            check(by[name]["status"] == "skipped" and "not selected" in by[name]["reason"],
                  "%s skipped as not selected" % name)
        check(os.path.getsize(os.path.join(out, "gpu-check.log")) > 0, "the log is written")
        for args in (["--phases", "nonsense"], ["--no-such-option"]):
            bad = subprocess.run([script, "--device", "cpu", "--out", out] + args, capture_output=True, text=True,
                                 timeout=30)
            check(bad.returncode == 2, "%s is refused with exit 2 (got %d)" % (" ".join(args), bad.returncode))

        # 2. A bundle of stand-ins, then ctest-gpu, e2e and bench-cpp on it.
        build = stand_in_build(tmp, repo)
        bundle_dir = os.path.join(tmp, "bundle")
        env = dict(os.environ, PYTHONPATH=os.path.join(tmp, "pystub"))
        made = subprocess.run([script, "--bundle", bundle_dir, "--build-dir", build], capture_output=True, text=True,
                              timeout=100, env=env)
        bundle = os.path.join(bundle_dir, "lane-gpu-bundle.tar.xz")
        check(made.returncode == 0 and os.path.exists(bundle), "--bundle packs the stand-in build",
              made.stdout + made.stderr)
        ctestfile = subprocess.run(["tar", "-xJOf", bundle, "./ctest/CTestTestfile.cmake"], capture_output=True,
                                   text=True).stdout
        check("SKIP_REGULAR_EXPRESSION [==[LANE_TEST_SKIPPED: ]==]" in ctestfile and "SKIP_RETURN_CODE" not in ctestfile,
              "the bundle's ctest file skips by the LANE_TEST_SKIPPED line, never by an exit status")

        def run_phases(tag, extra_env):
            out = os.path.join(tmp, "out-" + tag)
            run = subprocess.run([script, "--device", "cpu", "--phases", "ctest-gpu,e2e,bench-cpp", "--budget-scale",
                                  "2", "--bundle-file", bundle, "--out", out], capture_output=True, text=True,
                                 timeout=200, env=dict(env, **extra_env))
            r = results(out, run)
            return (run, {p["name"]: p for p in r["phases"]}) if r else (run, None)

        run, by2 = run_phases("new", {})
        if by2 is None:
            return 1
        check(by2["bundle"]["status"] == "passed", "the stand-in bundle unpacks: %s" % by2["bundle"]["reason"],
              run.stdout[-4000:])
        check(by2["e2e"]["budget_s"] == 2 * budgets["e2e"], "--budget-scale 2 doubles a phase's budget")
        ctest = by2["ctest-gpu"]
        got = {c["name"].split(": ", 1)[-1]: c["result"] for c in ctest["figures"].get("cases", [])}
        check(got == {"a case that passes": "Passed", "a case that skips itself": "Skipped",
                      "a case that fails four assertions": "Failed"},
              "ctest: the marker line is Skipped, exit 4 is Failed: %s" % got)
        check(ctest["status"] == "failed" and "1 GPU test case(s) failed" in ctest["reason"],
              "a failed GPU case fails the phase: %r" % ctest["reason"])
        e2e = by2["e2e"]["figures"]
        check(by2["e2e"]["status"] == "passed", "e2e passes on the stand-in: %s" % by2["e2e"]["reason"])
        check(e2e.get("predict_ms_per_image") == 8.0 and e2e.get("predict_first_image_ms") == 3675.0,
              "e2e records predict's steady ms per image and the first image apart: %s %s"
              % (e2e.get("predict_ms_per_image"), e2e.get("predict_first_image_ms")))
        check(e2e.get("accuracy") == 0.9 and e2e.get("fn") == 0.04, "e2e records the metric")
        check("predict 8.0 ms/img after a 3675.0 ms first image" in run.stdout, "the summary table shows both",
              run.stdout[-2000:])
        check("step bf16 b4 out of memory" in run.stdout,
              "the summary table shows the batch that ran out of memory", run.stdout[-2000:])
        bench = by2["bench-cpp"]
        f = bench["figures"]
        check(bench["status"] == "passed", "bench-cpp passes: %s" % bench["reason"])
        check(f.get("planned") == ["fp32 b2", "bf16 b2", "bf16 b3", "bf16 b4"],
              "the plan: fp32 and bf16 at the fixed batch, bf16 at the list: %s" % f.get("planned"))
        check(f.get("measured") == ["fp32 b2", "bf16 b2", "bf16 b3"] and f.get("out_of_memory") == ["bf16 b4"]
              and f.get("failed") == [] and f.get("missing") == [], "each planned row measured or out of memory: %s" % f)
        check("--batch 3,4" in f.get("command", ""), "the batch list runs in one bench process: %s" % f.get("command"))
        rows = [json.loads(line) for line in open(os.path.join(tmp, "out-new", "bench.jsonl"))]
        check(len(rows) == 4, "bench.jsonl has every row, the out-of-memory one included: %d" % len(rows))

        # 3. A bench that takes only the list's first batch: the missing row fails the phase.
        _, by3 = run_phases("old", {"FAKE_OLD_BENCH": "1"})
        if by3 is None:
            return 1
        old = by3["bench-cpp"]
        check(old["status"] == "failed" and "no row for bf16 b4" in old["reason"],
              "a bench that ignores the list fails bench-cpp, naming the missing row: %r" % old["reason"])
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""scripts/gpu-check's results file and phase bookkeeping, on any machine (no GPU, no bundle).

Runs `scripts/gpu-check --device cpu --phases env,bundle --bundle-file MISSING --out TMP` and checks
the results file: valid JSON, finished, every phase listed once in order with a status, a number
of seconds and its budget; env passed or failed (python3 may lack torch here) with a reason when
it failed; bundle failed naming the missing file; the phases not selected skipped with that reason;
the log written; exit status 1 (a phase failed). Then an unknown phase and an unknown option exit 2.

    check_gpu_check.py REPO_ROOT
"""
import json
import os
import subprocess
import sys
import tempfile

PHASES = ["env", "bundle", "ctest-gpu", "e2e", "bench-cpp", "bench-eager", "trace"]


def main():
    repo = sys.argv[1]
    script = os.path.join(repo, "scripts", "gpu-check")
    failures = []

    def check(cond, what):
        print(("ok " if cond else "FAIL ") + what)
        if not cond:
            failures.append(what)

    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out")
        missing = os.path.join(tmp, "no-such-bundle.tar.xz")
        run = subprocess.run([script, "--device", "cpu", "--phases", "env,bundle", "--bundle-file", missing,
                              "--out", out], capture_output=True, text=True, timeout=100)
        check(run.returncode == 1, "exit status 1 when a phase failed (got %d)" % run.returncode)
        path = os.path.join(out, "gpu-check.json")
        try:
            r = json.load(open(path))
        except (OSError, ValueError) as e:
            check(False, "results file is valid JSON (%s)\n%s" % (e, run.stdout[-2000:]))
            return 1
        check(r.get("finished") is True, "the results file says finished")
        check(r.get("device") == "cpu", "device recorded")
        names = [p["name"] for p in r["phases"]]
        check(names == PHASES, "every phase once, in order: %s" % names)
        by = {p["name"]: p for p in r["phases"]}
        for p in r["phases"]:
            check(p["status"] in ("passed", "failed", "skipped"), "%s: status %s" % (p["name"], p["status"]))
            check(isinstance(p["seconds"], (int, float)) and isinstance(p["budget_s"], (int, float)),
                  "%s: seconds and budget are numbers" % p["name"])
            check(isinstance(p["figures"], dict), "%s: figures is an object" % p["name"])
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
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

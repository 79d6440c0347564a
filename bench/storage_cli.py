#!/usr/bin/env python3
"""`lanectl list -A`, `snapshot create` and `restore --to-pvc` as processes, two binaries alternating.

Each binary gets its own LANECTL_HOME holding one running job whose claim has FILES files of KB
KiB of random data (the job then sleeps, so the volume is live and mounted read-write: a
lanectl that freezes writers freezes it). Per round, for each binary (the order alternates):
1 % of the files rewritten, `snapshot create` of the claim, `restore --to-pvc` of that snapshot,
`list -A`, `snapshot list`. Prints wall and CPU (children's user+sys) medians and the ratio.

  bench/storage_cli.py --base BASE/lanectl --new build/release/bin/lanectl \
      [--files 1000] [--kb 64] [--rounds 5]
"""
import argparse
import os
import random
import resource
import shutil
import statistics
import subprocess
import tempfile
import time


def timed(binary, home, args):
    env = dict(os.environ, LANECTL_HOME=home)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    r = subprocess.run([binary] + args, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        raise SystemExit(f"{binary} {' '.join(args)}: exit {r.returncode}: {r.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall * 1000, cpu * 1000


def prepare(binary, home, files, kb):
    script = (f"mkdir -p /data/t; i=0; while [ $i -lt {files} ]; do head -c {kb * 1024} /dev/urandom > /data/t/f$i;"
              " i=$((i+1)); done; : > /data/ready; exec sleep 3600")
    timed(binary, home, ["submit", "vol", "-i", "x", "--pvc", ":4Gi:/data", "--command", "--", "/bin/sh", "-c", script])
    ready = os.path.join(home, "volumes", "pvc-vol-0", "ready")
    for _ in range(1200):
        if os.path.exists(ready):
            return
        time.sleep(0.1)
    raise SystemExit(f"{binary}: the job did not fill its claim")


def one_round(binary, home, rnd, files, kb, rng):
    t = os.path.join(home, "volumes", "pvc-vol-0", "t")
    for i in rng.sample(range(files), max(1, files // 100)):
        with open(os.path.join(t, f"f{i}"), "r+b") as f:
            f.write(os.urandom(kb * 1024))
    return {
        "snapshot create": timed(binary, home, ["snapshot", "create", "--pvc", "pvc-vol-0", "--name", f"s{rnd}"]),
        "restore --to-pvc": timed(binary, home, ["restore", f"s{rnd}", "--to-pvc", f"r{rnd}"]),
        "list -A": timed(binary, home, ["list", "-A"]),
        "snapshot list": timed(binary, home, ["snapshot", "list"]),
    }


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--base", required=True)
    p.add_argument("--new", required=True)
    p.add_argument("--files", type=int, default=1000)
    p.add_argument("--kb", type=int, default=64)
    p.add_argument("--rounds", type=int, default=5)
    a = p.parse_args()
    work = tempfile.mkdtemp(prefix="lane-bench-storage-cli-")
    bins = {"base": os.path.abspath(a.base), "new": os.path.abspath(a.new)}
    homes = {k: os.path.join(work, k) for k in bins}
    try:
        for k in bins:
            prepare(bins[k], homes[k], a.files, a.kb)
            timed(bins[k], homes[k], ["snapshot", "create", "--pvc", "pvc-vol-0", "--name", "first"])
        results = {k: [] for k in bins}
        for rnd in range(a.rounds):
            order = ["base", "new"] if rnd % 2 == 0 else ["new", "base"]
            for k in order:
                results[k].append(one_round(bins[k], homes[k], rnd, a.files, a.kb, random.Random(rnd)))
        print(f"{a.files} files x {a.kb} KiB, {a.rounds} rounds alternating; medians, wall / CPU in ms")
        print("| command | base wall / CPU | new wall / CPU | ratio new/base (wall) | base walls | new walls |")
        print("|---|---:|---:|---:|---|---|")
        for cmd in results["base"][0]:
            med = {k: (statistics.median(r[cmd][0] for r in results[k]), statistics.median(r[cmd][1] for r in results[k]))
                   for k in bins}
            walls = {k: ", ".join(f"{r[cmd][0]:.0f}" for r in results[k]) for k in bins}
            print(f"| `{cmd}` | {med['base'][0]:.1f} / {med['base'][1]:.1f} | {med['new'][0]:.1f} / {med['new'][1]:.1f} "
                  f"| {med['new'][0] / med['base'][0]:.2f} | {walls['base']} | {walls['new']} |")
    finally:
        for k in bins:
            subprocess.run([bins[k], "delete", "--all"], env=dict(os.environ, LANECTL_HOME=homes[k]), capture_output=True)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""`scnn-train --help` and argument errors: the front against the in-process path, in one run.

The front (bin/scnn-train, no libtorch) and the trainer (bin/scnn-train-core, which loads
libtorch before main) answer the same commands alike; per round each command runs once through
each binary (the order alternates). Prints the median and minimum wall time of each and the ratio
of the medians (in-process / front). The last command is valid: there the front execs the trainer,
so its row is the front's cost on real work (a ratio near 1).

  bench/scnn_train_help.py [--bin build/release/bin] [--rounds 10]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time

COMMANDS = [["--help"], ["train", "--help"], ["train", "--bogus"], ["synth", "--frames", "x", "--out", "/tmp/x"]]


def wall(binary, argv0, args):
    start = time.perf_counter()
    subprocess.run([argv0] + args, executable=binary, capture_output=True)
    return time.perf_counter() - start


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="build/release/bin", help="folder holding scnn-train and scnn-train-core")
    ap.add_argument("--rounds", type=int, default=10)
    args = ap.parse_args()
    front = os.path.join(args.bin, "scnn-train")
    core = os.path.join(args.bin, "scnn-train-core")
    out = tempfile.mkdtemp(prefix="scnn-train-help-")
    commands = COMMANDS + [["synth", "--frames", "1", "--threads", "1", "--out", out]]
    print(f"{'command':<52} {'front median/min s':>19} {'in-process median/min s':>24} {'ratio':>6}")
    for cmd in commands:
        times = {front: [], core: []}
        for r in range(args.rounds):
            for binary in ((front, core) if r % 2 == 0 else (core, front)):
                times[binary].append(wall(binary, front, cmd))
        f, c = statistics.median(times[front]), statistics.median(times[core])
        shown = " ".join(c if c != out else "TMP" for c in cmd)
        print(f"{'scnn-train ' + shown:<52} {f:>9.3f} / {min(times[front]):<7.3f} "
              f"{c:>13.3f} / {min(times[core]):<8.3f} {c / f:>6.1f}")
    shutil.rmtree(out)


if __name__ == "__main__":
    main()

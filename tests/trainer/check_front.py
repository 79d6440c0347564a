#!/usr/bin/env python3
"""scnn-train, the front, answers --help and argument errors without libtorch.

  check_front.py FRONT CORE

1. FRONT's ELF NEEDED entries (readelf -d) name no libtorch or libc10; CORE's do (the check can
   tell them apart).
2. For --help, `train --help`, `predict --help`, --version and argument errors (an unknown flag,
   a value of the wrong type, a bad setting value, no verb), FRONT prints the same stdout and
   stderr and exits with the same code as CORE run with FRONT's argv[0] (the in-process path),
   and the dynamic loader of FRONT's process never opened a libtorch or libc10 (LD_DEBUG=files);
   that of CORE does, for the same command.
3. A valid command runs in the front's process as CORE, under the name scnn-train: `eval` with a
   FIFO as --pred blocks in CORE reading it, and its /proc entry then shows CORE's executable
   and the comm `scnn-train` (ps, pkill -x and the MPI tests look for that name).
4. A copy of FRONT alone in an empty folder still answers --help and argument errors, and a
   valid command there fails with the error naming the missing scnn-train-core (exit 1).
Exit 0 when all hold; 1 with one line per failure.
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

TORCH = re.compile(r"lib(torch|c10)[\w.-]*\.so")
CASES = [
    ["--help"],
    ["train", "--help"],
    ["predict", "--help"],
    ["--version"],
    [],
    ["train", "--bogus"],
    ["synth", "--frames", "x", "--out", "/nonexistent/x"],
    ["train", "--batch-size", "0"],
    ["predict", "--input", "a"],
]


def needed(binary):
    out = subprocess.run(["readelf", "-d", binary], capture_output=True, text=True, check=True).stdout
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)


def run(binary, args, argv0, debug_dir):
    """(exit code, stdout, stderr, libraries the loader opened) of `binary args` with argv0."""
    prefix = os.path.join(debug_dir, "ld")
    for f in glob.glob(prefix + ".*"):
        os.remove(f)
    env = dict(os.environ, LD_DEBUG="files", LD_DEBUG_OUTPUT=prefix)
    for name in ("DATA_DIR", "BATCH_SIZE", "DEVICE", "OMP_NUM_THREADS"):
        env.pop(name, None)
    r = subprocess.run([argv0] + args, executable=binary, env=env, capture_output=True, text=True, timeout=120)
    opened = set()
    for f in glob.glob(prefix + ".*"):
        opened.update(TORCH.findall(open(f, errors="replace").read()))
    return r.returncode, r.stdout, r.stderr, opened


def exec_keeps_process(front, core, tmp):
    """Failures of check 3: the process of a valid command, once it runs CORE."""
    fifo, gt = os.path.join(tmp, "pred.fifo"), os.path.join(tmp, "gt.json")
    os.mkfifo(fifo)
    open(gt, "w").close()
    p = subprocess.Popen([front, "eval", "--pred", fifo, "--gt", gt], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    seen = None  # (executable, name) last seen; CORE names itself once its main starts
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and p.poll() is None:
            seen = (os.path.realpath(f"/proc/{p.pid}/exe"), open(f"/proc/{p.pid}/comm").read().strip())
            if seen == (os.path.realpath(core), "scnn-train"):
                return []
            time.sleep(0.05)
        return [f"scnn-train eval: its process never ran {core} as scnn-train (last seen: {seen}, exit {p.poll()})"]
    finally:
        p.kill()
        p.communicate()


def main():
    front, core = (os.path.abspath(p) for p in sys.argv[1:3])
    failures = []
    if any(TORCH.search(n) for n in needed(front)):
        failures.append(f"{front} links libtorch: NEEDED {needed(front)}")
    if not any(TORCH.search(n) for n in needed(core)):
        failures.append(f"{core} has no libtorch among its NEEDED entries: the ELF check cannot fail")
    with tempfile.TemporaryDirectory() as tmp:
        for args in CASES:
            shown = " ".join(["scnn-train"] + args)
            code, out, err, opened = run(front, args, front, tmp)
            want_code, want_out, want_err, core_opened = run(core, args, front, tmp)
            if (code, out, err) != (want_code, want_out, want_err):
                failures.append(f"{shown}: front exit {code}, stdout {out!r}, stderr {err!r}; "
                                f"in-process exit {want_code}, stdout {want_out!r}, stderr {want_err!r}")
            if opened:
                failures.append(f"{shown}: the front's process loaded {sorted(opened)}")
            if not core_opened:
                failures.append(f"{shown}: LD_DEBUG shows no libtorch in the core either: the load check cannot fail")
        failures += exec_keeps_process(front, core, tmp)
        alone = os.path.join(tmp, "alone")
        os.mkdir(alone)
        copy = shutil.copy(front, os.path.join(alone, "scnn-train"))
        for args in (["--help"], ["train", "--bogus"]):
            if run(copy, args, front, tmp)[:3] != run(front, args, front, tmp)[:3]:
                failures.append(f"scnn-train {' '.join(args)}: a front without scnn-train-core beside it answers otherwise")
        code, _, err, _ = run(copy, ["synth", "--out", os.path.join(tmp, "s")], copy, tmp)
        missing = os.path.join(alone, "scnn-train-core")
        if code != 1 or f"cannot run the trainer '{missing}'" not in err:
            failures.append(f"a front without scnn-train-core: exit {code}, stderr {err!r}")
    for f in failures:
        print("FAIL:", f)
    print(f"check_front: {len(CASES)} commands, {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""scripts/build-cuda checks the disk before it downloads torch (2.6 GiB of wheels, 4.6 GiB installed).

With a stand-in `df` on PATH that reports FREE GiB on every file system (the temporary folders
below are on one):
1. `--disk-plan` with 20 GiB free: it fits with pip's cache (PIP_CACHE_DIR, named); with 10 GiB:
   it fits without the cache (9 GiB for the environment and the downloads, 12 with the cache);
   with PIP_NO_CACHE_DIR=1 and 20 GiB: without the cache, saying it is off.
2. With 6 GiB free, `--disk-plan` and `--venv-only` (the real install path) exit 2 before
   anything is made: the message names the GiB needed, the environment's path, the free space
   and the settings that move the install (LANE_TORCH_VENV, TMPDIR); no environment is created.
3. An environment whose python already reports the pinned torch: nothing to download, whatever
   the free space.

    check_build_cuda_disk.py REPO_ROOT
"""
import os
import stat
import subprocess
import sys
import tempfile

FAKE_DF = """#!/bin/sh
echo "Filesystem 1G-blocks Used Available Capacity Mounted on"
echo "stand-in 100G 1G ${FAKE_DF_FREE}G 1% /"
"""

# An environment's python that has torch 2.11.0 (build-cuda asks it with -c '...').
FAKE_VENV_PY = """#!/bin/sh
echo 2.11.0
"""


def write_exe(path, text):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)


def run(repo, tmp, free, args, **extra):
    env = dict(os.environ)
    env.pop("PIP_NO_CACHE_DIR", None)
    env.update({
        "PATH": os.path.join(tmp, "bin") + os.pathsep + env.get("PATH", ""),
        "FAKE_DF_FREE": str(free),
        "LANE_TORCH_VENV": os.path.join(tmp, "build", "torch-venv"),
        "TMPDIR": os.path.join(tmp, "t"),
        "PIP_CACHE_DIR": os.path.join(tmp, "pip-cache"),
    })
    env.update(extra)
    return subprocess.run([os.path.join(repo, "scripts", "build-cuda")] + args, env=env,
                          capture_output=True, text=True, timeout=60)


def expect(cond, what, proc=None):
    if not cond:
        detail = "" if proc is None else f"\nexit {proc.returncode}\nstdout: {proc.stdout}\nstderr: {proc.stderr}"
        print(f"FAIL: {what}{detail}")
        sys.exit(1)
    print(f"ok: {what}")


def main():
    repo = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "bin"))
        os.makedirs(os.path.join(tmp, "t"))
        write_exe(os.path.join(tmp, "bin", "df"), FAKE_DF)
        venv = os.path.join(tmp, "build", "torch-venv")
        cache = os.path.join(tmp, "pip-cache")

        p = run(repo, tmp, 20, ["--disk-plan"])
        expect(p.returncode == 0 and "fits, with pip's cache" in p.stdout and cache in p.stdout,
               "20 GiB free: the install fits with pip's cache, named", p)
        p = run(repo, tmp, 10, ["--disk-plan"])
        expect(p.returncode == 0 and "fits, without pip's cache (no room there" in p.stdout,
               "10 GiB free: the install fits without pip's cache", p)
        p = run(repo, tmp, 20, ["--disk-plan"], PIP_NO_CACHE_DIR="1")
        expect(p.returncode == 0 and "without pip's cache (it is off)" in p.stdout,
               "PIP_NO_CACHE_DIR=1: without the cache, saying it is off", p)

        for args in (["--disk-plan"], ["--venv-only"]):
            p = run(repo, tmp, 6, args)
            expect(p.returncode == 2, f"6 GiB free: {' '.join(args)} exits 2", p)
            expect("not enough disk to install torch==2.11.0" in p.stderr and "9 GiB for" in p.stderr
                   and venv in p.stderr and "(6 GiB free there)" in p.stderr
                   and "LANE_TORCH_VENV" in p.stderr and "TMPDIR" in p.stderr,
                   f"6 GiB free: {' '.join(args)} names the need, the path, the free space and the settings", p)
            expect(not os.path.exists(venv), f"6 GiB free: {' '.join(args)} made no environment")

        write_exe(os.path.join(tmp, "py"), FAKE_VENV_PY)
        os.makedirs(os.path.join(venv, "bin"))
        os.symlink(os.path.join(tmp, "py"), os.path.join(venv, "bin", "python3"))
        p = run(repo, tmp, 1, ["--disk-plan"])
        expect(p.returncode == 0 and "nothing to download" in p.stdout,
               "torch 2.11.0 already in the environment: nothing to download at 1 GiB free", p)


if __name__ == "__main__":
    main()

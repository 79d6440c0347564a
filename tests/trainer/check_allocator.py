#!/usr/bin/env python3
"""scnn-train-core allocates through tcmalloc, libtorch included.

  check_allocator.py CORE FRONT

The dynamic loader's own record (LD_DEBUG=bindings) of `CORE --version`, which loads libtorch and
runs its static initialisers, must bind every malloc-family symbol that libtorch, libc10 or the
program looks up to libtcmalloc_minimal, none to libc, and must show at least one such lookup
from libtorch or libc10. FRONT (the launcher, not linked with tcmalloc) is the control: its
lookups must go to libc, so the check can tell the two apart.
Exit 0 when all hold; 1 with one line per failure.
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

SYMBOLS = {"malloc", "free", "calloc", "realloc", "posix_memalign", "memalign", "aligned_alloc"}
# "binding file /usr/lib/libc10.so [0] to /usr/lib/libtcmalloc_minimal.so.4 [0]: normal symbol `malloc' [GLIBC_2.2.5]"
BINDING = re.compile(r"binding file (\S+) \[\d+\] to (\S+) \[\d+\]: normal symbol `(\w+)'")


def bindings(binary, debug_dir):
    """(from file, to file, symbol) of every malloc-family binding while `binary --version` runs."""
    prefix = os.path.join(debug_dir, os.path.basename(binary))
    env = dict(os.environ, LD_DEBUG="bindings", LD_DEBUG_OUTPUT=prefix)
    env.pop("LD_PRELOAD", None)
    subprocess.run([binary, "--version"], env=env, capture_output=True, check=True, timeout=120)
    found = []
    for f in glob.glob(prefix + ".*"):
        for m in BINDING.finditer(open(f, errors="replace").read()):
            if m.group(3) in SYMBOLS:
                found.append(m.groups())
    return found


def main():
    core, front = sys.argv[1], sys.argv[2]
    failures = []
    with tempfile.TemporaryDirectory() as d:
        core_bindings = bindings(core, d)
        front_bindings = bindings(front, d)
    from_torch = [b for b in core_bindings if re.search(r"lib(torch|c10)", os.path.basename(b[0]))]
    if not from_torch:
        failures.append(f"{core}: no malloc-family lookup from libtorch or libc10 was recorded")
    for src, dst, sym in core_bindings:
        if "libtcmalloc_minimal" not in os.path.basename(dst):
            failures.append(f"{core}: {os.path.basename(src)} binds {sym} to {dst}, not tcmalloc")
    if not front_bindings:
        failures.append(f"{front}: no malloc-family lookup was recorded (the control tells nothing)")
    for src, dst, sym in front_bindings:
        if not re.match(r"libc\.so", os.path.basename(dst)):
            failures.append(f"{front}: {os.path.basename(src)} binds {sym} to {dst}, expected glibc")
    for line in sorted(set(failures)):
        print(line)
    if not failures:
        print(f"{len(core_bindings)} malloc-family bindings of scnn-train-core go to tcmalloc "
              f"({len(from_torch)} from libtorch/libc10); the front's {len(front_bindings)} go to glibc")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

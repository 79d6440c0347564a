#!/usr/bin/env python3
"""The layering check: no include goes up.

Reads the one table of libraries and their allowed dependencies in docs/architecture.md (the
rows between <!-- layers:begin --> and <!-- layers:end -->), then checks that
  1. the table has no cycle (dependencies point one way),
  2. every folder under src/ with sources belongs to a row (a new library must be declared),
  3. every `#include "..."` of a project header under src/ stays in its own library or names
     a library its row may use,
  4. each row's lane_* target_link_libraries in src/**/CMakeLists.txt are exactly the row's
     dependencies.
Exit 0 when all hold; 1 with one line per violation otherwise; 2 for a malformed table.

--inject FILE:HEADER pretends FILE (relative to the repository) also has `#include "HEADER"`,
for the test that proves the check fails on an upward include.
"""
import argparse
import os
import re
import sys

ROW = re.compile(r"^\|\s*`([^`]+)`\s*\|\s*`([^`]+)`\s*\|([^|]*)\|")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
LINK = re.compile(r"target_link_libraries\(\s*([\w-]+)([^)]*)\)", re.S)
GENERATED = ("lane/",)  # headers configured into the build tree (lane/version.h)


def read_table(doc):
    text = open(doc, encoding="utf-8").read()
    m = re.search(r"<!-- layers:begin -->(.*?)<!-- layers:end -->", text, re.S)
    if not m:
        sys.exit(f"check_layers: {doc} has no <!-- layers:begin --> ... <!-- layers:end --> table")
    rows = {}
    for line in m.group(1).splitlines():
        r = ROW.match(line.strip())
        if not r:
            continue
        name, where, deps = r.group(1), r.group(2), r.group(3)
        deps = set(re.findall(r"`([^`]+)`", deps))
        if name in rows:
            sys.exit(f"check_layers: {doc}: library {name} is declared twice")
        rows[name] = {"where": where.rstrip("/"), "deps": deps, "cmake": not where.endswith(".h")}
    if not rows:
        sys.exit(f"check_layers: {doc}: the layers table is empty")
    for name, row in rows.items():
        for d in row["deps"]:
            if d not in rows:
                sys.exit(f"check_layers: {doc}: {name} may use {d}, which is not a row of the table")
    return rows


def owner(rows, path):
    """The row whose folder (or file) is the longest prefix of `path` (relative to the repo)."""
    best, best_len = None, -1
    for name, row in rows.items():
        w = row["where"]
        if path == w or path.startswith(w + "/"):
            if len(w) > best_len:
                best, best_len = name, len(w)
    return best


def find_cycle(rows):
    state = {}
    def visit(n, stack):
        state[n] = 1
        for d in sorted(rows[n]["deps"]):
            if state.get(d) == 1:
                return stack + [n, d]
            if d not in state:
                c = visit(d, stack + [n])
                if c:
                    return c
        state[n] = 2
        return None
    for n in sorted(rows):
        if n not in state:
            c = visit(n, [])
            if c:
                return c[c.index(c[-1]):]
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True, help="repository root")
    ap.add_argument("--inject", action="append", default=[], metavar="FILE:HEADER")
    ap.add_argument("--print-edges", action="store_true", help="print the library edges the includes make")
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    rows = read_table(os.path.join(root, "docs", "architecture.md"))
    errors = []

    cycle = find_cycle(rows)
    if cycle:
        errors.append("the table has a cycle: " + " -> ".join(cycle))

    injected = {}
    for spec in args.inject:
        f, _, h = spec.partition(":")
        injected.setdefault(f, []).append(h)

    edges = {}
    for dirpath, dirnames, filenames in os.walk(os.path.join(root, "src")):
        dirnames.sort()
        for fn in sorted(filenames):
            if not fn.endswith((".h", ".hpp", ".cpp", ".cc")):
                continue
            rel = os.path.relpath(os.path.join(dirpath, fn), root)
            lib = owner(rows, rel)
            if lib is None:
                errors.append(f"{rel}: belongs to no library of docs/architecture.md (add a row)")
                continue
            text = open(os.path.join(root, rel), encoding="utf-8", errors="replace").read()
            for header in INCLUDE.findall(text) + injected.get(rel, []):
                if header.startswith(GENERATED):
                    continue
                if not os.path.exists(os.path.join(root, "src", header)):
                    continue  # a header next to the file or outside src/ (none today)
                target = owner(rows, "src/" + header)
                if target is None or target == lib:
                    continue
                edges.setdefault(lib, set()).add(target)
                if target not in rows[lib]["deps"]:
                    errors.append(f"{rel}: includes {header}: {lib} may not use {target} "
                                  f"(allowed: {', '.join(sorted(rows[lib]['deps'])) or 'nothing'})")

    if args.print_edges:
        for lib in sorted(edges):
            print(f"{lib}: {' '.join(sorted(edges[lib]))}")

    # CMake: the lane_* libraries each target links are the row's dependencies.
    linked = {}
    for dirpath, _, filenames in os.walk(os.path.join(root, "src")):
        if "CMakeLists.txt" not in filenames:
            continue
        text = open(os.path.join(dirpath, "CMakeLists.txt"), encoding="utf-8").read()
        text = re.sub(r"#[^\n]*", "", text)
        for target, rest in LINK.findall(text):
            linked.setdefault(target, set()).update(t for t in rest.split() if t.startswith("lane_"))
    for name, row in sorted(rows.items()):
        if not row["cmake"]:
            continue
        have = linked.get(name, set())
        want = {d for d in row["deps"] if rows[d]["cmake"]}  # a header-only row has no target
        if have != want:
            missing = sorted(want - have)
            extra = sorted(have - want)
            errors.append(f"CMake {name}: target_link_libraries differ from docs/architecture.md"
                          + (f"; not linked: {', '.join(missing)}" if missing else "")
                          + (f"; linked but not in the table: {', '.join(extra)}" if extra else ""))

    for e in errors:
        print("check_layers: FAIL " + e)
    if errors:
        print(f"check_layers: {len(errors)} violation(s); the table is docs/architecture.md")
        return 1
    print(f"check_layers: OK ({len(rows)} libraries, every include under src/ points down the table)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

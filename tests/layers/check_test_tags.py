#!/usr/bin/env python3
"""Every Catch2 case under tests/<area>/ is tagged with its area and its speed:
TEST_CASE("name", "[<area>][fast]") or "[<area>][slow]" (other tags may follow). `[fast]` cases
run in well under a second each, so `test_<x> "[fast]"` is a quick check while editing; `[slow]`
ones start processes, servers or training runs. A name has no ';' and does not start with '-' (ctest
and Catch could not select it). Exits 1 naming each case that breaks the rule."""
import argparse
import pathlib
import re
import sys

CASE = re.compile(r'^TEST_CASE\(\s*"((?:[^"\\]|\\.)*)"\s*(?:,\s*"([^"]*)"\s*)?\)', re.M)
OPEN = re.compile(r'^TEST_CASE\b', re.M)


def problems(root: pathlib.Path):
    tests = root / "tests"
    for path in sorted(tests.rglob("*.cpp")):
        rel = path.relative_to(tests)
        if len(rel.parts) < 2:
            continue
        area = rel.parts[0]
        text = path.read_text()
        for m in OPEN.finditer(text):
            if not CASE.match(text, m.start()):
                line = text.count("\n", 0, m.start()) + 1
                yield f"{path.relative_to(root)}:{line}: write TEST_CASE(\"name\", \"[tags]\") on one line"
        for m in CASE.finditer(text):
            tags = re.findall(r"\[([^\]]*)\]", m.group(2) or "")
            line = text.count("\n", 0, m.start()) + 1
            where = f"{path.relative_to(root)}:{line}: \"{m.group(1)}\""
            if area not in tags:
                yield f"{where}: no [{area}] tag (the folder it lives in)"
            if ";" in m.group(1) or m.group(1).startswith("-"):
                yield f"{where}: ctest splits a name at ';' and Catch reads a leading '-' as an option: reword it"
            speed = [t for t in tags if t in ("fast", "slow")]
            if len(speed) != 1:
                yield f"{where}: needs exactly one of [fast] and [slow], has {speed or 'none'}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("--inject", help="a test file's text to check as tests/<area>/injected.cpp (the self-test)")
    args = ap.parse_args()
    root = pathlib.Path(args.root)
    found = list(problems(root))
    if args.inject:
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            fake = pathlib.Path(tmp)
            (fake / "tests" / "cli").mkdir(parents=True)
            (fake / "tests" / "cli" / "injected.cpp").write_text(args.inject)
            found += list(problems(fake))
    for p in found:
        print("FAIL", p)
    print(f"test tags: {len(found)} problem(s)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())

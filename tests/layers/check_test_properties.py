#!/usr/bin/env python3
"""Checks the properties ctest sees on the discovered Catch2 cases (lane_test in
tests/CMakeLists.txt): every property name is one CTest knows, so no label leaked into a property
name, and a case declared with several labels and SERIAL (test_path_attacks) carries all of them,
RUN_SERIAL and the skip marker.

    check_test_properties.py CTEST BUILD_DIR
"""
import json
import subprocess
import sys

KNOWN = {
    "ATTACHED_FILES", "COST", "DEPENDS", "DISABLED", "ENVIRONMENT", "FAIL_REGULAR_EXPRESSION",
    "FIXTURES_CLEANUP", "FIXTURES_REQUIRED", "FIXTURES_SETUP", "LABELS", "PASS_REGULAR_EXPRESSION",
    "PROCESSORS", "REQUIRED_FILES", "RESOURCE_LOCK", "RUN_SERIAL", "SKIP_REGULAR_EXPRESSION",
    "SKIP_RETURN_CODE", "TIMEOUT", "WILL_FAIL", "WORKING_DIRECTORY",
}


def main():
    ctest, build = sys.argv[1], sys.argv[2]
    out = subprocess.run([ctest, "--test-dir", build, "--show-only=json-v1"], check=True,
                         capture_output=True, text=True).stdout
    tests = json.loads(out)["tests"]
    errors = []
    for t in tests:
        props = {p["name"]: p["value"] for p in t.get("properties", [])}
        unknown = sorted(set(props) - KNOWN)
        if unknown:
            errors.append(f"{t['name']}: unknown properties {unknown} (a label list was flattened?)")
    attacks = [t for t in tests if t["name"].startswith("test_path_attacks:")]
    if not attacks:
        errors.append("no test_path_attacks case found: the check has nothing to look at")
    for t in attacks:
        props = {p["name"]: p["value"] for p in t.get("properties", [])}
        if set(props.get("LABELS", [])) != {"reliability", "no-sanitizer"}:
            errors.append(f"{t['name']}: labels {props.get('LABELS')}, want reliability and no-sanitizer")
        if props.get("RUN_SERIAL") is not True or "SKIP_REGULAR_EXPRESSION" not in props:
            errors.append(f"{t['name']}: RUN_SERIAL or SKIP_REGULAR_EXPRESSION missing: {sorted(props)}")
    for e in errors:
        print("FAIL", e)
    print(f"{len(tests)} tests, {len(errors)} problems")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())

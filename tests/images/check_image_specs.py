#!/usr/bin/env python3
"""The local backend's images (images/NAME/image.json) and the container images
(images/NAME/Dockerfile) must describe the same entrypoint and environment defaults.

For each image both entrypoints are run here for real, with a stand-in scnn-train that records
its arguments: the Dockerfile's ENTRYPOINT (files the final stage COPYs in are taken from the
repository, /usr/local/bin is the stand-in's folder) with the final stage's ENV, and image.json's
entrypoint with its env, as the local backend runs it (the program found beside lanectl). For
each case (no arguments, extra arguments, overridden variables) the recorded command lines and
the environment defaults must be equal. The mutation cases check that a drift is reported.
The images' build stages must also be the same instructions (one shared compile).

    check_image_specs.py REPO_ROOT
"""
import json
import os
import shlex
import stat
import subprocess
import sys
import tempfile

STANDIN = """#!/bin/sh
for a in "$@"; do printf '%s\\n' "$a"; done > "$LANE_SPEC_RECORD"
"""


def instructions(text):
    """Dockerfile instructions as (KEYWORD, rest), continuation lines joined, comments dropped."""
    out, current = [], ""
    for line in text.splitlines():
        if line.strip().startswith("#") and not current.strip():
            continue
        if line.strip().startswith("#"):
            continue  # a comment inside a continued instruction
        if line.rstrip().endswith("\\"):
            current += line.rstrip()[:-1] + " "
            continue
        current += line
        if current.strip():
            keyword, _, rest = current.strip().partition(" ")
            out.append((keyword.upper(), rest.strip()))
        current = ""
    return out


def final_stage(text):
    """ENV, ENTRYPOINT and local COPYs (destination -> source) of the Dockerfile's last stage."""
    env, entrypoint, copies = {}, None, {}
    for keyword, rest in instructions(text):
        if keyword == "FROM":
            env, entrypoint, copies = {}, None, {}
        elif keyword == "ENV":
            words = shlex.split(rest)
            if words and "=" not in words[0]:  # legacy form: ENV NAME value
                env[words[0]] = " ".join(words[1:])
            else:
                for w in words:
                    name, _, value = w.partition("=")
                    env[name] = value
        elif keyword == "ENTRYPOINT":
            entrypoint = json.loads(rest)
        elif keyword == "COPY" and "--from" not in rest:
            words = [w for w in shlex.split(rest) if not w.startswith("--")]
            *sources, dest = words
            for s in sources:
                copies[dest + os.path.basename(s) if dest.endswith("/") else dest] = s
    if entrypoint is None:
        raise ValueError("the last stage has no ENTRYPOINT in JSON form")
    return env, entrypoint, copies


def run(argv, env, bindir, extra_env):
    record = os.path.join(bindir, "record")
    if os.path.exists(record):
        os.remove(record)
    full = dict(env)
    full.update(extra_env)
    full.update({"PATH": bindir + ":/usr/bin:/bin", "LANE_SPEC_RECORD": record})
    done = subprocess.run(argv, env=full, capture_output=True, text=True, timeout=30)
    if done.returncode != 0 or not os.path.exists(record):
        return ["<exit %d: %s>" % (done.returncode, done.stderr.strip())]
    with open(record) as f:
        return f.read().splitlines()


def write_exec(path, text):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def compare(repo, dockerfile_text, spec, cases):
    """The differences between a Dockerfile and an image.json, as messages (empty: they agree)."""
    problems = []
    env, entrypoint, copies = final_stage(dockerfile_text)
    spec_env = spec.get("env", {})
    if env != spec_env:
        for name in sorted(set(env) | set(spec_env)):
            if env.get(name) != spec_env.get(name):
                problems.append("env %s: Dockerfile %r, image.json %r" % (name, env.get(name), spec_env.get(name)))
    with tempfile.TemporaryDirectory(prefix="lane-image-spec-") as tmp:
        image_bin = os.path.join(tmp, "image")   # stands for the image's /usr/local/bin
        local_bin = os.path.join(tmp, "local")   # stands for the folder of lanectl
        for d in (image_bin, local_bin):
            os.mkdir(d)
            write_exec(os.path.join(d, "scnn-train"), STANDIN)

        def in_image(word):
            return word.replace("/usr/local/bin/", image_bin + "/")

        for dest, source in copies.items():
            if dest.startswith("/usr/local/bin/"):
                with open(os.path.join(repo, source)) as f:
                    write_exec(in_image(dest), in_image(f.read()))
        local_entry = list(spec["entrypoint"])
        if "/" not in local_entry[0] and os.path.exists(os.path.join(local_bin, local_entry[0])):
            local_entry[0] = os.path.join(local_bin, local_entry[0])
        for args, overrides in cases:
            from_image = run([in_image(w) for w in entrypoint] + args, env, image_bin, overrides)
            from_local = run(local_entry + args, spec_env, local_bin, overrides)
            if from_image != from_local:
                problems.append("args %s, env %s: the image runs scnn-train %s, the local image scnn-train %s"
                                % (args, overrides, from_image, from_local))
    return problems


CASES = {
    "scnn-train": [([], {}), (["--model", "small", "--epochs", "2"], {}), ([], {"DATA_DIR": "/data", "BATCH_SIZE": "4"})],
    "download-tusimple": [([], {}), (["--retries", "5"], {}),
                          ([], {"DATA_DIR": "/data", "TUSIMPLE_BASE_URL": "http://127.0.0.1:8000/x y"})],
}


def build_stage(text):
    """The instructions of the stage named build (the compile both images share)."""
    out, inside = [], False
    for keyword, rest in instructions(text):
        if keyword == "FROM":
            inside = rest.split()[-1] == "build"
        if inside:
            out.append((keyword, rest))
    return out


def main():
    repo = sys.argv[1]
    failures = 0
    # The images share one compile only while their build stages are the same instructions
    # (Dockerfiles cannot include each other, so each carries a copy).
    stages = {name: build_stage(open(os.path.join(repo, "images", name, "Dockerfile")).read()) for name in CASES}
    first = next(iter(stages.values()))
    for name, stage in stages.items():
        if not stage or stage != first:
            print("FAIL %s: its build stage differs from the other images' (keep them identical)" % name)
            failures += 1
    for name, cases in CASES.items():
        with open(os.path.join(repo, "images", name, "Dockerfile")) as f:
            dockerfile = f.read()
        with open(os.path.join(repo, "images", name, "image.json")) as f:
            spec = json.load(f)
        problems = compare(repo, dockerfile, spec, cases)
        for p in problems:
            print("FAIL %s: %s" % (name, p))
        failures += bool(problems)
        if not problems:
            print("ok %s: Dockerfile and image.json agree (%d cases, %d variables)" % (name, len(cases), len(spec.get("env", {}))))

        # The check itself must notice a drift: each mutation has to be reported.
        first_env = next(iter(spec.get("env", {})), None)
        mutations = {
            "an ENV default changed": dockerfile.replace("ENV %s=" % first_env, "ENV %s=/drifted" % first_env, 1)
            if first_env else None,
            "the ENTRYPOINT changed": dockerfile.replace('ENTRYPOINT ["', 'ENTRYPOINT ["/usr/local/bin/scnn-train", "inspect", "', 1),
        }
        spec_extra = dict(spec, env=dict(spec.get("env", {}), EXTRA_ONLY_LOCAL="1"))
        for what, mutated in mutations.items():
            if mutated is None or mutated == dockerfile:
                print("FAIL %s: could not make the mutation '%s'" % (name, what))
                failures += 1
            elif not compare(repo, mutated, spec, cases):
                print("FAIL %s: %s and the check did not notice" % (name, what))
                failures += 1
        if not compare(repo, dockerfile, spec_extra, cases):
            print("FAIL %s: a variable only image.json sets went unnoticed" % name)
            failures += 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

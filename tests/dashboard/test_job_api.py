#!/usr/bin/env python3
"""End-to-end test of the job page's API (standard library only): the real `lanectl dashboard`
over a local backend, a job of the scnn-train image that writes metrics.jsonl and an overlay on
its claim in the image's default OUTPUT_DIR (job_fixture.py), and the answers of /api/jobs/P/N/metrics, /overlays, /overlays/FILE and
/logs: the series, their live growth, the image bytes and type, the refusals (a link out of the
volume, bad names, unknown jobs), and no secret anywhere.

  test_job_api.py --lanectl PATH [fixture|scnn-train ...]
"""
import argparse
import http.client
import json
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from job_fixture import FIRST_STEPS, MORE_STEPS, SECRET, TINY_TRAINING, png, submit_curves_job, submit_real_job  # noqa: E402
from test_dashboard import Env, check, wait_for  # noqa: E402


def get(port, path):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    c.request("GET", path)
    r = c.getresponse()
    body = r.read()
    c.close()
    return r.status, r.getheader("Content-Type", ""), body


def get_json(port, path, status=200):
    s, ctype, body = get(port, path)
    check(s == status, f"GET {path} -> {s} (wanted {status}): {body[:300]!r}")
    check(ctype.startswith("application/json"), f"GET {path}: content type {ctype}")
    check(SECRET.encode() not in body, f"GET {path} shows the secret env value")
    return json.loads(body)


def steps(first, last):
    return list(range(first, last + 1, 10))


def case_fixture(env, scratch):
    _, port = env.start_dashboard("--listen", "127.0.0.1:0")
    sub = submit_curves_job(env.run, scratch)
    check(sub.returncode == 0, f"submit failed: {sub.stderr}")
    sub = env.run("submit", "plain", "-i", "ubuntu", "--command", "--", "sh", "-c", "echo one; sleep 60")
    check(sub.returncode == 0, f"submit failed: {sub.stderr}")

    # The curves: the first records, then the appended ones (the page polls the same document).
    base = "/api/jobs/default/curves"
    first = wait_for("metrics available", lambda: (lambda d: d if d["available"] else None)(
        get_json(port, base + "/metrics")), 20)
    check(first["path"] == "/mnt/runs/metrics.jsonl", f"metrics path {first['path']}")
    train = first["kinds"]["train"]
    check(train["step"] == steps(*FIRST_STEPS), f"train steps {train['step']}")
    for key in ("loss", "seg_loss", "exist_loss", "lr", "images_per_s", "epoch"):
        check(len(train[key]) == len(train["step"]) and all(isinstance(v, (int, float)) for v in train[key]),
              f"train column {key}: {train.get(key)}")
    check(train["loss"][0] > train["loss"][-1], "loss should fall")
    val = first["kinds"]["val"]
    check(val["step"] == [50, 100, 150, 200] and len(val["accuracy"]) == 4 and len(val["fp"]) == 4
          and len(val["fn"]) == 4, f"val columns {val}")
    grown = wait_for("appended records", lambda: (lambda d: d if d["kinds"]["train"]["step"][-1] == MORE_STEPS[1]
                                                  else None)(get_json(port, base + "/metrics")), 20)
    check(grown["kinds"]["train"]["step"] == steps(FIRST_STEPS[0], MORE_STEPS[1]), "appended steps")
    check(grown["size"] > first["size"] and grown["truncated"] is False, "size should grow")

    # The log tail follows: the line written after the append arrives.
    s, ctype, body = get(port, base + "/logs?tail=1000")
    check(s == 200 and ctype.startswith("text/plain") and b"appended-more-metrics" in body, f"logs: {s} {body[-200:]!r}")
    check(len(get(port, base + "/logs?tail=1")[2].decode().splitlines()) == 1, "tail=1 should be one line")

    # The overlay: listed, served as image/png byte for byte; the link out of the volume is not.
    ov = get_json(port, base + "/overlays")
    check(ov["available"] and ov["dir"] == "/mnt/runs/overlays", f"overlays: {ov}")
    check([i["name"] for i in ov["images"]] == ["frame_0001.png"], f"overlay images {ov['images']}")
    s, ctype, body = get(port, base + "/overlays/frame_0001.png")
    check(s == 200 and ctype == "image/png" and body == png(), f"overlay image: {s} {ctype} {len(body)} bytes")
    s, _, body = get(port, base + "/overlays/link.png")
    check(s == 404 and b"symbolic link" in body, f"a link to /etc/passwd: {s} {body!r}")
    check(b"root:" not in body, "the link's target leaked")
    for bad in ("/overlays/..%2F..%2Fetc%2Fpasswd", "/overlays/passwd", "/overlays/.x.png", "/overlays/a%20b.png"):
        s, _, body = get(port, base + bad)
        check(s in (400, 404) and b"root:" not in body, f"{bad}: {s} {body[:200]!r}")
    check(get(port, base + "/overlays/passwd")[0] == 400, "a name that is no image name should be 400")

    # Unknown jobs, bad names, a job with no OUTPUT_DIR.
    for path in ("/api/jobs/default/nope/metrics", "/api/jobs/default/nope/overlays", "/api/jobs/other/curves/metrics"):
        get_json(port, path, 404)
    get_json(port, "/api/jobs/default/Bad_Name/metrics", 400)
    plain = get_json(port, "/api/jobs/default/plain/metrics")
    check(plain["available"] is False and "OUTPUT_DIR" in plain["reason"], f"plain job metrics: {plain}")
    plain_ov = get_json(port, "/api/jobs/default/plain/overlays")
    check(plain_ov["available"] is False and plain_ov["tried"], f"plain job overlays: {plain_ov}")

    # The job document of the page: the secret masked, the claim shown.
    doc = get_json(port, base)
    check(any(e["name"] == "API_TOKEN" for e in doc["spec"]["env"]), "the spec lacks API_TOKEN")
    check(doc["spec"]["pvcs"][0]["mountPath"] == "/mnt", f"pvcs {doc['spec']['pvcs']}")
    print("ok   job page API over the fixture job")


# A real run of the scnn-train image, as the demo's jobs: a tiny synthetic data set, two training
# steps (the trainer writes OUTPUT_DIR/metrics.jsonl on the claim), then `predict --out
# /out/predictions` onto a -v directory, as the demo's evaluate job: the API finds both.
REAL = (TINY_TRAINING + "scnn-train predict --checkpoint /mnt/runs/checkpoint_latest.pt --input /tmp/d/clips --threads 1 "
        "--out /out/predictions; echo predicted; sleep 60")


def case_scnn_train(env, scratch):
    _, port = env.start_dashboard("--listen", "127.0.0.1:0")
    sub = submit_real_job(env.run, scratch, REAL)
    check(sub.returncode == 0, f"submit failed: {sub.stderr}")
    base = "/api/jobs/default/evaluate"
    wait_for("the predict step", lambda: b"predicted" in get(port, base + "/logs?tail=5")[2], 90)
    m = get_json(port, base + "/metrics")
    check(m["available"] and m["path"] == "/mnt/runs/metrics.jsonl", f"metrics: {m}")
    train = m["kinds"]["train"]
    check(train["step"] == [1, 2], f"train steps {train.get('step')}")
    for key in ("loss", "seg_loss", "exist_loss", "lr", "images_per_s"):
        check(len(train.get(key, [])) == 2 and all(v > 0 for v in train[key]), f"train {key}: {train.get(key)}")
    ov = get_json(port, base + "/overlays")
    check(ov["available"] and ov["dir"] == "/out/predictions/overlays", f"overlays: {ov}")
    on_disk = sorted(os.listdir(os.path.join(scratch, "predictions", "overlays")))
    check(len(ov["images"]) == len(on_disk) == 8 and {i["name"] for i in ov["images"]} == set(on_disk),
          f"overlays listed {[i['name'] for i in ov['images']]}, on disk {on_disk}")
    name = ov["images"][0]["name"]
    s, ctype, body = get(port, base + "/overlays/" + name)
    with open(os.path.join(scratch, "predictions", "overlays", name), "rb") as f:
        check(s == 200 and ctype == "image/png" and body == f.read(), f"overlay {name}: {s} {ctype}")
    print("ok   job page API over a real scnn-train train + predict job")


CASES = {"fixture": case_fixture, "scnn-train": case_scnn_train}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lanectl", required=True)
    ap.add_argument("cases", nargs="*", default=list(CASES))
    args = ap.parse_args()
    failed = 0
    for name in args.cases:
        env = Env(args.lanectl)
        scratch = tempfile.mkdtemp(prefix="lanectl-job-page-")
        try:
            CASES[name](env, scratch)
        except AssertionError as e:
            print(f"FAIL {name}: {e}")
            failed += 1
        finally:
            env.close()
            shutil.rmtree(scratch, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

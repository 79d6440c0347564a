#!/usr/bin/env python3
"""End-to-end test of a job's artifacts and evaluation (standard library only): the real
`lanectl dashboard` over a local backend and a job of the scnn-train image whose OUTPUT_DIR holds
what scnn-train leaves (metrics.jsonl, a checkpoint, the curves PNG, predictions.json,
evaluation.json, overlays) plus links planted by the job.

`fixture`: the list with sizes; downloads byte for byte with Content-Type and
Content-Disposition; a 96 MiB checkpoint streamed (the server's peak RSS grows by far less than
the file); links named like artifacts refused; paths outside the list refused; the evaluation's
numbers and rows worst first; overlays ordered by it; the token rules (401 without it).
`scnn-train`: a real synth → train → predict --labels → eval run; evaluation.json as eval wrote
it, the checkpoint downloaded byte for byte.

  test_artifacts_api.py --lanectl PATH [fixture|scnn-train ...]
"""
import argparse
import hashlib
import http.client
import json
import mmap
import os
import shutil
import sys
import tempfile
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from job_fixture import SECRET, TINY_TRAINING, png, printf_octal, submit_real_job, train_record, val_record  # noqa: E402
from test_dashboard import Env, check, wait_for  # noqa: E402

BIG = 96 << 20  # the checkpoint streamed


def get(port, path, headers=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    c.request("GET", path, headers=headers or {})
    r = c.getresponse()
    body = r.read()
    c.close()
    return r.status, r.getheader("Content-Type", ""), body, r


def get_json(port, path):
    s, ctype, body, _ = get(port, path)
    check(s == 200 and ctype.startswith("application/json"), f"GET {path} -> {s} {ctype}: {body[:300]!r}")
    check(SECRET.encode() not in body, f"GET {path} shows the secret env value")
    return json.loads(body)


def file_url(base, path):
    return base + "/artifacts/file?path=" + urllib.parse.quote(path, safe="")


def under_address_sanitizer(pid):
    """AddressSanitizer keeps freed memory in quarantine (256 MiB by default), so peak RSS there
    says nothing about whether a download was streamed. An instrumented executable names
    __asan_init, whether its runtime is libasan.so (GCC) or linked in (clang)."""
    with open(f"/proc/{pid}/exe", "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
        return m.find(b"__asan_init") >= 0


def peak_rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        return int(next(line for line in f if line.startswith("VmHWM:")).split()[1])


EVALUATION = {"metric": "tusimple", "accuracy": 0.75, "fp": 0.125, "fn": 0.25, "frames": 3, "rows": [
    {"raw_file": "clips/synth-val/0002.jpg", "overlay": "clips_synth-val_0002.png", "accuracy": 0.5, "fp": 0.5,
     "fn": 0.5, "gt_lanes": 2, "pred_lanes": 2},
    {"raw_file": "clips/synth-val/0001.jpg", "overlay": "clips_synth-val_0001.png", "accuracy": 0.75, "fp": 0.0,
     "fn": 0.25, "gt_lanes": 4, "pred_lanes": 3},
    {"raw_file": "clips/synth-val/0000.jpg", "overlay": "clips_synth-val_0000.png", "accuracy": 1.0, "fp": 0.0,
     "fn": 0.0, "gt_lanes": 2, "pred_lanes": 2}]}


def fixture_script():
    """What scnn-train train + predict + eval leave in /mnt/runs, then links planted by the job."""
    metrics = "\\n".join([train_record(10), train_record(20), val_record(20)]) + "\\n"
    lines = ["set -e", "mkdir -p /mnt/runs/overlays", "cd /mnt/runs",
             f"printf '{metrics}' > metrics.jsonl",
             f"head -c {BIG} /dev/urandom > checkpoint_latest.pt",
             f"printf '{printf_octal(png())}' > training_curves.png",
             "printf '{\"raw_file\":\"clips/synth-val/0000.jpg\",\"lanes\":[],\"run_time\":5}\\n' > predictions.json",
             f"printf '%s\\n' '{json.dumps(EVALUATION)}' > evaluation.json"]
    for i in (2, 1, 0):  # the worst frame written first: newest first is the other order
        lines.append(f"cp training_curves.png overlays/clips_synth-val_000{i}.png; sleep 0.1")
    lines += ["ln -s /etc/passwd checkpoint_best.pt", "ln -s /etc/passwd overlays/link.png",
              "echo written", "sleep 120"]
    return "\n".join(lines) + "\n"


def check_downloads(port, base, proc):
    doc = get_json(port, base + "/artifacts")
    items = {i["path"]: i for i in doc["items"]}
    want = ["/mnt/runs/checkpoint_latest.pt", "/mnt/runs/metrics.jsonl", "/mnt/runs/training_curves.png",
            "/mnt/runs/predictions.json", "/mnt/runs/evaluation.json"]
    check([i["path"] for i in doc["items"]][:5] == want, f"artifacts order {list(items)}")
    check({p for p in items if "/overlays/" in p} == {f"/mnt/runs/overlays/clips_synth-val_000{i}.png" for i in range(3)},
          f"overlays listed: {list(items)} (links are not)")
    check(items["/mnt/runs/checkpoint_latest.pt"]["size"] == BIG, f"checkpoint size {items['/mnt/runs/checkpoint_latest.pt']}")
    check(items["/mnt/runs/training_curves.png"]["size"] == len(png()), "curves size")

    s, ctype, body, r = get(port, file_url(base, "/mnt/runs/training_curves.png"))
    check(s == 200 and ctype == "image/png" and body == png(), f"curves download: {s} {ctype} {len(body)}")
    check(r.getheader("Content-Disposition") == 'attachment; filename="training_curves.png"', "disposition")
    s, ctype, body, _ = get(port, file_url(base, "/mnt/runs/metrics.jsonl"))
    check(s == 200 and ctype == "application/x-ndjson" and body.count(b"\n") == 3, f"metrics download: {s} {ctype}")
    s, ctype, body, _ = get(port, file_url(base, "/mnt/runs/evaluation.json"))
    check(s == 200 and ctype == "application/json" and json.loads(body) == EVALUATION, "evaluation download")

    # The big checkpoint: streamed from the open file, not read whole (peak RSS, before and after).
    before = peak_rss_kib(proc.pid)
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    c.request("GET", file_url(base, "/mnt/runs/checkpoint_latest.pt"))
    r = c.getresponse()
    check(r.status == 200 and r.getheader("Content-Type") == "application/octet-stream", f"checkpoint: {r.status}")
    check(r.getheader("Content-Length") == str(BIG), f"Content-Length {r.getheader('Content-Length')}")
    digest, got = hashlib.sha256(), 0
    while chunk := r.read(1 << 20):
        digest.update(chunk)
        got += len(chunk)
    c.close()
    grown = peak_rss_kib(proc.pid) - before
    check(got == BIG, f"checkpoint: {got} bytes")
    if under_address_sanitizer(proc.pid):
        print(f"skip the peak-RSS bound under AddressSanitizer (its quarantine keeps freed chunks; grew {grown} KiB)")
    else:
        check(grown * 1024 < BIG // 4, f"the server's peak RSS grew by {grown} KiB for a {BIG >> 20} MiB download")
        print(f"ok   a {BIG >> 20} MiB checkpoint streamed; the server's peak RSS grew by {grown} KiB")
    return digest.hexdigest()


def check_refusals(port, base):
    # Links planted by the job, named like artifacts: never followed.
    for path in ("/mnt/runs/checkpoint_best.pt", "/mnt/runs/overlays/link.png"):
        s, _, body, _ = get(port, file_url(base, path))
        check(s == 404 and b"symbolic link" in body and b"root:" not in body, f"{path}: {s} {body[:200]!r}")
    # Paths the list cannot hold.
    for path in ("/etc/passwd", "/mnt/runs/../../etc/passwd", "/mnt/runs/overlays/../metrics.jsonl",
                 "/mnt/other/metrics.jsonl", "/mnt/runs/notes.txt", "relative.pt"):
        s, _, body, _ = get(port, file_url(base, path))
        check(s == 400 and b"not one of the job's artifacts" in body, f"{path}: {s} {body[:200]!r}")
    s, _, _, _ = get(port, base + "/artifacts/file")
    check(s == 400, f"no path: {s}")
    check(get(port, "/api/jobs/default/nojob/artifacts")[0] == 404, "unknown job")


def check_evaluation(port, base):
    ev = get_json(port, base + "/evaluation")
    check(ev["available"] and ev["dir"] == "/mnt/runs" and ev["accuracy"] == 0.75 and ev["fn"] == 0.25,
          f"evaluation: {ev}")
    check([r["raw_file"] for r in ev["rows"]] == [r["raw_file"] for r in EVALUATION["rows"]], "rows worst first")
    ov = get_json(port, base + "/overlays")
    check([i["name"] for i in ov["images"]] == [r["overlay"] for r in EVALUATION["rows"]],
          f"overlays worst first: {ov['images']}")
    check(ov["order"] == "worst first (/mnt/runs/evaluation.json)", f"order {ov['order']}")


def case_fixture(env, scratch):
    os.chmod(scratch, 0o755)
    with open(os.path.join(scratch, "outputs.sh"), "w") as f:
        f.write(fixture_script())
    proc, port = env.start_dashboard("--listen", "127.0.0.1:0")
    sub = env.run("submit", "outputs", "-i", "scnn-train", "--pvc", ":1Gi:/mnt", "-v", scratch + ":/fixture:ro",
                  "-e", "API_TOKEN=" + SECRET, "--command", "--", "sh", "/fixture/outputs.sh")
    check(sub.returncode == 0, f"submit failed: {sub.stderr}")
    base = "/api/jobs/default/outputs"
    wait_for("the outputs written", lambda: b"written" in get(port, base + "/logs?tail=5")[2], 60)
    check_downloads(port, base, proc)
    check_refusals(port, base)
    check_evaluation(port, base)

    # The same token rules as the rest of the API.
    token = "artifacts-test-token-0123456789"
    _, tport = env.start_dashboard("--listen", "127.0.0.1:0", "--token", token)
    path = file_url(base, "/mnt/runs/metrics.jsonl")
    check(get(tport, path)[0] == 401, "a download without the token")
    s, _, body, _ = get(tport, path, {"Authorization": "Bearer " + token})
    check(s == 200 and body.count(b"\n") == 3, f"with the token: {s}")
    print("ok   artifacts: list, downloads, links and other paths refused, evaluation, token")


# A real run as the demo's: synth, a short training, predict with labels, eval (evaluation.json).
REAL = (TINY_TRAINING + "scnn-train predict --checkpoint /mnt/runs/checkpoint_latest.pt --input /tmp/d/clips/synth-val --raw-root /tmp/d "
        "--labels /tmp/d/label_data_val.json --threads 1 --out /out/predictions; "
        "scnn-train eval --pred /out/predictions/predictions.json --gt /tmp/d/label_data_val.json; "
        "cp /mnt/runs/checkpoint_latest.pt /out/checkpoint.pt; echo run-evaluated-ok; sleep 60")


def case_scnn_train(env, scratch):
    _, port = env.start_dashboard("--listen", "127.0.0.1:0")
    sub = submit_real_job(env.run, scratch, REAL)
    check(sub.returncode == 0, f"submit failed: {sub.stderr}")
    base = "/api/jobs/default/evaluate"
    wait_for("the eval step", lambda: b"run-evaluated-ok" in get(port, base + "/logs?tail=5")[2], 120)
    with open(os.path.join(scratch, "predictions", "evaluation.json")) as f:
        written = json.load(f)
    ev = get_json(port, base + "/evaluation")
    check(ev["available"] and ev["dir"] == "/out/predictions", f"evaluation: {ev}")
    check((ev["accuracy"], ev["fp"], ev["fn"]) == (written["accuracy"], written["fp"], written["fn"]), "aggregate")
    check([r["raw_file"] for r in ev["rows"]] == [r["raw_file"] for r in written["rows"]], "rows as eval wrote them")
    log = get(port, base + "/logs?tail=50")[2].decode()
    official = json.loads(next(line for line in log.splitlines() if line.startswith('[{"name":"Accuracy"')))
    check(abs(official[0]["value"] - ev["accuracy"]) < 1e-12, f"printed {official} vs {ev['accuracy']}")
    ov = get_json(port, base + "/overlays")
    check(ov["order"].startswith("worst first") and ov["images"][0]["name"] == written["rows"][0]["overlay"],
          f"overlays: {ov['order']} {ov['images'][:2]}")
    items = {i["path"]: i for i in get_json(port, base + "/artifacts")["items"]}
    check("/mnt/runs/checkpoint_latest.pt" in items and "/out/predictions/evaluation.json" in items, f"{list(items)}")
    s, ctype, body, _ = get(port, file_url(base, "/mnt/runs/checkpoint_latest.pt"))
    with open(os.path.join(scratch, "checkpoint.pt"), "rb") as f:
        check(s == 200 and body == f.read(), f"checkpoint download: {s} {len(body)} bytes")
    print("ok   artifacts and evaluation of a real scnn-train train + predict + eval job")


CASES = {"fixture": case_fixture, "scnn-train": case_scnn_train}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lanectl", required=True)
    ap.add_argument("cases", nargs="*", default=list(CASES))
    args = ap.parse_args()
    for name in args.cases:
        env = Env(args.lanectl)
        scratch = tempfile.mkdtemp(prefix="lanectl-artifacts-")
        try:
            CASES[name](env, scratch)
        finally:
            env.close()
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    try:
        main()
    except AssertionError as e:
        print(f"FAIL artifacts: {e}")
        sys.exit(1)

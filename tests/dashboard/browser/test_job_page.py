#!/usr/bin/env python3
"""Browser test of a job's page (#/jobs/P/N, assets/job.js) in headless Chromium. `local`: a local
backend with a running job that writes metrics.jsonl, an overlay and a log (../job_fixture.py);
`kube`: the Kubernetes backend against the test API server (see case_kube).

Checks the status, spec (the secret env value nowhere in the page), pods, events, the log tail
growing live and staying at the bottom (and not when scrolled up), the four training charts (SVG
paths with points, growing live), the hover crosshair and its values, legend toggling, the
overlay image loaded through the API, a job without metrics saying why, no JavaScript error, that
polling stops when the page is left, and saves a screenshot.

  test_job_page.py --lanectl PATH [local|kube ...]    exit 0 pass, 1 fail, 77 skip (no Chromium, LANE_REQUIRE_BROWSER unset)
"""
import argparse
import json
import os
import re
import shutil
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
from chromium import Chromium, require_chromium  # noqa: E402
from fixture import Lane, screenshot_dir, start_apiserver  # noqa: E402
from job_fixture import FIRST_STEPS, SECRET, metrics_lines, submit_curves_job  # noqa: E402


def check(cond, what):
    if not cond:
        raise AssertionError(what)


# Number of points of the series `key` in the chart titled `title` (segments of its path).
POINTS = """((title, key) => {
  const c = [...document.querySelectorAll('#metrics .chart')].find(c => c.dataset.chart === title);
  const p = c && c.querySelector('path.series[data-key="' + key + '"]');
  return p ? (p.getAttribute('d').match(/[ML]/g) || []).length : -1;
})"""


def case_local(lanectl, shots):
    with Lane(lanectl) as lane, tempfile.TemporaryDirectory(prefix="lanectl-job-page-") as scratch:
        lane.run("cluster", "set-nodes", "node-a=1")
        submit_curves_job(lane.run, scratch)
        lane.run("submit", "plain", "-i", "ubuntu", "--command", "--", "sh", "-c", "echo plain; sleep 60")
        # Pending: the cluster's one GPU is taken.
        lane.run("submit", "holder", "-i", "ubuntu", "--gpu", "1", "--command", "--", "sleep", "60")
        lane.run("submit", "waiting", "-i", "ubuntu", "--gpu", "1", "--command", "--", "sleep", "60")
        url = lane.start_dashboard()
        with Chromium(width=1400, height=1000) as browser:
            page = browser.open(url + "#/jobs/default/curves")
            page.wait_for("document.querySelector('#job-title') && document.querySelector('#job-title').textContent === 'curves'")

            # Status and times.
            page.wait_for("!!document.querySelector('#summary-body .status.Running')", timeout=15)
            summary = page.eval("document.querySelector('#summary-body').textContent")
            for part in ("Created", "Started", "Run time", "GPUs", "Nodes", "default", "scnn-train"):
                check(part in summary, f"the status panel lacks {part!r}: {summary}")

            # Spec: the env names, the secret value masked everywhere.
            spec = page.eval("document.querySelector('#spec-body').textContent")
            check("API_TOKEN=****" in spec and "pvc-curves-0 → /mnt" in spec, f"spec: {spec[:500]}")
            # The command as a shell reads it back (as describe prints it), in both places.
            cmds = page.eval("[...document.querySelectorAll('#spec-body pre.cmd')].map(e => e.textContent)")
            check(len(cmds) == 2 and cmds[0] == "sh -c 'sh /fixture/write-metrics.sh'"
                  and cmds[1].endswith("--command -- sh -c 'sh /fixture/write-metrics.sh'"), f"command lines: {cmds}")

            # The trainer's progress: its last progress line's step, epoch and ETA.
            page.wait_for("(e => !e.hidden && e.textContent.includes('step 40/400'))(document.querySelector('#job-progress'))",
                          timeout=20)
            progress = page.eval("document.querySelector('#job-progress').textContent")
            check("step 40/400 (10%)" in progress and "epoch 1/2" in progress and "ETA 00:01:00" in progress,
                  f"progress: {progress!r}")
            check(page.eval("document.querySelector('#job-progress progress').value") == 40, "the progress bar's value")

            # Pods with their node, and events.
            pods = page.eval("[...document.querySelectorAll('#pods-body tr[data-pod]')].map(r => [...r.cells].map(c => c.textContent))")
            check(len(pods) == 1 and pods[0][2] == "Running" and pods[0][3] not in ("", "–"), f"pods: {pods}")
            events = page.eval("document.querySelector('#events-body').textContent")
            check("Scheduled" in events or "Started" in events, f"events: {events[:400]}")

            # The log: the warm-up lines, scrolled to the bottom, then lines written later arrive.
            page.wait_for("document.querySelector('#log-text').textContent.includes('warm-up line 60')", timeout=15)
            page.wait_for("document.querySelector('#log-text').textContent.includes('appended-more-metrics')", timeout=20)
            page.wait_for("(e => e.scrollHeight > e.clientHeight && e.scrollHeight - e.scrollTop - e.clientHeight < 30)"
                          "(document.querySelector('#log-text'))", timeout=5)
            check(page.eval("document.querySelector('#log-state').textContent") == "following", "the log is not 'following'")
            # Scrolled up: new lines arrive but the view stays where the reader put it.
            page.eval("(e => { e.scrollTop = 0; e.dispatchEvent(new Event('scroll')); })(document.querySelector('#log-text'))")
            n = page.eval("document.querySelector('#log-text').textContent.length")
            page.wait_for(f"document.querySelector('#log-text').textContent.length > {n}", timeout=5)
            check(page.eval("document.querySelector('#log-text').scrollTop") == 0, "a scrolled-up log jumped to the bottom")
            check("paused" in page.eval("document.querySelector('#log-state').textContent"), "the log does not say paused")
            # Back at the bottom, it follows again.
            page.eval("(e => { e.scrollTop = e.scrollHeight; e.dispatchEvent(new Event('scroll')); })(document.querySelector('#log-text'))")
            n = page.eval("document.querySelector('#log-text').textContent.length")
            page.wait_for(f"document.querySelector('#log-text').textContent.length > {n}", timeout=5)
            page.wait_for("(e => e.scrollHeight - e.scrollTop - e.clientHeight < 30)(document.querySelector('#log-text'))", timeout=3)
            check(page.eval("document.querySelector('#log-state').textContent") == "following", "the log does not follow again")

            # The charts: four, with points, grown by the records appended after the start.
            page.wait_for("document.querySelectorAll('#metrics .chart').length >= 4", timeout=15)
            titles = page.eval("[...document.querySelectorAll('#metrics .chart')].map(c => c.dataset.chart)")
            # Exactly these: the records' "time" (a Unix timestamp) is not drawn as an "Other" curve.
            check(titles == ["Loss", "Learning rate", "Throughput (images/s)", "Validation"], f"charts: {titles}")
            page.wait_for(f"{POINTS}('Loss', 'loss') === 30", timeout=15)  # steps 10..300
            for title, key, n in (("Loss", "exist_loss", 30), ("Learning rate", "lr", 30),
                                  ("Throughput (images/s)", "images_per_s", 30), ("Validation", "accuracy", 6),
                                  ("Validation", "fn", 6)):
                got = page.eval(f"{POINTS}({title!r}, {key!r})")
                check(got == n, f"{title}/{key}: {got} points, wanted {n}")
            check(not page.eval("!!document.querySelector('#metrics-stale')"), "the job's own curves are called an earlier run's")
            tensorboard = page.eval("[...document.querySelectorAll('#metrics-tensorboard code')].map(c => c.textContent)")
            check(tensorboard == ["/mnt/runs", "tensorboard --logdir /mnt/runs"], f"the TensorBoard command: {tensorboard}")
            ticks = page.eval("[...document.querySelectorAll('#metrics .chart[data-chart=\"Loss\"] .axes text')].map(t => t.textContent)")
            check(len(ticks) >= 6 and "step" in ticks, f"axis ticks: {ticks}")

            # Hover: a real mouse move over the Loss chart shows the crosshair and the values there.
            box = page.eval("(r => ({x: r.left + r.width * 0.5, y: r.top + r.height * 0.5}))"
                            "(document.querySelector('#metrics .chart[data-chart=\"Loss\"] rect.hit').getBoundingClientRect())")
            page.send("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": box["x"], "y": box["y"]})
            page.wait_for("!document.querySelector('#metrics .chart[data-chart=\"Loss\"] .tip').hidden", timeout=3)
            tip = page.eval("document.querySelector('#metrics .chart[data-chart=\"Loss\"] .tip').textContent")
            check(tip.startswith("step ") and "loss: " in tip and "segmentation: " in tip and "existence: " in tip,
                  f"tooltip: {tip}")
            step = int(re.match(r"step (\d+)", tip).group(1))
            check(100 <= step <= 210, f"the middle of the chart should be near step 150, tooltip says {step}")
            check(page.eval("document.querySelector('#metrics .chart[data-chart=\"Loss\"] .crosshair').getAttribute('visibility')")
                  == "visible", "no crosshair")
            page.send("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": box["x"] + 60, "y": box["y"]})
            page.wait_for(f"!document.querySelector('#metrics .chart[data-chart=\"Loss\"] .tip').textContent.startsWith('step {step}')", timeout=3)
            shot_hover = page.screenshot(os.path.join(shots, "job-page-hover.png"))

            # The legend hides and shows a series.
            page.eval("document.querySelector('#metrics .chart[data-chart=\"Loss\"] .legend-item[data-key=\"seg_loss\"]').click()")
            check(page.eval(f"{POINTS}('Loss', 'seg_loss')") == -1, "a hidden series is still drawn")
            check(page.eval(f"{POINTS}('Loss', 'loss')") == 30, "hiding one series hid another")
            check(page.eval("document.querySelector('#metrics .legend-item[data-key=\"seg_loss\"]').getAttribute('aria-pressed')") == "false",
                  "the legend entry does not show it is off")
            page.eval("document.querySelector('#metrics .chart[data-chart=\"Loss\"] .legend-item[data-key=\"seg_loss\"]').click()")
            check(page.eval(f"{POINTS}('Loss', 'seg_loss')") == 30, "a shown-again series is not drawn")

            # The overlay: an <img> served by the API, decoded by the browser.
            page.wait_for("(i => !!i && i.complete && i.naturalWidth > 0)(document.querySelector('#overlays img'))", timeout=15)
            check(page.eval("document.querySelector('#overlays img').naturalWidth") == 64, "overlay size")
            check(page.eval("document.querySelector('#overlays figcaption').textContent") == "frame_0001.png", "overlay name")

            check(SECRET not in page.eval("document.documentElement.outerHTML"), "the secret env value is in the page")
            page.eval("window.scrollTo(0, 0)")
            shot = page.screenshot(os.path.join(shots, "job-page.png"), full_page=True)

            # Leaving the page stops its polling.
            page.navigate(url + "#/jobs")
            page.wait_for("!!document.querySelector('#jobs-body a')", timeout=5)
            count = "performance.getEntriesByType('resource').filter(e => /\\/api\\/jobs\\/default\\/curves\\//.test(e.name)).length"
            before = page.eval(count)
            time.sleep(2.5)
            check(page.eval(count) == before, "the job page still polls after it was left")

            # A later job mounting the same volume at its OUTPUT_DIR: the curves are shown as an
            # earlier run's, not this job's.
            lane.run("submit", "reader", "-i", "scnn-train", "--pvc", "pvc-curves-0:/mnt", "--command", "--", "sleep", "60")
            page.navigate(url + "#/jobs/default/reader")
            page.wait_for("!!document.querySelector('#metrics-stale')", timeout=15)
            note = page.eval("document.querySelector('#metrics-stale').textContent")
            check("before this job started" in note and "/mnt/runs/metrics.jsonl" in note, f"stale note: {note}")

            # A job without metrics says why.
            page.navigate(url + "#/jobs/default/plain")
            page.wait_for("!!document.querySelector('#metrics-reason')", timeout=10)
            reason = page.eval("document.querySelector('#metrics-reason').textContent")
            check("OUTPUT_DIR" in reason, f"no-metrics reason: {reason}")
            page.wait_for("!!document.querySelector('#overlays-body li')", timeout=15)
            check(page.eval("document.querySelector('#job-progress').hidden"), "a plain job shows a training progress")

            # A pending plain job: no empty Training curves and Prediction overlays panels.
            page.navigate(url + "#/jobs/default/waiting")
            page.wait_for("!!document.querySelector('#summary-body .status.Pending')", timeout=10)
            page.wait_for("document.querySelector('#metrics').hidden && document.querySelector('#overlays').hidden", timeout=10)
            check(not page.eval("document.querySelector('#log').hidden"), "the pending job's log panel is hidden")
            shown = page.eval("[...document.querySelectorAll('.job-grid .panel')].filter(p => p.offsetParent).map(p => p.id)")
            check(shown == ["summary", "spec", "log", "pods", "events"], f"the pending job's panels: {shown}")

            # A job that does not exist: the server's message, once, and no polling.
            page.navigate(url + "#/jobs/default/no-such-job")
            page.wait_for("!!document.querySelector('#view .error-box')", timeout=5)
            msg = page.eval("document.querySelector('#view .error-box').textContent")
            check("does not exist" in msg, f"missing job: {msg}")
            missing = "performance.getEntriesByType('resource').filter(e => e.name.includes('/no-such-job')).length"
            n = page.eval(missing)
            time.sleep(2.5)
            check(page.eval(missing) == n, "the page of a missing job keeps polling")
            page.navigate(url + "#/jobs")

            # All but the missing job's 404, which the page asked for on purpose.
            errors = [e for e in page.errors() if "/api/jobs/default/no-such-job" not in e]
            check(errors == [], f"JavaScript errors: {errors}")
            print(f"PASS job page, local backend (screenshots: {shot}, {shot_hover})")


def api(port, path, body=None):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method="POST" if body is not None else "GET",
                                 data=json.dumps(body).encode() if body is not None else None,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def case_kube(lanectl, shots):
    """The page on the Kubernetes backend: the curves are read by exec in the running chief pod
    (the test API server's container holds the files, /_test/files; OUTPUT_DIR comes from the
    container's environment); once the pod has ended the page says why there are no curves."""
    tmp = tempfile.mkdtemp(prefix="lane-job-page-kube-")
    server, port, kubeconfig = start_apiserver(tmp, "runai-vision")
    try:
        env = {"LANECTL_BACKEND": "kubernetes", "KUBECONFIG": kubeconfig, "HOME": tmp}
        with Lane(lanectl, env=env) as lane, Chromium(width=1400, height=1000) as browser:
            lane.run("project", "create", "vision", "--gpu-quota", "3")
            lane.run("submit", "kube-train", "-p", "vision", "-i", "scnn-train", "--gpu", "1",
                     "-e", "API_TOKEN=" + SECRET, "--command", "--", "sleep", "600")
            pods = api(port, "/api/v1/namespaces/runai-vision/pods")["items"]
            check(len(pods) == 1, f"pods of kube-train: {[p['metadata']['name'] for p in pods]}")
            pod = pods[0]["metadata"]["name"]
            text = "\n".join(metrics_lines(*FIRST_STEPS)) + "\n"
            api(port, "/_test/files", {"namespace": "runai-vision", "pod": pod, "env": {"OUTPUT_DIR": "/mnt/runs"},
                                       "files": {"/mnt/runs/metrics.jsonl": text}})
            url = lane.start_dashboard()
            page = browser.open(url + "#/jobs/vision/kube-train")
            page.wait_for("document.querySelectorAll('#metrics .chart').length >= 4", timeout=15)
            page.wait_for(f"{POINTS}('Loss', 'loss') === 20", timeout=5)
            check(page.eval(f"{POINTS}('Validation', 'accuracy')") == 4, "validation points on kube")
            note = page.eval("document.querySelector('#metrics-note').textContent")
            check(note.startswith("/mnt/runs/metrics.jsonl"), f"metrics note: {note}")
            pods_rows = page.eval("[...document.querySelectorAll('#pods-body tr[data-pod]')].map(r => [...r.cells].map(c => c.textContent))")
            check(len(pods_rows) == 1 and pods_rows[0][0] == pod and pods_rows[0][3] not in ("", "–"), f"pods: {pods_rows}")
            check(SECRET not in page.eval("document.documentElement.outerHTML"), "the secret env value is in the page")
            page.eval("window.scrollTo(0, 0)")
            page.screenshot(os.path.join(shots, "job-page-kube.png"), full_page=True)

            # The pod ends: no more exec; the page says why instead of showing stale curves.
            obj = api(port, f"/api/v1/namespaces/runai-vision/pods/{pod}")
            obj["status"]["phase"] = "Succeeded"
            api(port, "/_test/object", obj)
            page.wait_for("!!document.querySelector('#metrics-reason')", timeout=15)
            reason = page.eval("document.querySelector('#metrics-reason').textContent")
            check(f"pod {pod} is Succeeded" in reason and "while it runs" in reason, f"reason: {reason}")
            check(page.errors() == [], f"JavaScript errors: {page.errors()}")
    finally:
        server.terminate()
        server.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    print("PASS job page, Kubernetes backend (test API server)")


CASES = {"local": case_local, "kube": case_kube}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lanectl", required=True)
    ap.add_argument("cases", nargs="*", default=list(CASES))
    args = ap.parse_args()
    require_chromium()
    shots = screenshot_dir(args.lanectl)
    for name in args.cases:
        CASES[name](args.lanectl, shots)


if __name__ == "__main__":
    try:
        main()
    except AssertionError as e:
        print(f"FAIL job page: {e}")
        sys.exit(1)

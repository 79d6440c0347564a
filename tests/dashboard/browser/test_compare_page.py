#!/usr/bin/env python3
"""Browser test of comparing runs, a job's evaluation and its artifacts (assets/compare.js,
eval_view.js, artifacts.js) in headless Chromium, over two real scnn-train trainings as the demo
runs them (train, then train again with other flags) and a real predict + eval job.

Checks: ticking two jobs on the Jobs page leads to #/compare; one chart per metric with both
runs (a smoothed curve over a faint raw one); the smoothing is TensorBoard's debiased EMA (the
page's module against a Python transcription of TensorBoard's code); the slider at 0 draws the
raw curve; x by epoch and wall time; the log scale; the final metrics equal the last records; the
spec differences highlighted with the secret masked; the evaluation's numbers and per-frame table
(worst first, sortable) with the selected frame's overlay at readable size; the artifacts with
sizes and a download byte for byte; no JavaScript error; screenshots compare.png and
job-evaluation.png.

  test_compare_page.py --lanectl PATH    exit 0 pass, 1 fail, 77 skip (no Chromium, LANE_REQUIRE_BROWSER unset)
"""
import argparse
import json
import os
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from chromium import Chromium, require_chromium  # noqa: E402
from fixture import Lane, screenshot_dir  # noqa: E402

SECRET = "s3cr3t-compare-value"
DATA = ("scnn-train synth --out /tmp/d --frames 12 --val-fraction 0.25 --threads 1 >/dev/null; ")
# Without warm-up, so that the runs learn within their two epochs and the validation accuracy has
# positive values for the log-scale chart below to draw as dots (log 0 has none). How many depends
# on the CPU's arithmetic (on one AVX-512 machine the run at --lr 0.05 validated at 0 twice): the
# check counts them.
TRAIN = ("scnn-train train --data-dir /tmp/d --train-labels label_data_train.json --val-labels label_data_val.json "
         "--batch-size 2 --epochs 2 --input-height 64 --input-width 96 --width-mult 0.25 --log-every 1 --threads 1 --use-val true "
         "--warmup-steps 0 --lr {lr}; echo run-trained-ok")
EVALUATE = ("scnn-train predict --checkpoint /mnt/runs/checkpoint_latest.pt --input /tmp/d/clips/synth-val "
            "--raw-root /tmp/d --labels /tmp/d/label_data_val.json --threads 1 --out /out/predictions >/dev/null; "
            "scnn-train eval --pred /out/predictions/predictions.json --gt /tmp/d/label_data_val.json; echo run-evaluated-ok")


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def tensorboard_smooth(ys, w):
    """TensorBoard's resmoothDataset (vz_line_chart2), transcribed."""
    last, n, out = 0.0, 0, []
    constant = all(y == ys[0] for y in ys)
    for y in ys:
        if constant:
            out.append(y)
            continue
        last = last * w + (1 - w) * y
        n += 1
        out.append(last / (1 - w ** n))
    return out


def wait_log(lane, name, word, timeout=240):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if word in lane.run("logs", name, check=False).stdout:
            return
        time.sleep(0.5)
    raise AssertionError(f"{name}: no '{word}' in its log within {timeout} s: {lane.run('logs', name, check=False).stdout[-2000:]}")


def api(url, path):
    with urllib.request.urlopen(url.rstrip("/") + path, timeout=30) as r:
        return json.loads(r.read())


POINTS = "(sel) => [...document.querySelectorAll(sel)].map(p => (p.getAttribute('d').match(/[ML]/g) || []).length)"


def check_compare(page, url, runs):
    page.wait_for("document.querySelectorAll('#compare-charts .compare-chart').length >= 4", timeout=20)
    titles = page.eval("[...document.querySelectorAll('#compare-charts .compare-chart')].map(c => c.dataset.metric)")
    check(titles[:3] == ["train · loss", "train · seg_loss", "train · exist_loss"] and "val · accuracy" in titles, f"charts {titles}")
    loss = "#compare-charts .compare-chart[data-metric='train · loss']"
    steps = [len(m["kinds"]["train"]["step"]) for m in runs]
    for run in (0, 1):
        for kind in ("raw", "smoothed"):
            n = page.eval(f"({POINTS})(\"{loss} path.{kind}[data-run='{run}']\")")
            check(n == [steps[run]], f"run {run} {kind} points {n}, records {steps[run]}")

    # The page's EMA is TensorBoard's (through the browser: the module the page uses).
    ys = runs[0]["kinds"]["train"]["loss"]
    for w in (0.0, 0.6, 0.95):
        got = page.eval(f"import('/smoothing.js').then(m => m.smooth({json.dumps(ys)}, {w}))")
        want = tensorboard_smooth(ys, w)
        check(all(abs(a - b) < 1e-12 for a, b in zip(got, want)), f"EMA w={w}: {got} vs {want}")

    # Slider at 0: the smoothed curve is the raw one; higher: it is not.
    d = f"(k) => document.querySelector(\"{loss} path.\" + k + \"[data-run='0']\").getAttribute('d')"
    set_smoothing = ("(v) => { const s = document.querySelector('#compare-smoothing'); s.value = v;"
                     " s.dispatchEvent(new Event('input')); }")
    page.eval(f"({set_smoothing})('0')")
    check(page.eval(f"({d})('smoothed') === ({d})('raw')"), "smoothing 0 should draw the raw curve")
    page.eval(f"({set_smoothing})('0.9')")
    check(page.eval(f"({d})('smoothed') !== ({d})('raw')"), "smoothing 0.9 should differ from the raw curve")
    check(page.eval("document.querySelector('#compare-smoothing-value').textContent") == "0.90", "slider value shown")

    # x by wall time (the records' time) and by epoch; the log scale.
    for axis, label in (("wall", "wall time"), ("epoch", "epoch"), ("step", "step")):
        page.eval(f"(() => {{ const x = document.querySelector('#compare-x'); x.value = '{axis}'; x.dispatchEvent(new Event('change')); }})()")
        xl = page.eval(f"document.querySelector(\"{loss} .xlabel\").textContent")
        n = page.eval(f"({POINTS})(\"{loss} path.smoothed\")")
        check(xl.startswith(label) and n == steps, f"x {axis}: label {xl!r}, points {n}")
    # Few points get dots (a run with one validation record has no line): the validation accuracy
    # of each run, one dot per record on the linear scale, one per positive smoothed value on the
    # log scale.
    acc = "#compare-charts .compare-chart[data-metric='val · accuracy']"

    def check_dots(scale, want):
        for run in (0, 1):
            ys = runs[run]["kinds"]["val"]["accuracy"]
            dots = page.eval(f"document.querySelectorAll(\"{acc} circle.dot[data-run='{run}']\").length")
            check(dots == want(ys), f"{scale} scale: run {run}: {dots} dots, not {want(ys)} (validation accuracies {ys})")

    check_dots("linear", len)
    linear = page.eval(f"({d})('smoothed')")
    page.click("#compare-log")
    page.wait_for(f"({d})('smoothed') !== {json.dumps(linear)}")
    check(page.eval(f"document.querySelector(\"{loss} .nodata\")") is None, "log scale: loss has positive values")
    w = float(page.eval("document.querySelector('#compare-smoothing').value"))
    check_dots("log", lambda ys: sum(v > 0 for v in tensorboard_smooth(ys, w)))

    # Final metrics: the last record of each run.
    finals = page.eval("[...document.querySelectorAll('#compare-final tbody tr')].map(r => [r.cells[0].textContent,"
                       " ...[...r.cells].slice(1).map(c => c.textContent)])")
    row = next(r for r in finals if r[0] == "train · loss")
    for run in (0, 1):
        want = runs[run]["kinds"]["train"]["loss"][-1]
        check(abs(float(row[run + 1]) - want) <= 1e-3 * abs(want), f"final loss {row} vs {want}")
    check(any(r[0] == "val · accuracy" for r in finals), f"final rows {[r[0] for r in finals]}")

    # Spec differences: the command (another --lr) and the env value, highlighted; the secret masked.
    diff = page.eval("[...document.querySelectorAll('#compare-diff tr.differs')].map(r => r.cells[0].textContent)")
    check("command" in diff and "env.RUN_NOTE" in diff and "env.API_TOKEN" not in diff, f"differing fields {diff}")
    check(SECRET not in page.eval("document.documentElement.outerHTML"), "the secret is in the compare page")


def check_evaluation(page, url, shots):
    ev = api(url, "/api/jobs/default/evaluate/evaluation")
    page.wait_for("!!document.querySelector('#eval-table tbody tr')", timeout=20)
    shown = page.eval("['#eval-accuracy', '#eval-fp', '#eval-fn'].map(s => document.querySelector(s + ' b').textContent)")
    check(shown[0] == "%.2f %%" % (100 * ev["accuracy"]), f"accuracy shown {shown} vs {ev['accuracy']}")
    check(abs(float(shown[1]) - ev["fp"]) < 1e-3 and abs(float(shown[2]) - ev["fn"]) < 1e-3, f"FP/FN {shown} vs {ev}")
    frames = page.eval("[...document.querySelectorAll('#eval-table tbody tr')].map(r => r.dataset.frame)")
    check(frames == [r["raw_file"] for r in ev["rows"]], f"rows {frames} vs {[r['raw_file'] for r in ev['rows']]}")
    accs = [r["accuracy"] for r in ev["rows"]]
    check(accs == sorted(accs), f"worst first: {accs}")
    # Sort by accuracy twice: descending, best first. Each click re-renders the table and the
    # selected frame's overlay (whose loading may move the header), so the second click waits for
    # the first one's table and its overlay.
    settled = "(() => { const i = document.querySelector('#eval-frame img'); return !i || (i.complete && i.naturalWidth > 0); })()"
    for order in ("ascending", "descending"):
        page.wait_for(settled, timeout=10)
        page.click("#eval-table th button[data-key='accuracy']")
        page.wait_for(f"document.querySelector('#eval-table th[aria-sort={order}] button[data-key=accuracy]')", timeout=10)
    desc = page.eval("[...document.querySelectorAll('#eval-table tbody tr')].map(r => r.dataset.frame)")
    check(desc[0] == sorted(ev["rows"], key=lambda r: -r["accuracy"])[0]["raw_file"], f"descending {desc}")
    # A row's overlay beside the table, decoded, at a readable width.
    page.click("#eval-table tbody tr:last-child")
    page.wait_for("(() => { const i = document.querySelector('#eval-frame img'); return i && i.complete && i.naturalWidth > 0; })()", timeout=10)
    width = page.eval("document.querySelector('#eval-frame img').getBoundingClientRect().width")
    check(width >= 320, f"overlay shown {width} px wide")
    check(desc[-1] in page.eval("document.querySelector('#eval-frame figcaption').textContent"), "caption names the frame")
    order = page.eval("document.querySelector('#overlays-order') && document.querySelector('#overlays-order').textContent")
    check(order and "worst frames of the evaluation" in order, f"overlay panel: {order}")
    page.eval("document.querySelector('#evaluation').scrollIntoView()")
    page.screenshot(os.path.join(shots, "job-evaluation.png"))


def check_artifacts(page, url):
    doc = api(url, "/api/jobs/default/evaluate/artifacts")
    page.wait_for("!!document.querySelector('#artifacts-table tbody tr')", timeout=20)
    rows = page.eval("[...document.querySelectorAll('#artifacts-table tbody tr')].map(r => [r.dataset.path, r.cells[2].title])")
    files = [i for i in doc["items"] if i["kind"] != "overlay"]
    check(rows == [[i["path"], f"{i['size']} bytes"] for i in files], f"artifact rows {rows}")
    ckpt = next(i for i in files if i["path"] == "/mnt/runs/checkpoint_latest.pt")
    got = page.eval("(async () => { const a = document.querySelector(\"#artifacts-table tr[data-path='/mnt/runs/checkpoint_latest.pt'] a\");"
                    " const r = await fetch(a.href); return [r.status, r.headers.get('Content-Disposition'), (await r.arrayBuffer()).byteLength]; })()")
    check(got == [200, 'attachment; filename="checkpoint_latest.pt"', ckpt["size"]], f"download {got} vs {ckpt}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lanectl", required=True)
    args = ap.parse_args()
    require_chromium()
    shots = screenshot_dir(args.lanectl)
    with Lane(args.lanectl) as lane, tempfile.TemporaryDirectory(prefix="lanectl-compare-") as scratch:
        os.chmod(scratch, 0o777)  # the job may run as its project's own user
        for name, lr, note in (("train-a", "0.02", "first"), ("train-b", "0.05", "retrain")):
            lane.run("submit", name, "-i", "scnn-train", "--pvc", ":1Gi:/mnt", "-e", "API_TOKEN=" + SECRET,
                     "-e", "RUN_NOTE=" + note, "--command", "--", "sh", "-c", DATA + TRAIN.format(lr=lr))
            wait_log(lane, name, "run-trained-ok")
        lane.run("submit", "evaluate", "-i", "scnn-train", "--pvc", ":1Gi:/mnt", "-v", scratch + ":/out",
                 "--command", "--", "sh", "-c", DATA + TRAIN.format(lr="0.02") + "; " + EVALUATE)
        lane.run("project", "create", "research", "--gpu-quota", "0")
        lane.run("submit", "plain", "-p", "research", "-i", "ubuntu", "--command", "--", "true")
        url = lane.start_dashboard()
        runs = [api(url, f"/api/jobs/default/{n}/metrics") for n in ("train-a", "train-b")]
        check(all(m["available"] and "time" in m["kinds"]["train"] for m in runs), "the trainer's records carry time")
        with Chromium(width=1400, height=1000) as browser:
            page = browser.open(url + "#/jobs")
            page.wait_for("!!document.querySelector(\"input.compare-select[data-job='default/train-b']\")", timeout=15)
            page.click("input.compare-select[data-job='default/train-a']")
            page.click("input.compare-select[data-job='default/train-b']")
            check(page.eval("document.querySelector('#compare-link').textContent") == "Compare 2 runs", "compare link")
            page.click("#compare-link")
            page.wait_for("location.hash === '#/compare?jobs=default%2Ftrain-a,default%2Ftrain-b'")
            check_compare(page, url, runs)
            page.eval("window.scrollTo(0, 0)")
            page.screenshot(os.path.join(shots, "compare.png"), full_page=True)
            # On a phone the charts are drawn at their boxes' width: text as large as on a desktop.
            page.resize(390, 844)
            page.wait_for("[...document.querySelectorAll('#compare-charts svg')].every("
                          "(s) => Math.abs(s.getScreenCTM().a - 1) < 0.01)", timeout=5)
            small = page.small_texts(10)
            check(small["checked"] >= 20 and not small["bad"], f"compare page at 390 px: {small}")
            check(page.eval("document.documentElement.scrollWidth <= innerWidth"), "compare page at 390 px scrolls sideways")
            page.screenshot(os.path.join(shots, "compare-390.png"), full_page=True)
            page.resize(1400, 1000)

            # A link with bare job names opened in a new tab (before the jobs stream's first list)
            # finds the jobs by name, in whichever project they are ("plain" is research's: it has no
            # curves, which the page notes, naming research/plain).
            bare = browser.open(url + "#/compare?jobs=train-a,plain")
            bare.wait_for("document.querySelectorAll('#compare-charts .compare-chart').length >= 4", timeout=20)
            bare.wait_for("document.querySelector('#compare-notes').textContent !== ''", timeout=20)
            notes = bare.eval("document.querySelector('#compare-notes').textContent")
            check(notes.startswith("research/plain: no curves") and "does not exist" not in notes, f"bare names: {notes}")
            check(bare.errors() == [], f"JavaScript errors (bare names): {bare.errors()}")
            bare.close()

            wait_log(lane, "evaluate", "run-evaluated-ok")
            page.eval("location.hash = '#/jobs/default/evaluate'")
            check_evaluation(page, url, shots)
            check_artifacts(page, url)
            check(page.errors() == [], f"JavaScript errors: {page.errors()}")
    print("PASS compare page, evaluation and artifacts over real scnn-train runs")


if __name__ == "__main__":
    try:
        main()
    except AssertionError as e:
        print(f"FAIL compare page: {e}")
        sys.exit(1)

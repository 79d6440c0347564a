#!/usr/bin/env python3
"""bench/dashboard_jobs.py: the dashboard's Jobs page with 10,000 jobs, measured in Chromium.

    python3 bench/dashboard_jobs.py --lanectl build/release/bin/lanectl [--jobs 10000] [--baseline 100] [--runs 5]
                                    [--backend local|kube]

Data: a fresh LANECTL_HOME per size, seeded with tests/dashboard/browser/seed.py (lanectl makes
the schema, projects and a node; the job rows are inserted in one transaction, as bench/list_jobs
does, because 10,000 `lanectl submit`s would start 10,000 processes; everything is then read
through the product: the local backend's list_jobs, the dashboard's feed and API, the page).
--backend kube instead preloads that many MPIJobs (launcher + worker pod each, running) into the
test Kubernetes API server (tests/kube/fake_apiserver.py, /_test/bulk) and runs the dashboard on
the Kubernetes backend against it; the Python server's listing is then most of the wait.

Per run (median of --runs): a fresh `lanectl dashboard` (its feed idle: the page's stream makes it
list the jobs, the cold case a first visitor sees) and a fresh tab, then in the browser
  first-screen   navigation start -> the frame that painted the first rows (jobs.js's performance
                 mark "jobs:first-screen", after requestAnimationFrame + task)
  first-list     navigation start -> the stream's first event (the whole list) arrived (ui.js's mark)
  first-rows     navigation start -> the first rows are in the DOM (mark "jobs:first-rows")
  rows in DOM    how many rows the page built
and, in the same tab, re-sorting by NAME (a click on the header) until the next paint, against
  render-all     the same sort and every row built into the table (what the page did before it
                 was virtualised: tbody.replaceChildren(...jobs.map(row))), until the next paint.
Server side: bytes of the list, and the dashboard's CPU time over 10 s with the page open and
nothing changing (the poller) and 5 s after the page closed (idle).
Baselines in the same run: the page with --baseline jobs (ratio), and render-all (ratio).
"""
import argparse
import contextlib
import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "dashboard", "browser"))
from chromium import Chromium, require_chromium  # noqa: E402
from fixture import Lane, start_apiserver  # noqa: E402
from seed import seed_local_jobs  # noqa: E402

FIRST_SCREEN_JS = """new Promise((resolve) => {
  const done = () => {
    const mark = (n) => { const e = performance.getEntriesByName(n)[0]; return e ? e.startTime : null; };
    const fcp = performance.getEntriesByName('first-contentful-paint')[0];
    setTimeout(() => resolve({firstList: mark('jobs:first-list'), firstRows: mark('jobs:first-rows'),
      firstScreen: mark('jobs:first-screen'),
      fcp: fcp ? fcp.startTime : null,
      rows: document.querySelectorAll('#jobs-body tr[data-job]').length,
      count: document.getElementById('count').textContent}), 50);
  };
  const poll = () => performance.getEntriesByName('jobs:first-screen').length ? done() : setTimeout(poll, 10);
  poll();
})"""

# Time from a click on NAME to the next painted frame, virtualised (the page itself).
RESORT_JS = """new Promise((resolve) => {
  const t0 = performance.now();
  document.querySelector('#jobs th[data-key=name]').click();
  requestAnimationFrame(() => setTimeout(() => resolve({ms: performance.now() - t0,
    rows: document.querySelectorAll('#jobs-body tr[data-job]').length}), 0));
})"""

# The same sort with every row built into the table (the pre-virtualisation jobs.js render); `ui`
# is the page's own module (not a global).
RENDER_ALL_JS = """import('/ui.js').then(({ui}) => new Promise((resolve) => {
  const t0 = performance.now();
  const now = Date.now();
  const jobs = [...ui.jobsFeed.jobs].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const cell = (text, cls) => ui.el('td', {class: cls, text});
  const row = (job) => {
    const tr = ui.el('tr', {dataset: {job: job.project + '/' + job.name}});
    tr.append(ui.el('td', {}, ui.el('a', {href: ui.jobHref(job.project, job.name), text: job.name})));
    tr.append(ui.el('td', {}, ui.statusBadge(job.status, job.statusReason)));
    tr.append(cell(ui.formatAge(ui.since(job.createdAt, now))));
    tr.append(cell((job.nodes || []).join(', ') || '-'));
    tr.append(cell(job.image || '-', 'image'));
    tr.append(cell(job.type));
    tr.append(cell(job.project));
    tr.append(cell(job.user || '-'));
    tr.append(cell(ui.gpus(job.gpusAllocated) + ' (' + ui.gpus(job.gpusRequested) + ')', 'num'));
    tr.append(cell((job.podsRunning || 0) + ' (' + (job.podsPending || 0) + ')', 'num'));
    return tr;
  };
  document.getElementById('jobs-body').replaceChildren(...jobs.map(row));
  requestAnimationFrame(() => setTimeout(() => resolve({ms: performance.now() - t0,
    rows: document.querySelectorAll('#jobs-body tr[data-job]').length}), 0));
}))"""


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


@contextlib.contextmanager
def backend(kind, lanectl, jobs):
    """A Lane with `jobs` jobs: local (seed.py) or kube (the test API server's /_test/bulk: that
    many MPIJobs of a launcher and a worker pod, running, in namespace runai-bench)."""
    if kind == "local":
        with Lane(lanectl) as lane:
            seed_local_jobs(lane, jobs)
            yield lane
        return
    tmp = tempfile.mkdtemp(prefix="bench-dashboard-kube-")
    server, port, kubeconfig = start_apiserver(tmp, "runai-bench")
    try:
        body = json.dumps({"namespace": "runai-bench", "mpijobs": jobs, "pods_per_job": 2}).encode()
        urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{port}/_test/bulk", data=body, method="POST"))
        with Lane(lanectl, env={"LANECTL_BACKEND": "kubernetes", "KUBECONFIG": kubeconfig, "HOME": tmp}) as lane:
            yield lane
    finally:
        server.kill()
        server.wait()
        shutil.rmtree(tmp, ignore_errors=True)


def measure(lanectl, jobs, runs, browser, server_cpu=False, kind="local"):
    out = {"jobs": jobs, "runs": []}
    with backend(kind, lanectl, jobs) as lane:
        for i in range(runs):
            url = lane.start_dashboard()
            page = browser.open("about:blank")
            page.navigate(url)
            r = page.eval(FIRST_SCREEN_JS, timeout=60)
            expect = f"{jobs} of {jobs} jobs"
            if r["count"] != expect:
                raise AssertionError(f"the page shows '{r['count']}', expected '{expect}'")
            r["resort"] = page.eval(RESORT_JS)
            r["renderAll"] = page.eval(RENDER_ALL_JS, timeout=120)
            if page.errors():
                raise AssertionError(f"JavaScript errors: {page.errors()}")
            if server_cpu and i == runs - 1:
                pid = lane.dashboards[-1].pid
                page.navigate(url)  # a fresh page, its stream open, nothing changing
                page.wait_for(f"document.getElementById('count').textContent === '{expect}'", timeout=30)
                c0, t0 = cpu_seconds(pid), time.monotonic()
                time.sleep(10)
                out["viewedCpu"] = (cpu_seconds(pid) - c0) / (time.monotonic() - t0)
                page.close()
                time.sleep(11)  # the closed stream is noticed at its next keep-alive (5 s)
                c0, t0 = cpu_seconds(pid), time.monotonic()
                time.sleep(5)
                out["idleCpu"] = (cpu_seconds(pid) - c0) / (time.monotonic() - t0)
                out["listBytes"] = len(urllib.request.urlopen(url + "api/jobs").read())
            else:
                page.close()
            lane.stop_dashboards()
            out["runs"].append(r)
            print(f"  {jobs} jobs run {i + 1}: first screen {r['firstScreen']:.0f} ms (list at {r['firstList']:.0f} ms, "
                  f"rows in the DOM at {r['firstRows']:.0f} ms; first contentful paint {r['fcp'] or 0:.0f} ms), "
                  f"{r['rows']} rows in the DOM; re-sort {r['resort']['ms']:.1f} ms; render-all "
                  f"{r['renderAll']['ms']:.1f} ms ({r['renderAll']['rows']} rows)", flush=True)
    for k in ("firstList", "firstRows", "firstScreen", "fcp"):
        out[k] = median(r[k] for r in out["runs"])
    out["resort"] = median(r["resort"]["ms"] for r in out["runs"])
    out["renderAll"] = median(r["renderAll"]["ms"] for r in out["runs"])
    out["rows"] = out["runs"][0]["rows"]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lanectl", required=True)
    ap.add_argument("--jobs", type=int, default=10000)
    ap.add_argument("--baseline", type=int, default=100)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--backend", choices=["local", "kube"], default="local",
                    help="kube: the jobs are MPIJobs preloaded into the test Kubernetes API server")
    ap.add_argument("--json", help="also write the figures here")
    args = ap.parse_args()
    require_chromium()
    model = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    print(f"machine: {os.cpu_count()} CPUs, {model}, {platform.platform()}; load {os.getloadavg()}")
    with Chromium(width=1400, height=900) as browser:
        print(f"browser: {browser.conn.send('Browser.getVersion')['product']}, viewport 1400x900")
        print(f"backend: {args.backend}")
        base = measure(args.lanectl, args.baseline, args.runs, browser, kind=args.backend)
        big = measure(args.lanectl, args.jobs, args.runs, browser, server_cpu=True, kind=args.backend)
    print(f"load after: {os.getloadavg()}")
    print()
    print(f"| case | median ms ({args.runs} runs) | ratio |")
    print("|---|---:|---:|")
    print(f"| first screen, {args.jobs:,} jobs (navigation start -> rows painted) | {big['firstScreen']:.0f} | "
          f"{big['firstScreen'] / base['firstScreen']:.2f}x the {args.baseline} |")
    print(f"| first screen, {args.baseline} jobs (baseline) | {base['firstScreen']:.0f} | 1.00x |")
    print(f"| the list arrived (stream's first event), {args.jobs:,} / {args.baseline} jobs | {big['firstList']:.0f} / "
          f"{base['firstList']:.0f} | {big['firstList'] / base['firstList']:.2f}x |")
    print(f"| first rows in the DOM, {args.jobs:,} / {args.baseline} jobs | {big['firstRows']:.0f} / "
          f"{base['firstRows']:.0f} | {big['firstRows'] / base['firstRows']:.2f}x |")
    print(f"| first contentful paint (top bar, before any job), {args.jobs:,} / {args.baseline} jobs | "
          f"{big['fcp']:.0f} / {base['fcp']:.0f} | {big['fcp'] / base['fcp']:.2f}x |")
    print(f"| re-sort {args.jobs:,} by NAME to next paint, virtualised ({big['rows']} rows in the DOM) | "
          f"{big['resort']:.1f} | 1.00x |")
    print(f"| the same with every row in the DOM (render-all baseline, {args.jobs:,} rows) | {big['renderAll']:.1f} | "
          f"{big['renderAll'] / big['resort']:.1f}x |")
    print()
    print(f"list document: {big['listBytes'] / 1e6:.2f} MB for {args.jobs:,} jobs; dashboard CPU with the page open "
          f"and nothing changing: {big['viewedCpu'] * 100:.1f} % of a core; after it closed: {big['idleCpu'] * 100:.2f} %")
    met = big["firstScreen"] < 1000
    print(f"goal: first screen of {args.jobs:,} jobs < 1000 ms: {'met' if met else 'NOT met'} ({big['firstScreen']:.0f} ms)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"baseline": base, "jobs": big}, f, indent=1)
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())

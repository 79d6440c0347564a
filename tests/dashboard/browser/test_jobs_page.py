#!/usr/bin/env python3
"""The dashboard's Jobs page in headless Chromium (tests/dashboard/browser/chromium.py).

  test_jobs_page.py --lanectl PATH [--out DIR] CASE...
    live   local backend, jobs running in two projects: the Run:AI columns and each row's values
           against `lanectl list -o json`, the project/status/text filters, sorting by clicking a
           header, the job links (#/jobs/P/N), no JS error, and a job submitted from the CLI shows
           in the page within 2 s of the submit's return without a reload
    scale  2,000 jobs (seeded, tests/dashboard/browser/seed.py): only about a screenful of rows is
           in the DOM, scrolling shows later rows, sorting and filtering cover all the jobs
    kube   the Kubernetes backend against the test API server (tests/kube/fake_apiserver.py): a job
           submitted with lanectl shows; /api/projects and /api/nodes answer 200
    crowded  every event stream taken (16, held by this test): the page's stream is refused (503),
           it says "polling" and a job submitted from the CLI still shows without a reload
Screenshots go to --out (ctest: <build>/dashboard-screenshots). Exit 77: skipped (no Chromium).
"""
import json
import os
import shutil
import socket
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from chromium import Chromium  # noqa: E402
from fixture import Lane, start_apiserver, run_cases  # noqa: E402
from seed import seed_local_jobs  # noqa: E402

COLUMNS = ["NAME", "STATUS", "AGE", "NODE", "IMAGE", "TYPE", "PROJECT", "USER",
           "GPUs Allocated (Requested)", "PODs Running (Pending)"]

# The rows in the DOM: {project/name: [cell texts]} in display order (a list of pairs).
ROWS_JS = ("[...document.querySelectorAll('#jobs-body tr[data-job]')]"
           ".map(tr => [tr.dataset.job, [...tr.cells].map(td => td.textContent)])")


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def gpus(v):
    v = float(v or 0)
    return str(int(v)) if v.is_integer() else f"{v:.2f}".rstrip("0")


def expected_cells(job):
    """The cells the page shows for a `list -o json` job, but AGE (it moves on)."""
    nodes = job.get("nodes") or []
    node = (nodes[0] + (f" +{len(nodes) - 1}" if len(nodes) > 1 else "")) if nodes else "-"
    return [job["name"], job["status"], None, node, job.get("image") or "-",
            job["type"], job["project"], job.get("user") or "-",
            f"{gpus(job.get('gpusAllocated'))} ({gpus(job.get('gpusRequested'))})",
            f"{job.get('podsRunning', 0)} ({job.get('podsPending', 0)})"]


def rows(page):
    return page.eval(ROWS_JS)


def set_filter(page, element_id, value):
    page.eval("(() => { const e = document.getElementById(%s); e.value = %s; e.dispatchEvent(new Event('input')); })()"
              % (json.dumps(element_id), json.dumps(value)))


def check_no_errors(page):
    errors = page.errors()
    check(errors == [], f"JavaScript errors on the page: {errors}")


def case_live(lanectl, out):
    with Lane(lanectl) as lane, Chromium() as browser:
        lane.run("cluster", "set-nodes", "node-a=4")
        lane.run("project", "create", "team-b", "--gpu-quota", "2")
        lane.run("submit", "train-a", "-i", "ubuntu", "--gpu", "1", "--command", "--", "sleep", "60")
        lane.run("submit", "prep-b", "-i", "busybox", "--command", "--", "true")
        lane.run("submit", "eval-c", "-p", "team-b", "-i", "python", "--gpu", "0.5", "--command", "--", "sleep", "60")
        lane.run("submit", "wait-d", "-p", "team-b", "-i", "ubuntu", "--gpu", "4", "--command", "--", "sleep", "60")
        deadline = time.monotonic() + 10
        while {j["name"]: j["status"] for j in lane.json("list", "-A")}.get("prep-b") != "Succeeded":
            check(time.monotonic() < deadline, "prep-b did not finish within 10 s")
            time.sleep(0.1)
        url = lane.start_dashboard()
        page = browser.open(url)
        page.wait_for("document.querySelectorAll('#jobs-body tr[data-job]').length === 4")

        # The Run:AI columns, and each row as `lanectl list -o json` says.
        headers = page.eval("[...document.querySelectorAll('#jobs thead th')].map(th => th.textContent)")
        check(headers == COLUMNS, f"column headers {headers}")
        listed = {f"{j['project']}/{j['name']}": j for j in lane.json("list", "-A")}
        shown = dict(rows(page))
        check(set(shown) == set(listed), f"rows {sorted(shown)} vs list -A {sorted(listed)}")
        for key, cells in shown.items():
            want = expected_cells(listed[key])
            got = [c if w is not None else None for c, w in zip(cells, want)]
            check(got == want, f"row {key}: {cells} vs {want}")
            check(cells[2].endswith(("s", "m")), f"row {key}: AGE {cells[2]!r}")
        statuses = {k: v[1] for k, v in shown.items()}
        check(statuses == {"default/train-a": "Running", "default/prep-b": "Succeeded", "team-b/eval-c": "Running",
                           "team-b/wait-d": "Pending"}, f"statuses {statuses}")
        check(shown["team-b/eval-c"][8] == "0.5 (0.5)" and shown["team-b/wait-d"][8] == "0 (4)",
              "GPU columns (fractions, pending)")
        check(page.eval("document.getElementById('count').textContent") == "4 of 4 jobs", "the count")
        chips = page.eval("[...document.querySelectorAll('#summary .chip')].map(c => [c.dataset.status, c.querySelector('b').textContent])")
        check(chips == [["Running", "2"], ["Pending", "1"], ["Succeeded", "1"]], f"status summary {chips}")
        # Each chip shows its status dot, in its status colour: the chip is wider than its text by
        # the dot (8 px), its gap (6 px) and the padding (2 x 12 px). The pages share one document,
        # so this also catches another page's stylesheet restyling `.chip`.
        dots = page.eval("""[...document.querySelectorAll('#summary .chip')].map((c) => {
            const r = document.createRange(); r.selectNodeContents(c);
            return [c.dataset.status, c.getBoundingClientRect().width - r.getBoundingClientRect().width,
                    getComputedStyle(c, '::before').backgroundColor]; })""")
        check(all(d[1] >= 36 for d in dots) and len({d[2] for d in dots}) == 3, f"status dots (status, room, colour): {dots}")
        page.screenshot(os.path.join(out, "jobs.png"))
        page.click('#summary .chip[data-status="Pending"]')  # a chip filters by its status, again: all
        check([k for k, _ in rows(page)] == ["team-b/wait-d"] and page.eval("document.getElementById('filter-status').value")
              == "Pending", f"the Pending chip: {rows(page)}")
        page.click('#summary .chip[data-status="Pending"]')
        check(len(rows(page)) == 4 and page.eval("document.getElementById('filter-status').value") == "", "chip again: all")

        # Filters: project, status, text; each narrows the rows, "All" brings them back.
        options = page.eval("[...document.querySelectorAll('#filter-project option')].map(o => o.value)")
        check(options == ["", "default", "team-b"], f"project filter options {options}")
        set_filter(page, "filter-project", "team-b")
        check(sorted(k for k, _ in rows(page)) == ["team-b/eval-c", "team-b/wait-d"], f"project filter: {rows(page)}")
        check(page.eval("document.getElementById('count').textContent") == "2 of 4 jobs", "count with a filter")
        set_filter(page, "filter-status", "Running")
        check([k for k, _ in rows(page)] == ["team-b/eval-c"], f"project+status filter: {rows(page)}")
        page.screenshot(os.path.join(out, "jobs-filtered.png"))
        set_filter(page, "filter-project", "")
        check(sorted(k for k, _ in rows(page)) == ["default/train-a", "team-b/eval-c"], f"status filter: {rows(page)}")
        set_filter(page, "filter-status", "")
        set_filter(page, "filter-text", "busy")
        check([k for k, _ in rows(page)] == ["default/prep-b"], f"text filter (image): {rows(page)}")
        set_filter(page, "filter-text", "")
        set_filter(page, "filter-status", "Failed")  # no option: the select falls back to "all"
        check(len(rows(page)) == 4, "an unknown status value must not hide everything")
        set_filter(page, "filter-status", "")

        # Sorting: a click on NAME sorts by name, a second click reverses; PROJECT, then GPUs.
        page.click('#jobs th[data-key="name"]')
        names = [k.split("/")[1] for k, _ in rows(page)]
        check(names == sorted(names), f"sorted by name: {names}")
        check(page.eval("document.querySelector('#jobs th[data-key=name]').classList.contains('sorted-asc')"),
              "the NAME header shows the ascending sort")
        page.click('#jobs th[data-key="name"]')
        names = [k.split("/")[1] for k, _ in rows(page)]
        check(names == sorted(names, reverse=True), f"sorted by name, reversed: {names}")
        page.click('#jobs th[data-key="gpus"]')
        allocated = [float(c[8].split()[0]) for _, c in rows(page)]
        check(allocated == sorted(allocated), f"sorted by GPUs allocated: {allocated}")

        # A job's name links to its page.
        hrefs = page.eval("[...document.querySelectorAll('#jobs-body tr[data-job] td:first-child a')]"
                          ".map(a => a.getAttribute('href'))")
        check(sorted(hrefs) == ["#/jobs/default/prep-b", "#/jobs/default/train-a", "#/jobs/team-b/eval-c",
                                "#/jobs/team-b/wait-d"], f"job links {hrefs}")
        page.eval("window.pageMarker = 'still-here'")
        page.click('#jobs-body tr[data-job="team-b/eval-c"] a')
        page.wait_for("location.hash === '#/jobs/team-b/eval-c'", timeout=2)
        check(page.eval("window.pageMarker") == "still-here", "following a job link reloaded the page")
        page.navigate(url + "#/jobs")
        page.wait_for("document.querySelectorAll('#jobs-body tr[data-job]').length === 4")

        # Live: a job submitted from the CLI shows within 2 s of the submit's return, no reload.
        # "#/jobs" has no sort in its URL: the default one, AGE ascending (newest first).
        check(page.eval("document.querySelector('#jobs th[data-key=age]').classList.contains('sorted-asc')"),
              "AGE ascending (newest first)")
        page.eval("""(() => {
            window.liveSeenAt = 0;
            const seen = () => { if (!window.liveSeenAt && document.querySelector('#jobs-body tr[data-job="team-b/live-e"]'))
                                   window.liveSeenAt = Date.now(); };
            new MutationObserver(seen).observe(document.getElementById('jobs-body'), {childList: true, subtree: true});
        })()""")
        navigations = page.eval("performance.getEntriesByType('navigation').length + ':' + performance.timeOrigin")
        lane.run("submit", "live-e", "-p", "team-b", "-i", "ubuntu", "--command", "--", "sleep", "60")
        returned = time.time()
        seen_at = page.wait_for("window.liveSeenAt", timeout=5) / 1000.0
        delay = seen_at - returned
        print(f"  the job submitted from the CLI showed {delay:.2f} s after the submit returned")
        check(delay < 2.0, f"the submitted job showed only after {delay:.2f} s (limit 2 s)")
        check(page.eval("window.pageMarker") == "still-here", "the page reloaded (window marker lost)")
        check(page.eval("performance.getEntriesByType('navigation').length + ':' + performance.timeOrigin") == navigations,
              "the page navigated")
        created = {f"{j['project']}/{j['name']}": j["createdAt"] for j in lane.json("list", "-A")}
        first = rows(page)[0][0]  # newest first (createdAt has whole seconds: live-e or a tie)
        check(created[first] == created["team-b/live-e"] == max(created.values()), f"newest first: {rows(page)[:2]}")
        check(page.eval("document.getElementById('live').textContent") == "live", "the live indicator")
        page.screenshot(os.path.join(out, "jobs-live.png"))

        # A deleted job leaves the page the same way.
        lane.run("delete", "prep-b")
        page.wait_for("!document.querySelector('#jobs-body tr[data-job=\"default/prep-b\"]')", timeout=3)
        check_no_errors(page)
    print("PASS live")


def case_scale(lanectl, out, count=2000):
    with Lane(lanectl) as lane, Chromium(width=1400, height=900) as browser:
        projects = seed_local_jobs(lane, count)
        url = lane.start_dashboard()
        page = browser.open(url)
        page.wait_for(f"document.getElementById('count').textContent === '{count} of {count} jobs'", timeout=15)
        in_dom = page.eval("document.querySelectorAll('#jobs-body tr[data-job]').length")
        visible = page.eval("Math.ceil(innerHeight / document.querySelector('#jobs-body tr[data-job]').offsetHeight)")
        print(f"  {count} jobs: {in_dom} rows in the DOM for a viewport of {visible} rows")
        check(visible <= in_dom <= visible * 3, f"{in_dom} rows in the DOM for {visible} visible (not virtualised?)")
        # The table is as tall as all its rows: the scroll bar covers every job.
        row_h = page.eval("document.querySelector('#jobs-body tr[data-job]').getBoundingClientRect().height")
        body_h = page.eval("document.getElementById('jobs-body').offsetHeight")
        check(abs(body_h - row_h * count) <= row_h, f"tbody height {body_h} for {count} rows of {row_h}px")

        page.click('#jobs th[data-key="name"]')
        first = rows(page)[0][0]
        check(first.endswith("/job-00000"), f"first row sorted by name: {first}")
        page.screenshot(os.path.join(out, "jobs-2000-top.png"))
        # Scroll to the end: the last jobs are there, the first ones left the DOM.
        page.eval("window.scrollTo(0, document.body.scrollHeight)")
        page.wait_for(f"document.querySelector('#jobs-body tr[data-job$=\"/job-{count - 1:05d}\"]')", timeout=3)
        keys = [k for k, _ in rows(page)]
        check(not any(k.endswith("/job-00000") for k in keys), "the first row is still in the DOM at the bottom")
        check(len(keys) <= visible * 3, f"{len(keys)} rows in the DOM after scrolling")
        names = [k.split("/")[1] for k in keys]
        check(names == sorted(names), f"rows at the bottom are in name order: {names[:3]}...")
        check(page.eval(f"document.querySelector('#jobs-body tr[data-job$=\"/job-{count - 1:05d}\"]')"
                        ".getBoundingClientRect().bottom <= innerHeight"), "the last row is on screen")
        page.screenshot(os.path.join(out, "jobs-2000-bottom.png"))
        # Middle: row i of the sorted list is at i * row height.
        page.eval(f"window.scrollTo(0, document.getElementById('jobs-body').getBoundingClientRect().top + scrollY + 1000 * {row_h})")
        page.wait_for("document.querySelector('#jobs-body tr[data-job$=\"/job-01000\"]')", timeout=3)
        top = page.eval("document.querySelector('#jobs-body tr[data-job$=\"/job-01000\"]').getBoundingClientRect().top")
        check(abs(top) <= 2, f"job-01000 should be at the top of the viewport, is at {top}px")

        # Filtering and sorting cover all the jobs, not only those rendered.
        set_filter(page, "filter-project", projects[3])
        page.wait_for(f"document.getElementById('count').textContent === '{count // 4} of {count} jobs'")
        page.eval("window.scrollTo(0, 0)")
        page.click('#jobs th[data-key="name"]')  # reversed: the last job of team-3 first
        first = page.wait_for("document.querySelector('#jobs-body tr[data-job]').dataset.job")
        check(first == f"{projects[3]}/job-{count - 1:05d}", f"first row of {projects[3]} by name, reversed: {first}")
        set_filter(page, "filter-status", "Failed")
        failed = sum(1 for i in range(count) if i % 4 == 3 and i % 10 == 5)  # seed.py's rule
        page.wait_for(f"document.getElementById('count').textContent === '{failed} of {count} jobs'")
        check(all(c[1] == "Failed" for _, c in rows(page)), "status filter over all the jobs")
        check_no_errors(page)
    print("PASS scale")


def case_kube(lanectl, out):
    tmp = tempfile.mkdtemp(prefix="lane-browser-kube-")
    server, port, kubeconfig = start_apiserver(tmp, "runai-vision")
    try:
        env = {"LANECTL_BACKEND": "kubernetes", "KUBECONFIG": kubeconfig, "HOME": tmp}
        with Lane(lanectl, env=env) as lane, Chromium() as browser:
            lane.run("project", "create", "vision", "--gpu-quota", "3")
            lane.run("submit", "kube-train", "-p", "vision", "-i", "ubuntu", "--gpu", "1", "--command", "--", "sleep", "60")
            url = lane.start_dashboard()
            page = browser.open(url)
            page.wait_for("document.querySelector('#jobs-body tr[data-job=\"vision/kube-train\"]')", timeout=10)
            listed = {f"{j['project']}/{j['name']}": j for j in lane.json("list", "-A")}
            shown = dict(rows(page))
            check(set(shown) == set(listed), f"rows {sorted(shown)} vs list -A {sorted(listed)}")
            for key, cells in shown.items():
                want = expected_cells(listed[key])
                check([c if w is not None else None for c, w in zip(cells, want)] == want, f"row {key}: {cells} vs {want}")
            # A second job submitted while the page is open shows without a reload.
            page.eval("window.pageMarker = 1")
            lane.run("submit-mpi", "kube-mpi", "-p", "vision", "-i", "ubuntu", "--processes", "2", "--command", "--",
                     "sleep", "60")
            returned = time.time()
            page.wait_for("document.querySelector('#jobs-body tr[data-job=\"vision/kube-mpi\"]')", timeout=5)
            print(f"  kube-mpi showed within {time.time() - returned:.2f} s of the submit's return")
            check(page.eval("window.pageMarker") == 1, "the page reloaded")
            check(dict(rows(page))["vision/kube-mpi"][5] == "Mpi", "the MPI job's TYPE")
            # Its pods run on several nodes with long names: the first, "+N", all of them in the title,
            # and the table still fits the window (no horizontal scrolling).
            page.wait_for("document.querySelector('#jobs-body tr[data-job=\"vision/kube-mpi\"] td.node')")
            mpi = {f"{j['project']}/{j['name']}": j for j in lane.json("list", "-A")}["vision/kube-mpi"]
            title = page.eval("document.querySelector('#jobs-body tr[data-job=\"vision/kube-mpi\"] td.node').title")
            check(len(mpi["nodes"]) > 1 and title == ", ".join(mpi["nodes"]), f"the NODE title {title!r} vs {mpi['nodes']}")
            check(dict(rows(page))["vision/kube-mpi"][3] == expected_cells(mpi)[3], "the NODE cell of a multi-node job")
            width = page.eval("[document.documentElement.scrollWidth, innerWidth]")
            check(width[0] <= width[1], f"the page is wider than the window: {width}")
            for path in ("/api/projects", "/api/nodes", "/api/jobs/vision/kube-train"):
                status = page.eval(f"fetch({json.dumps(path)}).then(r => r.status)")
                check(status == 200, f"GET {path} -> {status}")
            projects = page.eval("fetch('/api/projects').then(r => r.json())")
            check(any(p.get("name") == "vision" for p in projects), f"/api/projects: {projects}")
            page.screenshot(os.path.join(out, "jobs-kube.png"))
            check_no_errors(page)
    finally:
        server.terminate()
        server.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    print("PASS kube")


def hold_event_streams(url, count):
    """`count` open /api/events streams (the server's cap): the sockets, to close when done."""
    host, port = url.split("//", 1)[1].rstrip("/").rsplit(":", 1)
    held = []
    for _ in range(count):
        s = socket.create_connection((host, int(port)))
        s.sendall(f"GET /api/events HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
        check(s.recv(12) == b"HTTP/1.1 200", "a held event stream was refused")
        held.append(s)
    return held


def case_crowded(lanectl, out):
    with Lane(lanectl) as lane, Chromium() as browser:
        lane.run("submit", "first", "-i", "ubuntu", "--command", "--", "sleep", "60")
        url = lane.start_dashboard()
        held = hold_event_streams(url, 16)
        try:
            page = browser.open(url)
            page.wait_for("document.getElementById('live').textContent === 'polling'", timeout=10)
            page.wait_for("document.querySelector('#jobs-body tr[data-job=\"default/first\"]')", timeout=10)
            page.eval("window.pageMarker = 1")
            lane.run("submit", "second", "-i", "ubuntu", "--command", "--", "sleep", "60")
            page.wait_for("document.querySelector('#jobs-body tr[data-job=\"default/second\"]')", timeout=10)
            check(page.eval("window.pageMarker") == 1, "the page reloaded")
            # The refused stream is the one error the browser logs (its 503), no script error.
            errors = [e for e in page.errors() if "/api/events" not in e and "503" not in e]
            check(errors == [], f"JavaScript errors on the page: {errors}")
        finally:
            for s in held:
                s.close()
    print("PASS crowded")


CASES = {"live": case_live, "scale": case_scale, "kube": case_kube, "crowded": case_crowded}


if __name__ == "__main__":
    run_cases(CASES)

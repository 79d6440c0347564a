#!/usr/bin/env python3
"""Browser test of the dashboard on any screen and in both themes: headless Chromium (chromium.py)
against `lanectl dashboard` over a local backend (fixture.py) holding real data: running, pending,
finished and failed jobs (one with a 60-character name), a job writing metrics.jsonl and an
overlay (../job_fixture.py), a project whose quota line ends at the bar's right edge ("quota 4"),
and snapshots with 91-character names restored into a volume another job uses (the lineage).

  test_layout.py --lanectl PATH [--out DIR] CASE     exit 0 pass, 1 fail, 77 skip (no Chromium)

    widths    every page at 360, 390, 1440 and 2560 px: no horizontal page scroll
              (scrollWidth <= innerWidth), every visible text at 10 px or more as rendered (an
              SVG's text shrinks with the SVG), the header's links and live indicator, each page's key
              elements inside the window; Snapshots' SIZE column and Projects' "quota 4" unclipped
              on a desktop screen; the lineage graph drawn at full size (scrolling in its box)
    contrast  every visible text element of every page, light and dark theme (emulated
              prefers-color-scheme), at 1440 and 390 px: contrast against its effective
              background >= 4.5:1; the dark theme really is dark
    url       the Jobs filters and sort in the URL (a URL restores them, Back restores them after
              visiting a job), sort headers reached with Tab and operated with Enter and Space (aria-sort)
    headless  `chromium --headless --virtual-time-budget=5000 --screenshot` finishes on every page
              and writes a PNG (the event stream must not hold the page's virtual time)
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from chromium import Chromium, require_chromium  # noqa: E402
from fixture import Lane, screenshot_dir  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from job_fixture import submit_curves_job  # noqa: E402

LONG_JOB = "dist-lane-detection-training-with-a-rather-long-name-0000001"  # 60 characters
# Snapshot names as long as the demo's (~91 characters).
SNAP_A = "dist-lane-detection-training-pvc-dist-lane-detection-training-0-end-of-training-20261127t05"
SNAP_B = "retrain-restored-pvc-restored-dist-lane-detection-training-end-of-training-snapshot-2026112"
PAGES = {"jobs": "#/jobs", "job": "#/jobs/default/curves", "snapshots": "#/snapshots",
         "projects": "#/projects", "nodes": "#/nodes"}
# A page is ready when this is true.
READY = {
    "jobs": "document.querySelectorAll('#jobs-body tr[data-job]').length >= 6",
    "job": "document.querySelectorAll('#metrics .chart svg .series').length >= 4 && "
           "document.querySelector('#pods-body table')",
    "snapshots": "document.querySelectorAll('svg.lineage .gnode').length >= 6 && document.querySelector('table.snaps')",
    "projects": "document.querySelectorAll('.pj').length === 3",
    "nodes": "document.querySelectorAll('.gpu-row').length >= 3",
}
# What must be on screen, per page (every match inside the window's width, not empty).
KEY = {
    "jobs": ["#jobs-body tr[data-job] td.name a", "#jobs-body tr[data-job] .status", "#summary .chip", "#filter-text"],
    "job": ["#job-title", "#metrics .chart", "#metrics .legend-item", "#log-text", "#pods-body .table-scroll",
            "#spec-body pre.cmd"],
    "snapshots": [".graph-box", ".table-scroll:has(> table.snaps)", ".legend"],
    "projects": [".pj", ".pj-track", ".pj-chips .tag"],
    "nodes": [".gpu-row", ".node-head h2"],
}
HEADER = [".topbar h1", ".topbar nav a[data-page=snapshots]", ".topbar nav a[data-page=jobs]", "#live"]


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def sleeper(lane, name, *flags):
    lane.run("submit", name, "-i", "ubuntu", *flags, "--command", "--", "sh", "-c", "sleep 300")


def wait_status(lane, project, name, statuses, timeout=20):
    deadline = time.monotonic() + timeout
    while True:
        jobs = {j["name"]: j["status"] for j in lane.json("list", "-p", project)}
        if jobs.get(name) in statuses:
            return
        check(time.monotonic() < deadline, f"{project}/{name} is {jobs.get(name)}, not {statuses}")
        time.sleep(0.2)


def setup(lane, scratch):
    lane.run("cluster", "set-nodes", "node-a=2", "node-b=1")
    lane.run("project", "create", "lane-detection", "--gpu-quota", "4")  # more than the cluster: its quota line ends the bar
    lane.run("project", "create", "research", "--gpu-quota", "0")
    submit_curves_job(lane.run, scratch)
    sleeper(lane, LONG_JOB, "-p", "lane-detection", "--gpu", "1")
    sleeper(lane, "quarter", "-p", "lane-detection", "--gpu", "0.25")
    sleeper(lane, "too-big", "-p", "research", "--gpu", "2")  # no node has 2 free GPUs left: pending
    lane.run("submit", "done", "-p", "research", "-i", "ubuntu", "--command", "--", "true")
    lane.run("submit", "broken", "-p", "research", "-i", "ubuntu", "--command", "--", "false")
    lane.run("submit", "trainer", "-i", "ubuntu", "--pvc", ":1Mi:/data", "--command", "--", "sh", "-c",
             "echo weights > /data/model.txt; sleep 300")
    wait_status(lane, "default", "trainer", {"Running"})
    wait_status(lane, "research", "broken", {"Failed"})
    time.sleep(1)
    lane.run("snapshot", "create", "--pvc", "pvc-trainer-0", "--name", SNAP_A, "--job", "trainer")
    lane.run("restore", SNAP_A, "--to-pvc", "restored")
    sleeper(lane, "finetune", "--pvc", "restored:/data")
    lane.run("snapshot", "create", "--pvc", "restored", "--name", SNAP_B, "--job", "finetune")


def open_page(browser, url, name):
    page = browser.open(url + PAGES[name])
    page.wait_for(READY[name], timeout=20)
    return page


def show(page, name, url):
    """Another page in the same tab (the router mounts it afresh)."""
    page.navigate(url + PAGES[name])
    page.wait_for(READY[name], timeout=20)


# Elements of `selectors` that are missing, empty or not inside the window's width.
OFF_SCREEN = """((selectors) => {
  const bad = [];
  for (const sel of selectors) {
    const els = [...document.querySelectorAll(sel)];
    if (!els.length) { bad.push(sel + ': none'); continue; }
    for (const e of els.slice(0, 20)) {
      const r = e.getBoundingClientRect();
      if (r.width < 1 || r.height < 1 || r.left < -0.5 || r.right > innerWidth + 0.5)
        bad.push(sel + ': ' + Math.round(r.left) + '..' + Math.round(r.right) + ' of ' + innerWidth);
    }
  }
  return bad;
})(%s)"""

MIN_TEXT_PX = 10  # the least size of any visible text as drawn

# Page-specific checks of what the issue found cut: [failures].
SPECIFIC = {
    # Each job's name link shows the start of its name inside the cell (a long one ends in "…"):
    # not pushed past the cell's edge by the select box, where the cell's own "…" hid all of it.
    "jobs": """(() => [...document.querySelectorAll('#jobs-body tr[data-job] td.name')].flatMap((td) => {
      const a = td.querySelector('a'), cell = td.getBoundingClientRect(), r = a.getBoundingClientRect();
      return r.right <= cell.right + 0.5 && r.width >= Math.min(40, a.scrollWidth) - 1 ? []
        : [td.closest('tr').dataset.job + ': name link ' + Math.round(r.left) + '..' + Math.round(r.right)
           + ' in a cell ' + Math.round(cell.left) + '..' + Math.round(cell.right)]; }))()""",
    "snapshots": """(() => {
      const bad = [], svg = document.querySelector('svg.lineage'), box = document.querySelector('.graph-box');
      // The graph keeps its size (readable): it scrolls inside its box rather than shrinking.
      if (Math.abs(svg.getBoundingClientRect().width - svg.width.baseVal.value) > 1) bad.push('the lineage graph is scaled');
      if (box.getBoundingClientRect().right > innerWidth + 0.5) bad.push('the graph box is wider than the window');
      const wrap = document.querySelector('table.snaps').parentElement;
      const size = [...document.querySelectorAll('table.snaps th')].find((t) => t.textContent === 'SIZE');
      if (innerWidth >= 1440 && (wrap.scrollWidth > wrap.clientWidth + 1 || size.getBoundingClientRect().right > innerWidth))
        bad.push('SIZE cut: table ' + wrap.scrollWidth + ' in a box of ' + wrap.clientWidth);
      return bad; })()""",
    "projects": """(() => {
      const bad = [];
      for (const c of document.querySelectorAll('.pj')) {
        const card = c.getBoundingClientRect();
        if (c.scrollWidth > c.clientWidth + 1) bad.push(c.dataset.project + ': the card scrolls');
        for (const s of c.querySelectorAll('.pj-mark span')) {
          const r = s.getBoundingClientRect();
          if (r.left < card.left || r.right > card.right) bad.push(c.dataset.project + ': "' + s.textContent + '" clipped');
        }
      }
      if (!document.querySelector('.pj[data-project="lane-detection"] .pj-mark.quota span').textContent.includes('quota 4'))
        bad.push('no "quota 4" label');
      return bad; })()""",
    "job": """(() => [...document.querySelectorAll('#metrics .chart, #metrics .chart svg')]
      .filter((e) => e.getBoundingClientRect().right > innerWidth + 0.5).map((e) => 'chart past the window'))()""",
}


def check_width(page, name, width):
    page.resize(width, 900)
    time.sleep(0.3)  # a layout and the virtualised list's redraw
    wide = page.eval("[document.documentElement.scrollWidth, innerWidth]")
    check(wide[0] <= wide[1], f"{name} at {width} px: the page is {wide[0]} px wide in a {wide[1]} px window")
    bad = page.eval(OFF_SCREEN % (HEADER + KEY[name]))
    bad += page.eval(SPECIFIC[name]) if name in SPECIFIC else []
    check(not bad, f"{name} at {width} px: {bad}")
    small = page.small_texts(MIN_TEXT_PX)
    check(small["checked"] >= 10, f"{name} at {width} px: only {small['checked']} texts measured")
    check(not small["bad"], f"{name} at {width} px: text under {MIN_TEXT_PX} px: {small['bad']}")


def case_widths(lane, url, out):
    with Chromium(width=1440, height=900) as browser:
        page = None
        for name in PAGES:
            if page is None:
                page = open_page(browser, url, name)
            else:
                show(page, name, url)
            for width in (360, 390, 1440, 2560):
                check_width(page, name, width)
                if width in (390, 1440):
                    page.screenshot(os.path.join(out, f"layout-{name}-{width}.png"), full_page=True)
            check(not page.errors(), f"JavaScript errors on {name}: {page.errors()}")


# Every visible text (elements with their own text, form controls, SVG text) whose contrast
# against its effective background is below 4.5:1: the background is composed from the element's
# own and its ancestors' colours (every colour of a gradient is tried); an SVG text's background
# is the filled shape under it.
CONTRAST = r"""(() => {
  const rgb = (s) => (s.match(/rgba?\([^)]*\)/g) || []).map((c) => {
    const p = c.slice(c.indexOf('(') + 1, -1).split(/[\s,\/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; });
  const over = (a, b) => [0, 1, 2].map((i) => a[i] * a[3] + b[i] * (1 - a[3])).concat(1);
  const lum = (c) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
  const ratio = (a, b) => { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
  function backgrounds(el) {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const cs = getComputedStyle(e);
      const bg = rgb(cs.backgroundColor)[0];
      const grad = cs.backgroundImage.includes('gradient') ? rgb(cs.backgroundImage) : [];
      layers.push([bg, grad]);
      if (bg && bg[3] === 1) break;
    }
    let cands = [[255, 255, 255, 1]];
    for (const [bg, grad] of layers.reverse()) {
      if (grad.length) cands = cands.flatMap((c) => grad.map((g) => over(g, c)));
      if (bg && bg[3] > 0) cands = cands.map((c) => over(bg, c));
    }
    return cands;
  }
  function svgBackgrounds(t) {
    const r = t.getBoundingClientRect();
    for (const e of document.elementsFromPoint(r.left + r.width / 2, r.top + r.height / 2)) {
      if (e === t || !(e instanceof SVGGeometryElement)) continue;
      const f = rgb(getComputedStyle(e).fill)[0];
      if (f && f[3] > 0) return backgrounds(e.ownerSVGElement).map((c) => over(f, c));
    }
    return backgrounds(t.ownerSVGElement);
  }
  const shown = (e) => { const r = e.getBoundingClientRect(); const cs = getComputedStyle(e);
    return r.width > 0 && r.height > 0 && cs.visibility === 'visible' && r.bottom > 0 && r.top < innerHeight; };
  const bad = [], seen = new Set();
  let checked = 0;
  for (const e of document.querySelectorAll('body *')) {
    if (['SCRIPT', 'STYLE', 'OPTION', 'TITLE', 'title'].includes(e.tagName) || e.closest('svg title')) continue;
    const own = [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    const control = ['SELECT', 'INPUT', 'BUTTON'].includes(e.tagName);
    if ((!own && !control) || !shown(e)) continue;
    const isSvg = e instanceof SVGElement;
    const cs = getComputedStyle(e);
    let fg = rgb(isSvg ? cs.fill : cs.color)[0];
    if (!fg) continue;
    let opacity = 1;
    for (let a = e; a; a = a.parentElement) opacity *= Number(getComputedStyle(a).opacity);
    fg = [fg[0], fg[1], fg[2], fg[3] * opacity];
    const bgs = isSvg ? svgBackgrounds(e) : backgrounds(e);
    checked++;
    const worst = Math.min(...bgs.map((b) => ratio(over(fg, b), b)));
    if (worst < 4.5) {
      const what = (e.tagName + '.' + [...e.classList].join('.') + ' "' + (e.textContent || e.value || '').trim().slice(0, 30) + '"');
      if (!seen.has(what)) { seen.add(what); bad.push(what + ' ' + worst.toFixed(2) + ':1'); }
    }
  }
  return {checked, bad};
})()"""


def case_contrast(lane, url, out):
    with Chromium(width=1440, height=900) as browser:
        page = open_page(browser, url, "jobs")
        # The measure itself: the old grey of the "0 (0)" cells (#a3aab8 on white, 2.3:1) fails it.
        page.eval("document.body.append(Object.assign(document.createElement('p'), {id: 'probe', textContent: '0 (0)'}));"
                  "document.getElementById('probe').style.cssText = 'color: #a3aab8; background: #fff'")
        probe = page.eval(CONTRAST)["bad"]
        check(len(probe) == 1 and '"0 (0)" 2.3' in probe[0], f"the contrast measure missed the probe: {probe}")
        page.eval("document.getElementById('probe').remove()")
        for scheme in ("light", "dark"):
            for name in PAGES:
                page.color_scheme(scheme)
                show(page, name, url)
                dark = page.eval("(() => { const c = getComputedStyle(document.body).backgroundColor.match(/\\d+/g).map(Number);"
                                 " return c[0] + c[1] + c[2] < 150; })()")
                check(dark == (scheme == "dark"), f"{name}: the {scheme} theme's background is not {scheme}")
                for width in (1440, 390):
                    page.resize(width, 900)
                    time.sleep(0.3)
                    page.resize(width, min(5000, page.eval("document.documentElement.scrollHeight")))  # all of it
                    time.sleep(0.3)
                    r = page.eval(CONTRAST)
                    check(r["checked"] >= 10, f"{name} {scheme} {width}: only {r['checked']} text elements checked")
                    check(not r["bad"], f"{name}, {scheme} theme, {width} px: contrast below 4.5:1: {r['bad']}")
                if name in ("jobs", "snapshots"):
                    page.resize(1440, 900)
                    page.screenshot(os.path.join(out, f"{scheme}-{name}.png"))
                check(not page.errors(), f"JavaScript errors on {name}: {page.errors()}")


def case_url(lane, url, out):
    with Chromium(width=1440, height=900) as browser:
        page = browser.open(url + "#/jobs?project=research&status=Failed")
        page.wait_for("document.querySelectorAll('#jobs-body tr[data-job]').length === 1", timeout=20)
        got = page.eval("[...document.querySelectorAll('#jobs-body tr[data-job]')].map((r) => r.dataset.job)")
        check(got == ["research/broken"], f"#/jobs?project=research&status=Failed shows {got}")
        check(page.eval("[document.querySelector('#filter-project').value, document.querySelector('#filter-status').value]")
              == ["research", "Failed"], "the selects do not show the URL's filters")
        # A filter chosen on the page goes into the URL; Back from a job's page restores it.
        page.eval("document.querySelector('#filter-status').value = ''; "
                  "document.querySelector('#filter-status').dispatchEvent(new Event('input'))")
        page.wait_for("location.hash === '#/jobs?project=research'")
        page.click("#summary .chip[data-status=Pending]")
        page.wait_for("location.hash === '#/jobs?project=research&status=Pending'")
        page.click("#jobs-body tr[data-job] td.name a")
        page.wait_for("location.hash === '#/jobs/research/too-big' && document.querySelector('#job-title')")
        page.eval("history.back()")
        page.wait_for("location.hash === '#/jobs?project=research&status=Pending' && "
                      "document.querySelectorAll('#jobs-body tr[data-job]').length === 1", timeout=10)
        check(page.eval("document.querySelector('#filter-status').value") == "Pending", "Back lost the status filter")
        page.eval("history.back()")
        page.wait_for("location.hash === '#/jobs?project=research' && "
                      "document.querySelectorAll('#jobs-body tr[data-job]').length === 3", timeout=10)
        # The sort headers with the keyboard: Tab from the text filter reaches NAME's button.
        page.eval("document.querySelector('#filter-project').value = ''; "
                  "document.querySelector('#filter-project').dispatchEvent(new Event('input'))")
        page.eval("document.querySelector('#filter-text').focus()")
        page.key("Tab")
        check(page.eval("document.activeElement === document.querySelector('#jobs th[data-key=name] button')"),
              "Tab from the filter does not reach the NAME header")
        check(page.eval("document.querySelector('#jobs th[data-key=name]').getAttribute('aria-sort')") == "none",
              "aria-sort before sorting")
        names = "[...document.querySelectorAll('#jobs-body tr[data-job]')].map((r) => r.dataset.job.split('/')[1])"
        page.key("Enter")
        page.wait_for("document.querySelector('#jobs th[data-key=name]').getAttribute('aria-sort') === 'ascending'")
        shown = page.eval(names)
        check(shown == sorted(shown), f"Enter did not sort by name: {shown}")
        check("sort=name&dir=asc" in page.eval("location.hash"), "the sort is not in the URL")
        page.key(" ")
        page.wait_for("document.querySelector('#jobs th[data-key=name]').getAttribute('aria-sort') === 'descending'")
        shown = page.eval(names)
        check(shown == sorted(shown, reverse=True), f"Space did not reverse the sort: {shown}")
        check(page.eval("document.querySelector('#jobs th[data-key=age]').getAttribute('aria-sort')") == "none",
              "aria-sort of another column")
        # The URL alone restores the sort (a bookmark, a reload).
        page.navigate(url + "#/projects")
        page.navigate(url + "#/jobs?sort=name&dir=desc&q=quarter")
        page.wait_for("document.querySelectorAll('#jobs-body tr[data-job]').length === 1", timeout=20)
        check(page.eval("document.querySelector('#filter-text').value") == "quarter", "the text filter from the URL")
        check(page.eval("document.querySelector('#jobs th[data-key=name]').getAttribute('aria-sort')") == "descending",
              "the sort from the URL")
        check(not page.errors(), f"JavaScript errors: {page.errors()}")


def case_headless(lane, url, out):
    chromium = require_chromium()
    for name, frag in PAGES.items():
        png = os.path.join(out, f"headless-{name}.png")
        if os.path.exists(png):
            os.remove(png)
        with tempfile.TemporaryDirectory(prefix="lane-chromium-shot-") as profile:
            cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={profile}",
                   "--virtual-time-budget=5000", f"--screenshot={png}", "--window-size=1440,900", url + frag]
            started = time.monotonic()
            try:
                subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, timeout=60, start_new_session=True)
            except subprocess.TimeoutExpired:
                raise AssertionError(f"{name}: chromium --virtual-time-budget=5000 --screenshot did not finish in 60 s")
            with open(png, "rb") as f:
                check(f.read(8) == b"\x89PNG\r\n\x1a\n", f"{name}: no PNG written")
            print(f"{name}: screenshot in {time.monotonic() - started:.1f} s")


CASES = {"widths": case_widths, "contrast": case_contrast, "url": case_url, "headless": case_headless}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lanectl", required=True)
    ap.add_argument("--out")
    ap.add_argument("case", choices=sorted(CASES))
    args = ap.parse_args()
    require_chromium()
    out = args.out or screenshot_dir(args.lanectl)
    with Lane(args.lanectl) as lane, tempfile.TemporaryDirectory(prefix="lanectl-layout-") as scratch:
        setup(lane, scratch)
        url = lane.start_dashboard()
        CASES[args.case](lane, url, out)
    print(f"PASS {args.case}")


if __name__ == "__main__":
    main()

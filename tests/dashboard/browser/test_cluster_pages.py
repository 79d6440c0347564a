#!/usr/bin/env python3
"""Browser test of the dashboard's Projects, Nodes/GPUs and Snapshots pages: headless Chromium
(chromium.py) against `lanectl dashboard` over a local backend (fixture.py) with declared nodes,
projects over and under quota, fractional-GPU jobs, a pending job, a snapshot restored into a new
volume that another job uses and snapshots, and a fake `nvidia-smi` on PATH (a test double of the
device tool: there is no GPU here); then the Nodes/GPUs page on the Kubernetes backend against the
test API server (tests/kube/fake_apiserver.py). Checks each page's content, that it follows changes made with
the CLI without a reload, that no JavaScript error occurs, and saves screenshots.

  test_cluster_pages.py --lanectl PATH [--out DIR]    exit 0 pass, 1 fail, 77 skip (no Chromium)
"""
import argparse
import os
import re
import stat
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from chromium import Chromium, require_chromium  # noqa: E402
from fixture import Lane, screenshot_dir  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from test_dashboard_cluster import KUBE_NODE, start_fake_kube, submit_kube_jobs  # noqa: E402

FAKE_SMI = """#!/bin/sh
# Test double of nvidia-smi: answers the dashboard sampler's query with two GPUs whose load varies.
[ "$1" = --query-gpu=index,uuid,utilization.gpu,memory.used,memory.total ] || exit 3
d=$(dirname "$0"); n=$(cat "$d/count" 2>/dev/null || echo 0); echo $((n + 1)) > "$d/count"
echo "0, GPU-0a1b2c3d-fake, $(( (n * 17) % 60 + 30 )), $(( 6000 + (n * 250) % 3000 )), 16384"
echo "1, GPU-4e5f6a7b-fake, $(( (n * 7) % 40 + 10 )), $(( 2000 + (n * 90) % 1000 )), 16384"
"""


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def fake_nvidia_smi():
    d = tempfile.mkdtemp(prefix="lanectl-fake-smi-")
    path = os.path.join(d, "nvidia-smi")
    with open(path, "w") as f:
        f.write(FAKE_SMI)
    os.chmod(path, stat.S_IRWXU)
    return d


def sleeper(lane, name, *flags):
    lane.run("submit", name, "-i", "ubuntu", *flags, "--command", "--", "sh", "-c", "sleep 300")


def setup(lane):
    lane.run("cluster", "set-nodes", "node-a=2", "node-b=2")
    lane.run("project", "create", "team-a", "--gpu-quota", "1")
    lane.run("project", "create", "team-b", "--gpu-quota", "2")
    lane.run("project", "create", "team-c", "--gpu-quota", "0")
    sleeper(lane, "half", "-p", "team-a", "--gpu", "0.5")
    sleeper(lane, "quarter", "-p", "team-a", "--gpu", "0.25")
    sleeper(lane, "whole", "-p", "team-a", "--gpu", "1")
    sleeper(lane, "train-b", "-p", "team-b", "--gpu", "1")
    sleeper(lane, "wide-c", "-p", "team-c", "--gpu", "2")  # no node has 2 free GPUs: pending
    lane.run("submit", "trainer", "-i", "ubuntu", "--pvc", ":1Mi:/data", "--command", "--", "sh", "-c",
             "echo weights > /data/model.txt; sleep 300")
    deadline = time.monotonic() + 15
    while not any(j["name"] == "trainer" and j["status"] == "Running" for j in lane.json("list")):
        check(time.monotonic() < deadline, "the trainer job did not start")
        time.sleep(0.2)
    time.sleep(1)
    lane.run("snapshot", "create", "--pvc", "pvc-trainer-0", "--name", "base", "--job", "trainer")
    lane.run("restore", "base", "--to-pvc", "restored")
    sleeper(lane, "finetune", "--pvc", "restored:/data")
    lane.run("snapshot", "create", "--pvc", "restored", "--name", "derived", "--job", "finetune")


def projects_page(browser, url, lane, out):
    page = browser.open(url + "#/projects")
    page.wait_for("document.querySelectorAll('.pj').length === 4", timeout=10)
    a = page.eval("""(() => { const c = document.querySelector('.pj[data-project="team-a"]');
        const w = (s) => parseFloat(c.querySelector('.pj-seg.' + s).style.width);
        return {within: w('within'), over: w('over'), pending: w('pending'),
                quota: parseFloat(c.querySelector('.pj-mark.quota').style.left),
                text: c.innerText, why: c.querySelectorAll('.pj-why li').length}; })()""")
    # One scale for every bar: the cluster's 4 GPUs. team-a: 1 within quota, 0.75 over, quota line at 1.
    check(abs(a["within"] - 25) < 0.01 and abs(a["over"] - 18.75) < 0.01 and a["pending"] == 0, f"team-a bar: {a}")
    check(abs(a["quota"] - 25) < 0.01, f"team-a quota line: {a}")
    check("over quota 0.75" in a["text"] and "3 running" in a["text"] and a["why"] >= 2, f"team-a card: {a['text']}")
    c = page.eval("""(() => { const c = document.querySelector('.pj[data-project="team-c"]');
        return {pending: parseFloat(c.querySelector('.pj-seg.pending').style.width),
                within: parseFloat(c.querySelector('.pj-seg.within').style.width), text: c.innerText}; })()""")
    check(abs(c["pending"] - 50) < 0.01 and c["within"] == 0 and "1 pending" in c["text"], f"team-c card: {c}")
    page.screenshot(os.path.join(out, "cluster-projects.png"), full_page=True)
    # Live: a job submitted from the CLI shows in team-b's bar without a reload.
    page.eval("window.notReloaded = true")
    sleeper(lane, "more-b", "-p", "team-b", "--gpu", "1")
    page.wait_for("""document.querySelector('.pj[data-project="team-b"]').innerText.includes('2 running')""", timeout=5)
    check(page.eval("window.notReloaded") is True, "the page reloaded")
    lane.run("delete", "more-b", "-p", "team-b")
    check(not page.errors(), f"JavaScript errors on the Projects page: {page.errors()}")


def nodes_page(browser, url, out):
    page = browser.open(url + "#/nodes")
    page.wait_for("document.querySelectorAll('.card.node').length === 2", timeout=10)
    rows = page.eval("""[...document.querySelectorAll('.card.node')].map((n) => ({node: n.dataset.node,
        gpus: [...n.querySelectorAll('.gpu-row')].map((r) => ({gpu: r.dataset.gpu, free: r.querySelector('.gpu-free').textContent,
          segs: [...r.querySelectorAll('.gpu-seg')].map((s) => [s.dataset.job, parseFloat(s.style.width), s.textContent])}))}))""")
    a = rows[0]
    check(a["node"] == "node-a" and len(a["gpus"]) == 2 and len(rows[1]["gpus"]) == 2, f"nodes: {rows}")
    shared = [g for n in rows for g in n["gpus"] if len(g["segs"]) == 2]
    check(len(shared) == 1, f"one GPU should be shared by two jobs: {rows}")
    segs = sorted(shared[0]["segs"])
    check(segs == [["team-a/half", 50.0, "half 0.5"], ["team-a/quarter", 25.0, "quarter 0.25"]], f"shares: {segs}")
    check(shared[0]["free"] == "0.25 free", f"free: {shared[0]}")
    whole = [g for n in rows for g in n["gpus"] if [s[0] for s in g["segs"]] == ["team-a/whole"]]
    check(len(whole) == 1 and whole[0]["segs"][0][1] == 100.0 and whole[0]["free"] == "full", f"whole: {rows}")
    # Utilization and memory over time from the (fake) nvidia-smi: two GPUs, a line each chart.
    page.wait_for("document.querySelectorAll('#gpu-metrics .ts-gpu').length === 2 && "
                  "document.querySelectorAll('#gpu-metrics path.ts-line').length === 4", timeout=10)
    text = page.eval("document.getElementById('gpu-metrics').innerText")
    check("GPU-0a1b2c3d-fake" in text and "From nvidia-smi every 1 s" in text, f"metrics: {text}")
    # The charts follow the sampler (one sample a second, the page polls every 3 s).
    page.wait_for("+(/(\\d+) samples kept/.exec(document.getElementById('gpu-metrics').innerText) || [0, 0])[1] >= 6",
                  timeout=15)
    page.screenshot(os.path.join(out, "cluster-nodes.png"), full_page=True)
    check(not page.errors(), f"JavaScript errors on the Nodes page: {page.errors()}")


def nodes_without_gpu_tool(browser, url, out):
    page = browser.open(url + "#/nodes")
    msg = page.wait_for("(document.querySelector('#gpu-metrics .unavailable') || {}).textContent", timeout=10)
    check("nvidia-smi is not on PATH" in msg, f"the page does not say why there are no metrics: {msg}")
    page.screenshot(os.path.join(out, "cluster-nodes-no-nvidia-smi.png"), full_page=True)
    check(not page.errors(), f"JavaScript errors: {page.errors()}")


def nodes_on_kubernetes(browser, url, out):
    """Kubernetes: the node's pods as one bar of their GPU requests, and the note saying why."""
    page = browser.open(url + "#/nodes")
    page.wait_for("document.querySelectorAll('.gpu-row.unassigned .gpu-seg').length === 2", timeout=10)
    card = page.eval("""(() => { const n = document.querySelector('.card.node');
        return {node: n.dataset.node, text: n.innerText,
                segs: [...n.querySelectorAll('.gpu-row.unassigned .gpu-seg')].map((s) => [s.dataset.job, parseFloat(s.style.width)]).sort(),
                deviceRows: n.querySelectorAll('.gpu-row:not(.unassigned)').length}; })()""")
    check(card["node"] == KUBE_NODE and card["deviceRows"] == 0, f"no made-up device rows on Kubernetes: {card}")
    check(card["segs"] == [["team-k/frac", 12.5], ["team-k/whole", 25.0]], f"pods' shares of the 4 GPUs: {card['segs']}")
    check("does not report which device" in card["text"] and "1.5 / 4" in card["text"], f"note: {card['text']}")
    msg = page.wait_for("(document.querySelector('#gpu-metrics .unavailable') || {}).textContent", timeout=10)
    check("local backend" in msg, f"metrics note on Kubernetes: {msg}")
    page.screenshot(os.path.join(out, "cluster-nodes-kubernetes.png"), full_page=True)
    check(not page.errors(), f"JavaScript errors on the Kubernetes Nodes page: {page.errors()}")


def projects_on_kubernetes(browser, url, out):
    """Kubernetes: team-k's bar from the pods' GPU requests (0.5 + 1 of its quota of 2; keeper holds none)."""
    page = browser.open(url + "#/projects")
    page.wait_for("""document.querySelector('.pj[data-project="team-k"]')""", timeout=10)
    k = page.eval("""(() => { const c = document.querySelector('.pj[data-project="team-k"]');
        return {within: parseFloat(c.querySelector('.pj-seg.within').style.width),
                over: parseFloat(c.querySelector('.pj-seg.over').style.width), text: c.innerText,
                fairLine: c.querySelectorAll('.pj-mark.fair').length}; })()""")
    check(k["within"] > 0 and k["over"] == 0 and "3 running" in k["text"] and "allocated 1.5" in k["text"],
          f"team-k card on Kubernetes: {k}")
    # KAI computes the fair share in the cluster: no made-up 0 line.
    check("fair share n/a" in k["text"] and k["fairLine"] == 0, f"fair share on Kubernetes: {k}")
    page.screenshot(os.path.join(out, "cluster-projects-kubernetes.png"), full_page=True)
    check(not page.errors(), f"JavaScript errors on the Kubernetes Projects page: {page.errors()}")


def snapshots_on_kubernetes(browser, url, lane, out):
    """Kubernetes: a CSI VolumeSnapshot of a job's claim and its restore, drawn as the lineage."""
    lane.run("snapshot", "create", "--pvc", "pvc-keeper-0", "--name", "keeper-snap", "--job", "keeper", "-p", "team-k")
    lane.run("restore", "keeper-snap", "--to-pvc", "keeper-restored", "-p", "team-k")
    page = browser.open(url + "#/snapshots")
    page.wait_for("document.querySelector('svg.lineage [data-id=\"volume:keeper-restored\"]')", timeout=10)
    graph = page.eval("""({ids: [...document.querySelectorAll('svg.lineage .gnode')].map((g) => g.dataset.id).sort(),
        edges: document.querySelectorAll('svg.lineage path.edge').length,
        rows: [...document.querySelectorAll('table.snaps tbody tr')].map((r) => r.dataset.snapshot)})""")
    # The snapshot is in team-k's namespace, the claims too: volume -> job -> snapshot -> restored volume.
    check(graph["ids"] == ["job:team-k/keeper", "snapshot:keeper-snap", "volume:keeper-restored", "volume:pvc-keeper-0"]
          and graph["edges"] == 3 and graph["rows"] == ["keeper-snap"], f"lineage on Kubernetes: {graph}")
    page.screenshot(os.path.join(out, "cluster-snapshots-kubernetes.png"), full_page=True)
    check(not page.errors(), f"JavaScript errors on the Kubernetes Snapshots page: {page.errors()}")


def snapshots_page(browser, url, out):
    page = browser.open(url + "#/snapshots")
    page.wait_for("document.querySelectorAll('svg.lineage .gnode').length === 6", timeout=10)
    graph = page.eval("""(() => { const pos = {};
        for (const g of document.querySelectorAll('svg.lineage .gnode')) {
          const m = /translate\\(([\\d.]+) ([\\d.]+)\\)/.exec(g.getAttribute('transform'));
          pos[g.dataset.id] = +m[1]; }
        return {pos, edges: document.querySelectorAll('svg.lineage path.edge').length,
                rows: [...document.querySelectorAll('table.snaps tbody tr')].map((r) => r.dataset.snapshot)}; })()""")
    order = ["volume:pvc-trainer-0", "job:default/trainer", "snapshot:base", "volume:restored",
             "job:default/finetune", "snapshot:derived"]
    xs = [graph["pos"].get(i) for i in order]
    check(None not in xs and xs == sorted(xs) and len(set(xs)) == 6, f"not laid out left to right: {graph['pos']}")
    check(graph["edges"] == 5 and graph["rows"] == ["base", "derived"], f"graph: {graph}")
    page.eval("""document.querySelector('[data-id="snapshot:base"]').dispatchEvent(new MouseEvent('click'))""")
    details = page.wait_for("(document.querySelector('.graph-side .details') || {}).innerText", timeout=3)
    check("base" in details and "pvc-trainer-0" in details and "Content digest" in details, f"details: {details}")
    # Labelled fields (no raw camelCase key), one date format with the ISO time in its title.
    check("contentDigest" not in details and "parentVolume" not in details, f"raw keys in the details: {details}")
    created = page.eval("""(() => { const t = document.querySelector('.graph-side dd[data-key="created"] time');
        return t && [t.textContent, t.title]; })()""")
    check(created and re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", created[0]) and created[1].endswith("Z"),
          f"the snapshot's created time: {created}")
    page.screenshot(os.path.join(out, "cluster-snapshots.png"), full_page=True)
    check(not page.errors(), f"JavaScript errors on the Snapshots page: {page.errors()}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lanectl", required=True)
    ap.add_argument("--out")
    args = ap.parse_args()
    require_chromium()
    out = args.out or screenshot_dir(args.lanectl)
    tools = fake_nvidia_smi()
    with Lane(args.lanectl, env={"PATH": tools + ":" + os.environ.get("PATH", "")}) as lane:
        setup(lane)
        url = lane.start_dashboard("--gpu-interval", "1")
        with Chromium(width=1400, height=900) as browser:
            projects_page(browser, url, lane, out)
            nodes_page(browser, url, out)
            snapshots_page(browser, url, out)
        lane.stop_dashboards()
        lane.env["PATH"] = "/usr/bin:/bin"
        url = lane.start_dashboard()
        with Chromium(width=1400, height=700) as browser:
            nodes_without_gpu_tool(browser, url, out)
    with Lane(args.lanectl, env={"LANECTL_BACKEND": "kubernetes"}) as lane:
        server, kubeconfig = start_fake_kube(lane.home)
        try:
            lane.env["KUBECONFIG"] = kubeconfig
            submit_kube_jobs(lane.run)
            lane.run("submit", "keeper", "-p", "team-k", "-i", "busybox", "--pvc", ":1Gi:/data")
            url = lane.start_dashboard()
            with Chromium(width=1400, height=700) as browser:
                nodes_on_kubernetes(browser, url, out)
                projects_on_kubernetes(browser, url, out)
                snapshots_on_kubernetes(browser, url, lane, out)
        finally:
            lane.stop_dashboards()
            server.terminate()
            server.wait()
    print("PASS cluster pages; screenshots in " + out)


if __name__ == "__main__":
    main()

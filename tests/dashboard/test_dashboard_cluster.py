#!/usr/bin/env python3
"""End-to-end test of the dashboard's Projects, Nodes/GPUs and Snapshots API (standard library only).

Runs the real `lanectl dashboard` over a local backend with its own LANECTL_HOME and declared nodes,
with jobs submitted by the CLI, and checks /api/projects (quota, allocated, over quota, pending),
/api/gpus (a GPU shared 0.5/0.25 between two jobs, as `describe job -o json` places them),
/api/gpus/metrics (a fake `nvidia-smi` on PATH: a test double, no GPU here; and without one),
/api/snapshots and /api/lineage (snapshot -> restored volume -> job -> derived snapshot), and the
same API of `lanectl dashboard` on the Kubernetes backend against the test API server
(tests/kube/fake_apiserver.py).

  test_dashboard_cluster.py --lanectl PATH [CASE...]    (cases: projects, gpus, metrics, lineage, kube)
"""
import http.client
import json
import os
import stat
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_dashboard  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "browser"))
from fixture import start_apiserver  # noqa: E402
from test_dashboard import Env, check, request, wait_for  # noqa: E402

PROJECTS = ("team-a", "team-b")


class ClusterEnv(Env):
    def close(self):
        for p in PROJECTS:
            self.run("delete", "--all", "-p", p)
        super().close()

    def ok(self, *args):
        r = self.run(*args)
        check(r.returncode == 0, f"lanectl {' '.join(args)} failed ({r.returncode}): {r.stderr}")
        return r.stdout

    def get(self, port, path):
        status, ctype, body, _ = request(port, "GET", path)
        check(status == 200 and ctype.startswith("application/json"), f"GET {path} -> {status} {ctype}: {body}")
        return json.loads(body)


def sleeper(env, name, *flags):
    env.ok("submit", name, "-i", "ubuntu", *flags, "--command", "--", "sh", "-c", "sleep 120")


def setup_jobs(env):
    """node-a (2 GPUs), node-b (1 GPU); team-a (quota 1) runs 0.5 + 0.25 + 1 GPUs (0.75 over quota);
    team-b (quota 0) asks for 2 GPUs on one node: no node has 2 free
    GPUs and 2 is beyond its fair share (no reclaim): pending."""
    env.ok("cluster", "set-nodes", "node-a=2", "node-b=1")
    env.ok("project", "create", "team-a", "--gpu-quota", "1")
    env.ok("project", "create", "team-b", "--gpu-quota", "0")
    sleeper(env, "half", "-p", "team-a", "--gpu", "0.5")
    sleeper(env, "quarter", "-p", "team-a", "--gpu", "0.25")
    sleeper(env, "whole", "-p", "team-a", "--gpu", "1")
    sleeper(env, "huge", "-p", "team-b", "--gpu", "2")


def case_projects(env):
    setup_jobs(env)
    p, port = env.start_dashboard("--listen", "127.0.0.1:0")

    def settled():
        doc = {x["name"]: x for x in env.get(port, "/api/projects")}
        a, b = doc.get("team-a"), doc.get("team-b")
        return doc if a and b and a["runningJobs"] == 3 and b["pendingJobs"] == 1 else None

    doc = wait_for("team-a running 3 jobs, team-b 1 pending", settled)
    a, b = doc["team-a"], doc["team-b"]
    check(a["gpuQuota"] == 1 and abs(a["gpusAllocated"] - 1.75) < 1e-9, f"team-a: {a}")
    check(a["gpusAllocated"] - a["gpuQuota"] > 0.7, "team-a should be 0.75 GPUs over its quota")
    check(b["gpusAllocated"] == 0 and b["gpusRequested"] == 2 and b["pendingJobs"] == 1, f"team-b: {b}")
    check(b["explanation"], f"team-b has no scheduler explanation: {b}")
    check(doc == {x["name"]: x for x in json.loads(env.ok("project", "list", "-o", "json"))},
          "/api/projects differs from project list -o json")
    status, _, body, _ = request(port, "GET", "/projects.js")
    check(status == 200 and "pages.projects" in body, f"GET /projects.js -> {status}")
    status, _, body, _ = request(port, "GET", "/")
    for page in ("projects", "nodes", "snapshots"):
        check(f'src="/{page}.js"' in body and f'href="#/{page}"' in body, f"the index page lacks the {page} page")


def case_gpus(env):
    setup_jobs(env)
    p, port = env.start_dashboard("--listen", "127.0.0.1:0")

    def placed():
        nodes = env.get(port, "/api/gpus")
        shares = [(n["name"], d["index"], s["job"], s["share"]) for n in nodes for d in n["devices"] for s in d["shares"]]
        return (nodes, shares) if len(shares) == 3 else None

    nodes, shares = wait_for("three placed jobs", placed)
    check([n["name"] for n in nodes] == ["node-a", "node-b"], f"nodes: {[n['name'] for n in nodes]}")
    check([len(n["devices"]) for n in nodes] == [2, 1], "node-a should show 2 GPUs, node-b 1")
    check(all(n["devicesKnown"] and n["unassigned"] == [] for n in nodes), "the local backend knows every device")
    # The two fractions share one physical GPU; the whole GPU is another one.
    frac = [s for s in shares if s[2] in ("team-a/half", "team-a/quarter")]
    check(len(frac) == 2 and frac[0][:2] == frac[1][:2], f"the fractions are not on one GPU: {shares}")
    check(sorted(s[3] for s in frac) == [0.25, 0.5], f"shares: {frac}")
    whole = [s for s in shares if s[2] == "team-a/whole"]
    check(len(whole) == 1 and whole[0][3] == 1 and whole[0][:2] != frac[0][:2], f"whole GPU: {shares}")
    by_gpu = {(n["name"], d["index"]): d for n in nodes for d in n["devices"]}
    check(abs(by_gpu[frac[0][:2]]["allocated"] - 0.75) < 1e-9, "the shared GPU is not 0.75 allocated")
    # The same devices `describe job -o json` reports for each pod.
    for job in ("half", "quarter", "whole"):
        desc = json.loads(env.ok("describe", "job", job, "-p", "team-a", "-o", "json"))
        pod = desc["pods"][0]
        mine = [s for s in shares if s[2] == "team-a/" + job]
        check([(pod["node"], i) for i in pod["gpuIndices"]] == [m[:2] for m in mine],
              f"{job}: API {mine} vs describe {pod}")
    total = sum(n["gpusAllocated"] for n in nodes)
    check(abs(total - 1.75) < 1e-9, f"allocated {total}")
    check(nodes[0]["gpusAllocated"] + nodes[1]["gpusAllocated"] ==
          sum(n["gpusAllocated"] for n in json.loads(env.ok("cluster", "nodes", "-o", "json"))), "differs from cluster nodes")


FAKE_SMI = """#!/bin/sh
# A test double of nvidia-smi: answers only the query the dashboard's sampler sends.
[ "$1" = --query-gpu=index,uuid,utilization.gpu,memory.used,memory.total ] || exit 3
[ "$2" = --format=csv,noheader,nounits ] || exit 4
n=$(cat "$(dirname "$0")/count" 2>/dev/null || echo 0); echo $((n + 1)) > "$(dirname "$0")/count"
echo "0, GPU-11111111-fake, $((n * 10 % 100)), $((1000 + n)), 16384"
echo "1, GPU-22222222-fake, [N/A], 0, 16384"
echo "this line is malformed"
"""


def case_metrics(env):
    # Without nvidia-smi on PATH: unavailable, saying why.
    env.env["PATH"] = "/usr/bin:/bin"
    p, port = env.start_dashboard("--listen", "127.0.0.1:0")
    m = env.get(port, "/api/gpus/metrics")
    check(m["available"] is False and "nvidia-smi is not on PATH" in m["reason"], f"without nvidia-smi: {m}")
    p.terminate()
    p.wait(timeout=5)

    tooldir = tempfile.mkdtemp(prefix="lanectl-fake-smi-")
    tool = os.path.join(tooldir, "nvidia-smi")
    with open(tool, "w") as f:
        f.write(FAKE_SMI)
    os.chmod(tool, stat.S_IRWXU)
    env.env["PATH"] = tooldir + ":/usr/bin:/bin"
    p, port = env.start_dashboard("--listen", "127.0.0.1:0", "--gpu-interval", "1")
    m = wait_for("three samples", lambda: (lambda d: d if d["gpus"] and len(d["gpus"][0]["samples"]) >= 3 else None)(
        env.get(port, "/api/gpus/metrics")), timeout=10)
    check(m["available"] is True and m["source"] == "nvidia-smi" and m["intervalSeconds"] == 1, f"metrics: {m}")
    check([g["uuid"] for g in m["gpus"]] == ["GPU-11111111-fake", "GPU-22222222-fake"], f"gpus: {m['gpus']}")
    s = m["gpus"][0]["samples"]
    check([x[1] for x in s[:3]] == [0, 10, 20] and [x[2] for x in s[:3]] == [1000, 1001, 1002], f"samples: {s}")
    check(s[0][3] == 16384 and s[1][0] > s[0][0], f"samples: {s}")
    check(m["gpus"][1]["samples"][0][1] is None, "an [N/A] utilization should be null")
    check("line 3" in m["lastError"], f"the malformed line is not reported: {m['lastError']!r}")
    r = env.run("dashboard", "--gpu-interval", "0")
    check(r.returncode == 2 and "--gpu-interval" in r.stderr, f"--gpu-interval 0: {r.returncode} {r.stderr}")


def case_lineage(env):
    env.ok("submit", "trainer", "-i", "ubuntu", "--pvc", ":1Mi:/data", "--command", "--", "sh", "-c",
           "echo weights > /data/model.txt; sleep 120")
    claim = "pvc-trainer-0"
    wait_for("the trainer running", lambda: any(j["name"] == "trainer" and j["status"] == "Running"
                                                 for j in json.loads(env.ok("list", "-o", "json"))["items"]))
    time.sleep(1)  # its `echo` into the claim
    env.ok("snapshot", "create", "--pvc", claim, "--name", "base", "--job", "trainer")
    env.ok("restore", "base", "--to-pvc", "restored")
    env.ok("submit", "finetune", "-i", "ubuntu", "--pvc", "restored:/data", "--command", "--", "sh", "-c", "sleep 120")
    env.ok("snapshot", "create", "--pvc", "restored", "--name", "derived", "--job", "finetune")
    p, port = env.start_dashboard("--listen", "127.0.0.1:0")

    snaps = env.get(port, "/api/snapshots")
    check(snaps == json.loads(env.ok("snapshot", "list", "-o", "json")), "/api/snapshots differs from snapshot list -o json")
    check([s["name"] for s in snaps["items"]] == ["base", "derived"], f"snapshots: {snaps}")

    g = env.get(port, "/api/lineage")
    ids = {n["id"]: n for n in g["nodes"]}
    edges = {(e["from"], e["to"], e["kind"]) for e in g["edges"]}
    for want in [("volume:" + claim, "job:default/trainer", "mounted"),
                 ("job:default/trainer", "snapshot:base", "snapshot"),
                 ("snapshot:base", "volume:restored", "restored"),
                 ("volume:restored", "job:default/finetune", "mounted"),
                 ("job:default/finetune", "snapshot:derived", "snapshot")]:
        check(want in edges, f"lineage lacks the edge {want}: {sorted(edges)}")
    check(len(edges) == 5, f"unexpected edges: {sorted(edges)}")
    base = ids["snapshot:base"]["meta"]
    check(base["exists"] and base["files"] >= 1 and base["volume"] == claim, f"snapshot:base meta: {base}")
    check(ids["snapshot:derived"]["meta"]["parentSnapshot"] == "base", f"derived: {ids['snapshot:derived']}")
    check(ids["volume:restored"]["meta"]["createdBy"] == "restore:base", f"restored: {ids['volume:restored']}")
    cli = json.loads(env.ok("lineage", "derived", "-o", "json"))["items"][0]
    check(cli["parentSnapshot"] == "base", f"lanectl lineage derived: {cli}")


KUBE_NODE = "aks-gpupool-34613062-vmss000000"  # where the test API server places Job pods


def start_fake_kube(home):
    """Starts tests/kube/fake_apiserver.py (the browser fixture's start_apiserver) with a GPU Node
    (4 allocatable); returns (process, kubeconfig path written under `home`)."""
    server, api_port, kubeconfig = start_apiserver(home, "default")
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": KUBE_NODE},
            "status": {"capacity": {"nvidia.com/gpu": "4"}, "allocatable": {"nvidia.com/gpu": "4"},
                       "conditions": [{"type": "Ready", "status": "True"}]}}
    c = http.client.HTTPConnection("127.0.0.1", api_port, timeout=10)
    c.request("POST", "/_test/object", body=json.dumps(node), headers={"Content-Type": "application/json"})
    check(c.getresponse().status < 300, "the test API server did not take the Node")
    c.close()
    return server, kubeconfig


def submit_kube_jobs(run):
    """Project team-k (quota 2) with a 0.5-GPU job and a 1-GPU job; `run(*args)` runs lanectl."""
    run("project", "create", "team-k", "--gpu-quota", "2")
    run("submit", "frac", "-p", "team-k", "-i", "busybox", "--gpu", "0.5")
    run("submit", "whole", "-p", "team-k", "-i", "busybox", "--gpu", "1")


def case_kube(env):
    """`lanectl dashboard` on the Kubernetes backend: what the pods' GPU requests and the Node's
    allocatable tell (no device indices), no utilization sampling, projects, empty snapshot store."""
    server, kubeconfig = start_fake_kube(env.home)
    env.procs.append(server)
    env.env.update(LANECTL_BACKEND="kubernetes", KUBECONFIG=kubeconfig)
    submit_kube_jobs(env.ok)
    p, port = env.start_dashboard("--listen", "127.0.0.1:0")

    nodes = env.get(port, "/api/gpus")
    check([n["name"] for n in nodes] == [KUBE_NODE], f"nodes: {nodes}")
    n = nodes[0]
    check(n["devicesKnown"] is False and n["gpus"] == 4 and n["ready"] == "True", f"node: {n}")
    check(all(d["shares"] == [] for d in n["devices"]), "no device indices are invented on Kubernetes")
    held = sorted((u["job"], u["gpus"], u["sharePerGpu"]) for u in n["unassigned"])
    check(held == [("team-k/frac", 0.5, 0.5), ("team-k/whole", 1, 1)], f"pods' GPUs: {held}")
    check(abs(n["gpusAllocated"] - 1.5) < 1e-9, f"allocated: {n}")
    m = env.get(port, "/api/gpus/metrics")
    check(m["available"] is False and "local backend" in m["reason"], f"metrics on Kubernetes: {m}")
    projects = {x["name"]: x for x in env.get(port, "/api/projects")}
    check(abs(projects["team-k"]["gpusAllocated"] - 1.5) < 1e-9, f"projects: {projects}")
    check(projects["team-k"]["fairShare"] is None, f"a fair share the backend does not compute: {projects}")
    check(env.get(port, "/api/snapshots") == {"items": []}, "snapshots on an empty store")
    check(env.get(port, "/api/lineage") == {"nodes": [], "edges": []}, "lineage of an empty store")


CASES = {"projects": case_projects, "gpus": case_gpus, "metrics": case_metrics, "lineage": case_lineage,
         "kube": case_kube}


if __name__ == "__main__":
    # test_dashboard's runner (arguments, a fresh environment per case, the summary) over these cases.
    test_dashboard.Env = ClusterEnv
    test_dashboard.run_cases(CASES)

#!/usr/bin/env python3
"""Compares the output of two lanectl binaries (e.g. before/after a change to the Kubernetes
list path) on the same data: bench_kube_list's 2,000 MPIJobs + 8,000 Pods plus objects that
exercise the other status rules (batch Jobs with conditions, GPU fractions, pending pods, an
operator-made launcher Job, a spec annotation). Exits 1 when any output differs.

Usage: compare_list_output.py OLD_LANECTL NEW_LANECTL"""
import json, os, re, subprocess, sys, tempfile, urllib.request
src = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
old, new = sys.argv[1], sys.argv[2]
tmp = tempfile.mkdtemp(prefix="compare-list-")
srv = subprocess.Popen(["python3", src + "/tests/kube/fake_apiserver.py", "--schemas", src + "/tests/data/k8s-schemas"],
                       stdout=subprocess.PIPE, text=True)
port = int(srv.stdout.readline().split()[1]); base = "http://127.0.0.1:%d" % port
def post(path, obj):
    req = urllib.request.Request(base + path, data=json.dumps(obj).encode(), method="POST")
    return urllib.request.urlopen(req).read()
post("/_test/bulk", {"namespace": "runai-bench", "mpijobs": 2000, "pods_per_job": 4})
ns = "runai-bench"
def job(name, labels, ann, conds, gpu, tmpl_ann=None, owners=None, start=None, done=None):
    md = {"name": name, "namespace": ns, "labels": labels, "annotations": ann}
    if owners: md["ownerReferences"] = owners
    c = {"name": "main", "image": "img/" + name}
    if gpu is not None: c["resources"] = {"limits": {"nvidia.com/gpu": gpu}}
    st = {"conditions": conds}
    if start: st["startTime"] = start
    if done: st["completionTime"] = done
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": md,
            "spec": {"template": {"metadata": {"annotations": tmpl_ann or {}}, "spec": {"containers": [c], "restartPolicy": "Never"}}},
            "status": st}
def pod(name, jobname, phase, node, gpu=None, frac=None):
    c = {"name": "main", "image": "x"}
    if gpu is not None: c["resources"] = {"limits": {"nvidia.com/gpu": gpu}}
    md = {"name": name, "namespace": ns, "labels": {"job-name": jobname}, "annotations": {"gpu-fraction": frac} if frac else {}}
    spec = {"containers": [c]}
    if node: spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": md, "spec": spec, "status": {"phase": phase}}
objs = [
  job("zz-done", {"project": "bench"}, {"user": "ann"}, [{"type": "Complete", "status": "True"}], "1", start="2026-01-01T00:00:00Z", done="2026-01-01T01:00:00Z"),
  job("zz-failed", {"kai.scheduler/queue": "bench", "priorityClassName": "build"}, {}, [{"type": "Failed", "status": "True", "reason": "BackoffLimitExceeded", "message": "Job has reached the specified backoff limit"}], 2),
  job("zz-frac", {"user": "bob"}, {}, [], None, tmpl_ann={"gpu-fraction": "0.5"}),
  job("zz-suspended", {}, {}, [{"type": "Suspended", "status": "True"}], "1"),
  job("zz-launcher", {}, {}, [], None, owners=[{"apiVersion": "kubeflow.org/v2beta1", "kind": "MPIJob", "name": "bench-00001", "uid": "u", "controller": True}]),
  job("zz-spec", {}, {"lanectl.io/spec": json.dumps({"name": "zz-spec", "project": "bench", "image": "from/spec:1", "gpu": 2, "user": "speccy"})}, [], "1"),
  pod("zz-done-abc", "zz-done", "Succeeded", "n1", "1"),
  pod("zz-frac-a", "zz-frac", "Running", "n2", None, "0.5"),
  pod("zz-frac-b", "zz-frac", "Pending", None, None, "0.5"),
  pod("zz-suspended-a", "zz-suspended", "Running", "n3", 1),
]
for o in objs: post("/_test/object", o)
home = os.path.join(tmp, "home")
with open(os.path.join(tmp, "config"), "w") as f:
    f.write("apiVersion: v1\nkind: Config\ncurrent-context: b\nclusters:\n- name: b\n  cluster: {server: '%s'}\n"
            "contexts:\n- name: b\n  context: {cluster: b, namespace: runai-bench}\n" % base)
env = dict(os.environ, LANECTL_HOME=home, LANECTL_BACKEND="kubernetes", KUBECONFIG=os.path.join(tmp, "config"))
bad = 0
for args in (["list", "-p", "bench"], ["list", "-p", "bench", "-o", "wide"], ["list", "-p", "bench", "-o", "json"],
             ["list", "-A"], ["project", "list"], ["describe", "job", "bench-00001", "-p", "bench"],
             ["describe", "job", "zz-frac", "-p", "bench"], ["describe", "job", "zz-failed", "-p", "bench"]):
    outs = [subprocess.run([b] + args, env=env, capture_output=True, text=True) for b in (old, new)]
    # AGE counts from now: two runs may straddle a second; mask it (third column) if so.
    norm = lambda t: re.sub(r"  +", "  ", re.sub(r"(?m)^(\S+ +\S+ +)\d+[smhd] ", r"\1AGE ", t))
    if outs[0].stdout != outs[1].stdout and norm(outs[0].stdout) == norm(outs[1].stdout):
        print("  (differs only in the AGE column: the runs straddled a second; compared with AGE masked)")
        outs[1].stdout = outs[0].stdout
    same = outs[0].stdout == outs[1].stdout and outs[0].stderr == outs[1].stderr and outs[0].returncode == outs[1].returncode
    print("%-30s rc %d/%d, %7d bytes: %s" % (" ".join(args), outs[0].returncode, outs[1].returncode, len(outs[0].stdout),
                                               "identical" if same else "DIFFERENT"))
    if not same:
        bad += 1
        for name, o in zip(("old.txt", "new.txt"), outs):
            open(os.path.join(tmp, name), "w").write(o.stdout + o.stderr)
        print("  outputs kept in", tmp)
srv.terminate()
if not bad:
    import shutil
    shutil.rmtree(tmp)
sys.exit(1 if bad else 0)

#!/usr/bin/python3
"""End to end with a real client: lanectl (Kubernetes backend) and kubectl against the test API
server (tests/kube/fake_apiserver.py), as the seed does it:
  lanectl submit / submit-mpi / snapshot create / restore, then
  kubectl get jobs,mpijobs,pvc,volumesnapshots -n runai-<project> -o json lists what lanectl made,
  kubectl create -f restore-snapshot-pvc.yaml (a PVC from a VolumeSnapshot), then
  lanectl submit-mpi --pvc restored-tusimple:/mnt runs against the claim kubectl made;
and kubectl sees the server's 422 for an object a real API server refuses. Then what a real
server does that kubectl relies on (real_server_checks): declared Nodes the pods spread over,
/healthz and /readyz, auth can-i, api-resources, StorageClass, PersistentVolume, Deployment,
events, Job defaults, describe, bodies with creationTimestamp: null, unknown fields dropped with a
warning, JSON/strategic/merge patches, apply and server-side apply, `kubectl wait` (a watch) on a finished Job, a claim from a missing
snapshot staying Pending, and the seed's delete-then-resubmit with foreground deletion. Last,
kubectl explain (explain_checks), from the server's /openapi/v3 and its protobuf /openapi/v2.

kubectl: $LANE_KUBECTL, else `kubectl` on PATH (Debian's package kubernetes-client); without
one the test is skipped (exit 77). `kubectl explain` also runs with Debian 12's kubectl 1.20 when
scripts/setup --test-deps has put it in build/tools/kubectl-1.20 (KUBECTL_120).
Usage: kubectl_e2e.py LANECTL SCHEMAS_DIR"""
import functools
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
KUBECTL_120 = os.path.normpath(os.path.join(HERE, "..", "..", "build", "tools", "kubectl-1.20", "usr", "bin",
                                           "kubectl"))
SKIP = 77
PROJECT = "lane-detection"
NS = "runai-" + PROJECT
SNAPSHOT = "snap-tusimple-data-0"
failures = []
NODES = ["aks-gpupool-0", "aks-gpupool-1", "aks-gpupool-2"]


def check(ok, what, detail=""):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failures.append(what)
        if detail:
            print("      " + detail.replace("\n", "\n      "))


def main():
    lanectl, schemas = sys.argv[1], sys.argv[2]
    kubectl = os.environ.get("LANE_KUBECTL") or shutil.which("kubectl")
    if os.environ.get("LANE_KUBECTL") and not os.access(kubectl, os.X_OK):
        print("FAIL: LANE_KUBECTL=%s is not an executable kubectl" % kubectl)
        return 1
    if not kubectl:
        print("SKIP: no kubectl (set LANE_KUBECTL or install Debian's kubernetes-client: scripts/setup does "
              "when no kubectl is on PATH)")
        return SKIP
    minor = kubectl_minor(kubectl)

    tmp = tempfile.mkdtemp(prefix="lane-kubectl-e2e-")
    server = subprocess.Popen([sys.executable, os.path.join(HERE, "fake_apiserver.py"), "--schemas", schemas],
                              stdout=subprocess.PIPE, text=True)
    try:
        port = server.stdout.readline().split()[1]
        kubeconfig = os.path.join(tmp, "kubeconfig")
        with open(kubeconfig, "w") as f:
            f.write("apiVersion: v1\nkind: Config\ncurrent-context: aks\nclusters:\n- name: aks\n"
                    "  cluster: {server: 'http://127.0.0.1:%s'}\nusers:\n- name: u\n  user: {}\n"
                    "contexts:\n- name: aks\n  context: {cluster: aks, user: u, namespace: %s}\n" % (port, NS))
        env = dict(os.environ, HOME=tmp, LANECTL_HOME=os.path.join(tmp, "home"), LANECTL_BACKEND="kubernetes",
                   KUBECONFIG=kubeconfig)

        def lane(*args):
            r = subprocess.run([lanectl] + list(args), env=env, capture_output=True, text=True,
                               stdin=subprocess.DEVNULL, timeout=60)
            return r.returncode, r.stdout + r.stderr

        def runner(binary):
            def kube(*args, stdin=None):
                r = subprocess.run([binary, "--cache-dir", os.path.join(tmp, "kube-cache-%d" % kubectl_minor(binary))]
                                   + list(args), env=env, capture_output=True, text=True, input=stdin,
                                   stdin=subprocess.DEVNULL if stdin is None else None, timeout=60)
                return r.returncode, r.stdout, r.stderr
            return kube
        kube = runner(kubectl)

        def ctl(path, body):
            req = urllib.request.Request("http://127.0.0.1:%s/_test/%s" % (port, path), json.dumps(body).encode(),
                                         method="POST")
            with urllib.request.urlopen(req, timeout=10) as r:
                return json.loads(r.read())

        for node in NODES:  # the cluster's GPU nodes, as a kubelet registers them
            rc, out, err = kube("create", "-f", "-", stdin=json.dumps({
                "apiVersion": "v1", "kind": "Node", "metadata": {"name": node, "labels": {"agentpool": "gpupool"}},
                "status": {"addresses": [{"type": "InternalIP", "address": "10.240.0.%d" % (4 + NODES.index(node))}],
                           "capacity": {"nvidia.com/gpu": "1"}}}))
            check(rc == 0, "kubectl create node " + node, out + err)

        def step(what, *args):
            rc, out = lane(*args)
            check(rc == 0, "lanectl " + " ".join(args[:3]) + ": " + what, out)
            return out

        step("project", "project", "create", PROJECT, "--gpu-quota", "3")
        step("default project", "config", "project", PROJECT)
        step("download job", "submit", "--name", "download-tusimple-data", "--pvc", "azurenetappfiles:100Gi:/mnt",
             "--image", "muneer7589/download-tusimple:1.0")
        mpi = ["--large-shm", "--processes=3", "--gpu", "1", "--image", "muneer7589/dist-lane-detection:3.1",
               "-e", "USE_WORKERS=true", "-e", "NUM_WORKERS=4", "-e", "BATCH_SIZE=33"]
        step("MPI training", "submit-mpi", "--name", "dist-lane-detection-training",
             "--pvc", "pvc-download-tusimple-data-0:/mnt", *mpi, "-e", "PVC_NAME=pvc-download-tusimple-data-0")
        step("snapshot", "snapshot", "create", "--pvc", "pvc-download-tusimple-data-0", "--name", SNAPSHOT)
        step("restore", "restore", SNAPSHOT, "--to-pvc", "restored-by-lanectl")

        rc, out, err = kube("get", "jobs,mpijobs,pvc,volumesnapshots", "-n", NS, "-o", "json")
        check(rc == 0, "kubectl get jobs,mpijobs,pvc,volumesnapshots -n %s -o json" % NS, err)
        listed = set()
        if rc == 0:
            doc = json.loads(out)
            check(doc.get("kind") == "List", "kubectl printed a List", out[:300])
            listed = {(i["kind"], i["metadata"]["name"]) for i in doc.get("items", [])}
        for want in (("Job", "download-tusimple-data"), ("MPIJob", "dist-lane-detection-training"),
                     ("PersistentVolumeClaim", "pvc-download-tusimple-data-0"),
                     ("PersistentVolumeClaim", "restored-by-lanectl"), ("VolumeSnapshot", SNAPSHOT)):
            check(want in listed, "kubectl lists %s %s" % want, "listed: %s" % sorted(listed))

        rc, out, err = kube("create", "-f", os.path.join(HERE, "fixtures", "restore-snapshot-pvc.yaml"))
        check(rc == 0 and out.strip() == "persistentvolumeclaim/restored-tusimple created",
              "kubectl create -f restore-snapshot-pvc.yaml", out + err)
        rc, out, err = kube("get", "pvc", "restored-tusimple", "-o", "json")
        source = json.loads(out)["spec"].get("dataSource", {}) if rc == 0 else {}
        check(source.get("kind") == "VolumeSnapshot" and source.get("name") == SNAPSHOT,
              "the restored claim's dataSource is the snapshot", out + err)

        # The seed's `kubectl get pvc`: the server prints the table (Table columns), kubectl shows it.
        rc, out, err = kube("get", "pvc")
        lines = out.splitlines()
        check(rc == 0 and lines and lines[0].split() == ["NAME", "STATUS", "VOLUME", "CAPACITY", "ACCESS", "MODES",
                                                         "STORAGECLASS", "AGE"],
              "kubectl get pvc prints the PVC columns", out + err)
        row = [l.split() for l in lines if l.startswith("restored-tusimple ")]
        check(row and row[0][1] == "Bound" and row[0][2].startswith("pvc-") and row[0][3:6] == [
            "100Gi", "RWX", "azurenetappfiles"], "kubectl get pvc shows restored-tusimple Bound to its volume", out + err)

        step("retrain on the restored claim", "submit-mpi", "--name", "retrain-restored",
             "--pvc", "restored-tusimple:/mnt", *mpi, "-e", "PVC_NAME=restored-tusimple")
        rc, out, err = kube("get", "mpijobs", "retrain-restored", "-o", "json")
        claims = []
        if rc == 0:
            worker = json.loads(out)["spec"]["mpiReplicaSpecs"]["Worker"]["template"]["spec"]
            claims = [v["persistentVolumeClaim"]["claimName"] for v in worker.get("volumes", [])
                      if "persistentVolumeClaim" in v]
        check(claims == ["restored-tusimple"], "kubectl sees the MPIJob mount restored-tusimple", out + err)

        rc, out, err = kube("create", "-f", os.path.join(HERE, "fixtures", "nodeport-out-of-range.yaml"))
        check(rc != 0 and "is invalid" in err and "nodePort" in err,
              "kubectl create of a nodePort outside 30000-32767 gets the server's 422", out + err)
        real_server_checks(kube, lane, ctl, minor, mpi)
        explain_checks(runner, kubectl)
    finally:
        server.terminate()
        server.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d check(s) failed" % len(failures) if failures else "all checks passed")
    return 1 if failures else 0


@functools.lru_cache(maxsize=None)
def kubectl_minor(kubectl):
    """The client's minor version (20 for 1.20; 0 when unknown), printed once."""
    version = subprocess.run([kubectl, "version", "--client"], capture_output=True, text=True)
    print("kubectl: %s (%s)" % (kubectl, (version.stdout.splitlines() or ["?"])[0]))
    minor = re.search(r"(?:Minor:\"|v1\.)(\d+)", version.stdout)
    return int(minor.group(1)) if minor else 0


def kube_json(kube, *args):
    rc, out, err = kube(*(args + ("-o", "json")))
    return json.loads(out) if rc == 0 else {"error": err}


def real_server_checks(kube, lane, ctl, minor, mpi):
    """What kubectl relies on beyond the seed's steps (see the module's docstring)."""
    pods = kube_json(kube, "get", "pods", "-n", NS).get("items", [])
    nodes = {p["spec"].get("nodeName") for p in pods}
    check(pods and nodes <= set(NODES) and len(nodes) >= 2, "the pods spread over the declared nodes",
          "nodes: %s" % sorted(map(str, nodes)))
    check(pods and all(p["status"].get("podIP") and {"type": "Ready", "status": "True"} in [
        {k: c.get(k) for k in ("type", "status")} for c in p["status"].get("conditions", [])] for p in pods
        if p["status"]["phase"] == "Running"), "running pods have an IP and a Ready condition")
    for endpoint in ("/healthz", "/readyz"):
        rc, out, err = kube("get", "--raw", endpoint)
        check(rc == 0 and out.strip() == "ok", "kubectl get --raw " + endpoint, out + err)
    rc, out, err = kube("auth", "can-i", "create", "mpijobs.kubeflow.org", "-n", NS)
    check(rc == 0 and out.strip() == "yes", "kubectl auth can-i create mpijobs: yes", out + err)
    ctl("settings", {"denied": [{"verb": "delete", "resource": "jobs"}]})
    rc, out, err = kube("auth", "can-i", "delete", "jobs", "-n", NS)
    check(rc != 0 and out.strip().startswith("no"), "kubectl auth can-i delete jobs: no, when the server denies it", out + err)
    ctl("settings", {"denied": []})
    rc, out, err = kube("api-resources", "-o", "name")
    for r in ("deployments.apps", "storageclasses.storage.k8s.io", "persistentvolumes", "roles.rbac.authorization.k8s.io",
              "selfsubjectaccessreviews.authorization.k8s.io", "events", "nodes"):
        check(rc == 0 and r in out.split(), "kubectl api-resources lists " + r, err)
    rc, out, err = kube("create", "-f", "-", stdin=json.dumps({
        "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "azurenetappfiles"},
        "provisioner": "csi.trident.netapp.io", "parameters": {"backendType": "azure-netapp-files"},
        "allowVolumeExpansion": True}))
    check(rc == 0 and "storageclass.storage.k8s.io/azurenetappfiles created" in out, "kubectl create storageclass",
          out + err)
    pvs = kube_json(kube, "get", "pv").get("items", [])
    check(any(pv["spec"]["claimRef"]["name"] == "pvc-download-tusimple-data-0" for pv in pvs),
          "kubectl get pv: the volume bound to pvc-download-tusimple-data-0", str(pvs)[:300])
    rc, out, err = kube("get", "pv")
    row = [l.split() for l in out.splitlines() if ("%s/pvc-download-tusimple-data-0" % NS) in l]
    check(rc == 0 and out.split()[:4] == ["NAME", "CAPACITY", "RECLAIM", "POLICY"] and row and
          row[0][1:4] == ["100Gi", "Delete", "Bound"], "kubectl get pv prints its columns", out + err)
    rc, out, err = kube("create", "deployment", "web", "--image=nginx", "-n", NS)
    dep = kube_json(kube, "get", "deployment", "web", "-n", NS)
    check(rc == 0 and dep.get("status", {}).get("readyReplicas") == 1, "kubectl create deployment; it is ready",
          out + err)
    job = kube_json(kube, "get", "job", "download-tusimple-data", "-n", NS).get("spec", {})
    check(job.get("completionMode") == "NonIndexed" and "selector" in job and job.get("suspend") is False,
          "the Job got the server's defaults (selector, completionMode, suspend)", str(job)[:300])
    reasons = {e["reason"] for e in kube_json(kube, "get", "events", "-n", NS).get("items", [])}
    check({"Scheduled", "Started", "SuccessfulCreate", "MPIJobCreated"} <= reasons, "kubectl get events",
          str(sorted(reasons)))
    describe_checks(kube)
    body_checks(kube, minor)
    patch_checks(kube)
    ctl("finish", {"kind": "Job", "namespace": NS, "name": "download-tusimple-data"})
    rc, out, err = kube("wait", "--for=condition=complete", "job/download-tusimple-data", "-n", NS, "--timeout=20s")
    check(rc == 0 and "condition met" in out, "kubectl wait --for=condition=complete on the finished Job", out + err)
    rc, out, err = kube("create", "-f", "-", stdin=json.dumps({
        "apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "from-nothing", "namespace": NS},
        "spec": {"accessModes": ["ReadWriteMany"], "resources": {"requests": {"storage": "1Gi"}},
                 "dataSource": {"apiGroup": "snapshot.storage.k8s.io", "kind": "VolumeSnapshot", "name": "gone"}}}))
    claim = kube_json(kube, "get", "pvc", "from-nothing", "-n", NS)
    check(rc == 0 and claim.get("status", {}).get("phase", "Pending") == "Pending" and
          "volumeName" not in claim.get("spec", {}), "a claim from a missing snapshot stays Pending", out + err)
    resubmit_checks(kube, lane, ctl, mpi)


# kubectl explain WHAT: its kind, a field it lists and words of the description shown (the
# schema's, from the server's document).
EXPLAINED = (
    ("job", "Job", "spec", "Job represents the configuration of a single job."),
    ("job.spec", "Job", "completionMode", "JobSpec describes how the job execution will look like."),
    ("jobs.spec.completionMode", "Job", None, "completionMode specifies how Pod completions are tracked."),
    ("mpijob", "MPIJob", "status", "JobStatus represents the current observed state of the training Job."),
    ("mpijobs.spec", "MPIJob", "slotsPerWorker", "Specifies the number of slots per worker used in hostfile."),
    ("pvc", "PersistentVolumeClaim", "spec",
     "PersistentVolumeClaim is a user's request for and claim to a persistent volume"),
    ("persistentvolumeclaims.spec.dataSource", "PersistentVolumeClaim", "kind",
     "dataSource field can be used to specify either: * An existing VolumeSnapshot object"),
    ("volumesnapshot", "VolumeSnapshot", "spec", "VolumeSnapshot is a user's request for either creating a "
     "point-in-time snapshot of a persistent volume, or binding to a pre-existing snapshot."),
    ("volumesnapshots.spec.source", "VolumeSnapshot", "persistentVolumeClaimName",
     "source specifies where a snapshot will be created from."))


def explain_checks(runner, kubectl):
    """kubectl explain with each kubectl at hand: the test's, and Debian 12's 1.20 (KUBECTL_120)
    when it is another. kubectl < 1.27 reads the protobuf /openapi/v2; later ones /openapi/v3,
    and the protobuf /openapi/v2 with --output=plaintext-openapiv2."""
    clients = [kubectl]
    if os.access(KUBECTL_120, os.X_OK) and kubectl_minor(kubectl) != 20:
        clients.append(KUBECTL_120)
    if min(map(kubectl_minor, clients)) >= 27:
        print("note  no kubectl < 1.27: the protobuf /openapi/v2 is read by --output=plaintext-openapiv2 only "
              "(scripts/setup --test-deps puts Debian 12's kubectl 1.20 in build/tools/kubectl-1.20)")
    for client in clients:
        minor = kubectl_minor(client)
        for flags in ([], ["--output=plaintext-openapiv2"]) if minor >= 27 else ([],):
            for what, kind, field, words in EXPLAINED:
                rc, out, err = runner(client)("explain", what, *flags)
                check(rc == 0 and re.search(r"KIND:\s+%s\n" % kind, out) and words in " ".join(out.split()) and
                      (field is None or re.search(r"^\s+%s\s+<" % field, out, re.M)),
                      " ".join(["kubectl 1.%d explain" % minor, what] + flags), out[:600] + err)


def describe_checks(kube):
    """kubectl describe of what lanectl made: a Job, a claim (both printed by kubectl's own
    describers, with their events) and an MPIJob (a CRD: the generic describer)."""
    for what, lines in ((("job", "download-tusimple-data"), [r"Name:\s+download-tusimple-data", r"Parallelism:\s+1",
                                                            r"Events:", r"SuccessfulCreate"]),
                        (("pvc", "restored-tusimple"), [r"Status:\s+Bound", r"StorageClass:\s+azurenetappfiles",
                                                       r"DataSource:", r"Kind:\s+VolumeSnapshot"]),
                        (("mpijob", "dist-lane-detection-training"), [r"Kind:\s+MPIJob", r"Slots Per Worker:\s+1",
                                                                      r"MPIJobCreated"])):
        rc, out, err = kube("describe", *what, "-n", NS)
        missing = [l for l in lines if not re.search(l, out)]
        check(rc == 0 and not missing, "kubectl describe %s %s" % what, "missing %s in:\n%s%s" % (missing, out, err))


def body_checks(kube, minor):
    rc, out, err = kube("create", "configmap", "typed", "-n", NS, "--from-literal=x=y", "--dry-run=client", "-o", "yaml")
    check("creationTimestamp: null" in out, "kubectl's dry-run output carries creationTimestamp: null", out + err)
    rc, out, err = kube("create", "-f", "-", stdin=out)
    check(rc == 0 and "configmap/typed created" in out, "kubectl create -f of a body with creationTimestamp: null",
          out + err)
    loose = "--validate=warn" if minor >= 25 else "--validate=false"
    rc, out, err = kube("create", loose, "-n", NS, "-f", "-", stdin=json.dumps({
        "apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "extra"}, "data": {"a": "b"}, "colour": "blue"}))
    check(rc == 0 and 'Warning: unknown field "colour"' in err, "an unknown field is dropped with a Warning (%s)" % loose,
          out + err)


def patch_checks(kube):
    rc, out, err = kube("patch", "job", "download-tusimple-data", "-n", NS, "--type=json", "-p",
                        '[{"op": "add", "path": "/metadata/labels/patched", "value": "json"}]')
    check(rc == 0, "kubectl patch --type=json (RFC 6902)", out + err)
    rc, out, err = kube("patch", "job", "download-tusimple-data", "-n", NS, "-p", '{"metadata": {"labels": {"s": "1"}}}')
    check(rc == 0, "kubectl patch (strategic merge) of a Job", out + err)
    labels = kube_json(kube, "get", "job", "download-tusimple-data", "-n", NS).get("metadata", {}).get("labels", {})
    check(labels.get("patched") == "json" and labels.get("s") == "1", "both patches landed", str(labels))
    rc, out, err = kube("patch", "mpijob", "dist-lane-detection-training", "-n", NS, "--type=strategic", "-p",
                        '{"metadata": {"labels": {"s": "1"}}}')
    check(rc != 0 and "the body of the request was in an unknown format" in err, "a strategic merge patch of an MPIJob (a CRD) is 415", out + err)
    rc, out, err = kube("patch", "mpijob", "dist-lane-detection-training", "-n", NS, "--type=merge", "-p",
                        '{"metadata": {"labels": {"m": "1"}}}')
    check(rc == 0, "kubectl patch --type=merge of an MPIJob", out + err)
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "applied", "namespace": NS}, "data": {"a": "1"}}
    for flags, value in (([], "1"), ([], "2"), (["--server-side"], "3")):
        cm["data"]["a"] = value
        rc, out, err = kube("apply", *flags, "-f", "-", stdin=json.dumps(cm))
        data = kube_json(kube, "get", "configmap", "applied", "-n", NS).get("data")
        check(rc == 0 and data == {"a": value}, "kubectl apply %s (a=%s)" % (" ".join(flags), value), out + err)


def resubmit_checks(kube, lane, ctl, mpi):
    """The seed deletes a job and submits it again under the same name; with foreground deletion
    the old MPIJob stays, marked, while its pods terminate: lanectl waits for it."""
    ctl("settings", {"termination_seconds": 2})
    rc, out, err = kube("delete", "mpijob", "retrain-restored", "-n", NS, "--cascade=foreground", "--wait=false")
    check(rc == 0, "kubectl delete mpijob --cascade=foreground --wait=false", out + err)
    meta = kube_json(kube, "get", "mpijob", "retrain-restored", "-n", NS).get("metadata", {})
    check("deletionTimestamp" in meta and meta.get("finalizers") == ["foregroundDeletion"],
          "the MPIJob being deleted is kept with deletionTimestamp and the foregroundDeletion finalizer", str(meta)[:300])
    rc, out = lane("submit-mpi", "--name", "retrain-restored", "--pvc", "restored-tusimple:/mnt", *mpi)
    check(rc == 0 and "is being deleted" in out, "lanectl submit-mpi of the same name waits for the deletion", out)
    meta = kube_json(kube, "get", "mpijob", "retrain-restored", "-n", NS).get("metadata", {})
    check(meta and "deletionTimestamp" not in meta, "kubectl sees the new MPIJob", str(meta)[:300])


if __name__ == "__main__":
    sys.exit(main())

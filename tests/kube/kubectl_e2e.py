#!/usr/bin/python3
"""End to end with a real client: lanectl (Kubernetes backend) and kubectl against the test API
server (tests/kube/fake_apiserver.py), as the seed does it:
  lanectl submit / submit-mpi / snapshot create / restore, then
  kubectl get jobs,mpijobs,pvc,volumesnapshots -n runai-<project> -o json lists what lanectl made,
  kubectl create -f restore-snapshot-pvc.yaml (a PVC from a VolumeSnapshot), then
  lanectl submit-mpi --pvc restored-tusimple:/mnt runs against the claim kubectl made;
and kubectl sees the server's 422 for an object a real API server refuses.

kubectl: $LANE_KUBECTL, else `kubectl` on PATH (Debian's package kubernetes-client); without
one the test is skipped (exit 77).
Usage: kubectl_e2e.py LANECTL SCHEMAS_DIR"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SKIP = 77
PROJECT = "lane-detection"
NS = "runai-" + PROJECT
SNAPSHOT = "snap-tusimple-data-0"
failures = []


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
    version = subprocess.run([kubectl, "version", "--client"], capture_output=True, text=True)
    print("kubectl: %s (%s)" % (kubectl, (version.stdout.splitlines() or ["?"])[0]))

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

        def kube(*args):
            r = subprocess.run([kubectl, "--cache-dir", os.path.join(tmp, "kube-cache")] + list(args), env=env,
                               capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60)
            return r.returncode, r.stdout, r.stderr

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
    finally:
        server.terminate()
        server.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d check(s) failed" % len(failures) if failures else "all checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""End to end with the official Python client (python3-kubernetes, the `kubernetes` module)
against the test API server (tests/kube/fake_apiserver.py): typed creates (the client's models),
lists, a watch (it sends watch=True and no resourceVersion: the server replays ADDED), patches,
an unconditional replace, CRDs through CustomObjectsApi, Deployments, StorageClasses, Nodes,
Events, a SelfSubjectAccessReview, /version, /readyz and foreground deletion.

Skipped (exit 77, with the reason printed) when the module is not installed: scripts/deps/kube.txt
lists python3-kubernetes. Usage: python_client_e2e.py SCHEMAS_DIR"""
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SKIP = 77
NS = "runai-python-client"
failures = []


def check(ok, what, detail=""):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failures.append(what)
        if detail:
            print("      " + str(detail).replace("\n", "\n      "))


def job(k, name):
    return k.V1Job(api_version="batch/v1", kind="Job", metadata=k.V1ObjectMeta(name=name),
                   spec=k.V1JobSpec(template=k.V1PodTemplateSpec(spec=k.V1PodSpec(
                       restart_policy="Never", containers=[k.V1Container(name="main", image="busybox")]))))


def mpijob(name):
    template = {"spec": {"containers": [{"name": "mpi", "image": "muneer7589/dist-lane-detection:3.1"}]}}
    return {"apiVersion": "kubeflow.org/v2beta1", "kind": "MPIJob", "metadata": {"name": name},
            "spec": {"slotsPerWorker": 1, "mpiReplicaSpecs": {"Launcher": {"replicas": 1, "template": template},
                                                              "Worker": {"replicas": 2, "template": template}}}}


def typed_objects(k, api):
    core, batch = k.CoreV1Api(api), k.BatchV1Api(api)
    core.create_namespace(k.V1Namespace(metadata=k.V1ObjectMeta(name=NS)))
    for i in range(2):
        core.create_node(k.V1Node(metadata=k.V1ObjectMeta(name="gpu-%d" % i), status=k.V1NodeStatus(
            addresses=[k.V1NodeAddress(type="InternalIP", address="10.1.0.%d" % i)])))
    created = batch.create_namespaced_job(NS, job(k, "typed"))
    check(created.spec.completion_mode == "NonIndexed" and created.spec.selector is not None,
          "a typed Job is created and comes back with the server's defaults")
    check([j.metadata.name for j in batch.list_namespaced_job(NS).items] == ["typed"], "list_namespaced_job")
    pods = core.list_namespaced_pod(NS, label_selector="job-name=typed").items
    check(len(pods) == 1 and pods[0].status.pod_ip and pods[0].spec.node_name in ("gpu-0", "gpu-1"),
          "the Job's pod runs on a declared node with an IP", pods and pods[0].status)
    events = [e.reason for e in core.list_namespaced_event(NS).items]
    check("Scheduled" in events and "SuccessfulCreate" in events, "list_namespaced_event", events)
    patched = batch.patch_namespaced_job("typed", NS, {"metadata": {"labels": {"patched": "yes"}}})
    check(patched.metadata.labels.get("patched") == "yes", "patch_namespaced_job")
    core.create_namespaced_config_map(NS, k.V1ConfigMap(metadata=k.V1ObjectMeta(name="cm"), data={"a": "1"}))
    replaced = core.replace_namespaced_config_map("cm", NS, k.V1ConfigMap(metadata=k.V1ObjectMeta(name="cm"),
                                                                          data={"a": "2"}))
    check(replaced.data == {"a": "2"}, "replace without a resourceVersion is unconditional")


def watch_replays(k, api):
    from kubernetes import watch
    seen = [(e["type"], e["object"].metadata.name) for e in watch.Watch().stream(
        k.BatchV1Api(api).list_namespaced_job, NS, timeout_seconds=1)]
    check(("ADDED", "typed") in seen, "a watch without resourceVersion replays ADDED (watch=True)", seen)


def other_kinds(k, api):
    custom = k.CustomObjectsApi(api)
    custom.create_namespaced_custom_object("kubeflow.org", "v2beta1", NS, "mpijobs", mpijob("mpi"))
    listed = custom.list_namespaced_custom_object("kubeflow.org", "v2beta1", NS, "mpijobs")["items"]
    check([m["metadata"]["name"] for m in listed] == ["mpi"], "CustomObjectsApi create and list of an MPIJob")
    # Client 22.6 sends custom-object patches as merge patches (application/merge-patch+json), so
    # the body is an object; a JSON-patch list would be refused, as a real server refuses it.
    custom.patch_namespaced_custom_object("kubeflow.org", "v2beta1", NS, "mpijobs", "mpi",
                                          {"metadata": {"labels": {"a": "b"}}})
    got = custom.get_namespaced_custom_object("kubeflow.org", "v2beta1", NS, "mpijobs", "mpi")
    check(got["metadata"].get("labels") == {"a": "b"}, "a merge patch of an MPIJob")
    deployment = k.V1Deployment(metadata=k.V1ObjectMeta(name="web"), spec=k.V1DeploymentSpec(
        selector=k.V1LabelSelector(match_labels={"app": "web"}), template=k.V1PodTemplateSpec(
            metadata=k.V1ObjectMeta(labels={"app": "web"}),
            spec=k.V1PodSpec(containers=[k.V1Container(name="web", image="nginx")]))))
    k.AppsV1Api(api).create_namespaced_deployment(NS, deployment)
    check([d.metadata.name for d in k.AppsV1Api(api).list_namespaced_deployment(NS).items] == ["web"],
          "AppsV1Api create and list of a Deployment")
    k.StorageV1Api(api).create_storage_class(k.V1StorageClass(metadata=k.V1ObjectMeta(name="azurenetappfiles"),
                                                              provisioner="csi.trident.netapp.io"))
    check(len(k.StorageV1Api(api).list_storage_class().items) == 1, "StorageV1Api create and list of a StorageClass")
    review = k.AuthorizationV1Api(api).create_self_subject_access_review(k.V1SelfSubjectAccessReview(
        spec=k.V1SelfSubjectAccessReviewSpec(resource_attributes=k.V1ResourceAttributes(
            verb="create", group="batch", resource="jobs", namespace=NS))))
    check(review.status.allowed is True, "a SelfSubjectAccessReview is answered")
    check(k.VersionApi(api).get_code().major == "1", "/version")
    ready = api.call_api("/readyz", "GET", response_type="str", _return_http_data_only=True)
    check(ready == "ok", "/readyz", ready)


def foreground_delete(k, api):
    batch = k.BatchV1Api(api)
    batch.delete_namespaced_job("typed", NS, propagation_policy="Foreground")
    marked = batch.read_namespaced_job("typed", NS)
    check(marked.metadata.deletion_timestamp is not None and marked.metadata.finalizers == ["foregroundDeletion"],
          "foreground deletion keeps the Job, marked, while its pod terminates")
    time.sleep(1.5)
    left = [j.metadata.name for j in batch.list_namespaced_job(NS).items]
    check(left == [], "then the Job goes", left)


def main():
    try:
        import kubernetes
        from kubernetes import client as k
    except ImportError:
        print("SKIP: the official Python client is not installed (Debian package python3-kubernetes, listed in "
              "scripts/deps/kube.txt)")
        return SKIP
    print("kubernetes (Python client) %s" % getattr(kubernetes, "__version__", "?"))
    server = subprocess.Popen([sys.executable, os.path.join(HERE, "fake_apiserver.py"), "--schemas", sys.argv[1]],
                              stdout=subprocess.PIPE, text=True)
    try:
        config = k.Configuration()
        config.host = "http://127.0.0.1:%s" % server.stdout.readline().split()[1]
        api = k.ApiClient(config)
        typed_objects(k, api)
        watch_replays(k, api)
        other_kinds(k, api)
        foreground_delete(k, api)
        api.close()
    except k.ApiException as e:
        check(False, "an API call failed", "%s %s: %s" % (e.status, e.reason, e.body))
    finally:
        server.terminate()
        server.wait()
    print("%d check(s) failed" % len(failures) if failures else "all checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""The test API server refuses what a real API server refuses: each case posts an object that
passes the schema but breaks one server-side rule and expects the real server's answer (422
Invalid with a cause naming the field, or 400 for a quantity the decoder cannot read); the same
object with the rule kept is accepted, so each rule is shown to fire. Also discovery documents,
and what real clients rely on (class RealServer): field validation modes, decoding, patch types,
watch semantics, defaults, the controllers, foreground deletion, access reviews, health, OpenAPI.

Usage: test_apiserver_rules.py SCHEMAS_DIR"""
import copy
import json
import os
import subprocess
import sys
import time
import unittest
import urllib.error
import urllib.request

import yaml

import openapi_v2

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMAS = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(HERE, "..", "data", "k8s-schemas")
NS = "runai-rules"


class Server:
    def __init__(self):
        self.proc = subprocess.Popen([sys.executable, os.path.join(HERE, "fake_apiserver.py"), "--schemas", SCHEMAS],
                                     stdout=subprocess.PIPE, text=True)
        self.url = "http://127.0.0.1:%s" % self.proc.stdout.readline().split()[1]

    def call(self, method, path, body=None, ctype="application/json", accept=None, headers=False):
        data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, method=method, data=data)
        req.add_header("Content-Type", ctype)
        if accept:
            req.add_header("Accept", accept)
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                out = r.status, r.headers.get("Content-Type"), r.read()
                hdrs = r.headers
        except urllib.error.HTTPError as e:
            out = e.code, e.headers.get("Content-Type"), e.read()
            hdrs = e.headers
        return out + (hdrs,) if headers else out

    def json(self, method, path, body=None, **kw):
        code, _, data = self.call(method, path, body, **kw)
        return code, json.loads(data)

    def events(self, path, timeout=1):
        """The events of a watch (path with its query) that ends after `timeout` seconds."""
        with urllib.request.urlopen(self.url + path + "&timeoutSeconds=%d" % timeout, timeout=10) as r:
            return [json.loads(line) for line in r.read().decode().splitlines() if line.strip()]

    def stop(self):
        self.proc.terminate()
        self.proc.wait()


def meta(name, **extra):
    return dict({"name": name, "namespace": NS}, **extra)


def job(name="train", **container):
    c = dict({"name": "main", "image": "busybox"}, **container)
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta(name),
            "spec": {"template": {"metadata": {"labels": {"app": "x"}},
                                  "spec": {"restartPolicy": "Never", "containers": [c]}}}}


def service(name="train", port=None, svc_type="NodePort"):
    p = {"name": "http", "port": 80, "targetPort": 80}
    if port is not None:
        p["nodePort"] = port
    return {"apiVersion": "v1", "kind": "Service", "metadata": meta(name),
            "spec": {"type": svc_type, "selector": {"release": name}, "ports": [p]}}


def pvc(name="data", size="10Gi"):
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": meta(name),
            "spec": {"accessModes": ["ReadWriteMany"], "resources": {"requests": {"storage": size}}}}


def ingress(name="nb", path="/p-nb", port=8888, path_type="Prefix"):
    return {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": meta(name),
            "spec": {"rules": [{"http": {"paths": [{"path": path, "pathType": path_type, "backend": {
                "service": {"name": name, "port": {"number": port}}}}]}}]}}


PATHS = {"Job": "/apis/batch/v1/namespaces/%s/jobs" % NS, "Service": "/api/v1/namespaces/%s/services" % NS,
         "PersistentVolumeClaim": "/api/v1/namespaces/%s/persistentvolumeclaims" % NS,
         "Namespace": "/api/v1/namespaces", "ConfigMap": "/api/v1/namespaces/%s/configmaps" % NS,
         "Ingress": "/apis/networking.k8s.io/v1/namespaces/%s/ingresses" % NS}


def pod_spec(obj):
    return obj["spec"]["template"]["spec"]


class ServerCase(unittest.TestCase):
    """One test API server for the class's cases, with the namespace NS."""

    @classmethod
    def setUpClass(cls):
        cls.srv = Server()
        code, _ = cls.srv.json("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                                              "metadata": {"name": NS}})
        assert code == 201, code

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()


class Rules(ServerCase):

    def post(self, obj):
        return self.srv.json("POST", PATHS[obj["kind"]], obj)

    def assert_invalid(self, obj, field, message_part):
        code, st = self.post(obj)
        self.assertEqual(code, 422, st)
        self.assertEqual((st["kind"], st["status"], st["reason"], st["code"]), ("Status", "Failure", "Invalid", 422))
        self.assertEqual(st["details"]["kind"], obj["kind"])
        causes = st["details"]["causes"]
        self.assertIn(field, [c["field"] for c in causes], causes)
        cause = [c for c in causes if c["field"] == field][0]
        self.assertIn(message_part, cause["message"])
        self.assertIn(field + ": " + cause["message"], st["message"])
        return cause

    def assert_created(self, obj):
        code, st = self.post(obj)
        self.assertEqual(code, 201, st)
        return st

    # -- quantities -------------------------------------------------------------------------
    def test_quantity_grammar_in_requests_limits_and_storage(self):
        for bad in ("lots", "2GB", "1K", "2gi", "1 Gi", ""):
            with self.subTest(bad=bad):
                code, st = self.post(job("q", resources={"requests": {"memory": bad}}))
                self.assertEqual(code, 400, st)
                self.assertEqual(st["reason"], "BadRequest")
                self.assertIn("quantities must match the regular expression", st["message"])
                code, st = self.post(job("q", resources={"limits": {"cpu": bad}}))
                self.assertEqual(code, 400, st)
                code, st = self.post(pvc("q", bad))
                self.assertEqual(code, 400, st)
        for good in ("2G", "2Gi", "500m", "1.5", "1e3", "+1"):
            with self.subTest(good=good):
                created = self.assert_created(job("q-" + good.replace(".", "-").replace("+", "p").lower(),
                                                  resources={"requests": {"memory": good}}))
                self.assertEqual(pod_spec(created)["containers"][0]["resources"]["requests"]["memory"], good)

    def test_negative_request_and_request_above_limit(self):
        self.assert_invalid(job("neg", resources={"requests": {"cpu": "-1"}}),
                            "spec.template.spec.containers[0].resources.requests[cpu]", "greater than or equal to 0")
        self.assert_invalid(job("over", resources={"requests": {"cpu": "2"}, "limits": {"cpu": "1"}}),
                            "spec.template.spec.containers[0].resources.requests[cpu]", "less than or equal to cpu limit")
        self.assert_created(job("under", resources={"requests": {"cpu": "500m"}, "limits": {"cpu": "1"}}))

    def test_pvc_storage_must_be_above_zero(self):
        self.assert_invalid(pvc("zero", "0"), "spec.resources[storage]", "must be greater than zero")
        self.assert_created(pvc("one", "1Gi"))

    # -- names --------------------------------------------------------------------------------
    def test_service_names_are_dns1035_labels(self):
        self.assert_invalid(service("1job", svc_type="ClusterIP"), "metadata.name", "a DNS-1035 label must consist")
        self.assert_invalid(service("a.b", svc_type="ClusterIP"), "metadata.name", "DNS-1035")
        self.assert_created(service("job1", svc_type="ClusterIP"))
        # A Job may start with a digit and hold dots: DNS-1123 subdomain.
        self.assert_created(job("1job.v2"))
        self.assert_invalid(job("Job"), "metadata.name", "RFC 1123 subdomain")

    def test_namespace_names_are_dns1123_labels(self):
        bad = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "runai.lanes"}}
        self.assert_invalid(bad, "metadata.name", "RFC 1123 label")
        bad["metadata"]["name"] = "n" * 64
        self.assert_invalid(bad, "metadata.name", "no more than 63 characters")
        bad["metadata"]["name"] = "runai-lanes"
        self.assert_created(bad)

    def test_container_volume_and_port_names(self):
        bad = job("cname")
        pod_spec(bad)["containers"][0]["name"] = "Main"
        self.assert_invalid(bad, "spec.template.spec.containers[0].name", "RFC 1123 label")
        bad = job("vname", volumeMounts=[{"name": "Data", "mountPath": "/d"}])
        pod_spec(bad)["volumes"] = [{"name": "Data", "emptyDir": {}}]
        self.assert_invalid(bad, "spec.template.spec.volumes[0].name", "RFC 1123 label")
        bad = job("pname", ports=[{"name": "http-port-number-1", "containerPort": 80}])
        self.assert_invalid(bad, "spec.template.spec.containers[0].ports[0].name", "no more than 15 characters")
        svc = service("pname", svc_type="ClusterIP")
        svc["spec"]["ports"][0]["name"] = "8080"
        self.assert_invalid(svc, "spec.ports[0].name", "at least one letter")
        self.assert_created(job("names", ports=[{"name": "http", "containerPort": 80}]))

    def test_label_syntax(self):
        bad = job("labels")
        bad["metadata"]["labels"] = {"app": "not ok!"}
        self.assert_invalid(bad, "metadata.labels", "a valid label must be an empty string")
        bad["metadata"]["labels"] = {"bad key!": "x"}
        self.assert_invalid(bad, "metadata.labels", "name part must consist")
        bad["metadata"]["labels"] = {"Example.com/x": "y"}
        self.assert_invalid(bad, "metadata.labels", "prefix part")
        bad["metadata"]["labels"] = {"app": "v" * 64}
        self.assert_invalid(bad, "metadata.labels", "no more than 63 characters")
        bad = job("tlabels")
        bad["spec"]["template"]["metadata"]["labels"] = {"x": "-bad"}
        self.assert_invalid(bad, "spec.template.metadata.labels", "a valid label")
        big = job("annotations")
        big["metadata"]["annotations"] = {"lanectl.io/spec": "x" * (256 * 1024)}
        self.assert_invalid(big, "metadata.annotations", "Too long: must have at most 262144 bytes")
        big["metadata"]["annotations"] = {"lanectl.io/spec": "x" * (200 * 1024)}
        self.assert_created(big)
        good = job("labels")
        good["metadata"]["labels"] = {"lanectl.io/job": "labels", "app": "", "v": "1.0_a-b"}
        self.assert_created(good)

    # -- services -----------------------------------------------------------------------------
    def test_node_port_range_and_allocation(self):
        self.assert_invalid(service("np-low", 8080), "spec.ports[0].nodePort", "range of valid ports is 30000-32767")
        self.assert_invalid(service("np-high", 32768), "spec.ports[0].nodePort", "not in the valid range")
        self.assert_invalid(service("np-cip", 30001, "ClusterIP"), "spec.ports[0].nodePort", "may not be used")
        created = self.assert_created(service("np-ok", 30000))
        self.assertEqual(created["spec"]["ports"][0]["nodePort"], 30000)
        self.assertTrue(created["spec"]["clusterIP"])
        code, st = self.post(service("np-taken", 30000))
        self.assertEqual(code, 422, st)
        self.assertIn("already allocated", st["message"])
        picked = self.assert_created(service("np-any"))
        self.assertTrue(30000 <= picked["spec"]["ports"][0]["nodePort"] <= 32767)

    # -- volumes and mounts -------------------------------------------------------------------
    def test_unique_mount_paths(self):
        bad = job("mounts", volumeMounts=[{"name": "a", "mountPath": "/mnt"}, {"name": "b", "mountPath": "/mnt"}])
        pod_spec(bad)["volumes"] = [{"name": "a", "emptyDir": {}}, {"name": "b", "emptyDir": {}}]
        self.assert_invalid(bad, "spec.template.spec.containers[0].volumeMounts[1].mountPath", "must be unique")
        pod_spec(bad)["containers"][0]["volumeMounts"][1]["mountPath"] = "/data"
        self.assert_created(bad)

    def test_unique_volume_names_and_mounts_of_existing_volumes(self):
        bad = job("vols", volumeMounts=[{"name": "a", "mountPath": "/mnt"}])
        pod_spec(bad)["volumes"] = [{"name": "a", "emptyDir": {}}, {"name": "a", "emptyDir": {}}]
        self.assert_invalid(bad, "spec.template.spec.volumes[1].name", "Duplicate value")
        bad = job("vols", volumeMounts=[{"name": "missing", "mountPath": "/mnt"}])
        self.assert_invalid(bad, "spec.template.spec.containers[0].volumeMounts[0].name", "Not found")

    def test_backsteps_in_host_and_mount_paths(self):
        bad = job("hostpath", volumeMounts=[{"name": "h", "mountPath": "/in"}])
        pod_spec(bad)["volumes"] = [{"name": "h", "hostPath": {"path": "/data/../etc"}}]
        self.assert_invalid(bad, "spec.template.spec.volumes[0].hostPath.path", "must not contain '..'")
        pod_spec(bad)["volumes"][0]["hostPath"]["path"] = "/data/..x"
        pod_spec(bad)["containers"][0]["volumeMounts"][0]["mountPath"] = "/in/../x"
        self.assert_invalid(bad, "spec.template.spec.containers[0].volumeMounts[0].mountPath", "must not contain '..'")
        pod_spec(bad)["containers"][0]["volumeMounts"][0]["mountPath"] = "/in/..x"
        self.assert_created(bad)

    def test_mpijob_pod_templates_are_checked_too(self):
        c = {"name": "mpi", "image": "x", "volumeMounts": [{"name": "nope", "mountPath": "/mnt"}]}
        mpi = {"apiVersion": "kubeflow.org/v2beta1", "kind": "MPIJob", "metadata": meta("mpi"),
               "spec": {"mpiReplicaSpecs": {"Worker": {"replicas": 1, "template": {"spec": {"containers": [c]}}}}}}
        code, st = self.srv.json("POST", "/apis/kubeflow.org/v2beta1/namespaces/%s/mpijobs" % NS, mpi)
        self.assertEqual(code, 422, st)
        self.assertIn("spec.mpiReplicaSpecs[Worker].template.spec.containers[0].volumeMounts[0].name",
                      [c["field"] for c in st["details"]["causes"]])

    # -- Ingress (no schema in the schema folder: checked by hand) -----------------------------
    def test_ingress_shape(self):
        self.assert_created(ingress())
        self.assert_invalid(ingress("nb2", path="p-nb"), "spec.rules[0].http.paths[0].path", "absolute path")
        self.assert_invalid(ingress("nb3", path_type="Anything"), "spec.rules[0].http.paths[0].pathType",
                            "Unsupported value")
        self.assert_invalid(ingress("nb4", port=0), "spec.rules[0].http.paths[0].backend.service.port.number",
                            "between 1 and 65535")
        bad = ingress("nb5")
        bad["spec"]["rule"] = bad["spec"].pop("rules")
        self.assert_invalid(bad, "spec.rule", "not declared")

    # -- immutable fields ---------------------------------------------------------------------
    def test_job_template_and_selector_are_immutable(self):
        created = self.assert_created(job("immut"))
        path = PATHS["Job"] + "/immut"
        code, st = self.srv.json("PATCH", path, {"spec": {"template": {"spec": {"containers": [
            {"name": "main", "image": "other"}]}}}}, ctype="application/merge-patch+json")
        self.assertEqual(code, 422, st)
        self.assertEqual(st["details"]["causes"][0]["field"], "spec.template")
        self.assertIn("field is immutable", st["details"]["causes"][0]["message"])
        code, st = self.srv.json("PATCH", path, {"spec": {"selector": {"matchLabels": {"a": "b"}}}},
                                 ctype="application/merge-patch+json")
        self.assertEqual(code, 422, st)
        self.assertEqual(st["details"]["causes"][0]["field"], "spec.selector")
        code, st = self.srv.json("PATCH", path, {"spec": {"suspend": True}}, ctype="application/merge-patch+json")
        self.assertEqual(code, 200, st)  # what may change still does
        code, current = self.srv.json("GET", path)
        changed = copy.deepcopy(current)
        pod_spec(changed)["containers"][0]["image"] = "other"
        code, st = self.srv.json("PUT", path, changed)
        self.assertEqual(code, 422, st)
        self.assertEqual(st["details"]["causes"][0]["field"], "spec.template")

    def test_pvc_spec_is_immutable_except_a_growing_storage_request(self):
        self.assert_created(pvc("grow", "10Gi"))
        path = PATHS["PersistentVolumeClaim"] + "/grow"
        patch = "application/merge-patch+json"
        code, st = self.srv.json("PATCH", path, {"spec": {"resources": {"requests": {"storage": "20Gi"}}}}, ctype=patch)
        self.assertEqual(code, 200, st)
        code, st = self.srv.json("PATCH", path, {"spec": {"resources": {"requests": {"storage": "5Gi"}}}}, ctype=patch)
        self.assertEqual(code, 422, st)
        self.assertEqual(st["details"]["causes"][0]["field"], "spec.resources.requests.storage")
        code, st = self.srv.json("PATCH", path, {"spec": {"accessModes": ["ReadWriteOnce"]}}, ctype=patch)
        self.assertEqual(code, 422, st)
        self.assertEqual(st["details"]["causes"][0]["field"], "spec")
        self.assertIn("immutable", st["details"]["causes"][0]["message"])

    def test_service_cluster_ip_is_immutable(self):
        created = self.assert_created(service("cip", svc_type="ClusterIP"))
        path = PATHS["Service"] + "/cip"
        code, st = self.srv.json("PATCH", path, {"spec": {"clusterIP": "10.9.9.9"}},
                                 ctype="application/merge-patch+json")
        self.assertEqual(code, 422, st)
        self.assertEqual(st["details"]["causes"][0]["field"], "spec.clusterIP")
        # A PUT that leaves the allocated clusterIP out keeps it, as the real server does.
        code, current = self.srv.json("GET", path)
        current["spec"].pop("clusterIP")
        current["spec"].pop("clusterIPs")
        current["metadata"]["labels"] = {"x": "y"}
        code, st = self.srv.json("PUT", path, current)
        self.assertEqual(code, 200, st)
        self.assertEqual(st["spec"]["clusterIP"], created["spec"]["clusterIP"])

    # -- discovery ----------------------------------------------------------------------------
    def test_discovery_documents(self):
        code, v = self.srv.json("GET", "/version")
        self.assertEqual((code, v["major"]), (200, "1"))
        code, api = self.srv.json("GET", "/api")
        self.assertEqual((api["kind"], api["versions"]), ("APIVersions", ["v1"]))
        code, core = self.srv.json("GET", "/api/v1")
        self.assertEqual(core["kind"], "APIResourceList")
        by_name = {r["name"]: r for r in core["resources"]}
        self.assertEqual(by_name["persistentvolumeclaims"]["shortNames"], ["pvc"])
        self.assertIn("pods/log", by_name)
        code, groups = self.srv.json("GET", "/apis")
        self.assertEqual(groups["kind"], "APIGroupList")
        names = {g["name"]: g for g in groups["groups"]}
        for g in ("batch", "kubeflow.org", "snapshot.storage.k8s.io", "scheduling.run.ai", "networking.k8s.io"):
            self.assertIn(g, names)
        self.assertEqual(names["scheduling.run.ai"]["preferredVersion"]["version"], "v2")
        for gv, plural, kind in (("batch/v1", "jobs", "Job"), ("kubeflow.org/v2beta1", "mpijobs", "MPIJob"),
                                 ("snapshot.storage.k8s.io/v1", "volumesnapshots", "VolumeSnapshot"),
                                 ("scheduling.run.ai/v2", "queues", "Queue"),
                                 ("networking.k8s.io/v1", "ingresses", "Ingress")):
            code, rl = self.srv.json("GET", "/apis/" + gv)
            self.assertEqual((code, rl["groupVersion"]), (200, gv))
            self.assertIn((plural, kind), [(r["name"], r["kind"]) for r in rl["resources"]])
        code, _ = self.srv.json("GET", "/apis/nope.io/v1")
        self.assertEqual(code, 404)

    def test_openapi_v2_as_json_and_as_gnostic_protobuf(self):
        """/openapi/v2 describes every kind with a schema, in what kube-openapi's proto parser reads
        (kubectl 1.20's explain and validation; kubectl_e2e.py runs kubectl on it)."""
        code, doc = self.srv.json("GET", "/openapi/v2")
        self.assertEqual((code, doc["swagger"]), (200, "2.0"))
        defs = doc["definitions"]
        for name, gvk in (("io.k8s.api.batch.v1.Job", ("batch", "v1", "Job")),
                          ("io.k8s.api.core.v1.PersistentVolumeClaim", ("", "v1", "PersistentVolumeClaim")),
                          ("org.kubeflow.v2beta1.MPIJob", ("kubeflow.org", "v2beta1", "MPIJob")),
                          ("org.kubeflow.v1.PyTorchJob", ("kubeflow.org", "v1", "PyTorchJob")),
                          ("io.k8s.storage.snapshot.v1.VolumeSnapshot", ("snapshot.storage.k8s.io", "v1",
                                                                          "VolumeSnapshot"))):
            self.assertIn(dict(zip(("group", "version", "kind"), gvk)), defs[name]["x-kubernetes-group-version-kind"])
        self.assertEqual(defs["org.kubeflow.v2beta1.MPIJob"]["properties"]["metadata"]["$ref"],
                         "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")
        template = defs["org.kubeflow.v1.PyTorchJob"]["properties"]["spec"]["properties"]["pytorchReplicaSpecs"][
            "additionalProperties"]["properties"]["template"]
        self.assertEqual(template, {"$ref": "#/definitions/io.k8s.api.core.v1.PodTemplateSpec"})
        for name, node in walk_schemas(defs):  # what kube-openapi refuses, failing the whole document
            if "$ref" in node:
                self.assertIn(node["$ref"][len("#/definitions/"):], defs, name)
                self.assertNotIn("type", node, name)
            self.assertFalse(node.get("type") == "array" and "items" not in node, name)
            self.assertTrue(set(node) <= {"$ref", "description", "type", "format", "required", "properties",
                                          "items", "additionalProperties"} | {k for k in node if k.startswith("x-")},
                            name)
        code, ctype, body = self.srv.call("GET", "/openapi/v2",
                                          accept="application/com.github.proto-openapi.spec.v2@v1.0+protobuf")
        self.assertEqual((code, ctype), (200, "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"))
        pb = openapi_v2.message_classes()["Document"].FromString(body)
        self.assertEqual((pb.swagger, pb.info.version), ("2.0", "v1.29.0"))
        named = {d.name: d.value for d in pb.definitions.additional_properties}
        self.assertEqual(set(named), set(defs))
        job = named["io.k8s.api.batch.v1.Job"]
        self.assertEqual(yaml.safe_load(job.vendor_extension[0].value.yaml),
                         [{"group": "batch", "kind": "Job", "version": "v1"}])
        fields = {p.name: p.value for p in named["io.k8s.api.batch.v1.JobSpec"].properties.additional_properties}
        self.assertIn("completionMode specifies how Pod completions are tracked", fields["completionMode"].description)
        template = fields["template"]
        self.assertEqual((getattr(template, "_ref"), template.description.split(".")[0]),
                         ("#/definitions/io.k8s.api.core.v1.PodTemplateSpec", "Describes the pod that will be created "
                          "when executing a job"))
        labels = {p.name: p.value for p in named["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"]
                  .properties.additional_properties}["labels"]
        self.assertEqual((list(labels.type.value), list(labels.additional_properties.schema.type.value)),
                         (["object"], ["string"]))



class RealServer(ServerCase):
    """What real clients (kubectl, client-go, the Python client) rely on."""

    def create(self, obj, query=""):
        code, st = self.srv.json("POST", PATHS[obj["kind"]] + query, obj)
        self.assertEqual(code, 201, st)
        return st

    # -- bodies -------------------------------------------------------------------------------
    def test_field_validation_modes(self):
        bad = configmap("fv-strict")
        bad["colour"] = "blue"
        bad["shape"] = "round"
        code, st = self.srv.json("POST", PATHS["ConfigMap"] + "?fieldValidation=Strict", bad)
        self.assertEqual((code, st["reason"]), (400, "BadRequest"), st)
        self.assertIn('strict decoding error: unknown field "colour", unknown field "shape"', st["message"])
        del bad["shape"]
        bad["metadata"]["name"] = "fv-warn"  # Warn is the default: dropped, and said in a Warning header
        code, _, body, headers = self.srv.call("POST", PATHS["ConfigMap"], bad, headers=True)
        self.assertEqual(code, 201, body)
        self.assertNotIn("colour", json.loads(body))
        self.assertEqual(headers.get_all("Warning"), ['299 - "unknown field \\"colour\\""'])
        bad["metadata"]["name"] = "fv-ignore"
        code, _, body, headers = self.srv.call("POST", PATHS["ConfigMap"] + "?fieldValidation=Ignore", bad,
                                               headers=True)
        self.assertEqual(code, 201, body)
        self.assertNotIn("colour", json.loads(body))
        self.assertIsNone(headers.get("Warning"))
        code, st = self.srv.json("POST", PATHS["ConfigMap"] + "?fieldValidation=Loose", configmap("fv-bad"))
        self.assertEqual(code, 400, st)
        # Nested too, with the server's path spelling.
        j = job("fv-nested")
        pod_spec(j)["containers"][0]["colour"] = "red"
        code, st = self.srv.json("POST", PATHS["Job"] + "?fieldValidation=Strict", j)
        self.assertIn('unknown field "spec.template.spec.containers[0].colour"', st["message"])

    def test_nulls_and_a_missing_kind_decode_as_on_a_real_server(self):
        cm = configmap("typed")
        cm["metadata"]["creationTimestamp"] = None  # what typed Go clients send
        del cm["apiVersion"], cm["kind"]
        code, created = self.srv.json("POST", PATHS["ConfigMap"] + "?fieldValidation=Strict", cm)
        self.assertEqual(code, 201, created)
        self.assertEqual((created["apiVersion"], created["kind"]), ("v1", "ConfigMap"))
        self.assertTrue(created["metadata"]["creationTimestamp"])
        wrong = configmap("wrong-kind")
        wrong["kind"] = "Secret"
        code, _ = self.srv.json("POST", PATHS["ConfigMap"], wrong)
        self.assertEqual(code, 400)

    def test_a_protobuf_body_is_415(self):
        code, _, body = self.srv.call("POST", PATHS["ConfigMap"], b"k8s\x00\x0a\x0f\x0a\x02v1",
                                      ctype="application/vnd.kubernetes.protobuf")
        self.assertEqual(code, 415, body)
        self.assertEqual(json.loads(body)["reason"], "UnsupportedMediaType")

    def test_put_without_resource_version_is_unconditional(self):
        created = self.create(configmap("put"))
        update = copy.deepcopy(created)
        del update["metadata"]["resourceVersion"]
        update["data"] = {"k": "new"}
        code, st = self.srv.json("PUT", PATHS["ConfigMap"] + "/put", update)
        self.assertEqual((code, st["data"]), (200, {"k": "new"}), st)
        stale = copy.deepcopy(created)
        code, st = self.srv.json("PUT", PATHS["ConfigMap"] + "/put", stale)
        self.assertEqual((code, st["reason"]), (409, "Conflict"))

    # -- patches ------------------------------------------------------------------------------
    def test_strategic_merge_json_patch_and_apply(self):
        self.create(job("patched", env=[{"name": "A", "value": "1"}]))
        path = PATHS["Job"] + "/patched"
        code, st = self.srv.json("PATCH", path, {"metadata": {"labels": {"x": "y"}}, "spec": {"suspend": True}},
                                 ctype="application/strategic-merge-patch+json")
        self.assertEqual((code, st["spec"]["suspend"], st["metadata"]["labels"]), (200, True, {"x": "y"}), st)
        code, st = self.srv.json("PATCH", path, [{"op": "replace", "path": "/spec/suspend", "value": False},
                                                 {"op": "add", "path": "/metadata/labels/z", "value": "w"},
                                                 {"op": "test", "path": "/metadata/labels/x", "value": "y"}],
                                 ctype="application/json-patch+json")
        self.assertEqual((code, st["spec"]["suspend"], st["metadata"]["labels"]), (200, False, {"x": "y", "z": "w"}))
        code, st = self.srv.json("PATCH", path, [{"op": "test", "path": "/metadata/labels/x", "value": "no"}],
                                 ctype="application/json-patch+json")
        self.assertEqual(code, 422, st)
        # Strategic merge merges lists by their merge key (containers by name).
        svc = self.create(service("smp", svc_type="ClusterIP"))
        cm_pod = {"apiVersion": "v1", "kind": "Pod", "metadata": meta("smp"), "spec": {"containers": [
            {"name": "a", "image": "one"}, {"name": "b", "image": "two"}]}}
        self.srv.json("POST", "/api/v1/namespaces/%s/pods" % NS, cm_pod)
        code, st = self.srv.json("PATCH", "/api/v1/namespaces/%s/pods/smp" % NS,
                                 {"spec": {"containers": [{"name": "b", "image": "three"}],
                                           "$setElementOrder/containers": [{"name": "a"}, {"name": "b"}]}},
                                 ctype="application/strategic-merge-patch+json")
        self.assertEqual([(c["name"], c["image"]) for c in st["spec"]["containers"]], [("a", "one"), ("b", "three")])
        self.assertTrue(svc)
        # A CRD takes no strategic merge patch, as on a real server.
        mpi = {"apiVersion": "kubeflow.org/v2beta1", "kind": "MPIJob", "metadata": meta("smp-mpi"), "spec": {
            "mpiReplicaSpecs": {"Worker": {"replicas": 1, "template": {"spec": {"containers": [
                {"name": "mpi", "image": "x"}]}}}}}}
        mpath = "/apis/kubeflow.org/v2beta1/namespaces/%s/mpijobs" % NS
        self.assertEqual(self.srv.json("POST", mpath, mpi)[0], 201)
        code, st = self.srv.json("PATCH", mpath + "/smp-mpi", {"metadata": {"labels": {"a": "b"}}},
                                 ctype="application/strategic-merge-patch+json")
        self.assertEqual(code, 415, st)
        self.assertIn("application/merge-patch+json", st["message"])
        # Server-side apply: needs a fieldManager, creates when absent, merges when present.
        applied = configmap("applied")
        code, st = self.srv.json("PATCH", PATHS["ConfigMap"] + "/applied", applied, ctype="application/apply-patch+yaml")
        self.assertEqual(code, 400, st)
        self.assertIn("fieldManager is required", st["message"])
        code, st = self.srv.json("PATCH", PATHS["ConfigMap"] + "/applied?fieldManager=t", applied,
                                 ctype="application/apply-patch+yaml")
        self.assertEqual(code, 201, st)
        code, _, body = self.srv.call("PATCH", PATHS["ConfigMap"] + "/applied?fieldManager=t",
                                      b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  k2: v\n",
                                      ctype="application/apply-patch+yaml")
        self.assertEqual((code, json.loads(body)["data"]), (200, {"k": "applied", "k2": "v"}), body)

    # -- watch --------------------------------------------------------------------------------
    def test_watch_flags_replay_and_bookmarks(self):
        self.create(configmap("w1"))
        for flag in ("true", "True", "1"):
            evs = self.srv.events(PATHS["ConfigMap"] + "?watch=%s&fieldSelector=metadata.name%%3Dw1" % flag)
            self.assertEqual([(e["type"], e["object"]["metadata"]["name"]) for e in evs], [("ADDED", "w1")], flag)
        code, page = self.srv.json("GET", PATHS["ConfigMap"])
        evs = self.srv.events(PATHS["ConfigMap"] + "?watch=1&resourceVersion=%s&allowWatchBookmarks=true"
                              % page["metadata"]["resourceVersion"])
        self.assertEqual([e["type"] for e in evs], ["BOOKMARK"])

    # -- defaults and the controllers -------------------------------------------------------------
    def test_job_defaults(self):
        created = self.create(job("defaults"))
        spec, uid = created["spec"], created["metadata"]["uid"]
        self.assertEqual(spec["selector"], {"matchLabels": {"batch.kubernetes.io/controller-uid": uid}})
        self.assertEqual((spec["completionMode"], spec["suspend"], spec["completions"], spec["parallelism"],
                          spec["backoffLimit"]), ("NonIndexed", False, 1, 1, 6))
        self.assertEqual(spec["template"]["metadata"]["labels"]["batch.kubernetes.io/job-name"], "defaults")

    def test_pods_run_on_declared_nodes_and_finish_on_schedule(self):
        for i in range(2):
            self.assertEqual(self.srv.json("POST", "/api/v1/nodes", {
                "apiVersion": "v1", "kind": "Node", "metadata": {"name": "gpu-%d" % i},
                "status": {"addresses": [{"type": "InternalIP", "address": "10.1.0.%d" % i}]}})[0], 201)
        j = job("timed")
        j["metadata"]["annotations"] = {"fake.lanectl.io/run-seconds": "0.5"}
        self.create(j)
        code, pods = self.srv.json("GET", "/api/v1/namespaces/%s/pods?labelSelector=job-name%%3Dtimed" % NS)
        pod = pods["items"][0]
        self.assertEqual(pod["status"]["phase"], "Running")
        self.assertTrue(pod["status"]["podIP"].startswith("10.244."))
        self.assertIn(pod["spec"]["nodeName"], ("gpu-0", "gpu-1"))
        self.assertEqual(pod["status"]["hostIP"], "10.1.0." + pod["spec"]["nodeName"][-1])
        self.assertIn({"type": "Ready", "status": "True"},
                      [{k: c[k] for k in ("type", "status")} for c in pod["status"]["conditions"]])
        time.sleep(1.2)
        code, done = self.srv.json("GET", PATHS["Job"] + "/timed")
        self.assertEqual(done["status"]["succeeded"], 1)
        self.assertEqual(done["status"]["conditions"][0]["type"], "Complete")
        code, pods = self.srv.json("GET", "/api/v1/namespaces/%s/pods?labelSelector=job-name%%3Dtimed" % NS)
        self.assertEqual(pods["items"][0]["status"]["phase"], "Succeeded")
        code, events = self.srv.json("GET", "/api/v1/namespaces/%s/events" % NS)
        reasons = [(e["involvedObject"]["name"], e["reason"]) for e in events["items"]]
        self.assertIn(("timed", "SuccessfulCreate"), reasons)
        self.assertIn(("timed", "Completed"), reasons)
        self.assertIn((pod["metadata"]["name"], "Scheduled"), reasons)
        # The control endpoint finishes one now, failed.
        self.create(job("failing"))
        code, st = self.srv.json("POST", "/_test/finish", {"kind": "Job", "namespace": NS, "name": "failing",
                                                           "exitCode": 2})
        self.assertEqual((code, st["status"]["failed"], st["status"]["conditions"][0]["type"]), (200, 1, "Failed"))

    def test_a_claim_from_a_missing_snapshot_stays_pending(self):
        claim = pvc("from-nothing")
        claim["spec"]["dataSource"] = {"apiGroup": "snapshot.storage.k8s.io", "kind": "VolumeSnapshot",
                                       "name": "no-such-snapshot"}
        self.create(claim)
        code, got = self.srv.json("GET", PATHS["PersistentVolumeClaim"] + "/from-nothing")
        self.assertEqual(got.get("status", {}).get("phase", "Pending"), "Pending")
        self.assertNotIn("volumeName", got["spec"])
        self.create(pvc("plain"))
        code, got = self.srv.json("GET", PATHS["PersistentVolumeClaim"] + "/plain")
        self.assertEqual(got["status"]["phase"], "Bound")
        code, pv = self.srv.json("GET", "/api/v1/persistentvolumes/" + got["spec"]["volumeName"])
        self.assertEqual((code, pv["spec"]["claimRef"]["name"]), (200, "plain"))

    # -- deletion -----------------------------------------------------------------------------
    def test_foreground_deletion_waits_for_the_dependents(self):
        self.srv.json("POST", "/_test/settings", {"termination_seconds": 0.6})
        self.create(job("fg"))
        code, st = self.srv.json("DELETE", PATHS["Job"] + "/fg", {"propagationPolicy": "Foreground"})
        self.assertEqual(code, 200, st)
        code, kept = self.srv.json("GET", PATHS["Job"] + "/fg")
        self.assertEqual(code, 200)
        self.assertIn("deletionTimestamp", kept["metadata"])
        self.assertEqual(kept["metadata"]["finalizers"], ["foregroundDeletion"])
        code, st = self.srv.json("POST", PATHS["Job"], job("fg"))
        self.assertEqual((code, st["reason"]), (409, "AlreadyExists"))
        self.assertIn("object is being deleted", st["message"])
        code, pods = self.srv.json("GET", "/api/v1/namespaces/%s/pods?labelSelector=job-name%%3Dfg" % NS)
        self.assertTrue(all("deletionTimestamp" in p["metadata"] for p in pods["items"]) and pods["items"])
        time.sleep(1.2)
        self.assertEqual(self.srv.json("GET", PATHS["Job"] + "/fg")[0], 404)
        code, pods = self.srv.json("GET", "/api/v1/namespaces/%s/pods?labelSelector=job-name%%3Dfg" % NS)
        self.assertEqual(pods["items"], [])
        self.create(job("fg"))  # the name is free again
        self.srv.json("POST", "/_test/settings", {"termination_seconds": 0.2})

    def test_delete_preconditions(self):
        made = self.create(configmap("pre"))
        for field, other in (("uid", "0000"), ("resourceVersion", "1")):
            code, st = self.srv.json("DELETE", PATHS["ConfigMap"] + "/pre",
                                     {"kind": "DeleteOptions", "apiVersion": "v1", "preconditions": {field: other}})
            self.assertEqual((code, st["reason"]), (409, "Conflict"), st)
            self.assertIn("Precondition failed", st["message"])
        self.assertEqual(self.srv.json("GET", PATHS["ConfigMap"] + "/pre")[0], 200)  # still there
        meta = made["metadata"]
        code, st = self.srv.json("DELETE", PATHS["ConfigMap"] + "/pre", {
            "kind": "DeleteOptions", "apiVersion": "v1",
            "preconditions": {"uid": meta["uid"], "resourceVersion": meta["resourceVersion"]}})
        self.assertEqual(code, 200, st)
        self.assertEqual(self.srv.json("GET", PATHS["ConfigMap"] + "/pre")[0], 404)

    # -- kinds, access reviews, health, OpenAPI ---------------------------------------------------
    def test_more_kinds_access_reviews_health_and_openapi(self):
        code, groups = self.srv.json("GET", "/apis")
        names = {g["name"] for g in groups["groups"]}
        for g in ("apps", "storage.k8s.io", "rbac.authorization.k8s.io", "authorization.k8s.io"):
            self.assertIn(g, names)
        code, core = self.srv.json("GET", "/api/v1")
        self.assertIn("persistentvolumes", [r["name"] for r in core["resources"]])
        sc = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "azurenetappfiles"},
              "provisioner": "csi.trident.netapp.io", "parameters": {"backendType": "azure-netapp-files"}}
        self.assertEqual(self.srv.json("POST", "/apis/storage.k8s.io/v1/storageclasses", sc)[0], 201)
        code, st = self.srv.json("POST", "/apis/storage.k8s.io/v1/storageclasses?fieldValidation=Strict",
                                 dict(sc, metadata={"name": "x"}, provisioners="typo"))
        self.assertEqual(code, 400, st)
        dep = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta("web"), "spec": {
            "selector": {"matchLabels": {"app": "web"}}, "template": {
                "metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "web", "image": "nginx"}]}}}}
        code, st = self.srv.json("POST", "/apis/apps/v1/namespaces/%s/deployments" % NS, dep)
        self.assertEqual((code, st["spec"]["replicas"]), (201, 1), st)
        code, st = self.srv.json("GET", "/apis/apps/v1/namespaces/%s/deployments/web" % NS)
        self.assertEqual(st["status"]["readyReplicas"], 1)
        review = {"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
                  "spec": {"resourceAttributes": {"verb": "create", "resource": "jobs", "group": "batch",
                                                  "namespace": NS}}}
        path = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
        code, st = self.srv.json("POST", path, review)
        self.assertEqual((code, st["status"]["allowed"]), (201, True), st)
        self.srv.json("POST", "/_test/settings", {"denied": [{"verb": "create", "resource": "jobs"}]})
        code, st = self.srv.json("POST", path, review)
        self.assertEqual(st["status"]["allowed"], False)
        self.srv.json("POST", "/_test/settings", {"denied": []})
        for p in ("/healthz", "/readyz", "/livez"):
            self.assertEqual(self.srv.call("GET", p)[::2], (200, b"ok"))
        code, index = self.srv.json("GET", "/openapi/v3")
        self.assertIn("apis/batch/v1", index["paths"])
        code, batch = self.srv.json("GET", index["paths"]["apis/batch/v1"]["serverRelativeURL"])
        self.assertIn("io.k8s.api.batch.v1.Job", batch["components"]["schemas"])
        code, mpi = self.srv.json("GET", index["paths"]["apis/kubeflow.org/v2beta1"]["serverRelativeURL"])
        schema = mpi["components"]["schemas"]["org.kubeflow.v2beta1.MPIJob"]
        self.assertEqual(schema["x-kubernetes-group-version-kind"][0]["kind"], "MPIJob")
        self.assertIn("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", mpi["components"]["schemas"])


def walk_schemas(defs):
    """(definition name, node) of every schema node of the v2 definitions."""
    for name, root in defs.items():
        todo = [root]
        while todo:
            node = todo.pop()
            yield name, node
            todo.extend(node.get("properties", {}).values())
            todo.extend(n for n in (node.get("items"), node.get("additionalProperties")) if isinstance(n, dict))


def configmap(name):
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta(name), "data": {"k": name}}


if __name__ == "__main__":
    unittest.main(verbosity=1)

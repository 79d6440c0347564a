#!/usr/bin/python3
"""A small Kubernetes API server for lanectl's tests.

It serves the REST endpoints lanectl uses (core v1, batch/v1 Jobs, kubeflow.org MPIJobs and PyTorchJobs,
CSI VolumeSnapshots, KAI Queues) from memory, with resourceVersions, list pagination
(limit/continue), watches (chunked, resumable, 410 Gone after compaction), pod logs
(follow, tailLines, sinceSeconds, timestamps, container) and Status errors.

Every object written is validated against the official schemas in tests/data/k8s-schemas
(OpenAPI v3 for core and batch, the CRDs' openAPIV3Schema for the rest) with unknown fields
rejected, as a real API server does with strict field validation.

Tiny "controllers" make it feel alive: a Job gets a running pod, an MPIJob a launcher and
its workers, a VolumeSnapshot becomes readyToUse (or gets status.error when its PVC is
missing), a PVC becomes Bound.

Test control endpoints under /_test/: faults (429 + Retry-After, 5xx, dropped connections
before or after the write, watch expiry, slow log streams, malformed JSON bodies), logs, compact,
bulk, requests.

Usage: fake_apiserver.py --schemas DIR [--cert C --key K] [--token T]; prints "PORT <n>".
"""
import argparse
import base64
import copy
import hashlib
import itertools
import datetime
import json
import os
import random
import re
import ssl
import struct
import sys
import threading
import time
import urllib.parse
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import jsonschema
import yaml

import kai_scheduler
import openapi_v2

try:
    YamlLoader = yaml.CSafeLoader
except AttributeError:  # pragma: no cover
    YamlLoader = yaml.SafeLoader

# The PyTorchJob CRD is this folder's own subset of the training operator's (crds/, see its header).
PYTORCHJOB_CRD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "crds", "kubeflow.org_pytorchjobs.yaml")
# (group, version, plural) -> (kind, namespaced, schema source)
RESOURCES = {
    ("", "v1", "namespaces"): ("Namespace", False, "core"),
    ("", "v1", "pods"): ("Pod", True, "core"),
    ("", "v1", "persistentvolumeclaims"): ("PersistentVolumeClaim", True, "core"),
    ("", "v1", "services"): ("Service", True, "core"),
    ("", "v1", "events"): ("Event", True, "core"),
    ("", "v1", "nodes"): ("Node", False, "core"),
    ("", "v1", "configmaps"): ("ConfigMap", True, "core"),
    ("", "v1", "serviceaccounts"): ("ServiceAccount", True, "core"),
    ("", "v1", "persistentvolumes"): ("PersistentVolume", False, "core"),
    ("batch", "v1", "jobs"): ("Job", True, "batch"),
    ("kubeflow.org", "v2beta1", "mpijobs"): ("MPIJob", True, "mpijobs.kubeflow.org.yaml"),
    ("kubeflow.org", "v1", "pytorchjobs"): ("PyTorchJob", True, PYTORCHJOB_CRD),
    ("snapshot.storage.k8s.io", "v1", "volumesnapshots"):
        ("VolumeSnapshot", True, "snapshot.storage.k8s.io_volumesnapshots.yaml"),
    ("snapshot.storage.k8s.io", "v1", "volumesnapshotclasses"):
        ("VolumeSnapshotClass", False, "snapshot.storage.k8s.io_volumesnapshotclasses.yaml"),
    ("snapshot.storage.k8s.io", "v1", "volumesnapshotcontents"):
        ("VolumeSnapshotContent", False, "snapshot.storage.k8s.io_volumesnapshotcontents.yaml"),
    ("scheduling.run.ai", "v2", "queues"): ("Queue", False, "scheduling.run.ai_queues.yaml"),
    ("scheduling.run.ai", "v2alpha2", "podgroups"): ("PodGroup", True, "scheduling.run.ai_podgroups.yaml"),
    ("kueue.x-k8s.io", "v1beta1", "clusterqueues"): ("ClusterQueue", False, "kueue.x-k8s.io_clusterqueues.yaml"),
    ("kueue.x-k8s.io", "v1beta1", "localqueues"): ("LocalQueue", True, "kueue.x-k8s.io_localqueues.yaml"),
    # No schema in tests/data/k8s-schemas: its shape is checked by hand (ingress_causes).
    ("networking.k8s.io", "v1", "ingresses"): ("Ingress", True, None),
    ("storage.k8s.io", "v1", "storageclasses"): ("StorageClass", False, None),
    ("apps", "v1", "deployments"): ("Deployment", True, None),
    ("rbac.authorization.k8s.io", "v1", "roles"): ("Role", True, None),
    ("rbac.authorization.k8s.io", "v1", "rolebindings"): ("RoleBinding", True, None),
    ("rbac.authorization.k8s.io", "v1", "clusterroles"): ("ClusterRole", False, None),
    ("rbac.authorization.k8s.io", "v1", "clusterrolebindings"): ("ClusterRoleBinding", False, None),
    # Create only, never stored: the answer says what the caller may do (kubectl auth can-i).
    ("authorization.k8s.io", "v1", "selfsubjectaccessreviews"): ("SelfSubjectAccessReview", False, None),
}
# Kinds without a schema in tests/data/k8s-schemas, checked by hand: the fields each may hold at
# the top and in spec (None: spec is free), and what spec requires. Ingress has its own rules.
HAND_CHECKED = {
    "StorageClass": ({"apiVersion", "kind", "metadata", "provisioner", "parameters", "reclaimPolicy",
                      "mountOptions", "allowVolumeExpansion", "volumeBindingMode", "allowedTopologies"},
                     None, ["provisioner"]),
    "Deployment": ({"apiVersion", "kind", "metadata", "spec", "status"},
                   {"replicas", "selector", "template", "strategy", "minReadySeconds", "revisionHistoryLimit",
                    "paused", "progressDeadlineSeconds"}, ["spec.selector", "spec.template"]),
    "Role": ({"apiVersion", "kind", "metadata", "rules"}, None, []),
    "ClusterRole": ({"apiVersion", "kind", "metadata", "rules", "aggregationRule"}, None, []),
    "RoleBinding": ({"apiVersion", "kind", "metadata", "subjects", "roleRef"}, None, ["roleRef"]),
    "ClusterRoleBinding": ({"apiVersion", "kind", "metadata", "subjects", "roleRef"}, None, ["roleRef"]),
    "SelfSubjectAccessReview": ({"apiVersion", "kind", "metadata", "spec", "status"},
                                {"resourceAttributes", "nonResourceAttributes"}, []),
}
# Kinds the real server serves itself (strategic merge patch works); CRDs take merge and JSON patches.
BUILTIN_GROUPS = {"", "batch", "apps", "networking.k8s.io", "storage.k8s.io", "rbac.authorization.k8s.io",
                  "authorization.k8s.io"}
KIND_TO_RESOURCE = {v[0]: k for k, v in RESOURCES.items()}
DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
DNS1035_LABEL = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
# resource.ParseQuantity's grammar (k8s.io/apimachinery): signed number, then a binary or decimal
# suffix or a decimal exponent.
QUANTITY = re.compile(r"^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([KMGTPE]i|[numkMGTPE]|[eE][+-]?[0-9]+)?$")
QUANTITY_ERROR = ("quantities must match the regular expression "
                  "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
QUALIFIED_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
MIN_NODE_PORT, MAX_NODE_PORT = 30000, 32767
TRUE_VALUES = ("1", "t", "T", "true", "True", "TRUE")  # what Go's strconv.ParseBool reads as true

# The real API server's messages (k8s.io/apimachinery/pkg/util/validation), word for word.
MSG_DNS1123_LABEL = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
                     "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used "
                     "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')")
MSG_DNS1123_SUBDOMAIN = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
                         "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
                         "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
MSG_DNS1035_LABEL = ("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
                     "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', "
                     "regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')")
MSG_LABEL_VALUE = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
                   "and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or "
                   "'12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")
MSG_QUALIFIED_NAME = ("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
                      "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
                      "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")

# What each kind's metadata.name must be (the default: a DNS-1123 subdomain).
NAME_RULES = {"Service": "dns1035", "Namespace": "dns1123label"}


class BadQuantity(Exception):
    """A quantity the decoder cannot read: the real server answers 400 before validating."""


def invalid(field, value, detail):
    return (field, "Invalid value: %s: %s" % (json.dumps(value), detail), "FieldValueInvalid")


def name_causes(field, name, rule):
    if rule == "dns1035":
        ok, msg, most = DNS1035_LABEL.match(name), MSG_DNS1035_LABEL, 63
    elif rule == "dns1123label":
        ok, msg, most = DNS1123_LABEL.match(name), MSG_DNS1123_LABEL, 63
    else:
        ok, msg, most = DNS1123_SUBDOMAIN.match(name), MSG_DNS1123_SUBDOMAIN, 253
    out = [] if ok else [invalid(field, name, msg)]
    if len(name) > most:
        out.append(invalid(field, name, "must be no more than %d characters" % most))
    return out


def iana_svc_name_causes(field, name):
    """A port name (IANA_SVC_NAME): 1-15 of [a-z0-9-], a letter, no leading/trailing or double '-'."""
    problems = []
    if len(name) > 15:
        problems.append("must be no more than 15 characters")
    if not re.match(r"^[-a-z0-9]+$", name):
        problems.append("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
    if "--" in name:
        problems.append("must not contain consecutive hyphens")
    if not re.search(r"[a-z]", name):
        problems.append("must contain at least one letter (a-z)")
    if name.startswith("-") or name.endswith("-"):
        problems.append("must not begin or end with a hyphen")
    return [invalid(field, name, p) for p in problems]


def label_key_causes(field, key):
    prefix, _, name = key.rpartition("/")
    out = []
    if "/" in key and (not prefix or not DNS1123_SUBDOMAIN.match(prefix) or len(prefix) > 253):
        out.append(invalid(field, key, "prefix part " + MSG_DNS1123_SUBDOMAIN))
    if not QUALIFIED_NAME.match(name) or len(name) > 63:
        out.append(invalid(field, key, MSG_QUALIFIED_NAME + ("" if len(name) <= 63 else
                                                             "; name part must be no more than 63 characters")))
    return out


def label_causes(field, labels, values_too=True):
    out = []
    for k, v in (labels or {}).items():
        out += label_key_causes(field, k)
        if values_too and (not isinstance(v, str) or not LABEL_VALUE.match(v) or len(v) > 63):
            out.append(invalid(field, v, MSG_LABEL_VALUE + ("" if not isinstance(v, str) or len(v) <= 63 else
                                                          "; must be no more than 63 characters")))
    return out


def quantity_value(q):
    """The value of a quantity (JSON string or number); BadQuantity when the decoder refuses it."""
    if isinstance(q, bool) or not isinstance(q, (str, int, float)):
        raise BadQuantity(QUANTITY_ERROR)
    text = q if isinstance(q, str) else json.dumps(q)
    m = QUANTITY.match(text.strip())
    if not m:
        raise BadQuantity(QUANTITY_ERROR)
    suffix = m.group(3) or ""
    mult = {"": 1, "n": 1e-9, "u": 1e-6, "m": 1e-3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15,
            "E": 1e18, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
    number = text.strip()[:len(text.strip()) - len(suffix)]
    if suffix[:1] in ("e", "E"):
        return float(number) * 10 ** int(suffix[1:])
    return float(number) * mult[suffix]


def resources_causes(field, res):
    out = []
    for part in ("requests", "limits"):
        for rname, q in ((res or {}).get(part) or {}).items():
            f = "%s.%s[%s]" % (field, part, rname)
            if quantity_value(q) < 0:
                out.append(invalid(f, q, "must be greater than or equal to 0"))
    for rname, q in ((res or {}).get("requests") or {}).items():
        lim = ((res or {}).get("limits") or {}).get(rname)
        if lim is not None and quantity_value(q) > quantity_value(lim):
            out.append(invalid("%s.requests[%s]" % (field, rname), q,
                               "must be less than or equal to %s limit of %s" % (rname, lim)))
    return out


def has_backstep(path):
    return ".." in path.split("/")


def pod_spec_causes(field, spec):
    """ValidatePodSpec's rules that the schema cannot say: names, unique volumes and mount paths,
    mounts of existing volumes, '..' in paths, quantities."""
    out = []
    volumes = set()
    for i, v in enumerate(spec.get("volumes") or []):
        f = "%s.volumes[%d]" % (field, i)
        name = v.get("name", "")
        out += name_causes(f + ".name", name, "dns1123label")
        if name in volumes:
            out.append((f + ".name", "Duplicate value: %s" % json.dumps(name), "FieldValueDuplicate"))
        volumes.add(name)
        host = (v.get("hostPath") or {}).get("path")
        if host is not None and has_backstep(host):
            out.append(invalid(f + ".hostPath.path", host, "must not contain '..'"))
        size = (v.get("emptyDir") or {}).get("sizeLimit")
        if size is not None and quantity_value(size) < 0:
            out.append(invalid(f + ".emptyDir.sizeLimit", size, "must be greater than or equal to 0"))
    names = set()
    for group in ("initContainers", "containers"):
        for i, c in enumerate(spec.get(group) or []):
            f = "%s.%s[%d]" % (field, group, i)
            name = c.get("name", "")
            out += name_causes(f + ".name", name, "dns1123label")
            if name in names:
                out.append((f + ".name", "Duplicate value: %s" % json.dumps(name), "FieldValueDuplicate"))
            names.add(name)
            for j, p in enumerate(c.get("ports") or []):
                if "name" in p:
                    out += iana_svc_name_causes("%s.ports[%d].name" % (f, j), p["name"])
            mounts = set()
            for j, m in enumerate(c.get("volumeMounts") or []):
                mf = "%s.volumeMounts[%d]" % (f, j)
                if m.get("name") not in volumes:
                    out.append((mf + ".name", "Not found: %s" % json.dumps(m.get("name")), "FieldValueNotFound"))
                path = m.get("mountPath", "")
                if path in mounts:
                    out.append(invalid(mf + ".mountPath", path, "must be unique"))
                mounts.add(path)
                if has_backstep(path):
                    out.append(invalid(mf + ".mountPath", path, "must not contain '..'"))
            out += resources_causes(f + ".resources", c.get("resources"))
    return out


REPLICA_SPECS = {"MPIJob": "mpiReplicaSpecs", "PyTorchJob": "pytorchReplicaSpecs"}


def pod_specs(kind, obj):
    """(field, pod spec) of every pod an object describes."""
    spec = obj.get("spec") or {}
    if kind == "Pod":
        return [("spec", spec)]
    if kind == "Job":
        return [("spec.template.spec", (spec.get("template") or {}).get("spec") or {})]
    if kind in REPLICA_SPECS:
        field = REPLICA_SPECS[kind]
        return [("spec.%s[%s].template.spec" % (field, r), (rs.get("template") or {}).get("spec") or {})
                for r, rs in (spec.get(field) or {}).items()]
    return []


def semantic_causes(kind, obj):
    """What the API server's validation (pkg/apis/*/validation) refuses beyond the schema.
    Raises BadQuantity where the real server fails to decode the body."""
    meta = obj.get("metadata") or {}
    out = []
    if meta.get("name"):
        out += name_causes("metadata.name", meta["name"], NAME_RULES.get(kind, "dns1123subdomain"))
    out += label_causes("metadata.labels", meta.get("labels"))
    out += label_causes("metadata.annotations", meta.get("annotations"), values_too=False)
    size = sum(len(k) + len(v) for k, v in (meta.get("annotations") or {}).items() if isinstance(v, str))
    if size > 256 * 1024:
        out.append(("metadata.annotations", "Too long: must have at most %d bytes" % (256 * 1024),
                    "FieldValueTooLong"))
    spec = obj.get("spec") or {}
    for field, ps in pod_specs(kind, obj):
        if kind != "Pod":
            tmpl = _template_of(obj, field) or {}
            out += label_causes(field[:-len(".spec")] + ".metadata.labels", (tmpl.get("metadata") or {}).get("labels"))
        out += pod_spec_causes(field, ps)
    if kind == "Service":
        for i, p in enumerate(spec.get("ports") or []):
            f = "spec.ports[%d]" % i
            if "name" in p:
                out += iana_svc_name_causes(f + ".name", p["name"])
            if "nodePort" in p and not MIN_NODE_PORT <= p["nodePort"] <= MAX_NODE_PORT:
                out.append(invalid(f + ".nodePort", p["nodePort"],
                                   "provided port is not in the valid range. The range of valid ports is %d-%d"
                                   % (MIN_NODE_PORT, MAX_NODE_PORT)))
            if "nodePort" in p and spec.get("type", "ClusterIP") not in ("NodePort", "LoadBalancer"):
                out.append(("spec.ports[%d].nodePort" % i, "Forbidden: may not be used when `type` is '%s'"
                            % spec.get("type", "ClusterIP"), "FieldValueForbidden"))
    if kind == "PersistentVolumeClaim":
        res = spec.get("resources") or {}
        storage = (res.get("requests") or {}).get("storage")
        if storage is None:
            out.append(("spec.resources[storage]", "Required value", "FieldValueRequired"))
        elif quantity_value(storage) <= 0:
            out.append(invalid("spec.resources[storage]", storage, "must be greater than zero"))
    if kind == "Ingress":
        out += ingress_causes(obj)
    if kind in HAND_CHECKED:
        out += hand_causes(kind, obj)
    return out


def _template_of(obj, field):
    cur = obj
    for part in re.findall(r"[^.\[\]]+", field[:-len(".spec")]):
        cur = (cur or {}).get(part) if isinstance(cur, dict) else None
    return cur


def ingress_causes(obj):
    """networking.k8s.io/v1 Ingress, checked by hand (no schema for it in tests/data/k8s-schemas):
    the fields lanectl writes and the rules the real validation applies to them."""
    out = []
    known_top = {"apiVersion", "kind", "metadata", "spec", "status"}
    out += [(k, "field not declared in schema", "FieldValueInvalid") for k in obj if k not in known_top]
    spec = obj.get("spec") or {}
    out += [("spec." + k, "field not declared in schema", "FieldValueInvalid")
            for k in spec if k not in ("ingressClassName", "defaultBackend", "rules", "tls")]
    if not spec.get("rules") and not spec.get("defaultBackend"):
        out.append(("spec", "Invalid value: \"\": either `defaultBackend` or `rules` must be specified",
                    "FieldValueInvalid"))
    for i, rule in enumerate(spec.get("rules") or []):
        f = "spec.rules[%d]" % i
        if "host" in rule and not DNS1123_SUBDOMAIN.match(rule["host"].removeprefix("*.")):
            out.append(invalid(f + ".host", rule["host"], MSG_DNS1123_SUBDOMAIN))
        paths = ((rule.get("http") or {}).get("paths"))
        if not paths:
            out.append((f + ".http.paths", "Required value", "FieldValueRequired"))
        for j, p in enumerate(paths or []):
            pf = "%s.http.paths[%d]" % (f, j)
            if p.get("pathType") not in ("Exact", "Prefix", "ImplementationSpecific"):
                out.append(("%s.pathType" % pf, "Unsupported value: %s: supported values: \"Exact\", "
                            "\"ImplementationSpecific\", \"Prefix\"" % json.dumps(p.get("pathType")),
                            "FieldValueNotSupported"))
            if not str(p.get("path", "")).startswith("/"):
                out.append(invalid(pf + ".path", p.get("path", ""), "must be an absolute path"))
            svc = ((p.get("backend") or {}).get("service")) or {}
            if not svc.get("name") or not DNS1035_LABEL.match(svc["name"]):
                out.append(invalid(pf + ".backend.service.name", svc.get("name", ""), MSG_DNS1035_LABEL))
            port = svc.get("port") or {}
            if ("number" in port) == ("name" in port):
                out.append((pf + ".backend.service.port", "Invalid value: cannot set both port name & port number"
                            if port else "Required value", "FieldValueInvalid"))
            elif "number" in port and not (isinstance(port["number"], int) and 1 <= port["number"] <= 65535):
                out.append(invalid(pf + ".backend.service.port.number", port["number"],
                                   "must be between 1 and 65535, inclusive"))
    return out


def _without(obj, *paths):
    o = copy.deepcopy(obj)
    for path in paths:
        cur = o
        parts = path.split(".")
        for p in parts[:-1]:
            cur = cur.get(p) if isinstance(cur, dict) else None
        if isinstance(cur, dict):
            cur.pop(parts[-1], None)
    return o


def immutable_causes(kind, old, new):
    """ValidateXUpdate: what may not change once an object exists. `new` may be adjusted
    (fields the server allocated and the update left out are carried over, as the real server does)."""
    out = []
    os_, ns_ = old.get("spec") or {}, new.get("spec") or {}
    if kind == "Job":
        if "selector" in os_ and "selector" not in ns_:
            ns_["selector"] = copy.deepcopy(os_["selector"])
        if os_.get("selector") != ns_.get("selector"):
            out.append(("spec.selector", "Invalid value: %s: field is immutable" % json.dumps(ns_.get("selector")),
                        "FieldValueInvalid"))
        if os_.get("template") != ns_.get("template"):
            out.append(("spec.template", "Invalid value: %s: field is immutable" % json.dumps(ns_.get("template")),
                        "FieldValueInvalid"))
        if os_.get("completions") != ns_.get("completions"):
            out.append(("spec.completions", "Invalid value: %s: field is immutable" % json.dumps(ns_.get("completions")),
                        "FieldValueInvalid"))
    elif kind == "PersistentVolumeClaim":
        rest_old = _without(os_, "resources.requests.storage", "volumeAttributesClassName")
        rest_new = _without(ns_, "resources.requests.storage", "volumeAttributesClassName")
        if "volumeName" not in rest_new and "volumeName" in rest_old:
            rest_new["volumeName"] = rest_old["volumeName"]
        if rest_old != rest_new:
            out.append(("spec", "Forbidden: spec is immutable after creation except resources.requests and "
                        "volumeAttributesClassName for bound claims", "FieldValueForbidden"))
        old_size = ((os_.get("resources") or {}).get("requests") or {}).get("storage")
        new_size = ((ns_.get("resources") or {}).get("requests") or {}).get("storage")
        if old_size is not None and new_size is not None and quantity_value(new_size) < quantity_value(old_size):
            out.append(("spec.resources.requests.storage", "Forbidden: field can not be less than status.capacity",
                        "FieldValueForbidden"))
    elif kind == "Service":
        if os_.get("clusterIP") and not ns_.get("clusterIP"):
            ns_["clusterIP"] = os_["clusterIP"]
            if "clusterIPs" in os_ and "clusterIPs" not in ns_:
                ns_["clusterIPs"] = list(os_["clusterIPs"])
        if os_.get("clusterIP") != ns_.get("clusterIP"):
            out.append(("spec.clusterIP", "Invalid value: %s: field is immutable" % json.dumps(ns_.get("clusterIP")),
                        "FieldValueInvalid"))
    if kind in ("VolumeSnapshot",) and os_.get("source") != ns_.get("source"):
        out.append(("spec.source", "Invalid value: \"object\": spec.source is immutable", "FieldValueInvalid"))
    return out


# ---------------------------------------------------------------------------------------
# Discovery (/api, /apis, /version, /openapi/v2): what a real client such as kubectl reads
# before it touches a resource.

SERVER_VERSION = {"major": "1", "minor": "29", "gitVersion": "v1.29.0", "gitCommit": "0" * 40,
                  "gitTreeState": "clean", "buildDate": "2023-12-13T08:51:44Z", "goVersion": "go1.21.5",
                  "compiler": "gc", "platform": "linux/amd64"}
SHORT_NAMES = {"persistentvolumeclaims": ["pvc"], "services": ["svc"], "namespaces": ["ns"], "pods": ["po"],
               "events": ["ev"], "nodes": ["no"], "configmaps": ["cm"], "serviceaccounts": ["sa"],
               "volumesnapshots": ["vs"], "volumesnapshotclasses": ["vsclass", "vsclasses"],
               "volumesnapshotcontents": ["vsc", "vscs"], "ingresses": ["ing"], "podgroups": ["pg"],
               "persistentvolumes": ["pv"], "storageclasses": ["sc"], "deployments": ["deploy"]}
CATEGORIES = {"pods": ["all"], "services": ["all"], "jobs": ["all"], "deployments": ["all"]}
SUBRESOURCES = {"pods": [("log", ["get"]), ("exec", ["create", "get"]), ("status", ["get", "patch", "update"])],
                "jobs": [("status", ["get", "patch", "update"])], "services": [("status", ["get", "patch", "update"])],
                "persistentvolumeclaims": [("status", ["get", "patch", "update"])],
                "ingresses": [("status", ["get", "patch", "update"])],
                "mpijobs": [("status", ["get", "patch", "update"])],
                "pytorchjobs": [("status", ["get", "patch", "update"])],
                "volumesnapshots": [("status", ["get", "patch", "update"])]}
VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]
# What the real server answers to Accept: ...proto-openapi.spec.v2... (kubectl < 1.27 asks only for
# it): gnostic's openapi.v2.Document (tests/kube/openapi_v2.py).
OPENAPI_V2_PB_TYPE = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"


def age(timestamp):
    """kubectl's short age ("45s", "3m", "2h", "5d") of an RFC 3339 time."""
    try:
        t = datetime.datetime.strptime(timestamp, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc)
    except (TypeError, ValueError):
        return "<unknown>"
    s = max(0, int((datetime.datetime.now(datetime.timezone.utc) - t).total_seconds()))
    for unit, n in (("d", 86400), ("h", 3600), ("m", 60)):
        if s >= 2 * n or (unit == "m" and s >= n):
            return "%d%s" % (s // n, unit)
    return "%ds" % s


# Columns of `kubectl get` (server-side printing, Accept: ...;as=Table): Name, the kind's own
# columns as the real server prints them, Age.
TABLE_COLUMNS = {
    "PersistentVolumeClaim": [
        ("Status", lambda o: (o.get("status") or {}).get("phase", "Pending")),
        ("Volume", lambda o: (o.get("spec") or {}).get("volumeName", "")),
        ("Capacity", lambda o: ((o.get("status") or {}).get("capacity") or {}).get("storage", "")),
        ("Access Modes", lambda o: ",".join({"ReadWriteMany": "RWX", "ReadWriteOnce": "RWO", "ReadOnlyMany": "ROX",
                                              "ReadWriteOncePod": "RWOP"}.get(m, m)
                                             for m in (o.get("status") or {}).get("accessModes", []))),
        ("StorageClass", lambda o: (o.get("spec") or {}).get("storageClassName", ""))],
    "VolumeSnapshot": [
        ("ReadyToUse", lambda o: (o.get("status") or {}).get("readyToUse", "")),
        ("SourcePVC", lambda o: ((o.get("spec") or {}).get("source") or {}).get("persistentVolumeClaimName", "")),
        ("RestoreSize", lambda o: (o.get("status") or {}).get("restoreSize", ""))],
    "Pod": [("Status", lambda o: (o.get("status") or {}).get("phase", "Pending")),
            ("Node", lambda o: (o.get("spec") or {}).get("nodeName", ""))],
    "PersistentVolume": [
        ("Capacity", lambda o: ((o.get("spec") or {}).get("capacity") or {}).get("storage", "")),
        ("Reclaim Policy", lambda o: (o.get("spec") or {}).get("persistentVolumeReclaimPolicy", "")),
        ("Status", lambda o: (o.get("status") or {}).get("phase", "")),
        ("Claim", lambda o: "%(namespace)s/%(name)s" % (o.get("spec") or {}).get("claimRef")
         if (o.get("spec") or {}).get("claimRef") else ""),
        ("StorageClass", lambda o: (o.get("spec") or {}).get("storageClassName", ""))],
    "Event": [("Type", lambda o: o.get("type", "")), ("Reason", lambda o: o.get("reason", "")),
              ("Object", lambda o: "%s/%s" % (o["involvedObject"].get("kind", "").lower(),
                                              o["involvedObject"].get("name", ""))),
              ("Message", lambda o: o.get("message", ""))],
}


def as_table(kind, objects, meta):
    cols = TABLE_COLUMNS.get(kind, [])
    defs = ([{"name": "Name", "type": "string", "format": "name", "description": "Name", "priority": 0}] +
            [{"name": n, "type": "string", "format": "", "description": n, "priority": 0} for n, _ in cols] +
            [{"name": "Age", "type": "string", "format": "", "description": "Age", "priority": 0}])
    rows = [{"cells": [o["metadata"]["name"]] + [f(o) for _, f in cols] +
             [age(o["metadata"].get("creationTimestamp"))],
             "object": {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": o["metadata"]}}
            for o in objects]
    return {"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": meta, "columnDefinitions": defs,
            "rows": rows}


def group_versions():
    """{group: [versions]} of RESOURCES, the preferred (first-listed stable) version first."""
    out = {}
    for group, version, _ in RESOURCES:
        out.setdefault(group, [])
        if version not in out[group]:
            out[group].append(version)
    for versions in out.values():
        versions.sort(key=lambda v: ("alpha" in v or "beta" in v, v))
    return out


def api_resource_list(group, version):
    gv = version if not group else group + "/" + version
    resources = []
    for (g, v, plural), (kind, namespaced, _) in sorted(RESOURCES.items(), key=lambda kv: kv[0][2]):
        if (g, v) != (group, version):
            continue
        r = {"name": plural, "singularName": kind.lower(), "namespaced": namespaced, "kind": kind,
             "verbs": ["create"] if kind == "SelfSubjectAccessReview" else VERBS,
             "storageVersionHash": hashlib.sha256(gv.encode() + kind.encode()).hexdigest()[:11]}
        if plural in SHORT_NAMES:
            r["shortNames"] = SHORT_NAMES[plural]
        if plural in CATEGORIES:
            r["categories"] = CATEGORIES[plural]
        resources.append(r)
        for sub, verbs in SUBRESOURCES.get(plural, []):
            resources.append({"name": plural + "/" + sub, "singularName": "", "namespaced": namespaced,
                              "kind": "PodExecOptions" if sub == "exec" else kind, "verbs": verbs})
    return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": resources}


def api_group(group, versions):
    gvs = [{"groupVersion": group + "/" + v, "version": v} for v in versions]
    return {"kind": "APIGroup", "apiVersion": "v1", "name": group, "versions": gvs, "preferredVersion": gvs[0]}


def discovery(path, accept, host, schemas):
    """(content type, body) of a discovery document, or None when `path` is not one."""
    if path == "/version":
        return "application/json", SERVER_VERSION
    if path in ("/healthz", "/readyz", "/livez"):
        return "text/plain; charset=utf-8", b"ok"
    if path.startswith("/openapi/v3"):
        return openapi_v3(path, schemas)
    if path == "/api":
        return "application/json", {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": [
            {"clientCIDR": "0.0.0.0/0", "serverAddress": host}]}
    groups = group_versions()
    if path == "/apis":
        return "application/json", {"kind": "APIGroupList", "apiVersion": "v1", "groups": [
            api_group(g, vs) for g, vs in sorted(groups.items()) if g]}
    parts = [p for p in path.split("/") if p]
    if parts == ["api", "v1"]:
        return "application/json", api_resource_list("", "v1")
    if len(parts) == 2 and parts[0] == "apis" and parts[1] in groups and parts[1]:
        return "application/json", api_group(parts[1], groups[parts[1]])
    if len(parts) == 3 and parts[0] == "apis" and parts[2] in groups.get(parts[1], []):
        return "application/json", api_resource_list(parts[1], parts[2])
    if path == "/openapi/v2":
        protobuf = "protobuf" in accept
        return OPENAPI_V2_PB_TYPE if protobuf else "application/json", schemas.openapi_v2(protobuf)
    return None


def openapi_v3(path, schemas):
    """/openapi/v3 (the index) and one group-version's document: core and batch are the
    published documents in the schema folder, a CRD's is built from its openAPIV3Schema."""
    docs = {}
    for (group, version, _), (kind, _, source) in RESOURCES.items():
        gv = "api/v1" if not group else "apis/%s/%s" % (group, version)
        if source in ("core", "batch"):
            docs[gv] = source
        elif source:
            docs.setdefault(gv, []).append((group, version, kind, source))
    if path == "/openapi/v3":
        return "application/json", {"paths": {gv: {"serverRelativeURL": "/openapi/v3/%s?hash=%s" % (
            gv, hashlib.sha256(gv.encode()).hexdigest()[:16].upper())} for gv in sorted(docs)}}
    want = docs.get(path[len("/openapi/v3/"):])
    if want is None:
        return None
    if isinstance(want, str):
        return "application/json", schemas.raw("api__v1_openapi.json" if want == "core" else
                                               "apis__batch__v1_openapi.json")
    meta = {k: v for k, v in schemas.raw("api__v1_openapi.json")["components"]["schemas"].items()
            if k.startswith("io.k8s.apimachinery.pkg.apis.meta.v1.")}
    paths = {}
    for group, version, kind, source in want:
        name, meta[name] = crd_model(schemas, group, version, kind, source)
        gvk = meta[name]["x-kubernetes-group-version-kind"][0]
        # kubectl explain finds a resource's kind through the GET of its path.
        plural = KIND_TO_RESOURCE[kind][2]
        scope = "/namespaces/{namespace}" if RESOURCES[KIND_TO_RESOURCE[kind]][1] else ""
        paths["/apis/%s/%s%s/%s/{name}" % (group, version, scope, plural)] = {"get": {
            "x-kubernetes-action": "get", "x-kubernetes-group-version-kind": gvk, "responses": {"200": {
                "description": "OK", "content": {"application/json": {"schema": {
                    "$ref": "#/components/schemas/" + name}}}}}}}
    return "application/json", {"openapi": "3.0.0", "info": {"title": "Kubernetes CRD Swagger", "version": "v0.1.0"},
                                "paths": paths, "components": {"schemas": meta}}


def crd_model(schemas, group, version, kind, source):
    """(definition name, schema) of a CRD's version as a real server publishes it: its
    openAPIV3Schema with metadata an ObjectMeta, and the kind's x-kubernetes-group-version-kind."""
    crd_version = [v for v in schemas.crd(source)["spec"]["versions"] if v["name"] == version][0]
    schema = copy.deepcopy(crd_version["schema"]["openAPIV3Schema"])
    schema.setdefault("properties", {})["metadata"] = {
        "allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}],
        "description": "Standard object's metadata. More info: "
                       "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"}
    schema["x-kubernetes-group-version-kind"] = [{"group": group, "version": version, "kind": kind}]
    return ".".join(reversed(group.split("."))) + "." + version + "." + kind, schema


def openapi_definitions(schemas):
    """{name: v3 schema} of every kind with a schema: the core and batch documents' and each
    CRD's (its pod templates the core PodTemplateSpec, as the server validates them)."""
    out = dict(schemas.raw("api__v1_openapi.json")["components"]["schemas"])
    out.update(schemas.raw("apis__batch__v1_openapi.json")["components"]["schemas"])
    for (group, version, _), (kind, _, source) in RESOURCES.items():
        if source not in (None, "core", "batch"):
            name, schema = crd_model(schemas, group, version, kind, source)
            out[name] = pod_template_refs(schema)
    return out


def now_rfc3339():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


# ---------------------------------------------------------------------------------------
# Schema validation (strict: unknown fields rejected)

def strictify(node):
    """additionalProperties: false wherever a schema lists properties and does not
    preserve unknown fields, which is what strict field validation enforces."""
    for d in dicts(node):
        if "properties" in d and "additionalProperties" not in d and not d.get("x-kubernetes-preserve-unknown-fields"):
            d["additionalProperties"] = False
    return node


def pod_template_refs(node):
    """A CRD node marked x-lanectl-pod-template becomes the core PodTemplateSpec (which the
    official CRDs inline there)."""
    for d in dicts(node):
        for k, v in list(d.items()):
            if isinstance(v, dict) and v.get("x-lanectl-pod-template"):
                d[k] = {"$ref": "#/components/schemas/io.k8s.api.core.v1.PodTemplateSpec"}
    return node


def dicts(node):
    """Every object of a JSON tree, each before its children (which may be changed meanwhile)."""
    if isinstance(node, (dict, list)):
        if isinstance(node, dict):
            yield node
        for v in list(node.values() if isinstance(node, dict) else node):
            yield from dicts(v)


class Schemas:
    def __init__(self, directory):
        self.dir = directory
        self.lock = threading.Lock()
        self.validators = {}
        self._core = None
        self._batch = None
        self._v2 = {}

    def _openapi(self, name):
        with open(os.path.join(self.dir, name)) as f:
            return strictify(json.load(f)["components"]["schemas"])

    def core(self):
        if self._core is None:
            self._core = self._openapi("api__v1_openapi.json")
        return self._core

    def batch(self):
        if self._batch is None:
            self._batch = self._openapi("apis__batch__v1_openapi.json")
        return self._batch

    def openapi_v2(self, protobuf):
        """/openapi/v2 as JSON, or as gnostic's protobuf (each built once)."""
        with self.lock:
            if "json" not in self._v2:
                self._v2["json"] = openapi_v2.document(openapi_definitions(self), SERVER_VERSION["gitVersion"])
            if protobuf and "protobuf" not in self._v2:
                try:
                    self._v2["protobuf"] = openapi_v2.encode(self._v2["json"])
                except ImportError as e:
                    raise ApiFailure(500, "InternalError", "the protobuf /openapi/v2 needs google.protobuf "
                                     "(Debian: python3-protobuf) in %s: %s" % (sys.executable, e))
            return self._v2["protobuf" if protobuf else "json"]

    def raw(self, name):
        """A published OpenAPI document of the folder, as it is."""
        with open(os.path.join(self.dir, name)) as f:
            return json.load(f)

    def crd(self, source):
        with open(os.path.join(self.dir, source)) as f:
            return yaml.load(f, Loader=YamlLoader)

    def validator(self, key):
        with self.lock:
            if key in self.validators:
                return self.validators[key]
            group, version, _ = key
            kind, _, source = RESOURCES[key]
            if source == "core":
                comps = self.core()
                root = {"$ref": "#/components/schemas/io.k8s.api.core.v1." + kind}
            elif source == "batch":
                comps = self.batch()
                root = {"$ref": "#/components/schemas/io.k8s.api.batch.v1." + kind}
            else:
                crd = self.crd(source)
                ver = [v for v in crd["spec"]["versions"] if v["name"] == version][0]
                root = pod_template_refs(strictify(copy.deepcopy(ver["schema"]["openAPIV3Schema"])))
                comps = {"ObjectMeta": self.core()["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"]}
                # CRD schemas say only "metadata: object"; the server checks ObjectMeta itself.
                root.setdefault("properties", {})["metadata"] = {"$ref": "#/components/schemas/ObjectMeta"}
                comps = dict(self.core(), ObjectMeta=comps["ObjectMeta"])
            doc = dict(root)
            doc["components"] = {"schemas": comps}
            v = jsonschema.Draft7Validator(doc)
            self.validators[key] = v
            return v

    def split(self, key, obj):
        """(unknown fields as (path, [names]), other violations as (field, message, reason)) of obj."""
        kind, _, source = RESOURCES[key]
        if source is None:  # checked by hand in semantic_causes
            return hand_unknown_fields(kind, obj), []
        unknown, causes = [], []
        for err in self.validator(key).iter_errors(obj):
            field = ".".join(str(p) for p in err.absolute_path)
            if err.validator == "additionalProperties":
                known = err.schema.get("properties") or {}
                unknown.append((list(err.absolute_path), [k for k in err.instance if k not in known]))
            elif err.validator == "required":
                causes.append((field, err.message, "FieldValueRequired"))
            else:
                causes.append((field, err.message, "FieldValueInvalid"))
        return unknown, causes

    def errors(self, key, obj):
        """List of (field, message, reason) for schema violations of obj, unknown fields included
        (as 'field not declared in schema: x', what strict validation of a file reports)."""
        unknown, causes = self.split(key, obj)
        return [(".".join(str(p) for p in path), "field not declared in schema" + (": " + ", ".join(names)
                                                                               if names else ""), "FieldValueInvalid")
                for path, names in unknown] + causes


def field_path(path, name=None):
    """The API server's spelling of a field: spec.containers[0].name."""
    out = ""
    for p in list(path) + ([name] if name is not None else []):
        out += "[%d]" % p if isinstance(p, int) else ("." if out else "") + str(p)
    return out


def drop_fields(obj, unknown):
    """Removes the unknown fields from obj (what Warn and Ignore field validation do)."""
    for path, names in unknown:
        cur = obj
        for p in path:
            cur = cur[p]
        for n in names:
            cur.pop(n, None)


def hand_unknown_fields(kind, obj):
    top, spec_fields, _ = HAND_CHECKED.get(kind, (None, None, None))
    if top is None:
        return []
    out = [([], [k for k in obj if k not in top])] if any(k not in top for k in obj) else []
    spec = obj.get("spec")
    if spec_fields is not None and isinstance(spec, dict) and any(k not in spec_fields for k in spec):
        out.append((["spec"], [k for k in spec if k not in spec_fields]))
    return out


def hand_causes(kind, obj):
    """Required fields of a kind checked by hand (HAND_CHECKED)."""
    out = []
    for field in HAND_CHECKED[kind][2]:
        cur = obj
        for part in field.split("."):
            cur = cur.get(part) if isinstance(cur, dict) else None
        if cur in (None, "", {}, []):
            out.append((field, "Required value", "FieldValueRequired"))
    return out


def strip_nulls(node):
    """JSON nulls decode to unset fields (typed Go clients send creationTimestamp: null)."""
    for d in dicts(node):
        for k in [k for k, v in d.items() if v is None]:
            del d[k]
    return node


# ---------------------------------------------------------------------------------------
# Storage

class Store:
    def __init__(self):
        self.cond = threading.Condition()
        self.rv = 1000
        self.objects = {}      # (key, ns, name) -> object
        self.history = []      # (rv, key, ns, type, object)
        self.compacted = 0     # watches from older versions get 410
        self.logs = {}         # (ns, pod) -> {"lines": [(t, text)], "follow": [...], "interval": s}
        self.files = {}        # (ns, pod) -> {"files": {path: text}, "links": {path: target}, "env": {..}}
        self.continue_tokens = {}
        self.list_cache = {}   # (key, ns, labelSelector, fieldSelector) -> (rv, [item JSON])

    def next_rv(self):
        self.rv += 1
        return str(self.rv)

    def put(self, key, ns, obj, event):
        """Stores obj under a new resourceVersion and records the watch event (lock held)."""
        obj["metadata"]["resourceVersion"] = self.next_rv()
        name = obj["metadata"]["name"]
        if event == "DELETED":
            self.objects.pop((key, ns, name), None)
        else:
            self.objects[(key, ns, name)] = obj
        self.history.append((int(self.rv), key, ns, event, copy.deepcopy(obj)))
        if len(self.history) > 20000:
            self.compacted = self.history[5000][0]
            del self.history[:5000]
        self.cond.notify_all()


# ---------------------------------------------------------------------------------------
# Patches: JSON merge (RFC 7386), strategic merge (built-in kinds), JSON patch (RFC 6902)

# patchMergeKey of the lists lanectl's objects hold (k8s.io/api types.go): merged item by item.
MERGE_KEYS = {"containers": "name", "initContainers": "name", "volumes": "name", "env": "name",
              "volumeMounts": "mountPath", "imagePullSecrets": "name", "ownerReferences": "uid",
              "conditions": "type", "ports": ("containerPort", "port")}


def merge_patch(a, b):
    if not isinstance(b, dict):
        return copy.deepcopy(b)
    a = dict(a) if isinstance(a, dict) else {}
    for k, v in b.items():
        if v is None:
            a.pop(k, None)
        else:
            a[k] = merge_patch(a.get(k), v)
    return a


def strategic_merge(a, b):
    """Strategic merge patch: a merge patch whose lists with a patchMergeKey merge item by item
    ($patch: delete removes one); $setElementOrder/$retainKeys directives (kubectl apply) are read
    as no-ops."""
    if not isinstance(b, dict):
        return copy.deepcopy(b)
    if b.get("$patch") == "replace":
        return {k: copy.deepcopy(v) for k, v in b.items() if k != "$patch"}
    a = dict(a) if isinstance(a, dict) else {}
    for k, v in b.items():
        if k.startswith("$"):
            continue
        if v is None:
            a.pop(k, None)
        elif isinstance(v, list) and isinstance(a.get(k), list) and k in MERGE_KEYS:
            a[k] = merge_list(a[k], v, MERGE_KEYS[k])
        else:
            a[k] = strategic_merge(a.get(k), v)
    return a


def merge_list(old, patch, keys):
    keys = keys if isinstance(keys, tuple) else (keys,)
    key = next((k for k in keys if any(isinstance(i, dict) and k in i for i in old + patch)), None)
    if key is None or not all(isinstance(i, dict) for i in old + patch):
        return copy.deepcopy(patch)
    out = [dict(i) for i in old]
    for item in patch:
        at = next((n for n, o in enumerate(out) if o.get(key) == item.get(key)), None)
        if item.get("$patch") == "delete":
            if at is not None:
                del out[at]
        elif at is None:
            out.append(strategic_merge({}, item))
        else:
            out[at] = strategic_merge(out[at], item)
    return out


def json_pointer(doc, pointer):
    """(parent, last token) of an RFC 6901 pointer."""
    parts = [p.replace("~1", "/").replace("~0", "~") for p in pointer.split("/")[1:]]
    if not parts:
        raise ApiFailure(422, "Invalid", "the JSON patch may not replace the whole object")
    cur = doc
    for p in parts[:-1]:
        cur = cur[int(p)] if isinstance(cur, list) else cur[p]
    return cur, parts[-1]


def json_patch(doc, ops):
    """RFC 6902: add, remove, replace, move, copy, test."""
    doc = copy.deepcopy(doc)
    for op in ops if isinstance(ops, list) else [None]:
        try:
            name = op["op"]
            parent, last = json_pointer(doc, op["path"])
            if name in ("move", "copy"):
                src, src_last = json_pointer(doc, op["from"])
                value = copy.deepcopy(src[int(src_last)] if isinstance(src, list) else src[src_last])
                if name == "move":
                    del src[int(src_last) if isinstance(src, list) else src_last]
            else:
                value = copy.deepcopy(op.get("value"))
            if name == "test":
                if (parent[int(last)] if isinstance(parent, list) else parent[last]) != value:
                    raise ApiFailure(422, "Invalid", "the JSON patch test operation failed at %s" % op["path"])
            elif name == "remove":
                del parent[int(last) if isinstance(parent, list) else last]
            elif isinstance(parent, list):
                at = len(parent) if last == "-" else int(last)
                if name == "replace":
                    parent[at] = value
                else:
                    parent.insert(at, value)
            else:
                if name == "replace" and last not in parent:
                    raise KeyError(last)
                parent[last] = value
        except (KeyError, IndexError, ValueError, TypeError) as e:
            raise ApiFailure(422, "Invalid", "the server rejected our request due to an error in our request: "
                             "jsonpatch %s operation does not apply: %s" % (
                                 (op or {}).get("op") if isinstance(op, dict) else "?", e))
    return doc


PATCH_TYPES = {"application/merge-patch+json": "merge", "application/strategic-merge-patch+json": "strategic",
               "application/json-patch+json": "json", "application/apply-patch+yaml": "apply"}


def parse_label_selector(sel):
    reqs = []
    if not sel:
        return reqs
    for part in re.split(r",(?![^()]*\))", sel):
        part = part.strip()
        m = re.match(r"^([\w./-]+)\s+(in|notin)\s+\(([^)]*)\)$", part)
        if m:
            reqs.append((m.group(1), m.group(2), [v.strip() for v in m.group(3).split(",")]))
        elif "!=" in part:
            k, v = part.split("!=", 1)
            reqs.append((k.strip(), "!=", [v.strip()]))
        elif "==" in part or "=" in part:
            k, v = re.split(r"==?", part, maxsplit=1)
            reqs.append((k.strip(), "=", [v.strip()]))
        elif part.startswith("!"):
            reqs.append((part[1:], "!exists", []))
        else:
            reqs.append((part, "exists", []))
    return reqs


def labels_match(obj, reqs):
    labels = obj.get("metadata", {}).get("labels", {}) or {}
    for k, op, vals in reqs:
        has = k in labels
        if op == "=" and labels.get(k) != vals[0]:
            return False
        if op == "!=" and labels.get(k) == vals[0]:
            return False
        if op == "in" and labels.get(k) not in vals:
            return False
        if op == "notin" and has and labels[k] in vals:
            return False
        if op == "exists" and not has:
            return False
        if op == "!exists" and has:
            return False
    return True


def field_value(obj, path):
    cur = obj
    for p in path.split("."):
        if not isinstance(cur, dict):
            return ""
        cur = cur.get(p, "")
    return cur if isinstance(cur, str) else str(cur)


def fields_match(obj, sel):
    if not sel:
        return True
    for part in sel.split(","):
        if "!=" in part:
            k, v = part.split("!=", 1)
            if field_value(obj, k) == v:
                return False
        else:
            k, v = re.split(r"==?", part, maxsplit=1)
            if field_value(obj, k) != v:
                return False
    return True


def raise_invalid(key, kind, name, causes):
    """The real API server's 422: reason Invalid, one cause per broken rule."""
    if causes:
        msg = '%s "%s" is invalid: %s' % (kind, name, "; ".join("%s: %s" % (f, m) for f, m, _ in causes))
        raise ApiFailure(422, "Invalid", msg, {"name": name, "group": key[0], "kind": kind,
                                             "causes": [{"field": f, "message": m, "reason": r}
                                                        for f, m, r in causes]})


def status_obj(code, reason, message, details=None):
    s = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
         "message": message, "reason": reason, "code": code}
    if details:
        s["details"] = details
    return s


class ApiFailure(Exception):
    def __init__(self, code, reason, message, details=None):
        super().__init__(message)
        self.status = status_obj(code, reason, message, details)


# ---------------------------------------------------------------------------------------
# Server

class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, addr, schemas, token):
        super().__init__(addr, Handler)
        self.schemas = schemas
        self.token = token
        self.store = Store()
        self.faults = []
        self.faults_lock = threading.Lock()
        self.requests = []
        self.snapshot_delay = 0.2
        self.snapshot_error = ""  # non-empty: the next snapshots fail with this status.error
        self.pods_per_job_running = True
        self.exec_protocols = ["v5.channel.k8s.io", "v4.channel.k8s.io"]  # what pods/exec accepts
        self.termination_seconds = 0.2  # how long a pod takes to go after its deletion
        self.denied = []  # [{"verb", "resource"}] SelfSubjectAccessReview refuses ("*" = any)
        self.warnings = []  # Warning header texts every answer carries (as from an admission webhook)
        self.node_turn = itertools.count()
        self.kai_scheduler = False  # /_test/settings: pods wait for the KAI-like scheduler (kai_pass)
        self.kai_order = {}         # workload uid -> submission order
        self.kai_said = {}          # workload uid -> the last pending reason emitted as an event
        self.gc = GarbageCollector(self)

    def handle_error(self, request, client_address):
        pass  # dropped connections and failed TLS handshakes are expected in the tests

    def take_fault(self, method, path):
        with self.faults_lock:
            for f in self.faults:
                if f.get("count", 1) <= 0:
                    continue
                if f.get("method") and f["method"] != method:
                    continue
                if f.get("path") and f["path"] not in path:
                    continue
                f["count"] = f.get("count", 1) - 1
                return f
        return None


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # TCP_NODELAY, as Go's net/http (the real API server) sets it: headers and body go out in
    # separate writes, and with Nagle + the client's delayed ACK a small answer waits ~40 ms.
    disable_nagle_algorithm = True

    def log_message(self, fmt, *args):  # quiet; the request log is at /_test/requests
        pass

    # -- plumbing ------------------------------------------------------------------------
    def send_json(self, code, obj, headers=None):
        body = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        for w in self.warnings:  # RFC 7234 warn-code 299, as the API server writes them
            self.send_header("Warning", '299 - "%s"' % w.replace("\\", "\\\\").replace('"', '\\"'))
        self.end_headers()
        self.wfile.write(body)

    def send_raw(self, code, body):
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def send_status(self, st, headers=None):
        self.send_json(st["code"], st, headers)

    def start_chunked(self, content_type):
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def chunk(self, data):
        if isinstance(data, str):
            data = data.encode()
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def end_chunks(self):
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def read_body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def drop(self):
        self.close_connection = True
        try:
            self.connection.shutdown(2)
        except OSError:
            pass

    def do_GET(self):
        self.dispatch("GET")

    def do_POST(self):
        self.dispatch("POST")

    def do_PUT(self):
        self.dispatch("PUT")

    def do_PATCH(self):
        self.dispatch("PATCH")

    def do_DELETE(self):
        self.dispatch("DELETE")

    def dispatch(self, method):
        srv = self.server
        url = urllib.parse.urlsplit(self.path)
        query = urllib.parse.parse_qs(url.query)
        q = {k: v[0] for k, v in query.items()}
        body = self.read_body()
        self.warnings = list(self.server.warnings)
        if url.path.startswith("/_test/"):
            return self.control(method, url.path, q, body)
        srv.requests.append({"method": method, "path": url.path, "query": q,
                             "authorized": "Authorization" in self.headers,
                             "content_type": self.headers.get("Content-Type", ""),
                             "body": body.decode(errors="replace")[:100000]})
        if srv.token is not None:
            if self.headers.get("Authorization", "") != "Bearer " + srv.token:
                return self.send_status(status_obj(401, "Unauthorized", "Unauthorized"))
        fault = srv.take_fault(method, self.path)
        if fault:
            act = fault["action"]
            if act in ("429", "500", "502", "503", "504"):
                code = int(act)
                reason = {429: "TooManyRequests", 500: "InternalError", 503: "ServiceUnavailable",
                          504: "Timeout", 502: "BadGateway"}[code]
                hdr = {"Retry-After": str(fault.get("retry_after", 1))} if code in (429, 503) else {}
                return self.send_status(status_obj(code, reason, "injected " + act), hdr)
            if act == "drop":
                return self.drop()
            if act == "malformed":  # a 200 whose JSON body breaks off (a proxy cut it short)
                return self.send_raw(200, b'{"kind": "List", "metadata": {}, "items": [{"metadata": {"name": "x"}')
        try:
            self.route(method, url.path, q, body, fault)
        except ApiFailure as e:
            self.send_status(e.status)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        except Exception as e:  # a bug here: say so as the real server would, do not drop the connection
            self.send_status(status_obj(500, "InternalError", "the test API server failed: %r" % e))

    # -- test control --------------------------------------------------------------------
    def control(self, method, path, q, body):
        srv = self.server
        store = srv.store
        data = json.loads(body or b"null")
        if path == "/_test/faults":
            with srv.faults_lock:
                srv.faults.extend(data)
            return self.send_json(200, {"ok": True})
        if path == "/_test/requests":
            return self.send_json(200, srv.requests)
        if path == "/_test/compact":
            with store.cond:
                store.compacted = store.rv
                store.history.clear()
                store.continue_tokens.clear()
            return self.send_json(200, {"compacted": store.compacted})
        if path == "/_test/logs":
            with store.cond:
                store.logs[(data["namespace"], data["pod"])] = {
                    "lines": [(time.time() - data.get("age", 0), l) for l in data.get("lines", [])],
                    "follow": data.get("follow", []), "interval": data.get("interval", 0.0)}
            return self.send_json(200, {"ok": True})
        if path == "/_test/files":  # what a pod's container holds for exec's realpath/stat/head/tail/find/printenv
            with store.cond:
                store.files[(data["namespace"], data["pod"])] = {
                    "files": data.get("files", {}), "links": data.get("links", {}), "env": data.get("env", {})}
            return self.send_json(200, {"ok": True})
        if path == "/_test/settings":
            for name in ("snapshot_delay", "token", "snapshot_error", "exec_protocols", "termination_seconds",
                         "denied", "warnings", "kai_scheduler"):
                if name in data:
                    setattr(srv, name, data[name])
            return self.send_json(200, {"ok": True})
        if path == "/_test/object":  # set an object (incl. status) as a controller would
            key = KIND_TO_RESOURCE[data["kind"]]
            ns = data["metadata"].get("namespace", "")
            with store.cond:
                old = store.objects.get((key, ns, data["metadata"]["name"]))
                obj = copy.deepcopy(data)
                obj["metadata"].setdefault("uid", old["metadata"]["uid"] if old else str(uuid.uuid4()))
                obj["metadata"].setdefault("creationTimestamp", now_rfc3339())
                store.put(key, ns, obj, "MODIFIED" if old else "ADDED")
            return self.send_json(200, obj)
        if path == "/_test/finish":  # a Job's or MPIJob's pods end now with exitCode
            done = finish_workload(srv, data["kind"], data["namespace"], data["name"], data.get("exitCode", 0))
            return self.send_json(200 if done else 404, done or {"error": "no such workload"})
        if path == "/_test/bulk":
            return self.send_json(200, self.bulk(data))
        if path == "/_test/validate_file":  # every document of a YAML file (deploy/ test)
            results = []
            with open(data["path"]) as f:
                for doc in yaml.load_all(f, Loader=YamlLoader):
                    if not doc:
                        continue
                    key = KIND_TO_RESOURCE.get(doc.get("kind"))
                    if key and (key[1] if not key[0] else key[0] + "/" + key[1]) != doc.get("apiVersion"):
                        key = None
                    errs = srv.schemas.errors(key, doc) if key else []
                    if key:
                        try:
                            errs += semantic_causes(doc["kind"], doc)
                        except BadQuantity as e:
                            errs.append(("", str(e), "BadRequest"))
                    results.append({"kind": doc.get("kind"), "apiVersion": doc.get("apiVersion"),
                                    "name": (doc.get("metadata") or {}).get("name"), "validated": bool(key),
                                    "errors": ["%s: %s" % (f_, m) for f_, m, _ in errs]})
            return self.send_json(200, results)
        if path == "/_test/validate":  # validate a document without storing it
            key = KIND_TO_RESOURCE.get(data.get("kind"))
            if key is None:
                return self.send_json(200, {"validated": False, "errors": []})
            errs = srv.schemas.errors(key, data)
            return self.send_json(200, {"validated": True, "errors": [f"{f}: {m}" for f, m, _ in errs]})
        self.send_status(status_obj(404, "NotFound", "no such test endpoint"))

    def bulk(self, data):
        """Loads many MPIJobs with running launcher/worker pods (benchmarks)."""
        store = self.server.store
        ns = data["namespace"]
        jobs, per = data["mpijobs"], data["pods_per_job"]
        with store.cond:
            if (KIND_TO_RESOURCE["Namespace"], "", ns) not in store.objects:
                store.put(KIND_TO_RESOURCE["Namespace"], "",
                          {"apiVersion": "v1", "kind": "Namespace",
                           "metadata": {"name": ns, "uid": str(uuid.uuid4()), "labels": {"runai/queue": ns[6:]},
                                        "creationTimestamp": now_rfc3339()}}, "ADDED")
            for i in range(jobs):
                job = mpijob_template(ns, "bench-%05d" % i, ns[6:] if ns.startswith("runai-") else ns, per - 1)
                job["metadata"]["uid"] = str(uuid.uuid4())
                job["metadata"]["creationTimestamp"] = now_rfc3339()
                store.put(KIND_TO_RESOURCE["MPIJob"], ns, job, "ADDED")
                for pod in mpijob_pods(job, per - 1):
                    store.put(KIND_TO_RESOURCE["Pod"], ns, pod, "ADDED")
        return {"mpijobs": jobs, "pods": jobs * per}

    # -- REST ----------------------------------------------------------------------------
    def route(self, method, path, q, body, fault):
        found = discovery(path.rstrip("/") or "/", self.headers.get("Accept", ""),
                          "%s:%d" % self.server.server_address[:2], self.server.schemas) if method == "GET" else None
        if found:
            ctype, doc = found
            data = doc if isinstance(doc, bytes) else json.dumps(doc).encode()
            self.send_response(200)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return None
        parts = [p for p in path.split("/") if p]
        if parts[:2] == ["api", "v1"]:
            group, version, rest = "", "v1", parts[2:]
        elif parts and parts[0] == "apis" and len(parts) >= 3:
            group, version, rest = parts[1], parts[2], parts[3:]
        else:
            raise ApiFailure(404, "NotFound", "the server could not find the requested resource")
        ns = ""
        if len(rest) >= 3 and rest[0] == "namespaces":
            ns, rest = rest[1], rest[2:]
        if not rest:
            raise ApiFailure(404, "NotFound", "the server could not find the requested resource")
        key = (group, version, rest[0])
        if key not in RESOURCES:
            raise ApiFailure(404, "NotFound", "the server could not find the requested resource (%s)" % rest[0])
        kind, namespaced, _ = RESOURCES[key]
        if namespaced != bool(ns) and not (namespaced and method == "GET" and len(rest) == 1):
            raise ApiFailure(404, "NotFound", "the server could not find the requested resource")
        name = rest[1] if len(rest) > 1 else None
        sub = rest[2] if len(rest) > 2 else None
        if method == "GET" and name is None:
            if q.get("watch") in TRUE_VALUES:
                return self.watch(key, ns, q, fault)
            page = self.list(key, kind, ns, q, fault)
            if "as=Table" in self.headers.get("Accept", ""):
                doc = json.loads(page)
                return self.send_json(200, as_table(kind, doc["items"], doc["metadata"]))
            return self.send_raw(200, page)
        if method == "GET" and sub == "log":
            return self.logs(ns, name, q, fault)
        if method == "GET" and key == ("", "v1", "pods") and sub in ("exec", "attach"):
            return self.exec_websocket(ns, name, attach=sub == "attach")
        if method == "GET":
            obj = self.get(key, kind, ns, name)
            if "as=Table" in self.headers.get("Accept", ""):
                return self.send_json(200, as_table(kind, [obj], {"resourceVersion": obj["metadata"]["resourceVersion"]}))
            return self.send_json(200, obj)
        if method == "POST" and name is None:
            obj = self.create(key, kind, ns, self.decode(body, yaml_too=True), q)
            if fault and fault["action"] == "drop_after":
                return self.drop()  # the write happened; the answer is lost
            return self.send_json(201, obj)
        if kind == "SelfSubjectAccessReview":
            raise ApiFailure(405, "MethodNotAllowed", "the server does not allow this method on the requested "
                             "resource")
        if method == "PUT" and name:
            return self.send_json(200, self.replace(key, kind, ns, name, self.decode(body, yaml_too=True), sub, q))
        if method == "PATCH" and name:
            ctype = self.headers.get("Content-Type", "").split(";")[0].strip()
            accepted = [t for t, n in PATCH_TYPES.items() if n != "strategic" or key[0] in BUILTIN_GROUPS]
            if ctype not in accepted:
                raise ApiFailure(415, "UnsupportedMediaType", "the body of the request was in an unknown format - "
                                 "accepted media types include: " + ", ".join(accepted))
            return self.send_json(*self.patch(key, kind, ns, name, body, PATCH_TYPES[ctype], q))
        if method == "DELETE" and name:
            opts = self.decode(body) if body else {}
            policy = q.get("propagationPolicy") or opts.get("propagationPolicy", "Background")
            return self.send_json(200, self.delete(key, kind, ns, name, policy, opts.get("preconditions") or {}))
        raise ApiFailure(405, "MethodNotAllowed", "method not allowed")

    def decode(self, body, yaml_too=False):
        """A request body: JSON (YAML too where the server takes it); protobuf is refused with 415."""
        ctype = self.headers.get("Content-Type", "")
        if "protobuf" in ctype:
            raise ApiFailure(415, "UnsupportedMediaType", "the body of the request was in an unknown format - "
                             "accepted media types include: application/json, application/yaml")
        try:
            if yaml_too and "yaml" in ctype:
                return yaml.load(body.decode(), Loader=YamlLoader)
            return json.loads(body or b"{}")
        except (ValueError, yaml.YAMLError) as e:
            raise ApiFailure(400, "BadRequest", "the body of the request could not be decoded: %s" % e)

    # -- pods/exec over a WebSocket (RFC 6455, channel protocol v5/v4) -----------------------
    def exec_websocket(self, ns, pod_name, attach=False):
        with self.server.store.cond:
            pod = self.server.store.objects.get((("", "v1", "pods"), ns, pod_name))
        if pod is None:
            raise ApiFailure(404, "NotFound", 'pods "%s" not found' % pod_name)
        phase = (pod.get("status") or {}).get("phase", "Pending")
        if phase != "Running":
            raise ApiFailure(400, "BadRequest", "pod %s is not running (phase %s): unable to upgrade "
                             "connection" % (pod_name, phase))
        if self.headers.get("Upgrade", "").lower() != "websocket":
            raise ApiFailure(400, "BadRequest", "Upgrade request required")
        offered = [p.strip() for p in self.headers.get("Sec-WebSocket-Protocol", "").split(",") if p.strip()]
        chosen = next((p for p in offered if p in self.server.exec_protocols), None)
        if chosen is None:
            raise ApiFailure(400, "BadRequest", "none of the subprotocols %s is supported" % offered)
        accept = base64.b64encode(hashlib.sha1(
            (self.headers["Sec-WebSocket-Key"] + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").encode()).digest())
        self.send_response(101)
        self.send_header("Upgrade", "websocket")
        self.send_header("Connection", "Upgrade")
        self.send_header("Sec-WebSocket-Accept", accept.decode())
        self.send_header("Sec-WebSocket-Protocol", chosen)
        self.end_headers()
        self.wfile.flush()
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
        command = query.get("command", [])
        tty = query.get("tty", ["false"])[0] == "true"
        self.close_connection = True
        try:
            if attach:  # the container's own output from now on: the pod's follow lines
                with self.server.store.cond:
                    entry = self.server.store.logs.get((ns, pod_name), {"follow": [], "interval": 0})
                return FakeContainer(self, chosen, tty).attach(entry["follow"], entry["interval"])
            with self.server.store.cond:
                fs = self.server.store.files.get((ns, pod_name))
            FakeContainer(self, chosen, tty, fs).run(command)
        except (BrokenPipeError, ConnectionResetError, WsProtocolError):
            pass

    def ws_send(self, opcode, payload):
        n = len(payload)
        if n < 126:
            head = struct.pack("!BB", 0x80 | opcode, n)
        elif n < 65536:
            head = struct.pack("!BBH", 0x80 | opcode, 126, n)
        else:
            head = struct.pack("!BBQ", 0x80 | opcode, 127, n)
        self.wfile.write(head + payload)
        self.wfile.flush()

    def ws_receive(self):
        """The next complete message as (opcode, payload); None when the client went away."""
        message, first_op = b"", None
        while True:
            head = self.rfile.read(2)
            if len(head) < 2:
                return None
            fin, op, masked, n = head[0] & 0x80, head[0] & 0x0F, head[1] & 0x80, head[1] & 0x7F
            if n == 126:
                n = struct.unpack("!H", self.rfile.read(2))[0]
            elif n == 127:
                n = struct.unpack("!Q", self.rfile.read(8))[0]
            if not masked:  # RFC 6455 5.1: a server must close on an unmasked client frame
                self.ws_send(8, struct.pack("!H", 1002) + b"client frames must be masked")
                raise WsProtocolError()
            key = self.rfile.read(4)
            data = bytes(b ^ key[i % 4] for i, b in enumerate(self.rfile.read(n)))
            if op >= 8:
                if op == 9:
                    self.ws_send(10, data)
                    continue
                return op, data
            first_op = first_op if op == 0 else op
            message += data
            if fin:
                return first_op, message

    def get(self, key, kind, ns, name):
        with self.server.store.cond:
            obj = self.server.store.objects.get((key, ns, name))
            if obj is None:
                raise ApiFailure(404, "NotFound", '%s "%s" not found' % (key[2], name),
                                 {"name": name, "group": key[0], "kind": key[2]})
            return copy.deepcopy(obj)

    def list(self, key, kind, ns, q, fault):
        """A list page as JSON text. Items are serialised once per store version and cached,
        so that repeated listings (the benchmark) measure the client, not Python's json."""
        store = self.server.store
        sel, fsel = q.get("labelSelector", ""), q.get("fieldSelector", "")
        limit = int(q.get("limit", "0") or 0)
        api_version = key[1] if not key[0] else key[0] + "/" + key[1]
        with store.cond:
            cont = q.get("continue")
            if cont:
                if (fault and fault["action"] == "gone") or cont not in store.continue_tokens:
                    raise ApiFailure(410, "Expired", "The provided continue parameter is too old")
                snapshot, start, rv = store.continue_tokens[cont]
            else:
                ck = (key, ns, sel, fsel)
                cached = store.list_cache.get(ck)
                if cached and cached[0] == store.rv:
                    snapshot = cached[1]
                else:
                    reqs = parse_label_selector(sel)
                    objs = sorted((o for (k, n, _), o in store.objects.items() if k == key and (not ns or n == ns)),
                                  key=lambda o: (o["metadata"].get("namespace", ""), o["metadata"]["name"]))
                    # Like a real API server: only the List carries kind/apiVersion, its items
                    # do not (a GET of one object and watch events do carry them).
                    snapshot = [json.dumps({k: v for k, v in o.items() if k not in ("kind", "apiVersion")})
                                for o in objs if labels_match(o, reqs) and fields_match(o, fsel)]
                    store.list_cache[ck] = (store.rv, snapshot)
                start, rv = 0, str(store.rv)
            end = len(snapshot) if limit <= 0 else min(len(snapshot), start + limit)
            meta = {"resourceVersion": rv}
            if end < len(snapshot):
                token = uuid.uuid4().hex
                store.continue_tokens[token] = (snapshot, end, rv)
                meta["continue"] = token
                meta["remainingItemCount"] = len(snapshot) - end
            items = snapshot[start:end]
        return ('{"kind": %s, "apiVersion": %s, "metadata": %s, "items": [%s]}' % (
            json.dumps(kind + "List"), json.dumps(api_version), json.dumps(meta), ", ".join(items))).encode()

    def watch(self, key, ns, q, fault):
        """Events after resourceVersion; without one (or "0"), the current objects as ADDED first.
        A BOOKMARK at the end only when the client allows them (allowWatchBookmarks)."""
        store = self.server.store
        reqs = parse_label_selector(q.get("labelSelector", ""))
        fsel = q.get("fieldSelector", "")
        timeout = float(q.get("timeoutSeconds", "30"))
        deadline = time.time() + timeout
        rv = int(q.get("resourceVersion") or 0)
        self.start_chunked("application/json")
        with store.cond:
            expired = (fault and fault["action"] == "gone") or (rv and rv < store.compacted)
            replay = [] if rv else sorted(
                (copy.deepcopy(o) for (k, n, _), o in store.objects.items() if k == key and (not ns or n == ns)
                 and labels_match(o, reqs) and fields_match(o, fsel)),
                key=lambda o: (o["metadata"].get("namespace", ""), o["metadata"]["name"]))
            rv = rv or store.rv
        if expired:
            self.chunk(json.dumps({"type": "ERROR", "object": status_obj(
                410, "Expired", "too old resource version: %d (%d)" % (rv, store.compacted))}) + "\n")
            return self.end_chunks()
        for obj in replay:
            self.chunk(json.dumps({"type": "ADDED", "object": obj}) + "\n")
        drop_after = fault.get("after_events", 0) if fault and fault["action"] == "drop_stream" else None
        sent = 0
        while True:
            with store.cond:
                pending = [h for h in store.history if h[0] > rv]
                if not pending:
                    left = deadline - time.time()
                    if left <= 0:
                        break
                    store.cond.wait(min(left, 0.5))
                    continue
            for hrv, hkey, hns, typ, obj in pending:
                rv = hrv
                if hkey != key or (ns and hns != ns):
                    continue
                if not labels_match(obj, reqs) or not fields_match(obj, fsel):
                    continue
                if drop_after is not None and sent >= drop_after:
                    return self.drop()
                self.chunk(json.dumps({"type": typ, "object": obj}) + "\n")
                sent += 1
        if q.get("allowWatchBookmarks") in TRUE_VALUES:
            self.chunk(json.dumps({"type": "BOOKMARK", "object": {
                "kind": RESOURCES[key][0], "apiVersion": key[1] if not key[0] else key[0] + "/" + key[1],
                "metadata": {"resourceVersion": str(rv)}}}) + "\n")
        self.end_chunks()

    def logs(self, ns, pod_name, q, fault):
        store = self.server.store
        pod = self.get(("", "v1", "pods"), "Pod", ns, pod_name)
        containers = [c["name"] for c in pod["spec"]["containers"]]
        container = q.get("container")
        if container is None and len(containers) > 1:
            raise ApiFailure(400, "BadRequest", "a container name must be specified for pod %s, choose one of: %s"
                             % (pod_name, containers))
        if container is not None and container not in containers:
            raise ApiFailure(400, "BadRequest", "container %s is not valid for pod %s" % (container, pod_name))
        with store.cond:
            entry = store.logs.get((ns, pod_name), {"lines": [], "follow": [], "interval": 0})
            lines = list(entry["lines"])
            follow_lines = list(entry["follow"])
            interval = entry["interval"]
        if fault and fault["action"] == "slow":
            interval = fault.get("interval", 0.05)
        if "sinceSeconds" in q:
            cutoff = time.time() - int(q["sinceSeconds"])
            lines = [l for l in lines if l[0] >= cutoff]
        if "tailLines" in q:
            n = int(q["tailLines"])
            lines = lines[-n:] if n > 0 else []
        stamp = q.get("timestamps") in TRUE_VALUES

        def fmt(t, text):
            if not stamp:
                return text + "\n"
            ts = datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f000Z")
            return ts + " " + text + "\n"

        self.start_chunked("text/plain")
        for t, text in lines:
            self.chunk(fmt(t, text))
            if interval:
                time.sleep(interval)
        if q.get("follow") in TRUE_VALUES:
            for text in follow_lines:
                time.sleep(interval or 0.01)
                self.chunk(fmt(time.time(), text))
        self.end_chunks()

    # -- writes --------------------------------------------------------------------------
    def check(self, key, kind, ns, obj, q):
        """Decodes and validates a body as the real server does: a missing apiVersion/kind is the
        URL's, nulls are unset fields, unknown fields follow fieldValidation (Strict: 400; Warn,
        the default: dropped with a Warning header; Ignore: dropped)."""
        api_version = key[1] if not key[0] else key[0] + "/" + key[1]
        if not isinstance(obj, dict):
            raise ApiFailure(400, "BadRequest", "the body of the request is not an object")
        obj["kind"] = obj.get("kind") or kind
        obj["apiVersion"] = obj.get("apiVersion") or api_version
        if obj["kind"] != kind or obj["apiVersion"] != api_version:
            raise ApiFailure(400, "BadRequest", "the body is a %s %s, expected %s %s" % (
                obj.get("apiVersion"), obj.get("kind"), api_version, kind))
        strip_nulls(obj)
        mode = q.get("fieldValidation", "Warn")
        if mode not in ("Strict", "Warn", "Ignore"):
            raise ApiFailure(400, "BadRequest", 'fieldValidation parameter unsupported: "%s", must be one of: '
                             '"Ignore", "Warn", "Strict"' % mode)
        meta = obj.setdefault("metadata", {})
        name = meta.get("name", "")
        causes = []
        if not name and kind != "SelfSubjectAccessReview":
            causes.append(("metadata.name", "name or generateName is required", "FieldValueRequired"))
        if meta.get("namespace") and meta["namespace"] != ns:
            raise ApiFailure(400, "BadRequest", "the namespace of the object does not match the request")
        try:  # the decoder reads quantities before any validation: a bad one is a 400
            causes += semantic_causes(kind, obj)
        except BadQuantity as e:
            raise ApiFailure(400, "BadRequest", '%s in version "%s" cannot be handled as a %s: %s'
                             % (kind, key[1], kind, e))
        unknown, schema_causes = self.server.schemas.split(key, obj)
        fields = sorted('unknown field "%s"' % field_path(path, n) for path, names in unknown for n in names)
        if fields and mode == "Strict":
            raise ApiFailure(400, "BadRequest", '%s in version "%s" cannot be handled as a %s: strict decoding '
                             'error: %s' % (kind, key[1], kind, ", ".join(fields)))
        drop_fields(obj, unknown)
        if mode == "Warn":
            self.warnings += fields
        raise_invalid(key, kind, name, schema_causes + causes)
        return obj

    def create(self, key, kind, ns, obj, q):
        store = self.server.store
        self.check(key, kind, ns, obj, q)
        if kind == "SelfSubjectAccessReview":
            return self.access_review(obj)
        name = obj["metadata"]["name"]
        with store.cond:
            if ns and (KIND_TO_RESOURCE["Namespace"], "", ns) not in store.objects:
                raise ApiFailure(404, "NotFound", 'namespaces "%s" not found' % ns,
                                 {"name": name, "kind": "namespaces"})
            if (key, ns, name) in store.objects:
                going = "deletionTimestamp" in store.objects[(key, ns, name)]["metadata"]
                raise ApiFailure(409, "AlreadyExists", '%s%s "%s" already exists' % (
                    "object is being deleted: " if going else "", qualified(key), name),
                                 {"name": name, "group": key[0], "kind": key[2]})
            obj = copy.deepcopy(obj)
            meta = obj["metadata"]
            if ns:
                meta["namespace"] = ns
            meta["uid"] = str(uuid.uuid4())
            meta["creationTimestamp"] = now_rfc3339()
            meta["generation"] = 1
            apply_defaults(kind, obj)
            if q.get("dryRun") == "All":
                return obj
            if kind != "Node":  # status is written by controllers only (a kubelet registers its Node with it)
                obj.pop("status", None)
            if kind == "Service":
                self.allocate_service(obj)
            store.put(key, ns, obj, "ADDED")
            react(self.server, kind, ns, obj)
            return copy.deepcopy(obj)

    def access_review(self, review):
        """SelfSubjectAccessReview: allowed unless /_test/settings listed the verb/resource in denied."""
        attrs = (review.get("spec") or {}).get("resourceAttributes") or {}
        denied = any(d.get("verb") in (attrs.get("verb"), "*") and d.get("resource") in (attrs.get("resource"), "*")
                     for d in self.server.denied)
        review["status"] = {"allowed": not denied}
        if denied:
            review["status"].update(denied=True, reason="denied by the test API server's settings")
        return review

    def allocate_service(self, svc):
        """The allocators: a clusterIP, and a nodePort for each port of a NodePort/LoadBalancer
        Service that names none (lock held)."""
        spec = svc["spec"]
        store = self.server.store
        if spec.get("type", "ClusterIP") != "ExternalName" and not spec.get("clusterIP"):
            n = sum(1 for k in store.objects if k[0] == KIND_TO_RESOURCE["Service"]) + 10
            spec["clusterIP"] = "10.0.%d.%d" % (n // 250, n % 250 + 1)
            spec["clusterIPs"] = [spec["clusterIP"]]
        if spec.get("type") in ("NodePort", "LoadBalancer"):
            used = {p.get("nodePort") for o in store.objects.values() if o.get("kind") == "Service"
                    for p in (o.get("spec") or {}).get("ports") or []}
            for p in spec.get("ports") or []:
                if "nodePort" in p:
                    if p["nodePort"] in used:
                        raise ApiFailure(422, "Invalid", 'Service "%s" is invalid: spec.ports[0].nodePort: Invalid '
                                         'value: %d: provided port is already allocated'
                                         % (svc["metadata"]["name"], p["nodePort"]),
                                         {"name": svc["metadata"]["name"], "kind": "Service", "causes": [
                                             {"field": "spec.ports[0].nodePort", "reason": "FieldValueInvalid",
                                              "message": "Invalid value: %d: provided port is already allocated"
                                              % p["nodePort"]}]})
                    used.add(p["nodePort"])
            for p in spec.get("ports") or []:
                if "nodePort" not in p:
                    port = next(n for n in range(MIN_NODE_PORT, MAX_NODE_PORT + 1) if n not in used)
                    p["nodePort"] = port
                    used.add(port)

    def replace(self, key, kind, ns, name, obj, sub, q):
        store = self.server.store
        self.check(key, kind, ns, obj, q)
        with store.cond:
            old = store.objects.get((key, ns, name))
            if old is None:
                raise ApiFailure(404, "NotFound", '%s "%s" not found' % (qualified(key), name))
            # Without a resourceVersion a PUT is an unconditional update, as on a real server.
            if obj["metadata"].get("resourceVersion") not in (None, "", old["metadata"]["resourceVersion"]):
                raise ApiFailure(409, "Conflict", 'Operation cannot be fulfilled on %s "%s": the object has been '
                                 'modified; please apply your changes to the latest version and try again'
                                 % (qualified(key), name))
            new = copy.deepcopy(obj)
            for f in ("uid", "creationTimestamp", "deletionTimestamp", "generation"):
                if f in old["metadata"]:
                    new["metadata"][f] = old["metadata"][f]
            if sub != "status":
                new["status"] = old.get("status", new.get("status"))
                apply_defaults(kind, new)
                raise_invalid(key, kind, name, immutable_causes(kind, old, new))
            return self.store_update(key, ns, new)

    def patch(self, key, kind, ns, name, body, ptype, q):
        """(HTTP code, object) of a PATCH of type ptype (PATCH_TYPES); apply creates a missing object."""
        store = self.server.store
        if ptype == "apply" and not q.get("fieldManager"):
            raise ApiFailure(400, "BadRequest", "PATCH, fieldManager is required for apply requests")
        patch = self.decode(body, yaml_too=ptype == "apply")
        with store.cond:  # read, patch and write at once: a controller's update meanwhile cannot be lost
            old = store.objects.get((key, ns, name))
            if old is None and ptype == "apply":
                return 201, self.create(key, kind, ns, patch, q)
            if old is None:
                raise ApiFailure(404, "NotFound", '%s "%s" not found' % (qualified(key), name))
            if ptype == "json":
                new = json_patch(old, patch)
            elif ptype == "merge":
                new = merge_patch(copy.deepcopy(old), patch)
            else:
                new = strategic_merge(copy.deepcopy(old), patch)
            self.check(key, kind, ns, new, q)
            apply_defaults(kind, new)
            raise_invalid(key, kind, name, immutable_causes(kind, old, new))
            return 200, self.store_update(key, ns, new)

    def store_update(self, key, ns, new):
        """Stores an update (lock held); an object being deleted whose finalizers are gone goes."""
        store = self.server.store
        meta = new["metadata"]
        if "deletionTimestamp" in meta and not meta.get("finalizers"):
            store.put(key, ns, new, "DELETED")
        else:
            store.put(key, ns, new, "MODIFIED")
        return copy.deepcopy(new)

    def delete(self, key, kind, ns, name, policy, preconditions=None):
        store = self.server.store
        if policy not in ("Background", "Foreground", "Orphan"):
            raise ApiFailure(400, "BadRequest", "invalid propagationPolicy %s" % policy)
        with store.cond:
            obj = store.objects.get((key, ns, name))
            if obj is None:
                raise ApiFailure(404, "NotFound", '%s "%s" not found' % (qualified(key), name),
                                 {"name": name, "group": key[0], "kind": key[2]})
            for field, meta_field in (("uid", "UID"), ("resourceVersion", "ResourceVersion")):
                want = (preconditions or {}).get(field)
                if want is not None and want != obj["metadata"][field]:
                    raise ApiFailure(409, "Conflict", "Precondition failed: %s in precondition: %s, %s in object meta: %s"
                                     % (meta_field, want, meta_field, obj["metadata"][field]),
                                     {"name": name, "group": key[0], "kind": key[2]})
            if policy == "Foreground" and dependents(store, obj["metadata"]["uid"]):
                # Kept, marked, until the garbage collector has removed its dependents.
                return self.server.gc.delete_foreground(key, ns, obj)
            self.server.gc.cascade(obj["metadata"]["uid"], policy)
            store.put(key, ns, copy.deepcopy(obj), "DELETED")
            kai_pass(self.server)
        return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
                "details": {"name": name, "group": key[0], "kind": key[2], "uid": obj["metadata"]["uid"]}}

class WsProtocolError(Exception):
    pass


class FakeContainer:
    """What a container does with an exec, deterministically and without running anything on
    the host: echo, cat (stdin back to stdout), sh -c 'echo X; echo Y >&2; exit N', an
    interactive /bin/bash on a tty (echoes lines, reports terminal resizes, ends on 'exit')."""

    STDIN, STDOUT, STDERR, ERROR, RESIZE, CLOSE = 0, 1, 2, 3, 4, 255

    def __init__(self, handler, protocol, tty, fs=None):
        self.h, self.v5, self.tty = handler, protocol == "v5.channel.k8s.io", tty
        self.fs = fs  # /_test/files of the pod: the file commands below read it

    MTIME = 1700000000

    def resolve(self, path):
        """`path` with the fake's symbolic links replaced (realpath), or None when it does not exist."""
        links, files = self.fs["links"], self.fs["files"]
        parts, done = [p for p in path.split("/") if p], ""
        for i, part in enumerate(parts):
            done += "/" + part
            if done in links:
                return self.resolve(links[done] + "".join("/" + p for p in parts[i + 1:]))
        if done in files or any(f.startswith(done + "/") for f in files) or done == "":
            return done or "/"
        return None

    def file_command(self, name, args):
        """realpath -e -- P, stat -c FMT -- P, head|tail -c N -- P, find P ... -printf FMT, printenv N."""
        files = self.fs["files"]
        if name == "printenv":
            if args and args[0] in self.fs["env"]:
                self.out(self.fs["env"][args[0]] + "\n")
                return self.finish()
            return self.finish(1)
        path = args[-1] if name != "find" else args[0]
        if name == "realpath":
            real = self.resolve(path)
            if real is None:
                self.out("realpath: %s: No such file or directory\n" % path, self.STDERR)
                return self.finish(1)
            self.out(real + "\n")
            return self.finish()
        if path in self.fs["links"]:  # the tools below are only given paths realpath returned unchanged
            return self.finish(failure="fake container: %s %s reached a link" % (name, path))
        is_dir = any(f.startswith(path + "/") for f in files)
        if name == "stat":
            if path in files:
                kind = "regular file" if files[path] else "regular empty file"
                self.out("%s|%d|%d\n" % (kind, len(files[path].encode()), self.MTIME))
            elif is_dir:
                self.out("directory|4096|%d\n" % self.MTIME)
            else:
                return self.finish(1)
            return self.finish()
        if name in ("head", "tail"):
            if path not in files:
                return self.finish(1)
            data, n = files[path].encode(), int(args[1])
            self.out((data[:n] if name == "head" else data[len(data) - n:]).decode(errors="replace"))
            return self.finish()
        if name == "find":
            if not is_dir:
                return self.finish(1)
            for f, text in sorted(files.items()):
                rest = f[len(path) + 1:]
                if f.startswith(path + "/") and "/" not in rest and f not in self.fs["links"]:
                    self.out("%d.0000000000 %d %s\n" % (self.MTIME, len(text.encode()), rest))
            return self.finish()
        return self.finish(failure="fake container: no %s" % name)

    def write_command(self, name, args):
        """tar xmf - -C DIR (a tar stream on stdin; its regular files land in DIR, which is
        followed like the real tar's chdir), mv -f -T -- SRC DST (a link at DST is replaced, a
        directory there refused): lanectl cp's writes into the pod's /_test/files."""
        import io, tarfile
        files, links = self.fs["files"], self.fs["links"]
        if name == "tar":
            data = b"".join(chunk for kind, chunk in self.stdin_chunks() if kind == "data")
            target = self.resolve(args[args.index("-C") + 1]) if "-C" in args else None
            if target is None:
                self.out("tar: cannot change directory\n", self.STDERR)
                return self.finish(2)
            with tarfile.open(fileobj=io.BytesIO(data), mode="r:") as archive:
                for member in archive.getmembers():
                    if member.isfile():
                        dest = target.rstrip("/") + "/" + member.name
                        links.pop(dest, None)
                        files[dest] = archive.extractfile(member).read().decode(errors="replace")
            return self.finish()
        src, dst = args[-2], args[-1]
        if src not in files or any(f.startswith(dst + "/") for f in files):
            return self.finish(1)
        links.pop(dst, None)
        files[dst] = files.pop(src)
        return self.finish()

    def out(self, text, channel=1):
        self.h.ws_send(2, bytes([channel]) + text.encode())

    def finish(self, code=0, failure=None):
        if failure:
            status = {"metadata": {}, "status": "Failure", "message": failure, "reason": "InternalError"}
        elif code:
            status = {"metadata": {}, "status": "Failure", "reason": "NonZeroExitCode",
                      "message": "command terminated with non-zero exit code: exit status %d" % code,
                      "details": {"causes": [{"reason": "ExitCode", "message": str(code)}]}}
        else:
            status = {"metadata": {}, "status": "Success"}
        self.h.ws_send(2, bytes([self.ERROR]) + json.dumps(status).encode())
        self.h.ws_send(8, struct.pack("!H", 1000))
        self.h.ws_receive()  # the client's close

    def stdin_chunks(self):
        """Yields ("data", bytes) and ("resize", dict) until stdin is closed or the client leaves."""
        while True:
            msg = self.h.ws_receive()
            if msg is None or msg[0] == 8:
                return
            payload = msg[1]
            if not payload:
                continue
            if payload[0] == self.STDIN:
                yield "data", payload[1:]
            elif payload[0] == self.RESIZE:
                yield "resize", json.loads(payload[1:])
            elif payload[0] == self.CLOSE and payload[1:2] == bytes([self.STDIN]):
                return

    def attach(self, lines, interval):
        for text in lines:
            time.sleep(interval or 0.01)
            self.out(text + "\n")
        return self.finish()

    def run(self, command):
        if not command:
            return self.finish(failure="you must specify at least one command for the container")
        name, args = command[0], command[1:]
        if name == "echo":
            self.out(" ".join(args) + "\n")
            return self.finish()
        if name == "drop-connection":  # the network fails mid-command: no Status, no close
            self.out("partial output\n")
            self.h.connection.shutdown(2)
            return
        if name == "cat":
            for kind, data in self.stdin_chunks():
                if kind == "data":
                    self.out(data.decode(errors="replace"))
            return self.finish()
        if name in ("sh", "/bin/sh", "bash", "/bin/bash") and args[:1] == ["-c"] and len(args) >= 2:
            code = 0
            for statement in (s.strip() for s in args[1].split(";")):
                if statement.startswith("echo "):
                    text = statement[5:]
                    if text.endswith(">&2"):
                        self.out(text[:-3].strip() + "\n", self.STDERR)
                    else:
                        self.out(text + "\n")
                elif statement.startswith("exit"):
                    code = int(statement[4:].strip() or 0)
                    break
            return self.finish(code)
        if name in ("bash", "/bin/bash") and not args:
            line = ""
            for kind, data in self.stdin_chunks():
                if kind == "resize":
                    self.out("[resize %dx%d]\r\n" % (data["Width"], data["Height"]))
                    continue
                for ch in data.decode(errors="replace"):
                    if ch not in "\r\n":
                        line += ch
                        continue
                    if line == "exit":
                        return self.finish()
                    self.out("$ %s%s\r\n" % (line, " (tty)" if self.tty else ""))
                    line = ""
            return self.finish()
        if self.fs is not None and name in ("realpath", "stat", "head", "tail", "find", "printenv"):
            return self.file_command(name, args)
        if self.fs is not None and name in ("tar", "mv"):
            return self.write_command(name, args)
        return self.finish(failure='exec: "%s": executable file not found in $PATH: unknown' % name)


# ---------------------------------------------------------------------------------------
# Controllers: what the cluster does after a create (the job controller, the MPI operator,
# the scheduler and kubelet, the volume binder, the snapshotter, the garbage collector).

RUN_SECONDS = "fake.lanectl.io/run-seconds"  # on a Job/MPIJob: its pods finish this long after the create
EXIT_CODE = "fake.lanectl.io/exit-code"      # ... with this exit code (default 0: Succeeded)
POD_KEY = ("", "v1", "pods")
POD_IPS = itertools.count(2)


def qualified(key):
    """The resource as the real server names it in messages: jobs.batch, pods."""
    return key[2] + ("." + key[0] if key[0] else "")


def apply_defaults(kind, obj):
    """The defaulting the real server does on create and update (batch/v1 Job, apps/v1 Deployment)."""
    spec = obj.get("spec")
    if kind == "Job" and isinstance(spec, dict):
        uid, name = obj["metadata"].get("uid", ""), obj["metadata"].get("name", "")
        if not spec.get("manualSelector"):
            spec.setdefault("selector", {"matchLabels": {"batch.kubernetes.io/controller-uid": uid}})
            labels = spec.setdefault("template", {}).setdefault("metadata", {}).setdefault("labels", {})
            for k, v in (("batch.kubernetes.io/controller-uid", uid), ("batch.kubernetes.io/job-name", name),
                         ("controller-uid", uid), ("job-name", name)):
                labels.setdefault(k, v)
        if "completions" not in spec and "parallelism" not in spec:
            spec["completions"] = 1
        for k, v in (("parallelism", 1), ("backoffLimit", 6), ("completionMode", "NonIndexed"),
                     ("suspend", False), ("podReplacementPolicy", "TerminatingOrFailed")):
            spec.setdefault(k, v)
    if kind == "Deployment" and isinstance(spec, dict):
        spec.setdefault("replicas", 1)
        spec.setdefault("revisionHistoryLimit", 10)
        spec.setdefault("progressDeadlineSeconds", 600)
        spec.setdefault("strategy", {"type": "RollingUpdate",
                                     "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}})


def dependents(store, uid):
    return [(k, o) for k, o in store.objects.items()
            if any(r.get("uid") == uid for r in o["metadata"].get("ownerReferences") or [])]


def emit_event(store, ns, obj, reason, message, component, event_type="Normal"):
    """A core/v1 Event about obj (lock held)."""
    meta = obj["metadata"]
    now = now_rfc3339()
    event = {"apiVersion": "v1", "kind": "Event",
             "metadata": {"name": "%s.%s" % (meta["name"], uuid.uuid4().hex[:16]), "namespace": ns,
                          "uid": str(uuid.uuid4()), "creationTimestamp": now},
             "involvedObject": {"apiVersion": obj.get("apiVersion", "v1"), "kind": obj.get("kind", ""),
                                "name": meta["name"], "namespace": ns, "uid": meta.get("uid", "")},
             "reason": reason, "message": message, "type": event_type, "count": 1,
             "firstTimestamp": now, "lastTimestamp": now, "source": {"component": component},
             "reportingComponent": component, "reportingInstance": ""}
    store.put(("", "v1", "events"), ns, event, "ADDED")


def start_pod(srv, ns, pod):
    """The scheduler and kubelet: the pod goes to the next declared Node (round robin; the fixed
    AKS names when none is declared), gets an IP, runs (lock held)."""
    store = srv.store
    nodes = sorted(o["metadata"]["name"] for (k, _, _), o in store.objects.items() if k == ("", "v1", "nodes"))
    if nodes:
        pod["spec"]["nodeName"] = nodes[next(srv.node_turn) % len(nodes)]
    place_pod(srv, ns, pod)


def place_pod(srv, ns, pod):
    """The kubelet: the pod runs on spec.nodeName (hostIP from a declared Node), with events (lock held)."""
    store = srv.store
    node = store.objects.get((("", "v1", "nodes"), "", pod["spec"]["nodeName"]))
    if node:
        ips = [a["address"] for a in (node.get("status") or {}).get("addresses") or [] if a.get("type") == "InternalIP"]
        pod["status"]["hostIP"] = ips[0] if ips else pod["status"]["hostIP"]
    store.put(POD_KEY, ns, pod, "MODIFIED" if (POD_KEY, ns, pod["metadata"]["name"]) in store.objects else "ADDED")
    emit_event(store, ns, pod, "Scheduled", "Successfully assigned %s/%s to %s" % (
        ns, pod["metadata"]["name"], pod["spec"]["nodeName"]), "default-scheduler")
    for c in pod["spec"].get("containers", []):
        emit_event(store, ns, pod, "Started", "Started container %s" % c["name"], "kubelet")


def admit(srv, ns, pod):
    """A new workload pod: running at once (round robin over the nodes), or Pending for the KAI-like
    scheduler when /_test/settings turned it on (lock held)."""
    if not srv.kai_scheduler:
        return start_pod(srv, ns, pod)
    pod["spec"].pop("nodeName", None)
    pod["status"] = {"phase": "Pending", "qosClass": "BestEffort", "conditions": [
        {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "lastProbeTime": None,
         "lastTransitionTime": now_rfc3339()}]}
    srv.store.put(POD_KEY, ns, pod, "MODIFIED" if (POD_KEY, ns, pod["metadata"]["name"]) in srv.store.objects
                  else "ADDED")


def pod_gpus(pod):
    """Whole GPUs of the pod's limits plus its gpu-fraction annotation."""
    total = 0.0
    for c in pod["spec"].get("containers", []):
        total += float(((c.get("resources") or {}).get("limits") or {}).get("nvidia.com/gpu", 0))
    return total + float((pod["metadata"].get("annotations") or {}).get("gpu-fraction", 0))


def preemptible(labels):
    """KAI's rule: priority class build (interactive) is non-preemptible, the others preemptible;
    the kai.scheduler/preemptibility label overrides."""
    choice = labels.get("kai.scheduler/preemptibility")
    if choice:
        return choice == "preemptible"
    return labels.get("priorityClassName", "train") != "build"


def kai_gangs(srv):
    """The workloads' pods (by owner) as kai_scheduler.Gangs, and {gang id: (owner, [pod keys])}."""
    store = srv.store
    owners = {o["metadata"].get("uid"): (k, n, o) for (k, n, _), o in store.objects.items()}
    by = {}
    for (k, n, name), pod in store.objects.items():
        refs = pod["metadata"].get("ownerReferences") or []
        phase = (pod.get("status") or {}).get("phase")
        if k != POD_KEY or not refs or phase not in ("Pending", "Running") or refs[0]["uid"] not in owners:
            continue
        by.setdefault(refs[0]["uid"], []).append((k, n, name))
    gangs, where = [], {}
    for uid, keys in by.items():
        pods = [store.objects[key] for key in keys]
        labels = pods[0]["metadata"].get("labels") or {}
        queue = labels.get("kai.scheduler/queue") or labels.get("runai/queue") or labels.get("project", "")
        order = srv.kai_order.setdefault(uid, len(srv.kai_order))
        running = any(p["status"]["phase"] == "Running" for p in pods)
        gangs.append(kai_scheduler.Gang(uid, queue, order, preemptible(labels),
                                        [(p["metadata"]["name"], pod_gpus(p), p["spec"].get("nodeName") if running
                                          else None) for p in pods], running))
        where[uid] = (owners[uid], keys)
    return gangs, where


def kai_pass(srv):
    """One pass of the KAI-like scheduler (tests/kube/kai_scheduler.py) over the declared Nodes and
    Queues, applied: pods started on their node, evicted gangs back to Pending with a Preempted
    event, a Warning event with the reason for each gang left pending (lock held)."""
    if not srv.kai_scheduler:
        return
    store = srv.store
    nodes, queues = {}, {}
    for (k, _, name), o in store.objects.items():
        if k == ("", "v1", "nodes"):
            nodes[name] = int(float(((o.get("status") or {}).get("allocatable") or {}).get("nvidia.com/gpu", 0)))
        if k == KIND_TO_RESOURCE["Queue"]:
            gpu = ((o.get("spec") or {}).get("resources") or {}).get("gpu") or {}
            queues[name] = (float(gpu.get("quota", 0)), float(gpu.get("limit", -1)))
    gangs, where = kai_gangs(srv)
    start, evict, pending = kai_scheduler.schedule(nodes, queues, gangs)
    for gid in evict:
        (_, ns, owner), keys = where[gid]
        for key in keys:
            admit(srv, ns, copy.deepcopy(store.objects[key]))
        emit_event(store, ns, owner, "Preempted", "evicted by the scheduler: another queue reclaims its "
                   "deserved GPUs; it runs again when they are free", "kai-scheduler", "Warning")
    for gid, placement in start.items():
        (_, ns, _), keys = where[gid]
        for key in keys:
            pod = copy.deepcopy(store.objects[key])
            fresh = pod_from_template(ns, pod["metadata"]["name"], {"spec": pod["spec"]}, {}, [],
                                      placement[pod["metadata"]["name"]])
            pod["spec"], pod["status"] = fresh["spec"], fresh["status"]
            place_pod(srv, ns, pod)
        srv.kai_said.pop(gid, None)
    for gid, (reason, message) in pending.items():
        (_, ns, owner), _ = where[gid]
        if srv.kai_said.get(gid) != message:
            srv.kai_said[gid] = message
            emit_event(store, ns, owner, reason, message, "kai-scheduler", "Warning")
    if evict:  # the evicted gangs now wait: one more pass gives them their reason
        kai_pass(srv)


def react(srv, kind, ns, obj):
    """What the cluster's controllers do after a create (lock held)."""
    store = srv.store
    name = obj["metadata"]["name"]
    if kind == "Job":
        tmpl = obj["spec"]["template"]
        pod = pod_from_template(ns, "%s-%s" % (name, uuid.uuid4().hex[:5]), tmpl,
                                dict(tmpl.get("metadata", {}).get("labels", {}),
                                     **{"job-name": name, "controller-uid": obj["metadata"]["uid"]}),
                                owner(obj), "aks-gpupool-34613062-vmss000000")
        admit(srv, ns, pod)
        emit_event(store, ns, obj, "SuccessfulCreate", "Created pod: " + pod["metadata"]["name"], "job-controller")
        st = dict(obj)
        st["status"] = {"active": 1, "ready": 1, "startTime": now_rfc3339()}
        store.put(KIND_TO_RESOURCE["Job"], ns, st, "MODIFIED")
        store.logs.setdefault((ns, pod["metadata"]["name"]), {
            "lines": [(time.time(), "%s: line %d" % (name, i)) for i in range(1, 21)], "follow": [], "interval": 0})
    elif kind == "PyTorchJob":
        pods = pytorchjob_pods(obj)
        for pod in pods:
            admit(srv, ns, pod)
            store.logs.setdefault((ns, pod["metadata"]["name"]), {
                "lines": [(time.time(), "%s: WORLD_SIZE=%d" % (pod["metadata"]["name"], len(pods)))],
                "follow": [], "interval": 0})
        kubeflow_running(store, ns, obj, "pytorchjob-controller")
    elif kind == "MPIJob":
        workers = obj["spec"]["mpiReplicaSpecs"]["Worker"]["replicas"]
        for pod in mpijob_pods(obj, workers):
            admit(srv, ns, pod)
            if pod["metadata"]["labels"]["training.kubeflow.org/job-role"] == "launcher":
                store.logs.setdefault((ns, pod["metadata"]["name"]), {
                    "lines": [(time.time(), "Running with %d workers" % workers)] +
                             [(time.time(), "[1,0]<stdout>:epoch %d" % i) for i in range(1, 11)],
                    "follow": [], "interval": 0})
        kubeflow_running(store, ns, obj, "mpi-job-controller")
    elif kind == "PersistentVolumeClaim":
        bind_claim(srv, ns, obj)
    elif kind == "Deployment":
        st = dict(obj)
        n = obj["spec"]["replicas"]
        st["status"] = {"observedGeneration": 1, "replicas": n, "updatedReplicas": n, "readyReplicas": n,
                        "availableReplicas": n}
        store.put(KIND_TO_RESOURCE["Deployment"], ns, st, "MODIFIED")
    elif kind == "VolumeSnapshot":
        threading.Timer(srv.snapshot_delay, snapshot_ready, (srv, ns, name)).start()
    if kind in ("Job", "MPIJob", "PyTorchJob"):
        kai_pass(srv)
    run = (obj["metadata"].get("annotations") or {}).get(RUN_SECONDS)
    if kind in ("Job", "MPIJob", "PyTorchJob") and run is not None:
        code = int(obj["metadata"]["annotations"].get(EXIT_CODE, "0"))
        threading.Timer(float(run), finish_workload, (srv, kind, ns, name, code)).start()


def kubeflow_running(store, ns, obj, component):
    """A Kubeflow operator's account of a started job: an event and the Created and Running
    conditions (reasons <Kind>Created, <Kind>Running; lock held)."""
    kind, name, now = obj["kind"], obj["metadata"]["name"], now_rfc3339()
    emit_event(store, ns, obj, kind + "Created", "%s %s/%s is created." % (kind, ns, name), component)
    st = dict(obj)
    st["status"] = {"conditions": [
        {"type": t, "status": "True", "reason": kind + t, "message": "%s %s/%s is %s." % (kind, ns, name, word),
         "lastTransitionTime": now, "lastUpdateTime": now} for t, word in (("Created", "created"),
                                                                             ("Running", "running"))],
        "startTime": now}
    store.put(KIND_TO_RESOURCE[kind], ns, st, "MODIFIED")


def bind_claim(srv, ns, pvc):
    """The provisioner and binder: a PersistentVolume for the claim, Bound; a claim restored from a
    VolumeSnapshot that does not exist (or is not ready) stays Pending, as with the CSI provisioner."""
    store = srv.store
    source = pvc["spec"].get("dataSource") or {}
    if source.get("kind") == "VolumeSnapshot":
        vs = store.objects.get((KIND_TO_RESOURCE["VolumeSnapshot"], ns, source.get("name", "")))
        if vs is None or not (vs.get("status") or {}).get("readyToUse"):
            emit_event(store, ns, pvc, "ProvisioningFailed", 'failed to provision volume with StorageClass "%s": '
                       'error getting handle for DataSource Type VolumeSnapshot by Name %s: snapshot %s not found'
                       % (pvc["spec"].get("storageClassName", ""), source.get("name"), source.get("name")),
                       "csi.trident.netapp.io", "Warning")
            return
    volume = "pvc-" + pvc["metadata"]["uid"]
    size = pvc["spec"]["resources"]["requests"]["storage"]
    store.put(("", "v1", "persistentvolumes"), "", {
        "apiVersion": "v1", "kind": "PersistentVolume",
        "metadata": {"name": volume, "uid": str(uuid.uuid4()), "creationTimestamp": now_rfc3339(),
                     "annotations": {"pv.kubernetes.io/provisioned-by": "csi.trident.netapp.io"}},
        "spec": {"capacity": {"storage": size}, "accessModes": pvc["spec"].get("accessModes", []),
                 "persistentVolumeReclaimPolicy": "Delete",
                 "storageClassName": pvc["spec"].get("storageClassName", ""),
                 "claimRef": {"kind": "PersistentVolumeClaim", "namespace": ns, "name": pvc["metadata"]["name"],
                              "uid": pvc["metadata"]["uid"], "apiVersion": "v1"},
                 "csi": {"driver": "csi.trident.netapp.io", "volumeHandle": volume}},
        "status": {"phase": "Bound"}}, "ADDED")
    st = dict(pvc)
    st["spec"] = dict(pvc["spec"], volumeName=volume)
    st["status"] = {"phase": "Bound", "accessModes": pvc["spec"].get("accessModes", []), "capacity": {"storage": size}}
    store.put(KIND_TO_RESOURCE["PersistentVolumeClaim"], ns, st, "MODIFIED")
    emit_event(store, ns, pvc, "ProvisioningSucceeded", "Successfully provisioned volume " + volume,
               "csi.trident.netapp.io")


def snapshot_ready(srv, ns, name):
    store = srv.store
    key = KIND_TO_RESOURCE["VolumeSnapshot"]
    with store.cond:
        vs = store.objects.get((key, ns, name))
        if vs is None:
            return
        vs = copy.deepcopy(vs)
        pvc_name = vs["spec"]["source"].get("persistentVolumeClaimName", "")
        pvc = store.objects.get((KIND_TO_RESOURCE["PersistentVolumeClaim"], ns, pvc_name))
        injected = srv.snapshot_error
        if pvc is None or injected:
            vs["status"] = {"readyToUse": False, "error": {
                "time": now_rfc3339(),
                "message": injected or 'Failed to create snapshot: error getting PVC %s/%s: not found'
                % (ns, pvc_name)}}
        else:
            vs["status"] = {"readyToUse": True, "creationTime": now_rfc3339(),
                            "boundVolumeSnapshotContentName": "snapcontent-" + vs["metadata"]["uid"],
                            "restoreSize": pvc["spec"]["resources"]["requests"]["storage"]}
        store.put(key, ns, vs, "MODIFIED")


def finish_workload(srv, kind, ns, name, code):
    """The pods of a Job or MPIJob end with exit code `code`; the workload is Complete/Succeeded
    or Failed. Returns the workload, None when it is gone."""
    store = srv.store
    key = KIND_TO_RESOURCE[kind]
    now = now_rfc3339()
    with store.cond:
        obj = store.objects.get((key, ns, name))
        if obj is None:
            return None
        for _, pod in dependents(store, obj["metadata"]["uid"]):
            if pod.get("kind") == "Pod":
                store.put(POD_KEY, ns, finished_pod(pod, code, now), "MODIFIED")
        st = copy.deepcopy(obj)
        ok = code == 0
        if kind == "Job":
            st["status"] = {"startTime": (obj.get("status") or {}).get("startTime", now), "active": 0, "ready": 0,
                            "succeeded" if ok else "failed": 1, "conditions": [{
                                "type": "Complete" if ok else "Failed", "status": "True",
                                "reason": "" if ok else "BackoffLimitExceeded",
                                "message": "" if ok else "Job has reached the specified backoff limit",
                                "lastProbeTime": now, "lastTransitionTime": now}]}
            if ok:
                st["status"]["completionTime"] = now
        else:
            conds = [dict(c, status="False") if c["type"] == "Running" else c
                     for c in (obj.get("status") or {}).get("conditions", [])]
            conds.append({"type": "Succeeded" if ok else "Failed", "status": "True",
                          "reason": kind + ("Succeeded" if ok else "Failed"),
                          "message": "%s %s/%s %s." % (kind, ns, name, "successfully completed" if ok else "has failed"),
                          "lastTransitionTime": now, "lastUpdateTime": now})
            st["status"] = dict(obj.get("status") or {}, conditions=conds, completionTime=now)
        store.put(key, ns, st, "MODIFIED")
        emit_event(store, ns, st, "Completed" if ok else "BackoffLimitExceeded",
                   "Job completed" if ok else "Job has reached the specified backoff limit",
                   "job-controller", "Normal" if ok else "Warning")
        kai_pass(srv)
        return copy.deepcopy(st)


def finished_pod(pod, code, now):
    pod = copy.deepcopy(pod)
    st = pod["status"]
    st["phase"] = "Succeeded" if code == 0 else "Failed"
    for c in st.get("containerStatuses", []):
        started = (c.get("state", {}).get("running") or {}).get("startedAt", now)
        c.update(ready=False, started=False, state={"terminated": {
            "exitCode": code, "reason": "Completed" if code == 0 else "Error", "startedAt": started,
            "finishedAt": now}})
    st["conditions"] = [dict(c, status="False", reason="PodCompleted") if c["type"] in ("Ready", "ContainersReady")
                        else c for c in st.get("conditions", [])]
    return pod


class GarbageCollector:
    """Deletes dependents (ownerReferences). Foreground deletion keeps the owner, with
    deletionTimestamp and the foregroundDeletion finalizer, until its dependents are gone; a pod
    takes srv.termination_seconds to terminate."""

    def __init__(self, srv):
        self.srv = srv

    def cascade(self, uid, policy):
        """Background deletion: the dependents go now (lock held)."""
        if policy == "Orphan":
            return
        store = self.srv.store
        for (k, n, name), o in dependents(store, uid):
            if (k, n, name) in store.objects:
                self.cascade(o["metadata"]["uid"], policy)
                store.put(k, n, copy.deepcopy(o), "DELETED")

    def mark(self, key, ns, obj, finalizer):
        store = self.srv.store
        obj = copy.deepcopy(obj)
        meta = obj["metadata"]
        if "deletionTimestamp" not in meta:
            meta["deletionTimestamp"] = now_rfc3339()
            meta["deletionGracePeriodSeconds"] = 0
        if finalizer and finalizer not in meta.setdefault("finalizers", []):
            meta["finalizers"].append(finalizer)
        store.put(key, ns, obj, "MODIFIED")
        return obj

    def delete_foreground(self, key, ns, obj):
        """(lock held) Marks obj and its dependents; returns obj as marked."""
        store = self.srv.store
        marked = self.mark(key, ns, obj, "foregroundDeletion")
        for (k, n, _), dep in dependents(store, obj["metadata"]["uid"]):
            if dependents(store, dep["metadata"]["uid"]):
                self.delete_foreground(k, n, dep)
            elif "deletionTimestamp" not in dep["metadata"]:
                self.mark(k, n, dep, None)
        threading.Timer(self.srv.termination_seconds, self.sweep).start()
        return copy.deepcopy(marked)

    def sweep(self):
        """Terminated dependents go; then each owner in foreground deletion with none left."""
        store = self.srv.store
        with store.cond:
            for (k, n, name), o in list(store.objects.items()):
                meta = o["metadata"]
                if "deletionTimestamp" in meta and not meta.get("finalizers"):
                    store.put(k, n, copy.deepcopy(o), "DELETED")
            removed = True
            while removed:
                removed = False
                for (k, n, name), o in list(store.objects.items()):
                    meta = o["metadata"]
                    if meta.get("finalizers") == ["foregroundDeletion"] and not dependents(store, meta["uid"]):
                        store.put(k, n, copy.deepcopy(o), "DELETED")
                        removed = True
            kai_pass(self.srv)


def owner(obj):
    return [{"apiVersion": obj["apiVersion"], "kind": obj["kind"], "name": obj["metadata"]["name"],
             "uid": obj["metadata"]["uid"], "controller": True, "blockOwnerDeletion": True}]


def pod_from_template(ns, name, tmpl, labels, owners, node):
    spec = copy.deepcopy(tmpl.get("spec", {}))
    spec["nodeName"] = node
    n = next(POD_IPS)
    ip = "10.244.%d.%d" % (n // 250, n % 250 + 2)
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": ns, "uid": str(uuid.uuid4()), "labels": labels,
                         "annotations": dict(tmpl.get("metadata", {}).get("annotations", {})),
                         "ownerReferences": owners, "creationTimestamp": now_rfc3339()},
            "spec": spec,
            "status": {"phase": "Running", "hostIP": "10.240.0.4", "startTime": now_rfc3339(),
                       "podIP": ip, "podIPs": [{"ip": ip}], "qosClass": "BestEffort",
                       "conditions": [{"type": t, "status": "True", "lastProbeTime": None,
                                       "lastTransitionTime": now_rfc3339()}
                                      for t in ("PodScheduled", "Initialized", "ContainersReady", "Ready")],
                       "containerStatuses": [{"name": c["name"], "ready": True, "restartCount": 0,
                                              "image": c.get("image", ""), "imageID": "",
                                              "state": {"running": {"startedAt": now_rfc3339()}}}
                                             for c in spec.get("containers", [])]}}


def mpijob_pods(job, workers):
    ns = job["metadata"]["namespace"]
    name = job["metadata"]["name"]
    specs = job["spec"]["mpiReplicaSpecs"]
    base = {"training.kubeflow.org/operator-name": "mpi-operator", "training.kubeflow.org/job-name": name}
    pods = []
    if "Launcher" in specs:
        lt = specs["Launcher"]["template"]
        pods.append(pod_from_template(
            ns, "%s-launcher-%s" % (name, uuid.uuid4().hex[:5]), lt,
            dict(lt.get("metadata", {}).get("labels", {}), **base, **{"training.kubeflow.org/job-role": "launcher"}),
            owner(job), "aks-agentpool-34613062-vmss000000"))
    wt = specs["Worker"]["template"]
    for i in range(workers):
        pods.append(pod_from_template(
            ns, "%s-worker-%d" % (name, i), wt,
            dict(wt.get("metadata", {}).get("labels", {}), **base,
                 **{"training.kubeflow.org/job-role": "worker", "training.kubeflow.org/replica-index": str(i)}),
            owner(job), "aks-gpupool-34613062-vmss%06d" % (i % 3)))
    return pods


def pytorchjob_pods(job):
    """The training operator's pods: <name>-master-0 and <name>-worker-<i>, labelled with the job
    name, replica type and index (job-role master on the master)."""
    ns, name = job["metadata"]["namespace"], job["metadata"]["name"]
    specs = job["spec"]["pytorchReplicaSpecs"]
    pods = []
    for rtype in ("Master", "Worker"):
        if rtype not in specs:
            continue
        tmpl = specs[rtype]["template"]
        for i in range(specs[rtype].get("replicas", 1)):
            labels = dict(tmpl.get("metadata", {}).get("labels", {}), **{
                "training.kubeflow.org/operator-name": "pytorchjob-controller",
                "training.kubeflow.org/job-name": name, "training.kubeflow.org/replica-type": rtype.lower(),
                "training.kubeflow.org/replica-index": str(i)})
            if rtype == "Master":
                labels["training.kubeflow.org/job-role"] = "master"
            pods.append(pod_from_template(ns, "%s-%s-%d" % (name, rtype.lower(), i), tmpl, labels, owner(job),
                                          "aks-gpupool-34613062-vmss%06d" % (len(pods) % 3)))
    return pods


def mpijob_template(ns, name, project, workers):
    container = {"name": "mpi", "image": "registry.example.com/scnn-train:1.0",
                 "resources": {"limits": {"nvidia.com/gpu": "1"}}}
    return {"apiVersion": "kubeflow.org/v2beta1", "kind": "MPIJob",
            "metadata": {"name": name, "namespace": ns,
                         "labels": {"kai.scheduler/queue": project, "project": project, "app": "lanectl"},
                         "annotations": {"user": "bench"}},
            "spec": {"slotsPerWorker": 1, "runPolicy": {"cleanPodPolicy": "Running"},
                     "mpiReplicaSpecs": {
                         "Launcher": {"replicas": 1, "template": {"spec": {"containers": [
                             {"name": "mpi", "image": container["image"]}]}}},
                         "Worker": {"replicas": workers, "template": {"spec": {"containers": [container]}}}}},
            "status": {"conditions": [{"type": "Running", "status": "True", "reason": "MPIJobRunning"}]}}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--schemas", required=True)
    ap.add_argument("--cert")
    ap.add_argument("--key")
    ap.add_argument("--token")
    ap.add_argument("--port", type=int, default=0)
    args = ap.parse_args()
    srv = Server(("127.0.0.1", args.port), Schemas(args.schemas), args.token)
    if args.cert:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(args.cert, args.key)
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    sys.stdout.write("PORT %d\n" % srv.server_address[1])
    sys.stdout.flush()
    try:
        srv.serve_forever(poll_interval=0.1)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()

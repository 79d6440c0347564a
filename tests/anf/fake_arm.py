#!/usr/bin/python3
"""A stand-in for Azure Resource Manager (Microsoft.NetApp, api-version 2025-12-01), the Entra
token endpoint and the two Kubernetes reads lanectl needs (PVC, PV), on 127.0.0.1.

Resource bodies are built from the official examples in tests/data/anf-examples (loaded at start,
ids substituted). Mutations are long-running operations that answer 201/202 and need several
polls (Azure-AsyncOperation for volume PUT, Location otherwise). /_test/* endpoints let a test
inject faults (429 with Retry-After, 5xx, operation failure), expire tokens and read the state.
Usage: fake_arm.py EXAMPLES_DIR  → prints "PORT <n>" on stdout once listening.
"""
import copy, json, sys, threading, time, urllib.parse, uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

API = "2025-12-01"
EX = sys.argv[1]
SUB = "00000000-0000-0000-0000-000000000000"
ACC = f"/subscriptions/{SUB}/resourceGroups/myRG/providers/Microsoft.NetApp/netAppAccounts/account1"


def example(name, status="200"):
    with open(f"{EX}/{name}.json") as f:
        return json.load(f)["responses"][status]["body"]


LOCK = threading.Lock()
S = {
    "client_id": "11111111-2222-3333-4444-555555555555", "client_secret": "", "tenant": "tenant-1",
    "tokens": set(), "token_lifetime": 3599, "token_requests": 0,
    "polls": 2, "fail_next_op": None, "faults": [], "requests": [],
    "pools": {}, "volumes": {}, "snapshots": {}, "ops": {}, "kube": {}, "clock": 0,
}


def make_pool(name, level, size=4398046511104, qos="Manual", encryption=None):
    p = copy.deepcopy(example("Pools_Get"))
    p["id"] = f"{ACC}/capacityPools/{name}"
    p["name"] = f"account1/{name}"
    p["properties"].update({"serviceLevel": level, "size": size, "qosType": qos, "poolId": str(uuid.uuid4())})
    if encryption:
        p["properties"]["encryptionType"] = encryption
    return p


def volume_body(pool, name, props_over=None, location="eastus"):
    v = copy.deepcopy(example("Volumes_Get"))
    v["id"] = f"{ACC}/capacityPools/{pool}/volumes/{name}"
    v["name"] = f"account1/{pool}/{name}"
    v["location"] = location
    v["properties"]["fileSystemId"] = str(uuid.uuid4())
    v["properties"]["serviceLevel"] = S["pools"][pool]["properties"]["serviceLevel"]
    if props_over:
        v["properties"].update(props_over)
    return v


def reset(body):
    S.update({"faults": [], "requests": [], "snapshots": {}, "ops": {}, "kube": {}, "fail_next_op": None,
              "tokens": set(), "token_requests": 0, "polls": body.get("polls", 2), "clock": 0})
    S["client_secret"] = body["client_secret"]
    S["pools"] = {"pool1": make_pool("pool1", "Premium")}
    for extra in body.get("pools", []):
        S["pools"][extra["name"]] = make_pool(extra["name"], extra["serviceLevel"], extra.get("size", 4398046511104),
                                              extra.get("qosType", "Auto"), extra.get("encryptionType"))
    v = copy.deepcopy(example("Volumes_Get"))  # volume1 in pool1, as in the example
    S["volumes"] = {v["id"]: v}
    for extra in body.get("volumes", []):
        nv = volume_body(extra["pool"], extra["name"], extra.get("properties"))
        S["volumes"][nv["id"]] = nv


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def reply(self, status, body=None, headers=None):
        data = b"" if body is None else json.dumps(body).encode()
        self.send_response(status)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        if data:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def arm_error(self, status, code, message, headers=None):
        self.reply(status, {"error": {"code": code, "message": message}}, headers)

    def base(self):
        return f"http://127.0.0.1:{self.server.server_port}"

    def do_GET(self): self.handle_any("GET")
    def do_PUT(self): self.handle_any("PUT")
    def do_POST(self): self.handle_any("POST")
    def do_DELETE(self): self.handle_any("DELETE")

    def handle_any(self, method):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b""
        url = urllib.parse.urlsplit(self.path)
        query = dict(urllib.parse.parse_qsl(url.query))
        with LOCK:
            if url.path.startswith("/_test/"):
                return self.control(url.path, json.loads(raw or b"null"))
            if url.path.endswith("/oauth2/v2.0/token") and method == "POST":
                return self.token(url.path, raw)
            if url.path.startswith("/api/v1/"):
                obj = S["kube"].get(url.path)
                return self.reply(200, obj) if obj else self.reply(404, {"kind": "Status", "code": 404, "reason": "NotFound"})
            S["requests"].append({"method": method, "path": url.path, "query": url.query})
            auth = self.headers.get("Authorization", "")
            if not auth.startswith("Bearer ") or auth[7:] not in S["tokens"]:
                return self.arm_error(401, "ExpiredAuthenticationToken",
                                      "The access token expiry UTC time is earlier than current UTC time.")
            for f in S["faults"]:
                if f["times"] > 0 and f.get("method", method) == method and f.get("path_contains", "") in url.path:
                    f["times"] -= 1
                    hdr = {"Retry-After": str(f["retry_after"])} if "retry_after" in f else {}
                    return self.arm_error(f["status"], f.get("code", "TooManyRequests"),
                                          f.get("message", "Rate limit exceeded for this endpoint - try again later"), hdr)
            if query.get("api-version") != API:
                return self.arm_error(400, "InvalidApiVersionParameter",
                                      f"The api-version '{query.get('api-version')}' is invalid. The supported versions are '{API}'.")
            body = json.loads(raw) if raw else None
            return self.arm(method, url.path, body)

    # --- Entra ID ---------------------------------------------------------------------------
    def token(self, path, raw):
        S["token_requests"] += 1
        form = dict(urllib.parse.parse_qsl(raw.decode()))
        tenant = path.split("/")[1]
        if tenant != S["tenant"]:
            return self.reply(400, {"error": "invalid_request", "error_description": f"AADSTS90002: Tenant '{tenant}' not found."})
        if form.get("grant_type") != "client_credentials" or form.get("scope") != "https://management.azure.com/.default":
            return self.reply(400, {"error": "invalid_scope", "error_description": "AADSTS70011: bad grant_type or scope"})
        if form.get("client_id") != S["client_id"] or form.get("client_secret") != S["client_secret"]:
            return self.reply(401, {"error": "invalid_client",
                                    "error_description": "AADSTS7000215: Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID.",
                                    "error_codes": [7000215]})
        tok = "tok-" + uuid.uuid4().hex
        S["tokens"].add(tok)
        return self.reply(200, {"token_type": "Bearer", "expires_in": S["token_lifetime"], "access_token": tok})

    # --- control ----------------------------------------------------------------------------
    def control(self, path, body):
        if path == "/_test/reset":
            reset(body)
        elif path == "/_test/faults":
            S["faults"].extend(body)
        elif path == "/_test/expire_tokens":
            S["tokens"].clear()
        elif path == "/_test/fail_next_op":
            S["fail_next_op"] = body
        elif path == "/_test/kube":
            S["kube"].update(body)
        elif path == "/_test/pool_size":
            S["pools"][body["name"]]["properties"]["size"] = body["size"]
        return self.reply(200, {"requests": S["requests"], "token_requests": S["token_requests"],
                                "volumes": sorted(S["volumes"]), "snapshots": sorted(S["snapshots"]),
                                "pools": {k: v["properties"]["serviceLevel"] for k, v in S["pools"].items()}})

    # --- ARM --------------------------------------------------------------------------------
    def new_op(self, apply, kind="location", result=None):
        op = uuid.uuid4().hex
        fail = S["fail_next_op"]
        S["fail_next_op"] = None
        S["ops"][op] = {"polls": S["polls"], "apply": apply, "fail": fail, "result": result, "done": False}
        root = f"{self.base()}/subscriptions/{SUB}/providers/Microsoft.NetApp/locations/eastus"
        if kind == "async":
            return {"Azure-AsyncOperation": f"{root}/operationStatuses/{op}?api-version={API}", "Retry-After": "0"}
        return {"Location": f"{root}/operationResults/{op}?api-version={API}&operationResultResponseType=Location",
                "Retry-After": "0"}

    def poll(self, kind, op_id):
        op = S["ops"].get(op_id)
        if not op:
            return self.arm_error(404, "OperationNotFound", "operation not found")
        if op["polls"] > 0:
            op["polls"] -= 1
            if kind == "operationStatuses":
                return self.reply(200, {"id": op_id, "name": op_id, "status": "InProgress", "percentComplete": 50}, {"Retry-After": "0"})
            return self.reply(202, None, {"Location": self.base() + self.path, "Retry-After": "0"})
        if op["fail"]:
            if kind == "operationStatuses":
                return self.reply(200, {"id": op_id, "name": op_id, "status": "Failed", "error": op["fail"]})
            return self.reply(400, {"error": op["fail"]})
        if not op["done"]:
            op["apply"]()
            op["done"] = True
        if kind == "operationStatuses":
            return self.reply(200, {"id": op_id, "name": op_id, "status": "Succeeded", "percentComplete": 100})
        return self.reply(200, op["result"]() if op["result"] else None)

    def arm(self, method, path, body):
        parts = path.strip("/").split("/")
        if "operationResults" in parts or "operationStatuses" in parts:
            return self.poll(parts[-2], parts[-1])
        if not path.startswith(ACC):
            return self.arm_error(404, "ResourceNotFound", f"The Resource '{path}' was not found.")
        rest = path[len(ACC):].strip("/").split("/")
        if rest == ["capacityPools"] and method == "GET":
            return self.reply(200, {"value": [S["pools"][k] for k in sorted(S["pools"])]})
        if len(rest) < 2 or rest[0] != "capacityPools" or rest[1] not in S["pools"]:
            return self.arm_error(404, "ParentResourceNotFound", "Can not perform requested operation on nested resource. Parent resource not found.")
        pool = rest[1]
        if len(rest) == 2 and method == "GET":
            return self.reply(200, S["pools"][pool])
        if rest[2:] == ["volumes"] and method == "GET":
            vols = [v for k, v in sorted(S["volumes"].items()) if k.startswith(f"{ACC}/capacityPools/{pool}/volumes/")]
            if len(vols) > 1:  # page the list to exercise nextLink
                return self.reply(200, {"value": vols[:1], "nextLink": f"{self.base()}{path}?api-version={API}&page=2"}) \
                    if "page=2" not in self.path else self.reply(200, {"value": vols[1:]})
            return self.reply(200, {"value": vols})
        vol_id = f"{ACC}/capacityPools/{pool}/volumes/{rest[3]}" if len(rest) >= 4 else None
        if len(rest) == 4:
            return self.volume(method, vol_id, pool, rest[3], body)
        if vol_id not in S["volumes"]:
            return self.arm_error(404, "ResourceNotFound", f"The requested volume was not found.")
        if len(rest) == 5 and method == "POST":
            return self.action(rest[4], vol_id, body)
        if rest[4] == "snapshots" and len(rest) == 5 and method == "GET":
            snaps = [s for k, s in sorted(S["snapshots"].items()) if k.startswith(vol_id + "/snapshots/")]
            return self.reply(200, {"value": snaps})
        if rest[4] == "snapshots" and len(rest) == 6:
            return self.snapshot(method, vol_id, rest[5], body)
        return self.arm_error(400, "BadRequest", "unsupported request")

    def volume(self, method, vol_id, pool, name, body):
        if method == "GET":
            v = S["volumes"].get(vol_id)
            return self.reply(200, v) if v else self.arm_error(404, "ResourceNotFound", "The requested volume was not found.")
        if method == "PUT":
            p = (body or {}).get("properties", {})
            for field in ("creationToken", "subnetId", "usageThreshold"):
                if field not in p:
                    return self.arm_error(400, "InvalidRequestContent", f"The request content was invalid: property '{field}' is required.")
            if any(v["properties"]["creationToken"] == p["creationToken"] for v in S["volumes"].values()):
                return self.arm_error(409, "Conflict", "File path already in use.")
            if "snapshotId" in p and p["snapshotId"] not in S["snapshots"]:
                return self.arm_error(404, "ResourceNotFound", "The requested snapshot was not found.")
            nv = volume_body(pool, name, {"creationToken": p["creationToken"], "subnetId": p["subnetId"],
                                          "usageThreshold": p["usageThreshold"], "provisioningState": "Succeeded",
                                          "snapshotId": p.get("snapshotId"), "originatingResourceId": p.get("snapshotId")},
                             body.get("location", "eastus"))
            creating = copy.deepcopy(nv)
            creating["properties"]["provisioningState"] = "Creating"
            def apply():
                S["volumes"][vol_id] = nv
            return self.reply(201, creating, self.new_op(apply, "async"))
        if method == "DELETE":
            if vol_id not in S["volumes"]:
                return self.reply(204)
            return self.reply(202, None, self.new_op(lambda: S["volumes"].pop(vol_id, None)))
        return self.arm_error(400, "BadRequest", "unsupported")

    def snapshot(self, method, vol_id, name, body):
        sid = f"{vol_id}/snapshots/{name}"
        if method == "GET":
            s = S["snapshots"].get(sid)
            return self.reply(200, s) if s else self.arm_error(404, "ResourceNotFound", "The requested snapshot was not found.")
        if method == "PUT":
            if sid in S["snapshots"]:
                return self.arm_error(409, "Conflict", "Name already in use.")
            if (body or {}).get("location") != S["volumes"][vol_id]["location"]:
                return self.arm_error(400, "BadRequest", "The property: Location for Snapshot must be the same as Volume")
            s = copy.deepcopy(example("Snapshots_Get"))
            S["clock"] += 1
            s["id"] = sid
            parts = sid.split("/")
            s["name"] = f"account1/{parts[-5]}/{parts[-3]}/{parts[-1]}"
            s["properties"]["snapshotId"] = str(uuid.uuid4())
            s["properties"]["created"] = "2026-01-01T00:%02d:%02dZ" % (S["clock"] // 60, S["clock"] % 60)
            def apply():
                S["snapshots"][sid] = s
            return self.reply(202, None, self.new_op(apply))
        if method == "DELETE":
            if sid not in S["snapshots"]:
                return self.reply(204)
            return self.reply(202, None, self.new_op(lambda: S["snapshots"].pop(sid, None)))
        return self.arm_error(400, "BadRequest", "Patch operation is not supported for this resource type.")

    def action(self, action, vol_id, body):
        if action == "revert":
            snap = (body or {}).get("snapshotId", "")
            if snap not in S["snapshots"] or not snap.startswith(vol_id + "/"):
                return self.arm_error(404, "ResourceNotFound", "The requested snapshot was not found.")
            created = S["snapshots"][snap]["properties"]["created"]
            def apply():
                for k in [k for k, s in S["snapshots"].items()
                          if k.startswith(vol_id + "/") and s["properties"]["created"] > created]:
                    del S["snapshots"][k]
            return self.reply(202, None, self.new_op(apply))
        if action == "poolChange":
            target = (body or {}).get("newPoolResourceId", "")
            tp = target.rsplit("/", 1)[-1]
            if tp not in S["pools"]:
                return self.arm_error(404, "ResourceNotFound", f"Pool '{tp}' not available or does not exit")
            if vol_id.split("/")[-3] == tp:
                return self.arm_error(400, "BadRequest", "Cannot change the volume's pool because the selected pool is the same as the existing pool")
            def apply():
                v = S["volumes"].pop(vol_id)
                name = vol_id.rsplit("/", 1)[-1]
                v["id"] = f"{ACC}/capacityPools/{tp}/volumes/{name}"
                v["name"] = f"account1/{tp}/{name}"
                v["properties"]["serviceLevel"] = S["pools"][tp]["properties"]["serviceLevel"]
                S["volumes"][v["id"]] = v
                for k in [k for k in S["snapshots"] if k.startswith(vol_id + "/")]:
                    s = S["snapshots"].pop(k)
                    s["id"] = v["id"] + "/snapshots/" + k.rsplit("/", 1)[-1]
                    S["snapshots"][s["id"]] = s
            return self.reply(202, None, self.new_op(apply))
        return self.arm_error(400, "BadRequest", f"unknown action {action}")


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(f"PORT {server.server_port}", flush=True)
server.serve_forever()

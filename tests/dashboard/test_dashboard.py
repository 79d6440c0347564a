#!/usr/bin/env python3
"""End-to-end test of `lanectl dashboard` (standard library only).

Starts the real lanectl with its own LANECTL_HOME (local backend), submits a job with the CLI and
checks the HTTP surface: the embedded page, the JSON API (secrets masked), the event stream
delivering the new job within 2 s, read-only (405), the loopback Host check, the token beyond
loopback (401 / 200 / cookie), SIGTERM, and the --listen usage error; another local user is refused
on loopback (peer); the limits: the event stream cap (503), idle connections closed, the tail of a
200 MB log reading its end only (limits).

  test_dashboard.py --lanectl PATH [CASE...]    (cases: see CASES below; default all)
"""
import argparse
import http.client
import json
import os
import pathlib
import queue
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

SECRET = "s3cr3t-api-token"


class Env:
    def __init__(self, lanectl):
        self.lanectl = lanectl
        self.home = tempfile.mkdtemp(prefix="lanectl-dash-")
        self.env = dict(os.environ, LANECTL_HOME=self.home, LANECTL_BACKEND="local", LANECTL_GRACE_SECONDS="2",
                        OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_plm_rsh_agent="")
        self.procs = []

    def run(self, *args, timeout=60):
        return subprocess.run([self.lanectl, *args], env=self.env, capture_output=True, text=True, timeout=timeout)

    def start_dashboard(self, *args):
        """Starts `lanectl dashboard ARGS`; returns (process, port, stderr lines so far)."""
        p = subprocess.Popen([self.lanectl, "dashboard", *args], env=self.env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        self.procs.append(p)
        line = read_line(p.stdout, 10)
        if not line.startswith("Dashboard: http://"):
            p.kill()
            raise AssertionError(f"no 'Dashboard: URL' line on stdout: {line!r}; stderr: {p.stderr.read()!r}")
        port = int(line.strip().rstrip("/").rsplit(":", 1)[1])
        return p, port

    def close(self):
        for p in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        self.run("delete", "--all", "-p", "default")
        shutil.rmtree(self.home, ignore_errors=True)


def read_line(stream, timeout):
    q = queue.Queue()
    threading.Thread(target=lambda: q.put(stream.readline()), daemon=True).start()
    try:
        return q.get(timeout=timeout)
    except queue.Empty:
        raise AssertionError(f"nothing read within {timeout}s")


def request(port, method, path, headers=None, body=None, host="127.0.0.1"):
    c = http.client.HTTPConnection(host, port, timeout=10)
    c.request(method, path, body=body, headers=headers or {})
    r = c.getresponse()
    data = r.read().decode("utf-8", "replace")
    c.close()
    return r.status, r.getheader("Content-Type", ""), data, r


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def wait_for(what, fn, timeout=15):
    """fn()'s first truthy value, polled every 0.2 s; AssertionError naming `what` after `timeout` s."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = fn()
        if last:
            return last
        time.sleep(0.2)
    raise AssertionError(f"{what}: not within {timeout} s (last: {last!r})")


class EventStream:
    """Reads /api/events on a thread: `event: jobs` (the whole list) and `event: jobs-delta`
    ({upsert, remove} applied to the last list, as the page does); each resulting list goes to a
    queue, with the kind of event that made it in self.kinds."""

    def __init__(self, port, headers=None):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.conn.request("GET", "/api/events", headers=headers or {})
        self.sock = self.conn.sock
        self.resp = self.conn.getresponse()
        self.events = queue.Queue()
        self.kinds = []
        self.jobs = None  # {"project/name": job}
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        event, data = None, []
        try:
            while True:
                line = self.resp.fp.readline()
                if not line:
                    break
                line = line.decode().rstrip("\r\n")
                if line == "":
                    if event == "jobs":
                        self.jobs = {f"{j['project']}/{j['name']}": j for j in json.loads("\n".join(data))}
                    elif event == "jobs-delta" and self.jobs is not None:
                        delta = json.loads("\n".join(data))
                        self.jobs.update({f"{j['project']}/{j['name']}": j for j in delta["upsert"]})
                        for key in delta["remove"]:
                            self.jobs.pop(key, None)
                    if event in ("jobs", "jobs-delta"):
                        self.kinds.append(event)
                        self.events.put((time.monotonic(), list(self.jobs.values())))
                    event, data = None, []
                elif line.startswith("event:"):
                    event = line[6:].strip()
                elif line.startswith("data:"):
                    data.append(line[5:].lstrip())
        except Exception:
            pass

    def next(self, timeout):
        return self.events.get(timeout=timeout)

    def close(self):
        # Wake the reader blocked on the socket (closing the response alone waits for its lock).
        self.sock.shutdown(socket.SHUT_RDWR)
        self.conn.close()


def case_loopback(env):
    p, port = env.start_dashboard("--listen", "127.0.0.1:0")

    # The embedded page and its assets.
    status, ctype, body, r = request(port, "GET", "/")
    check(status == 200, f"GET / -> {status}")
    check(ctype.startswith("text/html"), f"GET / content type {ctype}")
    check('<main id="view">' in body and 'src="/app.js"' in body and 'src="/jobs.js"' in body,
          "the index page has no view or does not load the router and the Jobs page")
    check("default-src 'self'" in (r.getheader("Content-Security-Policy") or ""), "the page has no CSP")
    status, ctype, body, _ = request(port, "GET", "/app.js")
    check(status == 200 and ctype.startswith("text/javascript") and "jobsFeed.connect" in body, f"GET /app.js -> {status} {ctype}")
    status, ctype, body, _ = request(port, "GET", "/ui.js")
    check(status == 200 and ctype.startswith("text/javascript") and "/events-worker.js" in body, f"GET /ui.js -> {status} {ctype}")
    status, ctype, body, _ = request(port, "GET", "/events-worker.js")  # the page's event stream runs in this worker
    check(status == 200 and ctype.startswith("text/javascript") and 'EventSource("/api/events")' in body,
          f"GET /events-worker.js -> {status} {ctype}")
    status, ctype, body, _ = request(port, "GET", "/jobs.js")
    check(status == 200 and "GPUs Allocated (Requested)" in body and "PODs Running (Pending)" in body,
          f"GET /jobs.js -> {status}: no Run:AI columns")
    status, ctype, _, _ = request(port, "GET", "/style.css")
    check(status == 200 and ctype.startswith("text/css"), f"GET /style.css -> {status} {ctype}")
    # Errors are JSON too: an unknown page, and what the HTTP layer refuses itself (a 20 kB path).
    for path, want in (("/nope.html", 404), ("/api", 404), ("/" + "a" * 20000, 414)):
        status, ctype, body, _ = request(port, "GET", path)
        check(status == want and ctype == "application/json" and json.loads(body)["error"],
              f"GET {path[:20]} -> {status} {ctype} {body[:100]}")

    # The event stream's first event is the (empty) list; a job submitted from the CLI follows within 2 s.
    stream = EventStream(port)
    check(stream.resp.status == 200, f"/api/events -> {stream.resp.status}")
    check(stream.resp.getheader("Content-Type", "").startswith("text/event-stream"), "/api/events is not text/event-stream")
    _, first = stream.next(5)
    check(first == [], f"first event should be the empty jobs list, got {first}")
    sub = env.run("submit", "web-job", "-i", "ubuntu", "-e", "API_TOKEN=" + SECRET, "-e", "PLAIN=visible",
                  "--command", "--", "sh", "-c", "echo hello-from-web-job; sleep 60")
    check(sub.returncode == 0, f"submit failed: {sub.stderr}")
    submitted = time.monotonic()
    deadline = submitted + 2.0
    seen = None
    while time.monotonic() < deadline:
        try:
            at, jobs = stream.next(max(0.01, deadline - time.monotonic()))
        except queue.Empty:
            break
        if any(j["name"] == "web-job" for j in jobs):
            seen = at - submitted
            break
    check(seen is not None, "the event stream did not deliver the submitted job within 2 s")
    check(stream.kinds[0] == "jobs" and stream.kinds[-1] == "jobs-delta",
          f"the stream sends the list on connect, then only changes: {stream.kinds}")
    # A second stream opened now starts with the whole list (with the job).
    second = EventStream(port)
    _, jobs = second.next(5)
    check([j["name"] for j in jobs] == ["web-job"] and second.kinds[0] == "jobs", f"a new stream's first event: {jobs}")
    second.close()
    stream.close()
    print(f"  event stream delivered the new job {seen:.2f} s after submit")

    # The JSON API: the same documents as the CLI's -o json.
    status, ctype, body, _ = request(port, "GET", "/api/jobs")
    check(status == 200 and ctype.startswith("application/json"), f"/api/jobs -> {status} {ctype}")
    jobs = json.loads(body)
    check([j["name"] for j in jobs] == ["web-job"], f"/api/jobs lists {jobs}")
    cli = json.loads(env.run("list", "-A", "-o", "json").stdout or env.run("list", "-o", "json").stdout)["items"]
    check({j["name"] for j in cli} == {"web-job"}, f"lanectl list -o json: {cli}")
    check(set(jobs[0].keys()) == set(cli[0].keys()), "/api/jobs and list -o json have different fields")
    check(json.loads(request(port, "GET", "/api/jobs?project=default")[2])[0]["name"] == "web-job", "?project=default")
    check(request(port, "GET", "/api/jobs?project=other")[0] == 404, "?project=other (no such project) is not 404")
    check(request(port, "GET", "/api/jobs?project=Bad_Name")[0] == 400, "a bad project name is not 400")

    status, _, body, _ = request(port, "GET", "/api/jobs/default/web-job")
    check(status == 200, f"/api/jobs/default/web-job -> {status}")
    check(SECRET not in body, "the job document shows the secret env value")
    doc = json.loads(body)
    env_vars = json.dumps(doc["spec"])
    check("API_TOKEN" in env_vars and "visible" in env_vars, f"the spec lacks its env: {env_vars}")
    desc = json.loads(env.run("describe", "job", "web-job", "-o", "json").stdout)
    check(desc["spec"] == doc["spec"], "the API's spec differs from describe -o json")
    check(request(port, "GET", "/api/jobs/default/no-such-job")[0] == 404, "a missing job is not 404")

    time.sleep(0.5)
    status, ctype, body, _ = request(port, "GET", "/api/jobs/default/web-job/logs?tail=5")
    check(status == 200 and ctype.startswith("text/plain"), f"logs -> {status} {ctype}")
    check(request(port, "GET", "/api/jobs/default/web-job/logs?tail=abc")[0] == 400, "a bad tail is not 400")

    status, _, body, _ = request(port, "GET", "/api/projects")
    check(status == 200 and isinstance(json.loads(body), list), f"/api/projects -> {status} {body}")
    cli_projects = json.loads(env.run("project", "list", "-o", "json").stdout)
    check(json.loads(body) == cli_projects, "/api/projects differs from project list -o json")
    status, _, body, _ = request(port, "GET", "/api/nodes")
    check(status == 200 and isinstance(json.loads(body), list), f"/api/nodes -> {status} {body}")
    check(request(port, "GET", "/api/nope")[0] == 404, "an unknown API path is not 404")
    # An empty part is no path of the API (it used to read as /api/jobs); one trailing '/' is fine.
    for path in ("/api/jobs//", "/api//jobs", "/api/jobs//default"):
        status = request(port, "GET", path)[0]
        check(status in (400, 404), f"{path} -> {status}, not 400 or 404")
    check(request(port, "GET", "/api/jobs/")[0] == 200, "/api/jobs/ is not the job list")
    # An unknown project is 404 (as `lanectl list -p nosuch` is an error), not an empty list.
    status, _, body, _ = request(port, "GET", "/api/jobs?project=nosuch")
    check(status == 404 and "project 'nosuch' does not exist" in body, f"/api/jobs?project=nosuch -> {status} {body}")

    # Read-only.
    for method in ("POST", "PUT", "DELETE", "PATCH"):
        status, _, _, r = request(port, method, "/api/jobs", body="{}")
        check(status == 405 and "GET" in (r.getheader("Allow") or ""), f"{method} /api/jobs -> {status}")
    # A loopback listener answers loopback Host names only (DNS rebinding).
    check(request(port, "GET", "/api/jobs", headers={"Host": "evil.example:80"})[0] == 403, "a foreign Host is not 403")
    check(request(port, "GET", "/api/jobs", headers={"Host": "localhost:%d" % port})[0] == 200, "Host localhost refused")

    # SIGTERM stops it cleanly.
    p.send_signal(signal.SIGTERM)
    try:
        code = p.wait(timeout=5)
    except subprocess.TimeoutExpired:
        raise AssertionError("the dashboard did not stop within 5 s of SIGTERM")
    check(code == 0, f"exit code after SIGTERM: {code}")


def case_token(env):
    # Beyond loopback without --token: one is generated and printed once on stderr.
    p, port = env.start_dashboard("--listen", "0.0.0.0:0")
    line = read_line(p.stderr, 5)
    token = line.strip().rsplit(" ", 1)[-1]
    check(len(token) == 64 and all(c in "0123456789abcdef" for c in token), f"no generated token on stderr: {line!r}")
    check(request(port, "GET", "/api/jobs")[0] == 401, "no token should be 401")
    status, _, body, _ = request(port, "GET", "/")
    check(status == 401 and "needs its token" in body and "/?token=TOKEN" in body,
          f"the page without token: {status} {body}")
    status, _, body, _ = request(port, "GET", "/?token=" + token[:-1] + "x")
    check(status == 401 and "the token in this link is not this dashboard's" in body and token not in body,
          f"a link with a wrong token: {status} {body}")
    check(request(port, "GET", "/api/jobs", {"Authorization": "Bearer " + token[:-1] + "x"})[0] == 401, "a wrong token is not 401")
    for scheme in ("bearer", "BEARER"):  # the scheme is case-insensitive
        check(request(port, "GET", "/api/jobs", {"Authorization": scheme + " " + token})[0] == 200, f"{scheme} refused")
    check(request(port, "POST", "/api/jobs")[0] == 401, "POST without token should be 401")
    check(request(port, "GET", "/api/jobs", {"Authorization": "Bearer " + token})[0] == 200, "the bearer token is refused")
    cookie = f"lanectl_dashboard_token_{port}="
    check(request(port, "GET", "/api/jobs", {"Cookie": "a=b; " + cookie + token})[0] == 200, "the cookie is refused")
    # Another port's cookie (another dashboard of this host) is not this one's.
    check(request(port, "GET", "/api/jobs", {"Cookie": f"lanectl_dashboard_token_{port + 1}=" + token})[0] == 401,
          "another port's token cookie is accepted")
    check(request(port, "POST", "/api/jobs", {"Authorization": "Bearer " + token})[0] == 405, "POST with token is not 405")
    status, _, _, r = request(port, "GET", "/?token=" + token)
    check(status == 303 and (r.getheader("Set-Cookie") or "").startswith(cookie + token + ";") and "HttpOnly" in r.getheader("Set-Cookie"),
          f"?token= should set the cookie: {status}")
    check(r.getheader("Location") == "/", f"?token= should redirect to the path without the token: {r.getheader('Location')}")
    status, _, _, r = request(port, "GET", "//evil.example/x?token=" + token)
    check(status == 303 and r.getheader("Location") == "/", f"an open redirect: {status} {r.getheader('Location')}")
    p.send_signal(signal.SIGINT)
    check(p.wait(timeout=5) == 0, "SIGINT did not stop the dashboard cleanly")
    rest = p.stderr.read()
    check(token not in rest, "the token was printed more than once")

    # A given token; also required on loopback when given.
    p, port = env.start_dashboard("--listen", "127.0.0.1:0", "--token", "given-token-123")
    check(request(port, "GET", "/api/jobs")[0] == 401, "a given token is not required")
    check(request(port, "GET", "/api/jobs", {"Authorization": "Bearer given-token-123"})[0] == 200, "the given token is refused")
    p.send_signal(signal.SIGTERM)
    p.wait(timeout=5)
    check("given-token-123" not in p.stdout.read() + p.stderr.read(), "the given token was printed")

    # The token from the environment (kept out of `ps`), beyond loopback: nothing generated.
    env.env["LANECTL_DASHBOARD_TOKEN"] = "env-token-456"
    p, port = env.start_dashboard("--listen", "0.0.0.0:0")
    check(request(port, "GET", "/api/jobs")[0] == 401, "the environment's token is not required")
    check(request(port, "GET", "/api/jobs", {"Authorization": "Bearer env-token-456"})[0] == 200, "the environment's token is refused")
    p.send_signal(signal.SIGTERM)
    check(p.wait(timeout=5) == 0, "SIGTERM did not stop the dashboard cleanly")
    check(p.stderr.read() == "", "something (a generated token?) was printed on stderr")
    r = env.run("dashboard", "--listen", "127.0.0.1:0", "--token", "two words")
    check(r.returncode == 2 and "--token" in r.stderr, f"a bad --token: exit {r.returncode} {r.stderr!r}")


def case_usage(env):
    for bad in ("8080", "localhost:99999", "127.0.0.1:http", "::1:80", ":80"):
        r = env.run("dashboard", "--listen", bad)
        check(r.returncode == 2, f"--listen {bad}: exit {r.returncode}")
        check("--listen" in r.stderr and "HOST:PORT" in r.stderr, f"--listen {bad}: {r.stderr!r}")
    # A signal right after the URL is printed (before or while it starts serving) still stops it.
    for sig in (signal.SIGTERM, signal.SIGINT):
        p, _ = env.start_dashboard("--listen", "127.0.0.1:0")
        p.send_signal(sig)
        try:
            check(p.wait(timeout=5) == 0, f"exit code after an early {sig.name}: {p.returncode}")
        except subprocess.TimeoutExpired:
            raise AssertionError(f"an early {sig.name} did not stop the dashboard within 5 s")
    # A port in use: an error (exit 1) naming the address, not a hang.
    p, port = env.start_dashboard("--listen", "127.0.0.1:0")
    try:
        r = env.run("dashboard", "--listen", f"127.0.0.1:{port}", timeout=5)
    except subprocess.TimeoutExpired:
        raise AssertionError("a second dashboard on a port in use started (SO_REUSEPORT?) instead of failing")
    check(r.returncode == 1 and f"127.0.0.1:{port}" in r.stderr, f"a port in use: exit {r.returncode} {r.stderr!r}")
    p.send_signal(signal.SIGTERM)
    check(p.wait(timeout=5) == 0, "SIGTERM did not stop the dashboard cleanly")


class Skip(Exception):
    pass


# A client run as another user (`setpriv`): prints the HTTP status of GET PATH on 127.0.0.1:PORT.
CLIENT = """
import http.client, sys
c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=10)
c.request("GET", sys.argv[2], headers=dict(h.split(": ", 1) for h in sys.argv[3:]))
r = c.getresponse()
print(r.status, r.read().decode()[:300])
"""


def request_as(uid, port, path, *headers):
    # The system's python3: another user may not reach this one (e.g. under /root).
    python = shutil.which("python3", path="/usr/bin:/bin") or sys.executable
    cmd = ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", python, "-c", CLIENT,
           str(port), path, *headers]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=20, cwd="/")
    check(r.returncode == 0, f"the client as uid {uid} failed: {r.stderr}")
    status, _, body = r.stdout.partition(" ")
    return int(status), body


def case_peer(env):
    # Another local user (uid 65534, e.g. another project's job) reaching the loopback dashboard:
    # 401 without the token; the user who started it: 200 without one.
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        raise Skip("needs root and setpriv to run a client as another user")
    p, port = env.start_dashboard("--listen", "127.0.0.1:0")
    for path in ("/api/jobs", "/api/projects", "/api/events", "/"):
        status, body = request_as(65534, port, path)
        check(status == 401 and "serves only the user who started it" in body, f"uid 65534 GET {path} -> {status} {body}")
        check(request(port, "GET", path if path != "/api/events" else "/api/jobs")[0] == 200, f"the own user's GET {path} refused")
    check(request_as(os.geteuid(), port, "/api/jobs")[0] == 200, "the own user's client (through setpriv) refused")
    p.send_signal(signal.SIGTERM)
    check(p.wait(timeout=5) == 0, "SIGTERM did not stop the dashboard cleanly")
    # With a token, another user gets in with it (and not without).
    p, port = env.start_dashboard("--listen", "127.0.0.1:0", "--token", "shared-token-789")
    check(request_as(65534, port, "/api/jobs")[0] == 401, "uid 65534 without the token is not 401")
    check(request_as(65534, port, "/api/jobs", "Authorization: Bearer shared-token-789")[0] == 200,
          "uid 65534 with the token refused")
    p.send_signal(signal.SIGTERM)
    check(p.wait(timeout=5) == 0, "SIGTERM did not stop the dashboard cleanly")


def timed_get(port, path):
    start = time.monotonic()
    status = request(port, "GET", path)[0]
    return status, time.monotonic() - start


def read_chars(pid):
    with open(f"/proc/{pid}/io") as f:
        return int(next(line for line in f if line.startswith("rchar:")).split()[1])


def case_limits(env):
    p, port = env.start_dashboard("--listen", "127.0.0.1:0")
    # 16 event streams are served; the 17th is 503 at once while the API still answers fast.
    streams = [EventStream(port) for _ in range(16)]
    for s in streams:
        check(s.resp.status == 200, f"an event stream within the cap -> {s.resp.status}")
        s.next(10)
    status, _, body, r = request(port, "GET", "/api/events")
    check(status == 503 and "too many open event streams" in body and r.getheader("Retry-After"),
          f"the 17th event stream -> {status} {body}")
    status, took = timed_get(port, "/api/projects")
    check(status == 200 and took < 2, f"/api/projects with 16 streams open: {status} in {took:.2f} s")
    streams.pop().close()  # a closed stream frees its place (noticed at its next write)
    wait_for("a stream after one closed", lambda: request(port, "GET", "/api/jobs")[0] == 200 and
             EventStream(port).resp.status == 200, timeout=20)
    for s in streams:
        s.close()
    # 300 idle connections (nothing sent) and 20 stalled ones (half a request) do not keep the
    # others out; a stalled one is closed after the read timeout.
    idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(300)]
    stalled = [socket.create_connection(("127.0.0.1", port)) for _ in range(20)]
    for s in stalled:
        s.sendall(b"GET /api/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    status, took = timed_get(port, "/api/projects")
    check(status == 200 and took < 2, f"/api/projects with 320 idle connections: {status} in {took:.2f} s")
    print(f"  /api/projects answered in {took:.2f} s with 300 idle and 20 stalled connections open")
    stalled[0].settimeout(15)
    try:
        while stalled[0].recv(4096):  # a 400, then the end
            pass
    except socket.timeout:
        raise AssertionError("a stalled connection was not closed within 15 s")
    for s in idle + stalled:
        s.close()
    # The Log panel's tail of a 200 MB log reads its end, not the file.
    sub = env.run("submit", "big-log", "-i", "ubuntu", "--command", "--", "sh", "-c", "echo done")
    check(sub.returncode == 0, f"submit failed: {sub.stderr}")
    wait_for("the job finished", lambda: json.loads(request(port, "GET", "/api/jobs/default/big-log")[2])["status"] == "Succeeded")
    logs = list(pathlib.Path(env.home).rglob("output.log"))
    check(len(logs) == 1, f"the job's output.log: {logs}")
    with open(logs[0], "r+b") as f:
        f.truncate(200 << 20)  # a sparse hole, then 1000 lines at its end
        f.seek(0, 2)
        f.write(b"".join(b"2026-11-22T00:46:03.123456Z line %d\n" % i for i in range(1000)))
    before = read_chars(p.pid)
    status, _, body, _ = request(port, "GET", "/api/jobs/default/big-log/logs?tail=200")
    read = read_chars(p.pid) - before
    check(status == 200 and body.startswith("line 800\n") and body.endswith("line 999\n"), f"the tail: {status} {body[:80]!r}")
    check(read < 16 << 20, f"the tail of a 200 MB log read {read} bytes")
    print(f"  the tail of a 200 MB log read {read} bytes")
    p.send_signal(signal.SIGTERM)
    check(p.wait(timeout=5) == 0, "SIGTERM did not stop the dashboard cleanly")


CASES = {"loopback": case_loopback, "token": case_token, "usage": case_usage, "peer": case_peer, "limits": case_limits}


def run_cases(cases):
    """The main() of an HTTP test whose cases are {name: fn(env)}: `--lanectl PATH [CASE...]`
    (default: every case), each with its own Env; exit 77 when every case was skipped."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--lanectl", required=True)
    ap.add_argument("cases", nargs="*", default=list(cases))
    args = ap.parse_args()
    failed = skipped = 0
    for name in args.cases:
        env = Env(args.lanectl)
        start = time.monotonic()
        try:
            cases[name](env)
            print(f"ok   {name} ({time.monotonic() - start:.1f} s)")
        except Skip as e:
            skipped += 1
            print(f"skip {name}: {e}")
        except Exception as e:  # noqa: BLE001 - report and go on
            failed += 1
            print(f"FAIL {name}: {e}")
        finally:
            env.close()
    sys.exit(1 if failed else 77 if skipped == len(args.cases) else 0)


if __name__ == "__main__":
    run_cases(CASES)

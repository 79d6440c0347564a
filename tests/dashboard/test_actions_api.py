#!/usr/bin/env python3
"""The dashboard's job actions over HTTP (standard library only): the real `lanectl dashboard`
over a local backend with a real job.

  refused: read-only is the default (405, and /api/session says so); --allow-actions without a
           token is a usage error; with --allow-actions and a token, a suspend without the token,
           without or with a wrong CSRF token, from another session, with a foreign Origin, a
           cross-site Sec-Fetch-Site or no Origin at all is refused, and the job keeps running.
  actions: suspend, resume, resubmit with a changed env / args (a new job, the secret kept), the
           CLI's own errors for a bad -e and -g, then delete; each logged on stderr with who,
           what, which job and the result, and no token anywhere in the output.

  test_actions_api.py --lanectl PATH [CASE...]
"""
import json
import os
import signal

from test_dashboard import check, request, run_cases, wait_for

TOKEN = "actions-test-token-4242"
SECRET = "s3cr3t-kept-on-resubmit"


def status_of(env, name):
    r = env.run("describe", "job", name, "-o", "json")
    return json.loads(r.stdout)["status"] if r.returncode == 0 else None


def submit_sleeper(env, name):
    r = env.run("submit", name, "-i", "ubuntu", "-e", "MODE=a", "-e", "API_TOKEN=" + SECRET, "--command", "--",
                "sh", "-c", "echo MODE=$MODE; echo SAME=$( [ \"$API_TOKEN\" = " + SECRET + " ] && echo yes); sleep 300")
    check(r.returncode == 0, f"submit {name}: {r.stderr}")
    wait_for(f"{name} running", lambda: status_of(env, name) == "Running")


class Client:
    """A client of the dashboard at 127.0.0.1:port with the token (Bearer) and, after open(), a
    session cookie and its CSRF token."""

    def __init__(self, port):
        self.port = port
        self.cookie = ""
        self.csrf = ""

    def open(self):
        status, _, body, r = request(self.port, "GET", "/api/session", {"Authorization": "Bearer " + TOKEN})
        check(status == 200, f"/api/session -> {status} {body}")
        doc = json.loads(body)
        check(doc["actions"] is True and len(doc["csrfToken"]) == 64, f"/api/session: {doc}")
        set_cookie = r.getheader("Set-Cookie") or ""
        check("HttpOnly" in set_cookie and "SameSite=Strict" in set_cookie and
              set_cookie.startswith(f"lanectl_dashboard_session_{self.port}="), f"the session cookie: {set_cookie!r}")
        self.cookie = set_cookie.split(";", 1)[0]
        self.csrf = doc["csrfToken"]
        return self

    def headers(self, **over):
        h = {"Authorization": "Bearer " + TOKEN, "Origin": f"http://127.0.0.1:{self.port}", "Cookie": self.cookie,
             "X-CSRF-Token": self.csrf, "Content-Type": "application/json"}
        for k, v in over.items():
            k = k.replace("_", "-")
            if v is None:
                h.pop(k, None)
            else:
                h[k] = v
        return h

    def post(self, path, body=None, **over):
        status, _, text, _ = request(self.port, "POST", path, self.headers(**over),
                                     body=json.dumps(body) if body is not None else None)
        return status, (json.loads(text) if text.startswith("{") else text)


def case_refused(env):
    submit_sleeper(env, "victim")
    path = "/api/jobs/default/victim/suspend"

    # The default: read-only, even for its own user on loopback; the page is told why.
    p, port = env.start_dashboard("--listen", "127.0.0.1:0")
    status, _, body, r = request(port, "POST", path)
    check(status == 405 and "--allow-actions" in body and r.getheader("Allow") == "GET, HEAD", f"read-only POST -> {status} {body}")
    doc = json.loads(request(port, "GET", "/api/session")[2])
    check(doc["actions"] is False and "--allow-actions" in doc["reason"] and "csrfToken" not in doc, f"/api/session: {doc}")
    p.terminate()
    # --read-only with a token: still 405 with every other guard passed.
    p, port = env.start_dashboard("--listen", "127.0.0.1:0", "--read-only", "--token", TOKEN)
    check(request(port, "POST", path, {"Authorization": "Bearer " + TOKEN, "Origin": f"http://127.0.0.1:{port}"})[0] == 405,
          "--read-only with the token does not refuse POST")
    p.terminate()

    # Actions never without a token, and never with --read-only.
    r = env.run("dashboard", "--listen", "127.0.0.1:0", "--allow-actions")
    check(r.returncode == 2 and "--allow-actions needs a token" in r.stderr, f"--allow-actions without a token: {r.returncode} {r.stderr}")
    r = env.run("dashboard", "--listen", "127.0.0.1:0", "--allow-actions", "--read-only", "--token", TOKEN)
    check(r.returncode == 2, f"--allow-actions --read-only: exit {r.returncode}")

    p, port = env.start_dashboard("--listen", "127.0.0.1:0", "--allow-actions", "--token", TOKEN)
    c = Client(port).open()
    other = Client(port).open()
    check(other.cookie != c.cookie and other.csrf != c.csrf, "two sessions got the same cookie or CSRF token")
    refusals = [
        ("no token", 401, dict(Authorization=None)),
        ("a wrong token", 401, dict(Authorization="Bearer " + TOKEN + "x")),
        ("no CSRF token", 403, dict(X_CSRF_Token=None)),
        ("a wrong CSRF token", 403, dict(X_CSRF_Token=c.csrf[:-1] + ("0" if c.csrf[-1] != "0" else "1"))),
        ("another session's CSRF token", 403, dict(X_CSRF_Token=other.csrf)),
        ("no session cookie", 403, dict(Cookie=None)),
        ("a foreign Origin", 403, dict(Origin="http://evil.example")),
        ("a foreign Origin naming the port", 403, dict(Origin=f"http://evil.example:{port}")),
        ("Sec-Fetch-Site cross-site", 403, dict(Sec_Fetch_Site="cross-site")),
        ("no Origin", 403, dict(Origin=None)),
        ("a foreign Referer", 403, dict(Origin=None, Referer="http://evil.example/")),
    ]
    for what, want, over in refusals:
        status, doc = c.post(path, **over)
        check(status == want, f"a suspend with {what} -> {status} {doc} (wanted {want})")
        check(status_of(env, "victim") == "Running", f"a suspend with {what} suspended the job")
    status, _, body, _ = request(port, "GET", path, c.headers())
    check(status == 404 and status_of(env, "victim") == "Running", f"GET of an action -> {status} {body}")
    status, _, body, _ = request(port, "DELETE", "/api/jobs/default/victim", c.headers())
    check(status == 405 and status_of(env, "victim") == "Running", f"DELETE -> {status} {body}")
    # The same request with every guard passed does suspend it: the refusals were the guards'.
    check(c.post(path, Sec_Fetch_Site="same-origin")[0] == 200, "the guarded suspend itself fails")
    wait_for("victim suspended", lambda: status_of(env, "victim") == "Suspended")
    p.send_signal(signal.SIGTERM)
    p.wait(timeout=10)
    log = p.stderr.read()
    check(log.count("dashboard action suspend job default/victim") == len(refusals) - 2 + 1,
          f"each refused (past the token) and done action is logged:\n{log}")
    for secret in (TOKEN, c.csrf, other.csrf, c.cookie.split("=", 1)[1]):
        check(secret not in log, "a token or session id is in the log")


def case_actions(env):
    submit_sleeper(env, "train-a")
    env.env["LANECTL_DASHBOARD_TOKEN"] = TOKEN
    p, port = env.start_dashboard("--listen", "127.0.0.1:0", "--allow-actions")
    c = Client(port).open()
    base = "/api/jobs/default/train-a"

    status, doc = c.post(base + "/suspend")
    check(status == 200 and doc["message"] == "Job train-a suspended successfully.", f"suspend -> {status} {doc}")
    wait_for("train-a suspended", lambda: status_of(env, "train-a") == "Suspended")
    status, doc = c.post(base + "/suspend")
    check(status == 200 and doc["message"] == "Job train-a is already suspended.", f"suspend again -> {status} {doc}")
    status, doc = c.post(base + "/resume")
    check(status == 200 and doc["message"] == "Job train-a resumed successfully.", f"resume -> {status} {doc}")
    wait_for("train-a running again", lambda: status_of(env, "train-a") == "Running")

    # Resubmit with changes: a new job, MODE changed, the secret shown as **** kept.
    shown = json.loads(request(port, "GET", base, {"Authorization": "Bearer " + TOKEN})[2])["spec"]["env"]
    check({"name": "API_TOKEN", "value": "****"} in shown, f"the page's env: {shown}")
    status, doc = c.post(base + "/resubmit", {"env": ["MODE=b", "API_TOKEN=****"], "gpu": "0"})
    check(status == 201 and doc["name"] == "train-a-1", f"resubmit -> {status} {doc}")
    new = json.loads(env.run("describe", "job", "train-a-1", "-o", "json").stdout)
    check({"name": "MODE", "value": "b"} in new["spec"]["env"] and new["spec"]["image"] == "ubuntu", f"the new job's spec: {new['spec']}")
    wait_for("train-a-1's log", lambda: "SAME=yes" in env.run("logs", "train-a-1").stdout and "MODE=b" in env.run("logs", "train-a-1").stdout)
    status, doc = c.post(base + "/resubmit", {"name": "train-c", "image": "busybox", "args": ["sh", "-c", "echo other; sleep 300"]})
    check(status == 201 and doc["name"] == "train-c", f"resubmit with a name -> {status} {doc}")
    spec = json.loads(env.run("describe", "job", "train-c", "-o", "json").stdout)["spec"]
    check(spec["image"] == "busybox" and spec["command"][-1] == "echo other; sleep 300", f"train-c's spec: {spec}")

    # The CLI's own errors for the same bad values.
    for field, value, flag in (("env", ["BAD NAME=1"], ["-e", "BAD NAME=1"]), ("gpu", "lots", ["-g", "lots"]),
                               ("image", "", ["-i", ""])):
        status, doc = c.post(base + "/resubmit", {field: value})
        cli = env.run("submit", "x-err", *(["-i", "ubuntu"] if field != "image" else []), *flag, "--command", "--", "true")
        check(status == 400 and cli.returncode == 2 and doc["error"] in cli.stderr, f"resubmit {field}={value!r} -> {status} {doc}; CLI: {cli.stderr}")
    check(c.post(base + "/resubmit", {"name": "train-c"})[0] == 400, "a taken name is not 400")
    check(c.post(base + "/resubmit", {"envs": []})[0] == 400, "an unknown field is not 400")
    status, doc = c.post(base + "/resubmit", {"env": ["A=" + "x" * (2 << 20)]})
    check(status == 413 and "at most 1 MiB" in doc["error"], f"a 2 MiB body: {status} {doc}")
    check(c.post("/api/jobs/default/nope/suspend")[0] == 404, "an unknown job is not 404")
    check(c.post(base + "/explode")[0] == 404, "an unknown action is not 404")

    status, doc = c.post(base + "/delete")
    check(status == 200 and doc["message"] == "Job train-a deleted successfully.", f"delete -> {status} {doc}")
    wait_for("train-a gone", lambda: status_of(env, "train-a") is None)
    check(c.post(base + "/delete")[0] == 404, "deleting it again is not 404")

    p.send_signal(signal.SIGTERM)
    p.wait(timeout=10)
    out, log = p.stdout.read(), p.stderr.read()
    uid = os.geteuid()
    for line in ("suspend job default/train-a by uid {u} (session 1): 200 Job train-a suspended successfully.",
                 "resume job default/train-a by uid {u} (session 1): 200 Job train-a resumed successfully.",
                 "resubmit job default/train-a by uid {u} (session 1): 201 The job 'train-a-1' has been submitted successfully",
                 "delete job default/train-a by uid {u} (session 1): 200 Job train-a deleted successfully.",
                 "resubmit job default/train-a by uid {u} (session 1): 400 -e 'BAD NAME=1'"):
        check(" dashboard action " + line.format(u=uid) in log, f"no log line '{line}' in:\n{log}")
    for secret in (TOKEN, c.csrf, SECRET):
        check(secret not in out + log, "a token or secret is in the dashboard's output")
    for name in ("train-a-1", "train-c"):
        env.run("delete", name)


CASES = {"refused": case_refused, "actions": case_actions}


if __name__ == "__main__":
    run_cases(CASES)

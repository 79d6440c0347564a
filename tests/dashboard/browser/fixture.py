"""A lanectl with its own LANECTL_HOME (local backend) and a running `lanectl dashboard`.

    with Lane(lanectl_path) as lane:
        lane.run("submit", "job-a", "-p", "team-a", "-i", "ubuntu", "--command", "--", "sleep", "60")
        url = lane.start_dashboard()          # "http://127.0.0.1:PORT/"
        ...
    # on exit: the dashboard is stopped, every job deleted, the home removed

`Lane(lanectl, env={...})` adds environment variables (e.g. LANECTL_BACKEND=kubernetes and a
KUBECONFIG from `start_apiserver(tmp, namespace)`, the test Kubernetes API server, for the
Kubernetes backend; jobs are deleted on exit only on the local backend).
`screenshot_dir(lanectl)` is where tests write their screenshots (`<build>/dashboard-screenshots`).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from test_dashboard import read_line  # noqa: E402,F401  (the HTTP test's helpers, tests/dashboard)


SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def run_cases(cases):
    """The main() of a browser test whose cases are {name: fn(lanectl, out)}: `--lanectl PATH
    [--out DIR] [CASE...]` (default: every case); exit 77 (skipped) without Chromium."""
    from chromium import require_chromium
    ap = argparse.ArgumentParser()
    ap.add_argument("--lanectl", required=True)
    ap.add_argument("--out", default=os.path.join(tempfile.gettempdir(), "dashboard-screenshots"))
    ap.add_argument("cases", nargs="*", default=list(cases))
    args = ap.parse_args()
    require_chromium()
    os.makedirs(args.out, exist_ok=True)
    for name in args.cases:
        started = time.monotonic()
        cases[name](args.lanectl, args.out)
        print(f"  ({name}: {time.monotonic() - started:.1f} s)")


def start_apiserver(tmp, namespace):
    """Starts the test Kubernetes API server (tests/kube/fake_apiserver.py) and writes a kubeconfig
    for it in tmp (default namespace `namespace`); returns (process, port, kubeconfig path)."""
    schemas = os.path.join(SOURCE, "tests", "data", "k8s-schemas")
    server = subprocess.Popen([sys.executable, os.path.join(SOURCE, "tests", "kube", "fake_apiserver.py"),
                               "--schemas", schemas], stdout=subprocess.PIPE, text=True)
    line = read_line(server.stdout, 30)
    if not line.startswith("PORT "):
        server.kill()
        raise AssertionError(f"the test API server printed {line!r} (python3-jsonschema, python3-yaml installed?)")
    port = int(line.split()[1])
    kubeconfig = os.path.join(tmp, "kubeconfig")
    with open(kubeconfig, "w") as f:
        f.write("apiVersion: v1\nkind: Config\ncurrent-context: t\nclusters:\n- name: t\n"
                f"  cluster: {{server: 'http://127.0.0.1:{port}'}}\nusers:\n- name: u\n  user: {{}}\n"
                f"contexts:\n- name: t\n  context: {{cluster: t, user: u, namespace: {namespace}}}\n")
    return server, port, kubeconfig


def screenshot_dir(lanectl):
    """<build>/dashboard-screenshots for a lanectl at <build>/bin/lanectl (created)."""
    d = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(lanectl))), "dashboard-screenshots")
    os.makedirs(d, exist_ok=True)
    return d


class Lane:
    def __init__(self, lanectl, env=None):
        self.lanectl = os.path.abspath(lanectl)
        self.home = tempfile.mkdtemp(prefix="lanectl-browser-")
        self.env = dict(os.environ, LANECTL_HOME=self.home, LANECTL_BACKEND="local", LANECTL_GRACE_SECONDS="1",
                        OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_plm_rsh_agent="")
        self.env.update(env or {})
        self.dashboards = []
        self.projects = {"default"}

    def run(self, *args, timeout=60, check=True):
        """Runs `lanectl ARGS`; returns the CompletedProcess (text). Raises on non-zero exit when check."""
        args = [str(a) for a in args]
        for flag in ("-p", "--project"):
            if flag in args[:-1]:
                self.projects.add(args[args.index(flag) + 1])
        r = subprocess.run([self.lanectl, *args], env=self.env, capture_output=True, text=True, timeout=timeout)
        if check and r.returncode != 0:
            raise AssertionError(f"lanectl {' '.join(args)} -> exit {r.returncode}: {r.stderr.strip()}")
        return r

    def json(self, *args):
        """`lanectl ARGS -o json`; of a listing (a Kubernetes List), its items."""
        doc = json.loads(self.run(*args, "-o", "json").stdout)
        return doc["items"] if isinstance(doc, dict) and doc.get("kind") == "List" else doc

    def start_dashboard(self, *args):
        """Starts `lanectl dashboard --listen 127.0.0.1:0 ARGS`; returns its URL (ends with '/')."""
        p = subprocess.Popen([self.lanectl, "dashboard", "--listen", "127.0.0.1:0", *args], env=self.env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.dashboards.append(p)
        line = read_line(p.stdout, 15)
        if not line.startswith("Dashboard: http://"):
            p.kill()
            raise AssertionError(f"no 'Dashboard: URL' line on stdout: {line!r}; stderr: {p.stderr.read()!r}")
        return line.split(" ", 1)[1].strip()

    def stop_dashboards(self):
        for p in self.dashboards:
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        self.dashboards = []

    def close(self):
        self.stop_dashboards()
        if self.env.get("LANECTL_BACKEND") == "local":
            for project in sorted(self.projects):
                self.run("delete", "--all", "-p", project, check=False)
        shutil.rmtree(self.home, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

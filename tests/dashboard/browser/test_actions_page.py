#!/usr/bin/env python3
"""A job's actions on its page in headless Chromium (tests/dashboard/browser/chromium.py).

  test_actions_page.py --lanectl PATH [--out DIR] CASE...
    actions    `lanectl dashboard --allow-actions --token T`, a real local job: each button asks
               first in a dialog naming the job and the action (Cancel does nothing); Suspend,
               Resume (after a lost session: refused, then a new session), Resubmit with a changed env (a GPU value the CLI refuses shows the CLI's
               message in the dialog first) and Delete, each checked with `lanectl describe`, and
               each logged by the dashboard; no JavaScript error
    read-only  the default dashboard (and one with a token but no --allow-actions) shows no action
               and a POST from its own page is 405
    cross-site a page of another origin on the same host (another port: same site, so the token
               cookie is sent) cannot read the CSRF token and its POSTs are refused (403): the job
               keeps running, the refusal is logged
    two-dashboards  two dashboards of one host (two ports, two tokens) in one browser: a browser
               shares cookies between a host's ports, so each dashboard names its cookies by its
               port; logging into the second neither logs the first out nor ends its session
Screenshots go to --out (ctest: <build>/dashboard-screenshots). Exit 77: skipped (no Chromium).
"""
import http.server
import json
import os
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from chromium import Chromium  # noqa: E402
from fixture import Lane, run_cases  # noqa: E402

TOKEN = "browser-actions-token-77"
TOKEN_B = "browser-actions-token-88"


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def status_of(lane, name):
    r = lane.run("describe", "job", name, "-o", "json", check=False)
    return json.loads(r.stdout)["status"] if r.returncode == 0 else None


def wait_status(lane, name, want, timeout=15):
    deadline = time.monotonic() + timeout
    while status_of(lane, name) != want:
        check(time.monotonic() < deadline, f"{name} is {status_of(lane, name)}, not {want}, after {timeout} s")
        time.sleep(0.2)


def submit_job(lane, name):
    lane.run("submit", name, "-i", "ubuntu", "-e", "MODE=a", "--command", "--", "sh", "-c", "echo MODE=$MODE; sleep 300")
    wait_status(lane, name, "Running")


def port_of(url):
    """"http://127.0.0.1:8080/" -> "8080"."""
    return url.rstrip("/").rsplit(":", 1)[1]


def logged_in(browser, url, job, token=TOKEN):
    """The job's page, after ?token= set the cookie."""
    page = browser.open(url + "?token=" + token)
    page.navigate(url + "#/jobs/default/" + job)
    page.wait_for("document.querySelector('#summary .status')", timeout=10)
    return page


def dialog_title(page):
    return page.wait_for("document.querySelector('dialog.action-dialog[open] h3')?.textContent")


def no_dialog(page):
    """Waits until the last dialog is gone: while it closes, a click would land on it."""
    page.wait_for("!document.querySelector('dialog.action-dialog')", timeout=10)


def confirm(page, action, job):
    no_dialog(page)
    page.wait_for(f"!document.querySelector('#job-actions button[data-action={action}]').disabled", timeout=10)
    page.click(f"#job-actions button[data-action={action}]")
    title = dialog_title(page)
    check(f"job default/{job}?" in title, f"the {action} dialog's title: {title!r}")
    page.click("dialog.action-dialog [data-confirm]")


def set_field(page, name, value):
    page.eval("document.querySelector('dialog.action-dialog [name=%s]').value = %s" % (name, json.dumps(value)))


def case_actions(lanectl, out):
    with Lane(lanectl) as lane, Chromium() as browser:
        submit_job(lane, "act-a")
        url = lane.start_dashboard("--allow-actions", "--token", TOKEN)
        page = logged_in(browser, url, "act-a")
        page.wait_for("!document.getElementById('job-actions').hidden", timeout=10)
        buttons = page.eval("[...document.querySelectorAll('#job-actions button')].map(b => [b.dataset.action, b.disabled])")
        check(buttons == [["suspend", False], ["resume", True], ["delete", False], ["resubmit", False]], f"buttons: {buttons}")

        # On a phone the bar wraps: no page wider than the window, every button inside it.
        page.resize(390, 844)
        fits = page.eval("""document.documentElement.scrollWidth <= innerWidth && [...document.querySelectorAll('#job-actions button')]
                            .every(b => { const r = b.getBoundingClientRect(); return r.left >= 0 && r.right <= innerWidth; })""")
        check(fits, "the actions bar does not fit a 390 px window")
        page.resize(1400, 900)

        # The confirmation gates the action: Cancel leaves the job alone.
        page.click("#job-actions button[data-action=suspend]")
        check(dialog_title(page) == "Suspend job default/act-a?", "the suspend dialog's title")
        page.screenshot(os.path.join(out, "actions-confirm.png"))
        page.click("dialog.action-dialog [data-cancel]")
        page.wait_for("!document.querySelector('dialog.action-dialog')")
        time.sleep(0.5)
        check(status_of(lane, "act-a") == "Running", "Cancel suspended the job")

        confirm(page, "suspend", "act-a")
        wait_status(lane, "act-a", "Suspended")
        page.wait_for("document.querySelector('#job-badge .status')?.textContent === 'Suspended'", timeout=10)
        # A lost session (a restarted server forgets them): refused, the dialog says why, and the
        # next try opens a new session.
        page.send("Network.deleteCookies", {"name": "lanectl_dashboard_session_" + port_of(url), "url": url})
        confirm(page, "resume", "act-a")
        shown = page.wait_for("document.querySelector('dialog.action-dialog .error-box:not([hidden])')?.textContent")
        check("CSRF token" in shown and status_of(lane, "act-a") == "Suspended", f"a resume without the session: {shown!r}")
        page.click("dialog.action-dialog [data-confirm]")
        wait_status(lane, "act-a", "Running")

        # Resubmit: a GPU value the CLI refuses gets the CLI's message in the dialog, which stays open.
        no_dialog(page)
        page.wait_for("!document.querySelector('#job-actions button[data-action=resubmit]').disabled")
        page.click("#job-actions button[data-action=resubmit]")
        check(dialog_title(page) == "Resubmit job default/act-a?", "the resubmit dialog's title")
        env_field = page.eval("document.querySelector('dialog.action-dialog [name=env]').value")
        check(env_field == "MODE=a", f"the env field: {env_field!r}")
        set_field(page, "env", "MODE=b\nEXTRA=1")
        set_field(page, "gpu", "lots")
        page.click("dialog.action-dialog [data-confirm]")
        shown = page.wait_for("document.querySelector('dialog.action-dialog .error-box:not([hidden])')?.textContent")
        page.screenshot(os.path.join(out, "actions-resubmit.png"))
        cli = lane.run("submit", "x", "-i", "ubuntu", "-g", "lots", check=False).stderr
        check(shown in cli, f"the dialog's error {shown!r} is not the CLI's: {cli!r}")
        set_field(page, "gpu", "0")
        page.click("dialog.action-dialog [data-confirm]")
        page.wait_for("location.hash === '#/jobs/default/act-a-1'", timeout=10)
        spec = json.loads(lane.run("describe", "job", "act-a-1", "-o", "json").stdout)["spec"]
        check(spec["env"] == [{"name": "MODE", "value": "b"}, {"name": "EXTRA", "value": "1"}], f"act-a-1's env: {spec['env']}")

        page.navigate(url + "#/jobs/default/act-a")
        confirm(page, "delete", "act-a")
        page.wait_for("location.hash === '#/jobs'", timeout=10)
        wait_status(lane, "act-a", None)
        # The refused resume and resubmit (on purpose), and the deleted job's page polling while the delete ran.
        errors = [e for e in page.errors() if "status of 400" not in e and "status of 403" not in e and
                  not ("status of 404" in e and "/api/jobs/default/act-a" in e and "act-a-1" not in e)]
        check(errors == [], f"JavaScript errors: {errors}")

        proc = lane.dashboards[0]
        lane.stop_dashboards()
        log = proc.stderr.read()
        for what, session in (("suspend", 1), ("resume", 2), ("resubmit", 2), ("delete", 2)):
            line = f" dashboard action {what} job default/act-a by uid {os.geteuid()} (session {session}): 2"
            check(line in log, f"no '{line}' in the log:\n{log}")
        check(" dashboard action resume job default/act-a by uid" in log and "(no session): 403 missing or wrong CSRF token" in log,
              f"the resume without the session is not logged:\n{log}")
        check(" dashboard action resubmit job default/act-a by uid" in log and ": 400 --gpu 'lots'" in log,
              f"the refused resubmit is not logged:\n{log}")
        check(TOKEN not in log, "the token is in the log")
        print("PASS actions (screenshots actions-confirm.png, actions-resubmit.png)")


def case_read_only(lanectl, out):
    with Lane(lanectl) as lane, Chromium() as browser:
        submit_job(lane, "ro-a")
        for args in ([], ["--token", TOKEN]):
            url = lane.start_dashboard(*args)
            page = logged_in(browser, url, "ro-a") if args else browser.open(url + "#/jobs/default/ro-a")
            page.wait_for("document.querySelector('#summary .status')", timeout=10)
            session = page.eval("fetch('/api/session').then(r => r.json())")
            check(session["actions"] is False, f"/api/session: {session}")
            time.sleep(0.3)
            check(page.eval("document.querySelectorAll('#job-actions button').length") == 0, "a read-only page shows actions")
            status = page.eval("fetch('/api/jobs/default/ro-a/suspend', {method: 'POST'}).then(r => r.status)")
            check(status == 405 and status_of(lane, "ro-a") == "Running", f"POST on a read-only dashboard -> {status}")
            page.close()
            lane.stop_dashboards()
        print("PASS read-only")


class Blank(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = b"<!doctype html><title>another site</title><p>another service on this host</p>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def case_cross_site(lanectl, out):
    evil = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Blank)
    threading.Thread(target=evil.serve_forever, daemon=True).start()
    try:
        with Lane(lanectl) as lane, Chromium() as browser:
            submit_job(lane, "cs-a")
            url = lane.start_dashboard("--allow-actions", "--token", TOKEN)
            page = logged_in(browser, url, "cs-a")  # the browser has the dashboard's cookie
            page.wait_for("!document.getElementById('job-actions').hidden", timeout=10)
            page.navigate(f"http://127.0.0.1:{evil.server_address[1]}/")
            target = url.rstrip("/") + "/api/jobs/default/cs-a/suspend"
            # The CSRF token cannot be read from another origin (no CORS), ...
            read = page.eval("fetch(%s, {credentials: 'include'}).then(r => 'read', e => 'refused')"
                             % json.dumps(url + "api/session"))
            check(read == "refused", f"another origin read /api/session: {read}")
            # ... and a POST with the cookie (same site: another port) but without it is refused.
            page.eval("fetch(%s, {method: 'POST', mode: 'no-cors', credentials: 'include', body: '{}'}).then(() => 0, () => 0)"
                      % json.dumps(target))
            # ... and neither is a plain form's POST (a navigation: the page is left for the answer).
            page.eval("""(() => { const f = document.createElement('form'); f.method = 'POST'; f.action = %s;
                         document.body.append(f); setTimeout(() => f.submit(), 0); return 0; })()""" % json.dumps(target))
            time.sleep(1.5)
            check(status_of(lane, "cs-a") == "Running", "a page of another origin suspended the job")
            proc = lane.dashboards[0]
            lane.stop_dashboards()
            log = proc.stderr.read()
            refused = [line for line in log.splitlines() if "dashboard action suspend job default/cs-a" in line]
            check(len(refused) == 2 and all(": 403 cross-site request refused" in line for line in refused),
                  f"the two forged POSTs are not logged as refused:\n{log}")
            print("PASS cross-site")
    finally:
        evil.shutdown()


def case_two_dashboards(lanectl, out):
    with Lane(lanectl) as lane, Chromium() as browser:
        submit_job(lane, "two-a")
        url_a = lane.start_dashboard("--allow-actions", "--token", TOKEN)
        url_b = lane.start_dashboard("--allow-actions", "--token", TOKEN_B)
        page_a = logged_in(browser, url_a, "two-a")
        page_a.wait_for("!document.getElementById('job-actions').hidden", timeout=10)  # A's session is open
        page_b = logged_in(browser, url_b, "two-a", TOKEN_B)
        page_b.wait_for("!document.getElementById('job-actions').hidden", timeout=10)  # and B's
        cookies = sorted(c["name"] for c in page_a.send("Network.getCookies", {"urls": [url_a, url_b]})["cookies"])
        port_a, port_b = port_of(url_a), port_of(url_b)
        want = sorted(f"lanectl_dashboard_{kind}_{port}" for kind in ("token", "session") for port in (port_a, port_b))
        check(cookies == want, f"the browser's cookies: {cookies}, not {want}")
        # A's page, opened before B's login: its action carries A's token and session still.
        confirm(page_a, "suspend", "two-a")
        wait_status(lane, "two-a", "Suspended")
        # A reloaded is still logged in; B acts with its own session.
        page_a.navigate(url_a + "?reload=1#/jobs/default/two-a")
        page_a.wait_for("document.querySelector('#job-badge .status')?.textContent === 'Suspended'", timeout=10)
        page_b.wait_for("document.querySelector('#job-badge .status')?.textContent === 'Suspended'", timeout=10)
        confirm(page_b, "resume", "two-a")
        wait_status(lane, "two-a", "Running")
        for page in (page_a, page_b):
            errors = page.errors()
            check(errors == [], f"JavaScript errors: {errors}")
        proc_a, proc_b = lane.dashboards
        lane.stop_dashboards()
        log_a, log_b = proc_a.stderr.read(), proc_b.stderr.read()
        check(f" dashboard action suspend job default/two-a by uid {os.geteuid()} (session 1): 2" in log_a,
              f"A's log:\n{log_a}")
        check(f" dashboard action resume job default/two-a by uid {os.geteuid()} (session 1): 2" in log_b,
              f"B's log:\n{log_b}")
        print("PASS two-dashboards")


CASES = {"actions": case_actions, "read-only": case_read_only, "cross-site": case_cross_site,
         "two-dashboards": case_two_dashboards}


if __name__ == "__main__":
    run_cases(CASES)

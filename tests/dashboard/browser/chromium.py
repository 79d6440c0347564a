"""Headless Chromium driven over the Chrome DevTools Protocol (Python standard library only).

Chromium is started with --remote-debugging-pipe: it reads CDP commands from its fd 3 and
writes answers and events to its fd 4, each message one JSON text followed by a NUL byte. So no
websocket library and no TCP port are needed.

    with Chromium() as browser:
        page = browser.open("http://127.0.0.1:8080/")
        page.wait_for("document.querySelectorAll('#jobs-body tr').length > 1")
        page.screenshot("jobs.png")
        assert page.errors() == []

`require_chromium()` finds the browser; when it is missing a test exits 77 (ctest's
SKIP_RETURN_CODE) unless LANE_REQUIRE_BROWSER=1 (./scripts/test sets it), then it fails.
"""
import base64
import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

SKIP = 77
COMMAND_TIMEOUT = 30.0


def find_chromium():
    """The Chromium executable: $LANE_CHROMIUM, else chromium / chromium-browser on PATH; None."""
    explicit = os.environ.get("LANE_CHROMIUM")
    if explicit:
        return explicit if os.access(explicit, os.X_OK) else None
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def require_chromium():
    """Returns the Chromium path, or exits: 77 (skip) when missing, 1 with LANE_REQUIRE_BROWSER=1."""
    path = find_chromium()
    if path:
        return path
    if os.environ.get("LANE_REQUIRE_BROWSER") == "1":
        print("FAIL: no Chromium (apt-get install chromium, or ./scripts/setup --test-deps) and "
              "LANE_REQUIRE_BROWSER=1", file=sys.stderr)
        sys.exit(1)
    print("SKIP: no Chromium found (apt-get install chromium); set LANE_REQUIRE_BROWSER=1 to fail instead",
          file=sys.stderr)
    sys.exit(SKIP)


class JSError(Exception):
    """A JavaScript exception raised by Page.eval."""


class CDPError(Exception):
    """An error answer to a DevTools command, or a browser that went away."""


class _Connection:
    """The pipe pair: sends commands, matches answers by id, queues events per session."""

    def __init__(self, write_fd, read_fd, proc):
        self.wfile = os.fdopen(write_fd, "wb", buffering=0)
        self.rfile = os.fdopen(read_fd, "rb", buffering=0)
        self.proc = proc
        self.next_id = 0
        self.lock = threading.Lock()
        self.cond = threading.Condition()
        self.answers = {}
        self.listeners = []  # functions (sessionId, method, params)
        self.closed = False
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        buf = b""
        try:
            while True:
                chunk = self.rfile.read(1 << 16)
                if not chunk:
                    break
                buf += chunk
                while b"\0" in buf:
                    raw, buf = buf.split(b"\0", 1)
                    self._dispatch(json.loads(raw))
        except (OSError, ValueError):
            pass
        with self.cond:
            self.closed = True
            self.cond.notify_all()

    def _dispatch(self, msg):
        if "id" in msg:
            with self.cond:
                self.answers[msg["id"]] = msg
                self.cond.notify_all()
        else:
            for fn in list(self.listeners):
                fn(msg.get("sessionId"), msg.get("method"), msg.get("params", {}))

    def send(self, method, params=None, session=None, timeout=COMMAND_TIMEOUT):
        with self.lock:
            self.next_id += 1
            mid = self.next_id
            msg = {"id": mid, "method": method, "params": params or {}}
            if session:
                msg["sessionId"] = session
            try:
                self.wfile.write(json.dumps(msg).encode() + b"\0")
            except OSError as e:
                raise CDPError(f"{method}: the browser is gone ({e})")
        deadline = time.monotonic() + timeout
        with self.cond:
            while mid not in self.answers:
                if self.closed:
                    raise CDPError(f"{method}: the browser closed the pipe (exit {self.proc.poll()})")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise CDPError(f"{method}: no answer within {timeout}s")
                self.cond.wait(left)
            answer = self.answers.pop(mid)
        if "error" in answer:
            raise CDPError(f"{method}: {answer['error'].get('message')} {answer['error'].get('data', '')}".strip())
        return answer.get("result", {})

    def close(self):
        for f in (self.wfile, self.rfile):
            try:
                f.close()
            except OSError:
                pass


class Chromium:
    """A headless Chromium with its own temporary profile; a context manager (killed on exit)."""

    def __init__(self, width=1400, height=900):
        self.width, self.height = width, height
        self.path = require_chromium()
        self.profile = tempfile.mkdtemp(prefix="lane-chromium-")
        self.log_path = os.path.join(self.profile, "chromium.log")
        # Our ends: we write commands to to_child_w and read from from_child_r. Chromium gets the
        # other ends as fds 3 and 4; copy them above 9 first so dup2 onto 3/4 cannot clobber one.
        to_child_r, to_child_w = os.pipe()
        from_child_r, from_child_w = os.pipe()
        child_in = fcntl.fcntl(to_child_r, fcntl.F_DUPFD_CLOEXEC, 10)
        child_out = fcntl.fcntl(from_child_w, fcntl.F_DUPFD_CLOEXEC, 10)
        os.close(to_child_r)
        os.close(from_child_w)

        def wire_fds():
            # dup2 clears close-on-exec on the copy. close_fds=False below: Python opens every
            # file non-inheritable (PEP 446), so only 0-2 and these two reach Chromium.
            os.dup2(child_in, 3)
            os.dup2(child_out, 4)

        args = [
            self.path, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--remote-debugging-pipe", f"--user-data-dir={self.profile}",
            "--no-first-run", "--no-default-browser-check", "--disable-extensions",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--disable-default-apps", "--mute-audio", "--hide-scrollbars", "--password-store=basic",
            "--use-mock-keychain", "--disable-features=Translate,MediaRouter,OptimizationHints",
            f"--window-size={width},{height}", "about:blank",
        ]
        self.log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log,
                                     preexec_fn=wire_fds, close_fds=False, start_new_session=True)
        os.close(child_in)
        os.close(child_out)
        self.conn = _Connection(to_child_w, from_child_r, self.proc)
        try:
            self.conn.send("Browser.getVersion", timeout=20)
        except CDPError as e:
            self.close()
            raise CDPError(f"Chromium did not answer over the pipe: {e}; its log: {self.log_tail()}")
        self.pages = []

    def log_tail(self, n=2000):
        try:
            with open(self.log_path, "rb") as f:
                return f.read()[-n:].decode("utf-8", "replace")
        except OSError:
            return ""

    def open(self, url):
        """A new tab navigated to url (waits for its load event)."""
        target = self.conn.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.conn.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        page = Page(self, target, session)
        self.pages.append(page)
        page.navigate(url)
        return page

    def close(self):
        if self.proc.poll() is None:
            try:
                self.conn.send("Browser.close", timeout=3)
            except CDPError:
                pass
            try:
                self.proc.wait(timeout=3)
            except subprocess.TimeoutExpired:
                pass
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait()
        else:
            # The browser's helpers (zygote, renderers) share its process group.
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.conn.close()
        self.log.close()
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


_SMALL_TEXTS = """((least) => {
  const bad = [], seen = new Set();
  let checked = 0;
  for (const e of document.querySelectorAll('body *')) {
    if (['SCRIPT', 'STYLE', 'OPTION', 'TITLE', 'title'].includes(e.tagName)) continue;
    if (![...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())) continue;
    const r = e.getBoundingClientRect(), cs = getComputedStyle(e);
    if (r.width <= 0 || r.height <= 0 || cs.visibility !== 'visible') continue;
    let px = parseFloat(cs.fontSize);
    if (e instanceof SVGElement && e.ownerSVGElement) px *= e.ownerSVGElement.getScreenCTM().a;
    checked++;
    const what = e.tagName + '.' + [...e.classList].join('.') + ' "' + e.textContent.trim().slice(0, 20) + '"';
    if (px < least - 0.05 && !seen.has(what)) { seen.add(what); bad.push(what + ' ' + px.toFixed(1) + ' px'); }
  }
  return {checked, bad};
})(%s)"""


class Page:
    """One tab: evaluate JavaScript, wait for conditions, screenshots, the errors it logged."""

    def __init__(self, browser, target, session):
        self.browser, self.target, self.session = browser, target, session
        self.cond = threading.Condition()
        self.loads = 0          # Page.loadEventFired count
        self._errors = []
        browser.conn.listeners.append(self._on_event)
        for domain in ("Page", "Runtime", "Log"):
            self.send(domain + ".enable")
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": browser.width, "height": browser.height, "deviceScaleFactor": 1, "mobile": False})

    def send(self, method, params=None, timeout=COMMAND_TIMEOUT):
        return self.browser.conn.send(method, params, session=self.session, timeout=timeout)

    def _on_event(self, session, method, params):
        if session != self.session:
            return
        if method == "Page.loadEventFired":
            with self.cond:
                self.loads += 1
                self.cond.notify_all()
        elif method == "Runtime.exceptionThrown":
            d = params.get("exceptionDetails", {})
            text = (d.get("exception") or {}).get("description") or d.get("text", "exception")
            self._errors.append(f"exception: {text} ({d.get('url', '')}:{d.get('lineNumber', '?')})")
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            parts = [str(a.get("value", a.get("description", ""))) for a in params.get("args", [])]
            self._errors.append("console.error: " + " ".join(parts))
        elif method == "Log.entryAdded":
            e = params.get("entry", {})
            if e.get("level") == "error":
                self._errors.append(f"log ({e.get('source')}): {e.get('text')} {e.get('url', '')}".rstrip())

    def navigate(self, url, timeout=COMMAND_TIMEOUT):
        """Navigates to url; waits for the load event (not for a same-document, hash-only change)."""
        with self.cond:
            loads = self.loads
        answer = self.send("Page.navigate", {"url": url})
        if answer.get("errorText"):
            raise CDPError(f"navigate {url}: {answer['errorText']}")
        if not answer.get("loaderId"):
            return  # same-document navigation (only the #fragment changed): no load event
        deadline = time.monotonic() + timeout
        with self.cond:
            while self.loads == loads:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"navigate {url}: no load event within {timeout}s")
                self.cond.wait(min(left, 0.5))

    def eval(self, js, timeout=COMMAND_TIMEOUT):
        """The value of the expression js (promises awaited, returned by value); JSError on exception."""
        r = self.send("Runtime.evaluate", {"expression": js, "awaitPromise": True, "returnByValue": True,
                                          "userGesture": True}, timeout=timeout)
        if "exceptionDetails" in r:
            d = r["exceptionDetails"]
            text = (d.get("exception") or {}).get("description") or d.get("text", "exception")
            raise JSError(f"{text}\n  in: {js}")
        return r.get("result", {}).get("value")

    def wait_for(self, js, timeout=5.0, interval=0.05):
        """Polls the expression js until it is truthy (in JavaScript's sense) and returns its value
        (by value: an element comes back as {}); AssertionError naming js on timeout."""
        deadline = time.monotonic() + timeout
        last = None
        # Truthy as JavaScript says (an element is truthy though it comes back as {}).
        probe = "Promise.resolve((%s)).then(v => [!!v, v])" % js
        while True:
            try:
                ok, last = self.eval(probe)
            except JSError as e:
                last = f"JS error: {str(e).splitlines()[0]}"
            else:
                if ok:
                    return last
            if time.monotonic() >= deadline:
                raise AssertionError(f"timed out after {timeout}s waiting for: {js} (last value: {last!r})")
            time.sleep(interval)

    def resize(self, width, height):
        """Sets the viewport to width x height CSS pixels (the page lays itself out again)."""
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})

    def color_scheme(self, scheme):
        """Emulates prefers-color-scheme: "light" or "dark" ("" for the browser's own)."""
        self.send("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})

    def key(self, key, code=None, text=None):
        """A real key press (CDP keyDown + keyUp) on the focused element: "Enter", " ", "Tab"..."""
        vk = {"Enter": 13, " ": 32, "Tab": 9}.get(key, 0)
        common = {"key": key, "code": code or {"Enter": "Enter", " ": "Space", "Tab": "Tab"}.get(key, key),
                  "windowsVirtualKeyCode": vk}
        down = dict(common, type="keyDown")
        if text is not None or key in ("Enter", " "):
            down["text"] = text if text is not None else {"Enter": "\r", " ": " "}[key]
        self.send("Input.dispatchKeyEvent", down)
        self.send("Input.dispatchKeyEvent", dict(common, type="keyUp"))

    def click(self, selector):
        """A real mouse click (CDP input events) at the centre of the first element matching selector."""
        box = self.eval("(() => { const e = document.querySelector(%s); if (!e) return null; e.scrollIntoView({block: 'nearest'});"
                        " const r = e.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()"
                        % json.dumps(selector))
        if not box:
            raise AssertionError(f"click: no element matches {selector}")
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", {"type": kind, "x": box[0], "y": box[1], "button": "left", "clickCount": 1})

    def screenshot(self, path, full_page=False, clip=None):
        """Writes a PNG of the viewport (or of the whole page, or of clip = (x, y, width, height))."""
        params = {"format": "png"}
        if clip:
            x, y, w, h = clip
            params.update(captureBeyondViewport=True, clip={"x": x, "y": y, "width": w, "height": h, "scale": 1})
        elif full_page:
            size = self.send("Page.getLayoutMetrics")
            content = size.get("cssContentSize") or size["contentSize"]
            params.update(captureBeyondViewport=True,
                          clip={"x": 0, "y": 0, "width": content["width"], "height": content["height"], "scale": 1})
        data = base64.b64decode(self.send("Page.captureScreenshot", params)["data"])
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def small_texts(self, least):
        """Visible texts drawn smaller than `least` px: {"checked": how many were measured, "bad":
        ["TAG.class "text" 6.7 px", ...]}. An HTML element's size is its font size; an SVG text's is
        its font size times the scale its SVG is drawn at (a 560-unit viewBox in a 340 px box: 0.6)."""
        return self.eval(_SMALL_TEXTS % json.dumps(least))

    def close(self):
        """Closes the tab."""
        self.browser.conn.send("Target.closeTarget", {"targetId": self.target})
        if self._on_event in self.browser.conn.listeners:
            self.browser.conn.listeners.remove(self._on_event)

    def errors(self):
        """JavaScript exceptions, console.error messages and error log entries seen so far."""
        return list(self._errors)

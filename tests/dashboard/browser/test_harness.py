#!/usr/bin/env python3
"""Self-test of the Chromium harness (chromium.py): it must see what a page does, or the browser
tests of the dashboard could pass while seeing nothing.

  test_harness.py [--out DIR]     exit 0 pass, 1 fail, 77 skip (no Chromium, LANE_REQUIRE_BROWSER unset)
"""
import argparse
import os
import struct
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from chromium import Chromium, JSError, require_chromium  # noqa: E402

PAGE = ("data:text/html,<title>t</title><h1 id=h>hello</h1>"
        "<script>console.error('boom-1'); setTimeout(() => { throw new Error('late-2') }, 10);"
        "setTimeout(() => { document.body.append(Object.assign(document.createElement('p'), {id: 'later'})) }, 300)"
        "</script>")


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=tempfile.gettempdir())
    args = ap.parse_args()
    require_chromium()
    with Chromium(width=800, height=600) as browser:
        page = browser.open(PAGE)
        check(page.eval("document.getElementById('h').textContent") == "hello", "eval of the DOM")
        check(page.eval("new Promise(r => setTimeout(() => r({a: [1, 2]}), 20))") == {"a": [1, 2]},
              "eval awaits a promise and returns it by value")
        try:
            page.eval("missingFunction()")
            raise AssertionError("eval of a throwing expression did not raise")
        except JSError as e:
            check("missingFunction" in str(e), f"JSError names the error: {e}")
        check(page.wait_for("document.getElementById('later') && 'seen'", timeout=3) == "seen",
              "wait_for returns the truthy value")
        check(page.wait_for("document.getElementById('later')") == {}, "an element is truthy for wait_for")
        try:
            page.wait_for("window.neverSet", timeout=0.2)
            raise AssertionError("wait_for did not time out")
        except AssertionError as e:
            check("window.neverSet" in str(e), f"the timeout names the expression: {e}")
        page.wait_for("true")
        errors = page.errors()
        check(any("boom-1" in e for e in errors), f"console.error not seen: {errors}")
        check(any("late-2" in e for e in errors), f"uncaught exception not seen: {errors}")

        # A hash-only navigation does not wait for a load event; a marker on window survives it.
        page.eval("window.marker = 7")
        page.navigate(PAGE + "#x")
        check(page.eval("window.marker") == 7 and page.eval("location.hash") == "#x", "same-document navigation")
        page.navigate("data:text/html,<p>two</p>")
        check(page.eval("window.marker") is None and page.eval("document.body.textContent") == "two",
              "a real navigation loads a new document")

        shot = page.screenshot(os.path.join(args.out, "harness-viewport.png"))
        with open(shot, "rb") as f:
            head = f.read(24)
        check(head[:8] == b"\x89PNG\r\n\x1a\n", "screenshot is a PNG")
        check(struct.unpack(">II", head[16:24]) == (800, 600), f"viewport size {struct.unpack('>II', head[16:24])}")
        page.eval("document.body.style.height = '2000px'")
        with open(page.screenshot(os.path.join(args.out, "harness-full.png"), full_page=True), "rb") as f:
            head = f.read(24)
        check(struct.unpack(">II", head[16:24])[1] >= 2000, "a full-page screenshot covers the page")

        # small_texts: an 8 px paragraph, and 11 px SVG text in a 560-unit viewBox drawn 280 px wide
        # (5.5 px), are found; 12 px text and an SVG drawn 1:1 are not.
        page.navigate("data:text/html,<p style='font-size:8px'>tiny</p><p style='font-size:12px'>fine</p>"
                      "<svg viewBox='0 0 560 100' style='width:280px;font-size:11px'><text x=10 y=50>half</text></svg>"
                      "<svg viewBox='0 0 280 100' style='width:280px;font-size:11px'><text x=10 y=50>whole</text></svg>")
        small = page.small_texts(10)
        check(small["checked"] == 4, f"small_texts measured {small['checked']} texts, not 4")
        check(sorted(small["bad"]) == ['P. "tiny" 8.0 px', 'text. "half" 5.5 px'], f"small_texts: {small['bad']}")
        pid = browser.proc.pid
    try:
        os.kill(pid, 0)
        raise AssertionError("Chromium still runs after the context manager exited")
    except ProcessLookupError:
        pass
    print("PASS harness")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Loads the app-state page in headless Chromium and watches it update live.

Usage: browser_live_check.py URL EXPECTED_TEXT SCREENSHOT_PNG TIMEOUT_SECONDS [READY_FIFO]

Drives Chromium over the DevTools protocol on a pipe (--remote-debugging-pipe:
JSON messages separated by NUL on file descriptors 3 and 4), so it needs
nothing but the standard library. It prints "live" once the page has opened its
event stream (body[data-live=events]) and checked that EXPECTED_TEXT is not on
it yet, then waits until the page's text contains EXPECTED_TEXT without
reloading it, saves a screenshot, and prints
"seen" followed by the page's text. With READY_FIFO (a named pipe), "live" is
also written there, for a caller that makes the change only then; the caller
opens the pipe's read end before it starts this script. Exit 1, with the page's text, when either
does not happen within the timeout.
"""

import base64
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time

CHROMIUM = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]


class DevTools:
    def __init__(self, executable, profile):
        to_browser_read, self.to_browser = os.pipe()
        self.from_browser, from_browser_write = os.pipe()

        def wire_pipes():
            # Through fresh descriptors first, so neither end is overwritten by the other's
            # dup2, and marked inheritable (dup2 onto itself would keep close-on-exec).
            reading, writing = os.dup(to_browser_read), os.dup(from_browser_write)
            os.dup2(reading, 3)
            os.dup2(writing, 4)
            os.set_inheritable(3, True)
            os.set_inheritable(4, True)

        self.process = subprocess.Popen(
            [
                executable, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--no-first-run", "--hide-scrollbars", "--remote-debugging-pipe",
                f"--user-data-dir={profile}", "--window-size=1280,1500", "about:blank",
            ],
            preexec_fn=wire_pipes, close_fds=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        os.close(to_browser_read)
        os.close(from_browser_write)
        self.buffer = b""
        self.last_id = 0

    def send(self, method, params=None, session=None, timeout=30.0):
        self.last_id += 1
        message = {"id": self.last_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        while True:
            while b"\0" in self.buffer:
                raw, self.buffer = self.buffer.split(b"\0", 1)
                reply = json.loads(raw)
                if reply.get("id") == self.last_id:
                    if "error" in reply:
                        raise RuntimeError(f"{method}: {reply['error']}")
                    return reply.get("result", {})
            # A browser that stops answering fails the check instead of stalling it.
            readable, _, _ = select.select([self.from_browser], [], [], timeout)
            if not readable:
                raise RuntimeError(f"{method}: chromium did not answer within {timeout:.0f} s")
            chunk = os.read(self.from_browser, 1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed the DevTools pipe")
            self.buffer += chunk

    def close(self):
        try:
            self.send("Browser.close", timeout=10)
        except Exception:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


def tell_ready(path):
    """Writes "live" to the caller's named pipe. The caller opens its read end before it
    starts this script, so the open never waits (ENXIO, raised, means it did not)."""
    descriptor = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
    try:
        os.write(descriptor, b"live\n")
    finally:
        os.close(descriptor)


def main():
    url, expected, screenshot, timeout = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
    ready = sys.argv[5] if len(sys.argv) > 5 else None
    executable = next((path for path in CHROMIUM if os.access(path, os.X_OK)), None)
    if executable is None:
        print("chromium is not installed (make setup installs it)")
        return 1
    # A hung browser fails the check rather than stalling it. (The caller may have SIGALRM
    # blocked, and a child inherits the mask: unblock it, or the alarm never comes.)
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    signal.signal(signal.SIGALRM, lambda *_: (print("timed out talking to chromium"), os._exit(1)))
    signal.alarm(int(timeout) + 30)
    with tempfile.TemporaryDirectory(prefix="live-check-") as profile:
        browser = DevTools(executable, profile)
        try:
            target = browser.send("Target.createTarget", {"url": url})["targetId"]
            session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]

            def evaluate(expression):
                result = browser.send(
                    "Runtime.evaluate", {"expression": expression, "returnByValue": True}, session)
                return result.get("result", {}).get("value")

            def text():
                return evaluate("document.body ? document.body.innerText : ''") or ""

            deadline = time.monotonic() + timeout
            while evaluate("document.body ? document.body.getAttribute('data-live') : null") != "events":
                if time.monotonic() > deadline:
                    print("the page never opened its event stream\n" + text())
                    return 1
                time.sleep(0.05)
            if expected in text():
                print(f"{expected!r} was there before the change the check waits for\n" + text())
                return 1
            print("live", flush=True)
            if ready:
                tell_ready(ready)
            while expected not in text():
                if time.monotonic() > deadline:
                    print(f"{expected!r} never appeared\n" + text())
                    return 1
                time.sleep(0.05)
            image = browser.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True}, session)
            os.makedirs(os.path.dirname(os.path.abspath(screenshot)), exist_ok=True)
            with open(screenshot, "wb") as file:
                file.write(base64.b64decode(image["data"]))
            print("seen\n" + text(), flush=True)
            return 0
        finally:
            browser.close()


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# One headless Chromium for all the pages of a test: a browser start costs
# about 3 s of CPU, a page a fraction of that.  Driven through the
# DevTools protocol on a pipe (--remote-debugging-pipe: commands on fd 3,
# answers on fd 4), with the flags page_check.sh gave each start: every
# request but the loopback's to a proxy that refuses, logging to stderr.
#
# usage: chromium_pages.py STDERR-FILE
# then one request a line on stdin, one answer a line on stdout ("ok" or
# "error: WHY"):
#   dom URL DOM-FILE CONSOLE-FILE   load URL in a fresh browser context
#       and tab (1280x900), write its DOM as --dump-dom would and every
#       console message, uncaught exception and log entry of it, one a
#       line, "CONSOLE" or "Uncaught" first
#   shot URL PNG-FILE WIDTH HEIGHT  a screenshot, scrollbars hidden
# End of input closes the browser and removes its profile, a temporary
# directory of its own (the test's may be gone by then).
import base64, json, os, shutil, subprocess, sys, tempfile

DEADLINE = 120  # seconds for one request, as `timeout 120` gave a start


class Browser:
    def __init__(self, profile, errfile):
        r_cmd, w_cmd = os.pipe()  # we write commands, Chromium reads fd 3
        r_ans, w_ans = os.pipe()  # Chromium writes answers on fd 4
        err = open(errfile, "ab")
        # fd 3 and 4 in the child, whatever numbers the pipes got here
        # (through fresh copies: one of them may be 3 or 4 already, and
        # dup2 onto itself would leave it closed at exec); no other fd
        # of ours goes with it, all being close-on-exec
        def fds():
            a, b = os.dup(r_cmd), os.dup(w_ans)
            os.dup2(a, 3)
            os.dup2(b, 4)
        self.proc = subprocess.Popen(
            ["chromium", "--headless", "--disable-gpu", "--no-sandbox",
             "--user-data-dir=" + profile, "--proxy-server=127.0.0.1:9",
             "--proxy-bypass-list=<-loopback>", "--window-size=1280,900",
             "--enable-logging=stderr", "--log-level=0",
             "--remote-debugging-pipe", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=err, stderr=err,
            preexec_fn=fds, close_fds=False)
        os.close(r_cmd)
        os.close(w_ans)
        self.w, self.r = w_cmd, r_ans
        self.buf = b""
        self.next_id = 0
        self.events = []

    def read_msg(self):
        while b"\0" not in self.buf:
            chunk = os.read(self.r, 1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed its pipe")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=None):
        self.next_id += 1
        m = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            m["sessionId"] = session
        os.write(self.w, json.dumps(m).encode() + b"\0")
        while True:
            a = self.read_msg()
            if a.get("id") == self.next_id:
                if "error" in a:
                    raise RuntimeError("%s: %s" % (method, a["error"]))
                return a["result"]
            if "method" in a:
                self.events.append(a)

    def wait_event(self, method, session):
        while True:
            for i, e in enumerate(self.events):
                if e["method"] == method and e.get("sessionId") == session:
                    del self.events[i]
                    return e
            self.events.append(self.read_msg())

    def tab(self, url, width, height):
        """a fresh context and tab on URL, loaded; (context, target,
        session)"""
        ctx = self.call("Target.createBrowserContext")["browserContextId"]
        tgt = self.call("Target.createTarget", {
            "url": "about:blank", "browserContextId": ctx,
            "width": width, "height": height})["targetId"]
        ses = self.call("Target.attachToTarget",
                        {"targetId": tgt, "flatten": True})["sessionId"]
        for d in ("Page", "Runtime", "Log"):
            self.call(d + ".enable", session=ses)
        self.call("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": height, "deviceScaleFactor": 1,
            "mobile": False}, session=ses)
        return ctx, tgt, ses

    def load(self, url, ses):
        self.call("Page.navigate", {"url": url}, session=ses)
        self.wait_event("Page.loadEventFired", ses)
        # two frames after the load, for what the page does once drawn
        self.call("Runtime.evaluate", {
            "expression": "new Promise(function (r) { requestAnimationFrame("
            "function () { requestAnimationFrame(r); }); })",
            "awaitPromise": True}, session=ses)

    def close(self, ctx, tgt):
        self.call("Target.closeTarget", {"targetId": tgt})
        self.call("Target.disposeBrowserContext", {"browserContextId": ctx})

    def messages(self, ses):
        """the console messages, exceptions and log entries of SES"""
        out, keep = [], []
        for e in self.events:
            if e.get("sessionId") != ses:
                keep.append(e)
                continue
            p = e["params"]
            if e["method"] == "Runtime.consoleAPICalled":
                out.append("CONSOLE %s: %s" % (p["type"], " ".join(
                    str(a.get("value", a.get("description", "")))
                    for a in p["args"])))
            elif e["method"] == "Runtime.exceptionThrown":
                d = p["exceptionDetails"]
                out.append("Uncaught %s" % d.get("exception", {}).get(
                    "description", d.get("text")))
            elif e["method"] == "Log.entryAdded" and \
                    p["entry"]["level"] != "verbose":
                # (verbose: Chromium's own notes on slow handlers, which
                # a busy machine makes and its console log leaves out)
                x = p["entry"]
                out.append("CONSOLE log %s %s: %s" % (
                    x["source"], x["level"], x["text"]))
        self.events = keep
        return out

    def dom(self, url, domfile, consolefile):
        ctx, tgt, ses = self.tab(url, 1280, 900)
        self.load(url, ses)
        html = self.call("Runtime.evaluate", {
            "expression": "document.documentElement.outerHTML",
            "returnByValue": True}, session=ses)["result"]["value"]
        with open(domfile, "w") as f:
            f.write(html + "\n")
        msgs = self.messages(ses)
        self.close(ctx, tgt)
        with open(consolefile, "w") as f:
            f.write("".join(m + "\n" for m in msgs))

    def shot(self, url, png, width, height):
        ctx, tgt, ses = self.tab(url, int(width), int(height))
        self.call("Emulation.setScrollbarsHidden", {"hidden": True},
                  session=ses)
        self.load(url, ses)
        data = self.call("Page.captureScreenshot", {"format": "png"},
                         session=ses)["data"]
        with open(png, "wb") as f:
            f.write(base64.b64decode(data))
        self.messages(ses)
        self.close(ctx, tgt)


def main():
    import signal
    profile = tempfile.mkdtemp(prefix="opjit-chrome.")
    browser = Browser(profile, sys.argv[1])
    def late(*_):
        raise TimeoutError("no answer within %d s" % DEADLINE)
    signal.signal(signal.SIGALRM, late)
    try:
        for line in sys.stdin:
            words = line.split()
            try:
                signal.alarm(DEADLINE)
                if words[0] == "dom" and len(words) == 4:
                    browser.dom(*words[1:])
                elif words[0] == "shot" and len(words) == 5:
                    browser.shot(*words[1:])
                else:
                    raise ValueError("bad request %r" % line)
                signal.alarm(0)
                answer = "ok"
            except Exception as e:
                signal.alarm(0)
                answer = "error: %s" % e
            print(answer, flush=True)
            if answer != "ok":
                break
    finally:
        browser.proc.terminate()
        try:
            browser.proc.wait(10)
        except subprocess.TimeoutExpired:
            browser.proc.kill()
            browser.proc.wait()
        shutil.rmtree(profile, ignore_errors=True)


main()

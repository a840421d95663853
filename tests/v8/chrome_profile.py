#!/usr/bin/env python3
"""Record a .cpuprofile in Chromium, as DevTools' Performance and JavaScript
Profiler panels do: headless Chromium is driven over the DevTools protocol
(its Profiler domain) through --remote-debugging-pipe, with the standard
library only.

  chrome_profile.py PAGE.html OUT.cpuprofile [FUNCTION]

Loads PAGE.html (a file: URL), starts the profiler (sampling every 250 us),
calls window.FUNCTION() (default runRecursion) once, stops the profiler and
writes the Profiler.Profile it returns. Exits 77 when Chromium is missing or
will not start headless.
"""
import fcntl
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

SKIP = 77


class Pipe:
    """The DevTools protocol over --remote-debugging-pipe: Chromium reads
    commands on its fd 3 and writes replies and events on its fd 4, each
    message JSON ended by a NUL byte."""

    def __init__(self, to_chrome, from_chrome):
        self.w, self.r, self.buf, self.next_id = to_chrome, from_chrome, b"", 0

    def message(self, deadline):
        while b"\0" not in self.buf:
            if time.time() > deadline:
                raise TimeoutError("no reply from Chromium")
            chunk = os.read(self.r, 1 << 16)
            if not chunk:
                raise EOFError("Chromium closed its pipe")
            self.buf += chunk
        raw, self.buf = self.buf.split(b"\0", 1)
        return json.loads(raw)

    def send(self, method, params=None, session=None, timeout=60):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.w, json.dumps(msg).encode() + b"\0")
        deadline = time.time() + timeout
        while True:
            reply = self.message(deadline)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError("%s: %s" % (method, reply["error"]))
                return reply.get("result", {})


def high(fd):
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return moved


def record(chromium, page, out, function="runRecursion"):
    with tempfile.TemporaryDirectory() as profile_dir:
        # Above fd 4, so that putting one end at 3 cannot close the other.
        cmd_r, cmd_w, ev_r, ev_w = [high(fd) for fd in os.pipe() + os.pipe()]

        # Chromium's fd 3 is the read end of our command pipe, fd 4 the
        # write end of its reply pipe (dup2 leaves both open across exec).
        def fds():
            os.dup2(cmd_r, 3)
            os.dup2(ev_w, 4)
        proc = subprocess.Popen([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                                 "--user-data-dir=" + profile_dir, "--remote-debugging-pipe", "about:blank"],
                                preexec_fn=fds, close_fds=False, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        os.close(cmd_r)
        os.close(ev_w)
        cdp = Pipe(cmd_w, ev_r)
        try:
            url = "file://" + os.path.abspath(page)
            target = cdp.send("Target.createTarget", {"url": url})["targetId"]
            session = cdp.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            # The new target starts as about:blank, already "complete": wait
            # for the page's own function instead.
            ready = "document.readyState === 'complete' && typeof window.%s === 'function'" % function
            for _ in range(400):
                state = cdp.send("Runtime.evaluate", {"expression": ready, "returnByValue": True}, session)
                if state["result"].get("value") is True:
                    break
                time.sleep(0.05)
            else:
                raise RuntimeError("%s did not load %s within 20 s" % (chromium, url))
            cdp.send("Profiler.enable", session=session)
            cdp.send("Profiler.setSamplingInterval", {"interval": 250}, session)
            cdp.send("Profiler.start", session=session)
            got = cdp.send("Runtime.evaluate", {"expression": "window.%s()" % function, "returnByValue": True},
                           session, timeout=120)
            if "exceptionDetails" in got:
                raise RuntimeError("the page's script failed: %s" % got["exceptionDetails"])
            profile = cdp.send("Profiler.stop", session=session)["profile"]
            cdp.send("Browser.close")
        finally:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            os.close(cmd_w)
            os.close(ev_r)
    with open(out, "w") as f:
        json.dump(profile, f, separators=(",", ":"))
    return profile


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    chromium = find_chromium()
    if not chromium:
        print("chromium not installed: skipped")
        return SKIP
    try:
        profile = record(chromium, sys.argv[1], sys.argv[2], *sys.argv[3:])
    except (EOFError, TimeoutError) as e:
        print("chromium did not run headless (%s): skipped" % e)
        return SKIP
    print("%s: %d nodes, %d samples" % (sys.argv[2], len(profile["nodes"]), len(profile["samples"])))
    return 0


if __name__ == "__main__":
    sys.exit(main())

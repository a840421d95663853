#!/usr/bin/env python3
"""Record a CPU profile of a page in Chromium, as DevTools does: headless
Chromium is driven over the DevTools protocol through
--remote-debugging-pipe, with the standard library only.

  chrome_profile.py PAGE.html OUT.cpuprofile [FUNCTION]
  chrome_profile.py --trace PAGE.html OUT.json[.gz] [FUNCTION]
  chrome_profile.py --heap PAGE.html OUT.heapprofile [FUNCTION]

Loads PAGE.html (a file: URL) and calls window.FUNCTION() (default
runRecursion) once under the profiler. Without --trace, with the Profiler
domain, as the JavaScript Profiler panel does (sampling every 250 us), and
writes the Profiler.Profile it returns (a .cpuprofile). With --trace, as the
Performance panel records: Tracing.start with the panel's categories, V8's
samples in Profile and ProfileChunk events (every 100 us asked for, by the
"hires" category), the trace streamed back (ReturnAsStream, IO.read) and
written as Chromium sends it, gzipped when OUT ends in .gz. With --heap, as
the Memory panel's "Allocation sampling" records: the HeapProfiler domain's
sampling (a sample every 4 KiB allocated on average, the default FUNCTION
runAllocations), and the SamplingHeapProfile it returns, as DevTools saves a
.heapprofile. Exits 77 when Chromium is missing or will not start headless.
"""
import base64
import contextlib
import fcntl
import gzip
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
        self.events = []  # events met while waiting for a reply, oldest first

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
            if "method" in reply:
                self.events.append(reply)

    def event(self, method, timeout=60):
        """The first event METHOD, kept or still to come; the ones before it
        are dropped."""
        deadline = time.time() + timeout
        while True:
            while self.events:
                ev = self.events.pop(0)
                if ev.get("method") == method:
                    return ev.get("params", {})
            self.events.append(self.message(deadline))


def high(fd):
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return moved


@contextlib.contextmanager
def headless_page(chromium, url, ready):
    """Headless Chromium with URL loaded: yields (cdp, session) once the JS
    expression READY is true in it, and closes the browser after."""
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
            target = cdp.send("Target.createTarget", {"url": url})["targetId"]
            session = cdp.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            for _ in range(400):
                state = cdp.send("Runtime.evaluate", {"expression": ready, "returnByValue": True}, session)
                if state["result"].get("value") is True:
                    break
                time.sleep(0.05)
            else:
                raise RuntimeError("%s did not load %s within 20 s" % (chromium, url))
            yield cdp, session
            cdp.send("Browser.close")
        finally:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            os.close(cmd_w)
            os.close(ev_r)


def run_in_page(chromium, page, function, work):
    """Load PAGE in headless Chromium, then work(cdp, session, call), where
    call() runs window.FUNCTION() once; work's result is returned."""
    # The new target starts as about:blank, already "complete": wait for the
    # page's own function instead.
    ready = "document.readyState === 'complete' && typeof window.%s === 'function'" % function
    with headless_page(chromium, "file://" + os.path.abspath(page), ready) as (cdp, session):
        def call():
            got = cdp.send("Runtime.evaluate", {"expression": "window.%s()" % function, "returnByValue": True},
                           session, timeout=120)
            if "exceptionDetails" in got:
                raise RuntimeError("the page's script failed: %s" % got["exceptionDetails"])
        return work(cdp, session, call)


def sampled(chromium, page, out, function, domain, start, stop):
    """The profile the DOMAIN (Profiler, HeapProfiler) records around one run
    of the page's function, written as DevTools saves it (JSON.stringify of
    the protocol's profile); START is a list of (method, params) after
    DOMAIN.enable."""
    def work(cdp, session, call):
        cdp.send(domain + ".enable", session=session)
        for method, params in start:
            cdp.send(domain + "." + method, params, session)
        call()
        return cdp.send(domain + "." + stop, session=session)["profile"]
    profile = run_in_page(chromium, page, function, work)
    with open(out, "w") as f:
        json.dump(profile, f, separators=(",", ":"))
    return profile


def record(chromium, page, out, function="runRecursion"):
    return sampled(chromium, page, out, function, "Profiler",
                   [("setSamplingInterval", {"interval": 250}), ("start", None)], "stop")


def record_heap(chromium, page, out, function="runAllocations"):
    """A heap profile as the Memory panel's "Allocation sampling" records one:
    HeapProfiler.startSampling, the page's function, stopSampling."""
    return sampled(chromium, page, out, function, "HeapProfiler", [("startSampling", {"samplingInterval": 4096})],
                   "stopSampling")


# The categories DevTools' Performance panel records with (its
# TimelineController), JavaScript samples on: "hires" makes V8's tracing
# profiler sample every 100 us instead of every millisecond.
PANEL_CATEGORIES = ["-*", "blink.console", "blink.user_timing", "devtools.timeline",
                    "disabled-by-default-devtools.timeline", "disabled-by-default-devtools.timeline.frame",
                    "disabled-by-default-devtools.timeline.stack", "disabled-by-default-v8.compile",
                    "disabled-by-default-v8.cpu_profiler.hires", "loading", "disabled-by-default-lighthouse",
                    "v8.execute", "v8", "disabled-by-default-v8.cpu_profiler"]


def record_trace(chromium, page, out, function="runRecursion"):
    """A trace as the Performance panel records one, JavaScript samples in
    its ProfileChunk events, written as Chromium streams it."""
    def work(cdp, session, call):
        cdp.send("Tracing.start", {"categories": ",".join(PANEL_CATEGORIES), "transferMode": "ReturnAsStream"},
                 session)
        call()
        cdp.send("Tracing.end", session=session)
        handle = cdp.event("Tracing.tracingComplete", timeout=120)["stream"]
        data = []
        while True:
            got = cdp.send("IO.read", {"handle": handle, "size": 1 << 20}, session)
            data.append(base64.b64decode(got["data"]) if got.get("base64Encoded") else got["data"].encode())
            if got.get("eof"):
                break
        cdp.send("IO.close", {"handle": handle}, session)
        return b"".join(data)
    trace = run_in_page(chromium, page, function, work)
    if out.endswith(".gz"):
        with open(out, "wb") as f, gzip.GzipFile(fileobj=f, mode="wb", filename="", mtime=0) as z:
            z.write(trace)
    else:
        with open(out, "wb") as f:
            f.write(trace)
    return json.loads(trace)


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def main():
    args = sys.argv[1:]
    trace, heap = args[:1] == ["--trace"], args[:1] == ["--heap"]
    if trace or heap:
        args = args[1:]
    if len(args) not in (2, 3):
        sys.exit(__doc__)
    chromium = find_chromium()
    if not chromium:
        print("chromium not installed: skipped")
        return SKIP
    try:
        got = (record_trace if trace else record_heap if heap else record)(chromium, *args)
    except (EOFError, TimeoutError) as e:
        print("chromium did not run headless (%s): skipped" % e)
        return SKIP
    if trace:
        events = got["traceEvents"] if isinstance(got, dict) else got
        chunks = [e for e in events if e.get("name") == "ProfileChunk"]
        samples = sum(len(e["args"]["data"].get("cpuProfile", {}).get("samples", [])) for e in chunks)
        print("%s: %d events, %d ProfileChunk events, %d samples" % (args[1], len(events), len(chunks), samples))
    elif heap:
        print("%s: %d samples" % (args[1], len(got["samples"])))
    else:
        print("%s: %d nodes, %d samples" % (args[1], len(got["nodes"]), len(got["samples"])))
    return 0


if __name__ == "__main__":
    sys.exit(main())

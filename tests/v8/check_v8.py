#!/usr/bin/env python3
"""cgprop's report on a .cpuprofile, or on a trace's CPU profiles, against
totals worked out here from the JSON itself (standard library only).

  check_v8.py TOOL PROFILE.cpuprofile      the committed profile
  check_v8.py TOOL TRACE.json[.gz]         a trace (Trace Event Format) holding
                                           Profile and ProfileChunk events
  check_v8.py TOOL --live SCRIPT.js        record SCRIPT.js with node --cpu-prof
                                           first (exit 77, skipped, without node)
  check_v8.py TOOL --chrome PAGE.html      record PAGE.html's runRecursion() in
                                           headless Chromium over the DevTools
                                           protocol first (chrome_profile.py;
                                           exit 77 without Chromium); then have
                                           Chromium's own DevTools wrap that
                                           profile in a CpuProfile trace event,
                                           as its Performance panel does when it
                                           opens a .cpuprofile, and check that
                                           trace too
  check_v8.py TOOL --chrome-trace PAGE.html  the same, recorded as a trace, as
                                           DevTools' Performance panel records
  check_v8.py TOOL PROFILE.heapprofile     a heap profile (V8's sampling heap
                                           profiler: a "head" tree)
  check_v8.py TOOL --heap-live SCRIPT.js   record SCRIPT.js with node --heap-prof
                                           first (exit 77 without node)
  check_v8.py TOOL --chrome-heap PAGE.html record PAGE.html's runAllocations()
                                           in headless Chromium with the
                                           HeapProfiler domain's sampling, as
                                           DevTools' "Allocation sampling" does
                                           (exit 77 without Chromium)

The rules computed here are those of docs/formats/v8.md: a function is
url + 1-based line:column + name ("(anonymous)" when empty); the tree's
"(root)" is no frame; sample i lasts from its time stamp to the next one in
time order (DevTools' timeline); a function is counted
once per sample however often it recurs on the stack. The last sample in time
order lasts the mean interval, (last time stamp - first) / (samples - 1).
In a trace, a profile is a Profile event and the ProfileChunk events with its
pid and id after it, their nodes, samples and deltas one after the other, or
a CpuProfile event, a whole profile (with no source) in args.data.cpuProfile;
each thread (pid, tid) counts one profile, the one whose source is
"Internal", else "Inspector", else its first; the figures of the threads
add up.
A heap profile's functions are keyed the same way; each node of its tree is
one stack (its path from the root, "(root)" dropped), weighed by its
selfSize (bytes) and by the number of samples naming it (samples naming no
node of the tree are not counted); a function is counted once per stack
however often it recurs on it.
"""
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile


def key_of(cf):
    url = cf.get("url", "")
    sid = str(cf.get("scriptId", ""))
    if url:
        q = url
    elif sid and sid != "0":
        q = "script " + sid
    else:
        q = ""
    name = cf.get("functionName", "") or "(anonymous)"
    line = cf.get("lineNumber", -1) + 1
    col = cf.get("columnNumber", -1) + 1
    clean = lambda s: s.replace("\t", " ")
    return "%s\t%d:%d\t%s" % (clean(q), line, col, clean(name))


def expected(prof, tot=None, slf=None):
    """Adds the profile's figures to tot and slf (function -> [time, samples])."""
    nodes = {n["id"]: n for n in prof["nodes"]}
    parent = {}
    for n in prof["nodes"]:
        for c in n.get("children", []):
            parent[c] = n["id"]
        if "parent" in n:
            parent[n["id"]] = n["parent"]
    samples = prof["samples"]
    deltas = prof["timeDeltas"]
    ts, t = [], prof["startTime"]
    for d in deltas:
        t += d
        ts.append(t)
    order = sorted(range(len(samples)), key=lambda i: (ts[i], i))
    dur = [0] * len(samples)
    for j in range(len(order) - 1):
        dur[order[j]] = ts[order[j + 1]] - ts[order[j]]
    if len(order) >= 2:
        # DevTools appends a time stamp one mean interval after the last one;
        # rounded to the microsecond, halves up.
        span, m = ts[order[-1]] - ts[order[0]], len(order) - 1
        dur[order[-1]] = (2 * span + m) // (2 * m)
    tot = {} if tot is None else tot
    slf = {} if slf is None else slf
    for i, sid in enumerate(samples):
        path = []
        n = sid
        while True:
            node = nodes[n]
            cf = node["callFrame"]
            is_root = n not in parent
            if not (is_root and cf["functionName"] == "(root)" and not cf.get("url") and path):
                path.append(key_of(cf))
            if is_root:
                break
            n = parent[n]
        charge(tot, slf, path, (dur[i], 1))
    return tot, slf


def charge(tot, slf, path, w):
    """A stack's weights w: to the total of every function on it once,
    however often it recurs, and to the self of its leaf (path[0])."""
    for k in set(path):
        a = tot.setdefault(k, [0, 0])
        a[0] += w[0]
        a[1] += w[1]
    a = slf.setdefault(path[0], [0, 0])
    a[0] += w[0]
    a[1] += w[1]


def expected_heap(doc):
    """Every function's self and total [bytes, samples] in a heap profile,
    the samples that name no node of the tree, and the deepest stack."""
    parent, frame, weight = {}, {}, {}
    todo = [(doc["head"], None)]
    while todo:  # the tree may be deep: no recursion
        node, up = todo.pop()
        nid = node["id"]
        assert nid not in frame, "node id %r twice" % nid
        parent[nid], frame[nid], weight[nid] = up, node["callFrame"], [node["selfSize"], 0]
        todo.extend((c, nid) for c in node["children"])
    unplaced = 0
    for smp in doc.get("samples", []):
        if smp["nodeId"] in weight:
            weight[smp["nodeId"]][1] += 1
        else:
            unplaced += 1
    tot, slf, deepest = {}, {}, 0
    for nid, w in weight.items():
        if w == [0, 0]:
            continue
        path, n = [], nid
        while n is not None:
            cf = frame[n]
            is_root = parent[n] is None
            if not (is_root and cf["functionName"] == "(root)" and not cf.get("url") and path):
                path.append(key_of(cf))
            n = parent[n]
        deepest = max(deepest, len(path))
        charge(tot, slf, path, w)
    return tot, slf, unplaced, deepest


def trace_profiles(events):
    """The profiles a trace counts, each as a Profiler.Profile (parent links,
    samples and deltas of its chunks in file order), and how many there were
    in all."""
    current, profs = {}, []
    for e in events:
        name = e.get("name")
        if name not in ("Profile", "ProfileChunk", "CpuProfile"):
            continue
        key = (e.get("pid"), e.get("id"))
        data = (e.get("args") or {}).get("data") or {}
        if name == "CpuProfile":
            cpu = data["cpuProfile"]
            profs.append({"thread": (e.get("pid"), e.get("tid")), "source": None, "nodes": cpu["nodes"],
                          "samples": cpu["samples"], "timeDeltas": cpu["timeDeltas"],
                          "startTime": cpu.get("startTime", 0)})
            continue
        if name == "Profile":
            p = {"thread": (e.get("pid"), e.get("tid")), "source": None,
                 "nodes": [], "samples": [], "timeDeltas": [], "startTime": 0}
            current[key] = p
            profs.append(p)
        else:
            p = current[key]
            cpu = data.get("cpuProfile") or {}
            p["nodes"] += cpu.get("nodes", [])
            p["samples"] += cpu.get("samples", [])
            p["timeDeltas"] += data.get("timeDeltas", [])
            assert len(p["samples"]) == len(p["timeDeltas"])
        if data.get("source") in ("Internal", "Inspector", "SelfProfiling"):
            p["source"] = data["source"]
    chosen = []
    for thread in dict.fromkeys(p["thread"] for p in profs):
        mine = [p for p in profs if p["thread"] == thread]
        best = [p for src in ("Internal", "Inspector") for p in mine if p["source"] == src] + mine
        chosen.append(best[0])
    return [p for p in chosen if p["nodes"]], len(profs)


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def check(tool, path):
    doc = load(path)
    metrics, unit = ["time", "samples"], "us"
    if isinstance(doc, dict) and "head" in doc:
        tot, slf, unplaced, deepest = expected_heap(doc)
        metrics, unit = ["bytes", "samples"], "bytes"
        what = "%d samples naming no node (not counted), deepest stack %d frames, " % (unplaced, deepest)
    elif isinstance(doc, list) or "traceEvents" in doc:
        profs, nprofs = trace_profiles(doc if isinstance(doc, list) else doc["traceEvents"])
        if not profs:
            sys.exit("%s: no CPU profile in the trace" % path)
        tot, slf = {}, {}
        for p in profs:
            expected(p, tot, slf)
        what = "%d of %d profiles, " % (len(profs), nprofs)
    else:
        tot, slf = expected(doc)
        what = ""
    out = subprocess.run([tool, "report", "--format", "json", path], check=True, stdout=subprocess.PIPE).stdout
    rep = json.loads(out)
    if rep["metrics"] != metrics:
        sys.exit("metrics: %r" % rep["metrics"])
    got = {f["key"]: f for f in rep["functions"]}
    bad = 0
    for k in sorted(set(tot) | set(got)):
        want_t = tot.get(k, [0, 0])
        want_s = slf.get(k, [0, 0])
        f = got.get(k)
        if f is None:
            print("missing in cgprop's report: %r" % k)
            bad += 1
            continue
        if f["total"] != want_t or f["self"] != want_s:
            print("%r: cgprop total %r self %r, expected total %r self %r" % (k, f["total"], f["self"], want_t, want_s))
            bad += 1
    grand = [sum(v[0] for v in slf.values()), sum(v[1] for v in slf.values())]
    if rep["totals"] != grand:
        print("program totals: cgprop %r, expected %r" % (rep["totals"], grand))
        bad += 1
    print("%s: %s%d functions, %d samples, %d %s: %s" % (path, what, len(tot), grand[1], grand[0], unit,
                                                       "FAIL" if bad else "ok"))
    return bad


def devtools_wrap(chromium, profile_path, out):
    """The trace Chromium's bundled DevTools makes of a .cpuprofile when its
    Performance panel opens one (createFakeTraceFromCpuProfile: a CpuProfile
    event holding the profile), written to out as JSON. Run in a DevTools
    page of headless Chromium, over the pipe chrome_profile.py uses. False
    when this Chromium's DevTools has no such function."""
    import chrome_profile
    with open(profile_path) as f:
        profile = f.read()
    url = "devtools://devtools/bundled/devtools_app.html"
    ready = "location.href === %s && document.readyState === 'complete'" % json.dumps(url)
    with chrome_profile.headless_page(chromium, url, ready) as (cdp, session):
        wrap = ("import('./models/trace/trace.js').then(T => {"
                " const H = T.Helpers && T.Helpers.SamplesIntegrator, S = H && H.SamplesIntegrator;"
                " return S && S.createFakeTraceFromCpuProfile ?"
                " JSON.stringify(S.createFakeTraceFromCpuProfile(%s, 1)) : null; })" % profile)
        got = cdp.send("Runtime.evaluate", {"expression": wrap, "returnByValue": True, "awaitPromise": True},
                       session, timeout=120)
    trace = got.get("result", {}).get("value")
    if not trace:
        return False
    with open(out, "w") as f:
        f.write(trace)
    return True


def main():
    if len(sys.argv) == 4 and sys.argv[2] in ("--live", "--heap-live"):
        node = shutil.which("node")
        if not node:
            print("node not installed: live check skipped")
            return 77
        heap = sys.argv[2] == "--heap-live"
        # A sample every 4 KiB allocated on average (node's default is every
        # 512 KiB): a few hundred samples from the fixture's script.
        flags = ["--heap-prof", "--heap-prof-interval=4096", "--heap-prof-dir"] if heap else ["--cpu-prof",
                                                                                               "--cpu-prof-dir"]
        with tempfile.TemporaryDirectory() as d:
            subprocess.run([node] + flags + [d, sys.argv[3]], check=True, stdout=subprocess.DEVNULL)
            ext = ".heapprofile" if heap else ".cpuprofile"
            profs = [os.path.join(d, f) for f in os.listdir(d) if f.endswith(ext)]
            if len(profs) != 1:
                sys.exit("expected one profile, found %r" % profs)
            return 1 if check(sys.argv[1], profs[0]) else 0
    if len(sys.argv) == 4 and sys.argv[2] in ("--chrome", "--chrome-trace", "--chrome-heap"):
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import chrome_profile
        chromium = chrome_profile.find_chromium()
        if not chromium:
            print("chromium not installed: Chromium check skipped")
            return 77
        how = {"--chrome": (chrome_profile.record, "page.cpuprofile"),
               "--chrome-trace": (chrome_profile.record_trace, "page.trace.json"),
               "--chrome-heap": (chrome_profile.record_heap, "page.heapprofile")}[sys.argv[2]]
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, how[1])
            try:
                how[0](chromium, sys.argv[3], out)
            except (EOFError, TimeoutError) as e:
                print("chromium did not run headless (%s): skipped" % e)
                return 77
            bad = check(sys.argv[1], out)
            if sys.argv[2] == "--chrome":
                wrapped = os.path.join(d, "page.cpuprofile-trace.json")
                try:
                    made = devtools_wrap(chromium, out, wrapped)
                except (EOFError, TimeoutError) as e:
                    print("chromium's DevTools did not run headless (%s): CpuProfile check skipped" % e)
                    made = False
                if made:
                    events = load(wrapped)["traceEvents"]
                    print("DevTools' trace of it: %s" % ", ".join("%s ph %s" % (e["name"], e["ph"]) for e in events))
                    bad += check(sys.argv[1], wrapped)
                else:
                    print("this Chromium's DevTools has no createFakeTraceFromCpuProfile: CpuProfile check skipped")
            return 1 if bad else 0
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    return 1 if check(sys.argv[1], sys.argv[2]) else 0


if __name__ == "__main__":
    sys.exit(main())

"""Every input format through the Python package, against the producers'
own figures for the committed recordings (perf report, go tool pprof,
Python's pstats module, gprof) or, for the .cpuprofile, totals worked out
here from the JSON itself."""

import json
import os
import unittest
from collections import defaultdict

import cgprop

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.environ.get("CGPROP_TEST_DATA", os.path.join(HERE, "..", "..", "..", "tests", "data"))
# Set by the build for a library made without zlib: gzip input is refused.
NO_ZLIB = os.environ.get("CGPROP_TEST_NO_ZLIB") == "1"


def load_gz(case, path, **kw):
    """cgprop.load of a gzipped recording; without zlib, the refusal is
    checked and the test skipped."""
    if NO_ZLIB:
        with case.assertRaises(cgprop.CgpropError) as cm:
            cgprop.load(path, **kw)
        case.assertIn("built without zlib", str(cm.exception))
        case.skipTest("library built without zlib: gzip input refused, as it should be")
    return cgprop.load(path, **kw)


def total(p, name, metric):
    return p.get("totals", name, metric).total


def self_cost(p, name, metric):
    return p.get("nodes", name, metric).self


class TestReaders(unittest.TestCase):
    def test_gzipped_event_trace(self):
        # The recorder's entry points inflate gzip as every reader does: a
        # gzipped trace, in memory or in a file, replays as the trace does,
        # compensation, clamps and all.
        import gzip
        import tempfile
        path = os.path.join(DATA, "events", "abc.events")
        with open(path, "rb") as f:
            z = gzip.compress(f.read())
        kw = dict(compensation="online", delta_i=[4], delta_e=[6], clamp=True)
        want = cgprop.load_events(path, **kw)
        if NO_ZLIB:
            with self.assertRaises(cgprop.CgpropError) as cm:
                cgprop.load_events("abc.events.gz", data=z, **kw)
            self.assertIn("built without zlib", str(cm.exception))
            self.skipTest("library built without zlib: gzip input refused, as it should be")
        got = cgprop.load_events("abc.events.gz", data=z, **kw)
        self.assertEqual(got.report(), want.report())
        self.assertEqual((got.info.events, got.info.clamps), (want.info.events, 3))
        with tempfile.NamedTemporaryFile(suffix=".events.gz", delete=False) as f:
            f.write(z)
        try:
            self.assertEqual(cgprop.load_events(f.name, **kw).report(), want.report())
        finally:
            os.unlink(f.name)

    def test_perf_script(self):
        # perf report --children --stdio --sort symbol on the same perf.data
        # (tests/data/perf/recur.report), event cpu-clock: 129 samples; fib
        # 63.57 % children and self, walk 54.26 % / 3.10 %, is_even 32.56 %,
        # is_odd 29.46 % / 0. The recording has a second event (task-clock),
        # which is a metric of its own.
        p = cgprop.load(os.path.join(DATA, "perf", "recur.perf"), input="perf")
        self.assertEqual(p.info.format, cgprop.InputFormat.PERF)
        self.assertIn("task-clock", p.metrics)
        n = sum(r.self for r in p.nodes("cpu-clock"))
        for name, children, own in (("fib", 63.57, 63.57), ("walk", 54.26, 3.10), ("is_even", 32.56, 32.56),
                                    ("is_odd", 29.46, 0.0)):
            self.assertAlmostEqual(100.0 * total(p, name, "cpu-clock") / n, children, delta=0.005, msg=name)
            self.assertAlmostEqual(100.0 * self_cost(p, name, "cpu-clock") / n, own, delta=0.005, msg=name)
            self.assertEqual(p.get("totals", name, "cpu-clock").estimate, cgprop.Estimate.EXACT)

    def test_pprof_gzipped(self):
        # go tool pprof -top -cum (tests/data/pprof/recur.top.samples.txt):
        # main.spin flat 59 cum 200, main.ping cum 88, main.walk cum 86.
        p = load_gz(self, os.path.join(DATA, "pprof", "recur.pb.gz"))
        self.assertEqual(p.info.format, cgprop.InputFormat.PPROF)
        self.assertEqual(self_cost(p, "main.spin", "samples_count"), 59)
        for name, cum in (("main.spin", 200), ("main.ping", 88), ("main.walk", 86)):
            self.assertEqual(total(p, name, "samples_count"), cum, name)
        # The metric go tool pprof shows first: cpu, the last sample type.
        self.assertEqual(p.metrics[p.info.default_metric], "cpu_nanoseconds")

    def test_pprof_stacks_cut_short(self):
        # tests/data/pprof/deep.pb.gz: Go's profiler cut the 29 samples of a
        # 100-deep recursion at 64 frames (deep.traces.txt: 290 ms of 580
        # start in main.deep); go tool pprof shows main.main at 50 %
        # (deep.top.txt), where every sample ran under it.
        p = load_gz(self, os.path.join(DATA, "pprof", "deep.pb.gz"))
        self.assertEqual(p.unrooted("samples_count"), 29)
        t = p.get("totals", "main.main", "samples_count")
        self.assertEqual((t.lo, t.hi, t.total), (29, 58, 29))
        self.assertEqual(t.estimate, cgprop.Estimate.MEASURED)
        self.assertEqual(t.reason, cgprop.Reason.UNROOTED)
        t = p.get("totals", "main.spin", "samples_count")
        self.assertEqual((t.total, t.estimate), (58, cgprop.Estimate.EXACT))
        self.assertEqual(load_gz(self, os.path.join(DATA, "pprof", "recur.pb.gz")).unrooted(0), 0)

    def test_cpuprofile(self):
        # Once-per-sample totals from the JSON itself: a function counts once
        # for every sample whose stack holds it, however often.
        path = os.path.join(DATA, "v8", "recur.cpuprofile")
        with open(path) as f:
            doc = json.load(f)
        parent, name = {}, {}
        for node in doc["nodes"]:
            cf = node["callFrame"]
            name[node["id"]] = cf["functionName"]
            for c in node.get("children", []):
                parent[c] = node["id"]
        want = defaultdict(int)
        for s in doc["samples"]:
            seen, v = set(), s
            while v in name:
                if name[v] not in ("(root)",):
                    seen.add(name[v])
                v = parent.get(v)
            for fn in seen:
                want[fn] += 1
        p = cgprop.load(path, input="cpuprofile")
        self.assertEqual(p.info.format, cgprop.InputFormat.V8)
        checked = 0
        for fn in ("fib", "isEven", "isOdd", "walk"):
            if fn not in want:
                continue
            self.assertEqual(total(p, fn, "samples"), want[fn], fn)
            checked += 1
        self.assertGreaterEqual(checked, 3)

    def test_pstats_file_and_live(self):
        # Python's own pstats module (tests/data/pstats/recur.expected):
        # json.dumps, 50 calls, tottime 17355 ns, cumtime 386037 ns.
        p = cgprop.load(os.path.join(DATA, "pstats", "recur.pstats"), input="cprofile")
        self.assertEqual(p.info.recursion, cgprop.Recursion.STATED)
        key = [k for k in (p.key(i) for i in p) if k.endswith("json/__init__.py:183\tdumps")]
        self.assertEqual(len(key), 1)
        self.assertEqual(self_cost(p, key[0], "ns"), 17355)
        self.assertEqual(total(p, key[0], "ns"), 386037)
        self.assertEqual(p.get("totals", key[0], "ns").estimate, cgprop.Estimate.EXACT)

    def test_gprof(self):
        # gprof's call graph (tests/data/gprof/cycles.gprof): pong self 0.29 s,
        # ping 0.22 s, pang 0.07 s; cycle 1 as a whole self 0.58 s.
        p = cgprop.load(os.path.join(DATA, "gprof", "cycles.gprof"), input="gprof")
        self.assertEqual(p.info.recursion, cgprop.Recursion.COUNTS)
        for fn, cs in (("pong", 29), ("ping", 22), ("pang", 7)):
            self.assertEqual(self_cost(p, fn, "cs"), cs, fn)
        cyc = [c for c in p.cycles("cs") if c.nmembers == 3]
        self.assertEqual(len(cyc), 1)
        self.assertEqual(cyc[0].self, 58)

    def test_merge_of_two_inputs(self):
        # The same recording twice: every figure doubles.
        a = load_gz(self, os.path.join(DATA, "pprof", "recur.pb.gz"))
        b = load_gz(self, os.path.join(DATA, "pprof", "recur.pb.gz"), analyze=False)
        cgprop.merge(a, b)
        a.analyze()
        self.assertEqual(total(a, "main.walk", "samples_count"), 172)


if __name__ == "__main__":
    unittest.main()

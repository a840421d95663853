"""The Python-side API: look-up by name, atomic building, typed rows, enums,
file errors, the one-call analysis and Python's own profiles.

Expected figures are worked out by hand in the comments. Run with
CGPROP_LIBRARY pointing at a built libcgprop.so (ctest does this).
"""

import cProfile
import dataclasses
import errno
import os
import pstats
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import cgprop  # noqa: E402

DATA = os.environ.get("CGPROP_TEST_DATA", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                       "..", "..", "..", "tests", "data"))


class TestLookUp(unittest.TestCase):
    def setUp(self):
        # Readers build keys "object TAB file TAB name"; the display name is the last part.
        g = self.g = cgprop.Graph()
        g.add_self("liba.so\ta.c\tmain", 1)
        g.add_self("liba.so\ta.c\tparse", 2)
        g.add_self("libb.so\tb.c\tparse", 3)
        g.add_self("plain", 4)

    def test_by_key_and_by_display_name(self):
        g = self.g
        self.assertEqual(g["liba.so\ta.c\tmain"], 0)
        self.assertEqual(g["main"], 0)        # one function shows as "main"
        self.assertEqual(g[b"plain"], 3)
        self.assertEqual(g.display_name(1), "parse")
        self.assertIn("main", g)
        self.assertIn("parse", g)             # exists, though ambiguous
        self.assertNotIn("nope", g)
        self.assertEqual(list(g), [0, 1, 2, 3])

    def test_missing_is_a_key_error(self):
        with self.assertRaises(KeyError) as cm:
            self.g["nope"]
        self.assertIsInstance(cm.exception, cgprop.FunctionNotFoundError)
        self.assertIn("nope", str(cm.exception))
        with self.assertRaises(TypeError):
            self.g[0]

    def test_ambiguous_display_name_lists_the_keys(self):
        with self.assertRaises(cgprop.AmbiguousNameError) as cm:
            self.g["parse"]
        e = cm.exception
        self.assertEqual(e.keys, ["liba.so\ta.c\tparse", "libb.so\tb.c\tparse"])
        self.assertIn(repr("liba.so\ta.c\tparse"), str(e))
        self.assertIn(repr("libb.so\tb.c\tparse"), str(e))
        self.assertNotIsInstance(e, KeyError)  # the name exists: not "missing"
        # every reading method resolves names the same way
        with self.assertRaises(cgprop.AmbiguousNameError):
            self.g.get("nodes", "parse")
        self.assertEqual(self.g.get("nodes", "main").self, 1)

    def test_names_added_later_are_found(self):
        g = self.g
        self.assertEqual(g["main"], 0)  # builds the name index
        g.add_self("libc.so\tc.c\tlate", 5)
        self.assertEqual(g["late"], 4)
        g.add_self("libc.so\tc.c\tmain", 6)
        with self.assertRaises(cgprop.AmbiguousNameError):
            g["main"]

    def test_adding_takes_keys_not_display_names(self):
        # "main" is a new key, though a function shows as "main": adding
        # data never guesses which function a display name means.
        g = self.g
        n = len(g)
        g.add_self("main", 1)
        self.assertEqual(len(g), n + 1)


class TestAtomicBuilding(unittest.TestCase):
    """A refused call adds no function (the library cannot remove one)."""

    def setUp(self):
        self.g = cgprop.Graph(metrics=["t"])
        self.g.add_self("main", 1)

    def assertUnchanged(self, key="typo"):
        self.assertNotIn(key, self.g)
        self.assertEqual(len(self.g), 1)

    def test_bad_costs(self):
        with self.assertRaises(cgprop.InvalidArgumentError):
            self.g.add_call("main", "typo", 1, [1, 2])  # two costs, K = 1
        self.assertUnchanged()
        with self.assertRaises(cgprop.InvalidArgumentError):
            self.g.add_call("typo", "main", 1, [-1])
        self.assertUnchanged()

    def test_bad_count_and_level(self):
        with self.assertRaises(cgprop.InvalidArgumentError):
            self.g.add_call("main", "typo", -1)
        self.assertUnchanged()
        with self.assertRaises(cgprop.InvalidArgumentError):
            self.g.add_call_class("main", "typo", 0, "sideways", 1, [1])
        self.assertUnchanged()

    def test_bad_other_function(self):
        with self.assertRaises(cgprop.InvalidArgumentError):
            self.g.add_call("typo", 5, 1)  # no function 5
        self.assertUnchanged()
        with self.assertRaises(TypeError):
            self.g.add_call("typo", 1.5, 1)
        self.assertUnchanged()

    def test_overflow_of_the_existing_callee(self):
        # main already has 2^64 - 1 calls in: one more from a new caller
        # would overflow, and the new caller must not stay behind.
        g = self.g
        g.add_call("main", "main", 2 ** 64 - 1)
        with self.assertRaises(cgprop.CostOverflowError):
            g.add_call("typo", "main", 1)
        self.assertUnchanged()
        self.assertEqual(g.get("nodes", "main").calls_in, 2 ** 64 - 1)

    def test_stack_spontaneous_self_and_recorder(self):
        g = self.g
        with self.assertRaises(cgprop.InvalidArgumentError):
            g.add_stack(["main", "typo"], [1, 1])
        self.assertUnchanged()
        with self.assertRaises(cgprop.InvalidArgumentError):
            g.add_spontaneous("typo", 1, "x")
        self.assertUnchanged()
        with self.assertRaises(cgprop.InvalidArgumentError):
            g.add_self("typo", 1, level="sideways")
        self.assertUnchanged()
        with cgprop.Recorder(g) as r:
            with self.assertRaises(cgprop.InvalidArgumentError):
                r.enter("typo", [1, 2])
        self.assertUnchanged()

    def test_accepted_call_adds_both(self):
        e = self.g.add_call("main", "new", 2, [7])
        self.assertEqual(self.g.get("calls", e).count, 2)
        self.assertEqual(len(self.g), 2)


class TestTypedRows(unittest.TestCase):
    def test_rows_are_frozen_dataclasses_with_enums(self):
        g = cgprop.Graph()
        g.add_self("a", 5)
        g.add_call("a", "b", 1)  # no measured cost
        g.analyze()
        row = g.get("nodes", "a")
        self.assertTrue(dataclasses.is_dataclass(row))
        with self.assertRaises(dataclasses.FrozenInstanceError):
            row.self = 6
        self.assertIsInstance(row.flags, cgprop.Flag)
        call = next(iter(g.calls()))
        self.assertIsNone(call.cost)          # no Flag.HAS_COST: no cost, not 0
        t = g.get("totals", "a")
        self.assertIsInstance(t.reason, cgprop.Reason)
        self.assertIsInstance(t.estimate, cgprop.Estimate)
        self.assertIsNone(t.cycle)            # CGPROP_NONE
        # without measured call costs there is no proven interval
        self.assertTrue(t.flags & cgprop.Flag.NO_BOUNDS)
        self.assertIsNone(t.lo)
        self.assertIsNone(t.hi)
        s = g.get("splits", "a")
        self.assertIsInstance(s.inexact, cgprop.Inexact)

    def test_interval_present_when_measured(self):
        # a (self 5) calls b (self 3) once with measured cost 3: exact, a = 8
        g = cgprop.Graph()
        g.add_self("a", 5)
        g.add_self("b", 3)
        g.add_call("a", "b", 1, [3])
        g.analyze()
        t = g.get("totals", "a")
        self.assertEqual((t.lo, t.hi, t.total), (8.0, 8.0, 8.0))
        self.assertEqual(next(iter(g.calls())).cost, 3)

    def test_enum_values_are_the_c_numbers(self):
        self.assertEqual(int(cgprop.Flag.IN_CYCLE), 1)
        self.assertEqual(int(cgprop.Flag.NO_WALK), 1 << 14)
        self.assertEqual(int(cgprop.Estimate.MIDPOINT), 4)
        self.assertEqual(int(cgprop.Status.EWRITE), -7)
        self.assertEqual(int(cgprop.InputFormat.PSTATS), 7)
        self.assertEqual(int(cgprop.IterKind.EDGE_SPLIT), 10)
        # names or members wherever a kind is taken
        g = cgprop.Graph()
        g.add_call("a", "b", 1)
        g.find_cycles()
        g.collapse(cgprop.Share.COUNT)
        g.collapse("cost")
        with self.assertRaises(cgprop.InvalidArgumentError):
            g.collapse("sideways")


class TestAnalyze(unittest.TestCase):
    def test_one_call_gives_every_result(self):
        # a <-> b, main -> a: one cycle; then totals, splits and writers work
        g = cgprop.Graph()
        g.add_self("main", 1)
        g.add_self("a", 2)
        g.add_self("b", 3)
        g.add_call("main", "a", 1)
        g.add_call("a", "b", 1)
        g.add_call("b", "a", 1)
        self.assertEqual(g.analyze(), 1)
        # shares by count (no call costs): the cycle is entered only by
        # main -> a, so main's total is 1 + 2 + 3 = 6
        self.assertEqual(g.get("totals", "main").total, 6.0)
        self.assertEqual(len(g.splits()), 3)
        self.assertTrue(cgprop.write(g, "text"))
        gen = g.generation
        self.assertEqual(g.analyze(), 1)      # current results: nothing redone
        self.assertEqual(g.generation, gen)
        self.assertEqual(g.analyze("count"), 1)


class TestFileErrors(unittest.TestCase):
    def test_missing_file(self):
        path = os.path.join(DATA, "no-such-file")
        with self.assertRaises(FileNotFoundError) as cm:
            cgprop.load(path)
        e = cm.exception
        self.assertIsInstance(e, cgprop.NotFoundError)
        self.assertIsInstance(e, cgprop.CgpropError)
        self.assertEqual((e.errno, e.filename), (errno.ENOENT, path))
        self.assertIn(path, str(e))
        with self.assertRaises(FileNotFoundError):
            cgprop.load_events(path)

    def test_directory(self):
        with self.assertRaises(IsADirectoryError):
            cgprop.load(DATA)

    @unittest.skipIf(hasattr(os, "geteuid") and os.geteuid() == 0, "root reads any file")
    def test_permission(self):
        fd, path = tempfile.mkstemp(suffix=".folded")
        try:
            os.write(fd, b"A 1\n")
            os.close(fd)
            os.chmod(path, 0)
            with self.assertRaises(PermissionError) as cm:
                cgprop.load(path)
            self.assertIsInstance(cm.exception, cgprop.CgpropError)
        finally:
            os.unlink(path)

    def test_os_error_classes(self):
        # what load() raises for each errno (root cannot see EACCES above)
        from cgprop import _errors
        for num, builtin in ((errno.ENOENT, FileNotFoundError), (errno.EACCES, PermissionError),
                             (errno.EPERM, PermissionError), (errno.EISDIR, IsADirectoryError)):
            e = _errors.open_error(-3, "f: cannot open", num, "f")
            self.assertIsInstance(e, builtin)
            self.assertIsInstance(e, cgprop.OpenError)
            self.assertIsInstance(e, cgprop.NotFoundError)
            self.assertEqual((e.errno, e.filename, e.code, str(e)), (num, "f", -3, "f: cannot open"))

    def test_malformed_names_file_and_line(self):
        fd, path = tempfile.mkstemp(suffix=".folded")
        try:
            os.write(fd, b"A 1\nA;B 2\nA;B;C many\n")
            os.close(fd)
            with self.assertRaises(cgprop.FormatError) as cm:
                cgprop.load(path, input="folded")
            e = cm.exception
            self.assertEqual((e.file, e.line), (path, 3))
            self.assertTrue(str(e).startswith("%s:3: " % path), str(e))
        finally:
            os.unlink(path)


class TestLoading(unittest.TestCase):
    """Where the library comes from; each case in a fresh interpreter, since
    a process loads it once."""

    PROBE = "import cgprop, cgprop._ffi as f; print(f.lib().path); print(cgprop.version())"

    def run_probe(self, env):
        import subprocess
        env = dict(env, PYTHONPATH=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
        return subprocess.run([sys.executable, "-c", self.PROBE], capture_output=True, text=True, env=env)

    def test_by_soname_through_the_loader(self):
        lib = os.environ.get("CGPROP_LIBRARY")
        if not lib or not os.path.exists(os.path.join(os.path.dirname(lib), "libcgprop.so.0.3")):
            self.skipTest("no libcgprop.so.0.3 beside CGPROP_LIBRARY")
        env = {k: v for k, v in os.environ.items() if k != "CGPROP_LIBRARY"}
        env["LD_LIBRARY_PATH"] = os.path.dirname(lib)
        r = self.run_probe(env)
        self.assertEqual(r.returncode, 0, r.stderr)
        path, ver = r.stdout.split()
        self.assertTrue(path.startswith("libcgprop.so"), path)  # a name the loader resolved, not a path
        self.assertEqual(ver, cgprop.__version__)

    def test_another_abi_is_refused(self):
        # A stand-in library whose cgprop_version() says 0.2.0 (200).
        import shutil
        import subprocess
        cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
        if not cc or not shutil.which(cc):
            self.skipTest("no C compiler for the stand-in library")
        with tempfile.TemporaryDirectory() as tmp:
            src = os.path.join(tmp, "old.c")
            so = os.path.join(tmp, "libold.so")
            with open(src, "w") as f:
                f.write("unsigned cgprop_version(void) { return 200; }\n")
            subprocess.run([cc, "-shared", "-fPIC", "-o", so, src], check=True)
            r = self.run_probe(dict(os.environ, CGPROP_LIBRARY=so))
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("LibraryNotFound", r.stderr)
        self.assertIn("libcgprop 0.2.0; this binding needs 0.3.x", r.stderr)


def fact(n):
    return 1 if n <= 1 else n * fact(n - 1)


class TestPstats(unittest.TestCase):
    """Python's own profiles through the pstats reader (input format 7)."""

    def _load(self, obj):
        try:
            return cgprop.from_pstats(obj)
        except cgprop.InvalidArgumentError as e:
            if "input format 7" in str(e):
                self.skipTest("this libcgprop has no pstats reader (%s)" % e)
            raise

    def test_recursive_function(self):
        prof = cProfile.Profile()
        prof.enable()
        fact(5)
        prof.disable()
        p = self._load(prof)  # create_stats() is called for us
        st = pstats.Stats(prof)
        # fact(5) runs fact(4) .. fact(1): 5 calls, 4 of them from fact itself
        key = next(k for k in st.stats if k[2] == "fact")
        self.assertEqual(st.stats[key][1], 5)
        # a callers entry is (nc, cc, tt, ct): nc first, unlike the function's own (cc, nc, ...)
        self.assertEqual(st.stats[key][4][key][0], 4)
        f = p["fact"]
        self.assertEqual(p.get("calls", p.find_call(f, f)).count, 4)
        # the same through a pstats.Stats
        q = self._load(st)
        self.assertEqual(q.get("calls", q.find_call(q["fact"], q["fact"])).count, 4)

    def test_marshals_the_stats_dict(self):
        # Without a reader to run, check what goes to it: the stats dict,
        # marshalled as pstats writes its files, read as format 7.
        import marshal
        from cgprop import _io
        st = {("m.py", 1, "f"): (1, 1, 0.5, 0.5, {})}
        seen = {}

        def fake_load(name, **kw):
            seen.update(kw, name=name)
            return "profile"

        old = _io.load
        _io.load = fake_load
        try:
            self.assertEqual(cgprop.from_pstats(st, name="x.prof"), "profile")
        finally:
            _io.load = old
        self.assertEqual(seen["name"], "x.prof")
        self.assertEqual(seen["input"], cgprop.InputFormat.PSTATS)
        self.assertEqual(marshal.loads(seen["data"]), st)

    def test_rejects_other_objects(self):
        with self.assertRaises(TypeError):
            cgprop.from_pstats(42)


if __name__ == "__main__":
    unittest.main()

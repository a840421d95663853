"""Graph building, analyses and iteration through the Python binding.

Every expected figure below is worked out by hand in the comments; none is
copied from the library's output. Run with CGPROP_LIBRARY pointing at a
built libcgprop.so (ctest does this).
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import cgprop  # noqa: E402
from cgprop import _core  # noqa: E402


def notes_example():
    # The A/B/C example of docs/SPLIT.md as five samples of weight 10:
    #   A          A self 10 (level 0)
    #   A;C        C self 10 (C level 0)
    #   A;B        B self 10
    #   A;B;A      inner A self 10 (level 1)
    #   A;B;A;C    C self 10, below a level-1 A (C itself level 0)
    g = cgprop.Graph(metrics=["samples"])
    for s in ("A", "A;C", "A;B", "A;B;A", "A;B;A;C"):
        g.add_stack(s.split(";"), [10])
    return g


class TestBuilding(unittest.TestCase):
    def test_ids_are_dense_and_keys_round_trip(self):
        g = cgprop.Graph(metrics=["Ir", "Dr"])
        self.assertEqual(g.metrics, ["Ir", "Dr"])
        self.assertEqual(g.add_function("main"), 0)
        self.assertEqual(g.add_function(b"f\x00g"), 1)
        self.assertEqual(g.add_function("main"), 0)  # same key, same id
        self.assertEqual(g.find_function("f\x00g"), 1)
        self.assertEqual(g.key_bytes(1), b"f\x00g")  # NUL inside a key survives
        self.assertEqual(g.key(0), "main")
        self.assertEqual(len(g), 2)
        self.assertEqual(g.metric("Dr"), 1)
        # a key that is not UTF-8 comes back as surrogate escapes and goes in again unchanged
        k = g.add_function(b"\xff\xfe")
        self.assertEqual(g.find_function(g.key(k)), k)

    def test_calls_accumulate(self):
        g = cgprop.Graph(metrics=["Ir", "Dr"])
        e = g.add_call("main", "f", 2, [30, 3])
        self.assertEqual(g.add_call("main", "f", 1, {"Dr": 1}), e)
        self.assertEqual(g.call_count, 1)
        self.assertEqual(g.find_call("main", "f"), e)
        rows = list(g.calls(metric="Dr"))
        self.assertEqual(rows, [cgprop.CallRow(id=e, caller=0, callee=1, flags=cgprop.Flag.HAS_COST,
                                               count=3, cost=4)])
        self.assertEqual(list(g.calls())[0].cost, 30)  # Ir: 30 + 0

    def test_node_rows(self):
        g = cgprop.Graph()
        g.add_self("main", 5)
        g.add_call("main", "f", 3, None)
        g.add_call("f", "f", 2, None)
        g.add_spontaneous("main", 1, [7])
        rows = {r.id: r for r in g.nodes()}
        # main: self 5, one spontaneous entry of cost 7, no caller
        self.assertEqual(rows[0], cgprop.NodeRow(0, cgprop.Flag.SPONTANEOUS | cgprop.Flag.NO_CALLERS, 5, 1, 7, 0))
        # f: called 3 + 2 times (self-calls included), calls itself
        self.assertEqual(rows[1], cgprop.NodeRow(1, cgprop.Flag.SELF_RECURSIVE, 0, 0, 0, 5))
        self.assertEqual(g.get("nodes", "f"), rows[1])

    def test_callers_and_callees(self):
        g = cgprop.Graph()
        g.add_call("a", "b", 1)
        g.add_call("a", "c", 1)
        g.add_call("c", "b", 1)
        self.assertEqual(sorted((r.caller, r.callee) for r in g.callees("a")), [(0, 1), (0, 2)])
        self.assertEqual(sorted(r.caller for r in g.callers("b")), [0, 2])
        self.assertEqual(len(g.callers("c")), 1)


class TestErrors(unittest.TestCase):
    def test_error_classes_carry_the_library_message(self):
        g = cgprop.Graph()
        g.add_function("a")
        with self.assertRaises(cgprop.InvalidArgumentError) as cm:
            g.get("nodes", 7)  # no function 7: the library finds out
        self.assertEqual(cm.exception.code, -2)
        self.assertIn("7", str(cm.exception))
        self.assertEqual(str(cm.exception), g.errmsg)  # the library's own text
        self.assertIsInstance(cm.exception, ValueError)
        with self.assertRaises(cgprop.NotFoundError) as cm:
            g.find_function("nope")
        self.assertIsInstance(cm.exception, LookupError)
        self.assertIn("nope", str(cm.exception))

    def test_overflow_adds_nothing(self):
        g = cgprop.Graph()
        g.add_self("a", 2 ** 64 - 1)
        with self.assertRaises(cgprop.CostOverflowError):
            g.add_self("a", 1)
        self.assertEqual(g.get("nodes", "a").self, 2 ** 64 - 1)

    def test_cost_vectors_are_checked(self):
        g = cgprop.Graph(metrics=["a", "b"])
        with self.assertRaises(cgprop.InvalidArgumentError):
            g.add_self("f", [1])
        with self.assertRaises(cgprop.InvalidArgumentError):
            g.add_self("f", 1)
        with self.assertRaises(cgprop.InvalidArgumentError):
            g.add_self("f", [1, -1])
        with self.assertRaises(cgprop.NotFoundError):
            g.add_self("f", {"nope": 1})

    def test_bad_metric_list(self):
        with self.assertRaises(cgprop.InvalidArgumentError):
            cgprop.Graph(metrics=[])
        with self.assertRaises(cgprop.InvalidArgumentError):
            cgprop.Graph(metrics=["x"] * 65)

    def test_analysis_order(self):
        g = notes_example()
        with self.assertRaises(cgprop.StateError) as cm:
            list(g.totals())
        self.assertIn("propagate", str(cm.exception))
        with self.assertRaises(cgprop.StateError):
            g.collapse()  # find_cycles first
        with self.assertRaises(cgprop.InvalidArgumentError):
            g.collapse("sideways")

    def test_stale_iterator(self):
        g = notes_example()
        rows = g.nodes()
        next(rows)
        g.add_self("A", 1)
        with self.assertRaises(cgprop.StateError) as cm:
            list(rows)
        self.assertIn("stale", str(cm.exception))

    def test_closed_graph(self):
        g = notes_example()
        rows = g.nodes()
        g.close()
        with self.assertRaises(cgprop.StateError):
            g.add_function("x")
        with self.assertRaises(cgprop.StateError):
            next(rows)
        g.close()  # twice is fine

    def test_strerror(self):
        self.assertEqual(cgprop.strerror(0), "success")
        self.assertNotEqual(cgprop.strerror(-4), cgprop.strerror(-2))


class TestNotesExample(unittest.TestCase):
    """Split figures of the A/B/C example, from stacks."""

    def setUp(self):
        self.g = notes_example()
        self.assertEqual(self.g.analyze(), 1)  # {A, B} is one cycle
        self.id = {k: self.g.find_function(k) for k in "ABC"}

    def test_split_rows(self):
        s = {self.g.key(r.id): r for r in self.g.splits()}
        a, b, c = s["A"], s["B"], s["C"]
        self.assertEqual((a.S_n, a.S_r, a.C_n, a.C_r), (10, 10, 50, 20))
        self.assertEqual((b.S_n, b.S_r, b.C_n, b.C_r), (10, 0, 30, 0))
        self.assertEqual((c.S_n, c.S_r, c.C_n, c.C_r), (20, 0, 20, 0))
        # D(f) = C_n(f) - sum_g C_xr(f,g): D(B) = 30 - 20, D(C) = 20; S(A) + D(B) + D(C) = 50
        self.assertEqual((b.D, c.D), (10.0, 20.0))
        self.assertEqual(a.inexact | b.inexact | c.inexact, 0)

    def test_call_split_rows(self):
        ids = self.id
        e = {(r.caller, r.callee): r for r in self.g.call_splits()}
        ab, ac, ba = e[ids["A"], ids["B"]], e[ids["A"], ids["C"]], e[ids["B"], ids["A"]]
        self.assertEqual((ab.C_nn, ab.C_nr, ab.C_rn, ab.C_rr), (30, 0, 0, 0))
        self.assertEqual((ac.C_nn, ac.C_rn), (10, 10))  # C_xn(A,C) = 20
        self.assertEqual((ba.C_nn, ba.C_nr), (0, 20))

    def test_cycles_and_members(self):
        g = self.g
        cyc = list(g.cycles())
        self.assertEqual(len(cyc), 1)
        self.assertEqual((cyc[0].nmembers, cyc[0].first, cyc[0].self), (2, self.id["A"], 30))
        # A is the first frame of every stack: everything entered through A, T(Z) = 50
        self.assertEqual(cyc[0].total, 50.0)
        self.assertEqual(sorted(m.node for m in g.members(0)), sorted([self.id["A"], self.id["B"]]))
        self.assertEqual(g.node_cycle("A"), 0)
        self.assertIsNone(g.node_cycle("C"))

    def test_heuristic_totals(self):
        t = {self.g.key(r.id): r for r in self.g.totals()}
        # gprof2dot's figure: rho(A) = 1; BFS from A keeps A->B only;
        # p(B) = S(B) + 0 = 10, p(A) = S(A) + T(C)*share(A->C) + p(B) = 50
        self.assertEqual(t["A"].heuristic, 50.0)
        self.assertEqual(t["B"].heuristic, 10.0)
        # total is the best figure: the stacks give B's exact C_n, 30
        # (A's 20 + 10 calls into B, which calls A again), a point interval.
        self.assertEqual(t["A"].total, 50.0)
        self.assertEqual(t["B"].total, 30.0)
        self.assertEqual((t["B"].lo, t["B"].hi), (30.0, 30.0))
        self.assertEqual(t["B"].estimate, cgprop.Estimate.EXACT)
        self.assertFalse(t["B"].flags & cgprop.Flag.ESTIMATE)
        self.assertTrue(t["B"].flags & cgprop.Flag.IN_CYCLE)
        self.assertEqual(t["B"].cycle, 0)
        self.assertIsNone(t["C"].cycle)  # CGPROP_NONE


class TestTwoCyclePropagation(unittest.TestCase):
    """main -> a (1 call), a <-> b (3 and 2 calls), b -> c (1 call); self
    costs main 10, a 20, b 30, c 40; no call costs, so shares go by count."""

    def setUp(self):
        g = self.g = cgprop.Graph(metrics=["ns"])
        for k, s in (("main", 10), ("a", 20), ("b", 30), ("c", 40)):
            g.add_self(k, s)
        g.add_call("main", "a", 1)
        g.add_call("a", "b", 3)
        g.add_call("b", "a", 2)
        g.add_call("b", "c", 1)
        self.assertEqual(g.find_cycles(), 1)
        g.collapse("count")
        g.propagate()

    def test_collapse(self):
        # T(c) = 40; T(Z) = S(a) + S(b) + T(c) * 1/1 = 90; T(main) = 10 + 90 * 1/1 = 100
        cyc = list(self.g.cycles())
        self.assertEqual([(c.nmembers, c.self, c.total) for c in cyc], [(2, 50, 90.0)])

    def test_per_root_totals(self):
        t = {self.g.key(r.id): r for r in self.g.totals()}
        # entry a (rho = 1); DAG a -> b; p(b) = 30 + 40 = 70; p(a) = 20 + 70 = 90
        self.assertEqual({k: r.total for k, r in t.items()},
                         {"main": 100.0, "a": 90.0, "b": 70.0, "c": 40.0})
        self.assertEqual((t["a"].vertex_total, t["b"].vertex_total), (90.0, 90.0))
        # members' gprof figures: own self + shares of out-of-cycle callees
        self.assertEqual((t["a"].gprof_self, t["a"].gprof_child), (20.0, 0.0))
        self.assertEqual((t["b"].gprof_self, t["b"].gprof_child), (30.0, 40.0))
        self.assertTrue(t["main"].flags & cgprop.Flag.ROOT)

    def test_call_totals(self):
        g = self.g
        e = {(g.key(r.caller), g.key(r.callee)): r for r in g.call_totals()}
        self.assertEqual(e["main", "a"].total, 90.0)
        self.assertEqual(e["a", "b"].total, 70.0)
        self.assertEqual(e["b", "c"].total, 40.0)
        # b -> a is in no entry's DAG
        self.assertTrue(e["b", "a"].flags & cgprop.Flag.NO_TOTAL)
        self.assertTrue(e["b", "a"].flags & cgprop.Flag.INTRA_CYCLE)
        self.assertEqual(e["b", "a"].total, 0.0)
        self.assertEqual(g.get("call_totals", g.find_call("main", "a")).total, 90.0)


class TestBulkCopy(unittest.TestCase):
    def test_many_rows_across_chunks(self):
        # a chain f0 -> f1 -> ... with self cost i at fi: rows must come back
        # complete and in id order whatever the chunk size
        n = 1000
        g = cgprop.Graph()
        for i in range(n):
            g.add_self("f%d" % i, i)
            if i:
                g.add_call("f%d" % (i - 1), "f%d" % i, 1, [i])
        old = _core.CHUNK_ROWS
        try:
            for chunk in (1, 7, 4096):
                _core.CHUNK_ROWS = chunk
                rows = g.nodes()
                self.assertEqual(len(rows), n)
                got = list(rows)
                self.assertEqual([r.id for r in got], list(range(n)))
                self.assertEqual([r.self for r in got], list(range(n)))
                self.assertEqual(sum(r.cost for r in g.calls()), n * (n - 1) // 2)
        finally:
            _core.CHUNK_ROWS = old

    def test_empty_graph(self):
        g = cgprop.Graph()
        self.assertEqual(list(g.nodes()), [])
        self.assertEqual(g.find_cycles(), 0)

    def test_early_close(self):
        g = notes_example()
        with g.nodes() as rows:
            next(rows)
        self.assertEqual(list(rows), [])


class TestVersion(unittest.TestCase):
    def test_library_matches_binding(self):
        self.assertEqual(cgprop.version(), cgprop.__version__)
        self.assertEqual(cgprop._ffi.lib().cgprop_version(), cgprop._ffi.CGPROP_VERSION_NUMBER)


if __name__ == "__main__":
    unittest.main()


class TestBulkBuilding(unittest.TestCase):
    """add_functions / add_calls against the same data added one at a time."""

    def _random_calls(self, seed, nn, n):
        import random
        r = random.Random(seed)
        callers, callees, counts, costs = [], [], [], []
        while len(callers) < n:
            a = r.randrange(nn)  # a caller's calls together, callers coming round again
            for _ in range(r.randrange(1, 6)):
                callers.append(a)
                callees.append(r.randrange(nn))
                counts.append(r.randrange(4))
                costs.append([r.randrange(100), r.randrange(3)])
        return callers[:n], callees[:n], counts[:n], costs[:n]

    def test_same_as_single_calls(self):
        for seed in range(8):
            keys = ["f%d" % i for i in range(12)]
            bulk = cgprop.Graph(metrics=["Ir", "Dr"])
            one = cgprop.Graph(metrics=["Ir", "Dr"])
            self.assertEqual(bulk.add_functions(keys + ["f3"]), list(range(12)) + [3])
            for k in keys:
                one.add_function(k)
            if seed % 2:  # calls before the batch
                for g in (bulk, one):
                    g.add_call(1, 2, 1, [5, 5])
            a, b, n, c = self._random_calls(seed, 12, 150)
            costs = None if seed == 3 else c
            ids = bulk.add_calls(a, b, n, costs)
            want = [one.add_call(a[i], b[i], n[i], None if costs is None else costs[i]) for i in range(len(a))]
            self.assertEqual(ids, want)
            self.assertEqual(list(bulk.calls()), list(one.calls()))
            self.assertEqual(list(bulk.nodes()), list(one.nodes()))
            # Brute force: a pair's call sums every count given for it.
            sums = {}
            for i in range(len(a)):
                sums[(a[i], b[i])] = sums.get((a[i], b[i]), 0) + n[i]
            if seed % 2:
                sums[(1, 2)] = sums.get((1, 2), 0) + 1
            self.assertEqual({(r.caller, r.callee): r.count for r in bulk.calls()}, sums)

    def test_all_or_nothing(self):
        g = cgprop.Graph(metrics=["Ir"])
        g.add_functions(["a", "b", "c"])
        g.add_call(0, 1, 2 ** 64 - 2, [1])
        gen = g.generation
        # The third call overflows a->b's count: nothing of the batch stays.
        with self.assertRaises(cgprop.CostOverflowError):
            g.add_calls([2, 2, 0], [0, 1, 1], [1, 1, 5], [[1], [1], [1]])
        self.assertEqual(g.generation, gen)
        self.assertEqual(g.call_count, 1)
        with self.assertRaises(cgprop.InvalidArgumentError):
            g.add_calls([0, 7], [1, 1], [1, 1])  # no function 7
        self.assertEqual(g.call_count, 1)
        self.assertEqual(g.get("nodes", 1).calls_in, 2 ** 64 - 2)

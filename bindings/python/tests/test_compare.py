"""cgprop.write_compare() on two folded profiles whose figures are worked
out by hand (the same pair as tests/check_compare.c):

base: main 10 / main;a 20 / main;a;a 10 / main;b 30 / main;old 30 (program 100)
new:  main 10 / main;a 20 / main;a;a 40 / main;b 10 / main;nw 120 (program 200)

a: 30 -> 60 (+30, 30 % -> 30 %: 0 points); b: 30 -> 10 (-20, -25 points);
old removed (-30); nw added (+120, +60 points); main +100, 0 points.
"""

import io
import json
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))

import cgprop  # noqa: E402

BASE = b"main 10\nmain;a 20\nmain;a;a 10\nmain;b 30\nmain;old 30\n"
NEW = b"main 10\nmain;a 20\nmain;a;a 40\nmain;b 10\nmain;nw 120\n"


class TestCompare(unittest.TestCase):
    def setUp(self):
        self.base = cgprop.load("base.folded", data=BASE)
        self.new = cgprop.load("new.folded", data=NEW)

    def test_json_figures(self):
        d = json.loads(cgprop.write_compare(self.base, self.new, "json"))
        self.assertEqual((d["base"]["program"], d["new"]["program"]), (100, 200))
        f = {x["name"]: x for x in d["functions"]}
        self.assertEqual([x["name"] for x in d["functions"]], ["nw", "main", "old", "a", "b"])
        self.assertEqual(f["a"]["change"]["total"], 30)
        self.assertEqual(f["a"]["change"]["percent_points"], 0)
        self.assertEqual(f["b"]["change"]["total"], -20)
        self.assertEqual(f["b"]["change"]["percent_points"], -25)
        self.assertEqual(f["b"]["change"]["percent_of_base"], -20)
        self.assertEqual((f["old"]["status"], f["old"]["new"]), ("removed", None))
        self.assertEqual((f["nw"]["status"], f["nw"]["change"]["percent_points"]), ("added", 60))
        self.assertTrue(all(x["change"]["exact"] for x in d["functions"]))

    def test_text_and_dot_into_files(self):
        out = io.StringIO()
        self.assertIsNone(cgprop.write_compare(self.base, self.new, cgprop.OutputFormat.TEXT, out=out))
        self.assertIn("Program total: base 100, new 200, change +100", out.getvalue())
        b = io.BytesIO()
        cgprop.write_compare(self.base, self.new, "dot", out=b, node_thres=31)
        dot = b.getvalue().decode()
        self.assertTrue(dot.startswith("digraph"))
        self.assertNotIn('label="old', dot)

    def test_errors(self):
        with self.assertRaises(cgprop.InvalidArgumentError):
            cgprop.write_compare(self.base, self.new, "callgrind")
        g = cgprop.Graph(["Ir"])
        g.add_self("main", [1])
        g.analyze()
        with self.assertRaises(cgprop.InvalidArgumentError):
            cgprop.write_compare(g, self.new, "text")


if __name__ == "__main__":
    unittest.main()

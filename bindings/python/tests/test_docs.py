"""The examples of docs/PYTHON.md and docs/RUST.md stay runnable.

Every ```python block of docs/PYTHON.md and of the package's README.md is run; the ```rust block of
docs/RUST.md must be bindings/rust/examples/notes.rs verbatim (cargo builds
and runs that file in the bindings_rust test).
"""

import contextlib
import io
import os
import re
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..", "..")
sys.path.insert(0, os.path.join(HERE, ".."))


def blocks(path, lang):
    with open(path, encoding="utf-8") as f:
        return re.findall(r"^```%s\n(.*?)^```" % lang, f.read(), re.S | re.M)


class TestDocs(unittest.TestCase):
    def test_python_page_runs(self):
        code = blocks(os.path.join(ROOT, "docs", "PYTHON.md"), "python")
        self.assertTrue(code, "no python block in docs/PYTHON.md")
        for i, block in enumerate(code):
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(compile(block, "docs/PYTHON.md block %d" % (i + 1), "exec"), {"__name__": "__doc__"})
            self.assertTrue(out.getvalue())

    def test_package_readme_runs(self):
        code = blocks(os.path.join(HERE, "..", "README.md"), "python")
        self.assertTrue(code, "no python block in bindings/python/README.md")
        for i, block in enumerate(code):
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(compile(block, "bindings/python/README.md block %d" % (i + 1), "exec"), {"__name__": "__doc__"})
            self.assertTrue(out.getvalue())

    def test_rust_page_is_the_built_example(self):
        code = blocks(os.path.join(ROOT, "docs", "RUST.md"), "rust")
        self.assertEqual(len(code), 1, "docs/RUST.md should hold one rust block")
        with open(os.path.join(ROOT, "bindings", "rust", "examples", "notes.rs"), encoding="utf-8") as f:
            self.assertEqual(code[0], f.read())


if __name__ == "__main__":
    unittest.main()

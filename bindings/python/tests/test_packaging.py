"""`pip install ./bindings/python` works offline, and what it installs works.

The package has its own PEP 517 backend (bindings/python/_backend) and no
build requirement, so pip needs no index: every pip call here runs with
--no-index. The installed copy is imported from its install directory in a
fresh interpreter (not this tree) and runs a small example against the
built library (CGPROP_LIBRARY). Skipped when this Python has no pip
(failed instead with CGPROP_STRICT_TESTS set, as CI does).
"""

import base64
import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import unittest
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
PKG = os.path.normpath(os.path.join(HERE, ".."))
sys.path.insert(0, PKG)

from cgprop import _ffi  # noqa: E402

VERSION = "%d.%d.%d" % (_ffi.CGPROP_VERSION_MAJOR, _ffi.CGPROP_VERSION_MINOR, _ffi.CGPROP_VERSION_PATCH)

# Run by the installed copy: the A/B/C example's totals (docs/SPLIT.md),
# worked out by hand: A 50, B 30, C 20.
EXAMPLE = r"""
import sys, cgprop
assert not cgprop.__file__.startswith(sys.argv[1]), cgprop.__file__
g = cgprop.Graph(metrics=["samples"])
for stack in ("A", "A;C", "A;B", "A;B;A", "A;B;A;C"):
    g.add_stack(stack.split(";"), [10])
g.analyze()
got = {g.key(r.id): r.total for r in g.totals()}
assert got == {"A": 50, "B": 30, "C": 20}, got
print(cgprop.__file__)
"""


_PIP = []


def _pip_available():
    if not _PIP:
        _PIP.append(subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True).returncode == 0)
    return _PIP[0]


def _env():
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)  # the installed copy, not this tree
    env["PIP_NO_INDEX"] = "1"
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env["PIP_NO_CACHE_DIR"] = "1"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


class TestBackendMetadata(unittest.TestCase):
    def test_fallback_toml_reader_agrees_with_tomllib(self):
        # Pythons before 3.11 have no tomllib; the backend's own reader of
        # pyproject.toml must give the same [project] table.
        try:
            import tomllib
        except ImportError:
            self.skipTest("no tomllib to compare with")
        sys.path.insert(0, os.path.join(PKG, "_backend"))
        try:
            import cgprop_backend
        finally:
            sys.path.pop(0)
        with open(os.path.join(PKG, "pyproject.toml"), "rb") as f:
            want = tomllib.load(f)["project"]
        saved = sys.modules.get("tomllib")
        sys.modules["tomllib"] = None  # makes `import tomllib` fail inside
        try:
            with open(os.path.join(PKG, "pyproject.toml"), encoding="utf-8") as f:
                got = cgprop_backend._toml_project(f.read())
        finally:
            sys.modules["tomllib"] = saved
        self.assertEqual(got, want)


class TestTypeHints(unittest.TestCase):
    def test_every_definition_is_annotated(self):
        # py.typed promises hints: mypy must find every function annotated
        # and the annotations consistent. Skipped without mypy.
        if subprocess.run([sys.executable, "-m", "mypy", "--version"], capture_output=True).returncode != 0:
            self.skipTest("mypy is not installed for this Python")
        with tempfile.TemporaryDirectory() as cache:
            r = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", cache, "--disallow-untyped-defs",
                                "--disallow-incomplete-defs", "--no-error-summary", "cgprop"],
                               capture_output=True, text=True, cwd=PKG)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)


class TestPipInstall(unittest.TestCase):
    def setUp(self):
        if not _pip_available():
            if os.environ.get("CGPROP_STRICT_TESTS"):
                self.fail("%s has no pip (CGPROP_STRICT_TESTS): apt-get install python3-pip" % sys.executable)
            self.skipTest("this Python has no pip")
        self.tmp = tempfile.mkdtemp(prefix="cgprop-pip-")
        self.addCleanup(shutil.rmtree, self.tmp)

    def pip(self, *args):
        r = subprocess.run([sys.executable, "-m", "pip"] + list(args), capture_output=True, text=True, env=_env())
        self.assertEqual(r.returncode, 0, "pip %s failed:\n%s\n%s" % (" ".join(args), r.stdout, r.stderr))
        return r

    def run_example(self, python, path_entry):
        env = _env()
        env["PYTHONPATH"] = path_entry
        # run from the temporary directory so this tree is not on sys.path
        r = subprocess.run([python, "-c", EXAMPLE, PKG], capture_output=True, text=True, env=env, cwd=self.tmp)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        return r.stdout.strip()

    def test_install_offline_into_a_target_and_run(self):
        target = os.path.join(self.tmp, "site")
        self.pip("install", "--no-index", "--no-deps", "--target", target, PKG)
        self.assertTrue(os.path.exists(os.path.join(target, "cgprop", "py.typed")))
        self.assertTrue(os.path.isdir(os.path.join(target, "cgprop-%s.dist-info" % VERSION)))
        self.assertFalse(os.path.exists(os.path.join(target, "tests")))
        self.assertFalse(os.path.exists(os.path.join(target, "cgprop_backend.py")))
        where = self.run_example(sys.executable, target)
        self.assertTrue(where.startswith(target), where)

    def test_wheel_record_hashes(self):
        # Every file of the wheel is in RECORD with its sha256 and size,
        # checked here independently of the backend.
        out = os.path.join(self.tmp, "wheels")
        self.pip("wheel", "--no-index", "--no-deps", "-w", out, PKG)
        name = "cgprop-%s-py3-none-any.whl" % VERSION
        with zipfile.ZipFile(os.path.join(out, name)) as z:
            names = set(z.namelist())
            dist = "cgprop-%s.dist-info" % VERSION
            record = z.read(dist + "/RECORD").decode()
            rows = [line.split(",") for line in record.splitlines() if line]
            self.assertEqual({r[0] for r in rows}, names)
            for path, digest, size in rows:
                if path == dist + "/RECORD":
                    self.assertEqual((digest, size), ("", ""))
                    continue
                data = z.read(path)
                want = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
                self.assertEqual(digest, "sha256=" + want, path)
                self.assertEqual(int(size), len(data), path)
            meta = z.read(dist + "/METADATA").decode()
            wheel = z.read(dist + "/WHEEL").decode()
        self.assertIn("Name: cgprop\n", meta)
        self.assertIn("Version: %s\n" % VERSION, meta)
        self.assertIn("Tag: py3-none-any\n", wheel)
        self.assertIn("Root-Is-Purelib: true\n", wheel)
        self.assertIn("cgprop/__init__.py", names)

    def test_sdist_builds_and_installs(self):
        out = os.path.join(self.tmp, "dist")
        os.mkdir(out)
        r = subprocess.run([sys.executable, "-c",
                            "import sys; sys.path.insert(0, sys.argv[1]); import cgprop_backend as b; "
                            "print(b.build_sdist(sys.argv[2]))", os.path.join(PKG, "_backend"), out],
                           capture_output=True, text=True, env=_env())
        self.assertEqual(r.returncode, 0, r.stderr)
        sdist = os.path.join(out, r.stdout.strip())
        self.assertEqual(os.path.basename(sdist), "cgprop-%s.tar.gz" % VERSION)
        with tarfile.open(sdist) as t:
            names = set(t.getnames())
        for f in ("pyproject.toml", "PKG-INFO", "_backend/cgprop_backend.py", "cgprop/__init__.py", "cgprop/py.typed"):
            self.assertIn("cgprop-%s/%s" % (VERSION, f), names)
        target = os.path.join(self.tmp, "site")
        self.pip("install", "--no-index", "--no-deps", "--target", target, sdist)
        self.run_example(sys.executable, target)

    def test_editable_install_in_a_venv(self):
        venv = os.path.join(self.tmp, "venv")
        # the venv sees this Python's pip through the system site-packages,
        # so nothing is installed into it but cgprop
        r = subprocess.run([sys.executable, "-m", "venv", "--without-pip", "--system-site-packages", venv],
                           capture_output=True, text=True)
        if r.returncode != 0:
            self.skipTest("cannot make a venv: " + r.stderr.strip())
        py = os.path.join(venv, "bin", "python")
        r = subprocess.run([py, "-m", "pip", "install", "--no-index", "--no-deps", "-e", PKG],
                           capture_output=True, text=True, env=_env())
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        env = _env()
        r = subprocess.run([py, "-c", "import cgprop; print(cgprop.__file__)"], capture_output=True, text=True,
                           env=env, cwd=self.tmp)
        self.assertEqual(r.returncode, 0, r.stderr)
        # editable: the module is the one in this tree
        self.assertEqual(os.path.realpath(r.stdout.strip()), os.path.realpath(os.path.join(PKG, "cgprop",
                                                                                            "__init__.py")))


if __name__ == "__main__":
    unittest.main()

"""In-tree PEP 517 / PEP 660 build backend for the cgprop Python package.

The package is pure Python over a C library that is built and installed
separately, so building it only means zipping files. Doing that here, with
the standard library alone, lets `pip install ./bindings/python` work with
no index at all: pyproject.toml names no build requirement, so pip's
isolated build environment has nothing to download.

What it builds:
  * a wheel, cgprop-<version>-py3-none-any.whl: the `cgprop` package and a
    .dist-info with METADATA, WHEEL and RECORD (sha256 of every file);
  * an sdist, cgprop-<version>.tar.gz: pyproject.toml, README.md, PKG-INFO,
    this backend and the package;
  * an editable wheel (pip install -e): a .pth that imports a small finder
    mapping `cgprop` to this source tree, so edits take effect at once.

Metadata comes from the [project] table of pyproject.toml; the version from
the CGPROP_VERSION_* numbers in cgprop/_ffi.py, so the package and the C
API it mirrors carry one version. Archives are reproducible: sorted entries,
fixed timestamps (SOURCE_DATE_EPOCH when set), fixed permissions.
"""

import base64
import hashlib
import io
import os
import re
import tarfile
import time
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "cgprop"

__all__ = ["build_wheel", "build_sdist", "build_editable", "get_requires_for_build_wheel",
           "get_requires_for_build_sdist", "get_requires_for_build_editable", "prepare_metadata_for_build_wheel",
           "prepare_metadata_for_build_editable"]


# ---- metadata -------------------------------------------------------------

def _toml_project(text):
    """The [project] table of pyproject.toml as a dict of str / list of str /
    dict of str. tomllib reads it on Python >= 3.11; older Pythons get this
    reader of the plain subset the file uses (key = "str", key = ["a", "b"]
    on one or more lines, key = {k = "v"})."""
    try:
        import tomllib
    except ImportError:
        tomllib = None
    if tomllib is not None:
        return tomllib.loads(text).get("project", {})
    m = re.search(r"^\[project\]\s*$(.*?)(?=^\[|\Z)", text, re.M | re.S)
    out = {}
    if not m:
        return out
    body = re.sub(r"#[^\n\"]*$", "", m.group(1), flags=re.M)
    for key, val in re.findall(r"^([\w-]+)\s*=\s*(\"[^\"]*\"|\[.*?\]|\{.*?\})", body, re.M | re.S):
        if val.startswith('"'):
            out[key] = val[1:-1]
        elif val.startswith("["):
            out[key] = re.findall(r"\"([^\"]*)\"", val)
        else:
            out[key] = dict(re.findall(r"([\w-]+)\s*=\s*\"([^\"]*)\"", val))
    return out


def _read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return f.read()


def _version():
    text = _read(os.path.join(PACKAGE, "_ffi.py"))
    nums = [re.search(r"^CGPROP_VERSION_%s\s*=\s*(\d+)" % part, text, re.M) for part in ("MAJOR", "MINOR", "PATCH")]
    if not all(nums):
        raise RuntimeError("cgprop/_ffi.py lacks CGPROP_VERSION_MAJOR/MINOR/PATCH")
    return ".".join(m.group(1) for m in nums)


def _metadata():
    """METADATA / PKG-INFO text (core metadata 2.1)."""
    proj = _toml_project(_read("pyproject.toml"))
    lines = ["Metadata-Version: 2.1", "Name: %s" % proj.get("name", PACKAGE), "Version: %s" % _version()]
    if proj.get("description"):
        lines.append("Summary: %s" % proj["description"])
    if proj.get("requires-python"):
        lines.append("Requires-Python: %s" % proj["requires-python"])
    lic = proj.get("license")
    if isinstance(lic, dict) and lic.get("text"):
        lines.append("License: %s" % lic["text"])
    elif isinstance(lic, str):
        lines.append("License: %s" % lic)
    if proj.get("keywords"):
        lines.append("Keywords: %s" % ",".join(proj["keywords"]))
    for c in proj.get("classifiers", []):
        lines.append("Classifier: %s" % c)
    for name, url in sorted((proj.get("urls") or {}).items()):
        lines.append("Project-URL: %s, %s" % (name, url))
    body = ""
    readme = proj.get("readme")
    if isinstance(readme, str) and os.path.exists(os.path.join(ROOT, readme)):
        lines.append("Description-Content-Type: text/markdown" if readme.endswith(".md")
                     else "Description-Content-Type: text/plain")
        body = "\n" + _read(readme)
    return "\n".join(lines) + "\n" + body


def _dist_name():
    return "%s-%s" % (PACKAGE, _version())


WHEEL_TAG = "py3-none-any"


def _wheel_file():
    return ("Wheel-Version: 1.0\nGenerator: cgprop_backend\nRoot-Is-Purelib: true\nTag: %s\n" % WHEEL_TAG)


# ---- archives -------------------------------------------------------------

def _timestamp():
    # zip cannot hold dates before 1980
    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", "315532800"))
    return max(epoch, 315532800)


def _package_files():
    """Relative paths of the package's files: its .py modules and py.typed."""
    out = []
    base = os.path.join(ROOT, PACKAGE)
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for f in sorted(filenames):
            if f.endswith(".py") or f == "py.typed":
                out.append(os.path.relpath(os.path.join(dirpath, f), ROOT).replace(os.sep, "/"))
    return out


def _record_hash(data):
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


class _Wheel:
    """A wheel being written: every file goes into RECORD."""

    def __init__(self, path):
        self.zip = zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED)
        self.records = []
        self.date = time.gmtime(_timestamp())[:6]

    def add(self, arcname, data):
        if isinstance(data, str):
            data = data.encode("utf-8")
        info = zipfile.ZipInfo(arcname, self.date)
        info.external_attr = 0o644 << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        self.zip.writestr(info, data)
        self.records.append("%s,%s,%d" % (arcname, _record_hash(data), len(data)))

    def close(self, dist_info):
        record = dist_info + "/RECORD"
        text = "\n".join(self.records + ["%s,," % record]) + "\n"
        info = zipfile.ZipInfo(record, self.date)
        info.external_attr = 0o644 << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        self.zip.writestr(info, text)
        self.zip.close()


def _write_dist_info(wheel, dist_info):
    wheel.add(dist_info + "/METADATA", _metadata())
    wheel.add(dist_info + "/WHEEL", _wheel_file())
    wheel.add(dist_info + "/top_level.txt", PACKAGE + "\n")


def _wheel_path(wheel_directory):
    return os.path.join(wheel_directory, "%s-%s.whl" % (_dist_name(), WHEEL_TAG))


# ---- PEP 517 hooks --------------------------------------------------------

def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    dist_info = _dist_name() + ".dist-info"
    d = os.path.join(metadata_directory, dist_info)
    os.makedirs(d, exist_ok=True)
    for name, text in (("METADATA", _metadata()), ("WHEEL", _wheel_file()), ("top_level.txt", PACKAGE + "\n")):
        with open(os.path.join(d, name), "w", encoding="utf-8") as f:
            f.write(text)
    return dist_info


prepare_metadata_for_build_editable = prepare_metadata_for_build_wheel


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    path = _wheel_path(wheel_directory)
    dist_info = _dist_name() + ".dist-info"
    wheel = _Wheel(path)
    try:
        for rel in _package_files():
            with open(os.path.join(ROOT, rel), "rb") as f:
                wheel.add(rel, f.read())
        _write_dist_info(wheel, dist_info)
    finally:
        wheel.close(dist_info)
    return os.path.basename(path)


_FINDER = '''"""Maps the `cgprop` package to its source tree (an editable install)."""
import importlib.abc
import importlib.util
import os
import sys

_PATH = {path!r}


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name != "cgprop":
            return None
        return importlib.util.spec_from_file_location(
            name, os.path.join(_PATH, "__init__.py"), submodule_search_locations=[_PATH])


def install():
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())
'''


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    # Only `cgprop` is mapped (not the whole folder on sys.path, which would
    # also expose the tests and this backend as top-level modules).
    path = _wheel_path(wheel_directory)
    dist_info = _dist_name() + ".dist-info"
    finder = "__editable___%s_finder" % PACKAGE
    wheel = _Wheel(path)
    try:
        wheel.add(finder + ".py", _FINDER.format(path=os.path.join(ROOT, PACKAGE)))
        wheel.add("__editable__.%s.pth" % _dist_name(), "import %s; %s.install()\n" % (finder, finder))
        _write_dist_info(wheel, dist_info)
    finally:
        wheel.close(dist_info)
    return os.path.basename(path)


def build_sdist(sdist_directory, config_settings=None):
    name = _dist_name()
    path = os.path.join(sdist_directory, name + ".tar.gz")
    files = ["pyproject.toml", "README.md", "_backend/cgprop_backend.py"] + _package_files()
    mtime = _timestamp()

    def add(tar, arcname, data):
        info = tarfile.TarInfo("%s/%s" % (name, arcname))
        info.size = len(data)
        info.mtime = mtime
        info.mode = 0o644
        info.uname = info.gname = ""
        tar.addfile(info, io.BytesIO(data))

    # gzip's own header carries a time too: fix it through GzipFile
    import gzip
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=mtime, filename="") as gz, \
            tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for rel in sorted(files):
            with open(os.path.join(ROOT, rel), "rb") as f:
                add(tar, rel, f.read())
        add(tar, "PKG-INFO", _metadata().encode("utf-8"))
    return os.path.basename(path)

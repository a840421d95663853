#!/usr/bin/env python3
"""cgprop report --compare against go tool pprof -diff_base.

Two real Go CPU profiles: tests/data/pprof/recur.pb.gz (recur.go) as the
base and tests/data/compare/recur_new.pb.gz (recur_new.go: deeper
recursion, a longer spin in pong, a new function) as the new one. pprof's
flat and cum columns of a -diff_base report are the changes of self and
inclusive cost per function (cum counts a function once per sampled
stack, the exact inclusive cost also of recursive functions), so every
function's change in cgprop's JSON must equal them, in both sample types.
A function pprof does not list has not changed.

usage: compare_pprof.py CGPROP DATA_DIR        (exit 77: go not installed)
"""
import json
import os
import re
import shutil
import subprocess
import sys


def pprof_diff(base, new, index, env):
    args = ["go", "tool", "pprof", "-top", "-cum", "-nodecount=1000", "-nodefraction=0", "-edgefraction=0",
            "-sample_index=" + index, "-diff_base", base, new]
    if index == "cpu":
        args.insert(3, "-unit=ns")
    out = subprocess.run(args, env=env, check=True, capture_output=True, text=True).stdout
    rows = {}
    started = False
    for line in out.splitlines():
        if re.match(r"\s*flat\s+flat%", line):
            started = True
            continue
        if not started or not line.strip():
            continue
        f = line.split()
        # flat flat% sum% cum cum% name [(inline)]
        num = lambda s: int(s[:-2]) if s.endswith("ns") else int(s)
        rows[f[5]] = (num(f[0]), num(f[3]))
    if not rows:
        raise SystemExit("FAIL: no rows in pprof's report:\n" + out)
    return rows


def main():
    tool, data = sys.argv[1], sys.argv[2]
    if shutil.which("go") is None:
        if os.environ.get("CGPROP_STRICT_TESTS"):
            print("FAIL: go is not installed (CGPROP_STRICT_TESTS): scripts/deps.sh installs golang-go")
            return 1
        print("SKIP: go is not installed (Debian: apt-get install golang-go)")
        return 77
    env = dict(os.environ)
    env.update(HOME=env.get("HOME", "/tmp"), PPROF_TMPDIR=os.environ.get("TMPDIR", "/tmp"))
    base = os.path.join(data, "pprof", "recur.pb.gz")
    new = os.path.join(data, "compare", "recur_new.pb.gz")
    bad = 0
    checked = 0
    for index, metric in (("samples", "samples_count"), ("cpu", "cpu_nanoseconds")):
        want = pprof_diff(base, new, index, env)
        got = json.loads(subprocess.run([tool, "report", "--compare", base, new, "--format", "json", "--metric",
                                         metric], check=True, capture_output=True, text=True).stdout)
        if got["metric"] != metric:
            print("FAIL: metric %s, wanted %s" % (got["metric"], metric))
            bad += 1
        seen = set()
        for f in got["functions"]:
            name = f["name"]
            if name in seen:
                print("FAIL: %s listed twice (its base and new rows were not matched)" % name)
                bad += 1
            seen.add(name)
            flat, cum = want.get(name, (0, 0))
            ch = f["change"]
            if ch["total"] != cum or ch["self"] != flat or not ch["exact"]:
                print("FAIL: %s %s: cgprop change total %s self %s exact %s, pprof cum %d flat %d"
                      % (index, name, ch["total"], ch["self"], ch["exact"], cum, flat))
                bad += 1
            checked += 2
        for name in want:
            if name not in seen:
                print("FAIL: %s: pprof lists %s, cgprop does not" % (index, name))
                bad += 1
        # The report's program change is pprof's change of the root's cum.
        if got["change"]["program"] != want["runtime.main"][1]:
            print("FAIL: %s program change %s, pprof's runtime.main %d"
                  % (index, got["change"]["program"], want["runtime.main"][1]))
            bad += 1
    if bad:
        return 1
    print("ok: %d per-function changes equal go tool pprof -diff_base's" % checked)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""cgprop against go tool pprof on real Go CPU profiles.

1. The committed figures (tests/data/pprof/recur.top.*.txt and
   work.top.*.txt, which check_pprof asserts on every build) are what
   `go tool pprof -top -cum` prints for the committed profiles today.
2. A fresh profile: tests/data/pprof/recur.go is built and run (about 2 s of
   CPU), and for every function cgprop's self and total (both metrics) equal
   pprof's flat and cum.

Exits 77 (skipped) when Go is not installed. Standard library only.
Usage: real_pprof.py CGPROP_TOOL DATA_DIR
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

SKIP = 77


def go_env(tmp):
    env = dict(os.environ)
    # Offline, no module, caches in the scratch directory.
    env.update(GOCACHE=os.path.join(tmp, "gocache"), GOPATH=os.path.join(tmp, "gopath"), GO111MODULE="off",
               GOFLAGS="", GOPROXY="off", GOTOOLCHAIN="local", GOTELEMETRY="off")
    return env


def top(env, profile, index):
    # -nodefraction=0: pprof otherwise drops nodes below 0.5 % of the total,
    # which a fresh run under load has (runtime functions), and the lists differ.
    args = ["go", "tool", "pprof", "-top", "-cum", "-nodecount=1000", "-nodefraction=0", "-edgefraction=0",
            "-sample_index=" + index]
    if index == "cpu":
        args.append("-unit=ns")
    out = subprocess.run(args + [profile], env=env, check=True, capture_output=True, text=True).stdout
    return table(out)


def table(text):
    """{name: (flat, cum)} from pprof's -top table."""
    rows, on = {}, False
    for line in text.splitlines():
        if "flat%" in line and "cum%" in line:
            on = True
            continue
        if not on or not line.strip():
            continue
        f = line.split()
        name = f[5]
        num = lambda s: int(s[:-2] if s.endswith("ns") else s)
        rows[name] = (num(f[0]), num(f[3]))
    return rows


def main():
    tool, data = sys.argv[1], sys.argv[2]
    if shutil.which("go") is None:
        if os.environ.get("CGPROP_STRICT_TESTS"):
            print("FAIL: go is not installed (CGPROP_STRICT_TESTS): scripts/deps.sh installs golang-go")
            return 1
        print("SKIP: go is not installed (Debian: apt-get install golang-go)")
        return SKIP
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        env = go_env(tmp)
        # 1. The committed expectations are pprof's own output.
        for base in ("recur", "work"):
            for index, metric in (("samples", "samples_count"), ("cpu", "cpu_nanoseconds")):
                with open(os.path.join(data, "%s.top.%s.txt" % (base, index))) as f:
                    committed = table(f.read())
                now = top(env, os.path.join(data, base + ".pb.gz"), index)
                if committed != now:
                    print("FAIL: %s.top.%s.txt differs from go tool pprof now:\n  %s\n  %s" %
                          (base, index, committed, now))
                    failures += 1
        # 2. A fresh run of the program.
        exe, prof = os.path.join(tmp, "recur"), os.path.join(tmp, "cpu.pb.gz")
        subprocess.run(["go", "build", "-o", exe, os.path.join(data, "recur.go")], env=env, check=True)
        subprocess.run([exe, prof], check=True)
        out = subprocess.run([tool, "report", "--format", "json", prof], check=True, capture_output=True,
                             text=True).stdout
        doc = json.loads(out)
        metrics = doc["metrics"]
        by_name = {}
        for fn in doc["functions"]:
            if fn["name"] in by_name:
                print("FAIL: two functions named %s" % fn["name"])
                failures += 1
            by_name[fn["name"]] = fn
        for index, metric in (("samples", "samples_count"), ("cpu", "cpu_nanoseconds")):
            k = metrics.index(metric)
            want = top(env, prof, index)
            if set(want) != set(by_name):
                print("FAIL: functions differ: pprof %s, cgprop %s" % (sorted(want), sorted(by_name)))
                failures += 1
            for name, (flat, cum) in sorted(want.items()):
                fn = by_name.get(name)
                if fn is None:
                    continue
                got = (fn["self"][k], fn["total"][k])
                ok = got == (flat, cum)
                print("%-4s %-16s %-14s pprof flat %12d cum %12d  cgprop self %12d total %12d" %
                      ("ok" if ok else "FAIL", metric, name, flat, cum, got[0], got[1]))
                failures += not ok
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

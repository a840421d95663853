#!/usr/bin/env python3
"""cgprop against go tool pprof on real Go CPU profiles.

1. The committed figures (tests/data/pprof/recur.top.*.txt and
   work.top.*.txt, which check_pprof asserts on every build) are what
   `go tool pprof -top -cum` prints for the committed profiles today.
2. A fresh profile: tests/data/pprof/recur.go is built and run (about 2 s of
   CPU), and for every function cgprop's self and total (both metrics) equal
   pprof's flat and cum.
3. Every kind of profile Go writes: tests/data/pprof/work.go run for 3 s
   writes CPU, heap, allocs, block, mutex, goroutine and threadcreate
   profiles; for each and each of
   its sample types, cgprop's self and total equal pprof's flat and cum for
   every function (0 where pprof lists none); and the tool without --metric
   shows the sample type pprof shows without -sample_index.
4. gperftools: tests/data/gprof/cycles.c profiled by gperftools' CPU
   profiler and turned into profile.proto by go tool pprof -proto; every
   function (code without symbols named by its mapping) against pprof's -top.

Exits 77 (skipped) when Go is not installed. Standard library only.
Usage: real_pprof.py CGPROP_TOOL DATA_DIR
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import cut_rule  # noqa: E402

SKIP = 77


def go_env(tmp):
    env = dict(os.environ)
    # Offline, no module, caches in the scratch directory.
    env.update(GOCACHE=os.path.join(tmp, "gocache"), GOPATH=os.path.join(tmp, "gopath"), GO111MODULE="off",
               GOFLAGS="", GOPROXY="off", GOTOOLCHAIN="local", GOTELEMETRY="off")
    return env


def top(env, profile, index, unit=None):
    """{name: (flat, cum)} at one sample index, values in the base unit
    (unit: pprof's -unit; by default ns for cpu, none for the others)."""
    # -nodefraction=0: pprof otherwise drops nodes below 0.5 % of the total,
    # which a fresh run under load has (runtime functions), and the lists differ.
    args = ["go", "tool", "pprof", "-top", "-cum", "-nodecount=100000", "-nodefraction=0", "-edgefraction=0",
            "-sample_index=" + index]
    if unit is None:
        unit = "ns" if index == "cpu" else ""
    if unit:
        args.append("-unit=" + unit)
    out = subprocess.run(args + [profile], env=env, check=True, capture_output=True, text=True).stdout
    return table(out)


NO_LOCATION = "[no location]"


def table(text):
    """{name: (flat, cum)} from pprof's -top table. A sample without a stack
    (Go's CPU profiler writes one now and then) counts in pprof's total but
    in no node of its table; cgprop charges such samples to a function named
    [no location], so that entry is the total less what pprof's nodes
    account for (its header's two figures; with -nodefraction=0 every node
    is shown)."""
    rows, on = {}, False
    num = lambda v: int(v.rstrip("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"))  # 12ns, 40B
    for line in text.splitlines():
        if line.startswith("Showing nodes accounting for "):
            # Showing nodes accounting for 2000000000ns, 100% of 2000000000ns total
            f = line[len("Showing nodes accounting for "):].split()
            rest = num(f[3]) - num(f[0].rstrip(","))
            if rest:
                rows[NO_LOCATION] = (rest, rest)
            continue
        if "flat%" in line and "cum%" in line:
            on = True
            continue
        if not on or not line.strip():
            continue
        f = line.split(None, 5)
        # The name is the rest ("Garbage Collection"), less pprof's mark of
        # a function seen inlined in all or some of its calls.
        name = re.sub(r" \((?:partial-)?inline\)$", "", f[5].strip())
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
        committed_tops = [(base, index, None) for base in ("recur", "work") for index in ("samples", "cpu")]
        committed_tops += [("node-wall", "sample", ""), ("node-wall", "wall", "ns"),
                           ("node-heap", "inuse_objects", ""), ("node-heap", "inuse_space", "B")]
        for base, index, unit in committed_tops:
            with open(os.path.join(data, "%s.top.%s.txt" % (base, index))) as f:
                committed = table(f.read())
            now = top(env, os.path.join(data, base + ".pb.gz"), index, unit)
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
        failures += cut_short(tool, data, env, tmp)
        failures += cut_shown(tool, env, os.path.join(data, "work.pb.gz"), "work.pb.gz")
        failures += every_kind(tool, data, env, tmp)
        failures += gperftools(tool, data, env, tmp)
    return 1 if failures else 0


def cut_short(tool, data, env, tmp):
    """A fresh run of deep.go, whose recursion is deeper than the 64 frames
    Go's CPU profiler keeps: every function's figure is pprof's cum, and
    where the cut stacks may have run under a function, its interval reaches
    up by their weight (main.main ran the whole program)."""
    failures = 0
    exe, prof = os.path.join(tmp, "deep"), os.path.join(tmp, "deep.pb.gz")
    subprocess.run(["go", "build", "-o", exe, os.path.join(data, "deep.go")], env=env, check=True)
    subprocess.run([exe, prof], check=True)
    doc = json.loads(subprocess.run([tool, "report", "--format", "json", prof], check=True, capture_output=True,
                                    text=True).stdout)
    k = doc["metrics"].index("samples_count")
    total, unrooted = doc["totals"][k], doc["unrooted"][k]
    want = top(env, prof, "samples")
    fns = {fn["name"]: fn for fn in doc["functions"]}
    for name, (flat, cum) in sorted(want.items()):
        fn = fns.get(name)
        if fn is None:
            print("FAIL: deep: pprof lists %s, cgprop does not" % name)
            failures += 1
            continue
        lo, hi = (fn["bounds"][0][k], fn["bounds"][1][k]) if fn["bounds"] else (None, None)
        ok = fn["total"][k] == cum and fn["self"][k] == flat and lo == cum
        if name in ("main.main", "runtime.main"):
            # They start no cut stack: any of them may have run under them.
            ok = ok and unrooted > 0 and hi == min(lo + unrooted, total) and fn["estimate"][k] == "measured" and \
                fn["reason"][k] == "unrooted"

        print("%-4s deep %-14s pprof cum %4d  cgprop [%s, %s] %s (unrooted %d of %d)" %
              ("ok" if ok else "FAIL", name, cum, lo, hi, fn["estimate"][k], unrooted, total))
        failures += not ok
    # Every interval, main.spin's too, against pprof's own traces. spin is
    # exact when every cut stack shows it; about one run in six a sample
    # lands in deep's own frames or the runtime's, and spin may lack it.
    return failures + cut_shown(tool, env, prof, "fresh deep.go")


def traces(env, profile):
    """The samples as go tool pprof -traces prints them: (weight, functions
    root first), inlined functions as frames of their own."""
    out = subprocess.run(["go", "tool", "pprof", "-traces", "-sample_index=samples", profile], env=env, check=True,
                         capture_output=True, text=True).stdout
    stacks, cur = [], None
    for line in out.splitlines():
        if line.startswith("-----------+"):
            if cur:
                stacks.append(cur)
            cur = None
            continue
        name = line.strip().replace(" (inline)", "")
        if cur is None:
            m = re.match(r"\s+(\d+)\s+(\S.*)$", line)
            if m:
                cur = (int(m.group(1)), [m.group(2).replace(" (inline)", "")])
        elif name:
            cur[1].append(name)
    if cur:
        stacks.append(cur)
    return [(w, fr[::-1]) for w, fr in stacks]


def cut_shown(tool, env, profile, what):
    """Every function's interval where stacks may have been cut short,
    worked out from pprof's traces by tests/cut_rule.py; never below the
    tightest bound, that of the suspect stacks that do not show it."""
    stacks = traces(env, profile)
    total = sum(w for w, _ in stacks)
    unrooted, rule = cut_rule.intervals(stacks, total)
    doc = json.loads(subprocess.run([tool, "report", "--format", "json", "--key", "name", profile], check=True,
                                    capture_output=True, text=True).stdout)
    k = doc["metrics"].index("samples_count")
    got = {fn["name"]: (fn["bounds"][0][k], fn["bounds"][1][k]) if fn["bounds"] else (fn["total"][k],) * 2
           for fn in doc["functions"]}
    failures, looser = 0, 0
    for f, (cum, hi, tight) in sorted(rule.items()):
        want = (cum, hi)
        if got.get(f) != want or want[1] < tight:
            print("FAIL %s: %s: cgprop %s, from pprof's traces %s (at least %d)" % (what, f, got.get(f), want, tight))
            failures += 1
        looser += want[1] > tight
    print("%-4s %s: %d functions' intervals as pprof's traces give them (cut stacks %d of %d; %d wider than "
          "a per-stack count would make them)" % ("FAIL" if failures else "ok", what, len(rule), unrooted, total, looser))
    return failures


def gperftools(tool, data, env, tmp):
    """4. A C program profiled by gperftools' CPU profiler (its legacy
    format), turned into profile.proto by `go tool pprof -proto`, as users of
    gperftools do: every function's self and total, both sample types,
    pprof's flat and cum; code without symbols (libc's start-up) one
    function per mapping, "[libc.so.6]", as pprof names it. Skipped (with a
    note) without gcc or gperftools (Debian: libgoogle-perftools-dev)."""
    cc = shutil.which("gcc")
    if not cc or subprocess.run([cc, "-x", "c", "-", "-o", os.path.join(tmp, "probe"), "-Wl,--no-as-needed",
                                 "-lprofiler"], input=b"int main(void){return 0;}", capture_output=True).returncode:
        print("gcc or gperftools' libprofiler missing (Debian: libgoogle-perftools-dev): gperftools not checked")
        return 0
    src = os.path.join(os.path.dirname(os.path.abspath(data)), "gprof", "cycles.c")
    exe, raw, prof = os.path.join(tmp, "cycles"), os.path.join(tmp, "cycles.prof"), os.path.join(tmp, "g.pb.gz")
    subprocess.run([cc, "-O1", "-g", "-fno-omit-frame-pointer", "-fno-inline", src, "-o", exe, "-Wl,--no-as-needed",
                    "-lprofiler"], check=True)
    subprocess.run([exe], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   env=dict(os.environ, CPUPROFILE=raw, CPUPROFILE_FREQUENCY="1000"))
    # The raw profile, given as users first try it: refused, with the
    # command that converts it.
    r = subprocess.run([tool, "report", raw], capture_output=True, text=True)
    refused = r.returncode != 0 and "go tool pprof -proto" in r.stderr
    print("%-4s gperftools' own format given as it is: %s" % ("ok" if refused else "FAIL",
                                                              r.stderr.strip() or "read"))
    with open(prof, "wb") as f:
        subprocess.run(["go", "tool", "pprof", "-proto", exe, raw], env=env, check=True, stdout=f,
                       stderr=subprocess.DEVNULL)
    doc = json.loads(subprocess.run([tool, "report", "--format", "json", "--key", "name", prof], check=True,
                                    capture_output=True, text=True).stdout)
    by_name = {fn["name"]: fn for fn in doc["functions"]}
    failures = 0
    for k, metric in enumerate(doc["metrics"]):
        index, unit = metric.rsplit("_", 1)
        want = top(env, prof, index, {"nanoseconds": "ns"}.get(unit, ""))
        bad = [name for name, fn in by_name.items() if (fn["self"][k], fn["total"][k]) != want.get(name, (0, 0))]
        bad += sorted(set(want) - set(by_name))
        for name in bad[:3]:
            fn = by_name.get(name)
            print("FAIL gperftools %s %s: pprof flat/cum %s, cgprop self/total %s" %
                  (metric, name, want.get(name), fn and (fn["self"][k], fn["total"][k])))
        unnamed = sorted(n for n in want if n.startswith("["))
        print("%-4s gperftools %-16s %3d functions in pprof's list (without symbols: %s)" %
              ("FAIL" if bad else "ok", metric, len(want), ", ".join(unnamed) or "none"))
        failures += len(bad)
    return failures + (not refused)


def every_kind(tool, data, env, tmp):
    """3. Every kind of profile Go writes (CPU, heap, allocs, block, mutex,
    goroutine, threadcreate: one to four sample types), from a fresh run of work.go: for every sample
    type, every function pprof lists has pprof's flat and cum as cgprop's
    self and total, and every other function has 0 for both."""
    failures = 0
    exe, prof = os.path.join(tmp, "work"), os.path.join(tmp, "w.pb.gz")
    subprocess.run(["go", "build", "-o", exe, os.path.join(data, "work.go")], env=env, check=True)
    subprocess.run([exe, prof, "3", "more"], check=True, capture_output=True)
    units = {"bytes": "B", "nanoseconds": "ns"}
    for kind in ("", ".heap", ".allocs", ".block", ".mutex", ".goroutine", ".threadcreate"):
        path = os.path.join(tmp, "w" + kind + ".pb.gz")
        if kind:
            # The same profile printed as text (debug=1): refused, with a
            # note on the protocol buffer form, not read as other text.
            r = subprocess.run([tool, "report", path[:-len(".pb.gz")] + ".txt"], capture_output=True, text=True)
            ok = r.returncode != 0 and "printed as text (debug=1)" in r.stderr
            print("%-4s %-6s as text (debug=1): %s" % ("ok" if ok else "FAIL", kind[1:],
                                                        "refused with a note" if ok else r.stderr.strip() or "read"))
            failures += not ok
        doc = json.loads(subprocess.run([tool, "report", "--format", "json", path], check=True, capture_output=True,
                                        text=True).stdout)
        by_name = {fn["name"]: fn for fn in doc["functions"]}
        for k, metric in enumerate(doc["metrics"]):
            index, unit = metric.rsplit("_", 1)
            want = top(env, path, index, units.get(unit, ""))
            bad = 0
            for name, fn in by_name.items():
                got = (fn["self"][k], fn["total"][k])
                if got != want.get(name, (0, 0)):
                    bad += 1
                    if bad <= 3:
                        print("FAIL %s %s %s: pprof flat/cum %s, cgprop self/total %s" %
                              (kind[1:] or "cpu", metric, name, want.get(name), got))
            missing = set(want) - set(by_name)
            if missing:
                print("FAIL %s %s: pprof lists functions cgprop lacks: %s" % (kind[1:] or "cpu", metric, sorted(missing)))
            print("%-4s %-6s %-22s %4d functions in pprof's list, %4d in cgprop's" %
                  ("ok" if not bad and not missing else "FAIL", kind[1:] or "cpu", metric, len(want), len(by_name)))
            failures += bad + len(missing)
        # Without a sample index pprof shows its default sample type; so
        # must the tool without --metric.
        out = subprocess.run(["go", "tool", "pprof", "-top", "-nodecount=1", path], env=env, check=True,
                             capture_output=True, text=True).stdout
        want = next((l.split()[1] for l in out.splitlines() if l.startswith("Type: ")), None)
        text = subprocess.run([tool, "report", path], check=True, capture_output=True, text=True).stdout
        got = next((l for l in text.splitlines() if l.startswith("Flat profile: metric ")), "")
        got = got[len("Flat profile: metric "):].split(",")[0].rsplit("_", 1)[0]
        ok = want is not None and got == want
        print("%-4s %-6s shown first: pprof %s, cgprop %s" % ("ok" if ok else "FAIL", kind[1:] or "cpu", want, got))
        failures += not ok
    return failures


if __name__ == "__main__":
    sys.exit(main())

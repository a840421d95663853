#!/usr/bin/env bash
# Regenerate the measured part of docs/PERFORMANCE.md (the tables between its
# "bench:begin" and "bench:end" markers) and the plot docs/images/scaling.svg
# from one run of cgprop-bench, kept in docs/bench/results.json.
#
#   scripts/bench-report.sh            full run (10k..10M calls; a few minutes)
#   scripts/bench-report.sh --quick    short run (under a minute)
#   CGPROP_BENCH_JSON=file scripts/bench-report.sh   re-render a saved run
#
# Needs a C compiler, cmake, python3 and gnuplot (apt-get install -y gnuplot-nox).
# Builds Release into $CGPROP_BENCH_BUILD (default build-bench).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${CGPROP_BENCH_BUILD:-build-bench}
json=docs/bench/results.json
mkdir -p docs/bench docs/images

command -v gnuplot >/dev/null || { echo "bench-report: needs gnuplot (apt-get install -y gnuplot-nox)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "bench-report: needs python3" >&2; exit 1; }

if [[ -n ${CGPROP_BENCH_JSON:-} ]]; then
    [[ $CGPROP_BENCH_JSON -ef $json ]] || cp "$CGPROP_BENCH_JSON" "$json"
else
    cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >/dev/null
    cmake --build "$build" --target cgprop-bench -j2 >/dev/null
    "$build"/bench/cgprop-bench --json "$@" >"$json.tmp"
    mv "$json.tmp" "$json"
fi

dat=$(mktemp)
trap 'rm -f "$dat"' EXIT

python3 - "$json" docs/PERFORMANCE.md "$dat" <<'PY'
import json, re, sys, platform, subprocess
src, md, dat = sys.argv[1:4]
run = json.load(open(src))
figs = run["figures"]

def fmt(v):
    if v == 0: return "0"
    a = abs(v)
    if a >= 1000: return f"{v:,.0f}"
    if a >= 100: return f"{v:.0f}"
    if a >= 10: return f"{v:.1f}"
    if a >= 1: return f"{v:.2f}"
    return f"{v:.3g}"

def size(n):
    for d, s in ((1e6, "M"), (1e3, "k")):
        if n >= d: return f"{n/d:g}{s}"
    return f"{n:g}"

def target(f):
    if "target_ratio" not in f: return ""
    return " ✔" if f["met"] else f" ✘ (target ≤ {fmt(f['target_ratio'])})"

out = []
cpu = ""
try:
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip(); break
except OSError:
    pass
out.append(f"Run: cgprop-bench {run['version']}{' --quick' if run['quick'] else ''}, "
           f"{platform.machine()}, {cpu or 'unknown CPU'}. CPU time, best of several runs; "
           "ratio = cgprop's time / the reference's time (below 1: cgprop is faster).\n")

# Scaling: one row per size, ns per call of each step, and memory.
scale = [f for f in figs if f["group"] == "scale"]
sizes = sorted({f["size"] for f in scale})
steps = ["build", "index", "cycles", "collapse", "propagate", "split"]
if scale:
    out.append("### Power-law DAG with small cycles: time per call across sizes\n")
    out.append("| calls | " + " | ".join(steps) + " | streaming pass | graph B/call | graph+analyses B/call |")
    out.append("|---:|" + "---:|" * (len(steps) + 3))
    for n in sizes:
        row = {f["name"]: f for f in scale if f["size"] == n}
        cells = [fmt(row[s]["value"]) if s in row else "" for s in steps]
        ref = row.get("cycles", {}).get("reference_value", 0)
        out.append(f"| {size(n)} | " + " | ".join(cells) +
                   f" | {fmt(ref)} | {fmt(row['memory: graph']['value'])} | "
                   f"{fmt(row['memory: graph+analyses']['value'])} |")
    out.append("\nns per call (build: per call added, beside a plain array append of the same data: "
               + ", ".join(f"{size(n)}: {fmt(f['reference_value'])}" for n in sizes
                           for f in scale if f["size"] == n and f["name"] == "build")
               + " ns; memory beside the plain arrays' "
               + ", ".join(f"{fmt(f['reference_value'])}" for n in sizes
                           for f in scale if f["size"] == n and f["name"] == "memory: graph")
               + " B per call).\n")

shuf = ["build", "cycles", "collapse", "propagate", "split"]
if any(f["name"].endswith(", calls shuffled") for f in scale):
    out.append("### The same graphs with their calls added in random order\n")
    out.append("| calls | " + " | ".join(shuf) + " |")
    out.append("|---:|" + "---:|" * len(shuf))
    for n in sizes:
        row = {f["name"]: f for f in scale if f["size"] == n}
        cells = [fmt(row[s + ", calls shuffled"]["value"]) if s + ", calls shuffled" in row else "" for s in shuf]
        out.append(f"| {size(n)} | " + " | ".join(cells) + " |")
    out.append("\nns per call. The generator gives each caller's calls together, as callgrind and gprof "
               "files do; here every call's caller is a jump.\n")

out.append("### Every figure beside its reference\n")
out.append("| group | figure | size | value | reference (same run) | reference value | ratio |")
out.append("|---|---|---:|---:|---|---:|---:|")
for f in figs:
    out.append(f"| {f['group']} | {f['name']} | {size(f['size'])} | {fmt(f['value'])} {f['unit']} | "
               f"{f['reference']} | {fmt(f['reference_value'])} {f['unit']} | {fmt(f['ratio'])}{target(f)} |")
out.append("")

text = open(md).read()
begin, end = "<!-- bench:begin -->", "<!-- bench:end -->"
i, j = text.index(begin) + len(begin), text.index(end)
open(md, "w").write(text[:i] + "\n" + "\n".join(out) + "\n" + text[j:])

# Plot data: size, then ns per call of each step (stack ingestion per frame).
stk = {f["size"]: f["value"] for f in figs if f["group"] == "stacks" and f["name"] == "add_stack"}
with open(dat, "w") as d:
    d.write("# calls " + " ".join(steps) + " streaming-pass build-shuffled\n")
    for n in sizes:
        row = {f["name"]: f for f in scale if f["size"] == n}
        ref = row["cycles"]["reference_value"] if "cycles" in row else float("nan")
        sb = row.get("build, calls shuffled", {}).get("value", float("nan"))
        d.write(f"{n:g} " + " ".join(f"{row[s]['value'] if s in row else float('nan'):g}" for s in steps)
                + f" {ref:g} {sb:g}\n")
    d.write("\n\n# frames add_stack\n")
    for n in sorted(stk):
        d.write(f"{n:g} {stk[n]:g}\n")
PY

gnuplot <<GP
set terminal svg size 760,440 dynamic font "sans,11" background rgb "white"
set output "docs/images/scaling.svg"
set title "cgprop: time per call across sizes (flat = linear total cost)"
set logscale x 10
set logscale y 10
set xtics ("10k" 1e4, "100k" 1e5, "1M" 1e6, "10M" 1e7)
set xrange [7e3:1.4e7]
set xlabel "calls in the graph (frames, for add_stack)" noenhanced
set ylabel "ns per call, CPU time"
set key outside right top noenhanced
set grid xtics ytics mytics
plot "$dat" index 0 using 1:2 with linespoints lw 2 pt 7 lc 1 title "build", \
     "" index 0 using 1:9 with linespoints lw 2 pt 7 dt 2 lc 1 title "build, calls shuffled", \
     "" index 0 using 1:3 with linespoints lw 2 pt 7 title "index", \
     "" index 0 using 1:4 with linespoints lw 2 pt 7 title "cycles", \
     "" index 0 using 1:5 with linespoints lw 2 pt 7 title "collapse", \
     "" index 0 using 1:6 with linespoints lw 2 pt 7 title "propagate", \
     "" index 0 using 1:7 with linespoints lw 2 pt 7 title "split", \
     "" index 1 using 1:2 with linespoints lw 2 pt 5 title "add_stack, per frame", \
     "" index 0 using 1:8 with linespoints lw 2 pt 6 lc rgb "black" title "streaming pass (reference)"
GP
echo "bench-report: wrote $json, docs/PERFORMANCE.md (tables) and docs/images/scaling.svg"

#!/usr/bin/env python3
"""Check cgprop's figures on profiles of real programs against valgrind's truth.

    check_real.py CGPROP DATA_DIR [--program NAME]

DATA_DIR (tests/data/real) holds one folder per program, made by
scripts/gen_real_profiles.sh: three gzipped callgrind profiles of one run of
the program (callgrind's default --separate-recs=2, --separate-recs=10 and
--separate-recs=1) and truth.tsv, the inclusive cost of chosen recursive
functions counted once per stack, as valgrind's --toggle-collect measured it.

For each program and each profile this runs `CGPROP report --format json` and
checks, for the first metric:

* the report's program total equals the one in truth.tsv;
* default and --separate-recs=10 profiles: each function's `total` is within
  1e-4 of the program total of the truth, and `estimate` marks it exact
  (null);
* --separate-recs=1 profile (no recursion levels: the figure cannot be
  exact): the truth lies inside the function's interval `bounds`.

Functions are found by display name, or by key (object, file, name) when the
name belongs to more than one function. It prints a table per program, how
far gprof2dot's heuristic is from the truth (for the record: it is not a
check), and ends with `N passed, M failed`. Exit status 0 when every check
passed, 1 when one failed, 2 when the tool or the data cannot be used.
Standard library only.
"""

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile

PROFILES = (
    # (file suffix, column title, what is checked)
    ("default", "sr=2", "exact"),
    ("separate-recs-10", "sr=10", "exact"),
    ("separate-recs-1", "sr=1", "bounds"),
)
TOLERANCE = 1e-4          # of the program total, for the exact figures
SLACK = 1e-9              # of the program total: decimal rounding in JSON
TIMEOUT = 300             # seconds for one cgprop run


class Checks:
    def __init__(self):
        self.passed = 0
        self.failed = 0
        self.messages = []

    def record(self, ok, message=None):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            if message:
                self.messages.append(message)
        return ok


def read_truth(path):
    """truth.tsv: a header line, then function, truth, program_total, ..."""
    rows = []
    with open(path, encoding="utf-8") as f:
        header = f.readline().rstrip("\n").split("\t")
        col = {name: i for i, name in enumerate(header)}
        for needed in ("function", "truth", "program_total"):
            if needed not in col:
                raise ValueError(f"{path}: no column '{needed}' in the header")
        for lineno, line in enumerate(f, start=2):
            line = line.rstrip("\n")
            if not line:
                continue
            cells = line.split("\t")
            get = lambda name: cells[col[name]] if name in col and col[name] < len(cells) else ""
            try:
                truth, total = int(get("truth")), int(get("program_total"))
            except ValueError:
                raise ValueError(f"{path}:{lineno}: truth and program_total must be integers")
            rows.append({
                "name": get("function"), "truth": truth, "total": total,
                "object": get("object"), "file": get("file"),
                "recursion": get("recursion"),
            })
    if not rows:
        raise ValueError(f"{path}: no functions")
    totals = {r["total"] for r in rows}
    if len(totals) != 1:
        raise ValueError(f"{path}: more than one program total: {sorted(totals)}")
    return rows


def run_tool(tool, profile_gz, scratch):
    """Decompresses PROFILE_GZ into SCRATCH and returns cgprop's JSON report."""
    plain = os.path.join(scratch, os.path.basename(profile_gz)[:-3])
    with gzip.open(profile_gz, "rb") as src, open(plain, "wb") as dst:
        shutil.copyfileobj(src, dst)
    try:
        proc = subprocess.run([tool, "report", "--format", "json", plain],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return None, f"cgprop took more than {TIMEOUT} s"
    except OSError as e:
        return None, f"cannot run {tool}: {e}"
    finally:
        os.unlink(plain)
    if proc.returncode != 0:
        err = proc.stderr.decode(errors="replace").strip()
        return None, f"cgprop exited {proc.returncode}: {err}"
    try:
        return json.loads(proc.stdout), None
    except ValueError as e:
        return None, f"cgprop's output is not JSON: {e}"


def index_functions(report):
    by_name = {}
    for f in report.get("functions", []):
        by_name.setdefault(f.get("name"), []).append(f)
    return by_name


def find(by_name, row):
    """The report's function for a truth row, or (None, reason)."""
    found = by_name.get(row["name"], [])
    if len(found) == 1:
        return found[0], None
    if not found:
        return None, "not in the report"
    key = "\t".join((row["object"], row["file"], row["name"]))
    keyed = [f for f in found if f.get("key") == key]
    if len(keyed) == 1:
        return keyed[0], None
    return None, f"{len(found)} functions of that name, {len(keyed)} with key {key!r}"


def first(value):
    """The first metric's entry of a per-metric list (None when absent)."""
    if isinstance(value, list) and value:
        return value[0]
    return None


def number(value):
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def pct(value, total):
    return "-" if value is None else f"{100.0 * value / total:.3f}"


def check_exact(fn, row, total, where, checks):
    """Default / --separate-recs=10: the figure is the truth, marked exact."""
    shown = number(first(fn.get("total")))
    estimate = fn.get("estimate")
    if not isinstance(estimate, list):
        exact, why = False, "no per-metric `estimate` list"
    else:
        exact = estimate[0] is None if estimate else False
        why = None if exact else f"marked an estimate ({first(estimate)!r}"
        if not exact:
            reason = first(fn.get("reason")) if isinstance(fn.get("reason"), list) else None
            why += f", reason {reason!r})" if reason else ")"
    if shown is None:
        checks.record(False, f"{where}: no `total` figure")
        return "-", False
    close = abs(shown - row["truth"]) <= TOLERANCE * total
    problems = []
    if not close:
        problems.append(f"total {shown:.0f} is not the truth {row['truth']} "
                        f"(off by {100.0 * (shown - row['truth']) / total:+.4f} % of the program)")
    if not exact:
        problems.append(why)
    ok = checks.record(not problems, f"{where}: " + "; ".join(problems))
    mark = "" if ok else ("!" if not close else "~")
    return pct(shown, total) + mark, ok


def check_bounds(fn, row, total, where, checks):
    """--separate-recs=1: the truth lies inside the interval."""
    bounds = fn.get("bounds")
    lo = hi = None
    if (isinstance(bounds, list) and len(bounds) == 2
            and isinstance(bounds[0], list) and isinstance(bounds[1], list)):
        lo, hi = number(first(bounds[0])), number(first(bounds[1]))
    if lo is None or hi is None:
        why = "no `bounds` interval" if bounds is None else f"unreadable `bounds` {bounds!r}"
        checks.record(False, f"{where}: {why}")
        return "-", False
    slack = SLACK * total
    ok = lo - slack <= row["truth"] <= hi + slack
    checks.record(ok, f"{where}: the truth {row['truth']} is outside [{lo:.0f}, {hi:.0f}]")
    return f"[{pct(lo, total)}, {pct(hi, total)}]" + ("" if ok else "!"), ok


def heuristic_of(fn):
    """gprof2dot's per-root figure: `heuristic`, or today's `total`."""
    h = number(first(fn.get("heuristic")))
    if h is not None:
        return h, "heuristic"
    return number(first(fn.get("total"))), "total"


def exact_split_of(fn):
    """The split's C_n where the report calls it exact (today's JSON)."""
    split = fn.get("split")
    inexact = fn.get("inexact")
    if not isinstance(split, dict) or not isinstance(inexact, list) or "C_n" in inexact:
        return None
    return number(first(split.get("C_n")))


def check_program(tool, data_dir, program, scratch, checks, record):
    pdir = os.path.join(data_dir, program)
    try:
        rows = read_truth(os.path.join(pdir, "truth.tsv"))
    except (OSError, ValueError) as e:
        checks.record(False, f"{program}: {e}")
        return
    total = rows[0]["total"]
    cells = {r["name"]: {} for r in rows}
    heur = {}
    splits = {}
    used_field = None
    for suffix, title, kind in PROFILES:
        gz = os.path.join(pdir, f"{program}.{suffix}.callgrind.out.gz")
        where0 = f"{program} {title}"
        if not os.path.exists(gz):
            checks.record(False, f"{where0}: missing {gz}")
            continue
        report, err = run_tool(tool, gz, scratch)
        if report is None:
            checks.record(False, f"{where0}: {err}")
            continue
        rep_total = number(first(report.get("totals")))
        checks.record(rep_total == total,
                      f"{where0}: program total {rep_total} in the report, {total} in truth.tsv")
        by_name = index_functions(report)
        for row in rows:
            where = f"{where0} {row['name']}"
            fn, why = find(by_name, row)
            if fn is None:
                checks.record(False, f"{where}: {why}")
                cells[row["name"]][title] = "missing!"
                continue
            if kind == "exact":
                cells[row["name"]][title] = check_exact(fn, row, total, where, checks)[0]
            else:
                cells[row["name"]][title] = check_bounds(fn, row, total, where, checks)[0]
            if suffix == "default":
                heur[row["name"]], used_field = heuristic_of(fn)
                splits[row["name"]] = exact_split_of(fn)

    width = max(len("function"), *(len(r["name"]) for r in rows))
    print(f"== {program}: program total {total}; figures in % of it "
          f"(! wrong, ~ right figure but marked an estimate)")
    head = (f"{'function':<{width}}  {'kind':<5}  {'truth %':>8}  {'sr=2 %':>9}  "
            f"{'sr=10 %':>9}  {'sr=1 interval %':>20}  {'heur. %':>8}  {'heur.-truth':>11}")
    print(head)
    print("-" * len(head))
    errors = []
    for r in rows:
        c = cells[r["name"]]
        h = heur.get(r["name"])
        diff = None if h is None else 100.0 * (h - r["truth"]) / total
        if diff is not None:
            errors.append(abs(diff))
        kind = "fn'N" if r["recursion"] == "fn'N" else (r["recursion"] or "?")[:5]
        print(f"{r['name']:<{width}}  {kind:<5}  {pct(r['truth'], total):>8}  "
              f"{c.get('sr=2', '-'):>9}  {c.get('sr=10', '-'):>9}  {c.get('sr=1', '-'):>20}  "
              f"{pct(h, total):>8}  {'-' if diff is None else f'{diff:+.3f}':>11}")
    if errors:
        line = (f"{program}: heuristic vs truth (default profile, `{used_field}`): "
                f"max {max(errors):.3f} %, mean {sum(errors) / len(errors):.3f} % of the program, "
                f"{sum(e > 100 * TOLERANCE for e in errors)} of {len(errors)} functions off by more "
                f"than {100 * TOLERANCE:g} %")
        record.append(line)
    known = {n: v for n, v in splits.items() if v is not None}
    if known:
        truth = {r["name"]: r["truth"] for r in rows}
        differ = sorted(n for n, v in known.items() if abs(v - truth[n]) > TOLERANCE * total)
        record.append(f"{program}: split C_n marked exact for {len(known)} of {len(rows)} functions; "
                      + (f"{len(differ)} differ from the truth: {', '.join(differ)}" if differ
                         else "each equals the truth"))
    print()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cgprop", help="the cgprop tool binary")
    ap.add_argument("data_dir", help="tests/data/real")
    ap.add_argument("--program", action="append",
                    help="check only this program (may be repeated)")
    args = ap.parse_args()

    if not (os.path.isfile(args.cgprop) and os.access(args.cgprop, os.X_OK)):
        print(f"check_real: {args.cgprop}: not an executable file", file=sys.stderr)
        return 2
    if not os.path.isdir(args.data_dir):
        print(f"check_real: {args.data_dir}: not a folder", file=sys.stderr)
        return 2
    programs = sorted(d for d in os.listdir(args.data_dir)
                      if os.path.isfile(os.path.join(args.data_dir, d, "truth.tsv")))
    if args.program:
        unknown = [p for p in args.program if p not in programs]
        if unknown:
            print(f"check_real: no data for {', '.join(unknown)} in {args.data_dir}",
                  file=sys.stderr)
            return 2
        programs = [p for p in programs if p in args.program]
    if not programs:
        print(f"check_real: {args.data_dir}: no program folder with a truth.tsv", file=sys.stderr)
        return 2

    checks = Checks()
    record = []
    with tempfile.TemporaryDirectory(prefix="check_real.") as scratch:
        for program in programs:
            check_program(args.cgprop, args.data_dir, program, scratch, checks, record)

    if checks.messages:
        print("Failures:")
        for m in checks.messages[:200]:
            print("  " + m)
        if len(checks.messages) > 200:
            print(f"  ... and {len(checks.messages) - 200} more")
        print()
    print("For the record (not checked), gprof2dot's heuristic and the split's exact C_n "
          "against the truth:")
    for line in record:
        print("  " + line)
    print()
    print(f"{checks.passed} passed, {checks.failed} failed")
    return 0 if checks.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

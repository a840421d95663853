#!/bin/bash
# Regenerates tests/data/real/: callgrind profiles of real, recursive Debian
# programs, and the true inclusive cost of chosen functions, measured by
# valgrind itself.
#
#   scripts/gen_real_profiles.sh [--no-install] [--only PROGRAM] [OUTDIR]
#
# For each program the same command runs, under `setarch -R` (no address
# randomisation: repeatable counts), with a clean environment, standard input
# from /dev/null and standard output to /dev/null:
#   * three profiles: callgrind's default (--separate-recs=2),
#     --separate-recs=10 and --separate-recs=1;
#   * for each chosen function F, a run with --collect-atstart=no
#     --toggle-collect=F: callgrind collects exactly while some activation of
#     F is on the stack, so its total is F's inclusive cost counted once per
#     stack: the truth.
# Every run also counts, with --stats=yes, the basic blocks executed and the
# calls made in the whole run, whatever was collected: they must be the same
# in all the runs of a program (the same execution), and the three profiles
# must have the same program total, or the script stops.
# A function is only chosen when its name belongs to one function of the
# profile (one object and file), so that --toggle-collect means that function.
#
# Needs a Debian 12 (bookworm) amd64 machine; installs what it uses with
# apt-get unless --no-install. Takes some minutes (valgrind runs in turn).
set -euo pipefail

install=1 only= out=
while [ $# -gt 0 ]; do
  case $1 in
    --no-install) install=0 ;;
    --only) only=$2; shift ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) out=$1 ;;
  esac
  shift
done
root=$(cd "$(dirname "$0")/.." && pwd)
out=${out:-$root/tests/data/real}

packages="valgrind util-linux gzip python3.11 python3.11-dbg perl tcl8.6 sqlite3 bash"
if [ $install = 1 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # python3.11-dbg carries the debug symbols of the normal interpreter, so
  # that the profile names its static functions (it pins python3.11 to the
  # same version).
  apt-get install -y -qq $packages >/dev/null
fi

# A fixed scratch folder: the programs see their working directory (python's
# sys.path, bash's PWD), and a name that changed from one regeneration to the
# next would change their counts.
scratch=/tmp/cgprop-real-profiles
rm -rf "$scratch"
trap 'rm -rf "$scratch"' EXIT
arch=$(uname -m)
# Each run gets a process-ID namespace of its own when the machine allows it
# (root, or unprivileged namespaces): the program is then always process 1.
# bash writes its process ID as text at start-up, so a pid with one digit
# more or less changes its count by a few instructions from one
# regeneration to the next.
newpid=()
if unshare --pid --fork true 2>/dev/null; then
  newpid=(unshare --pid --fork)
else
  echo "gen_real_profiles: no pid namespace here: bash's total may move by a few instructions" >&2
fi

# run DIR VALGRIND-OPTIONS... -- COMMAND...: one valgrind run of COMMAND in
# DIR/work, which holds the input files and nothing else (python lists its
# working directory: a file more there changes its counts); the profile goes
# to DIR/run.out, valgrind's messages to DIR/valgrind.log. Prints the profile's
# `totals:` figure, then the whole run's basic blocks executed and calls.
run() {
  local dir=$1; shift
  local vg=()
  while [ "$1" != -- ]; do vg+=("$1"); shift; done
  shift
  (cd "$dir/work" && env -i PATH=/usr/bin:/bin HOME=/nonexistent LC_ALL=C \
     PYTHONHASHSEED=0 PERL_HASH_SEED=0 PERL_PERTURB_KEYS=0 \
     "${newpid[@]}" setarch "$arch" -R valgrind --tool=callgrind --stats=yes --callgrind-out-file="$dir/run.out" \
     "${vg[@]}" "$@" </dev/null >/dev/null 2>"$dir/valgrind.log") || {
    echo "gen_real_profiles: valgrind run failed in $dir/work:" >&2
    tail -5 "$dir/valgrind.log" >&2; exit 1; }
  local total bbs calls
  total=$(sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$dir/run.out")
  bbs=$(sed -n 's/.*BBs Executed: *\([0-9]*\).*/\1/p' "$dir/valgrind.log")
  calls=$(sed -n 's/.* Calls: *\([0-9]*\).*/\1/p' "$dir/valgrind.log")
  echo "$total $bbs $calls"
}

# check_names PROFILE NAME...: each NAME must be one function of PROFILE:
# it occurs (plain or as NAME'N) under exactly one object and file. Prints
# "NAME<TAB>OBJECT<TAB>FILE<TAB>KIND" per name, KIND "fn'N" when the profile
# shows recursion levels for it, else "cycle".
check_names() {
  python3 - "$@" <<'PY'
import re, sys
path, names = sys.argv[1], sys.argv[2:]
tables = {"ob": {}, "fl": {}, "fn": {}}
def name(kind, text):
    m = re.match(r"\((\d+)\)(?: (.*))?$", text)
    if not m:
        return text
    if m.group(2) is not None:
        tables[kind][m.group(1)] = m.group(2)
    return tables[kind][m.group(1)]
ob = fl = None
where, ticked = {}, set()
for line in open(path, errors="replace"):
    line = line.rstrip("\n")
    key, _, val = line.partition("=")
    if key == "ob":
        ob = name("ob", val)
    elif key == "fl":
        fl = name("fl", val)
    elif key in ("fi", "fe"):
        name("fl", val)
    elif key in ("cob",):
        name("ob", val)
    elif key in ("cfi", "cfl"):
        name("fl", val)
    elif key in ("fn", "cfn"):
        fn = name("fn", val)
        base = re.sub(r"'\d+$", "", fn)
        if base != fn:
            ticked.add(base)
        if key == "fn":
            where.setdefault(base, set()).add((ob, fl))
bad = 0
for n in names:
    w = where.get(n, set())
    if len(w) != 1:
        print(f"gen_real_profiles: {n}: in {len(w)} object/file pairs of {path}", file=sys.stderr)
        bad = 1
        continue
    (o, f), = w
    print(f"{n}\t{o}\t{f}\t{'fn' + chr(39) + 'N' if n in ticked else 'cycle'}")
sys.exit(bad)
PY
}

# readme PROGRAM ABOUT DEST TOTAL: DEST/README.md, from what is in DEST.
readme() {
  local prog=$1 about=$2 dest=$3 total=$4
  {
    printf '# %s: a real profile with measured inclusive costs\n\n' "$prog"
    printf '%s\n\n' "$about"
    printf '## Program\n\n| Debian package | version |\n|---|---|\n'
    awk -F'\t' '{ printf "| %s | %s |\n", $1, $2 }' "$dest/packages.tsv"
    printf '\nDebian 12 (bookworm), amd64. The command, run in this folder:\n\n'
    printf '```\n%s\n```\n\n' "$(cat "$dest/command")"
    printf 'with a clean environment (`env -i PATH=/usr/bin:/bin HOME=/nonexistent LC_ALL=C\n'
    printf 'PYTHONHASHSEED=0 PERL_HASH_SEED=0 PERL_PERTURB_KEYS=0`), standard input from\n'
    printf '`/dev/null`, standard output to `/dev/null`, under `setarch %s -R` (no address\n' "$arch"
    printf 'randomisation) and, where the machine allows it, in a process-ID namespace of\n'
    printf 'its own (`unshare --pid --fork`).\n\n'
    printf '## Files\n\n'
    printf '* `%s.default.callgrind.out.gz`: `valgrind --tool=callgrind` with its defaults\n' "$prog"
    printf '  (`--separate-recs=2`: a function re-entered while active is named `fn'"'"'2`).\n'
    printf '* `%s.separate-recs-10.callgrind.out.gz`: the same run with `--separate-recs=10`.\n' "$prog"
    printf '* `%s.separate-recs-1.callgrind.out.gz`: the same run with `--separate-recs=1`\n' "$prog"
    printf '  (no recursion levels).\n'
    printf '* `truth.tsv`: for %s functions, the true inclusive cost (`truth`, in Ir: instructions\n' "$(($(wc -l < "$dest/truth.tsv") - 1))"
    printf '  executed), the program total (`program_total`, %s Ir), the function'"'"'s object and\n' "$total"
    printf '  source file as the profile names them, and `recursion`: `fn'"'"'N` when the default\n'
    printf '  profile shows it re-entered, `cycle` when it only lies on a cycle of the call graph.\n'
    printf '* `command`, `packages.tsv` and the input file(s) the command reads.\n\n'
    printf '## How the truth was measured\n\n'
    printf 'For each function F, the same command ran once more under\n'
    printf '`valgrind --tool=callgrind --collect-atstart=no --toggle-collect=F`. Callgrind\n'
    printf 'turns collection on when F is entered while no activation of F is active, and off\n'
    printf 'when that outermost activation returns, so the run'"'"'s `totals:` is the cost spent\n'
    printf 'while at least one activation of F is on the stack: F'"'"'s inclusive cost, each\n'
    printf 'instruction counted once however deep the recursion. Every run also counted\n'
    printf '(`--stats=yes`) the basic blocks executed and the calls made in the whole run;\n'
    printf 'they are the same in the three profile runs and in every truth run (the same\n'
    printf 'execution), and the three profiles have the same program total. Each F is the\n'
    printf 'only function of that name in the profile (one object, one file). Names `0x...`\n'
    printf 'are code that the binary'"'"'s symbol table does not name; callgrind names it by its\n'
    printf 'address in the object.\n\n'
    printf 'Regenerate with `scripts/gen_real_profiles.sh` (see docs/ACCURACY-DATA.md); the\n'
    printf 'same package versions give the same files byte for byte.\n\n'
    printf '## Provenance\n\n'
    printf 'The profiles were made by running the Debian binaries above under valgrind on the\n'
    printf 'input in this folder, which was written for this project. They hold only what\n'
    printf 'callgrind records: function names (from the binaries'"'"' symbol tables%s), object\n' "$5"
    printf 'paths, source file names of the Debian build, and instruction and call counts.\n'
    printf 'No code or text of the programs is included.\n'
  } > "$dest/README.md"
}

# profile PROGRAM "PACKAGES" "INPUTS" "FUNCTIONS" COMMAND...: everything for
# one program. The input files are already in $scratch/PROGRAM/work (the
# command runs there) and are copied to the output with the command line and the
# versions of PACKAGES.
profile() {
  local prog=$1 pkgs=$2 inputs=$3 funcs=$4; shift 4
  local about=${ABOUT:?} symbols=${SYMBOLS:-}
  local dir=$scratch/$prog dest=$out/$prog
  [ -z "$only" ] || [ "$only" = "$prog" ] || return 0
  echo "== $prog: $*" >&2
  mkdir -p "$dest"
  rm -f "$dest"/*.callgrind.out.gz "$dest/truth.tsv"
  local first= r mode total
  for mode in default separate-recs-10 separate-recs-1; do
    case $mode in
      default) r=$(run "$dir" -- "$@") ;;
      separate-recs-10) r=$(run "$dir" --separate-recs=10 -- "$@") ;;
      separate-recs-1) r=$(run "$dir" --separate-recs=1 -- "$@") ;;
    esac
    if [ -n "$first" ] && [ "$r" != "$first" ]; then
      echo "gen_real_profiles: $prog: $mode counts (total, blocks, calls) $r, default $first" >&2; exit 1
    fi
    first=$r
    # No path of this machine's scratch folder may enter the data.
    sed "s|$dir/work/||g; s|$dir/work|.|g; s|$dir|.|g" "$dir/run.out" > "$dir/$prog.$mode.callgrind.out"
  done
  check_names "$dir/$prog.default.callgrind.out" $funcs > "$dir/names.tsv"
  printf 'function\ttruth\tprogram_total\tobject\tfile\trecursion\n' > "$dir/truth.tsv"
  total=${first%% *}
  local f obj file kind on
  while IFS=$'\t' read -r f obj file kind; do
    r=$(run "$dir" --collect-atstart=no --toggle-collect="$f" -- "$@")
    on=${r%% *}
    if [ "${r#* }" != "${first#* }" ]; then
      echo "gen_real_profiles: $prog: $f: the truth run executed (blocks, calls) ${r#* }, the profiles ${first#* }" >&2; exit 1
    fi
    if [ "$on" = 0 ]; then
      echo "gen_real_profiles: $prog: $f collected nothing" >&2; exit 1
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$f" "$on" "$total" "$obj" "$file" "$kind" >> "$dir/truth.tsv"
    echo "   $f $on / $total" >&2
  done < "$dir/names.tsv"
  for mode in default separate-recs-10 separate-recs-1; do
    gzip -9 -n -c "$dir/$prog.$mode.callgrind.out" > "$dest/$prog.$mode.callgrind.out.gz"
  done
  cp "$dir/truth.tsv" "$dest/truth.tsv"
  python3 -c 'import shlex, sys; print(shlex.join(sys.argv[1:]))' "$@" > "$dest/command"
  for f in $inputs; do cp "$dir/work/$f" "$dest/"; done
  dpkg-query -W -f='${Package}\t${Version}\n' $pkgs valgrind > "$dest/packages.tsv"
  readme "$prog" "$about" "$dest" "$total" "$symbols"
  echo "   total $total; $(wc -l < "$dir/names.tsv") functions" >&2
}

mkdir -p "$scratch"/{python3,perl,bash,tclsh,sqlite3}/work

# The functions of each program: ones the default profile shows with
# recursion levels (NAME'2) and ones that only sit in a cycle of the call
# graph without recursing themselves. Names 0x... are code that the binary's
# symbol table does not name (callgrind names it by address inside its
# object); they, and the static functions that only debug symbols name, hold
# for the package versions in packages.tsv: with other versions the name
# check above stops the script, and the lists need choosing anew.

# ---- python3: the C core recursing under a small script ---------------------
cat > "$scratch/python3/work/rec.py" <<'EOF'
# Recursion inside CPython's C code (no import: the start-up stays small):
# the PEG parser, compiler and AST optimiser on a deeply nested expression;
# repr(), == and hash() on nested containers; and Python code re-entered
# from C through sort keys that sort again.
def build(n):
    return [build(n - 1), (n, str(n))] if n else []

def nest(n):
    return (nest(n - 1), n) if n else ()

def key(n):
    return sorted([2, 1], key=lambda x: key(n - 1) if n else x)[0] if n else n

a, b = build(16), build(16)
shown = repr(a)
same = a == b
h = hash(nest(16))
value = eval("(" * 30 + "1+2" + ")" * 30)
ordered = sorted([3, 1, 2], key=lambda x: key(6) + x)
print(len(shown), same, h, value, ordered)
EOF
ABOUT="CPython 3.11 (\`/usr/bin/python3.11\`, without \`site\`) running \`rec.py\`: the PEG
parser, compiler and AST optimiser on a deeply nested expression, \`repr()\`, \`==\`
and \`hash()\` on nested containers, and sort keys that sort again (Python code
re-entered from C). Start-up (built-in modules, codecs, type setup) is about a
third of the run." SYMBOLS=" and, for python3.11, the debug symbols of python3.11-dbg" \
profile python3 "python3.11 python3.11-dbg" rec.py \
  "_PyEval_EvalFrameDefault PyObject_Call list_sort_impl.lto_priv.0
   expression_rule.lto_priv.0 primary_rule compiler_visit_expr.lto_priv.0
   list_repr.lto_priv.0 tuplehash.lto_priv.0 list_richcompare.lto_priv.0
   r_object PyImport_ImportModuleLevelObject
   gc_collect_main.lto_priv.0 PyType_Ready _PyAST_Compile builtin_repr.lto_priv.0" \
  /usr/bin/python3.11 -S -B rec.py

# ---- perl: sort blocks that recurse, a nested eval, nested data -------------
cat > "$scratch/perl/work/rec.pl" <<'EOF'
# Recursion inside perl's C code: a sort block that calls the sub that sorts
# (runops and pp_sort re-entered), a string eval of a deeply nested
# expression, and a nested structure freed at exit.
sub f { my $n = shift; return 0 if $n <= 0;
        my @s = sort { f($n - 1); $a <=> $b } (2, 1); return $s[0] + 1 }
my $e = "1"; $e = "($e+1)" for 1 .. 40;
my $v = eval $e;
my $r = 1; $r = [$r, { k => $r }] for 1 .. 12;
print f(8), " $v\n";
EOF
ABOUT="Perl 5.36 running \`rec.pl\`: a sort block that calls the sub doing the sort
(the runops loop and \`pp_sort\` re-entered from C), a string \`eval\` of a deeply
nested expression (the parser and op-tree builders), and a nested structure
freed at exit." \
profile perl "perl perl-base" rec.pl \
  "Perl_runops_standard Perl_pp_sort Perl_sortsv_flags Perl_gv_fetchpvn_flags
   Perl_sv_free2 Perl_sv_clear Perl_av_push Perl_rpeep PerlIO_openn
   Perl_yyparse Perl_pp_entereval Perl_newBINOP Perl_mg_set Perl_mro_isa_changed_in" \
  /usr/bin/perl rec.pl

# ---- bash: shell functions, nested eval, nested arithmetic ------------------
cat > "$scratch/bash/work/rec.sh" <<'EOF'
# Recursion inside bash: mutually recursive shell functions, a function that
# recurses through eval, and a deeply parenthesised arithmetic expression.
# No command substitution: a forked child would go on under valgrind.
f() { if [ "$1" -le 0 ]; then return 0; fi; local n=$(( $1 - 1 )); g "$n"; }
g() { if [ "$1" -le 0 ]; then return 0; fi; local n=$(( $1 - 1 )); f "$n"; }
h() { if [ "$1" -le 0 ]; then return 0; fi; eval "h $(( $1 - 1 ))"; }
f 24
h 12
x=$(( (((((((((((((((((((1-2)+3)*4)-5)+6)*7)-8)+9)*10)-11)+12)*13)-14)+15)*16)-17)+18)*19)-20) ))
echo "$x"
EOF
ABOUT="GNU bash 5.2 running \`rec.sh\`: two mutually recursive shell functions, a
function that recurses through \`eval\` (the parser and executor re-entered), and
a deeply parenthesised arithmetic expression." \
profile bash "bash" rec.sh \
  "execute_command_internal execute_command eval_builtin evalstring
   parse_and_execute dispose_command copy_command 0x000000000004c640
   0x00000000000732e0 0x000000000006ff20 msort_with_tmp.part.0 expand_arith_string" \
  /usr/bin/bash --norc --noprofile rec.sh

# ---- tclsh: a recursing comparator, nested substitution, nested lists -------
cat > "$scratch/tclsh/work/rec.tcl" <<'EOF'
# Recursion in Tcl's C core: a comparator that sorts again (lsort -command),
# nested command substitution, and the string form of a nested list.
proc f {n} { if {$n <= 0} { return 0 }; return [expr {[f [expr {$n - 1}]] + 1}] }
proc cmp {n a b} { if {$n > 0} { lsort -command [list cmp [expr {$n - 1}]] {2 1} }; return [expr {$a - $b}] }
set s 1
for {set i 0} {$i < 25} {incr i} { set s "\[expr {$s + 1}\]" }
set l 0
for {set i 0} {$i < 30} {incr i} { set l [list $i [list $l]] }
puts [f 30]
puts [lsort -command [list cmp 6] {3 1 2}]
puts [eval "set x $s"]
puts [string length $l]
EOF
ABOUT="Tcl 8.6 (\`tclsh8.6\`) running \`rec.tcl\`: a recursive proc, an \`lsort -command\`
comparator that sorts again (the evaluator re-entered from C), nested command
substitution (the parser and byte-code compiler), and the string form of a
nested list." \
profile tclsh "tcl8.6 libtcl8.6" rec.tcl \
  "TclNRRunCallbacks Tcl_EvalObjv Tcl_ParseCommand TclFreeObj
   TclGetNamespaceForQualName Tcl_GetString Tcl_GetStringFromObj
   TclSetByteCodeFromAny TclNREvalObjEx TclProcCompileProc TclNRInterpProc
   Tcl_AppendToObj TclpAlloc TclEvalObjEx" \
  /usr/bin/tclsh8.6 rec.tcl

# ---- sqlite3: recursive CTE, recursive triggers, nested queries -------------
cat > "$scratch/sqlite3/work/rec.sql" <<'EOF'
-- Recursion inside SQLite's C code: a trigger that fires itself (the VDBE
-- and the code generator re-entered), nested subqueries and a deeply nested
-- expression (the walkers, resolver and copies recurse), a recursive CTE.
WITH RECURSIVE fib(n, a, b) AS (SELECT 1, 0, 1 UNION ALL SELECT n + 1, b, a + b FROM fib WHERE n < 30)
SELECT max(a) FROM fib;
SELECT (((((((((((((((((((1-2)+3)*4)-5)+6)*7)-8)+9)*10)-11)+12)*13)-14)+15)*16)-17)+18)*19)-20);
CREATE TABLE t(x);
CREATE TRIGGER tr AFTER INSERT ON t WHEN new.x < 12 BEGIN INSERT INTO t VALUES (new.x + 1); END;
PRAGMA recursive_triggers = ON;
INSERT INTO t VALUES (0);
SELECT count(*) FROM (SELECT * FROM (SELECT * FROM (SELECT * FROM (SELECT * FROM t WHERE x IN (SELECT x FROM t)))));
EOF
ABOUT="The SQLite 3.40 shell (\`sqlite3\`, in-memory database) reading \`rec.sql\`: a
trigger that fires itself (the virtual machine and the code generator
re-entered), nested subqueries and a deeply nested expression (the walkers,
resolver and copiers recurse), and a recursive common table expression." \
profile sqlite3 "sqlite3 libsqlite3-0" rec.sql \
  "sqlite3RunParser sqlite3_prepare_v2 sqlite3VdbeExec sqlite3_step sqlite3Select
   sqlite3WalkSelect sqlite3ExprDelete sqlite3SelectDelete sqlite3ExprDup
   sqlite3CodeRowTrigger sqlite3WalkExpr
   sqlite3_exec sqlite3SelectPrep sqlite3NestedParse sqlite3FindInIndex" \
  /usr/bin/sqlite3 -batch :memory: ".read rec.sql"

echo "gen_real_profiles: wrote $out" >&2

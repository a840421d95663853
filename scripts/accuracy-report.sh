#!/usr/bin/env bash
# The estimates' accuracy on real programs, regenerated in one command:
# builds the tool, and with --profile first remakes the profiles and their
# measured truths (scripts/gen_real_profiles.sh: Debian packages, valgrind;
# a few minutes), then rewrites the table of docs/ACCURACY.md and its plot
# docs/images/accuracy.svg from bench/accuracy.py.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${CGPROP_BUILD_DIR:-build}
if [[ ${1:-} == --profile ]]; then
    scripts/gen_real_profiles.sh
fi
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" --target cgprop_tool -j2 >/dev/null
tool=$build/tools/cgprop
table=$(/usr/bin/python3 bench/accuracy.py --markdown --svg docs/images/accuracy.svg "$tool" tests/data/real)
/usr/bin/python3 - docs/ACCURACY.md "$table" <<'PY'
import sys
path, table = sys.argv[1], sys.argv[2]
text = open(path).read()
a, b = "<!-- table: scripts/accuracy-report.sh -->\n", "<!-- end of table -->"
i, j = text.index(a) + len(a), text.index(b)
open(path, "w").write(text[:i] + table + "\n" + text[j:])
PY
/usr/bin/python3 bench/accuracy.py "$tool" tests/data/real

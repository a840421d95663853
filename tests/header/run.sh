#!/bin/sh
# Header test: include/cgprop.h (and each other public header alone) compiles as C89, C99 and C11 with
# -pedantic -Wall -Wextra -Werror under every C compiler given, and as C++
# (C++98/11/17) with C linkage for every function.
# Usage: run.sh <include dir> <test src dir> <work dir> "<C compilers>" "<C++ compilers>"
set -eu
inc=$1 src=$2 work=$3 ccs=$4 cxxs=$5
mkdir -p "$work"
fail=0

# The header may include only <stddef.h> and <stdint.h>.
bad=$(grep -E '^[[:space:]]*#[[:space:]]*include' "$inc/cgprop.h" |
      grep -vE '<(stddef|stdint)\.h>' || true)
if [ -n "$bad" ]; then
    echo "FAIL: cgprop.h includes more than <stddef.h>/<stdint.h>:"; echo "$bad"; fail=1
fi

run() {
    echo "+ $*"
    if ! "$@"; then fail=1; fi
}

# Every other public header must compile on its own too.
others=""
for h in "$inc"/*.h; do
    b=$(basename "$h")
    [ "$b" = cgprop.h ] && continue
    t="$work/alone_${b%.h}.c"
    printf '#include "%s"\n#include "%s"\ntypedef int cgprop_header_test_nonempty;\n' "$b" "$b" > "$t"
    others="$others $t"
done

n=0
for cc in $ccs; do
    for std in c89 c99 c11; do
        for t in "$src/header_test.c" $others; do
            n=$((n + 1))
            run "$cc" -std=$std -pedantic -pedantic-errors -Wall -Wextra -Werror \
                -I"$inc" -c "$t" -o "$work/c_$n.o"
        done
    done
done

for cxx in $cxxs; do
    for std in c++98 c++11 c++17; do
        n=$((n + 1))
        obj="$work/cxx_$n.o"
        run "$cxx" -std=$std -pedantic -pedantic-errors -Wall -Wextra -Werror \
            -I"$inc" -c "$src/header_test.cpp" -o "$obj"
        for t in $others; do
            n=$((n + 1))
            run "$cxx" -x c++ -std=$std -pedantic -pedantic-errors -Wall -Wextra -Werror \
                -I"$inc" -c "$t" -o "$work/cxx_$n.o"
        done
        # extern "C" must hold: the references are to plain C names.
        if [ -f "$obj" ]; then
            for sym in cgprop_version cgprop_graph_add_node cgprop_graph_free; do
                if ! nm -u "$obj" | grep -qE "[[:space:]]$sym\$"; then
                    echo "FAIL: $cxx -std=$std: $sym has no C linkage in $obj"; fail=1
                fi
            done
        fi
    done
done

if [ -z "$cxxs" ]; then
    if [ -n "${CGPROP_STRICT_TESTS:-}" ]; then echo "FAIL: no C++ compiler (CGPROP_STRICT_TESTS)"; fail=1
    else echo "note: no C++ compiler, C++ part not checked"; fi
fi
if [ "$n" -eq 0 ]; then echo "FAIL: no compiler given"; exit 1; fi
[ "$fail" -eq 0 ] && echo "header test: $n compiles passed"
exit "$fail"

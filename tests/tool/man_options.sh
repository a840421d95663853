#!/bin/sh
# Every option `cgprop --help` lists is in the man page (docs/man/cgprop.1),
# and the page names no option the tool does not have; with a third argument
# (docs/TOOL.md), every option but --help and --version also has a row in
# that page's tables.
# Usage: man_options.sh <cgprop> <man page> [<TOOL.md>]
tool=$1 page=$2 md=${3:-}
help=$("$tool" --help | grep -o -- '--[a-z][a-z-]*' | sort -u)
man=$(sed 's/\\-/-/g' "$page" | grep -o -- '--[a-z][a-z-]*' | sort -u)
status=0
for o in $help; do
    echo "$man" | grep -qx -- "$o" || { echo "FAIL: $o is in --help but not in the man page"; status=1; }
done
for o in $man; do
    echo "$help" | grep -qx -- "$o" || case $o in
        --tool) ;; # valgrind's, in the examples
        *) echo "FAIL: the man page names $o, which --help does not"; status=1 ;;
    esac
done
if [ -n "$md" ]; then
    rows=$(grep '^| `' "$md" | grep -o -- '--[a-z][a-z-]*' | sort -u)
    for o in $help; do
        case $o in --help|--version) continue ;; esac
        echo "$rows" | grep -qx -- "$o" || { echo "FAIL: $o is in --help but in no table row of $md"; status=1; }
    done
fi
[ $status = 0 ] && echo "man page${md:+ and $md}: all $(echo "$help" | wc -l) options of --help"
exit $status

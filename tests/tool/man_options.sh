#!/bin/sh
# Every option `cgprop --help` lists is in the man page (docs/man/cgprop.1),
# and the page names no option the tool does not have.
# Usage: man_options.sh <cgprop> <man page>
tool=$1 page=$2
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
[ $status = 0 ] && echo "man page: all $(echo "$help" | wc -l) options of --help"
exit $status

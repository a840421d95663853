#!/bin/sh
# Render the pictures of the docs (docs/pictures.txt) from the bundled
# profiles with the built tool, so that no picture is drawn by hand and none
# goes stale.
#
# usage: scripts/docs-pictures.sh [--tool CGPROP] [--out DIR]   render (default:
#            build/tools/cgprop into docs/images, the committed copies)
#        scripts/docs-pictures.sh --check [--tool CGPROP]      fail when a
#            committed copy is not what the tool draws now
#        scripts/docs-pictures.sh --check-html HTMLDIR          fail when a page
#            of the Doxygen HTML shows an image that is not there
#
# The SVG that dot writes depends on graphviz's version as well as on the
# DOT, and on the font that Arial resolves to (fontconfig), so --check
# compares every text of a committed picture (names, figures, colours: what
# cgprop decides) always, and the whole file only when it was made by the
# installed graphviz with the same font. Exit 77: dot is missing (with
# --check, unless CGPROP_STRICT_TESTS is set).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
tool=$root/build/tools/cgprop out=$root/docs/images mode=render html=
while [ $# -gt 0 ]; do
    case $1 in
    --tool) tool=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --check) mode=check; shift ;;
    --check-html) mode=html; html=$2; shift 2 ;;
    *) echo "docs-pictures: unknown argument $1" >&2; exit 2 ;;
    esac
done

if [ $mode = html ]; then
    # Every <img src="..."> of a page, relative to the page, must exist.
    bad=0 n=0
    for page in "$html"/*.html; do
        for src in $(grep -o '<img [^>]*src="[^"]*"' "$page" | sed 's/.*src="\([^"]*\)"/\1/' | grep -v '^[a-z]*:'); do
            n=$((n + 1))
            [ -f "$html/$src" ] || { echo "docs-pictures: $(basename "$page") shows $src, which is not in $html" >&2; bad=1; }
        done
    done
    [ $bad = 0 ] && echo "docs-pictures: the $n images the HTML pages show are all there"
    exit $bad
fi

if ! command -v dot > /dev/null 2>&1; then
    if [ $mode = check ] && [ -z "${CGPROP_STRICT_TESTS:-}" ]; then
        echo "docs-pictures: skipped, dot (graphviz) not found"
        exit 77
    fi
    echo "docs-pictures: dot (graphviz) not found: scripts/deps.sh installs graphviz" >&2
    exit 1
fi
[ -x "$tool" ] || { echo "docs-pictures: no tool $tool (build first, or --tool)" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cgprop-pictures.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
[ $mode = check ] && dest=$tmp/new || dest=$out
mkdir -p "$dest"

font=$(fc-match -f '%{file}' Arial 2> /dev/null || true)
fontnote="drawn with Arial as ${font:-graphviz's own estimate (no fontconfig)}"

# One picture: $1 the file name, the rest the tool's arguments.
render() {
    name=$1
    shift
    case $name in
    *-flame.svg)
        # A flame graph is the tool's own SVG, drawn without dot.
        (cd "$root" && "$tool" report --format flamegraph "$@") > "$dest/$name" ||
            { echo "docs-pictures: $name: cgprop failed" >&2; return 1; }
        ;;
    *.svg)
        (cd "$root" && "$tool" report "$@") > "$tmp/p.dot" || { echo "docs-pictures: $name: cgprop failed" >&2; return 1; }
        dot -Tsvg -o "$tmp/p.svg" "$tmp/p.dot" 2> "$tmp/err" || true
        # graphviz reports layout trouble on stderr, sometimes exiting 0.
        if [ -s "$tmp/err" ] || [ ! -s "$tmp/p.svg" ]; then
            echo "docs-pictures: $name: dot: $(cat "$tmp/err")" >&2
            return 1
        fi
        # Text widths, and so the layout, come from the font Arial resolves
        # to: the check compares whole files only where it resolves alike.
        echo "<!-- $fontnote -->" >> "$tmp/p.svg"
        mv "$tmp/p.svg" "$dest/$name"
        ;;
    *.txt)
        (cd "$root" && "$tool" report "$@") > "$dest/$name" || { echo "docs-pictures: $name: cgprop failed" >&2; return 1; }
        ;;
    *) echo "docs-pictures: $name: neither .svg nor .txt" >&2; return 1 ;;
    esac
}

# The texts of an SVG, one per line: what the picture says, whatever the layout.
texts() { grep -o '<text[^>]*>[^<]*</text>\|<title>[^<]*</title>\|fill="[^"]*"\|stroke="[^"]*"' "$1" | sed 's/<text[^>]*>/<text>/'; }

status=0 count=0
while read -r name args; do
    case $name in '' | '#'*) continue ;; esac
    # The arguments are words: no picture's arguments need quoting.
    # shellcheck disable=SC2086
    render "$name" $args || { status=1; continue; }
    count=$((count + 1))
    [ $mode = check ] || continue
    old=$root/docs/images/$name
    if [ ! -f "$old" ]; then
        echo "docs-pictures: docs/images/$name is not committed (run scripts/docs-pictures.sh)" >&2
        status=1
    elif [ "${name%.svg}" = "$name" ]; then
        cmp -s "$old" "$dest/$name" || { echo "docs-pictures: docs/images/$name is stale (run scripts/docs-pictures.sh)" >&2; status=1; }
        # A text view quoted in a page must be quoted as the tool writes it.
        python3 - "$dest/$name" "$root"/docs/*.md <<'PYEOF' || status=1
import sys
text = open(sys.argv[1], encoding="utf-8").read()
pages = [p for p in sys.argv[2:] if "images/" + sys.argv[1].rsplit("/", 1)[-1] in open(p, encoding="utf-8").read()
         or text.splitlines()[0] in open(p, encoding="utf-8").read()]
for p in pages:
    if text not in open(p, encoding="utf-8").read():
        print("docs-pictures: %s quotes %s otherwise than the tool writes it now" % (p, sys.argv[1].rsplit("/", 1)[-1]),
              file=sys.stderr)
        sys.exit(1)
PYEOF
    else
        texts "$old" > "$tmp/a"
        texts "$dest/$name" > "$tmp/b"
        if ! cmp -s "$tmp/a" "$tmp/b"; then
            echo "docs-pictures: docs/images/$name is stale: its labels differ (run scripts/docs-pictures.sh)" >&2
            diff "$tmp/a" "$tmp/b" | head -5 >&2
            status=1
        elif [ "$(grep -m1 'Generated by graphviz' "$old")" = "$(grep -m1 'Generated by graphviz' "$dest/$name")" ] &&
            [ "$(grep -m1 'drawn with Arial as' "$old")" = "$(grep -m1 'drawn with Arial as' "$dest/$name")" ] &&
            ! cmp -s "$old" "$dest/$name"; then
            echo "docs-pictures: docs/images/$name is stale: the same graphviz and font draw it otherwise (run scripts/docs-pictures.sh)" >&2
            status=1
        fi
    fi
done < "$root/docs/pictures.txt"
[ $status = 0 ] && echo "docs-pictures: $count pictures $([ $mode = check ] && echo "are current" || echo "rendered into $dest")"
exit $status

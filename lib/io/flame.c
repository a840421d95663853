/* The flame graph writer: an SVG of the calling contexts as Brendan Gregg's
 * flamegraph.pl draws it (same geometry, frames merged by identical stack
 * prefix, siblings in alphabetical order, a frame's own cost left of its
 * children, an "all" frame below the roots),
 * self-contained: zoom, search and hover details are a script inside the
 * SVG.
 *
 * flamegraph.pl sums folded lines and rounds every coordinate to 0.1 px; here
 * each frame carries its exact cost and start (data-c, data-s) and the
 * script lays frames out from those integers, so zooming keeps every width
 * proportional to its exact cost. Contexts are read from the store directly:
 * no iterator exposes them. */
#include "flame.h"
#include "contexts.h"

#include <stdlib.h>
#include <string.h>

/* flamegraph.pl's defaults. */
#define IMAGE_W 1200
#define FRAME_H 16
#define FONT_SIZE 12
#define FONT_W 0.59
#define XPAD 10
#define YPAD1 (FONT_SIZE * 3)
#define YPAD2 (FONT_SIZE * 2 + 10)
#define MIN_PX 0.1

typedef struct fent {
    const char *name, *key;
    size_t nlen, klen;
    uint32_t id;
} fent;

static int cmp_bytes(const char *a, size_t la, const char *b, size_t lb)
{
    int c = memcmp(a, b, la < lb ? la : lb);
    return c ? c : (la > lb) - (la < lb);
}

/* Siblings in flamegraph.pl's order: by name, bytewise; same-named
 * functions (other keys) by key, so the order never depends on ids. Sorted
 * through pointers: moving the entries themselves was most of the time. */
static int fent_cmp(const void *pa, const void *pb)
{
    const fent *a = *(const fent *const *)pa, *b = *(const fent *const *)pb;
    int c = cmp_bytes(a->name, a->nlen, b->name, b->nlen);
    if (!c) c = cmp_bytes(a->key, a->klen, b->key, b->klen);
    return c ? c : (a->id > b->id) - (a->id < b->id);
}

/* The length of the well-formed UTF-8 sequence at s, 0 when none starts
 * there (RFC 3629: shortest form, no surrogates, at most U+10FFFF). */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    if (c < 0x80) return 1;
    size_t len;
    unsigned lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) len = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        if (c == 0xE0) lo = 0xA0;
        if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        if (c == 0xF0) lo = 0x90;
        if (c == 0xF4) hi = 0x8F;
    } else
        return 0;
    if (n < len || s[1] < lo || s[1] > hi) return 0;
    for (size_t i = 2; i < len; i++)
        if (s[i] < 0x80 || s[i] > 0xBF) return 0;
    return len;
}

/* Write the first max_chars characters of name as XML text (max_chars
 * SIZE_MAX: all of it), followed by ".." when cut. Bytes that are not
 * well-formed UTF-8, and control characters XML cannot carry, become U+FFFD. */
static void put_xml(cgprop__wr *w, const char *name, size_t len, size_t max_chars)
{
    const unsigned char *s = (const unsigned char *)name;
    size_t chars = 0, i = 0;
    while (i < len) {
        if (chars == max_chars) {
            cgprop__wr_puts(w, "..");
            return;
        }
        size_t q = utf8_seq(s + i, len - i);
        chars++;
        if (!q || (s[i] < 0x20 && s[i] != '\t')) {
            cgprop__wr_puts(w, "\xEF\xBF\xBD");
            i += q ? q : 1;
            continue;
        }
        switch (s[i]) {
        case '&': cgprop__wr_puts(w, "&amp;"); break;
        case '<': cgprop__wr_puts(w, "&lt;"); break;
        case '>': cgprop__wr_puts(w, "&gt;"); break;
        case '"': cgprop__wr_puts(w, "&quot;"); break;
        default: cgprop__wr_put(w, name + i, q); break;
        }
        i += q;
    }
}

/* Characters in name as put_xml counts them. */
static size_t char_count(const char *name, size_t len)
{
    const unsigned char *s = (const unsigned char *)name;
    size_t n = 0;
    for (size_t i = 0; i < len; n++) {
        size_t q = utf8_seq(s + i, len - i);
        i += q ? q : 1;
    }
    return n;
}

/* 1234567 -> "1,234,567", as flamegraph.pl shows counts. */
static void put_count(cgprop__wr *w, uint64_t x)
{
    char d[24], out[32];
    int n = 0, o = 0;
    do {
        d[n++] = (char)('0' + x % 10);
        x /= 10;
    } while (x);
    while (n) {
        out[o++] = d[--n];
        if (n && n % 3 == 0) out[o++] = ',';
    }
    cgprop__wr_put(w, out, (size_t)o);
}

/* flamegraph.pl --hash: a colour of the "hot" palette chosen by the name, so
 * the same function has the same colour in every graph. */
static void put_color(cgprop__wr *w, const char *name, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++) h = (h ^ (unsigned char)name[i]) * 0x100000001b3ull;
    double v1 = (double)(h & 0xFFFF) / 65535.0, v2 = (double)((h >> 16) & 0xFFFF) / 65535.0,
           v3 = (double)((h >> 32) & 0xFFFF) / 65535.0;
    cgprop__wr_printf(w, "rgb(%d,%d,%d)", 205 + (int)(50 * v3), (int)(230 * v1), (int)(55 * v2));
}

static void put_percent(cgprop__wr *w, uint64_t part, uint64_t total)
{
    /* Exact to the digit shown: the long-double quotient of two integers. */
    long double p = total ? 100.0L * (long double)part / (long double)total : 100.0L;
    cgprop__wr_printf(w, "%.2Lf", p);
}

/* One frame: its group, title, rectangle and label. */
static void put_frame(cgprop__wr *w, const char *name, size_t nlen, const char *metric, uint64_t start, uint64_t cost,
                      uint64_t total, uint32_t depth, uint32_t height, bool icicle)
{
    const double scale = total ? (double)(IMAGE_W - 2 * XPAD) / (double)total : 0;
    double x = XPAD + (double)start * scale, wd = total ? (double)cost * scale : IMAGE_W - 2 * XPAD;
    double y = icicle ? YPAD1 + (double)depth * FRAME_H : (double)height - YPAD2 - (double)(depth + 1) * FRAME_H + 1;
    cgprop__wr_puts(w, "<g data-s=\"");
    cgprop__wr_u64(w, start);
    cgprop__wr_puts(w, "\" data-c=\"");
    cgprop__wr_u64(w, cost);
    cgprop__wr_printf(w, "\" data-d=\"%u\"><title>", depth);
    put_xml(w, name, nlen, SIZE_MAX);
    cgprop__wr_puts(w, " (");
    put_count(w, cost);
    cgprop__wr_puts(w, " ");
    put_xml(w, metric, strlen(metric), SIZE_MAX);
    cgprop__wr_puts(w, ", ");
    if (depth) put_percent(w, cost, total);
    else cgprop__wr_puts(w, "100");
    cgprop__wr_printf(w, "%%)</title><rect x=\"%.6f\" y=\"%.1f\" width=\"%.6f\" height=\"%d\" fill=\"", x, y, wd,
                      FRAME_H - 1);
    put_color(w, name, nlen);
    cgprop__wr_printf(w, "\" rx=\"2\" ry=\"2\"/><text x=\"%.2f\" y=\"%.1f\">", x + 3, y + 3 + (FRAME_H - 1) / 2.0);
    /* The label the script would fit (room for one character and ".."). */
    size_t room = (size_t)((wd - 3) / (FONT_SIZE * FONT_W));
    if (wd - 3 >= 2 * FONT_SIZE * FONT_W && room >= 3) put_xml(w, name, nlen, char_count(name, nlen) <= room ? SIZE_MAX : room - 2);
    cgprop__wr_puts(w, "</text></g>\n");
}

/* The layout constants and the total come first (printf), then this. */
static const char *const script[] = {
    "var frames, details, unzoombtn, searchbtn, matchedtxt, zoomed = null, term = null, icase = false;\n",
    "function num(g, a) { return parseFloat(g.getAttribute(a)); }\n",
    "function nameOf(g) { var t = g.querySelector('title').textContent; return t.substring(0, t.lastIndexOf(' (')); }\n",
    "function fit(g, x, w) {\n",
    "  var r = g.querySelector('rect'), t = g.querySelector('text');\n",
    "  r.setAttribute('x', x); r.setAttribute('width', w); t.setAttribute('x', x + 3);\n",
    "  var name = nameOf(g), room = Math.floor((w - 3) / (FS * FW)), chars = Array.from(name);\n",
    "  if (w - 3 < 2 * FS * FW || room < 3) t.textContent = '';\n",
    "  else if (chars.length <= room) t.textContent = name;\n",
    "  else t.textContent = chars.slice(0, room - 2).join('') + '..';\n",
    "}\n",
    "function layout() {\n",
    "  var z = zoomed, s0 = 0, c0 = TOTAL, d0 = -1, span = W - 2 * XPAD;\n",
    "  if (z) { s0 = num(z, 'data-s'); c0 = num(z, 'data-c'); d0 = num(z, 'data-d'); }\n",
    "  for (var i = 0; i < frames.length; i++) {\n",
    "    var g = frames[i], s = num(g, 'data-s'), c = num(g, 'data-c'), d = num(g, 'data-d');\n",
    "    g.classList.remove('hide'); g.classList.remove('parent');\n",
    "    if (!z) { fit(g, XPAD + (c0 ? s * span / c0 : 0), c0 ? c * span / c0 : span); continue; }\n",
    "    if (d < d0) {\n",
    "      if (s <= s0 && s + c >= s0 + c0) { g.classList.add('parent'); fit(g, XPAD, span); }\n",
    "      else g.classList.add('hide');\n",
    "    } else if (s >= s0 && s + c <= s0 + c0 && (d > d0 || g === z)) fit(g, XPAD + (s - s0) * span / c0, c * span / c0);\n",
    "    else g.classList.add('hide');\n",
    "  }\n",
    "  if (z) unzoombtn.classList.remove('hide'); else unzoombtn.classList.add('hide');\n",
    "}\n",
    "function zoom(g) { zoomed = g; layout(); if (term !== null) search(term); }\n",
    "function unzoom() { zoomed = null; layout(); if (term !== null) search(term); }\n",
    "function frameOf(e) {\n",
    "  while (e && e.parentNode) { if (e.parentNode.id === 'frames') return e; e = e.parentNode; }\n",
    "  return null;\n",
    "}\n",
    "function resetSearch() {\n",
    "  for (var i = 0; i < frames.length; i++) {\n",
    "    var r = frames[i].querySelector('rect');\n",
    "    if (r.hasAttribute('data-fill')) { r.setAttribute('fill', r.getAttribute('data-fill')); r.removeAttribute('data-fill'); }\n",
    "  }\n",
    "  term = null; searchbtn.classList.remove('show'); searchbtn.textContent = 'Search';\n",
    "  matchedtxt.textContent = ' ';\n",
    "}\n",
    "function groupDigits(x) { return String(x).replace(/\\B(?=(\\d{3})+(?!\\d))/g, ','); }\n",
    "/* Matching frames turn purple; the matched share counts each sample once:\n",
    "   frames come parent first, so a match under a matching ancestor is skipped. */\n",
    "function search(t) {\n",
    "  var re;\n",
    "  try { re = new RegExp(t, icase ? 'i' : ''); } catch (e) { matchedtxt.textContent = 'Bad expression: ' + e.message; return; }\n",
    "  resetSearch(); term = t;\n",
    "  var matched = 0, stack = [], any = false;\n",
    "  for (var i = 0; i < frames.length; i++) {\n",
    "    var g = frames[i], d = num(g, 'data-d');\n",
    "    while (stack.length && stack[stack.length - 1] >= d) stack.pop();\n",
    "    if (d === 0 || !re.test(nameOf(g))) continue;\n",
    "    any = true;\n",
    "    var r = g.querySelector('rect');\n",
    "    r.setAttribute('data-fill', r.getAttribute('fill')); r.setAttribute('fill', 'rgb(230,0,230)');\n",
    "    if (!stack.length) matched += num(g, 'data-c');\n",
    "    stack.push(d);\n",
    "  }\n",
    "  searchbtn.classList.add('show'); searchbtn.textContent = 'Reset Search';\n",
    "  var pct = TOTAL ? 100 * matched / TOTAL : 0;\n",
    "  matchedtxt.textContent = any ? 'Matched: ' + (pct === 100 ? '100' : pct.toFixed(1)) + '% (' + groupDigits(matched) + ')' : 'Matched: none';\n",
    "  matchedtxt.setAttribute('data-matched', matched);\n",
    "}\n",
    "function askSearch() {\n",
    "  if (term !== null) { resetSearch(); return; }\n",
    "  var t = prompt('Search for functions matching (a regular expression)' + (icase ? ', ignoring case' : ''), '');\n",
    "  if (t) search(t);\n",
    "}\n",
    "function init() {\n",
    "  frames = Array.prototype.slice.call(document.getElementById('frames').children);\n",
    "  details = document.getElementById('details'); unzoombtn = document.getElementById('unzoom');\n",
    "  searchbtn = document.getElementById('search'); matchedtxt = document.getElementById('matched');\n",
    "  layout();\n",
    "  var m = /[?&]s=([^&]*)/.exec(window.location.search);\n",
    "  if (m) search(decodeURIComponent(m[1]));\n",
    "}\n",
    "window.addEventListener('click', function (e) {\n",
    "  var g = frameOf(e.target);\n",
    "  if (g) { zoom(num(g, 'data-d') === 0 ? null : g); return; }\n",
    "  var id = e.target.id;\n",
    "  if (id === 'unzoom') unzoom();\n",
    "  else if (id === 'search') askSearch();\n",
    "  else if (id === 'ignorecase') { icase = !icase; e.target.classList.toggle('show'); if (term !== null) search(term); }\n",
    "});\n",
    "window.addEventListener('mouseover', function (e) {\n",
    "  var g = frameOf(e.target);\n",
    "  if (g) details.textContent = 'Function: ' + g.querySelector('title').textContent;\n",
    "});\n",
    "window.addEventListener('mouseout', function (e) { if (frameOf(e.target)) details.textContent = ' '; });\n",
    "window.addEventListener('keydown', function (e) {\n",
    "  if (e.keyCode === 114 || (e.ctrlKey && e.keyCode === 70)) { e.preventDefault(); askSearch(); }\n",
    "});\n",
    "]]></script>\n",
    NULL};

int cgprop__write_flame(cgprop_graph *g, const cgprop_write_options *o, cgprop__wr *w)
{
    const cgprop__ctx *c = cgprop__ctx_of(g);
    if (!c)
        return cgprop__err(g, CGPROP_ESTATE,
                           "flamegraph: the graph keeps no calling contexts; a flame graph needs stacks (folded, "
                           "perf, pprof, v8 or an event trace, read with contexts kept), and aggregate profiles "
                           "(callgrind, gprof, Python statistics) have none");
    const uint32_t K = g->K, k = o->metric, n = c->n;
    const bool icicle = (o->flags & CGPROP_W_ICICLE) != 0;
    uint64_t *incl = cgprop__alloc(g, (size_t)n + 1, sizeof *incl);
    uint64_t *start = cgprop__alloc(g, (size_t)n + 1, sizeof *start);
    uint32_t *depth = cgprop__alloc(g, (size_t)n + 1, sizeof *depth);
    uint32_t *first = cgprop__alloc(g, (size_t)n + 2, sizeof *first);
    uint32_t *stack = cgprop__alloc(g, (size_t)n + 1, sizeof *stack);
    fent *e = cgprop__alloc(g, (size_t)n + 1, sizeof *e);
    const fent **ord = cgprop__alloc(g, (size_t)n + 1, sizeof *ord);
    int rc = CGPROP_OK;
    if (!incl || !start || !depth || !first || !stack || !e || !ord) {
        rc = cgprop__err(g, CGPROP_ENOMEM, "flamegraph: out of memory");
        goto out;
    }
    /* Inclusive costs: children come after their parents, so one backward
     * pass adds each context into its parent. A root's sum is bounded by its
     * function's spontaneous cost, which fits; the sum of the roots is
     * checked. */
    for (uint32_t i = 0; i < n; i++) incl[i] = c->self[(size_t)i * K + k];
    uint64_t total = 0;
    for (uint32_t i = n; i-- > 0;) {
        uint32_t p = c->parent[i];
        if (p != CGPROP_NONE) {
            if (!cgprop__sat_add(&incl[p], incl[i])) rc = CGPROP_EOVERFLOW;
        } else if (!cgprop__sat_add(&total, incl[i]))
            rc = CGPROP_EOVERFLOW;
    }
    if (rc) {
        rc = cgprop__err(g, rc, "flamegraph: the total cost exceeds 2^64 - 1");
        goto out;
    }
    uint32_t maxd = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t p = c->parent[i];
        depth[i] = p == CGPROP_NONE ? 1 : depth[p] + 1;
        if (incl[i] && depth[i] > maxd) maxd = depth[i];
        e[i].id = i;
        e[i].name = cgprop__wr_name(g, c->node[i], &e[i].nlen);
        e[i].key = cgprop_graph_node_key(g, c->node[i], &e[i].klen);
        if (!e[i].key) e[i].key = "", e[i].klen = 0;
    }
    /* ord[first[p] .. first[p + 1]): the children of p, roots at slot n,
     * grouped by a counting pass (start is the cursor until the walk), then
     * each group sorted. */
    memset(first, 0, ((size_t)n + 2) * sizeof *first);
    for (uint32_t i = 0; i < n; i++) first[(c->parent[i] == CGPROP_NONE ? n : c->parent[i]) + 1]++;
    for (uint32_t i = 0; i <= n; i++) first[i + 1] += first[i];
    for (uint32_t i = 0; i <= n; i++) start[i] = first[i];
    for (uint32_t i = 0; i < n; i++) ord[start[c->parent[i] == CGPROP_NONE ? n : c->parent[i]]++] = &e[i];
    for (uint32_t i = 0; i <= n; i++)
        if (first[i + 1] - first[i] > 1) qsort(ord + first[i], first[i + 1] - first[i], sizeof *ord, fent_cmp);

    const uint32_t height = (maxd + 1) * FRAME_H + YPAD1 + YPAD2;
    const char *metric = cgprop_graph_metric_name(g, k, NULL);
    if (!metric) metric = "";
    cgprop__wr_printf(w,
                      "<?xml version=\"1.0\" standalone=\"no\"?>\n"
                      "<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" "
                      "\"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n"
                      "<svg version=\"1.1\" width=\"%d\" height=\"%u\" onload=\"init(evt)\" viewBox=\"0 0 %d %u\" "
                      "xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\">\n"
                      "<!-- Written by cgprop: frames are calling contexts, widths their exact cost of one metric. -->\n"
                      "<defs><linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\">"
                      "<stop stop-color=\"#eeeeee\" offset=\"5%%\"/><stop stop-color=\"%s\" offset=\"95%%\"/>"
                      "</linearGradient></defs>\n"
                      "<style type=\"text/css\">\n"
                      "text { font-family: Verdana, sans-serif; font-size: %dpx; fill: rgb(0,0,0); }\n"
                      "#search, #ignorecase { opacity: 0.1; cursor: pointer; }\n"
                      "#search:hover, #search.show, #ignorecase:hover, #ignorecase.show { opacity: 1; }\n"
                      "#title { text-anchor: middle; font-size: %dpx; }\n"
                      "#unzoom { cursor: pointer; }\n"
                      "#frames > *:hover { stroke: black; stroke-width: 0.5; cursor: pointer; }\n"
                      ".hide { display: none; }\n"
                      ".parent { opacity: 0.5; }\n"
                      "</style>\n",
                      IMAGE_W, height, IMAGE_W, height, "#eeeeb0", FONT_SIZE, FONT_SIZE + 5);
    char tot[24];
    {
        int m = 0;
        uint64_t x = total;
        char d[24];
        do {
            d[m++] = (char)('0' + x % 10);
            x /= 10;
        } while (x);
        for (int i = 0; i < m; i++) tot[i] = d[m - 1 - i];
        tot[m] = '\0';
    }
    cgprop__wr_printf(w,
                      "<script type=\"text/ecmascript\"><![CDATA[\n\"use strict\";\n"
                      "var W = %d, XPAD = %d, FS = %d, FW = %.2f, TOTAL = %s;\n",
                      IMAGE_W, XPAD, FONT_SIZE, FONT_W, tot);
    for (size_t i = 0; script[i]; i++) cgprop__wr_puts(w, script[i]);
    cgprop__wr_printf(w,
                      "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%u\" fill=\"url(#background)\"/>\n"
                      "<text id=\"title\" x=\"%d\" y=\"%d\">%s</text>\n"
                      "<text id=\"details\" x=\"%d\" y=\"%u\"> </text>\n"
                      "<text id=\"unzoom\" class=\"hide\" x=\"%d\" y=\"%d\">Reset Zoom</text>\n"
                      "<text id=\"search\" x=\"%d\" y=\"%d\">Search</text>\n"
                      "<text id=\"ignorecase\" x=\"%d\" y=\"%d\">ic</text>\n"
                      "<text id=\"matched\" x=\"%d\" y=\"%u\"> </text>\n"
                      "<g id=\"frames\">\n",
                      IMAGE_W, height, IMAGE_W / 2, FONT_SIZE * 2, icicle ? "Icicle Graph" : "Flame Graph", XPAD,
                      height - YPAD2 / 2, XPAD, FONT_SIZE * 2, IMAGE_W - XPAD - 100, FONT_SIZE * 2,
                      IMAGE_W - XPAD - 16, FONT_SIZE * 2, IMAGE_W - XPAD - 300, height - YPAD2 / 2);
    put_frame(w, "all", 3, metric, 0, total, total, 0, height, icicle);

    /* Depth first, parents before children, siblings in order: an explicit
     * stack of context ids. Frames narrower than MIN_PX are left out with
     * their subtrees, as flamegraph.pl does. */
    const double min_cost = total ? MIN_PX * (double)total / (IMAGE_W - 2 * XPAD) : 1;
    size_t sp = 0;
    uint64_t at = 0;
    for (uint32_t j = first[n]; j < first[n + 1]; j++) {
        start[ord[j]->id] = at;
        at += incl[ord[j]->id];
    }
    for (uint32_t j = first[n + 1]; j-- > first[n];) stack[sp++] = ord[j]->id;
    while (sp && !w->failed) {
        uint32_t i = stack[--sp];
        if (!incl[i] || (double)incl[i] < min_cost) continue;
        size_t nlen;
        const char *name = cgprop__wr_name(g, c->node[i], &nlen);
        put_frame(w, name, nlen, metric, start[i], incl[i], total, depth[i], height, icicle);
        /* A frame's own cost sits left of its children: flamegraph.pl sorts
         * the folded line "a;b" before "a;b;c". */
        uint64_t s = start[i] + c->self[(size_t)i * K + k];
        for (uint32_t j = first[i]; j < first[i + 1]; j++) {
            start[ord[j]->id] = s;
            s += incl[ord[j]->id];
        }
        for (uint32_t j = first[i + 1]; j-- > first[i];) stack[sp++] = ord[j]->id;
    }
    cgprop__wr_puts(w, "</g>\n</svg>\n");
out:
    cgprop__free(g, incl);
    cgprop__free(g, start);
    cgprop__free(g, depth);
    cgprop__free(g, first);
    cgprop__free(g, stack);
    cgprop__free(g, e);
    cgprop__free(g, ord);
    return rc;
}

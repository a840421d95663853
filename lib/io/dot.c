/* DOT writer: the picture gprof2dot users know (a box per function with
 * name, total %, (self %), calls; arrows with total % and calls; colour by
 * total on a blue-to-red temperature scale), with cycles named in their
 * members' labels (or boxed as clusters, or not shown: the cycles option)
 * and estimates drawn dashed with a '~' before the figure. */
#include "write.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Temperature scale in HSL: dark blue (h 2/3, s .8, l .25) at 0 % to
 * saturated red (h 0, s 1, l .5) at 100 %, linear (gprof2dot's default
 * colour map). */
static double hue_part(double m1, double m2, double h)
{
    if (h < 0.0) h += 1.0;
    else if (h > 1.0) h -= 1.0;
    if (h * 6.0 < 1.0) return m1 + (m2 - m1) * h * 6.0;
    if (h * 2.0 < 1.0) return m2;
    if (h * 3.0 < 2.0) return m1 + (m2 - m1) * (2.0 / 3.0 - h) * 6.0;
    return m1;
}

static void colour(double weight, char out[8])
{
    if (!(weight > 0)) weight = 0;
    if (weight > 1) weight = 1;
    double h = 2.0 / 3.0 + weight * (0.0 - 2.0 / 3.0);
    double s = 0.80 + weight * (1.0 - 0.80);
    double l = 0.25 + weight * (0.5 - 0.25);
    double m2 = l <= 0.5 ? l * (s + 1.0) : l + s - l * s;
    double m1 = l * 2.0 - m2;
    double rgb[3] = {hue_part(m1, m2, h + 1.0 / 3.0), hue_part(m1, m2, h), hue_part(m1, m2, h - 1.0 / 3.0)};
    int c[3];
    for (int i = 0; i < 3; i++) {
        double x = rgb[i] < 0 ? 0 : rgb[i] > 1 ? 1 : rgb[i];
        c[i] = (int)(x * 255.0 + 0.5);
    }
    snprintf(out, 8, "#%02x%02x%02x", c[0], c[1], c[2]);
}

/* Bytes inside a DOT double-quoted string. */
static void put_escaped(cgprop__wr *w, const char *s, size_t len)
{
    size_t run = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c != '"' && c != '\\' && c >= 0x20) continue;
        cgprop__wr_put(w, s + run, i - run);
        run = i + 1;
        if (c == '"' || c == '\\') {
            char e[2] = {'\\', (char)c};
            cgprop__wr_put(w, e, 2);
        } else {
            cgprop__wr_put(w, " ", 1); /* control bytes would break the line layout */
        }
    }
    cgprop__wr_put(w, s + run, len - run);
}


/* Graphviz refuses a quoted string over 16 KiB: a name (of a function or a
 * metric) is cut after at most CGPROP__DOT_NAME_MAX bytes (escaped, 2 per
 * byte at worst), at a UTF-8 character boundary, and "..." marks the cut. */
#define CGPROP__DOT_NAME_MAX 4096
static void put_label_name(cgprop__wr *w, const char *s, size_t len)
{
    if (len <= CGPROP__DOT_NAME_MAX) {
        put_escaped(w, s, len);
        return;
    }
    size_t cut = CGPROP__DOT_NAME_MAX;
    while (cut > 0 && ((unsigned char)s[cut] & 0xc0) == 0x80) cut--;
    put_escaped(w, s, cut);
    cgprop__wr_puts(w, "...");
}

static double ratio(const cgprop__view *v, double x) { return v->program > 0 ? x / v->program : 0.0; }

/* cyc: the 1-based cycle number to name in the label, or 0. */
static void node_stmt(cgprop_graph *g, cgprop__wr *w, const cgprop__view *v, uint32_t f, const char *indent,
                      uint32_t cyc)
{
    char col[8];
    double r = ratio(v, v->shown[f]);
    colour(r, col);
    int est = v->how[f] != CGPROP__SHOW_EXACT;
    size_t len;
    const char *name = cgprop__wr_name(g, f, &len);
    cgprop__wr_printf(w, "%sn%u [color=\"%s\", fontcolor=\"#ffffff\", fontsize=\"10.00\", style=\"%s\", ", indent, f,
                      col, est ? "filled,dashed" : "filled");
    /* The kind of estimate and its interval, where a viewer shows tooltips
     * (SVG): a dashed box says "estimate", this says which and how sure. */
    if (est) {
        const cgprop_total_row *t = &v->tot[f];
        const char *kind = cgprop__wr_estimate_name(t->estimate);
        if (t->flags & CGPROP_F_NO_BOUNDS)
            cgprop__wr_printf(w, "tooltip=\"%s estimate, no interval\", ", kind);
        else
            cgprop__wr_printf(w, "tooltip=\"%s estimate in [%.0f, %.0f]\", ", kind, t->lo, t->hi);
    }
    cgprop__wr_puts(w, "label=\"");
    put_label_name(w, name, len);
    char q[300];
    size_t ql = cgprop__view_qual(g, v, f, q, sizeof q);
    if (ql) put_label_name(w, q, ql);
    cgprop__wr_printf(w, "\\n%s%.2f%%\\n(%.2f%%)", est ? "~" : "", 100.0 * r, 100.0 * ratio(v, (double)v->node[f].self));
    if (v->node[f].calls_in) cgprop__wr_printf(w, "\\n%llu\xc3\x97", (unsigned long long)v->node[f].calls_in);
    if (cyc) cgprop__wr_printf(w, "\\n<cycle %u>", cyc);
    cgprop__wr_puts(w, "\"];\n");
}

/* The cycle drawing that AUTO stands for. With clusters, graphviz's
 * default ranking lays each cluster out apart and merges the ranks, and
 * fails there on a real bash profile ("trouble in init_rank", exit 1, no
 * picture; Debian 12's graphviz 2.42.2). Clusters are drawn with its newer
 * ranking, which renders every profile of the test suite, but that is
 * still cluster layout, and the default picture must not depend on it: a
 * label needs no layout of its own. */
#define CGPROP__DOT_CYCLES_AUTO_IS CGPROP_DOT_CYCLES_LABEL

int cgprop__write_dot(cgprop_graph *g, const cgprop_write_options *o, cgprop__wr *w)
{
    cgprop__view v;
    int rc = cgprop__view_load(g, o->metric, o->flags, &v);
    if (rc) return rc;
    double nthr = (o->flags & CGPROP_W_NO_PRUNE) ? 0 : o->node_thres / 100.0;
    double ethr = (o->flags & CGPROP_W_NO_PRUNE) ? 0 : o->edge_thres / 100.0;
    unsigned char *keep = cgprop__alloc(g, v.nn ? v.nn : 1, 1);
    if (!keep) {
        cgprop__view_free(g, &v);
        return cgprop__err(g, CGPROP_ENOMEM, "write: out of memory");
    }
    /* Members have their own totals, so a threshold prunes inside cycles too. */
    for (uint32_t f = 0; f < v.nn; f++) keep[f] = ratio(&v, v.shown[f]) >= nthr;

    size_t mlen;
    const char *mname = cgprop_graph_metric_name(g, o->metric, &mlen);
    uint32_t cycles = o->cycles == CGPROP_DOT_CYCLES_AUTO ? CGPROP__DOT_CYCLES_AUTO_IS : o->cycles;
    cgprop__wr_puts(w, "digraph cgprop {\n");
    cgprop__wr_puts(w, "  graph [fontname=\"Arial\", nodesep=\"0.125\", ranksep=\"0.25\", label=\"metric ");
    put_label_name(w, mname, mlen);
    cgprop__wr_puts(w, "; '~' and dashed: estimated total\", labelloc=\"t\"");
    /* Clusters: graphviz's newer ranking (one pass over the whole graph,
     * clusters as constraints) instead of ranking clusters apart, which is
     * what fails on real profiles; a graphviz without it ignores it. */
    if (cycles == CGPROP_DOT_CYCLES_CLUSTER) cgprop__wr_puts(w, ", newrank=\"true\"");
    cgprop__wr_puts(w, "];\n"
                       "  node [fontcolor=\"#ffffff\", fontname=\"Arial\", height=\"0\", shape=\"box\", "
                       "style=\"filled\", width=\"0\"];\n"
                       "  edge [fontname=\"Arial\"];\n");
    for (uint32_t c = 0; c < v.nc && cycles == CGPROP_DOT_CYCLES_CLUSTER; c++) {
        int any = 0;
        for (uint32_t i = v.mem_off[c]; i < v.mem_off[c + 1]; i++) any |= keep[v.mem[i]];
        if (!any) continue;
        cgprop__wr_printf(w, "  subgraph cluster_cycle%u {\n    label=\"<cycle %u>\"; style=\"dashed,rounded\"; "
                             "color=\"#808080\"; fontname=\"Arial\";\n", c + 1, c + 1);
        for (uint32_t i = v.mem_off[c]; i < v.mem_off[c + 1]; i++)
            if (keep[v.mem[i]]) node_stmt(g, w, &v, v.mem[i], "    ", 0);
        cgprop__wr_puts(w, "  }\n");
    }
    for (uint32_t f = 0; f < v.nn; f++) {
        uint32_t c = v.tot[f].cycle;
        if (!keep[f] || (c != CGPROP_NONE && cycles == CGPROP_DOT_CYCLES_CLUSTER)) continue;
        node_stmt(g, w, &v, f, "  ", c != CGPROP_NONE && cycles == CGPROP_DOT_CYCLES_LABEL ? c + 1 : 0);
    }

    for (uint32_t e = 0; e < v.ne && !w->failed; e++) {
        uint32_t a = v.edge[e].caller, b = v.edge[e].callee;
        if (!keep[a] || !keep[b]) continue;
        double r;
        if (v.ehow[e] == CGPROP__SHOW_NONE) {
            /* A call with no total of its own (recursive entry, or an
             * intra-cycle call in no DAG): kept while both ends would be,
             * as gprof2dot prunes its total-less calls. */
            double ra = ratio(&v, v.shown[a]), rb = ratio(&v, v.shown[b]);
            if ((ra < rb ? ra : rb) < ethr) continue;
            r = 0;
        } else {
            r = ratio(&v, v.eshown[e]);
            if (r < ethr) continue;
        }
        char col[8];
        colour(r, col);
        double pen = 4.0 * r < 0.5 ? 0.5 : 4.0 * r;
        cgprop__wr_printf(w, "  n%u -> n%u [arrowsize=\"%.2f\", color=\"%s\", fontcolor=\"%s\", fontsize=\"10.00\", "
                             "penwidth=\"%.2f\"",
                          a, b, 0.5 * sqrt(pen), col, col, pen);
        if (v.ehow[e] == CGPROP__SHOW_NONE) {
            cgprop__wr_printf(w, ", style=\"dotted\", label=\"%llu\xc3\x97\"];\n", (unsigned long long)v.edge[e].count);
        } else {
            int est = v.ehow[e] == CGPROP__SHOW_ESTIMATE;
            cgprop__wr_printf(w, "%s, label=\"%s%.2f%%", est ? ", style=\"dashed\"" : "", est ? "~" : "", 100.0 * r);
            if (v.edge[e].count) cgprop__wr_printf(w, "\\n%llu\xc3\x97", (unsigned long long)v.edge[e].count);
            cgprop__wr_puts(w, "\"];\n");
        }
    }
    cgprop__wr_puts(w, "}\n");
    cgprop__free(g, keep);
    cgprop__view_free(g, &v);
    return CGPROP_OK;
}

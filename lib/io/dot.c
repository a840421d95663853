/* DOT writer: the picture gprof2dot users know (a box per function with
 * name, total %, (self %), calls; arrows with total % and calls; colour by
 * total on a blue-to-red temperature scale), with cycles named in their
 * members' labels (or boxed as clusters, or not shown: the cycles option)
 * and estimates drawn dashed with a '~' before the figure. */
#include "write.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* gprof2dot's colour maps (its Theme class): a colour is interpolated in HSL
 * from the map's colour at 0 % to its colour at 100 %, linearly or, with a
 * skew other than 1, along base^weight; then gamma-corrected. Font size and
 * pen width grow with the weight between the map's bounds. */
typedef struct theme {
    double min[3], max[3]; /* h, s, l */
    double gamma;
    double minfont, maxfont, minpen, maxpen;
    int filled; /* box filled with the colour, white text; else outline and text in the colour */
} theme;

static const theme themes[] = {
    /* color: dark blue to saturated red */
    {{2.0 / 3.0, 0.80, 0.25}, {0.0, 1.0, 0.5}, 1.0, 10.0, 10.0, 0.5, 4.0, 1},
    /* pink to saturated red */
    {{0.0, 1.0, 0.90}, {0.0, 1.0, 0.5}, 2.2, 10.0, 10.0, 0.5, 4.0, 1},
    /* gray: light gray to black */
    {{0.0, 0.0, 0.85}, {0.0, 0.0, 0.0}, 2.2, 10.0, 10.0, 0.5, 4.0, 1},
    /* bw */
    {{0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}, 2.2, 8.0, 24.0, 0.1, 8.0, 1},
    /* print */
    {{0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}, 2.2, 18.0, 30.0, 0.1, 8.0, 0},
};

static double hue_part(double m1, double m2, double h)
{
    if (h < 0.0) h += 1.0;
    else if (h > 1.0) h -= 1.0;
    if (h * 6.0 < 1.0) return m1 + (m2 - m1) * h * 6.0;
    if (h * 2.0 < 1.0) return m2;
    if (h * 3.0 < 2.0) return m1 + (m2 - m1) * (2.0 / 3.0 - h) * 6.0;
    return m1;
}

static double clamp01(double x) { return x < 0 ? 0 : x > 1 ? 1 : x; }

static void colour(const theme *t, double skew, double weight, char out[8])
{
    if (!(weight > 0)) weight = 0;
    if (weight > 1) weight = 1;
    double f = skew == 1.0 ? weight : (-1.0 + pow(skew, weight)) / (skew - 1.0);
    double h = t->min[0] + f * (t->max[0] - t->min[0]);
    double s = clamp01(t->min[1] + f * (t->max[1] - t->min[1]));
    double l = clamp01(t->min[2] + f * (t->max[2] - t->min[2]));
    h = fmod(h, 1.0);
    if (h < 0) h += 1.0;
    double m2 = l <= 0.5 ? l * (s + 1.0) : l + s - l * s;
    double m1 = l * 2.0 - m2;
    double rgb[3] = {hue_part(m1, m2, h + 1.0 / 3.0), hue_part(m1, m2, h), hue_part(m1, m2, h - 1.0 / 3.0)};
    int c[3];
    for (int i = 0; i < 3; i++) {
        double x = pow(rgb[i], t->gamma);
        c[i] = x <= 0.0 ? 0 : x >= 1.0 ? 255 : (int)(255.0 * x + 0.5);
    }
    snprintf(out, 8, "#%02x%02x%02x", c[0], c[1], c[2]);
}

/* A heuristic figure can exceed the program total (an estimate on a
 * recursive graph); sizes are taken at the total then, or graphviz gets a
 * font millions of points high and fails to draw it. */
static double fontsize(const theme *t, double weight)
{
    weight = clamp01(weight);
    double x = weight * weight * t->maxfont;
    return x > t->minfont ? x : t->minfont;
}

static double penwidth(const theme *t, double weight)
{
    weight = clamp01(weight);
    double x = weight * t->maxpen;
    return x > t->minpen ? x : t->minpen;
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
/* gprof2dot's --wrap: names over 32 bytes are filled into lines of at most
 * 32 at blanks (a longer word stays whole). */
#define CGPROP__DOT_WRAP 32

/* A name wrapped as gprof2dot wraps it: filled at blanks, then ", " and
 * "> >" closed up (as gprof2dot does to every name it wraps). */
static void put_wrapped(cgprop__wr *w, const char *s, size_t len)
{
    char *b = cgprop__alloc(w->g, len + 1, 1);
    if (!b) {
        w->failed = 2;
        return;
    }
    size_t n = 0, line = 0;
    for (size_t i = 0; i < len;) {
        if (s[i] == ' ') {
            i++;
            continue;
        }
        size_t j = i;
        while (j < len && s[j] != ' ') j++;
        size_t wl = j - i;
        if (line == 0 || len <= CGPROP__DOT_WRAP) {
            if (line) b[n++] = ' ', line++;
        } else if (line + 1 + wl <= CGPROP__DOT_WRAP) {
            b[n++] = ' ';
            line++;
        } else {
            b[n++] = '\n';
            line = 0;
        }
        memcpy(b + n, s + i, wl);
        n += wl;
        line += wl;
        i = j;
    }
    /* Close up ", " and "> >" (twice, as "> > >" needs). */
    for (int pass = 0; pass < 3; pass++) {
        size_t o = 0;
        for (size_t i = 0; i < n; i++) {
            if (pass == 0 && b[i] == ' ' && o && b[o - 1] == ',') continue;
            if (pass > 0 && b[i] == ' ' && o && b[o - 1] == '>' && i + 1 < n && b[i + 1] == '>') continue;
            b[o++] = b[i];
        }
        n = o;
    }
    size_t run = 0;
    for (size_t i = 0; i <= n; i++)
        if (i == n || b[i] == '\n') {
            put_escaped(w, b + run, i - run);
            if (i < n) cgprop__wr_puts(w, "\\n");
            run = i + 1;
        }
    cgprop__free(w->g, b);
}

static void put_label_name(cgprop__wr *w, const char *s, size_t len, int wrap)
{
    size_t cut = len;
    if (len > CGPROP__DOT_NAME_MAX) {
        cut = CGPROP__DOT_NAME_MAX;
        while (cut > 0 && ((unsigned char)s[cut] & 0xc0) == 0x80) cut--;
    }
    if (wrap) put_wrapped(w, s, cut);
    else put_escaped(w, s, cut);
    if (cut < len) cgprop__wr_puts(w, "...");
}

void cgprop__dot_name(cgprop__wr *w, const char *s, size_t len) { put_label_name(w, s, len, 0); }

static double ratio(const cgprop__view *v, double x) { return v->program > 0 ? x / v->program : 0.0; }

typedef struct dctx {
    cgprop_graph *g;
    cgprop__wr *w;
    const cgprop__view *v;
    const cgprop_write_options *o;
    const theme *t;
} dctx;

/* cyc: the 1-based cycle number to name in the label, or 0. */
static void node_stmt(const dctx *d, uint32_t f, const char *indent, uint32_t cyc)
{
    cgprop__wr *w = d->w;
    const cgprop__view *v = d->v;
    uint32_t lab = d->o->label;
    char col[8];
    double r = ratio(v, v->shown[f]);
    colour(d->t, d->o->skew, r, col);
    int est = v->how[f] != CGPROP__SHOW_EXACT;
    size_t len;
    const char *name = cgprop__view_name(d->g, v, f, &len);
    const char *style = d->t->filled ? (est ? "filled,dashed" : "filled") : (est ? "dashed" : "solid");
    cgprop__wr_printf(w, "%sn%u [color=\"%s\", fontcolor=\"%s\", fontsize=\"%.2f\", style=\"%s\", ", indent, f, col,
                      d->t->filled ? "#ffffff" : col, fontsize(d->t, r), style);
    /* The kind of estimate and its interval, where a viewer shows tooltips
     * (SVG): a dashed box says "estimate", this says which and how sure. */
    if (est) {
        const cgprop_total_row *t = cgprop__view_tot(v, f);
        const char *kind = cgprop__wr_estimate_name(t->estimate);
        if (t->flags & CGPROP_F_NO_BOUNDS)
            cgprop__wr_printf(w, "tooltip=\"%s estimate, no interval\", ", kind);
        else
            cgprop__wr_printf(w, "tooltip=\"%s estimate in [%.0f, %.0f]\", ", kind, t->lo, t->hi);
    }
    cgprop__wr_puts(w, "label=\"");
    put_label_name(w, name, len, (d->o->flags & CGPROP_W_WRAP) != 0);
    char q[300];
    size_t ql = cgprop__view_qual(d->g, v, f, q, sizeof q);
    if (ql) put_label_name(w, q, ql, 0);
    const char *m = est ? "~" : "";
    if (lab & CGPROP_LABEL_TOTAL_PCT) cgprop__wr_printf(w, "\\n%s%.2f%%", m, 100.0 * r);
    if (lab & CGPROP_LABEL_TOTAL) cgprop__wr_printf(w, "\\n%s%.0f", m, v->shown[f]);
    const cgprop_node_row *nr = cgprop__view_node(v, f);
    if (lab & CGPROP_LABEL_SELF_PCT) cgprop__wr_printf(w, "\\n(%.2f%%)", 100.0 * ratio(v, (double)nr->self));
    if (lab & CGPROP_LABEL_SELF) cgprop__wr_printf(w, "\\n(%llu)", (unsigned long long)nr->self);
    if ((lab & CGPROP_LABEL_CALLS) && nr->calls_in)
        cgprop__wr_printf(w, "\\n%llu\xc3\x97", (unsigned long long)nr->calls_in);
    /* What the function's calls that are not drawn cost (into functions not
     * shown, or below the edge threshold): the box's figures stay whole, and
     * this says where the part no arrow shows went. */
    double h = v->hid_out ? v->hid_out[f] : 0;
    if (h > 0 && 100.0 * ratio(v, h) >= 0.005) {
        const char *hm = v->hid_out_est[f] ? "~" : "";
        if (lab & CGPROP_LABEL_TOTAL_PCT || !(lab & CGPROP_LABEL_TOTAL))
            cgprop__wr_printf(w, "\\nhidden %s%.2f%%", hm, 100.0 * ratio(v, h));
        else
            cgprop__wr_printf(w, "\\nhidden %s%.0f", hm, h);
    }
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
    /* A pruned picture reads the rows of the functions it shows and the
     * calls out of them only (the view's lean form). */
    int prune = !(o->flags & CGPROP_W_NO_PRUNE);
    int rc = cgprop__view_load(g, o->metric, o->flags, prune, &v);
    if (rc) return rc;
    /* Members have their own totals, so a threshold prunes inside cycles too. */
    if ((rc = cgprop__view_select(g, &v, o, prune))) {
        cgprop__view_free(g, &v);
        return rc;
    }
    const unsigned char *keep = v.show;
    const theme *th = &themes[o->colormap <= CGPROP_COLORMAP_PRINT ? o->colormap : 0];
    dctx d = {g, w, &v, o, th};

    size_t mlen;
    const char *mname = cgprop_graph_metric_name(g, o->metric, &mlen);
    uint32_t cycles = o->cycles == CGPROP_DOT_CYCLES_AUTO ? CGPROP__DOT_CYCLES_AUTO_IS : o->cycles;
    cgprop__wr_puts(w, "digraph cgprop {\n");
    cgprop__wr_puts(w, "  graph [fontname=\"Arial\", nodesep=\"0.125\", ranksep=\"0.25\", label=\"metric ");
    put_label_name(w, mname, mlen, 0);
    cgprop__wr_puts(w, "; '~' and dashed: estimated total");
    if (o->nroots || o->nleaves || o->nfocus || o->nhide || o->top)
        cgprop__wr_printf(w, "; %u of %u functions shown", v.nshown, v.nn);
    cgprop__wr_puts(w, "\", labelloc=\"t\"");
    /* Clusters: graphviz's newer ranking (one pass over the whole graph,
     * clusters as constraints) instead of ranking clusters apart, which is
     * what fails on real profiles; a graphviz without it ignores it. */
    if (cycles == CGPROP_DOT_CYCLES_CLUSTER) cgprop__wr_puts(w, ", newrank=\"true\"");
    cgprop__wr_printf(w, "];\n"
                         "  node [fontcolor=\"%s\", fontname=\"Arial\", height=\"0\", shape=\"box\", "
                         "style=\"%s\", width=\"0\"];\n"
                         "  edge [fontname=\"Arial\"];\n",
                      th->filled ? "#ffffff" : "black", th->filled ? "filled" : "solid");
    for (uint32_t c = 0; c < v.nc && cycles == CGPROP_DOT_CYCLES_CLUSTER; c++) {
        int any = 0;
        for (uint32_t i = v.mem_off[c]; i < v.mem_off[c + 1]; i++) any |= keep[v.mem[i]];
        if (!any) continue;
        cgprop__wr_printf(w, "  subgraph cluster_cycle%u {\n    label=\"<cycle %u>\"; style=\"dashed,rounded\"; "
                             "color=\"#808080\"; fontname=\"Arial\";\n", c + 1, c + 1);
        for (uint32_t i = v.mem_off[c]; i < v.mem_off[c + 1]; i++)
            if (keep[v.mem[i]]) node_stmt(&d, v.mem[i], "    ", 0);
        cgprop__wr_puts(w, "  }\n");
    }
    for (uint32_t f = 0; f < v.nn; f++) {
        if (!keep[f]) continue;
        uint32_t c = cgprop__view_tot(&v, f)->cycle;
        if (c != CGPROP_NONE && cycles == CGPROP_DOT_CYCLES_CLUSTER) continue;
        node_stmt(&d, f, "  ", c != CGPROP_NONE && cycles == CGPROP_DOT_CYCLES_LABEL ? c + 1 : 0);
    }

    for (uint32_t e = 0; e < v.ne && !w->failed; e++) {
        uint32_t a = v.edge[e].caller, b = v.edge[e].callee;
        if (!v.eshow[e]) continue;
        double r = v.ehow[e] == CGPROP__SHOW_NONE ? 0 : ratio(&v, v.eshown[e]);
        char col[8];
        colour(th, o->skew, r, col);
        double pen = penwidth(th, r);
        cgprop__wr_printf(w, "  n%u -> n%u [arrowsize=\"%.2f\", color=\"%s\", fontcolor=\"%s\", fontsize=\"%.2f\", "
                             "penwidth=\"%.2f\"",
                          a, b, 0.5 * sqrt(pen), col, col, fontsize(th, r), pen);
        int calls = (o->label & CGPROP_LABEL_CALLS) && v.edge[e].count;
        if (v.ehow[e] == CGPROP__SHOW_NONE) {
            cgprop__wr_puts(w, ", style=\"dotted\", label=\"");
            if (calls) cgprop__wr_printf(w, "%llu\xc3\x97", (unsigned long long)v.edge[e].count);
            cgprop__wr_puts(w, "\"];\n");
        } else {
            int est = v.ehow[e] == CGPROP__SHOW_ESTIMATE;
            const char *m = est ? "~" : "", *sep = "";
            cgprop__wr_printf(w, "%s, label=\"", est ? ", style=\"dashed\"" : "");
            if (o->label & CGPROP_LABEL_TOTAL_PCT) cgprop__wr_printf(w, "%s%.2f%%", m, 100.0 * r), sep = "\\n";
            if (o->label & CGPROP_LABEL_TOTAL) cgprop__wr_printf(w, "%s%s%.0f", sep, m, v.eshown[e]), sep = "\\n";
            if (calls) cgprop__wr_printf(w, "%s%llu\xc3\x97", sep, (unsigned long long)v.edge[e].count);
            cgprop__wr_puts(w, "\"];\n");
        }
    }
    cgprop__wr_puts(w, "}\n");
    cgprop__view_free(g, &v);
    return CGPROP_OK;
}

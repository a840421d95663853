/* Private: the numerical kernel of the absorbing walk, one strongly connected
 * component at a time (docs/WALK.md has the model and the reasoning).
 *
 * The component has n members with local indices 0 .. n-1. Its measured
 * calls between distinct members arrive as a compressed list by callee: the
 * calls into member f are entries in_off[f] .. in_off[f + 1] - 1, entry i
 * being a call from member in_src[i] with measured inclusive cost
 * in_cost[i]. L[f] >= 0 is f's outside inflow: its spontaneous cost plus
 * every measured call into f from outside the component. For each member
 *
 *     W(f)    = L(f) + sum of in_cost over the calls into f
 *     Q[f][a] = cost(a -> f) / W(f)
 *     walk(f) = W(f) / G[f][f],  G = (I - Q)^-1
 *
 * so walk(f) is the part of the cost entering f that is not nested inside
 * another activation of f, under the model that each activation's caller is
 * drawn in proportion to the cost its callers send in.
 *
 * Input rules: self-calls (in_src[i] == f) are ignored; several entries for
 * one caller add up; costs of 0 add nothing (as if absent). Costs and L must
 * be finite and >= 0.
 *
 * Where the walk leaves (documented in docs/WALK.md):
 *   - from f with probability L(f) / W(f);
 *   - at a member nobody enters (W = 0): walk = 0, and a walk that reaches
 *     it leaves there;
 *   - when every L is 0 and exit_member < n: at exit_member, always (its row
 *     of Q is emptied, so walk(exit_member) = W(exit_member)). With some
 *     L > 0, exit_member is not looked at;
 *   - a member from which no sequence of steps leads out (possible only when
 *     the component has no inflow, or with costs of 0 on the way out) visits
 *     itself without end: walk = 0, and for the others a step into it is a
 *     step that never returns.
 * Results lie in [L(f), W(f)], the model's own exact bounds (rounding is
 * clamped away).
 *
 * Work is counted in front units: eliminating a member whose front (itself
 * and the not yet eliminated members it is joined to) has size s costs s^2.
 * The dense kernel on m members counts m(m+1)(2m+1)/6 up front; the sparse
 * one counts as its ordering goes, and the factorisation and selected
 * inversion that follow cost a small multiple of the same sum. Under a
 * budget the sparse kernel also gives up as soon as a lower bound of the
 * work still to come (before the ordering: one found by contraction; during
 * it: the clique each front becomes) takes the count past the budget.
 * Members set aside before the matrix (see above) count nothing.
 */
#ifndef CGPROP_WALK_H
#define CGPROP_WALK_H

#include "graph.h"

/* Returned (positive: not an error) when the work passed the budget;
 * walk_out is then unspecified and *work_out holds the units counted plus
 * the lower bound that decided, above the budget (and never above what the
 * whole computation would have counted). */
#define CGPROP__WALK_OVER_BUDGET 2

/* Components with at most this many members (after members whose walk is
 * settled without the matrix are set aside) use the dense kernel. */
#define CGPROP__WALK_DENSE_MAX 64u

/* Which kernel cgprop__walk_scc_kernel runs. */
enum { CGPROP__WALK_AUTO = 0, CGPROP__WALK_DENSE = 1, CGPROP__WALK_SPARSE = 2 };

/* walk(f) for every member into walk_out[0 .. n-1]; memory through g's
 * allocator (g is only read). budget: front units allowed, <= 0 (or NaN) for
 * no limit. work_out (may be NULL): units counted.
 * Returns CGPROP_OK; CGPROP__WALK_OVER_BUDGET; CGPROP_ENOMEM (nothing
 * leaked); CGPROP_EINVAL for a NULL array that is needed, in_off not
 * starting at 0 or decreasing, a caller index >= n, exit_member neither
 * UINT32_MAX nor < n, or a cost or L negative, infinite or NaN. */
int cgprop__walk_scc(const cgprop_graph *g, uint32_t n, const uint32_t *in_off, const uint32_t *in_src,
                     const double *in_cost, const double *L, uint32_t exit_member, double budget,
                     double *walk_out, double *work_out);

/* The same with the kernel chosen by the caller (CGPROP__WALK_*; tests
 * compare the two kernels on one input). */
int cgprop__walk_scc_kernel(const cgprop_graph *g, uint32_t n, const uint32_t *in_off, const uint32_t *in_src,
                            const double *in_cost, const double *L, uint32_t exit_member, double budget,
                            uint32_t kernel, double *walk_out, double *work_out);

/* cgprop__walk_members gives a cycle of n members the budget of
 * max(n, this) members. */
#define CGPROP__WALK_BUDGET_MEMBERS 10000u
/* Under a budget, cycles of more members than this keep the clamped
 * heuristic without trying: proving the work too large would cost more than
 * the rest of the report. */
#define CGPROP__WALK_MAX_MEMBERS 50000u

/* What cgprop__walk_members left in state[]. */
enum { CGPROP__WALK_NONE = 0, CGPROP__WALK_DONE = 1, CGPROP__WALK_BUDGET = 2 };

/* The walk for every cycle member with want[f * K + k] set, metric by
 * metric, from the graph's measured call costs (self-calls left out):
 * walk[f * K + k] and state[f * K + k] (CGPROP__WALK_DONE, or
 * CGPROP__WALK_BUDGET when its cycle needed more than budget_per_member
 * times max(its size, CGPROP__WALK_BUDGET_MEMBERS) in front units; <= 0: no
 * limit). A cycle that nothing
 * enters leaves at its lowest-id member (the entry the per-root heuristic
 * assumes). Needs current cycles and the adjacency. CGPROP_OK or
 * CGPROP_ENOMEM (nothing leaked; walk and state unspecified). */
int cgprop__walk_members(cgprop_graph *g, const uint8_t *want, double budget_per_member, double *walk,
                         uint8_t *state);

#endif

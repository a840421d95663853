//! Raw declarations of include/cgprop.h and include/cgprop_io.h, and, with
//! the cargo feature `experimental`, of include/cgprop_experimental.h.
//!
//! Kept in step with the headers by hand; `tests/bindings/check_agreement.py`
//! (a ctest test) fails when a function, struct field or constant differs.
//! Everything here is `unsafe` to call: see the header for each contract.
//! Options and info structs must be filled by their `_init()` function
//! before use: it sets their `size`, without which the library refuses them.
#![allow(non_camel_case_types, non_snake_case, missing_docs)]

use std::os::raw::{c_char, c_int, c_void};

// ---- version ----------------------------------------------------------------
pub const CGPROP_VERSION_MAJOR: u32 = 0;
pub const CGPROP_VERSION_MINOR: u32 = 3;
pub const CGPROP_VERSION_PATCH: u32 = 0;
pub const CGPROP_VERSION_NUMBER: u32 = 300;

// ---- status codes -----------------------------------------------------------
pub const CGPROP_OK: c_int = 0;
pub const CGPROP_DONE: c_int = 1;
pub const CGPROP_ENOMEM: c_int = -1;
pub const CGPROP_EINVAL: c_int = -2;
pub const CGPROP_ENOTFOUND: c_int = -3;
pub const CGPROP_ESTATE: c_int = -4;
pub const CGPROP_EOVERFLOW: c_int = -5;
pub const CGPROP_EFORMAT: c_int = -6;
pub const CGPROP_EWRITE: c_int = -7;

pub const CGPROP_MAX_METRICS: usize = 64;

// ---- levels, shares ---------------------------------------------------------
pub const CGPROP_LEVEL_0: u32 = 0;
pub const CGPROP_LEVEL_1: u32 = 1;
pub const CGPROP_LEVEL_DEEP: u32 = 2;
pub const CGPROP_LEVEL_REC: u32 = 3;

pub const CGPROP_SHARE_AUTO: u32 = 0;
pub const CGPROP_SHARE_COUNT: u32 = 1;
pub const CGPROP_SHARE_COST: u32 = 2;

// ---- row flags --------------------------------------------------------------
pub const CGPROP_F_IN_CYCLE: u32 = 1 << 0;
pub const CGPROP_F_SELF_RECURSIVE: u32 = 1 << 1;
pub const CGPROP_F_SPONTANEOUS: u32 = 1 << 2;
pub const CGPROP_F_NO_CALLERS: u32 = 1 << 3;
pub const CGPROP_F_HAS_COST: u32 = 1 << 4;
pub const CGPROP_F_SELF_CALL: u32 = 1 << 5;
pub const CGPROP_F_INTRA_CYCLE: u32 = 1 << 6;
pub const CGPROP_F_ENTRY_ASSUMED: u32 = 1 << 7;
pub const CGPROP_F_NOT_INCLUSIVE: u32 = 1 << 8;
pub const CGPROP_F_NO_TOTAL: u32 = 1 << 9;
pub const CGPROP_F_ROOT: u32 = 1 << 10;
pub const CGPROP_F_ESTIMATE: u32 = 1 << 11;
pub const CGPROP_F_NO_BOUNDS: u32 = 1 << 12;
pub const CGPROP_F_CLAMPED: u32 = 1 << 13;
pub const CGPROP_F_NO_WALK: u32 = 1 << 14;

pub const CGPROP_EST_EXACT: u32 = 0;
pub const CGPROP_EST_HEURISTIC: u32 = 1;
pub const CGPROP_EST_SHARES: u32 = 2;
pub const CGPROP_EST_WALK: u32 = 3;
pub const CGPROP_EST_MIDPOINT: u32 = 4;
pub const CGPROP_EST_BUDGET: u32 = 5;
pub const CGPROP_EST_MEASURED: u32 = 6;
pub const CGPROP_WALK_BUDGET_DEFAULT: u32 = 20;

pub const CGPROP_R_SIDES_DISAGREE: u32 = 1 << 0;
pub const CGPROP_R_BELOW_SELF: u32 = 1 << 1;
pub const CGPROP_R_RECURSION: u32 = 1 << 2;
pub const CGPROP_R_ENTRY_UNKNOWN: u32 = 1 << 3;
pub const CGPROP_R_UNMEASURED: u32 = 1 << 4;
pub const CGPROP_R_OVERFLOW: u32 = 1 << 5;
pub const CGPROP_R_UNROOTED: u32 = 1 << 6;

pub const CGPROP_X_S_N: u32 = 1 << 0;
pub const CGPROP_X_S_R: u32 = 1 << 1;
pub const CGPROP_X_C_N: u32 = 1 << 2;
pub const CGPROP_X_C_R: u32 = 1 << 3;
pub const CGPROP_X_D: u32 = 1 << 4;
pub const CGPROP_X_C_NN: u32 = 1 << 5;
pub const CGPROP_X_C_NR: u32 = 1 << 6;
pub const CGPROP_X_C_ND: u32 = 1 << 7;
pub const CGPROP_X_C_RN: u32 = 1 << 8;
pub const CGPROP_X_C_RR: u32 = 1 << 9;
pub const CGPROP_X_C_RD: u32 = 1 << 10;

pub const CGPROP_NONE: u32 = 0xFFFF_FFFF;

// ---- iterator kinds ---------------------------------------------------------
pub const CGPROP_ITER_NODES: u32 = 1;
pub const CGPROP_ITER_EDGES: u32 = 2;
pub const CGPROP_ITER_CALLERS: u32 = 3;
pub const CGPROP_ITER_CALLEES: u32 = 4;
pub const CGPROP_ITER_CYCLES: u32 = 5;
pub const CGPROP_ITER_MEMBERS: u32 = 6;
pub const CGPROP_ITER_TOTALS: u32 = 7;
pub const CGPROP_ITER_EDGE_TOTALS: u32 = 8;
pub const CGPROP_ITER_SPLIT: u32 = 9;
pub const CGPROP_ITER_EDGE_SPLIT: u32 = 10;

// ---- recorder ---------------------------------------------------------------
pub const CGPROP_COMP_OFF: u32 = 0;
pub const CGPROP_COMP_ONLINE: u32 = 1;
pub const CGPROP_COMP_POSTMORTEM: u32 = 2;

pub const CGPROP_REC_CLAMP: u32 = 1 << 0;
pub const CGPROP_REC_CONTEXTS: u32 = 1 << 1;

// experimental (cgprop_experimental.h)
#[cfg(feature = "experimental")]
pub const CGPROP_RF_S_N: u32 = 0;
#[cfg(feature = "experimental")]
pub const CGPROP_RF_S_R: u32 = 1;
#[cfg(feature = "experimental")]
pub const CGPROP_RF_C_N: u32 = 2;
#[cfg(feature = "experimental")]
pub const CGPROP_RF_C_R: u32 = 3;
#[cfg(feature = "experimental")]
pub const CGPROP_RF_SPONT: u32 = 4;
#[cfg(feature = "experimental")]
pub const CGPROP_RF_C_NN: u32 = 5;
#[cfg(feature = "experimental")]
pub const CGPROP_RF_C_NR: u32 = 6;
#[cfg(feature = "experimental")]
pub const CGPROP_RF_C_ND: u32 = 7;
#[cfg(feature = "experimental")]
pub const CGPROP_RF_C_RN: u32 = 8;
#[cfg(feature = "experimental")]
pub const CGPROP_RF_C_RR: u32 = 9;
#[cfg(feature = "experimental")]
pub const CGPROP_RF_C_RD: u32 = 10;

// ---- readers ----------------------------------------------------------------
pub const CGPROP_INPUT_AUTO: u32 = 0;
pub const CGPROP_INPUT_CALLGRIND: u32 = 1;
pub const CGPROP_INPUT_FOLDED: u32 = 2;
pub const CGPROP_INPUT_EVENTS: u32 = 3;
pub const CGPROP_INPUT_PERF: u32 = 4;
pub const CGPROP_INPUT_V8: u32 = 6;
pub const CGPROP_INPUT_PPROF: u32 = 5;
pub const CGPROP_INPUT_PSTATS: u32 = 7;
pub const CGPROP_INPUT_GPROF: u32 = 8;

pub const CGPROP_KEY_FULL: u32 = 0;
pub const CGPROP_KEY_NAME: u32 = 1;

pub const CGPROP_RECS_NONE: u32 = 0;
pub const CGPROP_RECS_NAMES: u32 = 1;
pub const CGPROP_RECS_WITHHELD: u32 = 2;
pub const CGPROP_RECS_STACKS: u32 = 3;
pub const CGPROP_RECS_UNFOLDED: u32 = 4;
pub const CGPROP_RECS_STATED: u32 = 5;
pub const CGPROP_RECS_COUNTS: u32 = 6;

pub const CGPROP_RI_TOTALS: u32 = 1 << 0;
pub const CGPROP_RI_CALLER_CONTEXTS: u32 = 1 << 1;
pub const CGPROP_RI_PLAIN_SELF_CALLS: u32 = 1 << 2;
pub const CGPROP_RI_PLAIN_CYCLES: u32 = 1 << 3;
pub const CGPROP_RI_DEFAULT_NAMED: u32 = 1 << 4;

// ---- writers ----------------------------------------------------------------

pub const CGPROP_FORMAT_TEXT: u32 = 1;
pub const CGPROP_FORMAT_JSON: u32 = 2;
pub const CGPROP_FORMAT_DOT: u32 = 3;
pub const CGPROP_FORMAT_CALLGRIND: u32 = 4;
pub const CGPROP_FORMAT_FLAMEGRAPH: u32 = 5;

pub const CGPROP_W_HEURISTIC_ONLY: u32 = 1 << 0;
pub const CGPROP_W_NO_CLASSES: u32 = 1 << 1;
pub const CGPROP_W_NO_COMPRESSION: u32 = 1 << 2;
pub const CGPROP_W_NO_PRUNE: u32 = 1 << 3;
pub const CGPROP_W_BOUNDS: u32 = 1 << 4;
pub const CGPROP_W_STRIP: u32 = 1 << 5;
pub const CGPROP_W_WRAP: u32 = 1 << 6;
pub const CGPROP_W_PRUNE_TEXT: u32 = 1 << 7;
pub const CGPROP_W_ICICLE: u32 = 1 << 8;

pub const CGPROP_LABEL_TOTAL_PCT: u32 = 1 << 0;
pub const CGPROP_LABEL_SELF_PCT: u32 = 1 << 1;
pub const CGPROP_LABEL_CALLS: u32 = 1 << 2;
pub const CGPROP_LABEL_TOTAL: u32 = 1 << 3;
pub const CGPROP_LABEL_SELF: u32 = 1 << 4;
pub const CGPROP_LABEL_DEFAULT: u32 = CGPROP_LABEL_TOTAL_PCT | CGPROP_LABEL_SELF_PCT | CGPROP_LABEL_CALLS;

pub const CGPROP_COLORMAP_COLOR: u32 = 0;
pub const CGPROP_COLORMAP_PINK: u32 = 1;
pub const CGPROP_COLORMAP_GRAY: u32 = 2;
pub const CGPROP_COLORMAP_BW: u32 = 3;
pub const CGPROP_COLORMAP_PRINT: u32 = 4;

pub const CGPROP_DEPTH_ALL: u32 = 0xFFFF_FFFF;

pub const CGPROP_DOT_CYCLES_AUTO: u32 = 0;
pub const CGPROP_DOT_CYCLES_CLUSTER: u32 = 1;
pub const CGPROP_DOT_CYCLES_LABEL: u32 = 2;
pub const CGPROP_DOT_CYCLES_NONE: u32 = 3;

// ---- opaque handles ---------------------------------------------------------
#[repr(C)]
pub struct cgprop_graph {
    _private: [u8; 0],
}
#[repr(C)]
pub struct cgprop_iter {
    _private: [u8; 0],
}
#[repr(C)]
pub struct cgprop_recorder {
    _private: [u8; 0],
}

pub type cgprop_write_fn = Option<unsafe extern "C" fn(user: *mut c_void, data: *const c_char, len: usize) -> c_int>;
/// The clock of cgprop_recorder_calibrate(): 0 = readings filled, else abort.
#[cfg(feature = "experimental")]
pub type cgprop_clock_fn = Option<unsafe extern "C" fn(user: *mut c_void, out_counters: *mut u64) -> c_int>;

// ---- structs ----------------------------------------------------------------
#[repr(C)]
#[derive(Clone, Copy)]
pub struct cgprop_allocator {
    pub malloc_fn: Option<unsafe extern "C" fn(user: *mut c_void, size: usize) -> *mut c_void>,
    pub realloc_fn: Option<unsafe extern "C" fn(user: *mut c_void, ptr: *mut c_void, size: usize) -> *mut c_void>,
    pub free_fn: Option<unsafe extern "C" fn(user: *mut c_void, ptr: *mut c_void)>,
    pub user: *mut c_void,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct cgprop_node_row {
    pub id: u32,
    pub flags: u32,
    pub self_: u64,
    pub spont_count: u64,
    pub spont_cost: u64,
    pub calls_in: u64,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct cgprop_edge_row {
    pub id: u32,
    pub caller: u32,
    pub callee: u32,
    pub flags: u32,
    pub count: u64,
    pub cost: u64,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct cgprop_cycle_row {
    pub id: u32,
    pub nmembers: u32,
    pub flags: u32,
    pub first: u32,
    pub self_: u64,
    pub total: f64,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct cgprop_member_row {
    pub cycle: u32,
    pub node: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct cgprop_total_row {
    pub id: u32,
    pub flags: u32,
    pub cycle: u32,
    pub reason: u32,
    pub total: f64,
    pub heuristic: f64,
    pub lo: f64,
    pub hi: f64,
    pub walk: f64,
    pub vertex_total: f64,
    pub gprof_self: f64,
    pub gprof_child: f64,
    pub spont_share: f64,
    pub estimate: u32,
    pub reserved: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct cgprop_edge_total_row {
    pub id: u32,
    pub caller: u32,
    pub callee: u32,
    pub flags: u32,
    pub total: f64,
    pub heuristic: f64,
    pub gprof_self: f64,
    pub gprof_child: f64,
    pub share: f64,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct cgprop_split_row {
    pub id: u32,
    pub inexact: u32,
    pub S_n: u64,
    pub S_r: u64,
    pub C_n: u64,
    pub C_r: u64,
    pub D: f64,
    pub heuristic: f64,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct cgprop_edge_split_row {
    pub id: u32,
    pub caller: u32,
    pub callee: u32,
    pub inexact: u32,
    pub C_nn: u64,
    pub C_nr: u64,
    pub C_nd: u64,
    pub C_rn: u64,
    pub C_rr: u64,
    pub C_rd: u64,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct cgprop_recorder_options {
    pub size: u32,
    pub mode: u32,
    pub flags: u32,
    pub reserved: u32,
    pub delta_i: *const u64,
    pub delta_e: *const u64,
}

#[cfg(feature = "experimental")]
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct cgprop_recorder_figure {
    pub count: u64,
    pub nested: u64,
    pub children: u64,
    pub raw: u64,
    pub comp: i64,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct cgprop_read_options {
    pub size: u32,
    pub format: u32,
    pub key_mode: u32,
    pub no_fold_recursion: u32,
    pub separate_recs: u32,
    pub contexts: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct cgprop_read_info {
    pub size: u32,
    pub format: u32,
    pub recursion: u32,
    pub separate_recs: u32,
    pub flags: u32,
    pub nmetrics: u32,
    pub parts: u64,
    pub lines: u64,
    pub totals: *mut u64,
    pub totals_len: u32,
    pub reserved: u32,
    pub default_metric: u32,
    pub reserved2: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct cgprop_read_error {
    pub size: u32,
    pub code: i32,
    pub line: u64,
    pub file: [c_char; 256],
    pub reason: [c_char; 256],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct cgprop_events_info {
    pub size: u32,
    pub reserved: u32,
    pub lines: u64,
    pub events: u64,
    pub unclosed: u64,
    pub clamps: u64,
    pub floors: u64,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct cgprop_write_options {
    pub size: u32,
    pub metric: u32,
    pub flags: u32,
    pub node_thres: f64,
    pub edge_thres: f64,
    pub cycles: u32,
    pub roots: *const u32,
    pub nroots: usize,
    pub leaves: *const u32,
    pub nleaves: usize,
    pub focus: *const u32,
    pub nfocus: usize,
    pub hide: *const u32,
    pub nhide: usize,
    pub depth: u32,
    pub top: u32,
    pub label: u32,
    pub colormap: u32,
    pub skew: f64,
}

extern "C" {
    // version
    pub fn cgprop_version() -> u32;
    pub fn cgprop_version_string() -> *const c_char;
    // errors
    pub fn cgprop_strerror(code: c_int) -> *const c_char;
    // graph
    pub fn cgprop_graph_new(alloc: *const cgprop_allocator, names: *const *const c_char, name_lens: *const usize,
                            nmetrics: usize, out: *mut *mut cgprop_graph) -> c_int;
    pub fn cgprop_graph_free(g: *mut cgprop_graph);
    pub fn cgprop_graph_errmsg(g: *const cgprop_graph) -> *const c_char;
    pub fn cgprop_graph_metric_count(g: *const cgprop_graph) -> usize;
    pub fn cgprop_graph_metric_name(g: *const cgprop_graph, k: u32, len_out: *mut usize) -> *const c_char;
    pub fn cgprop_graph_find_metric(g: *mut cgprop_graph, name: *const c_char, len: usize, out: *mut u32) -> c_int;
    pub fn cgprop_graph_add_node(g: *mut cgprop_graph, key: *const c_char, len: usize, out: *mut u32) -> c_int;
    pub fn cgprop_graph_find_node(g: *mut cgprop_graph, key: *const c_char, len: usize, out: *mut u32) -> c_int;
    pub fn cgprop_graph_node_key(g: *const cgprop_graph, node: u32, len_out: *mut usize) -> *const c_char;
    pub fn cgprop_graph_node_count(g: *const cgprop_graph) -> usize;
    pub fn cgprop_graph_edge_count(g: *const cgprop_graph) -> usize;
    pub fn cgprop_graph_add_self(g: *mut cgprop_graph, node: u32, costs: *const u64) -> c_int;
    pub fn cgprop_graph_add_self_class(g: *mut cgprop_graph, node: u32, level: u32, costs: *const u64) -> c_int;
    pub fn cgprop_graph_add_edge(g: *mut cgprop_graph, caller: u32, callee: u32, count: u64, costs: *const u64,
                                 out: *mut u32) -> c_int;
    pub fn cgprop_graph_add_edge_class(g: *mut cgprop_graph, caller: u32, callee: u32, caller_level: u32,
                                       callee_level: u32, count: u64, costs: *const u64, out: *mut u32) -> c_int;
    pub fn cgprop_graph_add_spontaneous(g: *mut cgprop_graph, node: u32, count: u64, costs: *const u64) -> c_int;
    pub fn cgprop_graph_add_nodes(g: *mut cgprop_graph, n: usize, keys: *const *const c_char, lens: *const usize,
                                  out: *mut u32) -> c_int;
    pub fn cgprop_graph_add_calls(g: *mut cgprop_graph, n: usize, callers: *const u32, callees: *const u32,
                                  counts: *const u64, costs: *const u64, out: *mut u32) -> c_int;
    pub fn cgprop_graph_add_stack(g: *mut cgprop_graph, frames: *const u32, depth: usize, weights: *const u64)
                                  -> c_int;
    pub fn cgprop_graph_find_edge(g: *mut cgprop_graph, caller: u32, callee: u32, out: *mut u32) -> c_int;
    pub fn cgprop_graph_generation(g: *const cgprop_graph) -> u64;
    // analyses
    pub fn cgprop_graph_find_cycles(g: *mut cgprop_graph, ncycles_out: *mut usize) -> c_int;
    pub fn cgprop_graph_collapse(g: *mut cgprop_graph, share: u32) -> c_int;
    pub fn cgprop_graph_propagate(g: *mut cgprop_graph) -> c_int;
    pub fn cgprop_graph_split(g: *mut cgprop_graph) -> c_int;
    pub fn cgprop_graph_unrooted(g: *mut cgprop_graph, metric: u32, weight: *mut u64) -> c_int;
    pub fn cgprop_graph_set_estimate(g: *mut cgprop_graph, which: u32, budget_per_member: f64) -> c_int;
    pub fn cgprop_graph_analyze(g: *mut cgprop_graph) -> c_int;
    // reading results
    pub fn cgprop_iter_new(g: *mut cgprop_graph, kind: u32, metric: u32, arg: u32, out: *mut *mut cgprop_iter)
                           -> c_int;
    pub fn cgprop_iter_next(it: *mut cgprop_iter, row: *mut c_void, row_size: usize) -> c_int;
    pub fn cgprop_iter_copy_rows(it: *mut cgprop_iter, dst: *mut c_void, row_size: usize, cap: usize,
                                 n_out: *mut usize) -> c_int;
    pub fn cgprop_iter_count(it: *const cgprop_iter) -> usize;
    pub fn cgprop_iter_free(it: *mut cgprop_iter);
    pub fn cgprop_graph_get_row(g: *mut cgprop_graph, kind: u32, metric: u32, id: u32, row: *mut c_void,
                                row_size: usize) -> c_int;
    pub fn cgprop_graph_node_cycle(g: *mut cgprop_graph, node: u32, out: *mut u32) -> c_int;
    // recorder
    pub fn cgprop_recorder_options_init(opt: *mut cgprop_recorder_options);
    pub fn cgprop_recorder_new(g: *mut cgprop_graph, opt: *const cgprop_recorder_options,
                               out: *mut *mut cgprop_recorder) -> c_int;
    pub fn cgprop_recorder_free(r: *mut cgprop_recorder);
    pub fn cgprop_recorder_enter(r: *mut cgprop_recorder, node: u32, counters: *const u64) -> c_int;
    pub fn cgprop_recorder_exit(r: *mut cgprop_recorder, node: u32, counters: *const u64) -> c_int;
    pub fn cgprop_recorder_depth(r: *const cgprop_recorder) -> usize;
    pub fn cgprop_recorder_unwind(r: *mut cgprop_recorder, counters: *const u64) -> c_int;
    pub fn cgprop_recorder_flush(r: *mut cgprop_recorder, counters: *const u64) -> c_int;
    pub fn cgprop_graph_merge(dst: *mut cgprop_graph, src: *const cgprop_graph) -> c_int;
    pub fn cgprop_graph_keep_contexts(g: *mut cgprop_graph, on: c_int) -> c_int;
    pub fn cgprop_graph_context_count(g: *const cgprop_graph) -> usize;
    // readers (cgprop_io.h)
    pub fn cgprop_read_info_init(info: *mut cgprop_read_info);
    pub fn cgprop_read_error_init(err: *mut cgprop_read_error);
    pub fn cgprop_read_options_init(opts: *mut cgprop_read_options);
    pub fn cgprop_read_detect(data: *const c_char, len: usize) -> u32;
    pub fn cgprop_read_buffer(data: *const c_char, len: usize, name: *const c_char, name_len: usize,
                              opts: *const cgprop_read_options, alloc: *const cgprop_allocator,
                              out: *mut *mut cgprop_graph, info: *mut cgprop_read_info,
                              err: *mut cgprop_read_error) -> c_int;
    pub fn cgprop_read_file(path: *const c_char, path_len: usize, opts: *const cgprop_read_options,
                            alloc: *const cgprop_allocator, out: *mut *mut cgprop_graph,
                            info: *mut cgprop_read_info, err: *mut cgprop_read_error) -> c_int;
    pub fn cgprop_node_display_name(g: *const cgprop_graph, node: u32, len_out: *mut usize) -> *const c_char;
    // event traces (cgprop_io.h)
    pub fn cgprop_events_info_init(info: *mut cgprop_events_info);
    pub fn cgprop_events_read_buffer(data: *const c_char, len: usize, name: *const c_char, name_len: usize,
                                     ropt: *const cgprop_recorder_options, alloc: *const cgprop_allocator,
                                     out: *mut *mut cgprop_graph, info: *mut cgprop_events_info,
                                     err: *mut cgprop_read_error) -> c_int;
    pub fn cgprop_events_read_file(path: *const c_char, path_len: usize, ropt: *const cgprop_recorder_options,
                                   alloc: *const cgprop_allocator, out: *mut *mut cgprop_graph,
                                   info: *mut cgprop_events_info, err: *mut cgprop_read_error) -> c_int;
    // writers (cgprop_io.h)
    pub fn cgprop_write_options_init(opts: *mut cgprop_write_options);
    pub fn cgprop_write(g: *mut cgprop_graph, format: u32, opts: *const cgprop_write_options, write: cgprop_write_fn,
                        user: *mut c_void) -> c_int;
    pub fn cgprop_write_path(g: *mut cgprop_graph, format: u32, opts: *const cgprop_write_options,
                             path: *const c_char, path_len: usize) -> c_int;
    pub fn cgprop_write_compare(base: *mut cgprop_graph, g: *mut cgprop_graph, format: u32,
                                opts: *const cgprop_write_options, write: cgprop_write_fn, user: *mut c_void)
                                -> c_int;
}

// Outside the stability promise: they may change or go away in any release
// with no SONAME change (cgprop_experimental.h).
#[cfg(feature = "experimental")]
extern "C" {
    pub fn cgprop_recorder_get(r: *mut cgprop_recorder, which: u32, node: u32, callee: u32, metric: u32,
                               out: *mut cgprop_recorder_figure, size: usize) -> c_int;
    pub fn cgprop_recorder_clamp_count(r: *const cgprop_recorder) -> u64;
    pub fn cgprop_recorder_floor_count(r: *const cgprop_recorder) -> u64;
    pub fn cgprop_recorder_calibrate(nmetrics: usize, now: cgprop_clock_fn, user: *mut c_void, iterations: u32,
                                     alloc: *const cgprop_allocator, delta_i_out: *mut f64,
                                     delta_e_out: *mut f64) -> c_int;
    pub fn cgprop_graph_clamp_count(g: *const cgprop_graph) -> u64;
    pub fn cgprop_graph_floor_count(g: *const cgprop_graph) -> u64;
}

//! Safe Rust binding of libcgprop: correct inclusive costs for call graphs
//! with recursion.
//!
//! [`sys`] holds the raw `extern "C"` declarations; this module wraps them:
//! an owned [`Graph`] (freed on drop), iterators over typed rows
//! (implementing [`Iterator`], filled in bulk through
//! `cgprop_iter_copy_rows`), and [`Result`]s whose [`Error`] carries the
//! library's own message.
//!
//! Mutating calls and analyses take `&mut Graph`, reads take `&Graph`, and
//! row iterators borrow the graph: the borrow checker rules out the stale
//! iterators the C API reports as `CGPROP_ESTATE`. A `Graph` may move to
//! another thread (`Send`) but not be shared between threads (`!Sync`):
//! the library's read calls update caches inside the graph.
//!
//! ```no_run
//! let mut g = cgprop::Graph::new(&["samples"]).unwrap();
//! for s in ["A", "A;C", "A;B", "A;B;A", "A;B;A;C"] {
//!     let frames: Vec<&str> = s.split(';').collect();
//!     g.add_stack_keys(&frames, &[10]).unwrap();
//! }
//! g.analyze(cgprop::Share::Auto).unwrap();
//! for row in g.splits(0).unwrap() {
//!     println!("{} {}", g.key(row.id).unwrap(), row.C_n);
//! }
//! ```
#![deny(missing_docs)]

pub mod sys;

use std::ffi::CStr;
use std::fmt;
use std::marker::PhantomData;
use std::os::raw::{c_char, c_int, c_void};
use std::path::Path;
use std::ptr::{self, NonNull};

/// A function as built (`CGPROP_ITER_NODES`). `self_` is C's `self`.
pub type NodeRow = sys::cgprop_node_row;
/// A call as built (`CGPROP_ITER_EDGES`, `_CALLERS`, `_CALLEES`).
pub type CallRow = sys::cgprop_edge_row;
/// A cycle (`CGPROP_ITER_CYCLES`). `self_` is C's `self`.
pub type CycleRow = sys::cgprop_cycle_row;
/// A cycle member (`CGPROP_ITER_MEMBERS`).
pub type MemberRow = sys::cgprop_member_row;
/// Propagated figures of a function (`CGPROP_ITER_TOTALS`).
pub type TotalRow = sys::cgprop_total_row;
/// Propagated figures of a call (`CGPROP_ITER_EDGE_TOTALS`).
pub type CallTotalRow = sys::cgprop_edge_total_row;
/// Split figures of a function (`CGPROP_ITER_SPLIT`).
pub type SplitRow = sys::cgprop_split_row;
/// Split figures of a call (`CGPROP_ITER_EDGE_SPLIT`).
pub type CallSplitRow = sys::cgprop_edge_split_row;
/// Reader options; `Default` (all zero) is the library's default.
pub type ReadOptions = sys::cgprop_read_options;
/// What a reader found besides the graph.
pub type ReadInfo = sys::cgprop_read_info;

/// "No cycle" value of cycle id fields.
pub const NONE: u32 = sys::CGPROP_NONE;

/// Row flag bits (the `flags` fields).
pub mod flags {
    use super::sys;
    /// Function is a member of a cycle.
    pub const IN_CYCLE: u32 = sys::CGPROP_F_IN_CYCLE;
    /// Function calls itself directly.
    pub const SELF_RECURSIVE: u32 = sys::CGPROP_F_SELF_RECURSIVE;
    /// Function has spontaneous entries.
    pub const SPONTANEOUS: u32 = sys::CGPROP_F_SPONTANEOUS;
    /// Function has no caller at all.
    pub const NO_CALLERS: u32 = sys::CGPROP_F_NO_CALLERS;
    /// Call has a measured cost.
    pub const HAS_COST: u32 = sys::CGPROP_F_HAS_COST;
    /// Call is a self-call.
    pub const SELF_CALL: u32 = sys::CGPROP_F_SELF_CALL;
    /// Call joins two members of the same cycle.
    pub const INTRA_CYCLE: u32 = sys::CGPROP_F_INTRA_CYCLE;
    /// Cycle whose entry had to be assumed.
    pub const ENTRY_ASSUMED: u32 = sys::CGPROP_F_ENTRY_ASSUMED;
    /// gprof figure of a cycle member: not inclusive.
    pub const NOT_INCLUSIVE: u32 = sys::CGPROP_F_NOT_INCLUSIVE;
    /// Call got no propagated total.
    pub const NO_TOTAL: u32 = sys::CGPROP_F_NO_TOTAL;
    /// Vertex with no external caller and no spontaneous weight.
    pub const ROOT: u32 = sys::CGPROP_F_ROOT;
    /// The figure is an estimate, not exact (see the row's `estimate`).
    pub const ESTIMATE: u32 = sys::CGPROP_F_ESTIMATE;
    /// No proven interval: the call costs are not measured, or a sum overflows.
    pub const NO_BOUNDS: u32 = sys::CGPROP_F_NO_BOUNDS;
    /// The heuristic lay outside the proven interval (or above the call's
    /// measured cost) and was clamped into it.
    pub const CLAMPED: u32 = sys::CGPROP_F_CLAMPED;
    /// No walk figure on this row.
    pub const NO_WALK: u32 = sys::CGPROP_F_NO_WALK;
}

/// What kind of figure a `TotalRow::total` is (its `estimate` field).
pub mod estimate {
    use super::sys;
    /// Exact: the interval is a single point.
    pub const EXACT: u32 = sys::CGPROP_EST_EXACT;
    /// gprof2dot's per-root estimate, clamped into the interval where there is one.
    pub const HEURISTIC: u32 = sys::CGPROP_EST_HEURISTIC;
    /// gprof's propagation by call shares, without measured call costs: no interval.
    pub const SHARES: u32 = sys::CGPROP_EST_SHARES;
    /// The absorbing walk over the measured call costs.
    pub const WALK: u32 = sys::CGPROP_EST_WALK;
    /// The midpoint of the walk and the clamped heuristic.
    pub const MIDPOINT: u32 = sys::CGPROP_EST_MIDPOINT;
    /// The clamped heuristic: the walk on this cycle passed its work budget.
    pub const BUDGET: u32 = sys::CGPROP_EST_BUDGET;
}

/// Why a total is not exact (bits of `TotalRow::reason`).
pub mod reason {
    use super::sys;
    /// The calls into the function and what it spends and calls disagree.
    pub const SIDES_DISAGREE: u32 = sys::CGPROP_R_SIDES_DISAGREE;
    /// A measured inclusive side lies below the function's own self cost.
    pub const BELOW_SELF: u32 = sys::CGPROP_R_BELOW_SELF;
    /// Member of a recursion cycle the input gives no levels for.
    pub const RECURSION: u32 = sys::CGPROP_R_RECURSION;
    /// Member of a cycle nothing calls and nothing enters.
    pub const ENTRY_UNKNOWN: u32 = sys::CGPROP_R_ENTRY_UNKNOWN;
    /// Some call the figure rests on has no measured cost: no interval.
    pub const UNMEASURED: u32 = sys::CGPROP_R_UNMEASURED;
    /// A sum the interval needs exceeds 64 bits: no interval.
    pub const OVERFLOW: u32 = sys::CGPROP_R_OVERFLOW;
}

// ---- errors -------------------------------------------------------------------

/// The class of a failure, from the library's status code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// `CGPROP_ENOMEM`: an allocation failed; the graph is unchanged.
    NoMemory,
    /// `CGPROP_EINVAL`: a bad argument.
    InvalidArgument,
    /// `CGPROP_ENOTFOUND`: no such key, metric, call or file.
    NotFound,
    /// `CGPROP_ESTATE`: call out of order (an analysis has not run).
    State,
    /// `CGPROP_EOVERFLOW`: a sum would overflow; nothing was added.
    Overflow,
    /// `CGPROP_EFORMAT`: malformed input.
    Format,
    /// `CGPROP_EWRITE`: a writer's output failed.
    Write,
    /// Any other negative status.
    Other,
}

/// A failed call: the status code and the library's message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    code: i32,
    message: String,
}

impl Error {
    fn new(code: c_int, message: String) -> Error {
        Error { code, message }
    }
    /// The library's status code (negative).
    pub fn code(&self) -> i32 {
        self.code
    }
    /// The library's message (`cgprop_graph_errmsg` or the reader's reason).
    pub fn message(&self) -> &str {
        &self.message
    }
    /// The class of the failure.
    pub fn kind(&self) -> ErrorKind {
        match self.code {
            sys::CGPROP_ENOMEM => ErrorKind::NoMemory,
            sys::CGPROP_EINVAL => ErrorKind::InvalidArgument,
            sys::CGPROP_ENOTFOUND => ErrorKind::NotFound,
            sys::CGPROP_ESTATE => ErrorKind::State,
            sys::CGPROP_EOVERFLOW => ErrorKind::Overflow,
            sys::CGPROP_EFORMAT => ErrorKind::Format,
            sys::CGPROP_EWRITE => ErrorKind::Write,
            _ => ErrorKind::Other,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

/// `Result` with the library's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

/// The library's static text for a status code.
pub fn strerror(code: i32) -> String {
    unsafe { cstr(sys::cgprop_strerror(code)) }
}

/// The loaded library's version, e.g. "0.2.0".
pub fn version() -> String {
    unsafe { cstr(sys::cgprop_version_string()) }
}

unsafe fn cstr(p: *const c_char) -> String {
    if p.is_null() {
        String::new()
    } else {
        CStr::from_ptr(p).to_string_lossy().into_owned()
    }
}

unsafe fn bytes<'a>(p: *const c_char, len: usize) -> Option<&'a [u8]> {
    if p.is_null() {
        None
    } else {
        Some(std::slice::from_raw_parts(p as *const u8, len))
    }
}

fn invalid(message: String) -> Error {
    Error::new(sys::CGPROP_EINVAL, message)
}

// ---- options ------------------------------------------------------------------

/// Share weights for propagation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Share {
    /// By cost if any call has a cost, else by count.
    Auto,
    /// By call count (gprof).
    Count,
    /// By call cost (gprof2dot on callgrind data).
    Cost,
}

impl Share {
    fn raw(self) -> u32 {
        match self {
            Share::Auto => sys::CGPROP_SHARE_AUTO,
            Share::Count => sys::CGPROP_SHARE_COUNT,
            Share::Cost => sys::CGPROP_SHARE_COST,
        }
    }
}

/// Activation classes for per-class costs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// Level 0: non-recursive.
    NonRecursive,
    /// Level 1: first-level recursive.
    First,
    /// Level 2 or deeper.
    Deep,
    /// Level 1 or deeper, lumped.
    Recursive,
}

impl Level {
    fn raw(self) -> u32 {
        match self {
            Level::NonRecursive => sys::CGPROP_LEVEL_0,
            Level::First => sys::CGPROP_LEVEL_1,
            Level::Deep => sys::CGPROP_LEVEL_DEEP,
            Level::Recursive => sys::CGPROP_LEVEL_REC,
        }
    }
}

/// Output formats of [`Graph::write`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Flat profile plus a gprof-like call graph.
    Text,
    /// Every figure of every metric (the tool's JSON).
    Json,
    /// Graphviz picture.
    Dot,
    /// Callgrind profile.
    Callgrind,
}

impl Format {
    fn raw(self) -> u32 {
        match self {
            Format::Text => sys::CGPROP_FORMAT_TEXT,
            Format::Json => sys::CGPROP_FORMAT_JSON,
            Format::Dot => sys::CGPROP_FORMAT_DOT,
            Format::Callgrind => sys::CGPROP_FORMAT_CALLGRIND,
        }
    }
}

/// Writer options; `WriteOptions::default()` is the library's defaults.
pub type WriteOptions = sys::cgprop_write_options;

fn write_defaults() -> WriteOptions {
    let mut o = WriteOptions::default();
    unsafe { sys::cgprop_write_options_init(&mut o) };
    o
}

// ---- rows ---------------------------------------------------------------------

/// A row type of the C API: plain data of a fixed layout.
///
/// # Safety
/// Implemented only for the `#[repr(C)]` row structs of [`sys`], for which
/// any bit pattern the library writes is valid.
pub unsafe trait Row: Copy + Default {}
unsafe impl Row for NodeRow {}
unsafe impl Row for CallRow {}
unsafe impl Row for CycleRow {}
unsafe impl Row for MemberRow {}
unsafe impl Row for TotalRow {}
unsafe impl Row for CallTotalRow {}
unsafe impl Row for SplitRow {}
unsafe impl Row for CallSplitRow {}

/// A row type with a point look-up ([`Graph::get`]).
pub trait PointRow: Row {
    /// The iterator kind whose rows this type holds.
    const KIND: u32;
}
impl PointRow for NodeRow {
    const KIND: u32 = sys::CGPROP_ITER_NODES;
}
impl PointRow for CallRow {
    const KIND: u32 = sys::CGPROP_ITER_EDGES;
}
impl PointRow for CycleRow {
    const KIND: u32 = sys::CGPROP_ITER_CYCLES;
}
impl PointRow for TotalRow {
    const KIND: u32 = sys::CGPROP_ITER_TOTALS;
}
impl PointRow for CallTotalRow {
    const KIND: u32 = sys::CGPROP_ITER_EDGE_TOTALS;
}
impl PointRow for SplitRow {
    const KIND: u32 = sys::CGPROP_ITER_SPLIT;
}
impl PointRow for CallSplitRow {
    const KIND: u32 = sys::CGPROP_ITER_EDGE_SPLIT;
}

/// Rows fetched per FFI call.
const CHUNK: usize = 1024;

/// Iterator over the rows of one C iterator, borrowing the graph.
///
/// Rows are copied in chunks. The graph cannot change while it lives, so
/// the only failure mid-way is the library's own (out of memory); the
/// iteration then ends and [`Rows::error`] tells why.
pub struct Rows<'g, R: Row> {
    g: *mut sys::cgprop_graph,
    it: *mut sys::cgprop_iter,
    buf: Vec<R>,
    pos: usize,
    filled: usize,
    remaining: usize,
    err: Option<Error>,
    _graph: PhantomData<&'g Graph>,
}

impl<'g, R: Row> Rows<'g, R> {
    /// Rows not yet yielded (all of them before the first `next`).
    pub fn len(&self) -> usize {
        self.remaining
    }

    /// True when no row is left.
    pub fn is_empty(&self) -> bool {
        self.remaining == 0
    }

    /// The error that ended the iteration early, if any.
    pub fn error(&self) -> Option<&Error> {
        self.err.as_ref()
    }

    fn refill(&mut self) {
        self.pos = 0;
        self.filled = 0;
        if self.it.is_null() {
            return;
        }
        let mut n: usize = 0;
        let rc = unsafe {
            sys::cgprop_iter_copy_rows(self.it, self.buf.as_mut_ptr() as *mut c_void, std::mem::size_of::<R>(),
                                       self.buf.len(), &mut n)
        };
        if rc < 0 {
            self.err = Some(Error::new(rc, unsafe { cstr(sys::cgprop_graph_errmsg(self.g)) }));
            n = 0;
        }
        if rc != sys::CGPROP_OK || n < self.buf.len() {
            unsafe { sys::cgprop_iter_free(self.it) };
            self.it = ptr::null_mut();
        }
        self.pos = 0;
        self.filled = n;
    }
}

impl<'g, R: Row> Iterator for Rows<'g, R> {
    type Item = R;

    fn next(&mut self) -> Option<R> {
        if self.pos == self.filled {
            self.refill();
            if self.filled == 0 {
                self.remaining = 0;
                return None;
            }
        }
        let r = self.buf[self.pos];
        self.pos += 1;
        self.remaining -= 1;
        Some(r)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (if self.err.is_some() { 0 } else { self.remaining }, Some(self.remaining))
    }
}

impl<'g, R: Row> Drop for Rows<'g, R> {
    fn drop(&mut self) {
        unsafe { sys::cgprop_iter_free(self.it) };
    }
}

// ---- graph --------------------------------------------------------------------

/// An owned call graph with K named metrics, freed on drop.
pub struct Graph {
    ptr: NonNull<sys::cgprop_graph>,
    k: usize,
}

// One graph may move between threads; it is not Sync (reads update caches).
unsafe impl Send for Graph {}

impl Drop for Graph {
    fn drop(&mut self) {
        unsafe { sys::cgprop_graph_free(self.ptr.as_ptr()) };
    }
}

impl fmt::Debug for Graph {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Graph")
            .field("metrics", &self.metrics())
            .field("functions", &self.function_count())
            .field("calls", &self.call_count())
            .finish()
    }
}

impl Graph {
    /// An empty graph with the given metric names (1 to 64 of them).
    pub fn new(metrics: &[&str]) -> Result<Graph> {
        let names: Vec<*const c_char> = metrics.iter().map(|m| m.as_ptr() as *const c_char).collect();
        let lens: Vec<usize> = metrics.iter().map(|m| m.len()).collect();
        let mut out = ptr::null_mut();
        let rc = unsafe { sys::cgprop_graph_new(ptr::null(), names.as_ptr(), lens.as_ptr(), names.len(), &mut out) };
        if rc != sys::CGPROP_OK {
            return Err(Error::new(rc, format!("cgprop_graph_new: {} (metrics {:?})", strerror(rc), metrics)));
        }
        Ok(unsafe { Graph::adopt(out) })
    }

    unsafe fn adopt(p: *mut sys::cgprop_graph) -> Graph {
        let k = sys::cgprop_graph_metric_count(p);
        Graph { ptr: NonNull::new_unchecked(p), k }
    }

    fn raw(&self) -> *mut sys::cgprop_graph {
        self.ptr.as_ptr()
    }

    fn check(&self, rc: c_int) -> Result<c_int> {
        if rc < 0 {
            Err(Error::new(rc, self.errmsg()))
        } else {
            Ok(rc)
        }
    }

    fn costs<'a>(&self, costs: &'a [u64], what: &str) -> Result<&'a [u64]> {
        if costs.len() != self.k {
            return Err(invalid(format!("{}: {} values given, the graph has {} metrics", what, costs.len(), self.k)));
        }
        Ok(costs)
    }

    /// The library's message for the last call on this graph ("" after success).
    pub fn errmsg(&self) -> String {
        unsafe { cstr(sys::cgprop_graph_errmsg(self.raw())) }
    }

    /// Number of metrics K.
    pub fn metric_count(&self) -> usize {
        self.k
    }

    /// Metric names in index order.
    pub fn metrics(&self) -> Vec<String> {
        (0..self.k as u32)
            .map(|i| {
                let mut n = 0usize;
                let p = unsafe { sys::cgprop_graph_metric_name(self.raw(), i, &mut n) };
                String::from_utf8_lossy(unsafe { bytes(p, n) }.unwrap_or(b"")).into_owned()
            })
            .collect()
    }

    /// Index of the metric named `name`.
    pub fn find_metric(&self, name: &str) -> Result<u32> {
        let mut out = 0u32;
        self.check(unsafe {
            sys::cgprop_graph_find_metric(self.raw(), name.as_ptr() as *const c_char, name.len(), &mut out)
        })?;
        Ok(out)
    }

    /// Add a function by key, or return the id it already has.
    pub fn add_function<K: AsRef<[u8]>>(&mut self, key: K) -> Result<u32> {
        let key = key.as_ref();
        let mut out = 0u32;
        self.check(unsafe { sys::cgprop_graph_add_node(self.raw(), key.as_ptr() as *const c_char, key.len(), &mut out) })?;
        Ok(out)
    }

    /// The id of the function with `key`.
    pub fn find_function<K: AsRef<[u8]>>(&self, key: K) -> Result<u32> {
        let key = key.as_ref();
        let mut out = 0u32;
        self.check(unsafe {
            sys::cgprop_graph_find_node(self.raw(), key.as_ptr() as *const c_char, key.len(), &mut out)
        })?;
        Ok(out)
    }

    /// The key of function `node` as bytes, or None for a bad id.
    pub fn key_bytes(&self, node: u32) -> Option<Vec<u8>> {
        let mut n = 0usize;
        unsafe { bytes(sys::cgprop_graph_node_key(self.raw(), node, &mut n), n) }.map(|b| b.to_vec())
    }

    /// The key of function `node` (lossy UTF-8), or None for a bad id.
    pub fn key(&self, node: u32) -> Option<String> {
        self.key_bytes(node).map(|b| String::from_utf8_lossy(&b).into_owned())
    }

    /// The display name of `node` (the key's part after its last TAB).
    pub fn display_name(&self, node: u32) -> Option<String> {
        let mut n = 0usize;
        unsafe { bytes(sys::cgprop_node_display_name(self.raw(), node, &mut n), n) }
            .map(|b| String::from_utf8_lossy(b).into_owned())
    }

    /// Number of functions.
    pub fn function_count(&self) -> usize {
        unsafe { sys::cgprop_graph_node_count(self.raw()) }
    }

    /// Number of distinct calls.
    pub fn call_count(&self) -> usize {
        unsafe { sys::cgprop_graph_edge_count(self.raw()) }
    }

    /// The generation counter (incremented by every mutation).
    pub fn generation(&self) -> u64 {
        unsafe { sys::cgprop_graph_generation(self.raw()) }
    }

    /// On-the-fly clamps (`CGPROP_REC_CLAMP`) in the figures this graph
    /// holds: each recorder flush adds its own, [`Graph::merge`] the
    /// source's; 0 when no clamping recorder wrote into it.
    pub fn clamp_count(&self) -> u64 {
        unsafe { sys::cgprop_graph_clamp_count(self.raw()) }
    }

    /// Compensated figures in this graph that came out below 0 and were
    /// written as 0 (either compensation route): each recorder flush adds
    /// its own, [`Graph::merge`] the source's; 0 when no compensating
    /// recorder wrote into it.
    pub fn floor_count(&self) -> u64 {
        unsafe { sys::cgprop_graph_floor_count(self.raw()) }
    }

    /// Add self cost (K values) to a function, activation class unknown.
    pub fn add_self(&mut self, node: u32, costs: &[u64]) -> Result<()> {
        let c = self.costs(costs, "add_self")?;
        self.check(unsafe { sys::cgprop_graph_add_self(self.raw(), node, c.as_ptr()) }).map(|_| ())
    }

    /// Add self cost for activations of one class.
    pub fn add_self_class(&mut self, node: u32, level: Level, costs: &[u64]) -> Result<()> {
        let c = self.costs(costs, "add_self_class")?;
        self.check(unsafe { sys::cgprop_graph_add_self_class(self.raw(), node, level.raw(), c.as_ptr()) }).map(|_| ())
    }

    /// Add `count` calls caller → callee with inclusive costs (None when the
    /// input has none). Returns the call id.
    pub fn add_call(&mut self, caller: u32, callee: u32, count: u64, costs: Option<&[u64]>) -> Result<u32> {
        let c = match costs {
            Some(c) => self.costs(c, "add_call")?.as_ptr(),
            None => ptr::null(),
        };
        let mut out = 0u32;
        self.check(unsafe { sys::cgprop_graph_add_edge(self.raw(), caller, callee, count, c, &mut out) })?;
        Ok(out)
    }

    /// Add calls between activations of known classes. Returns the call id.
    pub fn add_call_class(&mut self, caller: u32, callee: u32, caller_level: Level, callee_level: Level, count: u64,
                          costs: &[u64]) -> Result<u32> {
        let c = self.costs(costs, "add_call_class")?;
        let mut out = 0u32;
        self.check(unsafe {
            sys::cgprop_graph_add_edge_class(self.raw(), caller, callee, caller_level.raw(), callee_level.raw(), count,
                                             c.as_ptr(), &mut out)
        })?;
        Ok(out)
    }

    /// Add `count` activations of `node` that have no caller.
    pub fn add_spontaneous(&mut self, node: u32, count: u64, costs: &[u64]) -> Result<()> {
        let c = self.costs(costs, "add_spontaneous")?;
        self.check(unsafe { sys::cgprop_graph_add_spontaneous(self.raw(), node, count, c.as_ptr()) }).map(|_| ())
    }

    /// Add one sampled stack (function ids, root first) with K weights.
    pub fn add_stack(&mut self, frames: &[u32], weights: &[u64]) -> Result<()> {
        let w = self.costs(weights, "add_stack")?;
        self.check(unsafe { sys::cgprop_graph_add_stack(self.raw(), frames.as_ptr(), frames.len(), w.as_ptr()) })
            .map(|_| ())
    }

    /// Add one sampled stack given by keys (functions added as needed).
    pub fn add_stack_keys<K: AsRef<[u8]>>(&mut self, frames: &[K], weights: &[u64]) -> Result<()> {
        let mut ids = Vec::with_capacity(frames.len());
        for f in frames {
            ids.push(self.add_function(f)?);
        }
        self.add_stack(&ids, weights)
    }

    /// The id of the call caller → callee.
    pub fn find_call(&self, caller: u32, callee: u32) -> Result<u32> {
        let mut out = 0u32;
        self.check(unsafe { sys::cgprop_graph_find_edge(self.raw(), caller, callee, &mut out) })?;
        Ok(out)
    }

    /// Find recursion cycles; returns their number.
    pub fn find_cycles(&mut self) -> Result<usize> {
        let mut n = 0usize;
        self.check(unsafe { sys::cgprop_graph_find_cycles(self.raw(), &mut n) })?;
        Ok(n)
    }

    /// gprof-style collapse (after [`Graph::find_cycles`]).
    pub fn collapse(&mut self, share: Share) -> Result<()> {
        self.check(unsafe { sys::cgprop_graph_collapse(self.raw(), share.raw()) }).map(|_| ())
    }

    /// gprof2dot's per-root propagation (after [`Graph::collapse`]).
    pub fn propagate(&mut self) -> Result<()> {
        self.check(unsafe { sys::cgprop_graph_propagate(self.raw()) }).map(|_| ())
    }

    /// KCachegrind's recursive / non-recursive split.
    pub fn split(&mut self) -> Result<()> {
        self.check(unsafe { sys::cgprop_graph_split(self.raw()) }).map(|_| ())
    }

    /// What `total` shows for cycle members bounded by measured calls alone
    /// (`estimate::MIDPOINT`, `estimate::WALK` or `estimate::HEURISTIC`), and
    /// the walk's work budget per member in front units (0: no limit;
    /// `sys::CGPROP_WALK_BUDGET_DEFAULT` by default). Takes effect at the
    /// next [`Graph::propagate`].
    pub fn set_estimate(&mut self, which: u32, budget_per_member: f64) -> Result<()> {
        self.check(unsafe { sys::cgprop_graph_set_estimate(self.raw(), which, budget_per_member) }).map(|_| ())
    }

    /// All four analyses in order, as the command-line tool runs them;
    /// returns the number of cycles.
    pub fn analyze(&mut self, share: Share) -> Result<usize> {
        let n = self.find_cycles()?;
        self.collapse(share)?;
        self.propagate()?;
        self.split()?;
        Ok(n)
    }

    fn rows<R: Row>(&self, kind: u32, metric: u32, arg: u32) -> Result<Rows<'_, R>> {
        let mut it = ptr::null_mut();
        self.check(unsafe { sys::cgprop_iter_new(self.raw(), kind, metric, arg, &mut it) })?;
        let count = unsafe { sys::cgprop_iter_count(it) };
        Ok(Rows {
            g: self.raw(),
            it,
            buf: vec![R::default(); count.clamp(1, CHUNK)],
            pos: 0,
            filled: 0,
            remaining: count,
            err: None,
            _graph: PhantomData,
        })
    }

    /// Every function as built.
    pub fn nodes(&self, metric: u32) -> Result<Rows<'_, NodeRow>> {
        self.rows(sys::CGPROP_ITER_NODES, metric, 0)
    }
    /// Every call as built.
    pub fn calls(&self, metric: u32) -> Result<Rows<'_, CallRow>> {
        self.rows(sys::CGPROP_ITER_EDGES, metric, 0)
    }
    /// Calls into `node`.
    pub fn callers(&self, node: u32, metric: u32) -> Result<Rows<'_, CallRow>> {
        self.rows(sys::CGPROP_ITER_CALLERS, metric, node)
    }
    /// Calls out of `node`.
    pub fn callees(&self, node: u32, metric: u32) -> Result<Rows<'_, CallRow>> {
        self.rows(sys::CGPROP_ITER_CALLEES, metric, node)
    }
    /// Cycles (after find_cycles; totals after collapse).
    pub fn cycles(&self, metric: u32) -> Result<Rows<'_, CycleRow>> {
        self.rows(sys::CGPROP_ITER_CYCLES, metric, 0)
    }
    /// Members of cycle `cycle`.
    pub fn members(&self, cycle: u32) -> Result<Rows<'_, MemberRow>> {
        self.rows(sys::CGPROP_ITER_MEMBERS, 0, cycle)
    }
    /// Propagated figures per function (after propagate).
    pub fn totals(&self, metric: u32) -> Result<Rows<'_, TotalRow>> {
        self.rows(sys::CGPROP_ITER_TOTALS, metric, 0)
    }
    /// Propagated figures per call (after propagate).
    pub fn call_totals(&self, metric: u32) -> Result<Rows<'_, CallTotalRow>> {
        self.rows(sys::CGPROP_ITER_EDGE_TOTALS, metric, 0)
    }
    /// Split figures per function (after split).
    pub fn splits(&self, metric: u32) -> Result<Rows<'_, SplitRow>> {
        self.rows(sys::CGPROP_ITER_SPLIT, metric, 0)
    }
    /// Split figures per call (after split).
    pub fn call_splits(&self, metric: u32) -> Result<Rows<'_, CallSplitRow>> {
        self.rows(sys::CGPROP_ITER_EDGE_SPLIT, metric, 0)
    }

    /// One row by id: a function id for NodeRow/TotalRow/SplitRow, a call
    /// id for the call rows, a cycle id for CycleRow.
    pub fn get<R: PointRow>(&self, id: u32, metric: u32) -> Result<R> {
        let mut row = R::default();
        self.check(unsafe {
            sys::cgprop_graph_get_row(self.raw(), R::KIND, metric, id, &mut row as *mut R as *mut c_void,
                                      std::mem::size_of::<R>())
        })?;
        Ok(row)
    }

    /// The cycle of `node`, None when it is in none (after find_cycles).
    pub fn node_cycle(&self, node: u32) -> Result<Option<u32>> {
        let mut out = 0u32;
        self.check(unsafe { sys::cgprop_graph_node_cycle(self.raw(), node, &mut out) })?;
        Ok(if out == NONE { None } else { Some(out) })
    }

    /// Add every function, cost and call of `src` to this graph.
    pub fn merge(&mut self, src: &Graph) -> Result<()> {
        self.check(unsafe { sys::cgprop_graph_merge(self.raw(), src.raw()) }).map(|_| ())
    }

    /// Write the graph with the library's writer into `out`. Text, JSON and
    /// DOT need the analyses ([`Graph::analyze`]). `opts` None = defaults.
    pub fn write_to<W: std::io::Write>(&self, format: Format, opts: Option<&WriteOptions>, out: &mut W)
                                       -> Result<()> {
        struct Sink<'a> {
            out: &'a mut dyn std::io::Write,
            failed: Option<std::io::Error>,
            panic: Option<Box<dyn std::any::Any + Send>>,
        }
        unsafe extern "C" fn sink(user: *mut c_void, data: *const c_char, len: usize) -> c_int {
            let s = &mut *(user as *mut Sink<'_>);
            let chunk = std::slice::from_raw_parts(data as *const u8, len);
            // A panic must not unwind through the C writer: catch it, stop
            // the writer, and resume it once back in Rust.
            match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| s.out.write_all(chunk))) {
                Ok(Ok(())) => 0,
                Ok(Err(e)) => {
                    s.failed = Some(e);
                    1
                }
                Err(p) => {
                    s.panic = Some(p);
                    1
                }
            }
        }
        let o = match opts {
            Some(o) => *o,
            None => write_defaults(),
        };
        let mut s = Sink { out, failed: None, panic: None };
        let rc = unsafe {
            sys::cgprop_write(self.raw(), format.raw(), &o, Some(sink), &mut s as *mut Sink<'_> as *mut c_void)
        };
        if let Some(p) = s.panic.take() {
            std::panic::resume_unwind(p);
        }
        if let Some(e) = s.failed.take() {
            return Err(Error::new(sys::CGPROP_EWRITE, format!("write failed: {}", e)));
        }
        self.check(rc).map(|_| ())
    }

    /// The writer's output as a String (see [`Graph::write_to`]).
    pub fn write(&self, format: Format, opts: Option<&WriteOptions>) -> Result<String> {
        let mut v = Vec::new();
        self.write_to(format, opts, &mut v)?;
        Ok(String::from_utf8_lossy(&v).into_owned())
    }

    /// Write into a file (created or truncated) by the library.
    pub fn write_path<P: AsRef<Path>>(&self, format: Format, opts: Option<&WriteOptions>, path: P) -> Result<()> {
        let o = match opts {
            Some(o) => *o,
            None => write_defaults(),
        };
        let p = path_bytes(path.as_ref());
        self.check(unsafe {
            sys::cgprop_write_path(self.raw(), format.raw(), &o, p.as_ptr() as *const c_char, p.len())
        })
        .map(|_| ())
    }

    /// Read a profile held in memory (`name` is used in messages).
    pub fn read_buffer(data: &[u8], name: &str, opts: Option<&ReadOptions>) -> Result<(Graph, ReadInfo)> {
        read(read_info(), |out, info, err| unsafe {
            sys::cgprop_read_buffer(data.as_ptr() as *const c_char, data.len(), name.as_ptr() as *const c_char,
                                    name.len(), opts.map_or(ptr::null(), |o| o as *const _), ptr::null(), out, info,
                                    err)
        })
    }

    /// Read a profile file (callgrind, folded stacks, event trace).
    pub fn read_file<P: AsRef<Path>>(path: P, opts: Option<&ReadOptions>) -> Result<(Graph, ReadInfo)> {
        let p = path_bytes(path.as_ref());
        read(read_info(), |out, info, err| unsafe {
            sys::cgprop_read_file(p.as_ptr() as *const c_char, p.len(), opts.map_or(ptr::null(), |o| o as *const _),
                                  ptr::null(), out, info, err)
        })
    }
}

impl Graph {
    /// Replay an event trace held in memory through a recorder with
    /// options `ropt` (None: no compensation).
    pub fn read_events_buffer(data: &[u8], name: &str, ropt: Option<&RecorderOptions>)
                              -> Result<(Graph, EventsInfo)> {
        read(EventsInfo::default(), |out, info, err| unsafe {
            sys::cgprop_events_read_buffer(data.as_ptr() as *const c_char, data.len(),
                                           name.as_ptr() as *const c_char, name.len(),
                                           ropt.map_or(ptr::null(), |o| o as *const _), ptr::null(), out, info, err)
        })
    }

    /// Replay an event trace file (see [`Graph::read_events_buffer`]).
    pub fn read_events_file<P: AsRef<Path>>(path: P, ropt: Option<&RecorderOptions>) -> Result<(Graph, EventsInfo)> {
        let p = path_bytes(path.as_ref());
        read(EventsInfo::default(), |out, info, err| unsafe {
            sys::cgprop_events_read_file(p.as_ptr() as *const c_char, p.len(),
                                         ropt.map_or(ptr::null(), |o| o as *const _), ptr::null(), out, info, err)
        })
    }
}

/// What replaying an event trace found.
pub type EventsInfo = sys::cgprop_events_info;

fn read_info() -> ReadInfo {
    ReadInfo { format: 0, recursion: 0, separate_recs: 0, flags: 0, parts: 0, lines: 0,
               totals: [0; sys::CGPROP_MAX_METRICS] }
}

#[cfg(unix)]
fn path_bytes(p: &Path) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    p.as_os_str().as_bytes().to_vec()
}

#[cfg(not(unix))]
fn path_bytes(p: &Path) -> Vec<u8> {
    p.to_string_lossy().as_bytes().to_vec()
}

fn read<I, F>(mut info: I, f: F) -> Result<(Graph, I)>
where
    F: FnOnce(*mut *mut sys::cgprop_graph, *mut I, *mut sys::cgprop_read_error) -> c_int,
{
    let mut out = ptr::null_mut();
    let mut err = sys::cgprop_read_error { line: 0, code: 0, reserved: 0, file: [0; 256], reason: [0; 256] };
    let rc = f(&mut out, &mut info, &mut err);
    if rc != sys::CGPROP_OK {
        let file = unsafe { cstr(err.file.as_ptr()) };
        let mut reason = unsafe { cstr(err.reason.as_ptr()) };
        if reason.is_empty() {
            reason = strerror(rc);
        }
        let msg = if err.line > 0 { format!("{}:{}: {}", file, err.line, reason) } else { format!("{}: {}", file, reason) };
        return Err(Error::new(rc, msg));
    }
    Ok((unsafe { Graph::adopt(out) }, info))
}

// ---- recorder -----------------------------------------------------------------

/// Recorder options; `RecorderOptions::default()` (via [`recorder_options`]) is no compensation.
pub type RecorderOptions = sys::cgprop_recorder_options;
/// One recorder figure with its event counts.
pub type Figure = sys::cgprop_recorder_figure;

/// Zeroed recorder options: no compensation.
pub fn recorder_options() -> RecorderOptions {
    RecorderOptions { mode: sys::CGPROP_COMP_OFF, flags: 0, delta_i: [0; sys::CGPROP_MAX_METRICS],
                      delta_e: [0; sys::CGPROP_MAX_METRICS] }
}

/// An event recorder bound to a graph, which it borrows mutably (so it is
/// freed before the graph). Probes call [`Recorder::enter`] / [`Recorder::exit`].
pub struct Recorder<'g> {
    r: NonNull<sys::cgprop_recorder>,
    g: &'g mut Graph,
}

impl<'g> Recorder<'g> {
    /// A recorder writing into `g` at flush; `opts` None = no compensation.
    pub fn new(g: &'g mut Graph, opts: Option<&RecorderOptions>) -> Result<Recorder<'g>> {
        let mut out = ptr::null_mut();
        g.check(unsafe { sys::cgprop_recorder_new(g.raw(), opts.map_or(ptr::null(), |o| o as *const _), &mut out) })?;
        Ok(Recorder { r: unsafe { NonNull::new_unchecked(out) }, g })
    }

    /// The bound graph.
    pub fn graph(&self) -> &Graph {
        self.g
    }

    /// Add (or look up) a function of the bound graph.
    pub fn add_function<K: AsRef<[u8]>>(&mut self, key: K) -> Result<u32> {
        self.g.add_function(key)
    }

    /// An activation of `node` begins at the K `counters`.
    pub fn enter(&mut self, node: u32, counters: &[u64]) -> Result<()> {
        let c = self.g.costs(counters, "enter")?;
        self.g.check(unsafe { sys::cgprop_recorder_enter(self.r.as_ptr(), node, c.as_ptr()) }).map(|_| ())
    }

    /// The innermost activation, of `node`, ends at the K `counters`.
    pub fn exit(&mut self, node: u32, counters: &[u64]) -> Result<()> {
        let c = self.g.costs(counters, "exit")?;
        self.g.check(unsafe { sys::cgprop_recorder_exit(self.r.as_ptr(), node, c.as_ptr()) }).map(|_| ())
    }

    /// Number of open activations.
    pub fn depth(&self) -> usize {
        unsafe { sys::cgprop_recorder_depth(self.r.as_ptr()) }
    }

    /// Write the figures into the graph, closing open activations at `counters`.
    pub fn flush(&mut self, counters: Option<&[u64]>) -> Result<()> {
        let c = match counters {
            Some(c) => self.g.costs(c, "flush")?.as_ptr(),
            None => ptr::null(),
        };
        self.g.check(unsafe { sys::cgprop_recorder_flush(self.r.as_ptr(), c) }).map(|_| ())
    }

    /// One figure (`which` is a `sys::CGPROP_RF_*`); `callee` for call figures.
    pub fn get(&self, which: u32, node: u32, callee: u32, metric: u32) -> Result<Figure> {
        let mut f = Figure::default();
        self.g.check(unsafe {
            sys::cgprop_recorder_get(self.r.as_ptr(), which, node, callee, metric, &mut f, std::mem::size_of::<Figure>())
        })?;
        Ok(f)
    }

    /// On-the-fly clamps since the recorder was created.
    pub fn clamp_count(&self) -> u64 {
        unsafe { sys::cgprop_recorder_clamp_count(self.r.as_ptr()) }
    }

    /// Negative compensated figures that flushes wrote as 0.
    pub fn floor_count(&self) -> u64 {
        unsafe { sys::cgprop_recorder_floor_count(self.r.as_ptr()) }
    }
}

struct ClockState<'a> {
    clock: &'a mut dyn FnMut(&mut [u64]) -> bool,
    k: usize,
    panicked: bool,
}

unsafe extern "C" fn clock_trampoline(user: *mut c_void, out: *mut u64) -> u64 {
    let st = &mut *(user as *mut ClockState);
    let k = st.k;
    let out = std::slice::from_raw_parts_mut(out, k);
    // A panic must not unwind into C: report it as a failed clock.
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (st.clock)(out))) {
        Ok(true) => 0,
        Ok(false) => 1,
        Err(_) => {
            st.panicked = true;
            1
        }
    }
}

/// Estimate (δ_i, δ_e) per metric by timing `iterations` null enter/exit
/// pairs with `clock`, which fills `nmetrics` counter readings and returns
/// true (false aborts: `InvalidArgument`), as TAU's calibration does.
pub fn calibrate<F: FnMut(&mut [u64]) -> bool>(nmetrics: usize, mut clock: F, iterations: u32)
    -> Result<(Vec<f64>, Vec<f64>)> {
    let mut di = vec![0.0; nmetrics.max(1)];
    let mut de = vec![0.0; nmetrics.max(1)];
    let mut st = ClockState { clock: &mut clock, k: nmetrics, panicked: false };
    let rc = unsafe {
        sys::cgprop_recorder_calibrate(nmetrics, Some(clock_trampoline), &mut st as *mut ClockState as *mut c_void,
                                       iterations, ptr::null(), di.as_mut_ptr(), de.as_mut_ptr())
    };
    if st.panicked {
        panic!("cgprop::calibrate: the clock panicked");
    }
    if rc != sys::CGPROP_OK {
        return Err(Error::new(rc, format!("cgprop_recorder_calibrate: {}", strerror(rc))));
    }
    di.truncate(nmetrics);
    de.truncate(nmetrics);
    Ok((di, de))
}

impl<'g> Drop for Recorder<'g> {
    fn drop(&mut self) {
        unsafe { sys::cgprop_recorder_free(self.r.as_ptr()) };
    }
}

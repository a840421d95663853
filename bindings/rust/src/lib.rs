//! Safe Rust binding of libcgprop: correct inclusive costs for call graphs
//! with recursion.
//!
//! [`sys`] holds the raw `extern "C"` declarations, one for one with the C
//! headers; the rest of the crate wraps them: an owned [`Graph`] (freed on
//! drop), iterators over typed rows, and [`Result`]s whose [`Error`]
//! carries the library's own message.
//!
//! Rows are Rust structs, not the C ones: "no cycle" is `None`, flag words
//! are typed sets ([`Flags`], [`Reasons`], [`Inexact`]), and enumerations
//! ([`Estimate`], [`InputFormat`], …) keep an `Unknown(u32)` variant for
//! values a newer library may add.
//!
//! Mutating calls and analyses take `&mut Graph`, reads take `&Graph`, and
//! row iterators borrow the graph, so safe code cannot change a graph under
//! a live iterator. Each row is still a `Result`: an iterator the library
//! stops (an out-of-memory, or a graph changed through [`Graph::as_ptr`])
//! yields that error once and then ends. A `Graph` may move to another
//! thread (`Send`) but not be shared between threads (`!Sync`): the
//! library's read calls update caches inside the graph.
//!
//! Calls outside the library's stability promise (recorder figures,
//! calibration, clamp and floor counts) are in the module `experimental`,
//! built only with the cargo feature `experimental`.
//!
//! ```
//! let mut g = cgprop::Graph::new(&["samples"])?;
//! for s in ["A", "A;C", "A;B", "A;B;A", "A;B;A;C"] {
//!     let frames: Vec<&str> = s.split(';').collect();
//!     g.add_stack_keys(&frames, &[10])?;
//! }
//! g.analyze()?;
//! let b = g.find_function("B")?;
//! // B is on three of the five stacks, 10 each: its inclusive cost is 30.
//! let row: cgprop::SplitRow = g.get(b, 0)?;
//! assert_eq!(row.C_n, 30);
//! for row in g.totals(0)? {
//!     let row = row?;
//!     println!("{} {} ({:?})", g.key(row.id).unwrap(), row.total, row.estimate);
//! }
//! # Ok::<(), cgprop::Error>(())
//! ```
#![deny(missing_docs)]

pub mod sys;

#[cfg(feature = "experimental")]
pub mod experimental;

// The README's example is compiled and run as a doc-test.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

use std::ffi::CStr;
use std::fmt;
use std::marker::PhantomData;
use std::mem::MaybeUninit;
use std::os::raw::{c_char, c_int, c_void};
use std::path::Path;
use std::ptr::{self, NonNull};

// ---- typed flag sets and open enumerations ------------------------------------

/// A set of bits, written by hand in the manner of the `bitflags` crate (the
/// crate takes nothing from a registry). Bits this version does not name are
/// kept, shown in hex by `Debug`.
macro_rules! flag_set {
    ($(#[$m:meta])* $name:ident { $($(#[$fm:meta])* $flag:ident = $val:expr,)* }) => {
        $(#[$m])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
        pub struct $name(u32);

        impl $name {
            $($(#[$fm])* pub const $flag: $name = $name($val);)*
            const NAMES: &'static [(&'static str, u32)] = &[$((stringify!($flag), $val),)*];

            /// No bit set.
            pub const fn empty() -> $name {
                $name(0)
            }
            /// The set from a raw bit word, unknown bits kept.
            pub const fn from_bits_retain(bits: u32) -> $name {
                $name(bits)
            }
            /// The raw bit word.
            pub const fn bits(self) -> u32 {
                self.0
            }
            /// True when every bit of `other` is set.
            pub const fn contains(self, other: $name) -> bool {
                self.0 & other.0 == other.0
            }
            /// True when some bit of `other` is set.
            pub const fn intersects(self, other: $name) -> bool {
                self.0 & other.0 != 0
            }
            /// True when no bit is set.
            pub const fn is_empty(self) -> bool {
                self.0 == 0
            }
        }

        impl std::ops::BitOr for $name {
            type Output = $name;
            fn bitor(self, o: $name) -> $name {
                $name(self.0 | o.0)
            }
        }
        impl std::ops::BitOrAssign for $name {
            fn bitor_assign(&mut self, o: $name) {
                self.0 |= o.0;
            }
        }
        impl std::ops::BitAnd for $name {
            type Output = $name;
            fn bitand(self, o: $name) -> $name {
                $name(self.0 & o.0)
            }
        }
        impl std::ops::Sub for $name {
            type Output = $name;
            fn sub(self, o: $name) -> $name {
                $name(self.0 & !o.0)
            }
        }
        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}(", stringify!($name))?;
                let mut rest = self.0;
                let mut first = true;
                for (n, v) in Self::NAMES {
                    if rest & v != 0 && self.0 & v == *v {
                        write!(f, "{}{}", if first { "" } else { " | " }, n)?;
                        rest &= !v;
                        first = false;
                    }
                }
                if rest != 0 {
                    write!(f, "{}{:#x}", if first { "" } else { " | " }, rest)?;
                }
                write!(f, ")")
            }
        }
    };
}

/// An enumeration of the C API read back from the library, with
/// `Unknown(u32)` for a value this version does not know (a newer library).
macro_rules! open_enum {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $var:ident = $val:expr,)* }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vm])* $var,)*
            /// A value this version of the crate does not know.
            Unknown(u32),
        }

        impl $name {
            /// The variant for a raw value.
            pub fn from_raw(v: u32) -> $name {
                $(if v == $val {
                    return $name::$var;
                })*
                $name::Unknown(v)
            }
            /// The raw value.
            pub fn raw(self) -> u32 {
                match self {
                    $($name::$var => $val,)*
                    $name::Unknown(v) => v,
                }
            }
        }
    };
}

flag_set! {
    /// Row flags (the `flags` fields of rows).
    Flags {
        /// Function is a member of a cycle.
        IN_CYCLE = sys::CGPROP_F_IN_CYCLE,
        /// Function calls itself directly.
        SELF_RECURSIVE = sys::CGPROP_F_SELF_RECURSIVE,
        /// Function has spontaneous entries.
        SPONTANEOUS = sys::CGPROP_F_SPONTANEOUS,
        /// Function is called by no other function.
        NO_CALLERS = sys::CGPROP_F_NO_CALLERS,
        /// Call has a measured cost.
        HAS_COST = sys::CGPROP_F_HAS_COST,
        /// Call is a self-call f→f.
        SELF_CALL = sys::CGPROP_F_SELF_CALL,
        /// Call joins two members of the same cycle.
        INTRA_CYCLE = sys::CGPROP_F_INTRA_CYCLE,
        /// Cycle (or member of one) whose entry had to be assumed.
        ENTRY_ASSUMED = sys::CGPROP_F_ENTRY_ASSUMED,
        /// The gprof figure of a cycle member: not an inclusive cost.
        NOT_INCLUSIVE = sys::CGPROP_F_NOT_INCLUSIVE,
        /// Call got no propagated total.
        NO_TOTAL = sys::CGPROP_F_NO_TOTAL,
        /// Vertex with no external caller and no spontaneous weight.
        ROOT = sys::CGPROP_F_ROOT,
        /// The figure is an estimate, not exact (see [`TotalRow::estimate`]).
        ESTIMATE = sys::CGPROP_F_ESTIMATE,
        /// No proven interval.
        NO_BOUNDS = sys::CGPROP_F_NO_BOUNDS,
        /// The heuristic lay outside the proven interval and was clamped into it.
        CLAMPED = sys::CGPROP_F_CLAMPED,
        /// No walk figure on this row.
        NO_WALK = sys::CGPROP_F_NO_WALK,
    }
}

flag_set! {
    /// Why a total is not exact ([`TotalRow::reason`]).
    Reasons {
        /// The calls into the function and what it spends and calls disagree.
        SIDES_DISAGREE = sys::CGPROP_R_SIDES_DISAGREE,
        /// A measured inclusive side lies below the function's own self cost.
        BELOW_SELF = sys::CGPROP_R_BELOW_SELF,
        /// Member of a recursion cycle the input gives no levels for.
        RECURSION = sys::CGPROP_R_RECURSION,
        /// Member of a cycle nothing calls and nothing enters.
        ENTRY_UNKNOWN = sys::CGPROP_R_ENTRY_UNKNOWN,
        /// Some call the figure rests on has no measured cost: no interval.
        UNMEASURED = sys::CGPROP_R_UNMEASURED,
        /// A sum the interval needs exceeds 64 bits: no interval.
        OVERFLOW = sys::CGPROP_R_OVERFLOW,
        /// Some sampled stacks may have been cut short (they start in a function
        /// that is also called): they may have run under this function too.
        UNROOTED = sys::CGPROP_R_UNROOTED,
    }
}

flag_set! {
    /// Split figures that are not exact (the `inexact` fields): one bit per figure.
    Inexact {
        /// S_n not exact.
        S_N = sys::CGPROP_X_S_N,
        /// S_r not exact.
        S_R = sys::CGPROP_X_S_R,
        /// C_n not exact.
        C_N = sys::CGPROP_X_C_N,
        /// C_r not exact.
        C_R = sys::CGPROP_X_C_R,
        /// D not exact.
        D = sys::CGPROP_X_D,
        /// C_nn not exact.
        C_NN = sys::CGPROP_X_C_NN,
        /// C_nr not exact.
        C_NR = sys::CGPROP_X_C_NR,
        /// C_nd not exact.
        C_ND = sys::CGPROP_X_C_ND,
        /// C_rn not exact.
        C_RN = sys::CGPROP_X_C_RN,
        /// C_rr not exact.
        C_RR = sys::CGPROP_X_C_RR,
        /// C_rd not exact.
        C_RD = sys::CGPROP_X_C_RD,
    }
}

flag_set! {
    /// What a reader noticed ([`ReadInfo::flags`]).
    ReadFlags {
        /// The input stated program totals ([`ReadInfo::totals`]).
        TOTALS = sys::CGPROP_RI_TOTALS,
        /// Callgrind names carried --separate-callers contexts (summed).
        CALLER_CONTEXTS = sys::CGPROP_RI_CALLER_CONTEXTS,
        /// Plain `f->f` calls beside `fn'N` names: added without class.
        PLAIN_SELF_CALLS = sys::CGPROP_RI_PLAIN_SELF_CALLS,
        /// Cycles among plain names beside `fn'N` names: added without class.
        PLAIN_CYCLES = sys::CGPROP_RI_PLAIN_CYCLES,
        /// The input named its default metric (pprof's `default_sample_type`).
        DEFAULT_NAMED = sys::CGPROP_RI_DEFAULT_NAMED,
    }
}

flag_set! {
    /// Writer flags ([`WriteOptions::flags`]).
    WriteFlags {
        /// Text and DOT: gprof2dot's per-root heuristic everywhere, unclamped.
        HEURISTIC_ONLY = sys::CGPROP_W_HEURISTIC_ONLY,
        /// Callgrind: plain names, no `fn'N` recursion classes.
        NO_CLASSES = sys::CGPROP_W_NO_CLASSES,
        /// Callgrind: no name compression.
        NO_COMPRESSION = sys::CGPROP_W_NO_COMPRESSION,
        /// DOT: no pruning.
        NO_PRUNE = sys::CGPROP_W_NO_PRUNE,
        /// Text: the proven interval beside each inexact total.
        BOUNDS = sys::CGPROP_W_BOUNDS,
        /// Text and DOT: names without C++ argument lists and template arguments.
        STRIP = sys::CGPROP_W_STRIP,
        /// DOT: long names wrapped over several lines.
        WRAP = sys::CGPROP_W_WRAP,
        /// Text: the DOT thresholds apply to the text report too.
        PRUNE_TEXT = sys::CGPROP_W_PRUNE_TEXT,
        /// Flame graph: top-down (an icicle graph).
        ICICLE = sys::CGPROP_W_ICICLE,
    }
}

flag_set! {
    /// What DOT boxes and arrows show ([`WriteOptions::label`]).
    Labels {
        /// Total as a percent of the program.
        TOTAL_PCT = sys::CGPROP_LABEL_TOTAL_PCT,
        /// Self cost as a percent.
        SELF_PCT = sys::CGPROP_LABEL_SELF_PCT,
        /// Call counts.
        CALLS = sys::CGPROP_LABEL_CALLS,
        /// Total in the metric's unit.
        TOTAL = sys::CGPROP_LABEL_TOTAL,
        /// Self cost in the metric's unit.
        SELF = sys::CGPROP_LABEL_SELF,
    }
}

open_enum! {
    /// DOT colour maps, gprof2dot's ([`WriteOptions::colormap`]).
    Colormap {
        /// Dark blue to red (default).
        Color = sys::CGPROP_COLORMAP_COLOR,
        /// Pink to red.
        Pink = sys::CGPROP_COLORMAP_PINK,
        /// Light gray to black.
        Gray = sys::CGPROP_COLORMAP_GRAY,
        /// Black; font and pen grow with the total.
        Bw = sys::CGPROP_COLORMAP_BW,
        /// For print: outlines and black text.
        Print = sys::CGPROP_COLORMAP_PRINT,
    }
}

/// The functions a text or DOT view shows ([`Graph::write_view`]): node ids;
/// an empty slice means no such filter (docs/TOOL.md, views).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ViewSets<'a> {
    /// Only what these reach.
    pub roots: &'a [u32],
    /// Only what reaches these.
    pub leaves: &'a [u32],
    /// Only functions on a call path through one of these.
    pub focus: &'a [u32],
    /// Never these (their cost stays in their callers, shown as hidden).
    pub hide: &'a [u32],
}

flag_set! {
    /// Recorder flags ([`RecorderOptions::flags`]).
    RecorderFlags {
        /// On the fly only: floor each activation's compensated costs at 0 (TAU's behaviour).
        CLAMP = sys::CGPROP_REC_CLAMP,
        /// Keep calling contexts in the graph (what a flame graph draws).
        CONTEXTS = sys::CGPROP_REC_CONTEXTS,
    }
}

open_enum! {
    /// What kind of figure a [`TotalRow::total`] is.
    Estimate {
        /// Exact: the interval is a single point.
        Exact = sys::CGPROP_EST_EXACT,
        /// gprof2dot's per-root estimate, clamped into the interval where there is one.
        Heuristic = sys::CGPROP_EST_HEURISTIC,
        /// gprof's propagation by call shares, without measured call costs: no interval.
        Shares = sys::CGPROP_EST_SHARES,
        /// The absorbing walk over the measured call costs.
        Walk = sys::CGPROP_EST_WALK,
        /// The midpoint of the walk and the clamped heuristic.
        Midpoint = sys::CGPROP_EST_MIDPOINT,
        /// The clamped heuristic: the walk on this cycle passed its work budget.
        Budget = sys::CGPROP_EST_BUDGET,
        /// What the stacks show, the interval's lower end: exact but for stacks
        /// that may have been cut short ([`Reason::UNROOTED`]).
        Measured = sys::CGPROP_EST_MEASURED,
    }
}

open_enum! {
    /// Input formats ([`ReadOptions::format`], [`ReadInfo::format`]).
    ///
    /// `Perf` to `Gprof` are readers of the 0.3 series; a library without
    /// one refuses it with [`ErrorKind::InvalidArgument`].
    InputFormat {
        /// Recognise the format by content.
        Auto = sys::CGPROP_INPUT_AUTO,
        /// Callgrind profile (valgrind's, or PHP Xdebug's).
        Callgrind = sys::CGPROP_INPUT_CALLGRIND,
        /// Folded stacks.
        Folded = sys::CGPROP_INPUT_FOLDED,
        /// The recorder's event trace format.
        Events = sys::CGPROP_INPUT_EVENTS,
        /// `perf script` output.
        Perf = 4,
        /// pprof profile.
        Pprof = 5,
        /// V8 CPU profile (`.cpuprofile`), Chrome trace or heap profile (`.heapprofile`).
        V8 = 6,
        /// Python pstats dump.
        Pstats = 7,
        /// gprof call graph.
        Gprof = 8,
    }
}

open_enum! {
    /// How a reader obtained recursion classes ([`ReadInfo::recursion`]).
    Recursion {
        /// No recursion in the input: the split is exact.
        None = sys::CGPROP_RECS_NONE,
        /// Callgrind `fn'N` names gave the classes.
        Names = sys::CGPROP_RECS_NAMES,
        /// Recursion without `fn'N` names: the split is flagged inexact.
        Withheld = sys::CGPROP_RECS_WITHHELD,
        /// Stacks or an event trace: exact classes.
        Stacks = sys::CGPROP_RECS_STACKS,
        /// Folding disabled and the input recursive: no classes.
        Unfolded = sys::CGPROP_RECS_UNFOLDED,
        /// Every function's inclusive cost stated by the input (Python statistics): exact totals.
        Stated = sys::CGPROP_RECS_STATED,
        /// Calls with counts but no measured cost (gprof): estimates without an interval.
        Counts = sys::CGPROP_RECS_COUNTS,
    }
}

open_enum! {
    /// Function key modes of the callgrind reader ([`ReadOptions::key_mode`]).
    KeyMode {
        /// object TAB file TAB name (KCachegrind's identity).
        Full = sys::CGPROP_KEY_FULL,
        /// Bare name: same-named functions of different files merge (gprof2dot).
        Name = sys::CGPROP_KEY_NAME,
    }
}

open_enum! {
    /// How the DOT writer draws cycles ([`WriteOptions::cycles`]).
    DotCycles {
        /// The library's choice, today `Label` (renders with every graphviz).
        Auto = sys::CGPROP_DOT_CYCLES_AUTO,
        /// Each cycle boxed in a cluster (some graphviz versions fail to lay clusters out).
        Cluster = sys::CGPROP_DOT_CYCLES_CLUSTER,
        /// Each member's label ends with a `<cycle N>` line; no clusters.
        Label = sys::CGPROP_DOT_CYCLES_LABEL,
        /// Cycles not shown.
        None = sys::CGPROP_DOT_CYCLES_NONE,
    }
}

open_enum! {
    /// Overhead compensation routes ([`RecorderOptions::mode`]).
    CompMode {
        /// No compensation.
        Off = sys::CGPROP_COMP_OFF,
        /// On the fly at each exit, as TAU does.
        Online = sys::CGPROP_COMP_ONLINE,
        /// From the recorded event counts, when figures are read or flushed.
        Postmortem = sys::CGPROP_COMP_POSTMORTEM,
    }
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
    /// `CGPROP_ESTATE`: call out of order: an analysis has not run, or the
    /// graph changed under an iterator.
    State,
    /// `CGPROP_EOVERFLOW`: a sum would overflow; nothing was added.
    Overflow,
    /// `CGPROP_EFORMAT`: malformed input.
    Format,
    /// `CGPROP_EWRITE`: a writer's output failed.
    Write,
    /// Any other negative status (from a newer library).
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

/// The loaded library's version, e.g. "0.3.0".
pub fn version() -> String {
    unsafe { cstr(sys::cgprop_version_string()) }
}

/// The loaded library's version as one number (MAJOR*10000 + MINOR*100 +
/// PATCH); compare with `sys::CGPROP_VERSION_NUMBER`, the header's.
pub fn version_number() -> u32 {
    unsafe { sys::cgprop_version() }
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

/// A C options or info struct filled by its `_init()`, which sets its size:
/// the library refuses a struct whose size is not set.
fn c_init<T>(init: unsafe extern "C" fn(*mut T)) -> T {
    let mut v = MaybeUninit::<T>::zeroed();
    // The structs hold integers, doubles, arrays and raw pointers only: all
    // zeros is a valid value even before init fills it.
    unsafe {
        init(v.as_mut_ptr());
        v.assume_init()
    }
}

// ---- options ------------------------------------------------------------------

/// Share weights for [`Graph::collapse`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Share {
    /// By cost if any call has a cost, else by count (what [`Graph::analyze`] uses).
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
    /// Flat profile plus a gprof-like call graph (one metric).
    Text,
    /// Every figure of every metric (the tool's JSON).
    Json,
    /// Graphviz picture (one metric).
    Dot,
    /// Callgrind profile of the input costs.
    Callgrind,
    /// SVG flame graph of the calling contexts (one metric); needs a graph
    /// read with [`ReadOptions::contexts`].
    Flamegraph,
}

impl Format {
    fn raw(self) -> u32 {
        match self {
            Format::Text => sys::CGPROP_FORMAT_TEXT,
            Format::Json => sys::CGPROP_FORMAT_JSON,
            Format::Dot => sys::CGPROP_FORMAT_DOT,
            Format::Callgrind => sys::CGPROP_FORMAT_CALLGRIND,
            Format::Flamegraph => sys::CGPROP_FORMAT_FLAMEGRAPH,
        }
    }
}

/// Writer options. `WriteOptions::default()` is the library's defaults
/// (`cgprop_write_options_init`): metric 0, no flags, DOT thresholds 0.5 %
/// and 0.1 %, cycles `DotCycles::Auto`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WriteOptions {
    /// Metric shown by text and DOT.
    pub metric: u32,
    /// Writer flags.
    pub flags: WriteFlags,
    /// DOT: drop functions whose total is below this percent of the program.
    pub node_thres: f64,
    /// DOT: drop calls whose total is below this percent of the program.
    pub edge_thres: f64,
    /// DOT: how cycles are drawn.
    pub cycles: DotCycles,
    /// Calls followed from roots and up from leaves ([`sys::CGPROP_DEPTH_ALL`]: no limit).
    pub depth: u32,
    /// Text and DOT: at most this many functions, the largest totals (0: all).
    pub top: u32,
    /// DOT: what boxes and arrows show.
    pub label: Labels,
    /// DOT: the colour map.
    pub colormap: Colormap,
    /// DOT: colour curve skew (1: linear).
    pub skew: f64,
}

impl Default for WriteOptions {
    fn default() -> WriteOptions {
        let o = c_init(sys::cgprop_write_options_init);
        WriteOptions { metric: o.metric, flags: WriteFlags(o.flags), node_thres: o.node_thres,
                       edge_thres: o.edge_thres, cycles: DotCycles::from_raw(o.cycles), depth: o.depth, top: o.top,
                       label: Labels(o.label), colormap: Colormap::from_raw(o.colormap), skew: o.skew }
    }
}

impl WriteOptions {
    fn to_sys(&self) -> sys::cgprop_write_options {
        let mut o = c_init(sys::cgprop_write_options_init);
        o.metric = self.metric;
        o.flags = self.flags.bits();
        o.node_thres = self.node_thres;
        o.edge_thres = self.edge_thres;
        o.cycles = self.cycles.raw();
        o.depth = self.depth;
        o.top = self.top;
        o.label = self.label.bits();
        o.colormap = self.colormap.raw();
        o.skew = self.skew;
        o
    }
}

/// Reader options. `ReadOptions::default()` is the library's defaults
/// (`cgprop_read_options_init`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadOptions {
    /// The input format; `Auto` recognises it by content.
    pub format: InputFormat,
    /// Callgrind: how functions are keyed.
    pub key_mode: KeyMode,
    /// Callgrind: false keeps `fn'N` names as separate functions (no
    /// recursion classes), as gprof2dot does; true (default) folds them.
    pub fold_recursion: bool,
    /// Callgrind: the `--separate-recs=N` the file was made with; 0
    /// (default) detects it.
    pub separate_recs: u32,
    /// Readers of stacks keep calling contexts ([`Format::Flamegraph`]);
    /// default false.
    pub contexts: bool,
}

impl Default for ReadOptions {
    fn default() -> ReadOptions {
        let o = c_init(sys::cgprop_read_options_init);
        ReadOptions { format: InputFormat::from_raw(o.format), key_mode: KeyMode::from_raw(o.key_mode),
                      fold_recursion: o.no_fold_recursion == 0, separate_recs: o.separate_recs,
                      contexts: o.contexts != 0 }
    }
}

impl ReadOptions {
    fn to_sys(&self) -> sys::cgprop_read_options {
        let mut o = c_init(sys::cgprop_read_options_init);
        o.format = self.format.raw();
        o.key_mode = self.key_mode.raw();
        o.no_fold_recursion = u32::from(!self.fold_recursion);
        o.separate_recs = self.separate_recs;
        o.contexts = u32::from(self.contexts);
        o
    }
}

/// What a reader found, besides the graph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadInfo {
    /// The format actually read.
    pub format: InputFormat,
    /// How recursion classes were obtained.
    pub recursion: Recursion,
    /// The N of `fn'N` names ([`Recursion::Names`]), else 0.
    pub separate_recs: u32,
    /// What the reader noticed.
    pub flags: ReadFlags,
    /// Callgrind parts (dumps, threads) summed into the graph; 0 for other formats.
    pub parts: u64,
    /// Lines read.
    pub lines: u64,
    /// The program totals the input stated, one per metric; None when it
    /// stated none ([`ReadFlags::TOTALS`] unset).
    pub totals: Option<Vec<u64>>,
    /// The metric the input names as the one to show first: for pprof its
    /// default sample type, else its last (as `go tool pprof` shows); 0 for
    /// the other formats.
    pub default_metric: u32,
}

/// What replaying an event trace found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EventsInfo {
    /// Lines read.
    pub lines: u64,
    /// Enter and exit events replayed.
    pub events: u64,
    /// Activations open at the end of the trace, closed at the last readings.
    pub unclosed: u64,
    /// On-the-fly clamps ([`RecorderFlags::CLAMP`]).
    pub clamps: u64,
    /// Negative compensated figures written as 0.
    pub floors: u64,
}

/// Recorder options. `RecorderOptions::default()` is no compensation.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RecorderOptions {
    /// The compensation route.
    pub mode: CompMode,
    /// Recorder flags.
    pub flags: RecorderFlags,
    /// δ_i per metric, in counter units: K values, or empty for 0 everywhere.
    pub delta_i: Vec<u64>,
    /// δ_e per metric, in counter units: K values, or empty for 0 everywhere.
    pub delta_e: Vec<u64>,
}

impl Default for CompMode {
    fn default() -> CompMode {
        CompMode::Off
    }
}

impl RecorderOptions {
    /// Checks the δ lengths against K; K None (an event trace, whose K is
    /// known only once read) pads them to the library's largest K so the
    /// library never reads past them, and the caller checks K afterwards.
    fn to_sys(&self, k: Option<usize>, pad: &mut [Vec<u64>; 2]) -> Result<sys::cgprop_recorder_options> {
        let mut o = c_init(sys::cgprop_recorder_options_init);
        o.mode = self.mode.raw();
        o.flags = self.flags.bits();
        for (i, (d, name)) in [(&self.delta_i, "delta_i"), (&self.delta_e, "delta_e")].into_iter().enumerate() {
            if d.is_empty() {
                continue;
            }
            match k {
                Some(k) if d.len() != k => {
                    return Err(invalid(format!("recorder options: {} has {} values, the graph has {} metrics",
                                               name, d.len(), k)))
                }
                Some(_) => pad[i] = d.clone(),
                None if d.len() > sys::CGPROP_MAX_METRICS => {
                    return Err(invalid(format!("recorder options: {} has {} values, more than {} metrics",
                                               name, d.len(), sys::CGPROP_MAX_METRICS)))
                }
                None => {
                    pad[i] = d.clone();
                    pad[i].resize(sys::CGPROP_MAX_METRICS, 0);
                }
            }
        }
        if !pad[0].is_empty() {
            o.delta_i = pad[0].as_ptr();
        }
        if !pad[1].is_empty() {
            o.delta_e = pad[1].as_ptr();
        }
        Ok(o)
    }

    fn check_k(&self, k: usize) -> Result<()> {
        for (d, name) in [(&self.delta_i, "delta_i"), (&self.delta_e, "delta_e")] {
            if !d.is_empty() && d.len() != k {
                return Err(invalid(format!("recorder options: {} has {} values, the trace has {} metrics",
                                           name, d.len(), k)));
            }
        }
        Ok(())
    }
}

// ---- rows ---------------------------------------------------------------------

fn cycle_id(c: u32) -> Option<u32> {
    if c == sys::CGPROP_NONE {
        None
    } else {
        Some(c)
    }
}

/// A function as built ([`Graph::nodes`]); costs are of the iterator's metric.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NodeRow {
    /// Function id.
    pub id: u32,
    /// SELF_RECURSIVE, SPONTANEOUS, NO_CALLERS (known without analysis).
    pub flags: Flags,
    /// Self cost S (C's `self`).
    pub self_cost: u64,
    /// Spontaneous activations.
    pub spont_count: u64,
    /// Inclusive cost of spontaneous activations.
    pub spont_cost: u64,
    /// Σ counts of calls into it, self-calls included (gprof's "called").
    pub calls_in: u64,
}

/// A call as built ([`Graph::calls`], [`Graph::callers`], [`Graph::callees`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CallRow {
    /// Call id.
    pub id: u32,
    /// Calling function.
    pub caller: u32,
    /// Called function.
    pub callee: u32,
    /// HAS_COST, SELF_CALL.
    pub flags: Flags,
    /// Call count.
    pub count: u64,
    /// Inclusive cost; None when the call has no measured cost.
    pub cost: Option<u64>,
}

/// A cycle ([`Graph::cycles`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CycleRow {
    /// Cycle id (dense, ordered by smallest member id).
    pub id: u32,
    /// Number of member functions.
    pub nmembers: u32,
    /// ENTRY_ASSUMED, ROOT (after collapse); ESTIMATE unless propagate found
    /// `total` exact (the members' self costs plus the measured calls that
    /// leave the cycle).
    pub flags: Flags,
    /// Smallest member id.
    pub first: u32,
    /// Σ members' self costs (C's `self`).
    pub self_cost: u64,
    /// T(Z) from [`Graph::collapse`]; 0 before it.
    pub total: f64,
}

/// A cycle member ([`Graph::members`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemberRow {
    /// Cycle id.
    pub cycle: u32,
    /// Member function id.
    pub node: u32,
}

/// Inclusive figures of a function ([`Graph::totals`]).
///
/// `total` is the best figure there is: the exact inclusive cost where the
/// input determines it ([`Estimate::Exact`]), else an estimate inside the
/// proven interval [`TotalRow::bounds`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TotalRow {
    /// Function id.
    pub id: u32,
    /// IN_CYCLE, SELF_RECURSIVE, ENTRY_ASSUMED, ROOT, ESTIMATE, NO_BOUNDS, CLAMPED, NO_WALK.
    pub flags: Flags,
    /// The function's cycle, None when it is in none.
    pub cycle: Option<u32>,
    /// Why the figure is not exact or has no interval; empty when exact.
    pub reason: Reasons,
    /// Best inclusive figure.
    pub total: f64,
    /// gprof2dot's per-root total, unclamped.
    pub heuristic: f64,
    /// Proven lower bound (0 with NO_BOUNDS; see [`TotalRow::bounds`]).
    pub lo: f64,
    /// Proven upper bound (0 with NO_BOUNDS).
    pub hi: f64,
    /// The absorbing walk's estimate; None with NO_WALK.
    pub walk: Option<f64>,
    /// T(H(f)) of the collapsed DAG: the cycle's total for members.
    pub vertex_total: f64,
    /// gprof figure, self part.
    pub gprof_self: f64,
    /// gprof figure, child part (not inclusive for cycle members).
    pub gprof_child: f64,
    /// Share of the heuristic total that entered spontaneously.
    pub spont_share: f64,
    /// Which kind of figure `total` is.
    pub estimate: Estimate,
}

impl TotalRow {
    /// The proven interval `(lo, hi)` of the inclusive cost; None with NO_BOUNDS.
    pub fn bounds(&self) -> Option<(f64, f64)> {
        if self.flags.contains(Flags::NO_BOUNDS) {
            None
        } else {
            Some((self.lo, self.hi))
        }
    }
}

/// Propagated figures of a call ([`Graph::call_totals`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CallTotalRow {
    /// Call id.
    pub id: u32,
    /// Calling function.
    pub caller: u32,
    /// Called function.
    pub callee: u32,
    /// SELF_CALL, INTRA_CYCLE, NO_TOTAL, ESTIMATE (the total is not exact: a
    /// per-root estimate inside a cycle, or a share that is not the call's
    /// measured cost), CLAMPED.
    pub flags: Flags,
    /// Propagated total, never above the measured cost; None with NO_TOTAL.
    pub total: Option<f64>,
    /// The same before that clamp.
    pub heuristic: f64,
    /// gprof's self part propagated along the call (0 inside a cycle).
    pub gprof_self: f64,
    /// gprof's child part propagated along the call (0 inside a cycle).
    pub gprof_child: f64,
    /// Fraction of the callee (vertex) total given to this call.
    pub share: f64,
}

/// Split figures of a function ([`Graph::splits`]); names as in docs/SPLIT.md.
#[allow(non_snake_case)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SplitRow {
    /// Function id.
    pub id: u32,
    /// Figures that are not exact.
    pub inexact: Inexact,
    /// Self cost in level-0 activations.
    pub S_n: u64,
    /// Self cost in level ≥ 1 activations.
    pub S_r: u64,
    /// Inclusive cost of level-0 activations: the true inclusive cost.
    pub C_n: u64,
    /// Inclusive cost of level-1 activations.
    pub C_r: u64,
    /// Drawing size.
    pub D: f64,
    /// gprof2dot's per-root total (after propagate; else 0).
    pub heuristic: f64,
}

/// Split figures of a call ([`Graph::call_splits`]).
#[allow(non_snake_case)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallSplitRow {
    /// Call id.
    pub id: u32,
    /// Calling function.
    pub caller: u32,
    /// Called function.
    pub callee: u32,
    /// Figures that are not exact.
    pub inexact: Inexact,
    /// Level-0 caller → level-0 callee.
    pub C_nn: u64,
    /// Level-0 caller → level-1 callee.
    pub C_nr: u64,
    /// Level-0 caller → level ≥ 2 callee.
    pub C_nd: u64,
    /// Level ≥ 1 caller → level-0 callee.
    pub C_rn: u64,
    /// Level ≥ 1 caller → level-1 callee.
    pub C_rr: u64,
    /// Level ≥ 1 caller → level ≥ 2 callee.
    pub C_rd: u64,
}

mod sealed {
    pub trait Sealed {}
}

/// A row type: the Rust form of one of the C row structs.
pub trait Row: sealed::Sealed + Sized {
    /// The `#[repr(C)]` struct the library fills.
    type Raw: Copy + Default;
    /// Converts the library's row.
    fn from_raw(r: &Self::Raw) -> Self;
}

/// A row type with a point look-up ([`Graph::get`]).
pub trait PointRow: Row {
    /// The iterator kind whose rows this type holds.
    const KIND: u32;
}

macro_rules! row {
    ($t:ty, $raw:ty, $kind:expr, |$r:ident| $body:expr) => {
        impl sealed::Sealed for $t {}
        impl Row for $t {
            type Raw = $raw;
            fn from_raw($r: &$raw) -> $t {
                $body
            }
        }
        impl PointRow for $t {
            const KIND: u32 = $kind;
        }
    };
}

row!(NodeRow, sys::cgprop_node_row, sys::CGPROP_ITER_NODES, |r| NodeRow {
    id: r.id, flags: Flags(r.flags), self_cost: r.self_, spont_count: r.spont_count, spont_cost: r.spont_cost,
    calls_in: r.calls_in,
});
row!(CallRow, sys::cgprop_edge_row, sys::CGPROP_ITER_EDGES, |r| CallRow {
    id: r.id, caller: r.caller, callee: r.callee, flags: Flags(r.flags), count: r.count,
    cost: if r.flags & sys::CGPROP_F_HAS_COST != 0 { Some(r.cost) } else { None },
});
row!(CycleRow, sys::cgprop_cycle_row, sys::CGPROP_ITER_CYCLES, |r| CycleRow {
    id: r.id, nmembers: r.nmembers, flags: Flags(r.flags), first: r.first, self_cost: r.self_, total: r.total,
});
row!(TotalRow, sys::cgprop_total_row, sys::CGPROP_ITER_TOTALS, |r| TotalRow {
    id: r.id, flags: Flags(r.flags), cycle: cycle_id(r.cycle), reason: Reasons(r.reason), total: r.total,
    heuristic: r.heuristic, lo: r.lo, hi: r.hi,
    walk: if r.flags & sys::CGPROP_F_NO_WALK != 0 { None } else { Some(r.walk) },
    vertex_total: r.vertex_total, gprof_self: r.gprof_self, gprof_child: r.gprof_child, spont_share: r.spont_share,
    estimate: Estimate::from_raw(r.estimate),
});
row!(CallTotalRow, sys::cgprop_edge_total_row, sys::CGPROP_ITER_EDGE_TOTALS, |r| CallTotalRow {
    id: r.id, caller: r.caller, callee: r.callee, flags: Flags(r.flags),
    total: if r.flags & sys::CGPROP_F_NO_TOTAL != 0 { None } else { Some(r.total) },
    heuristic: r.heuristic, gprof_self: r.gprof_self, gprof_child: r.gprof_child, share: r.share,
});
row!(SplitRow, sys::cgprop_split_row, sys::CGPROP_ITER_SPLIT, |r| SplitRow {
    id: r.id, inexact: Inexact(r.inexact), S_n: r.S_n, S_r: r.S_r, C_n: r.C_n, C_r: r.C_r, D: r.D,
    heuristic: r.heuristic,
});
row!(CallSplitRow, sys::cgprop_edge_split_row, sys::CGPROP_ITER_EDGE_SPLIT, |r| CallSplitRow {
    id: r.id, caller: r.caller, callee: r.callee, inexact: Inexact(r.inexact), C_nn: r.C_nn, C_nr: r.C_nr,
    C_nd: r.C_nd, C_rn: r.C_rn, C_rr: r.C_rr, C_rd: r.C_rd,
});

impl sealed::Sealed for MemberRow {}
impl Row for MemberRow {
    type Raw = sys::cgprop_member_row;
    fn from_raw(r: &sys::cgprop_member_row) -> MemberRow {
        MemberRow { cycle: r.cycle, node: r.node }
    }
}

/// Rows fetched per FFI call.
const CHUNK: usize = 1024;

/// Iterator over the rows of one C iterator, borrowing the graph.
///
/// Rows are copied in chunks of up to 1024 with `cgprop_iter_copy_rows`.
/// When the library stops the iterator (`CGPROP_ESTATE` after the graph
/// changed through [`Graph::as_ptr`], `CGPROP_ENOMEM`, …) the next item is
/// that `Err`, and the iteration then ends. Collect into
/// `Result<Vec<_>>` to stop at the first error.
pub struct Rows<'g, R: Row> {
    g: *mut sys::cgprop_graph,
    it: *mut sys::cgprop_iter,
    buf: Vec<R::Raw>,
    pos: usize,
    filled: usize,
    remaining: usize,
    err: Option<Error>,
    _graph: PhantomData<&'g Graph>,
}

impl<'g, R: Row> Rows<'g, R> {
    /// Rows not yet yielded (all of them before the first `next`), as the
    /// library counted them when the iterator was made.
    pub fn len(&self) -> usize {
        self.remaining
    }

    /// True when no row is left.
    pub fn is_empty(&self) -> bool {
        self.remaining == 0
    }

    fn refill(&mut self) {
        self.pos = 0;
        self.filled = 0;
        if self.it.is_null() {
            return;
        }
        let mut n: usize = 0;
        let rc = unsafe {
            sys::cgprop_iter_copy_rows(self.it, self.buf.as_mut_ptr() as *mut c_void,
                                       std::mem::size_of::<R::Raw>(), self.buf.len(), &mut n)
        };
        if rc < 0 {
            self.err = Some(Error::new(rc, unsafe { cstr(sys::cgprop_graph_errmsg(self.g)) }));
            n = 0;
        }
        if rc != sys::CGPROP_OK || n < self.buf.len() {
            unsafe { sys::cgprop_iter_free(self.it) };
            self.it = ptr::null_mut();
        }
        self.filled = n;
    }
}

impl<'g, R: Row> Iterator for Rows<'g, R> {
    type Item = Result<R>;

    fn next(&mut self) -> Option<Result<R>> {
        if self.pos == self.filled {
            self.refill();
            if self.filled == 0 {
                self.remaining = 0;
                return self.err.take().map(Err);
            }
        }
        let r = R::from_raw(&self.buf[self.pos]);
        self.pos += 1;
        self.remaining = self.remaining.saturating_sub(1);
        Some(Ok(r))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        // An error may end the rows early, and is one item more.
        (0, Some(self.remaining + 1))
    }
}

impl<'g, R: Row> std::iter::FusedIterator for Rows<'g, R> {}

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
            // No graph to ask for a message: the static text must do.
            return Err(Error::new(rc, format!("cgprop_graph_new: {} (metrics {:?})", strerror(rc), metrics)));
        }
        Ok(unsafe { Graph::adopt(out) })
    }

    unsafe fn adopt(p: *mut sys::cgprop_graph) -> Graph {
        let k = sys::cgprop_graph_metric_count(p);
        Graph { ptr: NonNull::new_unchecked(p), k }
    }

    /// The C handle, for calls of [`sys`] this crate does not wrap. It stays
    /// owned by this `Graph`. Changing the graph through it while a
    /// [`Rows`] of it lives makes that iterator yield `ErrorKind::State`.
    pub fn as_ptr(&self) -> *mut sys::cgprop_graph {
        self.ptr.as_ptr()
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

    /// Add many functions at once, as `add_function` on each key in turn
    /// (a key already there, or repeated, gets the id it has), all or
    /// nothing. Returns the ids, one per key.
    pub fn add_functions<K: AsRef<[u8]>>(&mut self, keys: &[K]) -> Result<Vec<u32>> {
        let ptrs: Vec<*const c_char> = keys.iter().map(|k| k.as_ref().as_ptr() as *const c_char).collect();
        let lens: Vec<usize> = keys.iter().map(|k| k.as_ref().len()).collect();
        let mut out = vec![0u32; keys.len()];
        self.check(unsafe {
            sys::cgprop_graph_add_nodes(self.raw(), keys.len(), ptrs.as_ptr(), lens.as_ptr(), out.as_mut_ptr())
        })?;
        Ok(out)
    }

    /// Add many calls at once, as `add_call(callers[i], callees[i],
    /// counts[i], costs[i * K .. i * K + K])` for each i in turn (the same
    /// ids and sums), all or nothing: on an error the graph is as it was.
    /// `costs` holds K values per call, or is None when the input has none.
    /// Returns the call ids, one per call.
    pub fn add_calls(&mut self, callers: &[u32], callees: &[u32], counts: &[u64], costs: Option<&[u64]>)
                     -> Result<Vec<u32>> {
        let n = callers.len();
        if callees.len() != n || counts.len() != n {
            return Err(invalid(format!("add_calls: {} callers, {} callees, {} counts", n, callees.len(), counts.len())));
        }
        let c = match costs {
            Some(c) if c.len() != n * self.k => {
                return Err(invalid(format!("add_calls: {} costs given, {} calls of {} metrics need {}", c.len(), n,
                                           self.k, n * self.k)))
            }
            Some(c) => c.as_ptr(),
            None => ptr::null(),
        };
        let mut out = vec![0u32; n];
        self.check(unsafe {
            sys::cgprop_graph_add_calls(self.raw(), n, callers.as_ptr(), callees.as_ptr(), counts.as_ptr(), c,
                                        out.as_mut_ptr())
        })?;
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

    /// Add every function, cost and call of `src` to this graph.
    pub fn merge(&mut self, src: &Graph) -> Result<()> {
        self.check(unsafe { sys::cgprop_graph_merge(self.raw(), src.raw()) }).map(|_| ())
    }

    /// The common case in one call (`cgprop_graph_analyze`): find cycles,
    /// collapse with [`Share::Auto`], split and propagate, each skipped when
    /// its result is already current. Afterwards every row kind and every
    /// writer format can be used.
    pub fn analyze(&mut self) -> Result<()> {
        self.check(unsafe { sys::cgprop_graph_analyze(self.raw()) }).map(|_| ())
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

    /// Per-function inclusive figures and bounds (after [`Graph::collapse`];
    /// runs the split too when it is not current).
    pub fn propagate(&mut self) -> Result<()> {
        self.check(unsafe { sys::cgprop_graph_propagate(self.raw()) }).map(|_| ())
    }

    /// KCachegrind's recursive / non-recursive split.
    pub fn split(&mut self) -> Result<()> {
        self.check(unsafe { sys::cgprop_graph_split(self.raw()) }).map(|_| ())
    }

    /// The weight, in `metric`, of the stacks that may have been cut short (a
    /// sampling profiler's stacks that start in a function also called
    /// elsewhere): the figures they could change carry [`Reason::UNROOTED`] or
    /// their inexact bits. 0 for inputs without such stacks. Runs the split
    /// when it is not current.
    pub fn unrooted(&mut self, metric: u32) -> Result<u64> {
        let mut w = 0u64;
        self.check(unsafe { sys::cgprop_graph_unrooted(self.raw(), metric, &mut w) })?;
        Ok(w)
    }

    /// What `total` shows for cycle members bounded by measured calls alone
    /// ([`Estimate::Midpoint`], the default, [`Estimate::Walk`] or
    /// [`Estimate::Heuristic`]), and the walk's work budget per member in
    /// front units (0: no limit; `sys::CGPROP_WALK_BUDGET_DEFAULT` by
    /// default). Takes effect at the next [`Graph::propagate`].
    pub fn set_estimate(&mut self, which: Estimate, budget_per_member: f64) -> Result<()> {
        self.check(unsafe { sys::cgprop_graph_set_estimate(self.raw(), which.raw(), budget_per_member) }).map(|_| ())
    }

    fn rows<R: Row>(&self, kind: u32, metric: u32, arg: u32) -> Result<Rows<'_, R>> {
        let mut it = ptr::null_mut();
        self.check(unsafe { sys::cgprop_iter_new(self.raw(), kind, metric, arg, &mut it) })?;
        let count = unsafe { sys::cgprop_iter_count(it) };
        Ok(Rows {
            g: self.raw(),
            it,
            buf: vec![R::Raw::default(); count.clamp(1, CHUNK)],
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
    /// Inclusive figures per function (after propagate).
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
        let mut row = R::Raw::default();
        self.check(unsafe {
            sys::cgprop_graph_get_row(self.raw(), R::KIND, metric, id, &mut row as *mut R::Raw as *mut c_void,
                                      std::mem::size_of::<R::Raw>())
        })?;
        Ok(R::from_raw(&row))
    }

    /// The cycle of `node`, None when it is in none (after find_cycles).
    pub fn node_cycle(&self, node: u32) -> Result<Option<u32>> {
        let mut out = 0u32;
        self.check(unsafe { sys::cgprop_graph_node_cycle(self.raw(), node, &mut out) })?;
        Ok(cycle_id(out))
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
        let o = opts.copied().unwrap_or_default().to_sys();
        let mut s = Sink { out, failed: None, panic: None };
        let rc = unsafe {
            sys::cgprop_write(self.raw(), format.raw(), &o, Some(sink), &mut s as *mut Sink<'_> as *mut c_void)
        };
        if let Some(p) = s.panic.take() {
            std::panic::resume_unwind(p);
        }
        if let Some(e) = s.failed.take() {
            // The library says only that the callback failed; the I/O error says why.
            return Err(Error::new(if rc < 0 { rc } else { sys::CGPROP_EWRITE }, format!("write failed: {}", e)));
        }
        self.check(rc).map(|_| ())
    }

    /// The writer's output for a view limited to `sets` (text and DOT; see
    /// [`ViewSets`]), as a String.
    pub fn write_view(&self, format: Format, opts: Option<&WriteOptions>, sets: &ViewSets<'_>) -> Result<String> {
        let mut o = opts.copied().unwrap_or_default().to_sys();
        o.roots = sets.roots.as_ptr();
        o.nroots = sets.roots.len();
        o.leaves = sets.leaves.as_ptr();
        o.nleaves = sets.leaves.len();
        o.focus = sets.focus.as_ptr();
        o.nfocus = sets.focus.len();
        o.hide = sets.hide.as_ptr();
        o.nhide = sets.hide.len();
        let mut v: Vec<u8> = Vec::new();
        unsafe extern "C" fn sink(user: *mut c_void, data: *const c_char, len: usize) -> c_int {
            let v = &mut *(user as *mut Vec<u8>);
            v.extend_from_slice(std::slice::from_raw_parts(data as *const u8, len));
            0
        }
        self.check(unsafe {
            sys::cgprop_write(self.raw(), format.raw(), &o, Some(sink), &mut v as *mut Vec<u8> as *mut c_void)
        })?;
        Ok(String::from_utf8_lossy(&v).into_owned())
    }

    /// The writer's output as a String (see [`Graph::write_to`]).
    pub fn write(&self, format: Format, opts: Option<&WriteOptions>) -> Result<String> {
        let mut v = Vec::new();
        self.write_to(format, opts, &mut v)?;
        Ok(String::from_utf8_lossy(&v).into_owned())
    }

    /// Write into a file (created or truncated) by the library.
    pub fn write_path<P: AsRef<Path>>(&self, format: Format, opts: Option<&WriteOptions>, path: P) -> Result<()> {
        let o = opts.copied().unwrap_or_default().to_sys();
        let p = path_bytes(path.as_ref());
        self.check(unsafe {
            sys::cgprop_write_path(self.raw(), format.raw(), &o, p.as_ptr() as *const c_char, p.len())
        })
        .map(|_| ())
    }

    /// How each function's figures changed from `base` to this graph
    /// (`cgprop_write_compare()`: functions matched by key; a change is
    /// exact only where both sides' figures are) as text (sorted by the size
    /// of the change), JSON or DOT, into `out`. Both graphs need the
    /// analyses; the metric of `opts` is this graph's, found by name in
    /// `base`.
    pub fn write_compare_to<W: std::io::Write>(&self, base: &Graph, format: Format, opts: Option<&WriteOptions>,
                                               out: &mut W) -> Result<()> {
        struct Sink<'a> {
            out: &'a mut dyn std::io::Write,
            failed: Option<std::io::Error>,
            panic: Option<Box<dyn std::any::Any + Send>>,
        }
        unsafe extern "C" fn sink(user: *mut c_void, data: *const c_char, len: usize) -> c_int {
            let s = &mut *(user as *mut Sink<'_>);
            let chunk = std::slice::from_raw_parts(data as *const u8, len);
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
        let o = opts.copied().unwrap_or_default().to_sys();
        let mut s = Sink { out, failed: None, panic: None };
        let rc = unsafe {
            sys::cgprop_write_compare(base.raw(), self.raw(), format.raw(), &o, Some(sink),
                                      &mut s as *mut Sink<'_> as *mut c_void)
        };
        if let Some(p) = s.panic.take() {
            std::panic::resume_unwind(p);
        }
        if let Some(e) = s.failed.take() {
            return Err(Error::new(if rc < 0 { rc } else { sys::CGPROP_EWRITE }, format!("write failed: {}", e)));
        }
        self.check(rc).map(|_| ())
    }

    /// The comparison's output as a String (see [`Graph::write_compare_to`]).
    pub fn write_compare(&self, base: &Graph, format: Format, opts: Option<&WriteOptions>) -> Result<String> {
        let mut v = Vec::new();
        self.write_compare_to(base, format, opts, &mut v)?;
        Ok(String::from_utf8_lossy(&v).into_owned())
    }

    /// Read a profile held in memory (`name` is used in messages).
    pub fn read_buffer(data: &[u8], name: &str, opts: Option<&ReadOptions>) -> Result<(Graph, ReadInfo)> {
        let o = opts.map(|o| o.to_sys());
        read_profile(|out, info, err| unsafe {
            sys::cgprop_read_buffer(data.as_ptr() as *const c_char, data.len(), name.as_ptr() as *const c_char,
                                    name.len(), o.as_ref().map_or(ptr::null(), |o| o as *const _), ptr::null(),
                                    out, info, err)
        })
    }

    /// Read a profile file (callgrind, folded stacks, event trace, …).
    pub fn read_file<P: AsRef<Path>>(path: P, opts: Option<&ReadOptions>) -> Result<(Graph, ReadInfo)> {
        let p = path_bytes(path.as_ref());
        let o = opts.map(|o| o.to_sys());
        read_profile(|out, info, err| unsafe {
            sys::cgprop_read_file(p.as_ptr() as *const c_char, p.len(),
                                  o.as_ref().map_or(ptr::null(), |o| o as *const _), ptr::null(), out, info, err)
        })
    }

    /// Replay an event trace held in memory through a recorder with
    /// options `ropt` (None: no compensation). Non-empty δ vectors must hold
    /// one value per metric of the trace. Gzipped bytes are inflated first
    /// (one layer).
    pub fn read_events_buffer(data: &[u8], name: &str, ropt: Option<&RecorderOptions>)
                              -> Result<(Graph, EventsInfo)> {
        read_events(ropt, |o, out, info, err| unsafe {
            sys::cgprop_events_read_buffer(data.as_ptr() as *const c_char, data.len(),
                                           name.as_ptr() as *const c_char, name.len(), o, ptr::null(), out, info,
                                           err)
        })
    }

    /// Replay an event trace file (see [`Graph::read_events_buffer`]). A
    /// pipe or a gzipped file is read as it comes, in pieces, not held whole.
    pub fn read_events_file<P: AsRef<Path>>(path: P, ropt: Option<&RecorderOptions>) -> Result<(Graph, EventsInfo)> {
        let p = path_bytes(path.as_ref());
        read_events(ropt, |o, out, info, err| unsafe {
            sys::cgprop_events_read_file(p.as_ptr() as *const c_char, p.len(), o, ptr::null(), out, info, err)
        })
    }
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

/// Runs one reader call and turns a failure into an [`Error`] with the
/// reader's `file:line: reason`.
fn read_call<I, F>(info: &mut I, f: F) -> Result<Graph>
where
    F: FnOnce(*mut *mut sys::cgprop_graph, *mut I, *mut sys::cgprop_read_error) -> c_int,
{
    let mut out = ptr::null_mut();
    let mut err = c_init(sys::cgprop_read_error_init);
    let rc = f(&mut out, info, &mut err);
    if rc != sys::CGPROP_OK {
        let file = unsafe { cstr(err.file.as_ptr()) };
        let mut reason = unsafe { cstr(err.reason.as_ptr()) };
        if reason.is_empty() {
            reason = strerror(rc);
        }
        let msg = if err.line > 0 { format!("{}:{}: {}", file, err.line, reason) } else { format!("{}: {}", file, reason) };
        return Err(Error::new(rc, msg));
    }
    Ok(unsafe { Graph::adopt(out) })
}

fn read_profile<F>(f: F) -> Result<(Graph, ReadInfo)>
where
    F: FnOnce(*mut *mut sys::cgprop_graph, *mut sys::cgprop_read_info, *mut sys::cgprop_read_error) -> c_int,
{
    // The stated totals go into an array of ours: room for the largest K.
    let mut totals = vec![0u64; sys::CGPROP_MAX_METRICS];
    let mut info = c_init(sys::cgprop_read_info_init);
    info.totals = totals.as_mut_ptr();
    info.totals_len = totals.len() as u32;
    let g = read_call(&mut info, f)?;
    let flags = ReadFlags(info.flags);
    totals.truncate((info.nmetrics as usize).min(sys::CGPROP_MAX_METRICS));
    Ok((g, ReadInfo {
        format: InputFormat::from_raw(info.format),
        recursion: Recursion::from_raw(info.recursion),
        separate_recs: info.separate_recs,
        flags,
        parts: info.parts,
        lines: info.lines,
        totals: if flags.contains(ReadFlags::TOTALS) { Some(totals) } else { None },
        default_metric: info.default_metric,
    }))
}

fn read_events<F>(ropt: Option<&RecorderOptions>, f: F) -> Result<(Graph, EventsInfo)>
where
    F: FnOnce(*const sys::cgprop_recorder_options, *mut *mut sys::cgprop_graph, *mut sys::cgprop_events_info,
              *mut sys::cgprop_read_error) -> c_int,
{
    let mut pad = [Vec::new(), Vec::new()];
    let o = match ropt {
        Some(r) => Some(r.to_sys(None, &mut pad)?),
        None => None,
    };
    let mut info = c_init(sys::cgprop_events_info_init);
    let g = read_call(&mut info, |out, i, e| f(o.as_ref().map_or(ptr::null(), |o| o as *const _), out, i, e))?;
    if let Some(r) = ropt {
        // The δ were padded with zeros to be safe to read; a K other than
        // theirs is the caller's mistake all the same.
        r.check_k(g.metric_count())?;
    }
    Ok((g, EventsInfo { lines: info.lines, events: info.events, unclosed: info.unclosed, clamps: info.clamps,
                        floors: info.floors }))
}

// ---- recorder -----------------------------------------------------------------

/// An event recorder bound to a graph, which it borrows mutably (so it is
/// freed before the graph). Probes call [`Recorder::enter`] / [`Recorder::exit`].
pub struct Recorder<'g> {
    r: NonNull<sys::cgprop_recorder>,
    g: &'g mut Graph,
}

impl<'g> Recorder<'g> {
    /// A recorder writing into `g` at flush; `opts` None = no compensation.
    pub fn new(g: &'g mut Graph, opts: Option<&RecorderOptions>) -> Result<Recorder<'g>> {
        let mut pad = [Vec::new(), Vec::new()];
        let o = match opts {
            Some(o) => Some(o.to_sys(Some(g.metric_count()), &mut pad)?),
            None => None,
        };
        let mut out = ptr::null_mut();
        g.check(unsafe {
            sys::cgprop_recorder_new(g.raw(), o.as_ref().map_or(ptr::null(), |o| o as *const _), &mut out)
        })?;
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

    /// Close every open activation at `counters` (None when none is open).
    pub fn unwind(&mut self, counters: Option<&[u64]>) -> Result<()> {
        let c = match counters {
            Some(c) => self.g.costs(c, "unwind")?.as_ptr(),
            None => ptr::null(),
        };
        self.g.check(unsafe { sys::cgprop_recorder_unwind(self.r.as_ptr(), c) }).map(|_| ())
    }

    /// Write the figures into the graph, closing open activations at
    /// `counters` (None when none is open).
    pub fn flush(&mut self, counters: Option<&[u64]>) -> Result<()> {
        let c = match counters {
            Some(c) => self.g.costs(c, "flush")?.as_ptr(),
            None => ptr::null(),
        };
        self.g.check(unsafe { sys::cgprop_recorder_flush(self.r.as_ptr(), c) }).map(|_| ())
    }

    #[cfg(feature = "experimental")]
    fn raw(&self) -> *mut sys::cgprop_recorder {
        self.r.as_ptr()
    }
}

impl<'g> Drop for Recorder<'g> {
    fn drop(&mut self) {
        unsafe { sys::cgprop_recorder_free(self.r.as_ptr()) };
    }
}

//! **Unstable**: the calls of include/cgprop_experimental.h, built only with
//! the cargo feature `experimental`.
//!
//! The library exports and tests them but keeps them outside its stability
//! promise: they may change or go away in any release without a SONAME
//! change, and this module follows them without a major version of the
//! crate. Today: a recorder's raw figures and event counts, overhead
//! calibration, and clamp and floor counts.

use super::{strerror, sys, Error, Graph, Recorder, Result};
use std::os::raw::{c_int, c_void};
use std::ptr;

/// A figure a recorder keeps (the `which` of [`Recorder::figure`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FigureKind {
    /// Self cost of level-0 activations of the function (S_n).
    SelfNonRecursive,
    /// Self cost of level ≥ 1 activations (S_r).
    SelfRecursive,
    /// Inclusive cost of level-0 activations (C_n).
    InclusiveNonRecursive,
    /// Inclusive cost of level-1 activations (C_r).
    InclusiveRecursive,
    /// Inclusive cost of activations entered on an empty stack.
    Spontaneous,
    /// Calls from level-0 callers to level-0 callees (C_nn).
    CallNN,
    /// Calls from level-0 callers to level-1 callees (C_nr).
    CallNR,
    /// Calls from level-0 callers to level ≥ 2 callees (C_nd).
    CallND,
    /// Calls from level ≥ 1 callers to level-0 callees (C_rn).
    CallRN,
    /// Calls from level ≥ 1 callers to level-1 callees (C_rr).
    CallRR,
    /// Calls from level ≥ 1 callers to level ≥ 2 callees (C_rd).
    CallRD,
}

impl FigureKind {
    fn raw(self) -> u32 {
        match self {
            FigureKind::SelfNonRecursive => sys::CGPROP_RF_S_N,
            FigureKind::SelfRecursive => sys::CGPROP_RF_S_R,
            FigureKind::InclusiveNonRecursive => sys::CGPROP_RF_C_N,
            FigureKind::InclusiveRecursive => sys::CGPROP_RF_C_R,
            FigureKind::Spontaneous => sys::CGPROP_RF_SPONT,
            FigureKind::CallNN => sys::CGPROP_RF_C_NN,
            FigureKind::CallNR => sys::CGPROP_RF_C_NR,
            FigureKind::CallND => sys::CGPROP_RF_C_ND,
            FigureKind::CallRN => sys::CGPROP_RF_C_RN,
            FigureKind::CallRR => sys::CGPROP_RF_C_RR,
            FigureKind::CallRD => sys::CGPROP_RF_C_RD,
        }
    }
}

/// One recorder figure with the event counts post-mortem compensation uses.
pub type Figure = sys::cgprop_recorder_figure;

impl<'g> Recorder<'g> {
    /// One figure of metric `metric`; `callee` is the called function for
    /// call figures and is ignored otherwise.
    pub fn figure(&self, which: FigureKind, node: u32, callee: u32, metric: u32) -> Result<Figure> {
        let mut f = Figure::default();
        self.g.check(unsafe {
            sys::cgprop_recorder_get(self.raw(), which.raw(), node, callee, metric, &mut f,
                                     std::mem::size_of::<Figure>())
        })?;
        Ok(f)
    }

    /// On-the-fly clamps since the recorder was created.
    pub fn clamp_count(&self) -> u64 {
        unsafe { sys::cgprop_recorder_clamp_count(self.raw()) }
    }

    /// Negative compensated figures that flushes wrote as 0.
    pub fn floor_count(&self) -> u64 {
        unsafe { sys::cgprop_recorder_floor_count(self.raw()) }
    }
}

impl Graph {
    /// On-the-fly clamps in the figures this graph holds: each recorder
    /// flush adds its own, [`Graph::merge`] the source's.
    pub fn clamp_count(&self) -> u64 {
        unsafe { sys::cgprop_graph_clamp_count(self.as_ptr()) }
    }

    /// Compensated figures in this graph that came out below 0 and were
    /// written as 0: each recorder flush adds its own, [`Graph::merge`] the
    /// source's.
    pub fn floor_count(&self) -> u64 {
        unsafe { sys::cgprop_graph_floor_count(self.as_ptr()) }
    }
}

struct ClockState<'a> {
    clock: &'a mut dyn FnMut(&mut [u64]) -> bool,
    k: usize,
    panic: Option<Box<dyn std::any::Any + Send>>,
}

unsafe extern "C" fn clock_trampoline(user: *mut c_void, out: *mut u64) -> c_int {
    let st = &mut *(user as *mut ClockState);
    let out = std::slice::from_raw_parts_mut(out, st.k);
    // A panic must not unwind into C: stop the calibration, resume it after.
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (st.clock)(out))) {
        Ok(true) => 0,
        Ok(false) => 1,
        Err(p) => {
            st.panic = Some(p);
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
    let mut st = ClockState { clock: &mut clock, k: nmetrics, panic: None };
    let rc = unsafe {
        sys::cgprop_recorder_calibrate(nmetrics, Some(clock_trampoline), &mut st as *mut ClockState as *mut c_void,
                                       iterations, ptr::null(), di.as_mut_ptr(), de.as_mut_ptr())
    };
    if let Some(p) = st.panic.take() {
        std::panic::resume_unwind(p);
    }
    if rc != sys::CGPROP_OK {
        // No graph to ask: the static text is all there is.
        return Err(Error::new(rc, format!("cgprop_recorder_calibrate: {}", strerror(rc))));
    }
    di.truncate(nmetrics);
    de.truncate(nmetrics);
    Ok((di, de))
}

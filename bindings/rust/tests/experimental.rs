//! The experimental calls (cargo feature `experimental`): recorder figures,
//! clamp and floor counts, calibration. Expected figures are worked out by
//! hand in the comments, never copied from the library's output.
#![cfg(feature = "experimental")]

use cgprop::experimental::{calibrate, FigureKind};
use cgprop::{CompMode, ErrorKind, Format, Graph, RecorderFlags, RecorderOptions};

#[test]
fn recorder_figures() {
    // A [0..50]: C [10..20], B [20..50]; B: A' [30..50]; A': C [40..50].
    // C_n(A) is the outer A's 50; C_r(A) the level-1 A's 20, once.
    let mut g = Graph::new(&["t"]).unwrap();
    let mut r = cgprop::Recorder::new(&mut g, None).unwrap();
    let (a, b, c) = (r.add_function("A").unwrap(), r.add_function("B").unwrap(), r.add_function("C").unwrap());
    let ev: [(bool, u32, u64); 10] = [(true, a, 0), (true, c, 10), (false, c, 20), (true, b, 20), (true, a, 30),
                                      (true, c, 40), (false, c, 50), (false, a, 50), (false, b, 50), (false, a, 50)];
    for (enter, f, t) in ev.iter() {
        if *enter {
            r.enter(*f, &[*t]).unwrap();
        } else {
            r.exit(*f, &[*t]).unwrap();
        }
    }
    let cn = r.figure(FigureKind::InclusiveNonRecursive, a, 0, 0).unwrap();
    assert_eq!((cn.count, cn.raw), (1, 50));
    let cr = r.figure(FigureKind::InclusiveRecursive, a, 0, 0).unwrap();
    assert_eq!((cr.count, cr.raw), (1, 20));
    // the call B -> A' goes from a level-0 B to a level-1 A: C_nr(B, A) = 20
    assert_eq!(r.figure(FigureKind::CallNR, b, a, 0).unwrap().raw, 20);
    // no compensation: comp equals raw
    assert_eq!(cn.comp, 50);
}

#[test]
fn clamp_count_reaches_the_graph() {
    // delta_i = 5, on the fly with clamping: A [0..20] calls B [2..4];
    // B 2-5 = -3 is clamped to 0 (one clamp); A 20-5-1*5 = 10.
    let mut g = Graph::new(&["t"]).unwrap();
    let o = RecorderOptions { mode: CompMode::Online, flags: RecorderFlags::CLAMP, delta_i: vec![5],
                              ..Default::default() };
    {
        let mut r = cgprop::Recorder::new(&mut g, Some(&o)).unwrap();
        let (a, b) = (r.add_function("A").unwrap(), r.add_function("B").unwrap());
        r.enter(a, &[0]).unwrap();
        r.enter(b, &[2]).unwrap();
        r.exit(b, &[4]).unwrap();
        r.exit(a, &[20]).unwrap();
        assert_eq!((r.clamp_count(), r.floor_count()), (1, 0));
        assert_eq!(r.graph().clamp_count(), 0);
        r.flush(None).unwrap();
    }
    assert_eq!(g.clamp_count(), 1);
    let mut h = Graph::new(&["t"]).unwrap();
    h.merge(&g).unwrap();
    h.merge(&g).unwrap();
    assert_eq!(h.clamp_count(), 2);
    h.analyze().unwrap();
    let json = h.write(Format::Json, None).unwrap();
    assert!(json.contains("\"clamps\":2,"), "{}", json);
    assert!(json.contains("\"floors\":0}"), "{}", json);
    assert_eq!(h.floor_count(), 0);
}

#[test]
fn floor_count_reaches_the_graph() {
    // delta_i = 5, on the fly without clamping: A [0..20] calls B [2..4];
    // B 2-5 = -3 stays negative in the recorder, and the flush writes B's
    // self and the call A->B as 0: two floors. A 20-5-1*5 = 10, exclusive
    // 10-(-3) = 13.
    let mut g = Graph::new(&["t"]).unwrap();
    let o = RecorderOptions { mode: CompMode::Online, delta_i: vec![5], ..Default::default() };
    {
        let mut r = cgprop::Recorder::new(&mut g, Some(&o)).unwrap();
        let (a, b) = (r.add_function("A").unwrap(), r.add_function("B").unwrap());
        r.enter(a, &[0]).unwrap();
        r.enter(b, &[2]).unwrap();
        r.exit(b, &[4]).unwrap();
        r.exit(a, &[20]).unwrap();
        r.flush(None).unwrap();
        assert_eq!((r.clamp_count(), r.floor_count()), (0, 2));
    }
    assert_eq!((g.clamp_count(), g.floor_count()), (0, 2));
    let mut h = Graph::new(&["t"]).unwrap();
    h.merge(&g).unwrap();
    h.merge(&g).unwrap();
    assert_eq!(h.floor_count(), 4);
    h.analyze().unwrap();
    let json = h.write(Format::Json, None).unwrap();
    assert!(json.contains("\"floors\":4}"), "{}", json);
    assert!(json.contains("\"totals\":[26]"), "{}", json);
}

#[test]
fn calibrate_with_a_simulated_clock() {
    // Every read advances 7 (3 on the second counter): a null pair spans
    // one step (delta_i), the probes around it one more (delta_e).
    let mut t = [0u64, 0];
    let (di, de) = calibrate(2, |out: &mut [u64]| {
        t[0] += 7;
        t[1] += 3;
        out.copy_from_slice(&t);
        true
    }, 100).unwrap();
    assert_eq!((di, de), (vec![7.0, 3.0], vec![7.0, 3.0]));
    let e = calibrate(1, |_: &mut [u64]| false, 100).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
}

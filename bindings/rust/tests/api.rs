//! The safe wrapper against the built library. Expected figures are worked
//! out by hand in the comments, never copied from the library's output.

use cgprop::{flags, CallRow, ErrorKind, Format, Graph, Level, NodeRow, Share, SplitRow, TotalRow};
use std::collections::HashMap;

/// The A/B/C example of docs/SPLIT.md as five samples of weight 10:
/// `A`, `A;C`, `A;B`, `A;B;A`, `A;B;A;C`.
fn notes() -> Graph {
    let mut g = Graph::new(&["samples"]).unwrap();
    for s in ["A", "A;C", "A;B", "A;B;A", "A;B;A;C"] {
        let frames: Vec<&str> = s.split(';').collect();
        g.add_stack_keys(&frames, &[10]).unwrap();
    }
    g
}

fn by_key<R, F: Fn(&R) -> u32>(g: &Graph, rows: impl Iterator<Item = R>, id: F) -> HashMap<String, R> {
    rows.map(|r| (g.key(id(&r)).unwrap(), r)).collect()
}

#[test]
fn notes_example_split() {
    let mut g = notes();
    assert_eq!(g.analyze(Share::Auto).unwrap(), 1); // {A, B}
    let s: HashMap<String, SplitRow> = by_key(&g, g.splits(0).unwrap(), |r| r.id);
    // C_n counts each sample once per stack: A in all five, B in three, C in two
    assert_eq!(s["A"].C_n, 50);
    assert_eq!(s["B"].C_n, 30);
    assert_eq!(s["C"].C_n, 20);
    // A: S_n from sample `A`, S_r from `A;B;A`; C_r = the level-1 A's two samples
    assert_eq!((s["A"].S_n, s["A"].S_r, s["A"].C_r), (10, 10, 20));
    // D(B) = C_n(B) - C_xr(B,A) = 30 - 20; D(C) = 20
    assert_eq!((s["B"].D, s["C"].D), (10.0, 20.0));
    assert!(s.values().all(|r| r.inexact == 0));

    let (a, b, c) = (g.find_function("A").unwrap(), g.find_function("B").unwrap(), g.find_function("C").unwrap());
    let ba = g.get::<cgprop::CallSplitRow>(g.find_call(b, a).unwrap(), 0).unwrap();
    assert_eq!((ba.C_nn, ba.C_nr), (0, 20));
    let ac = g.get::<cgprop::CallSplitRow>(g.find_call(a, c).unwrap(), 0).unwrap();
    assert_eq!((ac.C_nn, ac.C_rn), (10, 10));
}

#[test]
fn two_cycle_propagation() {
    // main -> a (1 call), a -> b (3), b -> a (2), b -> c (1); self costs
    // main 10, a 20, b 30, c 40; shares by count.
    let mut g = Graph::new(&["ns"]).unwrap();
    let mut id = HashMap::new();
    for (k, s) in [("main", 10), ("a", 20), ("b", 30), ("c", 40)] {
        let n = g.add_function(k).unwrap();
        g.add_self(n, &[s]).unwrap();
        id.insert(k, n);
    }
    for (x, y, n) in [("main", "a", 1), ("a", "b", 3), ("b", "a", 2), ("b", "c", 1)] {
        g.add_call(id[x], id[y], n, None).unwrap();
    }
    assert_eq!(g.find_cycles().unwrap(), 1);
    g.collapse(Share::Count).unwrap();
    g.propagate().unwrap();

    // T(c) = 40; T(Z) = 20 + 30 + 40 = 90; T(main) = 10 + 90 = 100
    let cyc: Vec<_> = g.cycles(0).unwrap().collect();
    assert_eq!(cyc.len(), 1);
    assert_eq!((cyc[0].nmembers, cyc[0].self_, cyc[0].total), (2, 50, 90.0));
    let members: Vec<u32> = g.members(0).unwrap().map(|m| m.node).collect();
    assert_eq!(members, vec![id["a"], id["b"]]);

    // entry a (rho 1), DAG a -> b: p(b) = 30 + 40 = 70, p(a) = 20 + 70 = 90
    let t: HashMap<String, TotalRow> = by_key(&g, g.totals(0).unwrap(), |r| r.id);
    assert_eq!(t["main"].total, 100.0);
    assert_eq!(t["a"].total, 90.0);
    assert_eq!(t["b"].total, 70.0);
    assert_eq!(t["c"].total, 40.0);
    assert_eq!(t["b"].vertex_total, 90.0);
    assert_eq!((t["b"].gprof_self, t["b"].gprof_child), (30.0, 40.0));
    assert!(t["a"].flags & flags::IN_CYCLE != 0);
    assert_eq!(g.node_cycle(id["c"]).unwrap(), None);
    assert_eq!(g.node_cycle(id["b"]).unwrap(), Some(0));

    let e: HashMap<(u32, u32), _> = g.call_totals(0).unwrap().map(|r| ((r.caller, r.callee), r)).collect();
    assert_eq!(e[&(id["main"], id["a"])].total, 90.0);
    assert_eq!(e[&(id["a"], id["b"])].total, 70.0);
    assert_eq!(e[&(id["b"], id["c"])].total, 40.0);
    assert!(e[&(id["b"], id["a"])].flags & flags::NO_TOTAL != 0);
}

#[test]
fn building_and_rows() {
    let mut g = Graph::new(&["Ir", "Dr"]).unwrap();
    assert_eq!(g.metrics(), vec!["Ir".to_string(), "Dr".to_string()]);
    assert_eq!(g.find_metric("Dr").unwrap(), 1);
    let m = g.add_function("main").unwrap();
    let f = g.add_function(b"f\0g").unwrap();
    assert_eq!((m, f), (0, 1));
    assert_eq!(g.add_function("main").unwrap(), 0);
    assert_eq!(g.key_bytes(f).unwrap(), b"f\0g".to_vec());
    let e = g.add_call(m, f, 2, Some(&[30, 3])).unwrap();
    assert_eq!(g.add_call(m, f, 1, Some(&[0, 1])).unwrap(), e);
    let rows: Vec<CallRow> = g.calls(1).unwrap().collect();
    assert_eq!(rows, vec![CallRow { id: e, caller: m, callee: f, flags: flags::HAS_COST, count: 3, cost: 4 }]);
    g.add_self(m, &[5, 0]).unwrap();
    let n: NodeRow = g.get(m, 0).unwrap();
    assert_eq!((n.self_, n.flags & flags::NO_CALLERS), (5, flags::NO_CALLERS));
    assert_eq!(g.callees(m, 0).unwrap().count(), 1);
    assert_eq!(g.callers(m, 0).unwrap().len(), 0);
}

#[test]
fn many_rows_in_chunks() {
    // more rows than one bulk copy holds (1024): all come back, in id order
    let mut g = Graph::new(&["x"]).unwrap();
    for i in 0..3000u64 {
        let n = g.add_function(format!("f{}", i)).unwrap();
        g.add_self(n, &[i]).unwrap();
    }
    let rows = g.nodes(0).unwrap();
    assert_eq!(rows.len(), 3000);
    let got: Vec<(u32, u64)> = rows.map(|r| (r.id, r.self_)).collect();
    let want: Vec<(u32, u64)> = (0..3000u32).map(|i| (i, i as u64)).collect();
    assert_eq!(got, want);
}

#[test]
fn errors_carry_the_library_message() {
    let mut g = Graph::new(&["x"]).unwrap();
    let e = g.add_self(7, &[1]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert_eq!(e.code(), -2);
    assert!(e.message().contains('7'), "{}", e);
    assert_eq!(e.message(), g.errmsg());
    let e = g.find_function("nope").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound);
    assert!(e.to_string().contains("nope"));
    assert_eq!(g.add_self(0, &[1, 2]).unwrap_err().kind(), ErrorKind::InvalidArgument);
    let a = g.add_function("a").unwrap();
    g.add_self(a, &[u64::MAX]).unwrap();
    assert_eq!(g.add_self(a, &[1]).unwrap_err().kind(), ErrorKind::Overflow);
    assert_eq!(g.totals(0).err().unwrap().kind(), ErrorKind::State);
    assert_eq!(g.collapse(Share::Auto).unwrap_err().kind(), ErrorKind::State);
    assert_eq!(Graph::new(&[]).unwrap_err().kind(), ErrorKind::InvalidArgument);
}

#[test]
fn class_costs() {
    // f called at level 0 from main with 7, and at level 1 from f with 3:
    // C_nn(main,f) = 7, C_nr(f,f) = 3
    let mut g = Graph::new(&["x"]).unwrap();
    let m = g.add_function("main").unwrap();
    let f = g.add_function("f").unwrap();
    g.add_self_class(f, Level::NonRecursive, &[4]).unwrap();
    g.add_self_class(f, Level::First, &[3]).unwrap();
    g.add_call_class(m, f, Level::NonRecursive, Level::NonRecursive, 1, &[7]).unwrap();
    g.add_call_class(f, f, Level::NonRecursive, Level::First, 1, &[3]).unwrap();
    g.add_spontaneous(m, 1, &[7]).unwrap();
    g.analyze(Share::Auto).unwrap();
    let s: SplitRow = g.get(f, 0).unwrap();
    assert_eq!((s.S_n, s.S_r, s.C_n, s.C_r), (4, 3, 7, 3));
}

#[test]
fn writers_and_readers() {
    let mut g = notes();
    g.analyze(Share::Auto).unwrap();
    let json = g.write(Format::Json, None).unwrap();
    assert!(json.starts_with('{') && json.contains("\"samples\""));
    let cg = g.write(Format::Callgrind, None).unwrap();
    let (mut back, info) = Graph::read_buffer(cg.as_bytes(), "back.callgrind", None).unwrap();
    assert_eq!(info.format, cgprop::sys::CGPROP_INPUT_CALLGRIND);
    back.analyze(Share::Auto).unwrap();
    let c_n: HashMap<String, u64> =
        back.splits(0).unwrap().map(|r| (back.display_name(r.id).unwrap(), r.C_n)).collect();
    let want: HashMap<String, u64> = [("A", 50), ("B", 30), ("C", 20)].iter().map(|(k, v)| (k.to_string(), *v)).collect();
    assert_eq!(c_n, want);
    // totals() gives the best figure: the exact C_n here (B 30), with
    // gprof2dot's estimate (B 10) beside it as the heuristic.
    let t: HashMap<String, cgprop::TotalRow> =
        back.totals(0).unwrap().map(|r| (back.display_name(r.id).unwrap(), r)).collect();
    assert_eq!(t["B"].total, 30.0);
    assert_eq!(t["B"].estimate, cgprop::estimate::EXACT);
    assert_eq!((t["B"].lo, t["B"].hi), (30.0, 30.0));
    assert!((t["B"].heuristic - 10.0).abs() < 1e-9);

    // The same graph without levels (calls added plainly, as a
    // --separate-recs=1 profile holds them): A is still pinned down (50 in,
    // 50 in all), B lies in [10, 30]; the walk from B steps to A, which
    // leaves with chance 50/70: walk(B) = 30 * 5/7 = 150/7; the midpoint
    // with the heuristic's 10 is 110/7, and either model alone on request.
    let mut h = Graph::new(&["w"]).unwrap();
    let (m, a, b, c) = (h.add_function("main").unwrap(), h.add_function("A").unwrap(),
                        h.add_function("B").unwrap(), h.add_function("C").unwrap());
    h.add_self(a, &[20]).unwrap();
    h.add_self(b, &[10]).unwrap();
    h.add_self(c, &[20]).unwrap();
    h.add_call(m, a, 1, Some(&[50])).unwrap();
    h.add_call(a, b, 1, Some(&[30])).unwrap();
    h.add_call(b, a, 1, Some(&[20])).unwrap();
    h.add_call(a, c, 2, Some(&[20])).unwrap();
    h.analyze(Share::Auto).unwrap();
    let rb: cgprop::TotalRow = h.get(b, 0).unwrap();
    assert_eq!(rb.estimate, cgprop::estimate::MIDPOINT);
    assert!((rb.walk - 150.0 / 7.0).abs() < 1e-9);
    assert!((rb.total - 110.0 / 7.0).abs() < 1e-9);
    assert_eq!((rb.lo, rb.hi), (10.0, 30.0));
    h.set_estimate(cgprop::estimate::WALK, 0.0).unwrap();
    h.propagate().unwrap();
    let rb: cgprop::TotalRow = h.get(b, 0).unwrap();
    assert!((rb.total - 150.0 / 7.0).abs() < 1e-9);
    assert!(h.set_estimate(cgprop::estimate::EXACT, 0.0).is_err());

    let e = Graph::read_buffer(b"A 10\nA;B x\n", "bad.folded", None).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Format);
    assert!(e.message().starts_with("bad.folded:2: "), "{}", e);

    // an output error stops the writer and comes back as Write
    struct Full;
    impl std::io::Write for Full {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::new(std::io::ErrorKind::Other, "disk full"))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let e = g.write_to(Format::Text, None, &mut Full).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Write);
    assert!(e.message().contains("disk full"));
}

#[test]
fn recorder_gives_the_notes_figures() {
    // A [0..50]: C [10..20], B [20..50]; B: A' [30..50]; A': C [40..50]
    let mut g = Graph::new(&["t"]).unwrap();
    {
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
        assert_eq!(r.depth(), 0);
        assert_eq!(r.get(cgprop::sys::CGPROP_RF_C_N, a, 0, 0).unwrap().raw, 50);
        r.flush(None).unwrap();
    }
    g.analyze(Share::Auto).unwrap();
    let s: HashMap<String, SplitRow> = by_key(&g, g.splits(0).unwrap(), |r| r.id);
    assert_eq!((s["A"].C_n, s["B"].C_n, s["C"].C_n), (50, 30, 20));
}

#[test]
fn event_trace_replay() {
    // the recorder test's events as a trace: same figures
    let trace = b"# metrics: t\nenter A 0\nenter C 10\nexit C 20\nenter B 20\nenter A 30\nenter C 40\n\
                  exit C 50\nexit A 50\nexit B 50\nexit A 50\n";
    let (mut g, info) = Graph::read_events_buffer(trace, "notes.events", None).unwrap();
    assert_eq!((info.events, info.unclosed), (10, 0));
    g.analyze(Share::Auto).unwrap();
    let s: HashMap<String, SplitRow> = by_key(&g, g.splits(0).unwrap(), |r| r.id);
    assert_eq!((s["A"].C_n, s["B"].C_n, s["C"].C_n), (50, 30, 20));
    let e = Graph::read_events_buffer(b"enter A 5\nexit B 6\n", "bad.events", None).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Format);
    assert!(e.message().starts_with("bad.events:2: "), "{}", e);
}

#[test]
fn clamp_count_reaches_the_graph() {
    // delta_i = 5, on the fly with clamping: A [0..20] calls B [2..4];
    // B 2-5 = -3 is clamped to 0 (one clamp); A 20-5-1*5 = 10.
    let mut g = Graph::new(&["t"]).unwrap();
    let mut o = cgprop::recorder_options();
    o.mode = cgprop::sys::CGPROP_COMP_ONLINE;
    o.flags = cgprop::sys::CGPROP_REC_CLAMP;
    o.delta_i[0] = 5;
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
    h.analyze(Share::Auto).unwrap();
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
    let mut o = cgprop::recorder_options();
    o.mode = cgprop::sys::CGPROP_COMP_ONLINE;
    o.delta_i[0] = 5;
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
    h.analyze(Share::Auto).unwrap();
    let json = h.write(Format::Json, None).unwrap();
    assert!(json.contains("\"floors\":4}"), "{}", json);
    assert!(json.contains("\"totals\":[26]"), "{}", json);
}

#[test]
fn calibrate_with_a_simulated_clock() {
    // Every read advances 7 (3 on the second counter): a null pair spans
    // one step (delta_i), the probes around it one more (delta_e).
    let mut t = [0u64, 0];
    let (di, de) = cgprop::calibrate(2, |out: &mut [u64]| {
        t[0] += 7;
        t[1] += 3;
        out.copy_from_slice(&t);
        true
    }, 100).unwrap();
    assert_eq!((di, de), (vec![7.0, 3.0], vec![7.0, 3.0]));
    let e = cgprop::calibrate(1, |_: &mut [u64]| false, 100).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
}

#[test]
fn row_sizes_match_the_header() {
    // worked out from the header for LP64: see bindings/python/tests/test_layout.py
    use std::mem::size_of;
    assert_eq!(size_of::<NodeRow>(), 40);
    assert_eq!(size_of::<CallRow>(), 32);
    assert_eq!(size_of::<cgprop::CycleRow>(), 32);
    assert_eq!(size_of::<cgprop::MemberRow>(), 8);
    assert_eq!(size_of::<TotalRow>(), 96);
    assert_eq!(size_of::<cgprop::CallTotalRow>(), 56);
    assert_eq!(size_of::<SplitRow>(), 56);
    assert_eq!(size_of::<cgprop::CallSplitRow>(), 64);
    assert_eq!(size_of::<cgprop::ReadInfo>(), 544);
    assert_eq!(size_of::<cgprop::sys::cgprop_read_error>(), 528);
    assert_eq!(size_of::<cgprop::RecorderOptions>(), 1032);
    assert_eq!(size_of::<cgprop::EventsInfo>(), 40);
}

#[test]
fn version_matches() {
    assert_eq!(cgprop::version(), "0.2.0");
    assert_eq!(unsafe { cgprop::sys::cgprop_version() }, cgprop::sys::CGPROP_VERSION_NUMBER);
}

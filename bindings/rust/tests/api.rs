//! The safe wrapper against the built library. Expected figures are worked
//! out by hand in the comments, never copied from the library's output.

use cgprop::{CallRow, Error, ErrorKind, Estimate, Flags, Format, Graph, Level, NodeRow, Share, SplitRow, TotalRow};
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

fn by_key<R, F: Fn(&R) -> u32>(g: &Graph, rows: impl Iterator<Item = cgprop::Result<R>>, id: F)
                               -> HashMap<String, R> {
    rows.map(|r| r.unwrap()).map(|r| (g.key(id(&r)).unwrap(), r)).collect()
}

#[test]
fn notes_example_split() {
    let mut g = notes();
    g.analyze().unwrap();
    assert_eq!(g.cycles(0).unwrap().count(), 1); // {A, B}
    let s: HashMap<String, SplitRow> = by_key(&g, g.splits(0).unwrap(), |r| r.id);
    // C_n counts each sample once per stack: A in all five, B in three, C in two
    assert_eq!(s["A"].C_n, 50);
    assert_eq!(s["B"].C_n, 30);
    assert_eq!(s["C"].C_n, 20);
    // A: S_n from sample `A`, S_r from `A;B;A`; C_r = the level-1 A's two samples
    assert_eq!((s["A"].S_n, s["A"].S_r, s["A"].C_r), (10, 10, 20));
    // D(B) = C_n(B) - C_xr(B,A) = 30 - 20; D(C) = 20
    assert_eq!((s["B"].D, s["C"].D), (10.0, 20.0));
    assert!(s.values().all(|r| r.inexact.is_empty()));

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
    let cyc: Vec<_> = g.cycles(0).unwrap().collect::<cgprop::Result<_>>().unwrap();
    assert_eq!(cyc.len(), 1);
    assert_eq!((cyc[0].nmembers, cyc[0].self_cost, cyc[0].total), (2, 50, 90.0));
    let members: Vec<u32> = g.members(0).unwrap().map(|m| m.unwrap().node).collect();
    assert_eq!(members, vec![id["a"], id["b"]]);

    // entry a (rho 1), DAG a -> b: p(b) = 30 + 40 = 70, p(a) = 20 + 70 = 90
    let t: HashMap<String, TotalRow> = by_key(&g, g.totals(0).unwrap(), |r| r.id);
    assert_eq!(t["main"].total, 100.0);
    assert_eq!(t["a"].total, 90.0);
    assert_eq!(t["b"].total, 70.0);
    assert_eq!(t["c"].total, 40.0);
    assert_eq!(t["b"].vertex_total, 90.0);
    assert_eq!((t["b"].gprof_self, t["b"].gprof_child), (30.0, 40.0));
    assert!(t["a"].flags.contains(Flags::IN_CYCLE));
    // the cycle id is an Option: the one cycle is 0, c is in none
    assert_eq!((t["a"].cycle, t["b"].cycle, t["c"].cycle), (Some(0), Some(0), None));
    assert_eq!(g.node_cycle(id["c"]).unwrap(), None);
    assert_eq!(g.node_cycle(id["b"]).unwrap(), Some(0));
    // no call has a measured cost: where a figure needs one there is no
    // proven interval (docs/BOUNDS.md); a cycle member's figure is then
    // gprof2dot's estimate, main's rests on the share assumption. c calls
    // nothing: its inclusive cost is its self cost, exactly.
    assert!(t["b"].flags.contains(Flags::NO_BOUNDS | Flags::ESTIMATE));
    assert_eq!((t["b"].bounds(), t["main"].bounds()), (None, None));
    assert_eq!(t["b"].estimate, Estimate::Heuristic);
    assert_eq!(t["main"].estimate, Estimate::Shares);
    assert_eq!((t["c"].bounds(), t["c"].estimate), (Some((40.0, 40.0)), Estimate::Exact));
    assert!(t["b"].reason.contains(cgprop::Reasons::UNMEASURED));

    let e: HashMap<(u32, u32), _> =
        g.call_totals(0).unwrap().map(|r| r.unwrap()).map(|r| ((r.caller, r.callee), r)).collect();
    assert_eq!(e[&(id["main"], id["a"])].total, Some(90.0));
    assert_eq!(e[&(id["a"], id["b"])].total, Some(70.0));
    assert_eq!(e[&(id["b"], id["c"])].total, Some(40.0));
    // b -> a closes the cycle: it lies in no DAG and gets no total
    assert!(e[&(id["b"], id["a"])].flags.contains(Flags::NO_TOTAL));
    assert_eq!(e[&(id["b"], id["a"])].total, None);
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
    let rows: Vec<CallRow> = g.calls(1).unwrap().collect::<cgprop::Result<_>>().unwrap();
    // metric 1 (Dr): 3 + 1 calls, 3 + 1 cost
    assert_eq!(rows, vec![CallRow { id: e, caller: m, callee: f, flags: Flags::HAS_COST, count: 3, cost: Some(4) }]);
    // a call added without costs has none, which is not a cost of 0
    let z = g.add_call(f, m, 1, None).unwrap();
    assert_eq!(g.get::<CallRow>(z, 0).unwrap().cost, None);
    g.add_self(m, &[5, 0]).unwrap();
    let n: NodeRow = g.get(f, 0).unwrap();
    assert_eq!((n.self_cost, n.calls_in), (0, 3));
    let n: NodeRow = g.get(m, 0).unwrap();
    assert_eq!(n.self_cost, 5);
    assert_eq!(g.callees(m, 0).unwrap().count(), 1);
    assert_eq!(g.callers(m, 0).unwrap().len(), 1);
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
    let got: Vec<(u32, u64)> = rows.map(|r| r.unwrap()).map(|r| (r.id, r.self_cost)).collect();
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
    // the Error is a std error whose text is the library's message
    let boxed: Box<dyn std::error::Error> = Box::new(g.find_function("nope").unwrap_err());
    assert_eq!(boxed.to_string(), g.errmsg());
}

#[test]
fn a_stopped_iterator_yields_its_error() {
    // Safe code cannot change a graph under its rows; the raw handle can.
    // Three functions, the graph changed before the first row is fetched:
    // the library refuses the stale iterator (ESTATE), and the rows give
    // that error once instead of ending as if there were no rows.
    let mut g = Graph::new(&["x"]).unwrap();
    for k in ["a", "b", "c"] {
        g.add_function(k).unwrap();
    }
    let mut rows = g.nodes(0).unwrap();
    assert_eq!(rows.len(), 3);
    let rc = unsafe { cgprop::sys::cgprop_graph_add_self(g.as_ptr(), 0, [1u64].as_ptr()) };
    assert_eq!(rc, 0);
    let e: Error = rows.next().unwrap().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::State);
    assert_eq!(e.code(), cgprop::sys::CGPROP_ESTATE);
    assert!(!e.message().is_empty());
    assert!(rows.next().is_none());
    assert!(rows.next().is_none());
    drop(rows);
    // collecting into a Result stops at that error
    let rows = g.nodes(0).unwrap();
    unsafe { cgprop::sys::cgprop_graph_add_self(g.as_ptr(), 0, [1u64].as_ptr()) };
    assert_eq!(rows.collect::<cgprop::Result<Vec<_>>>().unwrap_err().kind(), ErrorKind::State);
    // a fresh iterator on the changed graph is fine: a got 1 + 1
    let a: Vec<u64> = g.nodes(0).unwrap().map(|r| r.unwrap().self_cost).collect();
    assert_eq!(a, vec![2, 0, 0]);
}

#[test]
fn typed_sets_and_open_enums() {
    // bits the crate does not name are kept and shown, not dropped
    let f = Flags::from_bits_retain(Flags::IN_CYCLE.bits() | 1 << 30);
    assert!(f.contains(Flags::IN_CYCLE));
    assert!(!f.contains(Flags::ROOT));
    assert_eq!(format!("{:?}", f), "Flags(IN_CYCLE | 0x40000000)");
    assert_eq!(format!("{:?}", Flags::empty()), "Flags()");
    assert_eq!((Flags::ROOT | Flags::CLAMPED).bits(), (1 << 10) | (1 << 13));
    assert_eq!(((Flags::ROOT | Flags::CLAMPED) - Flags::ROOT), Flags::CLAMPED);
    // values a newer library may add come back as Unknown, and round-trip
    assert_eq!(Estimate::from_raw(4), Estimate::Midpoint);
    assert_eq!(Estimate::from_raw(99), Estimate::Unknown(99));
    assert_eq!(Estimate::Unknown(99).raw(), 99);
    assert_eq!(cgprop::InputFormat::from_raw(8), cgprop::InputFormat::Gprof);
    assert_eq!(cgprop::Recursion::from_raw(3), cgprop::Recursion::Stacks);
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
    g.analyze().unwrap();
    let s: SplitRow = g.get(f, 0).unwrap();
    assert_eq!((s.S_n, s.S_r, s.C_n, s.C_r), (4, 3, 7, 3));
}

#[test]
fn flamegraph() {
    // A's frame spans every sample (50), A;B 30 of them.
    let data = b"A 10\nA;C 10\nA;B 10\nA;B;A 10\nA;B;A;C 10\n";
    let o = cgprop::ReadOptions { contexts: true, ..Default::default() };
    let (mut g, _) = Graph::read_buffer(data, "notes.folded", Some(&o)).unwrap();
    let svg = g.write(Format::Flamegraph, None).unwrap();
    assert!(svg.contains("<title>A (50 samples, 100.00%)</title>"));
    assert!(svg.contains("<title>B (30 samples, 60.00%)</title>"));
    let (mut plain, _) = Graph::read_buffer(data, "notes.folded", None).unwrap();
    assert!(plain.write(Format::Flamegraph, None).is_err());
}

#[test]
fn writers_and_readers() {
    let mut g = notes();
    g.analyze().unwrap();
    let json = g.write(Format::Json, None).unwrap();
    assert!(json.starts_with('{') && json.contains("\"samples\""));
    let cg = g.write(Format::Callgrind, None).unwrap();
    let (mut back, info) = Graph::read_buffer(cg.as_bytes(), "back.callgrind", None).unwrap();
    assert_eq!(info.format, cgprop::InputFormat::Callgrind);
    // the writer puts the classes back as fn'N names
    assert_eq!(info.recursion, cgprop::Recursion::Names);
    back.analyze().unwrap();
    let c_n: HashMap<String, u64> =
        back.splits(0).unwrap().map(|r| r.unwrap()).map(|r| (back.display_name(r.id).unwrap(), r.C_n)).collect();
    let want: HashMap<String, u64> = [("A", 50), ("B", 30), ("C", 20)].iter().map(|(k, v)| (k.to_string(), *v)).collect();
    assert_eq!(c_n, want);
    // totals() gives the best figure: the exact C_n here (B 30), with
    // gprof2dot's estimate (B 10) beside it as the heuristic.
    let t: HashMap<String, cgprop::TotalRow> =
        back.totals(0).unwrap().map(|r| r.unwrap()).map(|r| (back.display_name(r.id).unwrap(), r)).collect();
    assert_eq!(t["B"].total, 30.0);
    assert_eq!(t["B"].estimate, Estimate::Exact);
    assert_eq!(t["B"].bounds(), Some((30.0, 30.0)));
    assert!(t["B"].reason.is_empty());
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
    h.analyze().unwrap();
    let rb: cgprop::TotalRow = h.get(b, 0).unwrap();
    assert_eq!(rb.estimate, Estimate::Midpoint);
    assert!((rb.walk.unwrap() - 150.0 / 7.0).abs() < 1e-9);
    assert!((rb.total - 110.0 / 7.0).abs() < 1e-9);
    assert_eq!(rb.bounds(), Some((10.0, 30.0)));
    assert!(rb.reason.contains(cgprop::Reasons::RECURSION));
    h.set_estimate(Estimate::Walk, 0.0).unwrap();
    h.propagate().unwrap();
    let rb: cgprop::TotalRow = h.get(b, 0).unwrap();
    assert!((rb.total - 150.0 / 7.0).abs() < 1e-9);
    assert!(h.set_estimate(Estimate::Exact, 0.0).is_err());

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
    assert_eq!(e.code(), -7);
    assert!(e.message().contains("disk full"));
}

#[test]
fn read_info_carries_the_stated_totals() {
    // The file states totals (1000 and 7) that are not the sum of its costs
    // (5 and 2): the reader hands the stated ones back, one per metric.
    let cg = b"# callgrind format\nevents: Ir Dr\nfn=main\n1 5 2\ntotals: 1000 7\n";
    let (g, info) = Graph::read_buffer(cg, "stated.callgrind", None).unwrap();
    assert_eq!(g.metric_count(), 2);
    assert!(info.flags.contains(cgprop::ReadFlags::TOTALS));
    assert_eq!(info.totals, Some(vec![1000, 7]));
    assert_eq!(info.recursion, cgprop::Recursion::None);
    assert_eq!(info.lines, 5);
    // folded stacks state no totals
    let (_, info) = Graph::read_buffer(b"main;f 5\n", "x.folded", None).unwrap();
    assert_eq!((info.format, info.totals), (cgprop::InputFormat::Folded, None));
    // options go through their _init: forcing a format the input is not
    let o = cgprop::ReadOptions { format: cgprop::InputFormat::Callgrind, ..Default::default() };
    assert_eq!(Graph::read_buffer(b"main;f 5\n", "x.folded", Some(&o)).unwrap_err().kind(), ErrorKind::Format);
}

#[test]
fn option_defaults_are_the_librarys() {
    // the header's documented defaults: metric 0, no flags, 0.5 % and 0.1 %
    let w = cgprop::WriteOptions::default();
    assert_eq!((w.metric, w.flags, w.node_thres, w.edge_thres), (0, cgprop::WriteFlags::empty(), 0.5, 0.1));
    let r = cgprop::ReadOptions::default();
    assert_eq!((r.format, r.key_mode, r.fold_recursion, r.separate_recs),
               (cgprop::InputFormat::Auto, cgprop::KeyMode::Full, true, 0));
    // an unknown writer flag is refused by the library, so the struct reached it
    let mut g = notes();
    g.analyze().unwrap();
    let bad = cgprop::WriteOptions { flags: cgprop::WriteFlags::from_bits_retain(1 << 20), ..w };
    assert_eq!(g.write(Format::Text, Some(&bad)).unwrap_err().kind(), ErrorKind::InvalidArgument);
    // cycles: AUTO by default, each value reaches the DOT writer (A and B are a cycle)
    assert_eq!(w.cycles, cgprop::DotCycles::Auto);
    let cl = cgprop::WriteOptions { cycles: cgprop::DotCycles::Cluster, ..w };
    assert!(g.write(Format::Dot, Some(&cl)).unwrap().contains("subgraph cluster_cycle1"));
    assert!(g.write(Format::Dot, None).unwrap().contains("\\n<cycle 1>"));
    let bad = cgprop::WriteOptions { cycles: cgprop::DotCycles::Unknown(4), ..w };
    assert_eq!(g.write(Format::Dot, Some(&bad)).unwrap_err().kind(), ErrorKind::InvalidArgument);
    // view controls: the header's defaults, and each reaches the writer
    assert_eq!((w.depth, w.top, w.label, w.colormap, w.skew),
               (0xFFFF_FFFF, 0, cgprop::Labels::TOTAL_PCT | cgprop::Labels::SELF_PCT | cgprop::Labels::CALLS,
                cgprop::Colormap::Color, 1.0));
    // Notes example: A 50 (100 %, self 20), B 30, C 20; A's calls into C
    // cost 20, its hidden part once C is hidden.
    let c = (0..3).find(|&i| g.display_name(i).unwrap() == "C").unwrap();
    let all = cgprop::WriteOptions { node_thres: 0.0, edge_thres: 0.0, ..w };
    let d = g.write_view(Format::Dot, Some(&all), &cgprop::ViewSets { hide: &[c], ..Default::default() }).unwrap();
    assert!(d.contains("label=\"A\\n100.00%\\n(40.00%)\\nhidden 40.00%"), "{}", d);
    assert!(!d.contains("label=\"C"));
    let lab = cgprop::WriteOptions { label: cgprop::Labels::TOTAL, colormap: cgprop::Colormap::Gray, ..all };
    let d = g.write(Format::Dot, Some(&lab)).unwrap();
    assert!(d.contains("label=\"C\\n20\""), "{}", d);
    let top = cgprop::WriteOptions { top: 1, ..w };
    assert!(g.write(Format::Text, Some(&top)).unwrap().contains("View: 1 of 3 functions shown"));
    let bad = cgprop::WriteOptions { skew: 0.0, ..w };
    assert_eq!(g.write(Format::Dot, Some(&bad)).unwrap_err().kind(), ErrorKind::InvalidArgument);
    assert_eq!(g.write_view(Format::Dot, None, &cgprop::ViewSets { roots: &[7], ..Default::default() })
                .unwrap_err().kind(), ErrorKind::InvalidArgument);
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
        r.flush(None).unwrap();
    }
    g.analyze().unwrap();
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
    g.analyze().unwrap();
    let s: HashMap<String, SplitRow> = by_key(&g, g.splits(0).unwrap(), |r| r.id);
    assert_eq!((s["A"].C_n, s["B"].C_n, s["C"].C_n), (50, 30, 20));
    let e = Graph::read_events_buffer(b"enter A 5\nexit B 6\n", "bad.events", None).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Format);
    assert!(e.message().starts_with("bad.events:2: "), "{}", e);
}

#[test]
fn recorder_options_reach_the_library() {
    // Post-mortem, delta_i = 1, delta_e = 2: A [0..20] calls B [2..6].
    // B: inclusive 4 - 1 (its own delta_i) = 3, nothing nested.
    // A: inclusive 20 - 1 - 1 nested * (1 + 2) = 16; self 16 - 3 = 13.
    // The option struct went through its _init (size set) with the δ
    // arrays behind its pointers.
    let mut g = Graph::new(&["t"]).unwrap();
    let o = cgprop::RecorderOptions { mode: cgprop::CompMode::Postmortem, delta_i: vec![1], delta_e: vec![2],
                                      ..Default::default() };
    {
        let mut r = cgprop::Recorder::new(&mut g, Some(&o)).unwrap();
        let (a, b) = (r.add_function("A").unwrap(), r.add_function("B").unwrap());
        r.enter(a, &[0]).unwrap();
        r.enter(b, &[2]).unwrap();
        r.exit(b, &[6]).unwrap();
        r.exit(a, &[20]).unwrap();
        r.flush(None).unwrap();
    }
    g.analyze().unwrap();
    let s: HashMap<String, SplitRow> = by_key(&g, g.splits(0).unwrap(), |r| r.id);
    assert_eq!((s["A"].C_n, s["A"].S_n, s["B"].C_n), (16, 13, 3));
    // δ must give one value per metric: 2 values for 1 metric is refused
    // before the library would read past them
    let bad = cgprop::RecorderOptions { delta_e: vec![1, 2], ..Default::default() };
    let e = cgprop::Recorder::new(&mut g, Some(&bad)).err().unwrap();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(e.message().contains("delta_e"), "{}", e);
    // the same trace replayed with the same options: the same figures
    let trace = b"enter A 0\nenter B 2\nexit B 6\nexit A 20\n";
    let (mut h, info) = Graph::read_events_buffer(trace, "ab.events", Some(&o)).unwrap();
    assert_eq!((info.events, info.floors), (4, 0));
    h.analyze().unwrap();
    let s: HashMap<String, SplitRow> = by_key(&h, h.splits(0).unwrap(), |r| r.id);
    assert_eq!((s["A"].C_n, s["A"].S_n, s["B"].C_n), (16, 13, 3));
    let e = Graph::read_events_buffer(trace, "ab.events", Some(&bad)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
}

#[test]
fn row_sizes_match_the_header() {
    // worked out from the header for LP64: see bindings/python/tests/test_layout.py
    use std::mem::size_of;
    use cgprop::sys;
    assert_eq!(size_of::<sys::cgprop_node_row>(), 40);
    assert_eq!(size_of::<sys::cgprop_edge_row>(), 32);
    assert_eq!(size_of::<sys::cgprop_cycle_row>(), 32);
    assert_eq!(size_of::<sys::cgprop_member_row>(), 8);
    assert_eq!(size_of::<sys::cgprop_total_row>(), 96);
    assert_eq!(size_of::<sys::cgprop_edge_total_row>(), 56);
    assert_eq!(size_of::<sys::cgprop_split_row>(), 56);
    assert_eq!(size_of::<sys::cgprop_edge_split_row>(), 64);
    // the 0.3 option and info structs: 6 u32, 2 u64, a pointer, 4 u32
    // (default_metric and reserved2 appended)
    assert_eq!(size_of::<sys::cgprop_read_info>(), 64);
    // size, code, line, two 256-byte strings
    assert_eq!(size_of::<sys::cgprop_read_error>(), 528);
    // 5 u32
    assert_eq!(size_of::<sys::cgprop_read_options>(), 24);
    // 4 u32, two pointers
    assert_eq!(size_of::<sys::cgprop_recorder_options>(), 32);
    // 2 u32, 5 u64
    assert_eq!(size_of::<sys::cgprop_events_info>(), 48);
    // 3 u32 padded to 16, 2 doubles, 1 u32 padded to 8, 4 (pointer, size)
    // pairs, 4 u32, 1 double: 40 + 64 + 16 + 8
    assert_eq!(size_of::<sys::cgprop_write_options>(), 128);
}

#[test]
fn version_matches() {
    assert_eq!(cgprop::version(), "0.3.0");
    assert_eq!(cgprop::version_number(), 300);
    assert_eq!(cgprop::version_number(), cgprop::sys::CGPROP_VERSION_NUMBER);
}

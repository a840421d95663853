//! The readers of every profiler's format through the crate, against the
//! producers' own figures for the committed recordings under tests/data
//! (perf report, go tool pprof, Python's pstats module, gprof).

use cgprop::{Estimate, Graph, InputFormat, NodeRow, ReadOptions, Reasons, TotalRow};
use std::path::PathBuf;

fn data(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data").join(rel)
}

fn read(rel: &str, format: InputFormat) -> Graph {
    let opts = ReadOptions { format, ..Default::default() };
    let (mut g, _) = Graph::read_file(data(rel), Some(&opts)).unwrap();
    g.analyze().unwrap();
    g
}

/// The function whose display name (or, failing that, key suffix) is `name`.
fn func(g: &Graph, name: &str) -> u32 {
    let hits: Vec<u32> = (0..g.function_count() as u32)
        .filter(|&f| g.display_name(f).as_deref() == Some(name) || g.key(f).map_or(false, |k| k.ends_with(name)))
        .collect();
    assert_eq!(hits.len(), 1, "{}: {:?}", name, hits);
    hits[0]
}

#[test]
fn perf_script_matches_perf_report() {
    // perf report --children --sort symbol (tests/data/perf/recur.report),
    // event cpu-clock: fib 63.57 % children and self, walk 54.26 % / 3.10 %.
    let g = read("perf/recur.perf", InputFormat::Perf);
    let k = g.find_metric("cpu-clock").unwrap();
    let n: u64 = g.nodes(k).unwrap().map(|r| r.unwrap().self_cost).sum();
    for (name, children, own) in [("fib", 63.57, 63.57), ("walk", 54.26, 3.10)] {
        let f = func(&g, name);
        let t: TotalRow = g.get(f, k).unwrap();
        let s: NodeRow = g.get(f, k).unwrap();
        assert!((100.0 * t.total / n as f64 - children).abs() < 0.005, "{} children", name);
        assert!((100.0 * s.self_cost as f64 / n as f64 - own).abs() < 0.005, "{} self", name);
        assert_eq!(t.estimate, Estimate::Exact);
    }
}

#[test]
fn pprof_matches_go_tool_pprof() {
    // A library built without zlib (the build sets CGPROP_TEST_NO_ZLIB)
    // refuses the gzipped recording, and says why.
    if std::env::var("CGPROP_TEST_NO_ZLIB").as_deref() == Ok("1") {
        let e = Graph::read_file(data("pprof/recur.pb.gz"), None).err().expect("gzip input read without zlib");
        assert!(e.message().contains("built without zlib"), "{}", e.message());
        return;
    }
    // go tool pprof -top -cum: main.spin flat 59 cum 200, main.walk cum 86.
    let g = read("pprof/recur.pb.gz", InputFormat::Auto);
    let k = g.find_metric("samples_count").unwrap();
    let spin = func(&g, "main.spin");
    let s: NodeRow = g.get(spin, k).unwrap();
    assert_eq!(s.self_cost, 59);
    let t: TotalRow = g.get(spin, k).unwrap();
    assert_eq!(t.total, 200.0);
    let t: TotalRow = g.get(func(&g, "main.walk"), k).unwrap();
    assert_eq!(t.total, 86.0);
    // The metric go tool pprof shows first: cpu, the last sample type.
    let (g, info) = Graph::read_file(data("pprof/recur.pb.gz"), None).unwrap();
    assert_eq!(info.default_metric, g.find_metric("cpu_nanoseconds").unwrap());
}

#[test]
fn pprof_stacks_cut_short() {
    if std::env::var("CGPROP_TEST_NO_ZLIB").as_deref() == Ok("1") {
        return;
    }
    // tests/data/pprof/deep.pb.gz: Go's profiler cut the 29 samples of a
    // 100-deep recursion at 64 frames (deep.traces.txt: 290 ms of 580 start
    // in main.deep); go tool pprof shows main.main at 50 % (deep.top.txt),
    // where every sample ran under it.
    let mut g = read("pprof/deep.pb.gz", InputFormat::Auto);
    let k = g.find_metric("samples_count").unwrap();
    assert_eq!(g.unrooted(k).unwrap(), 29);
    let t: TotalRow = g.get(func(&g, "main.main"), k).unwrap();
    assert_eq!((t.lo, t.hi, t.total), (29.0, 58.0, 29.0));
    assert_eq!(t.estimate, Estimate::Measured);
    assert!(t.reason.contains(Reasons::UNROOTED));
    let t: TotalRow = g.get(func(&g, "main.spin"), k).unwrap();
    assert_eq!((t.total, t.estimate), (58.0, Estimate::Exact));
    let mut r = read("pprof/recur.pb.gz", InputFormat::Auto);
    assert_eq!(r.unrooted(0).unwrap(), 0);
}

#[test]
fn pstats_matches_pythons_own_figures() {
    // pstats (tests/data/pstats/recur.expected): json.dumps tottime 17355 ns,
    // cumtime 386037 ns, exact.
    let g = read("pstats/recur.pstats", InputFormat::Pstats);
    let f = func(&g, "json/__init__.py:183\tdumps");
    let s: NodeRow = g.get(f, 0).unwrap();
    let t: TotalRow = g.get(f, 0).unwrap();
    assert_eq!(s.self_cost, 17355);
    assert_eq!(t.total, 386037.0);
    assert_eq!(t.estimate, Estimate::Exact);
}

#[test]
fn gprof_self_times() {
    // gprof's call graph (tests/data/gprof/cycles.gprof): pong 0.29 s self.
    let g = read("gprof/cycles.gprof", InputFormat::Gprof);
    let s: NodeRow = g.get(func(&g, "pong"), 0).unwrap();
    assert_eq!(s.self_cost, 29);
}

#[test]
fn gzipped_event_trace_replays_as_the_trace() {
    // tests/data/events/abc.events.gz is abc.events gzipped: the recorder's
    // entry point inflates it as every reader does, and the replay with
    // compensation (delta_i 1, delta_e 2, the trace's own probe costs) gives
    // the same figures. A library without zlib refuses it, and says why.
    let o = cgprop::RecorderOptions {
        mode: cgprop::CompMode::Online,
        delta_i: vec![1],
        delta_e: vec![2],
        ..Default::default()
    };
    if std::env::var("CGPROP_TEST_NO_ZLIB").as_deref() == Ok("1") {
        let e = Graph::read_events_file(data("events/abc.events.gz"), Some(&o)).err().expect("gzip read without zlib");
        assert!(e.message().contains("built without zlib"), "{}", e.message());
        return;
    }
    let (mut g, gi) = Graph::read_events_file(data("events/abc.events.gz"), Some(&o)).unwrap();
    let (mut w, wi) = Graph::read_events_file(data("events/abc.events"), Some(&o)).unwrap();
    assert_eq!((gi.events, gi.lines), (wi.events, wi.lines));
    assert!(gi.events > 0);
    g.analyze().unwrap();
    w.analyze().unwrap();
    for name in ["A", "B", "C"] {
        let (f, h) = (func(&g, name), func(&w, name));
        let (a, b): (TotalRow, TotalRow) = (g.get(f, 0).unwrap(), w.get(h, 0).unwrap());
        assert_eq!(a.total, b.total, "{}", name);
        let (a, b): (NodeRow, NodeRow) = (g.get(f, 0).unwrap(), w.get(h, 0).unwrap());
        assert_eq!(a.self_cost, b.self_cost, "{}", name);
    }
}

//! The A/B/C example of docs/SPLIT.md through the safe wrapper:
//! `cargo run --offline --example notes` (the library found as in docs/RUST.md).
use cgprop::{Estimate, Format, Graph, SplitRow};

fn main() -> cgprop::Result<()> {
    // Sampled stacks: A calls B and C, B calls A again.
    let mut g = Graph::new(&["samples"])?;
    for stack in ["A", "A;C", "A;B", "A;B;A", "A;B;A;C"] {
        let frames: Vec<&str> = stack.split(';').collect();
        g.add_stack_keys(&frames, &[10])?;
    }
    g.analyze()?; // find cycles, collapse, split, propagate

    // True inclusive cost C_n (once per stack) beside gprof2dot's estimate.
    // Each row is a Result: an iterator the library stops yields its error.
    for row in g.splits(0)? {
        let row = row?;
        println!("{:<3} C_n={:>3}  heuristic={:>5.1}", g.key(row.id).unwrap(), row.C_n, row.heuristic);
    }
    let b = g.find_function("B")?;
    let split: SplitRow = g.get(b, 0)?;
    assert_eq!(split.C_n, 30);

    // The best figure per function, exact here: the stacks give the levels.
    for row in g.totals(0)? {
        let row = row?;
        assert_eq!(row.estimate, Estimate::Exact);
        println!("{:<3} total={:>4}  cycle={:?}  flags={:?}", g.key(row.id).unwrap(), row.total, row.cycle,
                 row.flags);
    }

    // Errors carry the library's message.
    match g.add_self(99, &[1]) {
        Err(e) => println!("error ({:?}): {}", e.kind(), e),
        Ok(()) => unreachable!(),
    }

    // Any writer: text, JSON (the tool's), DOT, callgrind; Format::Flamegraph
    // for stacks read with ReadOptions { contexts: true, .. }.
    let text = g.write(Format::Text, None)?;
    println!("{}", text.lines().next().unwrap_or(""));

    // Profiles from memory or files (callgrind, folded stacks, event traces).
    let (mut p, info) = Graph::read_buffer(b"main;f 5\nmain 1\n", "example.folded", None)?;
    p.analyze()?;
    println!("{} functions read as {:?}", p.function_count(), info.format);
    Ok(())
}

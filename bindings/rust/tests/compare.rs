//! `Graph::write_compare` on two folded profiles worked out by hand (the
//! pair of tests/check_compare.c):
//! base: main 10 / main;a 20 / main;a;a 10 / main;b 30 / main;old 30 (program 100)
//! new:  main 10 / main;a 20 / main;a;a 40 / main;b 10 / main;nw 120 (program 200)
//! a: 30 -> 60 (+30, 0 points); b: 30 -> 10 (-20, -25 points); old removed;
//! nw added (+120, +60 points).
use cgprop::{Format, Graph};

fn load(text: &str) -> Graph {
    let (mut g, _) = Graph::read_buffer(text.as_bytes(), "x.folded", None).unwrap();
    g.analyze().unwrap();
    g
}

#[test]
fn compare_text_and_json() {
    let base = load("main 10\nmain;a 20\nmain;a;a 10\nmain;b 30\nmain;old 30\n");
    let new = load("main 10\nmain;a 20\nmain;a;a 40\nmain;b 10\nmain;nw 120\n");
    let t = new.write_compare(&base, Format::Text, None).unwrap();
    assert!(t.contains("Program total: base 100, new 200, change +100 (+100.00% of base)"), "{}", t);
    assert!(t.contains("Functions: 4 in base, 4 in new; 1 added, 1 removed, 3 changed"), "{}", t);
    let row = t.lines().find(|l| l.ends_with("  b")).unwrap();
    let f: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(&f[..8], &["-20", "-25.00", "30", "30.00%", "10", "5.00%", "-20", "-25.00"]);
    let j = new.write_compare(&base, Format::Json, None).unwrap();
    assert!(j.contains("{\"key\": \"old\", \"name\": \"old\", \"status\": \"removed\""), "{}", j);
    assert!(new.write_compare(&base, Format::Callgrind, None).is_err());
}

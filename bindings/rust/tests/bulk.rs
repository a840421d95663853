//! add_functions / add_calls against the same data added one at a time,
//! and a brute-force sum of every count given for a pair.

use cgprop::{ErrorKind, Graph};
use std::collections::HashMap;

/// A small deterministic generator (splitmix64).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

#[test]
fn bulk_matches_single_calls() {
    for seed in 0..8u64 {
        let mut r = Rng(seed);
        let keys: Vec<String> = (0..12).map(|i| format!("f{}", i)).collect();
        let mut bulk = Graph::new(&["Ir", "Dr"]).unwrap();
        let mut one = Graph::new(&["Ir", "Dr"]).unwrap();
        let mut with_repeat = keys.clone();
        with_repeat.push("f3".to_string());
        let want_ids: Vec<u32> = (0..12).chain(std::iter::once(3)).collect();
        assert_eq!(bulk.add_functions(&with_repeat).unwrap(), want_ids);
        for k in &keys {
            one.add_function(k).unwrap();
        }
        // Callers' calls together, callers coming round again.
        let (mut a, mut b, mut n, mut c) = (vec![], vec![], vec![], vec![]);
        while a.len() < 150 {
            let caller = (r.next() % 12) as u32;
            for _ in 0..1 + r.next() % 5 {
                a.push(caller);
                b.push((r.next() % 12) as u32);
                n.push(r.next() % 4);
                c.push(r.next() % 100);
                c.push(r.next() % 3);
            }
        }
        let costs = if seed == 3 { None } else { Some(&c[..]) };
        let ids = bulk.add_calls(&a, &b, &n, costs).unwrap();
        for i in 0..a.len() {
            let ci = costs.map(|c| &c[2 * i..2 * i + 2]);
            assert_eq!(ids[i], one.add_call(a[i], b[i], n[i], ci).unwrap());
        }
        let rows = |g: &Graph| g.calls(0).unwrap().map(|r| r.unwrap()).collect::<Vec<_>>();
        assert_eq!(rows(&bulk), rows(&one));
        let nodes = |g: &Graph| g.nodes(0).unwrap().map(|r| r.unwrap()).collect::<Vec<_>>();
        assert_eq!(nodes(&bulk), nodes(&one));
        let mut sums: HashMap<(u32, u32), u64> = HashMap::new();
        for i in 0..a.len() {
            *sums.entry((a[i], b[i])).or_insert(0) += n[i];
        }
        let got: HashMap<(u32, u32), u64> = rows(&bulk).iter().map(|r| ((r.caller, r.callee), r.count)).collect();
        assert_eq!(got, sums);
    }
}

#[test]
fn bulk_is_all_or_nothing() {
    let mut g = Graph::new(&["Ir"]).unwrap();
    g.add_functions(&["a", "b", "c"]).unwrap();
    g.add_call(0, 1, u64::MAX - 1, Some(&[1])).unwrap();
    let gen = g.generation();
    // The third call overflows a->b's count: nothing of the batch stays.
    let e = g.add_calls(&[2, 2, 0], &[0, 1, 1], &[1, 1, 5], Some(&[1, 1, 1])).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Overflow);
    assert_eq!(g.generation(), gen);
    assert_eq!(g.call_count(), 1);
    let e = g.add_calls(&[0, 7], &[1, 1], &[1, 1], None).unwrap_err(); // no function 7
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert_eq!(g.call_count(), 1);
    // Costs of the wrong length are refused before the library is called.
    assert!(g.add_calls(&[0], &[1], &[1], Some(&[1, 2])).is_err());
}

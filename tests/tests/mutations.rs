//! Property: a third party who changes an honest record (bytes, signatures, receipts, order,
//! entries dropped or repeated) without any party's keys gets a verdict that names nobody:
//! every party is blamed only for bytes under its own signature.

use proptest::prelude::*;
use protocol::codec::Canonical;
use protocol::record::MatchRecord;
use rules::Variant;
use sim::selfplay::{SelfplayConfig, selfplay_with};
use std::sync::OnceLock;
use verifier::Verdict;

/// One honest record per variant (a short game each: the mutations, not the games, vary).
fn records() -> &'static [(Variant, Vec<u8>)] {
    static RECORDS: OnceLock<Vec<(Variant, Vec<u8>)>> = OnceLock::new();
    RECORDS.get_or_init(|| {
        Variant::ALL
            .iter()
            .map(|&v| {
                let mut c = SelfplayConfig::new(v, 11);
                c.max_actions = 40;
                let s = selfplay_with(c).expect("self-play");
                assert!(verifier::verify(&s.bytes).is_valid(), "{v}: the honest record is valid");
                (v, s.bytes)
            })
            .collect()
    })
}

#[derive(Clone, Debug)]
enum Mutation {
    FlipBit { at: usize, bit: u8 },
    Truncate { at: usize },
    Swap { a: usize, b: usize },
    Drop { at: usize },
    Repeat { at: usize },
    SwapReceipts { a: usize, b: usize },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 0u8..8).prop_map(|(at, bit)| Mutation::FlipBit { at, bit }),
        any::<usize>().prop_map(|at| Mutation::Truncate { at }),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::Swap { a, b }),
        any::<usize>().prop_map(|at| Mutation::Drop { at }),
        any::<usize>().prop_map(|at| Mutation::Repeat { at }),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::SwapReceipts { a, b }),
    ]
}

fn apply(bytes: &[u8], m: &Mutation) -> Vec<u8> {
    let record = MatchRecord::from_canonical(bytes).expect("honest record decodes");
    let n = record.entries.len();
    let mut r = record.clone();
    match *m {
        Mutation::FlipBit { at, bit } => {
            let mut out = bytes.to_vec();
            let at = at % out.len();
            out[at] ^= 1 << bit;
            return out;
        }
        Mutation::Truncate { at } => return bytes[..at % bytes.len()].to_vec(),
        Mutation::Swap { a, b } => r.entries.swap(a % n, b % n),
        Mutation::Drop { at } => {
            r.entries.remove(at % n);
        }
        Mutation::Repeat { at } => {
            let e = r.entries[at % n].clone();
            r.entries.insert(at % n, e);
        }
        Mutation::SwapReceipts { a, b } => {
            let (a, b) = (a % n, b % n);
            let ra = r.entries[a].receipt.clone();
            r.entries[a].receipt = std::mem::replace(&mut r.entries[b].receipt, ra);
        }
    }
    r.to_canonical()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn a_change_without_keys_names_nobody(which in 0usize..6, m in mutation()) {
        let (variant, honest) = &records()[which % records().len()];
        let changed = apply(honest, &m);
        prop_assume!(changed != *honest);
        match verifier::verify(&changed) {
            Verdict::Valid { .. } => {
                // Only a change that leaves every signed byte in place may keep a verdict,
                // e.g. a truncation exactly at an entry boundary after the end: then the
                // result must not change.
                let before = verifier::verify(honest);
                prop_assert_eq!(
                    verifier::verify(&changed).sanctioned_result(),
                    before.sanctioned_result(),
                    "{}: {:?}", variant, m
                );
            }
            Verdict::Faults(faults) => {
                for f in &faults {
                    prop_assert!(
                        f.culprit.is_none(),
                        "{}: {:?} named {:?} ({:?}): {}", variant, m, f.role, f.kind, f.evidence
                    );
                }
            }
        }
    }
}

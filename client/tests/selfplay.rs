//! Self-play of every variant through the real protocol: records whose envelope and
//! disclosures check, games that end by the rules, determinism, and an umpire that answers
//! exactly the rules' observations.

use client::{SelfplayConfig, selfplay_with};
use rules::Variant;

#[test]
fn probe() {
    for v in Variant::ALL {
        for seed in 0..3 {
            let t = std::time::Instant::now();
            let s = selfplay_with(SelfplayConfig::new(v, seed)).unwrap();
            println!(
                "{} {:?} refused={:?} faults={:?} finished={:?}",
                s.summary,
                t.elapsed(),
                s.refused.first(),
                s.faults.first(),
                s.finished.len()
            );
        }
    }
}

//! The end of a served match, as the tests that kill servers mid-match check it.

use client::agent::Agent;
use client::net::Session;
use std::time::Duration;

/// Waits (up to `seconds`) until both seats of every `(variant, alice, bob)` hold the record,
/// asserts that they hold the same one and that it verifies valid, then waits until the host
/// lists every one of them as finished (`/api/games`, asked through `probe`).
pub async fn records_agree_and_are_listed(
    pairs: &[(&&str, Agent, Agent)],
    probe: &Session,
    seconds: u64,
) {
    for (v, alice, bob) in pairs {
        let mut waited = 0;
        let (record, theirs) = loop {
            let a = alice.records().into_values().next();
            let b = bob.records().into_values().next();
            if let (Some(a), Some(b)) = (a, b) {
                break (a.expect("alice's seat ends with the record"), b.expect("bob's too"));
            }
            waited += 1;
            assert!(waited < seconds * 100, "{v}: no end within {seconds} s");
            tokio::time::sleep(Duration::from_millis(10)).await;
        };
        assert_eq!(record, theirs, "{v}: one record");
        let verified = verifier::verify_match(&record);
        assert!(verified.verdict.is_valid(), "{v}: {:#?}", verified.verdict);
    }
    let mut waited = 0;
    loop {
        let games = probe.get("/api/games").await.expect("games");
        if games["games"].as_array().map_or(0, Vec::len) == pairs.len() {
            break;
        }
        waited += 1;
        assert!(waited < 100, "the finished matches are not listed: {games}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

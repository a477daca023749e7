//! Crashes: `fogproof serve` runs as a child process and is killed with SIGKILL mid-match,
//! several times, and restarted on the same data directory. Every match finishes, every
//! record verifies valid, and every entry any player holds a receipt for is in the final
//! record (each player's seat checks the published record against every entry it received,
//! and fails the match otherwise).

use client::agent::Accept;
use std::path::PathBuf;
use std::time::Duration;

mod common;
use common::{free_port, paced_agent, serve, up};
use protocol::challenge::ChallengeRequest;
use rules::Variant;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killed_servers_lose_nothing_a_receipt_promised() {
    let dir: PathBuf =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("crash-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let data = dir.join("server");
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let mut child = serve(&data, port, &[]);
    up(port).await;
    let variants = ["kriegspiel", "sic", "intrigue"];
    let mut pairs = Vec::new();
    for (i, v) in variants.iter().enumerate() {
        let seed = 100 + i as u64;
        // 15 ms a decision keeps every match live through all five kills (about 3 s).
        let pace = Duration::from_millis(15);
        let bob =
            paced_agent(&base, &dir, &format!("bob-{v}"), seed * 2, Accept::Addressed, pace).await;
        let alice =
            paced_agent(&base, &dir, &format!("alice-{v}"), seed * 2 + 1, Accept::Nothing, pace)
                .await;
        tokio::time::sleep(Duration::from_millis(200)).await;
        alice
            .challenge(&ChallengeRequest::addressed(
                v.parse::<Variant>().expect("a variant"),
                900,
                0,
                bob.session().key,
            ))
            .await
            .expect("challenge");
        pairs.push((v, alice, bob));
    }
    // Kill the server at varied instants while the matches run, and restart it.
    let probe = pairs[0].1.session().clone();
    let mut killed_live = 0;
    for (n, pause_ms) in [700u64, 350, 1_200, 90, 500].into_iter().enumerate() {
        tokio::time::sleep(Duration::from_millis(pause_ms)).await;
        if let Ok(lobby) = probe.get("/api/lobby").await {
            let live = lobby["live"].as_array().map_or(0, Vec::len);
            killed_live += live;
            eprintln!("kill {n}: {live} matches live");
        }
        child.kill().expect("SIGKILL");
        let _ = child.wait();
        child = serve(&data, port, &[]);
        up(port).await;
        eprintln!("restart {n} after {pause_ms} ms");
    }
    assert!(killed_live >= 6, "the kills hit live matches ({killed_live})");
    for (v, alice, bob) in &pairs {
        let mut waited = 0;
        let (record, theirs) = loop {
            let a = alice.records().into_values().next();
            let b = bob.records().into_values().next();
            if let (Some(a), Some(b)) = (a, b) {
                break (a.expect("alice's seat ends with the record"), b.expect("bob's too"));
            }
            waited += 1;
            assert!(waited < 18_000, "{v}: no end within 180 s");
            tokio::time::sleep(Duration::from_millis(10)).await;
        };
        assert_eq!(record, theirs, "{v}: one record");
        let verified = verifier::verify_match(&record);
        assert!(verified.verdict.is_valid(), "{v}: {:#?}", verified.verdict);
    }
    child.kill().expect("kill");
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&dir);
}

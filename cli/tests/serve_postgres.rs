//! `fogproof serve --database postgres://...` end to end, when `FOGPROOF_TEST_POSTGRES` names a
//! PostgreSQL server (CI's `.ci/run` starts one and sets it; without it the test prints
//! SKIPPED): matches of three variants played by agents through a server on PostgreSQL, the
//! server SIGKILLed mid-match several times and restarted on the same database; every match
//! finishes, every record verifies valid, and every entry any player holds a receipt for is in
//! the final record (each seat checks the published record against what it received). A second
//! server on the same database, from another data directory, is refused while the first runs.

use client::agent::Accept;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

mod common;
mod finished;
use common::{free_port, paced_agent, serve, serve_any_port, up};
use protocol::challenge::ChallengeRequest;
use rules::Variant;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_on_postgres_loses_nothing_a_receipt_promised() {
    let Ok(base_url) = std::env::var("FOGPROOF_TEST_POSTGRES") else {
        println!("SKIPPED: fogproof serve on PostgreSQL: FOGPROOF_TEST_POSTGRES is not set");
        return;
    };
    let db = format!("fogproof_e2e{}", std::process::id());
    let url = server::store::postgres::fresh_database(&base_url, &db).await.expect("database");
    let dir: PathBuf =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("pg-e2e-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let data = dir.join("server");
    let args = ["--database", url.as_str()];
    // The first start binds a port of the system's choosing (no race for a free one).
    let (mut child, port) = serve_any_port(&data, &args);
    let base = format!("http://127.0.0.1:{port}");
    up(port).await;

    // One owner: a second server on the database (its own data directory) does not start.
    let other = Command::new(env!("CARGO_BIN_EXE_fogproof"))
        .args(["serve", "--no-bot", "--listen"])
        .arg(format!("127.0.0.1:{}", free_port()))
        .arg("--data")
        .arg(dir.join("other"))
        .args(args)
        .env("FOGPROOF_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .expect("runs");
    let said = String::from_utf8_lossy(&other.stderr);
    assert!(!other.status.success(), "a second server on the database started");
    assert!(said.contains("in use by another fogproof server"), "{said}");

    let variants = ["kriegspiel", "sic", "intrigue"];
    let mut pairs = Vec::new();
    for (i, v) in variants.iter().enumerate() {
        let seed = 300 + i as u64;
        // Paced so that the matches are still live when the server is killed.
        let pace = Duration::from_millis(15);
        let (a, b) = (format!("alice-{v}"), format!("bob-{v}"));
        let bob = paced_agent(&base, &dir, &b, seed * 2, Accept::Addressed, pace).await;
        let alice = paced_agent(&base, &dir, &a, seed * 2 + 1, Accept::Nothing, pace).await;
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
    let probe = pairs[0].1.session().clone();
    let mut killed_live = 0;
    for (n, pause_ms) in [700u64, 300, 1_100, 500].into_iter().enumerate() {
        tokio::time::sleep(Duration::from_millis(pause_ms)).await;
        if let Ok(lobby) = probe.get("/api/lobby").await {
            let live = lobby["live"].as_array().map_or(0, Vec::len);
            killed_live += live;
            eprintln!("kill {n}: {live} matches live");
        }
        child.kill().expect("SIGKILL");
        let _ = child.wait();
        child = serve(&data, port, &args);
        up(port).await;
        eprintln!("restart {n} after {pause_ms} ms");
    }
    assert!(killed_live >= 4, "the kills hit live matches ({killed_live})");
    finished::records_agree_and_are_listed(&pairs, &probe, 180).await;
    // The finished matches were served from PostgreSQL, and no SQLite store was made.
    assert!(!data.join("server").join("fogproof.sqlite").exists(), "no SQLite store was made");
    child.kill().expect("kill");
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&dir);
}

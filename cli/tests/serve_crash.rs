//! Crashes: `fogproof serve` runs as a child process and is killed with SIGKILL mid-match,
//! several times, and restarted on the same data directory. Every match finishes, every
//! record verifies valid, and every entry any player holds a receipt for is in the final
//! record (each player's seat checks the published record against every entry it received,
//! and fails the match otherwise).

use client::agent::{Accept, Agent, AgentConfig};
use client::seat::Decider;
use protocol::Identity;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    l.local_addr().expect("addr").port()
}

fn serve(data: &Path, port: u16) -> Child {
    Command::new(env!("CARGO_BIN_EXE_fogproof"))
        .args(["serve", "--data", data.to_str().expect("utf-8"), "--listen"])
        .arg(format!("127.0.0.1:{port}"))
        .arg("--no-bot")
        .env("FOGPROOF_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("fogproof serve starts")
}

async fn up(port: u16) {
    for _ in 0..500 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_ok() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the server did not come up");
}

async fn agent(base: &str, dir: &Path, name: &str, seed: u64, accept: Accept) -> Agent {
    let identity = Identity::from_seed(&client::selfplay::derive(seed, name));
    let a = Agent::connect(AgentConfig {
        server: base.to_owned(),
        identity,
        name: Some(name.into()),
        dir: dir.join(name),
        umpire: false,
        accept,
        variants: Vec::new(),
        decider: Arc::new(move |_| {
            let bot = client::RandomBot::new(client::selfplay::derive(seed, "bot"));
            (Decider::Policy(Box::new(bot)), None)
        }),
    })
    .await
    .expect("sign in");
    let r = a.clone();
    tokio::spawn(async move { r.run().await });
    a
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killed_servers_lose_nothing_a_receipt_promised() {
    let dir: PathBuf =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("crash-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let data = dir.join("server");
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let mut child = serve(&data, port);
    up(port).await;
    let variants = ["kriegspiel", "sic", "intrigue"];
    let mut pairs = Vec::new();
    for (i, v) in variants.iter().enumerate() {
        let seed = 100 + i as u64;
        let bob = agent(&base, &dir, &format!("bob-{v}"), seed * 2, Accept::Addressed).await;
        let alice = agent(&base, &dir, &format!("alice-{v}"), seed * 2 + 1, Accept::Nothing).await;
        tokio::time::sleep(Duration::from_millis(200)).await;
        alice
            .challenge(json!({
                "variant": v,
                "clock_limit": 900,
                "clock_increment": 0,
                "opponent": bob.session().key.to_string(),
            }))
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
        child = serve(&data, port);
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

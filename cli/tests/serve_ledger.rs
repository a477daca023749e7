//! The server's ledger across a crash: `fogproof serve` (with its default ledger under the data
//! directory and a log key it creates owner-only) runs as a child process whose appender is
//! held back, a match finishes, the server is killed with SIGKILL before the match is appended,
//! and after the restart the match is in the log exactly once (and still once after another
//! restart). Then an organiser publishes a tournament and starts it with the command line.

use client::agent::Accept;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

mod common;
use common::{agent, free_port, serve, up};
use protocol::challenge::ChallengeRequest;
use rules::Variant;

/// How many match entries of the log in `dir` name `id`, and the log's size.
fn count_in_log(dir: &Path, id: &[u8; 32]) -> (usize, u64) {
    let reader = ledger::store::DirReader::new(dir);
    let cp = ledger::checkpoint::SignedCheckpoint::parse(
        &ledger::store::LogReader::checkpoint(&reader).expect("checkpoint"),
    )
    .expect("parses");
    let size = cp.checkpoint.size;
    let mut n = 0;
    for b in 0..size.div_ceil(256) {
        for bytes in ledger::log::read_bundle(&reader, b, size).expect("bundle") {
            let e = ledger::entry::LedgerEntry::from_bytes(&bytes).expect("entry");
            n += usize::from(e.as_match().is_some_and(|m| m.match_id == *id));
        }
    }
    (n, size)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_match_finished_before_a_kill_is_appended_after_the_restart_exactly_once() {
    use std::os::unix::fs::PermissionsExt;
    let dir: PathBuf = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("ledger-crash-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let data = dir.join("server");
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    // The appender's first round is at start; the next one would be in an hour.
    let mut child = serve(&data, port, &["--ledger-interval-ms", "3600000"]);
    up(port).await;
    let key_mode = std::fs::metadata(data.join("ledger.key")).expect("a log key").permissions();
    assert_eq!(key_mode.mode() & 0o777, 0o600, "the log key is owner-only");
    let bob = agent(&base, &dir, "bob", 7, Accept::Addressed).await;
    let alice = agent(&base, &dir, "alice", 8, Accept::Nothing).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    alice
        .challenge(&ChallengeRequest::addressed(Variant::Chess, 900, 0, bob.session().key))
        .await
        .expect("challenge");
    let mut waited = 0;
    let (id, record) = loop {
        if let Some((id, r)) = alice.records().into_iter().next() {
            break (id, r.expect("the record"));
        }
        waited += 1;
        assert!(waited < 12_000, "no end within 120 s");
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    // Finished and stored, not appended yet.
    let info = alice.session().get("/api/ledger").await.expect("ledger info");
    assert_eq!(info["size"], json!(0), "{info}");
    child.kill().expect("SIGKILL");
    let _ = child.wait();
    assert_eq!(count_in_log(&data.join("ledger"), &id.0), (0, 0));
    // Restarted: the appender's first round takes what the store has finished.
    child = serve(&data, port, &["--ledger-interval-ms", "200"]);
    up(port).await;
    let mut found = None;
    for _ in 0..200 {
        let (n, size) = count_in_log(&data.join("ledger"), &id.0);
        if n > 0 {
            found = Some((n, size));
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(found, Some((1, 1)), "appended once after the restart");
    // And never again, across more rounds and another kill and restart.
    tokio::time::sleep(Duration::from_millis(600)).await;
    child.kill().expect("SIGKILL");
    let _ = child.wait();
    child = serve(&data, port, &["--ledger-interval-ms", "200"]);
    up(port).await;
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert_eq!(count_in_log(&data.join("ledger"), &id.0), (1, 1));
    let rec = ledger::store::DirReader::new(data.join("ledger"));
    let stored = ledger::store::LogReader::record(&rec, &ledger::entry::sha256(&record))
        .expect("the record is beside the log");
    assert_eq!(stored, record);

    // An organiser defines a tournament of the two players and publishes it on the server with
    // the command line; publishing it twice is refused by name; only the organiser starts it.
    let cup = json!({
        "name": "Crash Cup", "variant": "chess", "system": { "round-robin": "single" },
        "players": [ { "key": alice.session().key.to_string(), "name": "Alice" },
                     { "key": bob.session().key.to_string(), "name": "Bob" } ],
        "tie_breaks": ["SonnebornBerger"], "time_control": "10+0",
    });
    std::fs::write(dir.join("cup.json"), cup.to_string()).expect("write");
    let cli = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_fogproof")).args(args).output().expect("runs")
    };
    let path = |f: &str| dir.join(f).to_str().expect("utf-8").to_owned();
    let defined = cli(&[
        "tournament",
        "define",
        &path("cup.json"),
        "--organiser-key",
        &path("org.key"),
        "--name",
        "organiser.example.org",
        "--out",
        &path("cup.def"),
    ]);
    assert!(defined.status.success(), "{defined:?}");
    let published = cli(&[
        "tournament",
        "publish",
        &path("cup.def"),
        "--server",
        &base,
        "--organiser-key",
        &path("org.key"),
    ]);
    assert!(published.status.success(), "{published:?}");
    let out = String::from_utf8_lossy(&published.stdout).into_owned();
    let id = out
        .lines()
        .find_map(|l| l.strip_prefix("tournament "))
        .expect("the id is printed")
        .to_owned();
    let t = alice.session().get(&format!("/api/tournament/{id}")).await.expect("shown");
    assert_eq!(t["name"], json!("Crash Cup"));
    assert_eq!(t["status"], json!("joining"));
    let again = cli(&[
        "tournament",
        "publish",
        &path("cup.def"),
        "--server",
        &base,
        "--organiser-key",
        &path("org.key"),
    ]);
    assert!(!again.status.success());
    let why = String::from_utf8_lossy(&again.stderr).into_owned();
    assert!(why.contains("already in the log"), "{why}");
    // Another key (the log's own, which is a signed-note key too) is not the organiser.
    let other = cli(&[
        "tournament",
        "start",
        &id,
        "--server",
        &base,
        "--organiser-key",
        data.join("ledger.key").to_str().expect("utf-8"),
    ]);
    assert!(!other.status.success());
    assert!(String::from_utf8_lossy(&other.stderr).contains("not this tournament's organiser"));
    let started =
        cli(&["tournament", "start", &id, "--server", &base, "--organiser-key", &path("org.key")]);
    assert!(started.status.success(), "{started:?}");
    let mut rounds = json!(0);
    for _ in 0..100 {
        let t = alice.session().get(&format!("/api/tournament/{id}")).await.expect("shown");
        rounds = t["rounds_started"].clone();
        if rounds != json!(0) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(rounds, json!(1), "round 1 started when the organiser asked");
    child.kill().expect("kill");
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&dir);
}

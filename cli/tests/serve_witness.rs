//! The log witnessed by default: two `fogproof witness serve` processes, and `fogproof serve`
//! configured with both (`--witness URL=VKEY`, quorum 2). A finished match is appended and the
//! published checkpoint carries both cosignatures, verified with the witnesses' keys; with one
//! witness down appends go on, the checkpoint carries one cosignature and a quorum-2 audit fails
//! naming the missing witness; after a server restart (it no longer knows what each witness
//! cosigned, so it asks with a stale old size) the witnesses' 409s are followed and both cosign
//! again. The HTTP witness refuses a rolled-back checkpoint (409 with its size) and a fork
//! (422, evidence kept).

use client::agent::{Accept, Agent};
use ledger::checkpoint::{Checkpoint, Policy, SignedCheckpoint};
use ledger::note::{Note, SignerKey, VerifierKey};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

mod common;
use common::{agent, free_port, serve, up};
use protocol::challenge::ChallengeRequest;
use rules::Variant;

fn fogproof(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fogproof")).args(args).output().expect("fogproof runs")
}

fn stdout(o: &Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// `fogproof witness serve` on `port` for the log `log_vkey`.
fn witness(dir: &Path, name: &str, port: u16, log_vkey: &str) -> Child {
    Command::new(env!("CARGO_BIN_EXE_fogproof"))
        .args(["witness", "serve", "--listen", &format!("127.0.0.1:{port}")])
        .args(["--state", dir.join(name).to_str().unwrap()])
        .args(["--key", dir.join(format!("{name}.key")).to_str().unwrap()])
        .args(["--log", log_vkey])
        .env("FOGPROOF_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("fogproof witness serve starts")
}

fn checkpoint(data: &Path) -> SignedCheckpoint {
    SignedCheckpoint::parse(&std::fs::read(data.join("ledger/checkpoint")).expect("checkpoint"))
        .expect("parses")
}

/// Plays one match between the two agents; returns when the first one has its record.
async fn play(alice: &Agent, bob: &Agent) {
    let before = alice.records().len();
    alice
        .challenge(&ChallengeRequest::addressed(Variant::Chess, 900, 0, bob.session().key))
        .await
        .expect("challenge");
    for _ in 0..12_000 {
        if alice.records().len() > before {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("no end within 120 s");
}

/// Waits (60 s at most) until the log's checkpoint is larger than `after` and cosigned by
/// `want` of the `witnesses`.
async fn cosigned(
    data: &Path,
    after: u64,
    witnesses: &[VerifierKey],
    want: usize,
) -> SignedCheckpoint {
    let mut last = None;
    for _ in 0..600 {
        let cp = checkpoint(data);
        let n = witnesses
            .iter()
            .filter(|w| cp.note.verify(std::slice::from_ref(*w)).is_ok_and(|v| !v.is_empty()))
            .count();
        if cp.checkpoint.size > after && n == want {
            return cp;
        }
        last = Some((cp.checkpoint.size, n));
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("no checkpoint above size {after} with {want} cosignatures (last: {last:?})");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_log_is_cosigned_by_both_witnesses_and_goes_on_with_one_down() {
    let dir: PathBuf = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("witnessed-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let data = dir.join("server");
    std::fs::create_dir_all(&data).unwrap();
    let d = |p: &Path| p.to_str().unwrap().to_owned();
    // The log and its key, made before the server starts so the witnesses can follow it.
    let key_file = data.join("ledger.key");
    stdout(&fogproof(&[
        "ledger",
        "init",
        &d(&data.join("ledger")),
        "--key",
        &d(&key_file),
        "--origin",
        "witnessed.localhost/ledger",
    ]));
    let log_vkey = stdout(&fogproof(&["ledger", "key", "--key", &d(&key_file)])).trim().to_owned();
    let mut wkeys = Vec::new();
    for name in ["w1", "w2"] {
        let out = stdout(&fogproof(&[
            "witness",
            "init",
            "--name",
            &format!("{name}.witness.test"),
            "--key",
            &d(&dir.join(format!("{name}.key"))),
        ]));
        let vkey = out.lines().find_map(|l| l.strip_prefix("witness-key: ")).expect("vkey");
        wkeys.push(VerifierKey::parse(vkey).expect("a verifier key"));
    }
    let (p1, p2) = (free_port(), free_port());
    let w1 = witness(&dir, "w1", p1, &log_vkey);
    let mut w2 = witness(&dir, "w2", p2, &log_vkey);
    up(p1).await;
    up(p2).await;
    let witness_args = [
        "--ledger-interval-ms".to_owned(),
        "200".to_owned(),
        "--witness".to_owned(),
        format!("http://127.0.0.1:{p1}={}", wkeys[0]),
        "--witness".to_owned(),
        format!("http://127.0.0.1:{p2}={}", wkeys[1]),
        "--witness-quorum".to_owned(),
        "2".to_owned(),
        "--witness-timeout-ms".to_owned(),
        "2000".to_owned(),
    ];
    let args: Vec<&str> = witness_args.iter().map(String::as_str).collect();
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let mut server = serve(&data, port, &args);
    up(port).await;
    let bob = agent(&base, &dir, "bob", 7, Accept::Addressed).await;
    let alice = agent(&base, &dir, "alice", 8, Accept::Nothing).await;
    tokio::time::sleep(Duration::from_millis(200)).await;

    // Both witnesses up: the match is appended and the checkpoint carries both cosignatures.
    play(&alice, &bob).await;
    let cp = cosigned(&data, 0, &wkeys, 2).await;
    let log = VerifierKey::parse(&log_vkey).unwrap();
    let policy = Policy { log: log.clone(), witnesses: wkeys.clone(), quorum: 2 };
    let trusted = policy.verify(&cp).expect("both cosignatures verify");
    assert_eq!(trusted.cosigners.len(), 2);
    let info: Value = alice.session().get("/api/ledger").await.expect("ledger info");
    let wp = &info["witness_policy"];
    assert_eq!(wp["quorum"], json!(2), "{info}");
    assert_eq!(wp["witnesses"].as_array().map(Vec::len), Some(2), "{info}");
    assert_eq!(wp["cosignatures"], json!(2), "{info}");
    assert!(wp["warning"].is_null(), "{info}");
    let audit_args = |q: &str| {
        vec![
            "ledger".to_owned(),
            "audit".to_owned(),
            d(&data.join("ledger")),
            "--log-key".to_owned(),
            log_vkey.clone(),
            "--witness".to_owned(),
            wkeys[0].to_string(),
            "--witness".to_owned(),
            wkeys[1].to_string(),
            "--quorum".to_owned(),
            q.to_owned(),
        ]
    };
    let a: Vec<String> = audit_args("2");
    let ok = fogproof(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stderr));

    // Witness 2 down: appends go on, with witness 1's cosignature alone.
    w2.kill().unwrap();
    let _ = w2.wait();
    let size1 = cp.checkpoint.size;
    play(&alice, &bob).await;
    let cp2 = cosigned(&data, size1, &wkeys[..1], 1).await;
    assert!(cp2.note.verify(std::slice::from_ref(&wkeys[1])).is_err(), "no cosignature of w2");
    let info: Value = alice.session().get("/api/ledger").await.expect("ledger info");
    let wp = &info["witness_policy"];
    assert_eq!(info["size"], json!(cp2.checkpoint.size), "{info}");
    assert_eq!(wp["cosignatures"], json!(1), "{info}");
    assert!(wp["warning"].as_str().is_some_and(|w| w.contains("quorum is 2")), "{info}");
    let short = fogproof(&a.iter().map(String::as_str).collect::<Vec<_>>());
    let err = String::from_utf8_lossy(&short.stderr);
    assert!(!short.status.success(), "a quorum-2 audit of a once-cosigned checkpoint fails");
    assert!(err.contains("1 short") && err.contains("w2.witness.test"), "{err}");
    let one: Vec<String> = audit_args("1");
    let ok = fogproof(&one.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(ok.status.success(), "quorum 1: {}", String::from_utf8_lossy(&ok.stderr));

    // The server restarts (it no longer knows what each witness cosigned: it asks with old
    // size 0) and witness 2 comes back (it cosigned size1 only): both answer 409 with their
    // size, and the server asks again with a proof from it.
    server.kill().unwrap();
    let _ = server.wait();
    w2 = witness(&dir, "w2", p2, &log_vkey);
    up(p2).await;
    server = serve(&data, port, &args);
    up(port).await;
    // The same agents go on: they reconnect and sign in again by themselves. (New agents for
    // the same keys and directories beside the old ones, which keep running, raced them for
    // the same seats: the match sometimes never ended under load.)
    let size2 = checkpoint(&data).checkpoint.size;
    play(&alice, &bob).await;
    let cp3 = cosigned(&data, size2, &wkeys, 2).await;
    assert_eq!(policy.verify(&cp3).unwrap().cosigners.len(), 2);

    // The witness refuses a rolled-back checkpoint (409, its size) and a fork (422).
    let key = SignerKey::parse(&std::fs::read_to_string(&key_file).unwrap()).unwrap();
    let size3 = cp3.checkpoint.size;
    let signed = |size: u64, root: [u8; 32]| {
        let c = Checkpoint { origin: log.name().to_owned(), size, root, extensions: vec![] };
        let text = c.to_text();
        SignedCheckpoint {
            checkpoint: c,
            note: Note { signatures: vec![key.sign(&text, 0)], text },
        }
    };
    let http = reqwest::Client::new();
    let post =
        |body: String| http.post(format!("http://127.0.0.1:{p1}/add-checkpoint")).body(body).send();
    let rolled = post(ledger::witness::request_body(0, &[], &signed(size1, cp.checkpoint.root)))
        .await
        .unwrap();
    assert_eq!(rolled.status().as_u16(), 409);
    assert_eq!(rolled.text().await.unwrap(), format!("{size3}\n"));
    let fork =
        post(ledger::witness::request_body(size3, &[], &signed(size3, [7; 32]))).await.unwrap();
    assert_eq!(fork.status().as_u16(), 422);
    assert!(fork.text().await.unwrap().contains("fork"));
    let too_big = post("x".repeat(ledger::witness::MAX_REQUEST_BYTES + 1)).await.unwrap();
    assert_eq!(too_big.status().as_u16(), 413);
    // The witness still serves what it cosigned, unchanged.
    let latest = http
        .get(format!("http://127.0.0.1:{p1}/checkpoint?origin={}", log.name()))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(SignedCheckpoint::parse(latest.as_bytes()).unwrap().checkpoint, cp3.checkpoint);

    for mut c in [server, w1, w2] {
        let _ = c.kill();
        let _ = c.wait();
    }
}

//! Signed inclusion promises from a real server: a finished match gets one promise, signed by
//! the log key, for the record the server will append; the server keeps it (the same bytes on
//! every request, in its data directory); the player's agent saves it beside its journal; and
//! once the appender has run, the promise checks as kept from the served tiles alone.

mod network;

use client::agent::Accept;
use client::promise::PromiseStatus;
use ledger::checkpoint::Policy;
use ledger::note::{KeyKind, SignerKey};
use ledger::promise::{Promise, Verdict};
use ledger::store::{LogReader, ReadError};
use network::{Net, bot};
use protocol::challenge::ChallengeRequest;
use rules::Variant;
use std::io::{Read, Write};
use std::time::Duration;

/// A blocking HTTP GET: status and body.
fn get(url: &str) -> (u16, Vec<u8>) {
    let rest = url.strip_prefix("http://").expect("http url");
    let (host, path) = rest.split_once('/').expect("path");
    let mut s = std::net::TcpStream::connect(host).expect("connect");
    write!(s, "GET /{path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n").expect("write");
    let mut all = Vec::new();
    s.read_to_end(&mut all).expect("read");
    let at = all.windows(4).position(|w| w == b"\r\n\r\n").expect("headers") + 4;
    let head = String::from_utf8_lossy(&all[..at]).to_lowercase();
    let status = head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).expect("status");
    (status, all[at..].to_vec())
}

/// The log as a C2SP client reads it (entry bundles are served gzipped as stored).
struct HttpLog(String);

impl LogReader for HttpLog {
    fn read(&self, path: &str, max_bytes: usize) -> Result<Vec<u8>, ReadError> {
        let (status, body) = get(&format!("{}/ledger/{path}", self.0));
        match status {
            200 if body.len() <= max_bytes => Ok(body),
            200 => Err(ReadError::TooLarge { path: path.into(), max_bytes }),
            _ => Err(ReadError::NotFound(path.into())),
        }
    }
}

fn log_key() -> SignerKey {
    SignerKey::from_seed("fogproof.test/promises", KeyKind::Ed25519, [11; 32]).expect("key")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_match_gets_a_kept_promise_and_the_agent_saves_it() {
    let net = Net::start_with("promise", |c| {
        let mut l = server::LedgerConfig::new(c.data_dir.join("ledger"), log_key());
        l.append_interval_ms = 200;
        l.promise_within_ms = 120_000;
        c.ledger = Some(l);
    })
    .await;
    let bob = net.agent("bob", bot(31), Accept::Addressed).await;
    let alice = net.agent("alice", bot(30), Accept::Nothing).await;
    // Alice trusts one witness of her own, which this log never asks; Bob keeps the default
    // (the server's witnesses, of which it announces none).
    let hers =
        SignerKey::from_seed("her-witness.test", KeyKind::Cosignature, [12; 32]).expect("key");
    alice.set_witness_policy(client::promise::WitnessPolicy {
        witnesses: vec![hers.verifier().clone()],
        quorum: None,
    });
    alice
        .challenge(&ChallengeRequest::addressed(Variant::Chess, 600, 0, bob.session().key))
        .await
        .expect("challenge");
    let (id, record) = net.finished(&alice).await;
    let hex = protocol::hex::encode(&id.0);

    let bytes = net.get_bytes(&format!("/api/match/{hex}/promise")).await;
    let promise = Promise::verify(&bytes, log_key().verifier()).expect("signed by the log key");
    assert_eq!(promise.match_id, id.0);
    assert_eq!(promise.record_sha256, ledger::entry::sha256(&record), "the record it will append");
    assert_eq!(promise.include_by_ms - promise.promised_at_ms, 120_000, "promise_within_ms");
    // Kept: the same promise on every request, and in the data directory.
    assert_eq!(net.get_bytes(&format!("/api/match/{hex}/promise")).await, bytes);
    let kept = std::fs::read(net.dir.join("server").join("promises").join(&hex)).expect("kept");
    assert_eq!(kept, bytes);
    // A match that does not exist has no promise.
    let (status, _) = net.get_raw(&format!("/api/match/{}/promise", "ab".repeat(32))).await;
    assert_eq!(status, 404);

    // Both players' agents save it beside their journals.
    for name in ["alice", "bob"] {
        let path = client::agent::promise_path(&net.dir.join(name), &id);
        let mut saved = None;
        for _ in 0..200 {
            if let Ok(b) = std::fs::read(&path) {
                saved = Some(b);
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert_eq!(saved.as_deref(), Some(&bytes[..]), "{name} saved {}", path.display());
    }

    // After the append, a reader of the tiles finds the promise kept.
    let base = net.base.clone();
    let mut verdict = None;
    for _ in 0..200 {
        let (base, promise) = (base.clone(), promise.clone());
        let v = tokio::task::spawn_blocking(move || {
            ledger::promise::check(
                &HttpLog(base),
                &promise,
                &Policy::log_only(log_key().verifier().clone()),
            )
            .expect("the log reads")
        })
        .await
        .expect("blocking");
        if let Verdict::Kept { proof, trusted } = &v {
            assert!(proof.index < trusted.signed.checkpoint.size);
            verdict = Some(v);
            break;
        }
        assert!(matches!(v, Verdict::Pending { trusted_at_ms: None, .. }), "{v:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(verdict.is_some(), "kept within 10 s");

    // Each agent read the proof's checkpoint through its player's witness policy, and neither
    // calls an unwitnessed checkpoint fine.
    for (agent, says) in [
        (&alice, "no valid cosignature from her-witness.test"),
        (&bob, "names no witness this player trusts"),
    ] {
        let mut status = None;
        for _ in 0..400 {
            status = agent.promise_status(&id);
            if matches!(status, Some(PromiseStatus::Kept { .. })) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        match status {
            Some(PromiseStatus::Kept { witnessed: Err(why) }) => {
                assert!(why.contains(says), "{why}")
            }
            other => panic!("expected a kept promise short of witnesses, got {other:?}"),
        }
    }
    net.stop().await;
}

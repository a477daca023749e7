//! `fogproof ledger check-promise` end to end through the binary: a promise the log kept
//! (inclusion proof verified), a promise for a match the operator left out (a log built by hand
//! without it) reported pending on the log's word alone and broken, exit 1 naming the operator,
//! once a witness cosigned a checkpoint after the deadline, and forged promises (a flipped
//! byte, another key) refused by name.

use ledger::note::{KeyKind, SignerKey};
use ledger::promise::{PROMISE_VERSION, Promise};
use rules::Variant;
use std::path::Path;
use std::process::{Command, Output};

fn fogproof(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fogproof")).args(args).output().expect("the binary runs")
}

fn text(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

fn record(dir: &Path, seed: u64) -> (std::path::PathBuf, Vec<u8>, [u8; 32]) {
    let bytes = sim::selfplay(Variant::Espionage, seed).unwrap().0;
    let id = verifier::verify_match(&bytes).match_id.unwrap().0;
    let path = dir.join(format!("r{seed}.rec"));
    std::fs::write(&path, &bytes).unwrap();
    (path, bytes, id)
}

fn promise_file(dir: &Path, key: &SignerKey, rec: &[u8], id: [u8; 32], by: u64) -> String {
    let promise = Promise {
        version: PROMISE_VERSION,
        origin: key.name().to_string(),
        match_id: id,
        record_sha256: ledger::entry::sha256(rec),
        promised_at_ms: by - 600_000,
        include_by_ms: by,
    };
    let path = dir.join(format!("{}.promise", protocol::hex::encode(&id)));
    std::fs::write(&path, promise.sign(key)).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn kept_pending_broken_and_forged_promises() {
    let t = tempfile::tempdir().unwrap();
    let (dir, key_path, log) = (t.path(), t.path().join("log.key"), t.path().join("log"));
    let init = fogproof(&[
        "ledger",
        "init",
        p(&log),
        "--key",
        p(&key_path),
        "--origin",
        "ledger.example/promise",
    ]);
    assert_eq!(init.status.code(), Some(0), "{}", String::from_utf8_lossy(&init.stderr));
    let key = SignerKey::parse(std::fs::read_to_string(&key_path).unwrap().trim()).unwrap();
    let vkey = key.verifier().to_string();
    let (kept_rec, kept_bytes, kept_id) = record(dir, 1);
    let (dropped_rec, dropped_bytes, dropped_id) = record(dir, 2);
    // The operator appends the first match and leaves the second out.
    let append = fogproof(&["ledger", "append", p(&log), "--key", p(&key_path), p(&kept_rec)]);
    assert_eq!(append.status.code(), Some(0), "{}", String::from_utf8_lossy(&append.stderr));

    // Deadline 1_000_000 s after the epoch, long past.
    let deadline_ms = 1_000_000_000;
    let kept = promise_file(dir, &key, &kept_bytes, kept_id, deadline_ms);
    let out = fogproof(&[
        "ledger",
        "check-promise",
        &kept,
        "--log-key",
        &vkey,
        "--log",
        p(&log),
        "--record",
        p(&kept_rec),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        text(&out),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text(&out).contains("KEPT: entry 0 of checkpoint ledger.example/promise (size 1)"));
    assert!(text(&out).contains("the record promised"), "{}", text(&out));

    let dropped = promise_file(dir, &key, &dropped_bytes, dropped_id, deadline_ms);
    // The log's word alone carries no time: pending, overdue by this machine's clock.
    let out =
        fogproof(&["ledger", "check-promise", &dropped, "--log-key", &vkey, "--log", p(&log)]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("PENDING") && text(&out).contains("OVERDUE"), "{}", text(&out));

    // A witness cosigns the log's checkpoint after the deadline: the promise is broken.
    let witness = SignerKey::from_seed("witness.example", KeyKind::Cosignature, [7; 32]).unwrap();
    let cp = std::fs::read_to_string(log.join("checkpoint")).unwrap();
    let cp_text = &cp[..cp.find("\n\n").unwrap() + 1];
    let line = witness.sign(cp_text, deadline_ms / 1000 + 60).to_line();
    let mut child = Command::new(env!("CARGO_BIN_EXE_fogproof"))
        .args([
            "ledger",
            "add-cosignatures",
            p(&log),
            "--key",
            p(&key_path),
            "--witness",
            &witness.verifier().to_string(),
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(line.as_bytes()).unwrap();
    assert!(child.wait_with_output().unwrap().status.success());
    let wvkey = witness.verifier().to_string();
    let check = |promise: &str, vkey: &str| {
        fogproof(&[
            "ledger",
            "check-promise",
            promise,
            "--log-key",
            vkey,
            "--witness",
            &wvkey,
            "--log",
            p(&log),
        ])
    };
    let out = check(&dropped, &vkey);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("BROKEN: log operator ledger.example/promise promised match"),
        "{}",
        text(&out)
    );
    assert!(text(&out).contains(&format!("witnessed at {} ms", deadline_ms + 60_000)));
    // The kept promise stays kept under the witness policy.
    assert_eq!(check(&kept, &vkey).status.code(), Some(0));
    // A later deadline than the witness's time: pending, not broken.
    let later = promise_file(dir, &key, &dropped_bytes, dropped_id, deadline_ms + 120_000);
    assert_eq!(check(&later, &vkey).status.code(), Some(2));
    let _ = dropped_rec;

    // Forged: a flipped byte, or the right name under another key.
    let mut bytes = std::fs::read(&dropped).unwrap();
    let at = bytes.len() - 10;
    bytes[at] ^= 0x40;
    let flipped = dir.join("flipped.promise");
    std::fs::write(&flipped, &bytes).unwrap();
    let out = check(p(&flipped), &vkey);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    assert!(text(&out).contains("NOT A VALID PROMISE") && text(&out).contains("signature"));
    let other = SignerKey::from_seed("ledger.example/promise", KeyKind::Ed25519, [3; 32]).unwrap();
    let forged = dir.join("forged");
    std::fs::create_dir(&forged).unwrap();
    let forged = promise_file(&forged, &other, &dropped_bytes, dropped_id, deadline_ms);
    let out = check(&forged, &vkey);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    assert!(text(&out).contains("does not verify under the log key"), "{}", text(&out));
}

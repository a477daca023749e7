//! `fogproof ledger`, `fogproof witness` and `fogproof tournament` end to end through the
//! binary: a log created and appended to, proofs checked (and refused for the wrong record or
//! key), a consistency proof between two checkpoints, a witness cosigning and refusing a stale
//! request, an audit that names a tampered record, and a tournament bundle verified and then
//! refused once tampered with.

use ledger::note::{KeyKind, SignerKey};
use rules::Variant;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn fogproof(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fogproof")).args(args).output().expect("the binary runs")
}

fn fogproof_stdin(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_fogproof"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

fn ok(out: &Output) -> String {
    assert_eq!(out.status.code(), Some(0), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

fn write_record(dir: &Path, seed: u64) -> std::path::PathBuf {
    let path = dir.join(format!("r{seed}.rec"));
    std::fs::write(&path, sim::selfplay(Variant::Espionage, seed).unwrap().0).unwrap();
    path
}

fn match_id(record: &Path) -> String {
    let bytes = std::fs::read(record).unwrap();
    protocol::hex::encode(&verifier::verify_match(&bytes).match_id.unwrap().0)
}

#[test]
fn log_prove_check_consistency_witness_audit() {
    let t = tempfile::tempdir().unwrap();
    let (dir, key, log) = (t.path(), t.path().join("log.key"), t.path().join("log"));
    let init = ok(&fogproof(&[
        "ledger",
        "init",
        p(&log),
        "--key",
        p(&key),
        "--origin",
        "ledger.example/cli",
    ]));
    assert!(init.contains("checkpoint ledger.example/cli 0 e3b0c442"), "{init}");
    // The key file is owner-only, and never overwritten.
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(std::fs::metadata(&key).unwrap().permissions().mode() & 0o777, 0o600);
    let again = fogproof(&[
        "ledger",
        "init",
        p(&dir.join("other")),
        "--key",
        p(&key),
        "--origin",
        "other.example",
    ]);
    assert_eq!(again.status.code(), Some(2));
    let vkey = ok(&fogproof(&["ledger", "key", "--key", p(&key)])).trim().to_string();
    assert!(vkey.starts_with("ledger.example/cli+"), "{vkey}");

    let (r1, r2, r3) = (write_record(dir, 1), write_record(dir, 2), write_record(dir, 3));
    let out = ok(&fogproof(&[
        "ledger",
        "append",
        p(&log),
        "--key",
        p(&key),
        "--batch",
        "1",
        p(&r1),
        p(&r2),
    ]));
    assert_eq!(out.lines().count(), 2, "one checkpoint per batch: {out}");
    std::fs::copy(log.join("checkpoint"), dir.join("cp2")).unwrap();
    let out = ok(&fogproof(&["ledger", "append", p(&log), "--key", p(&key), p(&r2), p(&r3)]));
    assert!(out.contains("already in the log at index 1"), "{out}");
    assert!(out.contains("checkpoint ledger.example/cli 3 "), "{out}");
    std::fs::copy(log.join("checkpoint"), dir.join("cp3")).unwrap();

    // Proofs: accepted with the right record, refused with another record or log key.
    let proof = dir.join("r2.proof");
    ok(&fogproof(&["ledger", "prove", p(&log), &match_id(&r2), "--out", p(&proof)]));
    let checked = ok(&fogproof(&[
        "ledger",
        "check-proof",
        p(&proof),
        "--log-key",
        &vkey,
        "--record",
        p(&r2),
    ]));
    assert!(checked.contains("entry 1 of checkpoint ledger.example/cli (size 3)"), "{checked}");
    assert!(checked.contains("re-verified: same verdict"), "{checked}");
    let wrong =
        fogproof(&["ledger", "check-proof", p(&proof), "--log-key", &vkey, "--record", p(&r1)]);
    assert_eq!(wrong.status.code(), Some(1));
    let other = SignerKey::from_seed("ledger.example/cli", KeyKind::Ed25519, [1; 32]).unwrap();
    let refused =
        fogproof(&["ledger", "check-proof", p(&proof), "--log-key", &other.verifier().to_string()]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&refused.stdout).contains("NOT PROVEN"));
    let unknown = fogproof(&["ledger", "prove", p(&log), &"0".repeat(64)]);
    assert_eq!(unknown.status.code(), Some(2));

    // Consistency between the two checkpoints kept.
    let c = ok(&fogproof(&[
        "ledger",
        "consistency",
        p(&dir.join("cp2")),
        p(&dir.join("cp3")),
        "--log",
        p(&log),
        "--log-key",
        &vkey,
    ]));
    assert!(c.contains("consistent: size 2 is a prefix of size 3"), "{c}");

    // A witness: cosigns from 0, refuses a stale size with 409, and readers need its quorum.
    let wkey = dir.join("w.key");
    let w = ok(&fogproof(&["witness", "init", "--name", "witness.example/w1", "--key", p(&wkey)]));
    let wvkey = w.lines().find_map(|l| l.strip_prefix("witness-key: ")).unwrap().to_string();
    let state = dir.join("wstate");
    let request =
        ok(&fogproof(&["ledger", "witness-request", p(&log), "--key", p(&key), "--old", "0"]));
    let line = ok(&fogproof_stdin(
        &["witness", "add-checkpoint", "--state", p(&state), "--key", p(&wkey), "--log", &vkey],
        &request,
    ));
    assert!(line.starts_with("— witness.example/w1 "), "{line}");
    let stale = fogproof_stdin(
        &["witness", "add-checkpoint", "--state", p(&state), "--key", p(&wkey), "--log", &vkey],
        &request,
    );
    assert_eq!(stale.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&stale.stderr).contains("HTTP 409"));
    let audit_quorum =
        fogproof(&["ledger", "audit", p(&log), "--log-key", &vkey, "--witness", &wvkey]);
    assert_eq!(audit_quorum.status.code(), Some(2), "no cosignature yet: refused");
    ok(&fogproof_stdin(
        &["ledger", "add-cosignatures", p(&log), "--key", p(&key), "--witness", &wvkey],
        &line,
    ));
    let audited = ok(&fogproof(&[
        "ledger",
        "audit",
        p(&log),
        "--log-key",
        &vkey,
        "--witness",
        &wvkey,
        "--jobs",
        "1",
    ]));
    assert!(audited.contains("size 3, 1 witness cosignature(s); 3 matches"), "{audited}");

    // A stored record replaced: the audit names the entry and exits 1.
    let stored =
        log.join(ledger::store::record_path(&ledger::entry::sha256(&std::fs::read(&r3).unwrap())));
    std::fs::write(&stored, std::fs::read(&r1).unwrap()).unwrap();
    let bad = fogproof(&["ledger", "audit", p(&log), "--log-key", &vkey]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&bad.stdout).contains("entry 2: "),
        "{}",
        String::from_utf8_lossy(&bad.stdout)
    );
}

#[test]
fn tournament_bundle_and_verify() {
    let t = tempfile::tempdir().unwrap();
    let (dir, key, log) = (t.path(), t.path().join("log.key"), t.path().join("log"));
    ok(&fogproof(&["ledger", "init", p(&log), "--key", p(&key), "--origin", "ledger.example/t"]));
    let vkey = ok(&fogproof(&["ledger", "key", "--key", p(&key)])).trim().to_string();
    // A two-player round-robin, defined and signed by its organiser, whose game is a
    // self-played record.
    let cast = sim::selfplay::cast(7);
    let players: Vec<serde_json::Value> = (0..2)
        .map(|i| {
            serde_json::json!({
                "key": cast.players[i].public().to_string(),
                "name": format!("Player {i}"),
                "rating": 2000 - i,
            })
        })
        .collect();
    let json = serde_json::json!({
        "name": "CLI Cup",
        "variant": "espionage",
        "system": { "round-robin": "single" },
        "players": players,
        "tie_breaks": ["SonnebornBerger"],
        "time_control": "10+5",
    });
    let json_file = dir.join("cup.json");
    std::fs::write(&json_file, json.to_string()).unwrap();
    let def_file = dir.join("cup.def");
    let org = dir.join("org.key");
    let defined = ok(&fogproof(&[
        "tournament",
        "define",
        p(&json_file),
        "--organiser-key",
        p(&org),
        "--name",
        "organiser.example",
        "--out",
        p(&def_file),
    ]));
    let refused = fogproof(&[
        "tournament",
        "define",
        p(&json_file),
        "--organiser-key",
        p(&org),
        "--out",
        p(&def_file),
    ]);
    assert_eq!(refused.status.code(), Some(2), "never overwritten");
    let out = ok(&fogproof(&[
        "ledger",
        "append",
        p(&log),
        "--key",
        p(&key),
        "--definition",
        p(&def_file),
    ]));
    let id = out.lines().find_map(|l| l.strip_prefix("tournament ")).unwrap().to_string();
    assert!(defined.contains(&format!("tournament {id}")), "{defined}");
    let started = ok(&fogproof(&[
        "ledger",
        "start-round",
        p(&log),
        "--key",
        p(&key),
        "--tournament",
        &id,
        "--round",
        "1",
    ]));
    assert!(started.contains("board 1: Player 0 - Player 1"), "{started}");
    let mut config = sim::SelfplayConfig::new(Variant::Espionage, 7);
    config.colors = protocol::terms::ColorAssignment::FirstIsWhite;
    let record = dir.join("game.rec");
    std::fs::write(&record, sim::selfplay_with(config).unwrap().bytes).unwrap();
    ok(&fogproof(&[
        "ledger",
        "append",
        p(&log),
        "--key",
        p(&key),
        "--tournament",
        &id,
        "--round",
        "1",
        p(&record),
    ]));

    let bundle = dir.join("bundle");
    ok(&fogproof(&["tournament", "bundle", &id, "--log", p(&log), "--out", p(&bundle)]));
    let verified = ok(&fogproof(&["tournament", "verify", p(&bundle), "--log-key", &vkey]));
    assert!(verified.contains("ok: CLI Cup, 1 round(s), 1 record(s) re-verified"), "{verified}");
    let standings = bundle.join("standings.json");
    let text = std::fs::read_to_string(&standings).unwrap();
    std::fs::write(&standings, text.replacen("\"rank\": 1", "\"rank\": 3", 1)).unwrap();
    let refused = fogproof(&["tournament", "verify", p(&bundle), "--log-key", &vkey]);
    assert_eq!(refused.status.code(), Some(1));
    let said = String::from_utf8_lossy(&refused.stdout);
    assert!(said.contains("standings.json: differs from what the entries give"), "{said}");
    // Not a log's tournament: nothing is written.
    let none = fogproof(&[
        "tournament",
        "bundle",
        &"1".repeat(64),
        "--log",
        p(&log),
        "--out",
        p(&dir.join("b2")),
    ]);
    assert_eq!(none.status.code(), Some(2));
}

//! The record the host site's browser test uploads to its audit page
//! (`web/test/fixtures/kriegspiel-lying-umpire.rec`, `web/test/host.test.mjs`): a Kriegspiel
//! self-play (seed 1) whose umpire adds a pawn try to its first announcement, a false statement
//! under the umpire's own signature. This test checks that the committed file is exactly what
//! that self-play writes (`FOGPROOF_BLESS=1 cargo test -p fogproof-cli --test web_fixture`
//! rewrites it when the protocol or the bots change), and, independently of any page, that
//! `fogproof verify --json` names the umpire the self-play cast, and nobody else.

use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use protocol::codec::Canonical;
use rules::Variant;

const FIXTURE: &str = "../web/test/fixtures/kriegspiel-lying-umpire.rec";

#[test]
fn the_audit_fixture_is_a_lying_umpire_and_the_verifier_names_it() {
    let mut config = sim::SelfplayConfig::new(Variant::Kriegspiel, 1);
    // The lie comes with the first answer and the verifier stops there: the rest of the game
    // would only make the file larger.
    config.max_actions = 12;
    let lied = Arc::new(AtomicBool::new(false));
    let flag = lied.clone();
    config.umpire_lie = Some(Box::new(move |_side, _i, bytes: &mut Vec<u8>| {
        if let Ok(rules::kriegspiel::Answer::Legal(mut a)) =
            rules::kriegspiel::Answer::from_canonical(bytes)
            && !flag.swap(true, Ordering::SeqCst)
        {
            a.pawn_tries += 1;
            *bytes = rules::kriegspiel::Answer::Legal(a).to_canonical();
        }
    }));
    let played = sim::selfplay_with(config).expect("self-play");
    assert!(lied.load(Ordering::SeqCst), "the umpire had an announcement to falsify");
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(FIXTURE);
    if std::env::var_os("FOGPROOF_BLESS").is_some() {
        std::fs::write(&path, &played.bytes).expect("write the fixture");
    }
    let committed = std::fs::read(&path).unwrap_or_else(|e| {
        panic!("{}: {e} (FOGPROOF_BLESS=1 writes it)", path.display());
    });
    assert!(
        committed == played.bytes,
        "{} is not the lying-umpire self-play any more: rewrite it with FOGPROOF_BLESS=1",
        path.display()
    );

    let out = Command::new(env!("CARGO_BIN_EXE_fogproof"))
        .args(["verify", "--json", path.to_str().expect("utf-8 path")])
        .output()
        .expect("fogproof runs");
    assert_eq!(out.status.code(), Some(1), "a record with a fault exits 1");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let umpire = played.cast.umpire.public().to_string();
    assert_eq!(v["status"], "faults");
    // The record's own terms name that umpire (what the browser test reads independently).
    let shown = Command::new(env!("CARGO_BIN_EXE_fogproof"))
        .args(["record", "show", path.to_str().expect("utf-8 path")])
        .output()
        .expect("fogproof runs");
    let record: serde_json::Value = serde_json::from_slice(&shown.stdout).expect("JSON");
    assert_eq!(record["terms"]["umpire"]["key"], umpire.as_str());
    let faults = v["faults"].as_array().expect("faults");
    assert!(!faults.is_empty());
    for f in faults {
        assert_eq!(f["culprit"], umpire.as_str(), "only the umpire is named: {f}");
        assert_eq!(f["role"], "umpire", "{f}");
    }
    assert_eq!(faults[0]["kind"], "false-announcement", "{}", faults[0]);
    assert_eq!(v["sanction"], "void", "an umpire's fault voids the game");
}

//! `verify_match`: the verdict bound to the bytes verified and to what the terms name.

use protocol::codec::Canonical;
use std::process::Command;

#[test]
fn a_verified_match_names_the_bytes_the_match_and_its_parties() {
    let s = sim::selfplay::selfplay_with(sim::selfplay::SelfplayConfig::new(
        rules::Variant::Kriegspiel,
        5,
    ))
    .expect("self-play");
    let v = verifier::verify_match(&s.bytes);
    assert!(v.verdict.is_valid());
    assert_eq!(v.result, v.verdict.sanctioned_result());
    assert!(v.result.is_some());
    assert_eq!(v.match_id, Some(protocol::terms::match_id(&s.record.terms.terms)));
    assert_eq!(v.players, s.colors);
    assert!(v.colors_known);
    assert_eq!(v.umpire, Some(s.cast.umpire.public()));
    assert_eq!(v.relay, Some(s.cast.relay.public()));
    assert_eq!(
        v.variant,
        Some((rules::Variant::Kriegspiel, rules::Variant::Kriegspiel.ruleset().to_owned()))
    );
    assert_eq!(v.verifier_version, env!("CARGO_PKG_VERSION"));
    // Both players and the umpire countersigned the relay's close.
    let mut signers = v.countersigned.clone();
    signers.sort();
    let mut parties =
        vec![s.cast.players[0].public(), s.cast.players[1].public(), s.cast.umpire.public()];
    parties.sort();
    assert_eq!(signers, parties);
    // The digest is the file's SHA-256, as coreutils computes it, when it is installed.
    let path = std::env::temp_dir().join(format!("fogproof-verified-{}.fpr", std::process::id()));
    std::fs::write(&path, &s.bytes).expect("write");
    if let Ok(out) = Command::new("sha256sum").arg(&path).output() {
        let text = String::from_utf8(out.stdout).expect("utf-8");
        assert_eq!(
            text.split_whitespace().next(),
            Some(protocol::hex::encode(&v.record_sha256).as_str())
        );
    }
    // One byte more is another record: another digest, and a fault.
    let mut longer = s.record.to_canonical();
    longer.push(0);
    let w = verifier::verify_match(&longer);
    assert_ne!(w.record_sha256, v.record_sha256);
    assert!(!w.verdict.is_valid());
}

#[test]
fn unreadable_bytes_give_a_verdict_and_nothing_else() {
    let v = verifier::verify_match(b"not a record");
    assert!(!v.verdict.is_valid());
    assert_eq!((v.match_id, v.players, v.relay, v.result), (None, None, None, None));
}

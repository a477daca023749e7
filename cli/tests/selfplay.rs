//! `fogproof selfplay`: the one-line summary, the record file (canonical, envelope and
//! disclosures check, same bytes as the library's self-play) and errors.

use protocol::codec::Canonical;
use protocol::record::MatchRecord;
use std::path::PathBuf;
use std::process::{Command, Output};

fn fogproof(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fogproof")).args(args).output().expect("the binary runs")
}

fn scratch(name: &str) -> PathBuf {
    let dir =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("selfplay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir.join(name)
}

#[test]
fn selfplay_writes_the_record_and_one_summary_line() {
    let path = scratch("sc6-3.rec");
    let file = path.to_str().unwrap();
    let out = fogproof(&["selfplay", "--variant", "secretchess6", "--seed", "3", "--out", file]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let bytes = std::fs::read(&path).unwrap();
    let (expected, summary) = sim::selfplay(rules::Variant::SecretChess6, 3).unwrap();
    assert_eq!(bytes, expected);
    assert_eq!(String::from_utf8(out.stdout).unwrap(), format!("{summary} -> {file}\n"));
    assert!(summary.to_string().starts_with("secretchess6: "), "{summary}");
    let record = MatchRecord::from_canonical(&bytes).unwrap();
    let (agreed, _head) = record.check_envelope().unwrap();
    assert_eq!(agreed.terms.variant(), rules::Variant::SecretChess6);
}

#[test]
fn selfplay_refuses_an_unknown_variant() {
    let path = scratch("bad.rec");
    let out = fogproof(&[
        "selfplay",
        "--variant",
        "shogi",
        "--seed",
        "1",
        "--out",
        path.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "fogproof: unknown variant 'shogi' (known: chess, kriegspiel, sic, intrigue, secretchess6, espionage)\n"
    );
    assert!(!path.exists());
}

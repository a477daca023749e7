//! The `fogproof` binary's behaviour common to every game: errors are one line naming the
//! problem, with exit status 2.

use std::process::{Command, Output};

fn fogproof(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fogproof")).args(args).output().expect("run fogproof")
}

fn assert_one_line_error(out: &Output, needle: &str) {
    assert_eq!(
        out.status.code(),
        Some(2),
        "exit status; stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.is_empty(), "nothing on stdout: {}", String::from_utf8_lossy(&out.stdout));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(err.contains(needle), "{err:?} should mention {needle:?}");
}

#[test]
fn unknown_variant_is_named() {
    let out =
        fogproof(&["rules", "legal", "--variant", "xiangqi", "--fen", "8/8/8/8/8/8/8/8 w - - 0 1"]);
    assert_one_line_error(&out, "unknown variant 'xiangqi'");
}

#[test]
fn bad_position_string_names_the_field() {
    let out = fogproof(&[
        "rules",
        "perft",
        "--variant",
        "chess",
        "--fen",
        "8/8/8 w - - 0 1",
        "--depth",
        "1",
    ]);
    assert_one_line_error(&out, "board");
}

#[test]
fn bad_seed_is_named() {
    let out = fogproof(&["rules", "setup", "--variant", "sic", "--seed", "abc", "--side", "white"]);
    assert_one_line_error(&out, "bad seed");
    let seed = "00".repeat(32);
    let out = fogproof(&["rules", "setup", "--variant", "sic", "--seed", &seed, "--side", "green"]);
    assert_one_line_error(&out, "bad side 'green'");
    let out =
        fogproof(&["rules", "setup", "--variant", "chess", "--seed", &seed, "--side", "white"]);
    assert_one_line_error(&out, "no random setup");
}

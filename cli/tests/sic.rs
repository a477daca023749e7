//! The `sic` referee and setup commands, run as the built binary: exact stdout and exit status.

use std::io::Write;
use std::process::{Command, Stdio};

fn run(args: &[&str], stdin: &str) -> (String, String, i32) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_fogproof"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run fogproof");
    child.stdin.take().expect("stdin").write_all(stdin.as_bytes()).expect("write stdin");
    let out = child.wait_with_output().expect("wait");
    (
        String::from_utf8(out.stdout).expect("utf-8"),
        String::from_utf8(out.stderr).expect("utf-8"),
        out.status.code().expect("exit code"),
    )
}

const REFEREE: [&str; 4] = ["rules", "referee", "--variant", "sic"];

#[test]
fn referee_answers_each_line_and_refuses_illegal_moves() {
    let input = concat!(
        r#"{"start":"k7/8/8/7y/8/8/8/4K1R1 w - - 0 1"}"#,
        "\n",
        r#"{"move":"g1a7"}"#,
        "\n",
        r#"{"move":"g1h1"}"#,
        "\n"
    );
    let (out, err, code) = run(&REFEREE, input);
    assert_eq!((err.as_str(), code), ("", 0));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert!(
        lines[0].starts_with(
            r#"{"white":{"side":"white","to_move":"white","own":[{"square":"e1","role":"king""#
        ),
        "{}",
        lines[0]
    );
    assert_eq!(lines[1], r#"{"legal":false}"#, "not a rook move: refused, nothing told");
    // R-S7: the h5 decoy may not step onto h4 or h6 (the rook's file); R-S8: "decoy".
    assert_eq!(
        lines[2],
        concat!(
            r#"{"legal":true,"white":{"you-moved":{"check":true,"captured":null,"end":null}},"#,
            r#""black":{"opponent-moved":{"from":"g1","to":"h1","id":"g1","lost":null,"check":"decoy","#,
            r#""legal":["a8a7","a8b7","a8b8","h5f4","h5f6","h5g3","h5g4","h5g5","h5g6","h5g7"],"end":null}},"end":null}"#
        )
    );
}

#[test]
fn referee_reports_bad_input_on_one_line_with_status_2() {
    let (out, err, code) = run(&REFEREE, "{\"move\":\"e2e9\"}\n");
    assert_eq!(out, "");
    assert_eq!(err, "fogproof: line 1: bad move 'e2e9': to-square is not on the board\n");
    assert_eq!(code, 2);
    let (_, err, code) = run(&REFEREE, "{\"start\":\"8/8 w\"}\n");
    assert_eq!(code, 2);
    assert!(err.starts_with("fogproof: line 1: bad position string: fields:"), "{err}");
}

#[test]
fn setup_prints_the_pinned_vector() {
    let zero = "0".repeat(64);
    let (out, _, code) =
        run(&["rules", "setup", "--variant", "sic", "--seed", &zero, "--side", "white"], "");
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "8/8/8/8/8/RPPN1P1P/PABPPBPD/K3RN2 w a1e1f1a2b2c2d2e2f2g2h2a3b3c3d3f3h3 - 0 1\n"
    );
}

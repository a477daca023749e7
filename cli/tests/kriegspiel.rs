//! `fogproof rules referee --variant kriegspiel`: exact stdout for short games, exit status 2
//! with a message naming the problem on bad input.

use std::io::Write;
use std::process::{Command, Stdio};

/// Runs the referee on `input`; returns (stdout, stderr, exit code).
fn referee(variant: &str, input: &str) -> (String, String, i32) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_fogproof"))
        .args(["rules", "referee", "--variant", variant])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
        out.status.code().unwrap(),
    )
}

const QUIET: &str = r#"{"legal":true,"capture":null,"checks":[],"pawn_tries":0,"end":null}"#;

#[test]
fn r_k1_r_k2_fools_mate_with_an_illegal_try() {
    let input = r#"{"try":"f2f3"}
{"try":"e7e5"}
{"try":"g2g4"}
{"try":"d8d1"}
{"try":"d8h4"}
"#;
    let (stdout, stderr, code) = referee("kriegspiel", input);
    let want = [
        QUIET,
        QUIET,
        QUIET,
        r#"{"legal":false}"#,
        r#"{"legal":true,"capture":null,"checks":["short-diagonal"],"pawn_tries":0,"end":"checkmate"}"#,
    ];
    assert_eq!(stdout, want.map(|l| format!("{l}\n")).concat(), "{stderr}");
    assert_eq!(code, 0, "{stderr}");
    // Orthodox chess answers the same way.
    assert_eq!(referee("chess", input).0, stdout);
}

#[test]
fn r_k2_start_line_capture_en_passant_and_pawn_tries() {
    let input = r#"{"start":"4k3/3p4/8/4P3/8/8/8/4K3 b - - 0 1"}
{"try":"d7d5"}
{"try":"e5d6"}
"#;
    let (stdout, stderr, code) = referee("kriegspiel", input);
    let want = concat!(
        r#"{"legal":true,"capture":null,"checks":[],"pawn_tries":1,"end":null}"#,
        "\n",
        r#"{"legal":true,"capture":{"square":"d5","kind":"pawn","en_passant":true},"checks":[],"pawn_tries":0,"end":null}"#,
        "\n"
    );
    assert_eq!((stdout.as_str(), code), (want, 0), "{stderr}");
}

#[test]
fn bad_input_exits_2_naming_the_problem() {
    let cases = [
        ("{\"try\":\"e2e9\"}\n", "line 1", "to-square is not on the board"),
        ("not json\n", "line 1", "expected {\"try\":\"e2e4\"}"),
        ("{\"try\":\"e2e4\",\"x\":1}\n", "line 1", "unknown field"),
        ("{\"try\":\"e2e4\"}\n{\"start\":\"8/8/8/8/8/8/8/8 w - - 0 1\"}\n", "line 2", "first line"),
        (
            "{\"start\":\"8/8/8/8/8/8/8/8 w - - 0 1\"}\n",
            "line 1",
            "board: expected exactly one white king",
        ),
        ("{}\n", "line 1", "exactly one of"),
    ];
    for (input, line, problem) in cases {
        let (_, stderr, code) = referee("kriegspiel", input);
        assert_eq!(code, 2, "{input}");
        assert!(stderr.contains(line) && stderr.contains(problem), "{input}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    }
}

#[test]
fn tries_after_the_end_are_an_error() {
    let input = "{\"try\":\"f2f3\"}\n{\"try\":\"e7e5\"}\n{\"try\":\"g2g4\"}\n{\"try\":\"d8h4\"}\n{\"try\":\"a2a3\"}\n";
    let (stdout, stderr, code) = referee("kriegspiel", input);
    assert_eq!(stdout.lines().count(), 4);
    assert_eq!(code, 2);
    assert!(stderr.contains("line 5: the game is over (checkmate)"), "{stderr}");
}

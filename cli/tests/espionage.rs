//! The Espionage Chess referee as a user runs it: the built `fogproof` binary, JSON lines on
//! standard input, exact standard output and exit status.

use std::io::Write;
use std::process::{Command, Stdio};

/// Runs `fogproof rules referee --variant espionage` on `input`: (stdout, stderr, exit code).
fn referee(input: &str) -> (String, String, Option<i32>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_fogproof"))
        .args(["rules", "referee", "--variant", "espionage"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    child.stdin.take().expect("stdin").write_all(input.as_bytes()).expect("write stdin");
    let out = child.wait_with_output().expect("the binary ends");
    (
        String::from_utf8(out.stdout).expect("utf-8 stdout"),
        String::from_utf8(out.stderr).expect("utf-8 stderr"),
        out.status.code(),
    )
}

#[test]
fn plays_from_the_start_and_answers_illegal_moves() {
    let input = concat!(
        r#"{"move":"g2g5"}"#,
        "\n",
        r#"{"move":"a3a4"}"#,
        "\n",
        r#"{"move":"c6c7"}"#,
        "\n",
        r#"{"move":"g5g6"}"#,
        "\n",
    );
    let (stdout, stderr, code) = referee(input);
    assert_eq!(
        stdout,
        concat!(
            r#"{"legal":true,"capture":"pawn","check":false,"end":null}"#,
            "\n",
            r#"{"legal":false}"#,
            "\n",
            r#"{"legal":true,"capture":null,"check":false,"end":null}"#,
            "\n",
            r#"{"legal":true,"capture":"rook","check":false,"end":null}"#,
            "\n",
        )
    );
    assert_eq!((stderr.as_str(), code), ("", Some(0)));
}

#[test]
fn starts_from_a_position_and_reports_the_end() {
    let input =
        concat!(r#"{"start":"k6/7/1S5/7/7/7/6K   w - 0 1"}"#, "\n", r#"{"move":"b5b6"}"#, "\n",);
    let (stdout, stderr, code) = referee(input);
    assert_eq!(
        stdout,
        concat!(
            r#"{"start":"k6/7/1S5/7/7/7/6K w - 0 1"}"#,
            "\n",
            r#"{"legal":true,"capture":null,"check":true,"end":{"winner":"white","reason":"checkmate"}}"#,
            "\n",
        )
    );
    assert_eq!((stderr.as_str(), code), ("", Some(0)));
}

#[test]
fn bad_input_is_one_line_on_stderr_and_exit_2() {
    let cases: [(&str, &str, &str); 6] = [
        (
            "not json\n",
            "",
            "fogproof: line 1: expected {\"start\":\"POSITION\"} or {\"move\":\"UCI\"}: expected ident at line 1 column 2\n",
        ),
        (
            "{\"move\":\"g2g5\"}\n{\"start\":\"k6/7/1S5/7/7/7/6K w - 0 1\"}\n",
            "{\"legal\":true,\"capture\":\"pawn\",\"check\":false,\"end\":null}\n",
            "fogproof: line 2: a start position is only allowed on the first line\n",
        ),
        (
            "{\"start\":\"k6/7/7/7/7/7/6K w e4 0 1\"}\n",
            "",
            "fogproof: line 1: bad position string: spy-square: e4 does not hold a spy of the side that just moved (black)\n",
        ),
        (
            "{\"move\":\"z9z9\"}\n",
            "",
            "fogproof: line 1: bad move 'z9z9': from-square is not on the board\n",
        ),
        (
            "{\"move\":\"g2g5\",\"start\":\"x\"}\n",
            "",
            "fogproof: line 1: expected exactly one of the keys \"start\" and \"move\"\n",
        ),
        (
            "{\"start\":\"k6/7/1S5/7/7/7/6K w - 0 1\"}\n{\"move\":\"b5b6\"}\n{\"move\":\"a7a6\"}\n",
            "{\"start\":\"k6/7/1S5/7/7/7/6K w - 0 1\"}\n{\"legal\":true,\"capture\":null,\"check\":true,\"end\":{\"winner\":\"white\",\"reason\":\"checkmate\"}}\n",
            "fogproof: line 3: move 'a7a6': the game is over\n",
        ),
    ];
    for (input, want_out, want_err) in cases {
        let (stdout, stderr, code) = referee(input);
        assert_eq!(
            (stdout.as_str(), stderr.as_str(), code),
            (want_out, want_err, Some(2)),
            "{input}"
        );
    }
}

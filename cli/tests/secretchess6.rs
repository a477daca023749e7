//! CLI tests of 6x6 Secret Chess: `fogproof rules referee|legal|perft --variant secretchess6`,
//! pinned by exact stdout, stderr and exit status.

use std::io::Write;
use std::process::{Command, Stdio};

fn fogproof(args: &[&str], stdin: &str) -> (String, String, Option<i32>) {
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
        out.status.code(),
    )
}

const REFEREE: &[&str] = &["rules", "referee", "--variant", "secretchess6"];

/// Options, a blank line (skipped), setups in either order, a move under hidden scores
/// (R-G7: no scores told), a Life Freeze (R-G9) and Black's reply: the frozen queen d3 did not
/// age and White's next board shows it with lifespan 1. Scores in the position strings: after
/// d1d3 White 4 (queen on king d6: 2, on knight a6: 1; rook f1 on bishop f6: 1), Black 3 (seed
/// example threats); after a6b4 both 7 (Black's knight b4 now threatens the queen d3).
#[test]
fn referee_plays_setup_move_freeze_with_hidden_scores() {
    let input = [
        r#"{"options":{"life_freezes":{"white":1,"black":0},"hidden_scores":true}}"#,
        r#"{"side":"black","action":"setup","formation":"n1qkrb","false_squares":["a1"]}"#,
        "",
        r#"{"side":"white","action":"setup","formation":"NBKQ1R","false_squares":[]}"#,
        r#"{"side":"white","action":"move","mv":"d1d3"}"#,
        r#"{"side":"white","action":"life-freeze","piece":"d3"}"#,
        r#"{"side":"black","action":"move","mv":"a6b4"}"#,
    ]
    .join("\n");
    let expected = [
    "{\"position\":null,\"result\":null,\"to_act\":[\"white\",\"black\"],\"told\":{\"black\":null,\"white\":null}}\n",
    "{\"position\":null,\"result\":null,\"to_act\":[\"white\"],\"told\":{\"black\":{\"events\":[{\"event\":\"setup-accepted\"}]},\"white\":{\"events\":[{\"event\":\"opponent-ready\"}]}}}\n",
    "{\"position\":\"n1qkrb/6/6/6/6/NBKQ1R w - a1 - 0-0 1\",\"result\":null,\"to_act\":[\"white\"],\"told\":{\"black\":{\"events\":[{\"event\":\"opponent-ready\"},{\"event\":\"board\",\"pieces\":[{\"frozen\":false,\"lifespan\":null,\"powered\":false,\"role\":\"knight\",\"square\":\"a6\"},{\"frozen\":false,\"lifespan\":null,\"powered\":false,\"role\":\"queen\",\"square\":\"c6\"},{\"frozen\":false,\"lifespan\":null,\"powered\":false,\"role\":\"king\",\"square\":\"d6\"},{\"frozen\":false,\"lifespan\":null,\"powered\":false,\"role\":\"rook\",\"square\":\"e6\"},{\"frozen\":false,\"lifespan\":null,\"powered\":false,\"role\":\"bishop\",\"square\":\"f6\"}],\"red\":[\"a4\",\"d4\",\"e4\",\"f4\",\"d5\",\"f5\",\"d6\",\"f6\"],\"turn\":1,\"your_turn\":false}]},\"white\":{\"events\":[{\"event\":\"setup-accepted\"},{\"event\":\"board\",\"pieces\":[{\"frozen\":false,\"lifespan\":null,\"powered\":false,\"role\":\"knight\",\"square\":\"a1\"},{\"frozen\":false,\"lifespan\":null,\"powered\":false,\"role\":\"bishop\",\"square\":\"b1\"},{\"frozen\":false,\"lifespan\":null,\"powered\":false,\"role\":\"king\",\"square\":\"c1\"},{\"frozen\":false,\"lifespan\":null,\"powered\":false,\"role\":\"queen\",\"square\":\"d1\"},{\"frozen\":false,\"lifespan\":null,\"powered\":false,\"role\":\"rook\",\"square\":\"f1\"}],\"red\":[\"a1\",\"c1\",\"e1\",\"b2\",\"c2\",\"e2\",\"c3\",\"e3\",\"f3\"],\"turn\":1,\"your_turn\":true}]}}}\n",
    "{\"position\":\"n1qkrb/6/6/3Q2/6/NBK2R b d3=1 a1 - 4-3 2\",\"result\":null,\"to_act\":[\"white\"],\"told\":{\"black\":null,\"white\":{\"events\":[{\"event\":\"moved\",\"mv\":\"d1d3\"}]}}}\n",
    "{\"position\":\"n1qkrb/6/6/3Q2/6/NBK2R b d3=1 a1 d3 4-3 2\",\"result\":null,\"to_act\":[\"black\"],\"told\":{\"black\":{\"events\":[{\"event\":\"board\",\"pieces\":[{\"frozen\":false,\"lifespan\":null,\"powered\":false,\"role\":\"knight\",\"square\":\"a6\"},{\"frozen\":false,\"lifespan\":null,\"powered\":false,\"role\":\"queen\",\"square\":\"c6\"},{\"frozen\":false,\"lifespan\":null,\"powered\":false,\"role\":\"king\",\"square\":\"d6\"},{\"frozen\":false,\"lifespan\":null,\"powered\":false,\"role\":\"rook\",\"square\":\"e6\"},{\"frozen\":false,\"lifespan\":null,\"powered\":false,\"role\":\"bishop\",\"square\":\"f6\"}],\"red\":[\"c4\",\"d4\",\"e4\",\"f4\",\"b5\",\"d5\",\"f5\",\"a6\",\"d6\",\"f6\"],\"turn\":2,\"your_turn\":true}]},\"white\":{\"events\":[{\"event\":\"frozen\",\"piece\":\"d3\"}]}}}\n",
    "{\"position\":\"2qkrb/6/1n4/3Q2/6/NBK2R w d3=1,b4=4 a1 - 7-7 3\",\"result\":null,\"to_act\":[\"white\"],\"told\":{\"black\":{\"events\":[{\"event\":\"moved\",\"mv\":\"a6b4\"}]},\"white\":{\"events\":[{\"event\":\"board\",\"pieces\":[{\"frozen\":false,\"lifespan\":null,\"powered\":false,\"role\":\"knight\",\"square\":\"a1\"},{\"frozen\":false,\"lifespan\":null,\"powered\":false,\"role\":\"bishop\",\"square\":\"b1\"},{\"frozen\":false,\"lifespan\":null,\"powered\":false,\"role\":\"king\",\"square\":\"c1\"},{\"frozen\":false,\"lifespan\":null,\"powered\":false,\"role\":\"rook\",\"square\":\"f1\"},{\"frozen\":false,\"lifespan\":1,\"powered\":false,\"role\":\"queen\",\"square\":\"d3\"}],\"red\":[\"a1\",\"c1\",\"e1\",\"a2\",\"b2\",\"c2\",\"e2\",\"c3\",\"d3\",\"e3\",\"f3\"],\"turn\":3,\"your_turn\":true}]}}}\n",
    ]
    .concat();
    let (stdout, stderr, code) = fogproof(REFEREE, &input);
    assert_eq!(stderr, "");
    assert_eq!(code, Some(0));
    assert_eq!(stdout, expected);
}

#[test]
fn referee_stops_on_an_illegal_move_with_one_line_and_status_2() {
    let input = [
        r#"{"side":"white","action":"setup","formation":"NBKQ1R","false_squares":[]}"#,
        r#"{"side":"black","action":"setup","formation":"n1qkrb","false_squares":[]}"#,
        r#"{"side":"white","action":"move","mv":"c1c2"}"#,
        r#"{"side":"white","action":"move","mv":"a1b3"}"#,
    ]
    .join("\n");
    let (stdout, stderr, code) = fogproof(REFEREE, &input);
    assert_eq!(code, Some(2));
    assert_eq!(stdout.lines().count(), 2, "answers before the error are printed");
    assert_eq!(
        stderr,
        "fogproof: line 3: white: illegal move c1c2 (R-G2: own pieces but the king, within \
         one's own territory, onto empty squares; R-G4 for knights)\n"
    );
}

#[test]
fn referee_names_bad_input() {
    for (line, msg) in [
        ("not json", "fogproof: line 1: not JSON"),
        (r#"{"action":"end-turn"}"#, "fogproof: line 1: missing \"side\" (white or black)"),
        (r#"{"side":"red","action":"end-turn"}"#, "fogproof: line 1: bad side \"red\""),
        (r#"{"side":"white","action":"fly"}"#, "fogproof: line 1: bad action"),
        (
            r#"{"side":"white","action":"setup","formation":"KQRBN","false_squares":[]}"#,
            "fogproof: line 1: white: invalid formation: 'KQRBN' must cover six files",
        ),
        // The rules take false squares as a set of squares: repeats and names off the 6x6
        // board are the text's problems, named as the rules name theirs (R-G1).
        (
            r#"{"side":"white","action":"setup","formation":"RNB1QK","false_squares":["a4","a4"]}"#,
            "fogproof: line 1: white: invalid false squares: a4 is given twice",
        ),
        (
            r#"{"side":"white","action":"setup","formation":"RNB1QK","false_squares":["a9"]}"#,
            "fogproof: line 1: white: invalid false squares: 'a9' is not a 6x6 square",
        ),
    ] {
        let (stdout, stderr, code) = fogproof(REFEREE, line);
        assert_eq!(code, Some(2), "{line}");
        assert_eq!(stdout, "");
        assert!(stderr.starts_with(msg), "{line}: {stderr}");
        assert_eq!(stderr.lines().count(), 1);
    }
}

#[test]
fn legal_and_perft_of_the_example_start() {
    let fen = "n1qkrb/6/6/6/6/NBKQ1R w - - - 0-0 1";
    let (stdout, _, code) =
        fogproof(&["rules", "legal", "--variant", "secretchess6", "--fen", fen], "");
    assert_eq!(code, Some(0));
    assert_eq!(
        stdout,
        "a1b3\na1c2\na1d2+\nb1a2\nb1c2\nb1d3\nd1b3\nd1c2\nd1d2\nd1d3\nd1e1\nd1e2\nd1f3\nf1e1\nf1f2\nf1f3\n"
    );
    let (stdout, _, code) = fogproof(
        &["rules", "perft", "--variant", "secretchess6", "--fen", fen, "--depth", "3"],
        "",
    );
    assert_eq!(code, Some(0));
    assert_eq!(stdout, "2954\n");
    let (_, stderr, code) =
        fogproof(&["rules", "legal", "--variant", "secretchess6", "--fen", "k5/6/Q5/6/6/K5 w"], "");
    assert_eq!(code, Some(2));
    assert_eq!(
        stderr,
        "fogproof: bad position string: board: white piece on a4 stands in the enemy territory (R-G2)\n"
    );
}

//! `fogproof rules referee --variant intrigue`: exact output for a short game (secret setups,
//! an informer answer, an en passant appearance, views, an illegal move) and exit status 2 with
//! a one-line message naming the problem on bad input.

use std::io::Write;
use std::process::{Command, Stdio};

fn referee(input: &str) -> (String, String, Option<i32>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_fogproof"))
        .args(["rules", "referee", "--variant", "intrigue"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child.stdin.take().expect("stdin").write_all(input.as_bytes()).expect("write stdin");
    let out = child.wait_with_output().expect("the binary ends");
    (
        String::from_utf8(out.stdout).expect("utf-8"),
        String::from_utf8(out.stderr).expect("utf-8"),
        out.status.code(),
    )
}

#[test]
fn a_short_game_with_setups_an_answer_and_an_appearance() {
    let input = r#"{"setup":{"black":{"king":"f6","informer":"c7"}}}
{"setup":{"white":{"king":"d3","informer":"e2","queen_on_king_square":true}}}
{"move":"e2e4"}
{"move":"e2e5"}
{"move":"d7d5"}
{"move":"e4d5"}
{"move":"c7c5"}
{"move":"d5c6"}
{"view":"black"}
"#;
    let want = r#"{"setup":[{"side":"black","queen_on_king_square":false}],"play_starts":false}
{"setup":[{"side":"white","queen_on_king_square":true}],"play_starts":true,"fen":"rnbq1bnr/pppppppp/8/8/8/8/PPPPPPPP/RNB1QBNR w KQkq - 0 1 d3,f6 e2,c7"}
{"move":"e2e4","legal":true,"side":"white","capture":null,"inspection":null,"check":[],"end":null,"fen":"rnbq1bnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNB1QBNR b KQkq - 0 1 d3,f6 e4,c7"}
{"move":"e2e5","legal":false}
{"move":"d7d5","legal":true,"side":"black","capture":null,"inspection":null,"check":[],"end":null,"fen":"rnbq1bnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNB1QBNR w KQkq - 0 2 d3,f6 e4,c7"}
{"move":"e4d5","legal":true,"side":"white","capture":{"square":"d5","piece":"p","en_passant":false},"inspection":{"owner":"black","informer":false,"king":null,"removed":null},"check":[],"end":null,"fen":"rnbq1bnr/ppp1pppp/8/3P4/8/8/PPPP1PPP/RNB1QBNR b KQkq - 0 2 d3,f6 d5,c7"}
{"move":"c7c5","legal":true,"side":"black","capture":null,"inspection":null,"check":[],"end":null,"fen":"rnbq1bnr/pp2pppp/8/2pP4/8/8/PPPP1PPP/RNB1QBNR w KQkq c6 0 3 d3,f6 d5,c5"}
{"move":"d5c6","legal":true,"side":"white","capture":{"square":"c5","piece":"p","en_passant":true},"inspection":{"owner":"black","informer":true,"king":"f6","removed":null},"check":[],"end":null,"fen":"rnbq1bnr/pp2pppp/2P2k2/8/8/8/PPPP1PPP/RNB1QBNR b KQ - 0 3 d3,- c6,-"}
{"view":"black","fen":"rnbq1bnr/pp2pppp/2P2k2/8/8/8/PPPP1PPP/RNB1QBNR b KQ - 0 3 ?,- ?,-"}
"#;
    assert_eq!(referee(input), (want.to_string(), String::new(), Some(0)));
}

#[test]
fn an_appearing_king_captures_the_king_and_the_game_ends() {
    let input = r#"{"start":"8/8/8/3p4/4P3/8/4K3/7R w - - 0 1 -,e2 -,d5"}
{"move":"e4d5"}
"#;
    let want = r#"{"start":"8/8/8/3p4/4P3/8/4K3/7R w - - 0 1 -,e2 -,d5","to_move":"white","end":null}
{"move":"e4d5","legal":true,"side":"white","capture":{"square":"d5","piece":"p","en_passant":false},"inspection":{"owner":"black","informer":true,"king":"e2","removed":"K"},"check":[],"end":{"result":"0-1","winner":"black","reason":"king-captured"},"fen":"8/8/8/3P4/8/8/4k3/7R b - - 0 1 -,- -,-"}
"#;
    assert_eq!(referee(input), (want.to_string(), String::new(), Some(0)));
}

#[test]
fn bad_input_exits_2_with_a_message_naming_the_problem() {
    let start = r#"{"start":"8/8/8/3p4/4P3/8/4K3/7R w - - 0 1 -,e2 -,d5"}"#;
    for (input, message) in [
        ("not json\n", "line 1: expected one of"),
        ("{\"move\":\"e2e4\"}\n", "line 1: no game in play"),
        (&format!("{start}\n{{\"move\":\"e4\"}}\n"), "line 2: bad move 'e4'"),
        (&format!("{start}\n{{\"move\":\"e4d5\"}}\n{{\"move\":\"e2e3\"}}\n"), "the game is over"),
        ("{\"start\":\"8/8/8/8/8/8/8/8 w - - 0 1 ?,- -,-\"}\n", "player's view"),
        ("{\"setup\":{\"white\":{\"king\":\"z9\",\"informer\":\"e2\"}}}\n", "bad king square 'z9'"),
        ("{\"setup\":{\"white\":{\"king\":\"d3\",\"informer\":\"e7\"}}}\n", "white's setup"),
        ("{\"view\":\"red\"}\n", "bad side 'red'"),
    ] {
        let (stdout, stderr, code) = referee(input);
        assert_eq!(code, Some(2), "{input}");
        assert!(stderr.starts_with("fogproof: ") && stderr.contains(message), "{input}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(!stdout.contains("error"), "{stdout}");
    }
}

//! Scenario tests of Kriegspiel, one or more per rule R-K1..R-K5: who is told what after an
//! attempt, the exact announcement, and the touch-move option.

use rules::chess::Position;
use rules::kriegspiel::{
    Announcement, Answer, Capture, CaptureKind, CheckKind, End, Options, State, parse_attempt,
};
use rules::{ActionError, Analysis, BoardSize, Color, Game, Role, Square};

fn sq(s: &str) -> Square {
    Square::parse(s, BoardSize::Eight).unwrap()
}

fn game(fen: &str) -> State {
    State::from_position(Position::from_fen(fen).unwrap(), Options::default())
}

/// Tries `attempt` by the side to move; returns the new state and what each side was told.
fn try_(s: &State, attempt: &str) -> (State, Option<Answer>, Option<Answer>) {
    let actor = s.position().turn();
    let t = s.apply(actor, &parse_attempt(attempt).unwrap()).unwrap();
    let mover = t.told[actor].clone();
    let other = t.told[actor.other()].clone();
    (t.state, mover, other)
}

/// Plays legal moves and returns the last announcement (checked to be told to both alike).
fn play(mut s: State, moves: &str) -> (State, Announcement) {
    let mut last = None;
    for m in moves.split_whitespace() {
        let (next, mover, other) = try_(&s, m);
        assert_eq!(mover, other, "{m}: both sides are told the same");
        match mover {
            Some(Answer::Legal(a)) => last = Some(a),
            other => panic!("{m} was not legal: {other:?}"),
        }
        s = next;
    }
    (s, last.expect("at least one move"))
}

fn quiet(checks: Vec<CheckKind>, pawn_tries: u32) -> Announcement {
    Announcement { capture: None, checks, pawn_tries, end: None }
}

#[test]
fn r_k1_illegal_attempt_is_told_to_the_mover_only() {
    let (s, _) = play(State::start(Options::default()), "e2e4 e7e5");
    // Blocked by an enemy pawn the mover cannot see: "illegal" to White, nothing to Black.
    let (after, mover, other) = try_(&s, "e4e5");
    assert_eq!(mover, Some(Answer::Illegal));
    assert_eq!(other, None);
    assert_eq!(after.position(), s.position());
    assert_eq!(after.to_act(), vec![Color::White], "the mover tries again");
}

#[test]
fn r_k1_the_opponent_cannot_tell_how_many_attempts_failed() {
    let (start, _) = play(State::start(Options::default()), "e2e4 e7e5");
    let mut s = start.clone();
    for attempt in ["e4e5", "d1d8", "e1e3"] {
        let (next, mover, other) = try_(&s, attempt);
        assert_eq!((mover, other), (Some(Answer::Illegal), None), "{attempt}");
        s = next;
    }
    let (direct, told_direct) = play(start, "g1f3");
    let (after_tries, told_after) = play(s, "g1f3");
    assert_eq!(told_direct, told_after);
    assert_eq!(direct, after_tries, "no trace of the illegal attempts is kept");
}

#[test]
fn r_k2_capture_names_the_square_and_pawn_or_piece() {
    let (_, a) = play(State::start(Options::default()), "e2e4 d7d5 e4d5");
    let want = Capture { square: sq("d5"), kind: CaptureKind::Pawn, en_passant: false };
    assert_eq!(a.capture, Some(want));
    let (_, a) = play(State::start(Options::default()), "e2e4 g8f6 e4e5 f6e4 d2d3 e4c3 b2c3");
    let want = Capture { square: sq("c3"), kind: CaptureKind::Piece, en_passant: false };
    assert_eq!(a.capture, Some(want));
}

#[test]
fn r_k2_en_passant_is_announced_as_such_on_the_captured_pawns_square() {
    let (_, a) = play(game("4k3/3p4/8/4P3/8/8/8/4K3 b - - 0 1"), "d7d5 e5d6");
    let want = Capture { square: sq("d5"), kind: CaptureKind::Pawn, en_passant: true };
    assert_eq!(a, Announcement { capture: Some(want), ..quiet(vec![], 0) });
}

#[test]
fn r_k2_rank_file_and_knight_checks() {
    let (_, a) = play(game("4k3/8/8/8/8/8/r7/4K3 b - - 0 1"), "a2a1");
    assert_eq!(a.checks, vec![CheckKind::Rank]);
    let (_, a) = play(game("r3k3/8/8/8/8/8/8/3K4 b - - 0 1"), "a8d8");
    assert_eq!(a.checks, vec![CheckKind::File]);
    let (_, a) = play(game("4k3/8/8/8/7n/P7/8/4K3 b - - 0 1"), "h4f3");
    assert_eq!(a.checks, vec![CheckKind::Knight]);
}

#[test]
fn r_k2_long_and_short_diagonal_depend_on_the_kings_square() {
    // King e1: the diagonal e1-a5 has 5 squares, e1-h4 has 4.
    let (_, a) = play(game("4k3/4b3/8/8/8/P7/8/4K3 b - - 0 1"), "e7b4");
    assert_eq!(a.checks, vec![CheckKind::LongDiagonal]);
    let (_, a) = play(game("4k3/4b3/8/8/8/P7/8/4K3 b - - 0 1"), "e7h4");
    assert_eq!(a.checks, vec![CheckKind::ShortDiagonal]);
    // King d4: a1-h8 has 8 squares, a7-g1 has 7.
    let (_, a) = play(game("4k3/8/8/8/3K4/P7/8/2b5 b - - 0 1"), "c1b2");
    assert_eq!(a.checks, vec![CheckKind::LongDiagonal]);
    let (_, a) = play(game("4k3/8/8/8/3K4/P7/7b/8 b - - 0 1"), "h2g1");
    assert_eq!(a.checks, vec![CheckKind::ShortDiagonal]);
    // A pawn checks along a diagonal too: d5 against e4 lies on a8-h1 (8 squares vs 7).
    let (_, a) = play(game("4k3/8/3p4/8/4K3/8/8/8 b - - 0 1"), "d6d5");
    assert_eq!(a.checks, vec![CheckKind::LongDiagonal]);
    // King h8 (a corner): a1-h8 has 8 squares, the other diagonal just h8 itself.
    let (_, a) = play(game("7k/p7/8/8/8/8/8/2B1K3 w - - 0 1"), "c1b2");
    assert_eq!(a.checks, vec![CheckKind::LongDiagonal]);
}

#[test]
fn r_k2_double_check_gives_two_announcements() {
    // The knight leaves e3 for c2: a file check by the rook and a knight check.
    let (_, a) = play(game("k3r3/8/8/8/8/4n3/8/4K3 b - - 0 1"), "e3c2");
    assert_eq!(a.checks, vec![CheckKind::File, CheckKind::Knight]);
}

#[test]
fn r_k2_pawn_tries_count_en_passant_and_promoting_captures_once() {
    // After d7d5 White's pawn tries: b7xa8 and b7xc8 (each one try, not four promotions)
    // and e5xd6 en passant.
    let (s, a) = play(game("rkn5/1P1p4/8/4P3/8/8/8/4K3 b - - 0 1"), "d7d5");
    assert_eq!(a, quiet(vec![], 3));
    let legal = s.position().legal_uci();
    assert_eq!(legal.iter().filter(|m| m.starts_with("b7")).count(), 8, "{legal:?}");
    // A pawn capture that would leave the king in check is no try.
    let (_, a) = play(game("r6k/8/8/3p4/4P3/8/4K3/8 b - - 0 1"), "a8b8");
    assert_eq!(a.pawn_tries, 1, "e4xd5 is legal");
    let (_, a) = play(game("r6k/8/8/3p4/4P3/8/4K3/8 b - - 0 1"), "a8e8");
    assert_eq!(a.pawn_tries, 0, "e4 is pinned to the king on e2 by the rook on e8");
}

#[test]
fn r_k2_end_of_game_is_announced_to_both() {
    let (s, a) = play(State::start(Options::default()), "f2f3 e7e5 g2g4 d8h4");
    assert_eq!(a.end, Some(End::Checkmate));
    assert_eq!(a.checks, vec![CheckKind::ShortDiagonal]);
    assert_eq!(s.result().map(|r| r.winner), Some(Some(Color::Black)));
    assert_eq!(s.apply(Color::White, &parse_attempt("a2a3").unwrap()), Err(ActionError::GameOver));
    let (_, a) = play(game("7k/8/6K1/8/8/8/5Q2/8 w - - 0 1"), "f2f7");
    assert_eq!(a.end, Some(End::Stalemate));
    let (_, a) = play(game("4k3/8/8/8/8/8/3r4/4K3 w - - 0 1"), "e1d2");
    assert_eq!(a.end, Some(End::InsufficientMaterial));
    let (_, a) = play(game("4k3/8/8/8/8/8/r7/4K2R w - - 99 80"), "h1h2");
    assert_eq!(a.end, Some(End::FiftyMove));
    let shuffle = "g1f3 g8f6 f3g1 f6g8";
    let (_, a) = play(State::start(Options::default()), &format!("{shuffle} {shuffle}"));
    assert_eq!(a.end, Some(End::Repetition));
}

#[test]
fn r_k3_promotions_are_not_announced_and_must_be_named() {
    // (Black keeps a pawn: without it a minor-piece promotion would end the game by R-C2's
    // insufficient material, which the announcement of the end then reveals.)
    let s = game("8/P7/8/7k/7p/8/8/4K3 w - - 0 1");
    let answers: Vec<_> =
        ["a7a8q", "a7a8r", "a7a8b", "a7a8n"].iter().map(|m| try_(&s, m).2).collect();
    assert!(answers.iter().all(|a| *a == Some(Answer::Legal(quiet(vec![], 0)))), "{answers:?}");
    // The piece lands as named (the umpire's board), but nobody is told.
    let (after, _, _) = try_(&s, "a7a8n");
    assert_eq!(after.position().board().piece_at(sq("a8")).map(|p| p.role), Some(Role::Knight));
    // An attempt without the piece named is not a legal move.
    assert_eq!(try_(&s, "a7a8").1, Some(Answer::Illegal));
    // The announcement's JSON has exactly these fields: no move, no piece, no promotion.
    let json = serde_json::to_value(quiet(vec![], 0)).unwrap();
    let keys: Vec<&str> = json.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["capture", "checks", "end", "pawn_tries"]);
}

#[test]
fn r_k4_an_illegal_attempt_does_not_bind_by_default() {
    let (s, _) = play(State::start(Options::default()), "e2e4 e7e5");
    let (s, mover, _) = try_(&s, "d1d8");
    assert_eq!(mover, Some(Answer::Illegal));
    let (_, mover, _) = try_(&s, "g1f3");
    assert!(matches!(mover, Some(Answer::Legal(_))));
}

#[test]
fn r_k4_touch_move_option_binds_the_next_attempt_to_the_same_piece() {
    let opts = Options::from_names(["touch-move"]).unwrap();
    let (s, _) = play(State::start(opts), "e2e4 e7e5");
    // The queen tries d1d8 (blocked); it has legal moves, so it must move.
    let (s, mover, other) = try_(&s, "d1d8");
    assert_eq!((mover, other), (Some(Answer::Illegal), None));
    let (s, mover, other) = try_(&s, "g1f3");
    assert_eq!((mover, other), (Some(Answer::Illegal), None), "another piece is refused");
    let (_, mover, _) = try_(&s, "d1h5");
    assert!(matches!(mover, Some(Answer::Legal(_))), "the touched queen may move");
    // A touched man without any legal move does not bind.
    let (s, _) = play(State::start(opts), "e2e4 e7e5");
    let (s, mover, _) = try_(&s, "e4e5");
    assert_eq!(mover, Some(Answer::Illegal));
    let (_, mover, _) = try_(&s, "g1f3");
    assert!(matches!(mover, Some(Answer::Legal(_))));
    assert!(Options::from_names(["touch-me"]).is_err());
}

#[test]
fn r_k5_pawn_tries_are_always_announced() {
    let (s, a) = play(State::start(Options::default()), "e2e4");
    assert_eq!(a, quiet(vec![], 0));
    let json = serde_json::to_string(&Answer::Legal(a)).unwrap();
    assert!(json.contains("\"pawn_tries\":0"), "{json}");
    let (_, a) = play(s, "d7d5");
    assert_eq!(a, quiet(vec![], 1), "White may take e4xd5: one try, announced to both");
}

#[test]
fn a_player_sees_only_its_own_men() {
    let (s, _) = play(State::start(Options::default()), "e2e4 e7e5");
    let view = s.view(Color::White);
    assert_eq!(view.side, Color::White);
    assert_eq!(view.men.len(), 16);
    let white = s.position().board().by_color(Color::White);
    assert!(view.men.iter().all(|(sq, _)| white.contains(*sq)));
    assert!(view.men.contains(&(sq("e4"), Role::Pawn)));
    assert!(!view.men.iter().any(|(sq, _)| *sq == self::sq("e5")));
}

#[test]
fn turns_are_enforced() {
    let s = State::start(Options::default());
    assert_eq!(
        s.apply(Color::Black, &parse_attempt("e7e5").unwrap()),
        Err(ActionError::NotYourTurn(Color::Black))
    );
}

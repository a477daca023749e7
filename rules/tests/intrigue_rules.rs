//! Intrigue scenario tests: one or more per rule R-I1..R-I6 (and the R-C2 draws), each failing
//! if its rule is broken.

use rules::intrigue::{
    Action, Appearance, Capture, EXAMPLE_FEN, Inspection, MoveReport, Observation, Position, Setup,
    SetupReport, State,
};
use rules::{
    ActionError, Alphabet, Analysis, BoardSize, ByColor, Color, EndReason, Game, GameResult, Move,
    Role, Square,
};

fn sq(s: &str) -> Square {
    Square::parse(s, BoardSize::Eight).unwrap()
}

fn mv(s: &str) -> Move {
    Move::parse_uci(s, BoardSize::Eight, Alphabet::ORTHODOX).unwrap()
}

fn state(fen: &str) -> State {
    State::from_position(Position::from_fen(fen).unwrap())
}

/// Plays `uci`, checks both sides are told the same and returns the report.
fn play(s: &State, uci: &str) -> (State, MoveReport) {
    let actor = s.to_act()[0];
    let t = s.apply(actor, &Action::Move(mv(uci))).unwrap_or_else(|e| panic!("{uci}: {e}"));
    assert_eq!(t.told.white, t.told.black, "Intrigue tells both sides the same");
    match t.told.white {
        Some(Observation::Move(r)) => (t.state, r),
        other => panic!("expected a move report, got {other:?}"),
    }
}

fn play_all(fen: &str, moves: &[&str]) -> (State, MoveReport) {
    let mut s = state(fen);
    let mut last = None;
    for m in moves {
        let (next, r) = play(&s, m);
        s = next;
        last = Some(r);
    }
    (s, last.expect("at least one move"))
}

fn fen(s: &State) -> String {
    s.position().unwrap().to_fen()
}

fn legal(s: &State) -> Vec<String> {
    s.position().unwrap().legal_uci()
}

fn setup(king: &str, informer: &str, queen: bool) -> Action {
    Action::Setup(Setup { king: sq(king), informer: sq(informer), queen_on_king_square: queen })
}

// ---------------------------------------------------------------- R-I1 setup

#[test]
fn r_i1_setup_in_any_order_tells_only_the_public_choice() {
    let s = State::new();
    assert_eq!(s.to_act(), vec![Color::White, Color::Black]);
    assert_eq!(
        s.apply(Color::White, &Action::Move(mv("e2e4"))).unwrap_err(),
        ActionError::WrongPhase("a move before both sides have set up")
    );
    let t = s.apply(Color::Black, &setup("f6", "c7", false)).unwrap();
    let report =
        SetupReport { side: Color::Black, queen_on_king_square: false, play_starts: false };
    assert_eq!(t.told, ByColor::new_with(|_| Some(Observation::Setup(report))));
    let json = serde_json::to_string(&t.told.white).unwrap();
    assert!(!json.contains("f6") && !json.contains("informer"), "no secret in {json}");
    assert_eq!(t.state.to_act(), vec![Color::White]);
    assert!(matches!(
        t.state.apply(Color::Black, &setup("a1", "a7", false)),
        Err(ActionError::NotYourTurn(Color::Black))
    ));
    let t = t.state.apply(Color::White, &setup("d3", "e2", true)).unwrap();
    let report = SetupReport { side: Color::White, queen_on_king_square: true, play_starts: true };
    assert_eq!(t.told.black, Some(Observation::Setup(report)));
    assert_eq!(fen(&t.state), EXAMPLE_FEN, "queen on e1, no kings, secrets in the full position");
    assert_eq!(t.state.to_act(), vec![Color::White]);
}

#[test]
fn r_i1_informer_must_be_one_of_the_sides_pawns() {
    let e = State::new().apply(Color::White, &setup("d3", "e7", false)).unwrap_err();
    assert!(matches!(e, ActionError::Invalid { what: "setup", .. }), "{e}");
    assert!(e.to_string().contains("rank 2"), "{e}");
    assert!(State::new().apply(Color::Black, &setup("d3", "e2", false)).is_err());
}

#[test]
fn r_i1_king_home_square_stays_empty_and_king_may_hide_anywhere() {
    let s = State::new().apply(Color::White, &setup("h8", "a2", false)).unwrap().state;
    let s = s.apply(Color::Black, &setup("a1", "h7", false)).unwrap().state;
    let p = s.position().unwrap();
    assert_eq!(p.board().piece_at(sq("e1")), None);
    assert_eq!(p.board().piece_at(sq("e8")), None);
    assert_eq!(p.board().piece_at(sq("d1")), Some(Role::Queen.of(Color::White)));
    assert_eq!(p.hidden_king(Color::White), Some(sq("h8")));
    assert_eq!(p.hidden_king(Color::Black), Some(sq("a1")));
    assert_eq!(p.informer(Color::Black), Some(sq("h7")));
}

#[test]
fn r_i1_r_i6_each_view_shows_own_secrets_and_hides_the_opponents() {
    let s = state(EXAMPLE_FEN);
    let head = "rnbq1bnr/pppppppp/8/8/8/8/PPPPPPPP/RNB1QBNR w KQkq - 0 1";
    assert_eq!(s.view(Color::White).unwrap().fen, format!("{head} d3,? e2,?"));
    assert_eq!(s.view(Color::Black).unwrap().fen, format!("{head} ?,f6 ?,c7"));
    assert_eq!(State::new().view(Color::White), None, "no view before play");
}

// ---------------------------------------------------------------- R-I2 informer

const BOTH_HIDDEN: &str =
    "rnbq1bnr/ppp2ppp/8/3pp3/2P1P3/8/PP1P1PPP/RNBQ1BNR w KQkq - 0 1 e3,c4 d2,d5";

#[test]
fn r_i2_informer_captured_king_appears_and_removes_the_piece_there() {
    let (s, r) = play_all(BOTH_HIDDEN, &["e4d5"]);
    let capture =
        Capture { square: sq("d5"), piece: Role::Pawn.of(Color::Black), en_passant: false };
    assert_eq!(r.capture, Some(capture));
    let removed = Some(Role::Pawn.of(Color::White));
    let appeared = Some(Appearance { square: sq("c4"), removed });
    assert_eq!(r.inspection, Some(Inspection { owner: Color::Black, informer: true, appeared }));
    // The king stands on c4, White's c-pawn is gone, Black's rooks share no line with c4 (R-I5).
    assert_eq!(fen(&s), "rnbq1bnr/ppp2ppp/8/3Pp3/2k5/8/PP1P1PPP/RNBQ1BNR b KQ - 0 1 e3,- d2,-");
    assert_eq!(s.view(Color::White).unwrap().fen.split(' ').nth(6), Some("e3,-"));
}

#[test]
fn r_i2_appearing_king_removes_the_capturing_piece_or_its_own() {
    let fen_on = |hide: &str| BOTH_HIDDEN.replace("e3,c4", &format!("e3,{hide}"));
    let (s, r) = play_all(&fen_on("d5"), &["c4d5"]);
    let appeared = r.inspection.unwrap().appeared.unwrap();
    assert_eq!(appeared.removed, Some(Role::Pawn.of(Color::White)), "the capturer itself");
    assert_eq!(s.position().unwrap().board().piece_at(sq("d5")), Some(Role::King.of(Color::Black)));
    let (_, r) = play_all(&fen_on("c8"), &["c4d5"]);
    let appeared = r.inspection.unwrap().appeared.unwrap();
    assert_eq!(appeared.removed, Some(Role::Bishop.of(Color::Black)), "its own bishop");
}

#[test]
fn r_i2_other_pawn_captured_answer_is_no() {
    let (s, r) = play_all(BOTH_HIDDEN, &["a2a3", "d5c4"]);
    assert_eq!(
        r.inspection,
        Some(Inspection { owner: Color::White, informer: false, appeared: None })
    );
    assert_eq!(s.position().unwrap().hidden_king(Color::White), Some(sq("e3")));
    // A capture of a piece is not inspected at all.
    let (_, r) = play_all("7r/8/8/8/8/8/8/7N b - - 0 1 a1,a8 -,-", &["h8h1"]);
    assert_eq!(r.inspection, None);
}

#[test]
fn r_i2_informer_identity_follows_the_pawn() {
    let (s, _) = play_all(BOTH_HIDDEN, &["d2d4"]);
    assert_eq!(s.position().unwrap().informer(Color::White), Some(sq("d4")));
    let (s, r) = play(&s, "e5d4");
    let appeared = Some(Appearance { square: sq("e3"), removed: None });
    assert_eq!(r.inspection, Some(Inspection { owner: Color::White, informer: true, appeared }));
    assert_eq!(s.position().unwrap().board().king_of(Color::White), Some(sq("e3")));
}

#[test]
fn r_i2_en_passant_capture_inspects_the_informer() {
    let (s, r) = play_all("8/8/8/8/3p4/8/4P3/8 w - - 0 1 a1,h8 e2,-", &["e2e4", "d4e3"]);
    assert_eq!(
        r.capture,
        Some(Capture { square: sq("e4"), piece: Role::Pawn.of(Color::White), en_passant: true })
    );
    let appeared = Some(Appearance { square: sq("a1"), removed: None });
    assert_eq!(r.inspection, Some(Inspection { owner: Color::White, informer: true, appeared }));
    assert_eq!(fen(&s), "8/8/8/8/8/4p3/8/K7 w - - 0 2 -,h8 -,-");
}

#[test]
fn r_i2_promoted_informer_cannot_be_inspected_and_king_stays_hidden() {
    let (s, r) = play_all("7r/4P3/8/8/8/8/3p4/8 w - - 0 1 e1,d8 e7,d2", &["e7e8q", "h8e8"]);
    assert_eq!(r.inspection, None, "a captured queen is not inspected, even a former informer");
    assert_eq!(fen(&s), "4r3/8/8/8/8/8/3p4/8 w - - 0 2 e1,d8 -,d2");
    // Whether White's informer is gone is not public: Black still sees '?'.
    assert_eq!(s.view(Color::Black).unwrap().fen.split(' ').nth(7), Some("?,d2"));
    assert_eq!(s.view(Color::White).unwrap().fen.split(' ').nth(7), Some("-,?"));
}

#[test]
fn r_i2_pawn_removed_by_an_appearing_king_is_not_inspected() {
    // Black's informer walks onto White's hiding square e3 by en passant; White's king appears
    // there (its own informer e4 was the captured pawn) and removes it without inspection.
    let (s, r) = play_all("8/8/8/8/3p4/8/4P3/8 w - - 0 1 e3,h8 e2,d4", &["e2e4", "d4e3"]);
    let removed = Some(Role::Pawn.of(Color::Black));
    let appeared = Some(Appearance { square: sq("e3"), removed });
    assert_eq!(r.inspection, Some(Inspection { owner: Color::White, informer: true, appeared }));
    assert_eq!(fen(&s), "8/8/8/8/8/4K3/8/8 w - - 0 2 -,h8 -,-", "Black's king stays hidden");
}

// ---------------------------------------------------------------- R-I3 hidden king

#[test]
fn r_i3_hidden_king_cannot_be_attacked_every_pseudo_legal_move_is_legal() {
    // With a king on e8 the rook e4 would be pinned by the rook e1; with the king hidden on e8
    // (or anywhere) nothing is pinned and nothing is check.
    let hidden = state("8/8/8/8/4r3/8/8/4R3 b - - 0 1 a1,e8 -,-");
    assert_eq!(legal(&hidden).len(), 14);
    let visible = state("4k3/8/8/8/4r3/8/8/4R3 b - - 0 1 a1,- -,-");
    assert!(legal(&visible).iter().all(|m| !m.starts_with("e4") || m.starts_with("e4e")));
    let (_, r) = play(&hidden, "e4a4");
    assert_eq!(r.check, Vec::<Color>::new());
    assert_eq!(r.result, None);
}

#[test]
fn r_i3_stalemate_applies_with_a_hidden_king() {
    let s = state("8/8/8/8/8/p7/P7/8 w - - 0 1 h1,h8 -,-");
    assert_eq!(s.result(), Some(GameResult::draw(EndReason::Stalemate)));
    assert!(s.to_act().is_empty());
    // The same by a move: Black's last pawn move leaves White without a move.
    let (_, r) = play_all("8/8/8/8/p7/8/P7/8 b - - 0 1 h1,h8 -,-", &["a4a3"]);
    assert_eq!(r.result, Some(GameResult::draw(EndReason::Stalemate)));
}

// ---------------------------------------------------------------- R-I4 appearances

#[test]
fn r_i4_appearing_on_the_opposing_king_captures_it_and_wins() {
    let (s, r) = play_all("8/8/8/3p4/4P3/8/4K3/7R w - - 0 1 -,e2 -,d5", &["e4d5"]);
    let removed = Some(Role::King.of(Color::White));
    assert_eq!(r.inspection.unwrap().appeared, Some(Appearance { square: sq("e2"), removed }));
    assert_eq!(r.result, Some(GameResult::win(Color::Black, EndReason::KingCaptured)));
    assert_eq!(s.result(), r.result);
    assert!(s.to_act().is_empty());
    assert_eq!(s.apply(Color::Black, &Action::Move(mv("e2e3"))), Err(ActionError::GameOver));
}

#[test]
fn r_i6_a_captured_king_hides_nothing_in_the_views() {
    // After R-I4's king capture the loser has neither a hidden king nor an informer, and the
    // winner saw its king stand on e2: its view writes `-` there, not `?` (`?` is for the
    // entries of a king that hides).
    let (s, _) = play_all("8/8/8/3p4/4P3/8/4K3/7R w - - 0 1 -,e2 -,d5", &["e4d5"]);
    let view = |c| s.view(c).unwrap().fen;
    assert_eq!(view(Color::Black), "8/8/8/3P4/8/8/4k3/7R b - - 0 1 -,- -,-");
    assert_eq!(view(Color::White), "8/8/8/3P4/8/8/4k3/7R b - - 0 1 -,- -,-");
    // A side with no king at all (R-A1) has no secret either; one whose king hides does.
    let s = state("8/8/8/3p4/4P3/8/8/7R w - - 0 1 -,e2 -,d5");
    assert!(s.view(Color::Black).unwrap().fen.ends_with(" -,e2 -,d5"));
    assert!(s.view(Color::White).unwrap().fen.ends_with(" -,? -,?"));
}

#[test]
fn r_i4_appearing_on_the_king_but_checkmated_is_a_draw() {
    // Black's king appears on h1 (taking White's king) where the rooks a1 and a2 mate it.
    let (_, r) = play_all("8/8/8/3p4/4P3/8/R7/R6K w - - 0 1 -,h1 -,d5", &["e4d5"]);
    assert_eq!(r.result, Some(GameResult::draw(EndReason::Checkmate)));
    // Without the second rook the king escapes to h2 or g2: a win.
    let (_, r) = play_all("8/8/8/3p4/4P3/8/8/R6K w - - 0 1 -,h1 -,d5", &["e4d5"]);
    assert_eq!(r.result, Some(GameResult::win(Color::Black, EndReason::KingCaptured)));
}

#[test]
fn r_i4_appearing_adjacent_wins_when_the_capture_is_safe() {
    let (s, r) = play_all("8/8/8/2pp4/1P2P3/8/8/4K3 w - - 0 1 -,d2 -,c5", &["b4c5"]);
    assert_eq!(r.result, Some(GameResult::win(Color::Black, EndReason::KingCaptured)));
    assert_eq!(s.position().unwrap().board().king_of(Color::White), Some(sq("e1")));
    // White's turn order is untouched; the game simply ends (R-I4: the new king moves first).
    assert!(s.to_act().is_empty());
}

#[test]
fn r_i4_appearing_adjacent_to_a_guarded_king_must_get_out_of_check() {
    let (s, r) = play_all("8/8/8/2pp4/1P2P3/8/8/4K2R w - - 0 1 -,d2 -,c5", &["b4c5"]);
    assert_eq!(r.result, None);
    assert_eq!(r.check, vec![Color::White, Color::Black], "both kings attack each other");
    assert_eq!(s.to_act(), vec![Color::Black], "the appearing side moves first, as its turn");
    assert_eq!(legal(&s), ["d2c1", "d2c2", "d2c3", "d2d3", "d2e3"]);
    assert!(!legal(&s).contains(&"d2e1".to_string()), "taking the guarded king is not a move");
    let (_, r) = play(&s, "d2d3");
    assert_eq!(r.check, Vec::<Color>::new());
}

#[test]
fn r_i4_appearing_adjacent_and_checkmated_loses() {
    // g1 next to h1: h1 is guarded by the rook h8, every flight square by the rooks a1 and a2.
    let (_, r) = play_all("7R/8/8/3p4/4P3/8/R7/R6K w - - 0 1 -,g1 -,d5", &["e4d5"]);
    assert_eq!(r.check, vec![Color::White, Color::Black]);
    assert_eq!(r.result, Some(GameResult::win(Color::White, EndReason::Checkmate)));
}

#[test]
fn r_i4_appearing_in_check_from_other_pieces_must_escape() {
    let (s, r) = play_all("8/8/8/3p4/4P3/8/8/R3K3 w - - 0 1 -,a5 -,d5", &["e4d5"]);
    assert_eq!(r.check, vec![Color::Black]);
    assert_eq!(r.result, None);
    assert_eq!(legal(&s), ["a5b4", "a5b5", "a5b6"]);
}

#[test]
fn r_i4_appearing_side_is_always_the_side_to_move() {
    for (fen, m) in [
        ("8/8/8/3p4/4P3/8/8/R3K3 w - - 0 1 -,a5 -,d5", "e4d5"),
        ("8/8/4k3/2pp4/1P2P3/8/8/8 b - - 0 1 c3,- e4,-", "d5e4"),
    ] {
        let (s, r) = play_all(fen, &[m]);
        let owner = r.inspection.unwrap().owner;
        assert_eq!(s.to_act(), vec![owner], "{fen}");
    }
}

// ---------------------------------------------------------------- R-I5 castling

#[test]
fn r_i5_castling_from_any_distance_along_a_file_and_a_rank() {
    let (s, _) = play_all("2k5/8/8/8/7K/8/8/R6R w K - 0 1", &["h4h2"]);
    assert_eq!(fen(&s), "2k5/8/8/8/8/7R/7K/R7 b - - 1 1 -,- -,-");
    let (s, _) = play_all("1k5r/8/8/8/8/8/8/K7 b k - 0 1", &["b8d8"]);
    assert_eq!(fen(&s), "2rk4/8/8/8/8/8/8/K7 w - - 1 2 -,- -,-");
    // Orthodox castling is the special case with the king on its home square.
    let s = state("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    assert!(legal(&s).contains(&"e1g1".into()) && legal(&s).contains(&"e1c1".into()));
    // Distance two: the king lands on the rook's own square.
    let (s, _) = play_all("2k5/8/8/8/8/7K/8/7R w K - 0 1", &["h3h1"]);
    assert_eq!(fen(&s), "2k5/8/8/8/8/8/7R/7K b - - 1 1 -,- -,-");
}

#[test]
fn r_i5_appearing_king_keeps_rights_only_with_rooks_on_its_line() {
    let (s, _) = play_all("r6r/8/8/3p4/4P3/8/8/1K6 w kq - 0 1 -,h4 -,d5", &["e4d5"]);
    assert_eq!(fen(&s), "r6r/8/8/3P4/7k/8/8/1K6 b k - 0 1 -,- -,-");
    assert!(legal(&s).contains(&"h4h6".into()));
    let (s, _) = play(&s, "h4h6");
    assert_eq!(fen(&s), "r7/8/7k/3P3r/8/8/8/1K6 w - - 1 2 -,- -,-");
}

#[test]
fn r_i5_refusals() {
    let castles = |fen: &str| legal(&state(fen)).contains(&"h4h2".to_string());
    assert!(castles("2k5/8/8/8/7K/8/8/R6R w K - 0 1"), "the allowed base case");
    assert!(!castles("2k5/8/8/8/3r3K/8/8/R6R w K - 0 1"), "king in check");
    assert!(!castles("2k5/8/8/8/7K/r7/8/R6R w K - 0 1"), "crosses an attacked square");
    assert!(!castles("2k5/8/8/8/7K/8/1r6/R6R w K - 0 1"), "lands on an attacked square");
    assert!(!castles("2k5/8/8/8/7K/8/7N/R6R w K - 0 1"), "a piece between");
    assert!(!castles("2k5/8/8/8/7K/8/7n/R6R w K - 0 1"), "an enemy piece between");
    assert!(!castles("2k5/8/8/8/7K/8/8/R6R w - - 0 1"), "no right");
    let (s, _) = play_all("2k5/8/8/8/7K/8/8/R6R w K - 0 1", &["h1g1", "c8d8", "g1h1", "d8c8"]);
    assert!(!legal(&s).contains(&"h4h2".into()), "the rook has moved");
    let (s, _) = play_all("2k5/8/8/8/7K/8/8/R6R w K - 0 1", &["h4g4", "c8d8", "g4h4", "d8c8"]);
    assert!(!legal(&s).contains(&"h4h2".into()), "the king has moved");
    let adjacent = legal(&state("2k5/8/8/8/8/8/7K/7R w K - 0 1"));
    assert_eq!(adjacent, legal(&state("2k5/8/8/8/8/8/7K/7R w - - 0 1")), "no room beyond the rook");
}

// ---------------------------------------------------------------- R-I6 position strings

#[test]
fn r_i6_position_strings_round_trip_and_name_their_errors() {
    for fen in [EXAMPLE_FEN, BOTH_HIDDEN, "8/8/8/3p4/4P3/8/4K3/7R w - - 0 1 -,e2 -,d5"] {
        assert_eq!(Position::from_fen(fen).unwrap().to_fen(), fen);
    }
    let orthodox = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    assert_eq!(Position::from_fen(orthodox).unwrap().to_fen(), format!("{orthodox} -,- -,-"));
    let head = "rnbq1bnr/pppppppp/8/8/8/8/PPPPPPPP/RNB1QBNR w KQkq - 0 1";
    for (tail, field, words) in [
        ("d3,? e2,c7", "hidden-kings", "player's view"),
        ("d3 e2,c7", "hidden-kings", "two entries"),
        ("d3,f6 e2", "informers", "two entries"),
        ("d3,z9 e2,c7", "hidden-kings", "'z9' is not a square"),
        ("d3,f6 e3,c7", "informers", "e3 holds none"),
        ("d3,f6 e7,c7", "informers", "must be a white pawn"),
        ("-,f6 e2,c7", "informers", "no hidden king"),
        ("d3,f6", "position", "expected 8 fields"),
    ] {
        let e = Position::from_fen(&format!("{head} {tail}")).unwrap_err();
        assert_eq!(e.field, field, "{tail}: {e}");
        assert!(e.to_string().contains(words), "{tail}: {e}");
    }
    for (fen, field, words) in [
        ("4k3/8/8/8/8/8/8/4K3 w - - 0 1 e3,- -,-", "hidden-kings", "stands on e1"),
        ("4k3/8/8/8/8/8/8/K3K3 w - - 0 1", "board", "more than one king"),
        ("4k3/8/8/8/8/8/8/R3K3 w K - 0 1", "castling", "rook on h1"),
        ("4k3/8/8/8/8/8/3K4/R7 w Q - 0 1", "castling", "shares no rank or file"),
        ("4k3/8/8/8/8/8/8/R3K3 w QK - 0 1", "castling", "subset of KQkq"),
        ("4k3/8/8/8/8/8/8/4K3 w - e3 0 1", "ep", "e3 is not"),
        ("4k2P/8/8/8/8/8/8/4K3 w - - 0 1", "board", "pawn on h8"),
        ("4k3/8/8/8/8/8/8/4K3 x - - 0 1", "side", "'x'"),
        ("4k3/8/8/8/8/8/8/4K3 w - - x 1", "halfmove", "'x'"),
        ("4k3/8/8/8/8/8/8/4K3 w - - 0 0", "fullmove", "at least 1"),
    ] {
        let e = Position::from_fen(fen).unwrap_err();
        assert_eq!(e.field, field, "{fen}: {e}");
        assert!(e.to_string().contains(words), "{fen}: {e}");
    }
    // R-A1: zero kings and no hidden king is an analysis position; all moves are legal.
    assert_eq!(Position::from_fen("8/8/8/8/8/8/8/R7 w - - 0 1").unwrap().legal_uci().len(), 14);
}

// ---------------------------------------------------------------- R-C2 draws

#[test]
fn r_c2_fifty_moves_repetition_and_insufficient_material() {
    let (_, r) = play_all("k7/8/8/8/8/8/8/K6R w - - 99 80 -,- -,-", &["h1h2"]);
    assert_eq!(r.result, Some(GameResult::draw(EndReason::FiftyMove)));
    let shuffle = ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1"];
    let (s, r) = play_all("6n1/8/8/8/8/8/8/6N1 w - - 0 1 a1,h8 -,-", &shuffle);
    assert_eq!(r.result, None, "the start has occurred twice so far");
    let (_, r) = play(&s, "f6g8");
    assert_eq!(r.result, Some(GameResult::draw(EndReason::Repetition)));
    // The hidden parts count: the same board with another hiding square is another position.
    let key = |fen: &str| Position::from_fen(fen).unwrap().repetition_key();
    assert_ne!(
        key("6n1/8/8/8/8/8/8/6N1 w - - 0 1 a1,h8 -,-"),
        key("6n1/8/8/8/8/8/8/6N1 w - - 0 1 a2,h8 -,-")
    );
    let (_, r) = play_all("8/8/8/8/8/8/3p4/4K2k w - - 0 1", &["e1d2"]);
    assert_eq!(r.result, Some(GameResult::draw(EndReason::InsufficientMaterial)));
}

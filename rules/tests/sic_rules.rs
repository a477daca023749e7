//! Scenario tests for Secret Intelligence Chess, one or more per rule R-S3..R-S12 (R-S1/R-S2
//! are in `sic_setup.rs`). Each test fails if its rule is broken.

use rules::sic::{CheckReport, Observation, Position, SpyRule, State};
use rules::{ActionError, Alphabet, Analysis, BoardSize, Color, EndReason, Game, Move, Role};

fn pos(fen: &str) -> Position {
    Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn legal(fen: &str) -> Vec<String> {
    pos(fen).legal_uci()
}

fn legal_with(fen: &str, spy: SpyRule) -> Vec<String> {
    Position::from_fen_with(fen, spy).expect("valid").legal_uci()
}

fn has(moves: &[String], m: &str) -> bool {
    moves.iter().any(|x| x == m)
}

fn mv(s: &str) -> Move {
    Move::parse_uci(s, BoardSize::Eight, Alphabet::SIC).expect("move text")
}

#[test]
fn r_s3_compound_pieces_move_as_defined() {
    // A lone piece on d4, kings out of the way: counts of R-S3's movement patterns.
    for (letter, want) in [('M', 14 + 8), ('A', 13 + 8), ('C', 8 + 8), ('H', 13 + 4), ('D', 14 + 4)]
    {
        let fen = format!("6k1/8/8/8/3{letter}4/8/7K/8 w - - 0 1");
        let n = legal(&fen).iter().filter(|m| m.starts_with("d4")).count();
        assert_eq!(n, want, "{letter}");
    }
}

#[test]
fn r_s3_no_castling() {
    let moves = legal("4k3/8/8/8/8/8/8/4K2R w e1h1 - 0 1");
    assert!(!has(&moves, "e1g1"), "no castling");
    assert!(!has(&moves, "e1h1"), "king and rook are not adjacent: no swap either");
}

#[test]
fn r_s4_quick_pawns_double_step_anytime_and_en_passant_next_move_only() {
    let moves = legal("4k3/8/8/8/8/4P3/8/4K3 w - - 0 1");
    assert!(has(&moves, "e3e5"), "double step from the third rank");
    let p = pos("4k3/8/8/8/3p4/8/4P3/4K3 w - - 0 1");
    let after = p.play(&mv("e2e4")).expect("legal");
    assert_eq!(after.ep_square().map(|s| s.to_string()), Some("e3".to_string()));
    assert!(has(&after.legal_uci(), "d4e3"), "en passant");
    let taken = after.play(&mv("d4e3")).expect("legal");
    assert!(
        taken.board().piece_at(rules::Square::parse("e4", BoardSize::Eight).unwrap()).is_none()
    );
    // A quiet move in between and the chance is gone.
    let later = after.play(&mv("e8d8")).unwrap().play(&mv("e1d1")).unwrap();
    assert!(!has(&later.legal_uci(), "d4e3"));
    // No enemy pawn can take: no en passant square is recorded.
    let lone = pos("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1").play(&mv("e2e4")).unwrap();
    assert_eq!(lone.ep_square(), None);
}

#[test]
fn r_s5_promotions_depend_on_the_pieces_on_the_board() {
    let with_queen = legal("4k3/P7/8/8/8/8/8/Q3K3 w - - 0 1");
    for ok in
        ["a7a8r", "a7a8b", "a7a8n", "a7a8m", "a7a8a", "a7a8c", "a7a8h", "a7a8d", "a7a8s", "a7a8y"]
    {
        assert!(has(&with_queen, ok), "{ok}");
    }
    assert!(!has(&with_queen, "a7a8q"), "already has a queen");
    assert!(!has(&with_queen, "a7a8k") && !has(&with_queen, "a7a8"));
    let no_queen = legal("4k3/P7/8/8/8/8/8/R3K3 w - - 0 1");
    assert!(has(&no_queen, "a7a8q") && has(&no_queen, "a7a8r"), "rook allowed though one is there");
    let with_spy = legal("4k3/P7/8/8/8/8/8/S3K3 w - - 0 1");
    assert!(!has(&with_spy, "a7a8s") && has(&with_spy, "a7a8y"));
}

#[test]
fn r_s6_spy_may_not_move_onto_a_square_a_pawn_attacks() {
    let moves = legal("4k3/8/8/3p4/8/8/S7/4K3 w - - 0 1");
    assert!(has(&moves, "a2b3"));
    assert!(!has(&moves, "a2c4"), "c4 is attacked by the d5 pawn");
    assert!(has(&moves, "a2d5"), "the pawn cannot take back along the diagonal it came from");
}

#[test]
fn r_s6_pinned_enemy_pieces_still_restrict_the_spy() {
    // The e6 knight is pinned by the e1 rook but "could" still capture on d4.
    let moves = legal("4k3/8/4n3/8/8/8/8/S3R1K1 w - - 0 1");
    assert!(has(&moves, "a1c3"));
    assert!(!has(&moves, "a1d4"));
}

#[test]
fn r_s6_spy_may_block_a_check_on_an_attacked_square() {
    assert!(has(&legal("4k3/8/8/8/8/3S4/2p5/r3K3 w - - 0 1"), "d3d1"), "blocks the rook's check");
    assert!(!has(&legal("4k3/8/8/8/8/3S4/2p5/4K3 w - - 0 1"), "d3d1"), "no check to block");
}

#[test]
fn r_s6_spy_cannot_take_rook_along_file_but_can_along_diagonal() {
    assert!(!has(&legal("4k3/8/8/8/3r4/8/8/3S2K1 w - - 0 1"), "d1d4"));
    assert!(has(&legal("4k3/8/8/8/3r4/8/8/S5K1 w - - 0 1"), "a1d4"));
}

#[test]
fn r_s6_white_spy_cannot_take_black_pawn_diagonally_forward() {
    assert!(!has(&legal("4k3/8/8/3p4/2S5/8/8/4K3 w - - 0 1"), "c4d5"));
    assert!(has(&legal("4k3/8/8/3p4/3S4/8/8/4K3 w - - 0 1"), "d4d5"), "straight forward is fine");
    assert!(has(&legal("7k/8/4S3/3p4/8/8/8/4K3 w - - 0 1"), "e6d5"), "diagonally backward");
}

#[test]
fn r_s6_spy_checks_and_takes_royal_pieces_only_from_a_distance() {
    assert!(!has(&legal("4k3/8/8/4y3/3S4/8/8/4K3 w - - 0 1"), "d4e5"), "adjacent decoy");
    assert!(has(&legal("4k3/8/8/4y3/8/2S5/8/4K3 w - - 0 1"), "c3e5"), "two squares away");
    assert!(has(&legal("4k3/8/8/4y3/2S5/8/8/4K3 w - - 0 1"), "c4e5"), "as a knight");
    assert!(pos("4k3/8/4S3/8/8/8/8/4K3 b - - 0 1").in_check(Color::Black), "two squares away");
    assert!(!pos("4k3/4S3/8/8/8/8/8/4K3 b - - 0 1").in_check(Color::Black), "adjacent");
    let err = Position::from_fen("4k3/8/4S3/8/8/8/8/4K3 w - - 0 1").unwrap_err();
    assert!(err.to_string().contains("black is not to move but its king is in check"), "{err}");
}

#[test]
fn r_s6_spies_take_each_other_any_way_and_ignore_each_other_for_squares() {
    assert!(has(&legal("4k3/8/8/3s4/3S4/8/8/4K3 w - - 0 1"), "d4d5"), "adjacent enemy spy");
    // d5 is attacked only by the black spy on d8: still allowed (R-S6 a exempts spies).
    assert!(has(&legal("3sk3/8/8/8/8/8/8/S3K3 w - - 0 1"), "a1a2"));
    assert!(has(&legal("3sk3/8/8/8/8/8/8/3SK3 w - - 0 1"), "d1d5"));
}

#[test]
fn r_s6_option_spy_original_moves_freely_and_captures_by_one_step() {
    let fen = "4k3/8/8/3p4/8/8/S7/4K3 w - - 0 1";
    let moves = legal_with(fen, SpyRule::Original);
    assert!(has(&moves, "a2c4"), "no square restriction");
    assert!(!has(&moves, "a2d5"), "no capture from a distance");
    let rook = "4k3/8/8/8/3r4/3S4/8/4K3 w - - 0 1";
    assert!(has(&legal_with(rook, SpyRule::Original), "d3d4"));
    assert!(!has(&legal_with(rook, SpyRule::Default), "d3d4"));
}

#[test]
fn r_s7_decoy_may_not_move_onto_attacked_squares() {
    let moves = legal("4k3/8/8/r7/3Y4/8/8/4K3 w - - 0 1");
    for bad in ["d4d5", "d4c5", "d4e5", "d4b5", "d4f5"] {
        assert!(!has(&moves, bad), "{bad}");
    }
    for ok in ["d4d3", "d4c6", "d4e6", "d4e2"] {
        assert!(has(&moves, ok), "{ok}");
    }
}

#[test]
fn r_s7_decoy_exceptions_next_to_own_king_and_preventing_check() {
    let moves = legal("4k3/8/8/r7/3YK3/8/8/8 w - - 0 1");
    assert!(has(&moves, "d4d5"), "next to its own king");
    assert!(!has(&moves, "d4c5"));
    let check = legal("4k3/8/8/8/8/2Y5/8/r6K w - - 0 1");
    assert!(has(&check, "c3b1") && has(&check, "c3d1"), "blocks the check on attacked squares");
    assert!(!has(&check, "c3c2"), "does not answer the check");
    assert!(!has(&legal("4k3/8/8/8/8/2Y5/7K/r7 w - - 0 1"), "c3b1"), "no check: b1 is attacked");
}

#[test]
fn r_s7_decoy_knight_leap_never_captures_king_decoy_or_spy() {
    let moves = legal("4k3/8/8/8/4y3/2Y4K/4s3/1r6 w - - 0 1");
    assert!(has(&moves, "c3b1"), "a rook may be taken by the leap");
    assert!(!has(&moves, "c3e2"), "not a spy");
    assert!(!has(&moves, "c3e4"), "not a decoy");
}

#[test]
fn r_s7_decoy_is_not_royal() {
    // The white decoy on d4 is attacked by the rook; white may ignore it.
    let moves = legal("4k3/8/8/8/r2Y4/8/8/4K3 w - - 0 1");
    assert!(has(&moves, "e1e2"));
}

#[test]
fn r_s9_swap_conditions() {
    let base = "4k3/8/8/8/8/8/8/RN2K3 w a1b1 - 0 1";
    let m = legal(base);
    assert!(has(&m, "a1b1"), "rook moves onto the knight's square");
    assert!(!has(&m, "b1a1"), "the knight cannot reach a1");
    let after = pos(base).play(&mv("a1b1")).expect("legal");
    assert_eq!(after.to_fen(), "4k3/8/8/8/8/8/8/NR2K3 b a1 - 1 1", "passive knight stays unmoved");
    assert!(!has(&legal("4k3/8/8/8/8/8/8/RR2K3 w a1b1 - 0 1"), "a1b1"), "same type");
    assert!(!has(&legal("4k3/8/8/8/8/8/8/RN2K3 w a1 - 0 1"), "a1b1"), "the knight has moved");
    assert!(!has(&legal("4k3/8/8/8/8/3b4/8/RN2K3 w a1b1 - 0 1"), "a1b1"), "knight attacked");
    let blocked = legal("4k3/8/8/8/8/8/8/RBN1K3 w a1b1c1 - 0 1");
    assert!(!has(&blocked, "a1c1") && has(&blocked, "a1b1"), "path must be clear");
    assert!(has(&legal("4k3/8/8/8/8/8/8/3NK3 w d1e1 - 0 1"), "e1d1"), "the king may swap");
    // The knight on d1 is safe from the b2 spy (it could take the spy), the king would not be.
    assert!(!has(&legal("4k3/8/8/8/8/8/1s6/3NK3 w d1e1 - 0 1"), "e1d1"), "no swap into check");
    let pawn = legal("4k3/8/8/8/8/8/P7/R3K3 w a1a2 - 0 1");
    assert!(has(&pawn, "a1a2") && !has(&pawn, "a2a1"), "pawns only move forward");
    let p1 = pos("4k3/8/8/8/8/8/P7/R3K3 w a1a2 - 0 1").play(&mv("a1a2")).unwrap();
    assert_eq!(p1.to_fen(), "4k3/8/8/8/8/8/R7/P3K3 b a1 - 1 1", "a passive pawn is no pawn move");
    let first = legal("4k3/8/8/8/8/8/8/P3K3 w a1 - 0 1");
    assert!(has(&first, "a1a3"), "a pawn on its first rank double-steps (R-S4)");
}

fn start(fen: &str) -> State {
    State::from_position(pos(fen))
}

fn told(state: &State, m: &str) -> (State, Observation, Observation) {
    let mover = state.position().turn();
    let t = state.apply(mover, &mv(m)).expect("legal");
    (t.state, t.told[mover].clone().expect("told"), t.told[!mover].clone().expect("told"))
}

#[test]
fn r_s8_check_on_king_and_on_decoy() {
    let (_, w, b) = told(&start("4k3/8/8/8/8/8/8/R3K3 w - - 0 1"), "a1a8");
    assert!(matches!(w, Observation::YouMoved(ref r) if r.check));
    assert!(matches!(b, Observation::OpponentMoved(ref r) if r.check == Some(CheckReport::King)));
    let (_, w, b) = told(&start("k7/8/8/7y/8/8/8/4K1R1 w - - 0 1"), "g1h1");
    assert!(matches!(w, Observation::YouMoved(ref r) if r.check), "mover is not told which");
    assert!(matches!(b, Observation::OpponentMoved(ref r) if r.check == Some(CheckReport::Decoy)));
}

#[test]
fn r_s8_decoy_already_attacked_is_not_announced_again() {
    let (_, w, b) = told(&start("k7/8/8/7y/8/8/8/4K2R w - - 0 1"), "e1d1");
    assert!(matches!(w, Observation::YouMoved(ref r) if r.check), "the decoy remains attacked");
    assert!(matches!(b, Observation::OpponentMoved(ref r) if r.check.is_none()));
}

#[test]
fn r_s10_views_hide_unmoved_enemy_pieces_and_enemy_types() {
    let state = State::new(&[0; 32], &[1; 32], SpyRule::Default);
    let w = state.view(Color::White);
    assert_eq!(w.own.len(), 17);
    assert!(w.enemy_moved.is_empty());
    assert!(!w.legal.is_empty());
    assert!(state.view(Color::Black).legal.is_empty(), "not to move");
    let m = w.legal[0];
    let (state, _, b) = told(&state, &m.uci(Alphabet::SIC));
    let Observation::OpponentMoved(r) = b else { panic!("black is told the opponent moved") };
    assert_eq!((r.from, r.to, r.id), (m.from, m.to, m.from));
    let bv = state.view(Color::Black);
    assert_eq!(bv.enemy_moved.len(), 1);
    assert_eq!((bv.enemy_moved[0].square, bv.enemy_moved[0].id), (m.to, m.from));
    // Nothing in Black's view names a White piece's type.
    let white_types = serde_json::to_value(&bv).unwrap()["enemy_moved"].to_string();
    assert!(!white_types.contains("role"), "{white_types}");
}

#[test]
fn r_s10_captures_are_reported_by_type() {
    let (state, w, b) = told(&start("4k3/8/8/3n4/8/8/8/3RK3 w - - 0 1"), "d1d5");
    assert!(matches!(w, Observation::YouMoved(ref r) if r.captured == Some(Role::Knight)));
    assert!(
        matches!(b, Observation::OpponentMoved(ref r) if r.lost.map(|l| l.role) == Some(Role::Knight))
    );
    assert_eq!(state.view(Color::White).captured, vec![Role::Knight]);
    assert_eq!(state.view(Color::Black).lost, vec![Role::Knight]);
}

#[test]
fn r_s11_illegal_moves_are_refused_without_information() {
    let state = start("4k3/8/8/8/8/8/8/R3K3 w - - 0 1");
    assert_eq!(
        state.apply(Color::White, &mv("a1b2")),
        Err(ActionError::IllegalMove("a1b2".into()))
    );
    assert_eq!(state.apply(Color::Black, &mv("e8d8")), Err(ActionError::NotYourTurn(Color::Black)));
}

#[test]
fn r_s12_position_strings_round_trip_and_errors_name_the_field() {
    for fen in [rules::sic::EXAMPLE_FEN, "r3k2r/1p1s4/8/2y1Pp2/3S4/5N2/1P3Y2/R3K2B w a1e1 f6 0 1"] {
        assert_eq!(pos(fen).to_fen(), fen);
    }
    for (fen, want) in [
        ("4k3/8/8/8/8/8/8/RN2K3 w b1a1 - 0 1", "unmoved-squares: 'a1' is out of order"),
        ("4k3/8/8/8/8/8/8/RN2K3 w c1 - 0 1", "unmoved-squares: 'c1' is an empty square"),
        ("4k3/8/8/8/8/8/8/RN2K3 w - e3 0 1", "ep-square: e3 is not a square just passed over"),
        ("4k3/8/8/8/8/8/8/RN2K2K w - - 0 1", "white has 2 kings"),
        ("4k3/8/8/8/8/8/8/RN2K3 x - - 0 1", "side: 'x' is not a side"),
        ("4k3/8/8/8/8/8/8/RN2K3 w - - 0", "expected 6 fields"),
        ("4k2P/8/8/8/8/8/8/RN2K3 w - - 0 1", "white pawn on h8"),
    ] {
        let e = Position::from_fen(fen).unwrap_err().to_string();
        assert!(e.contains(want), "{fen}: {e}");
    }
}

#[test]
fn r_c2_threefold_repetition_ends_the_game() {
    let mut state = start("4k3/8/8/8/8/8/8/4K2R w - - 0 1");
    for m in ["h1h2", "e8d8", "h2h1", "d8e8", "h1h2", "e8d8", "h2h1"] {
        assert_eq!(state.result(), None);
        state = told(&state, m).0;
    }
    assert_eq!(state.result(), None, "two repetitions so far");
    state = told(&state, "d8e8").0;
    assert_eq!(state.result().map(|r| r.reason), Some(EndReason::Repetition));
    assert!(state.to_act().is_empty());
}

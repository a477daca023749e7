//! Scenario tests of orthodox chess: R-C1/R-C2's automatic ends (checkmate, stalemate,
//! threefold repetition of the full position, the 50-move rule, exactly R-C2's insufficient
//! material list), R-C4's position strings with errors naming the field, and R-A1.

use rules::chess::{Position, START_FEN, State};
use rules::{Alphabet, Analysis, BoardSize, Color, EndReason, Game, GameResult, Move};

fn mv(s: &str) -> Move {
    Move::parse_uci(s, BoardSize::Eight, Alphabet::ORTHODOX).unwrap()
}

fn game(fen: &str) -> State {
    State::from_position(Position::from_fen(fen).unwrap())
}

/// Plays the moves in turn and returns every intermediate state's result.
fn play_all(mut s: State, moves: &str) -> (State, Vec<Option<GameResult>>) {
    let mut results = Vec::new();
    for m in moves.split_whitespace() {
        s = s.play(&mv(m)).unwrap_or_else(|e| panic!("{m}: {e}"));
        results.push(s.result());
    }
    (s, results)
}

#[test]
fn r_c1_checkmate_wins_and_ends_the_game() {
    let (s, results) = play_all(State::start(), "f2f3 e7e5 g2g4 d8h4");
    assert!(results[..3].iter().all(Option::is_none));
    assert_eq!(s.result(), Some(GameResult::win(Color::Black, EndReason::Checkmate)));
    assert!(s.to_act().is_empty());
    assert_eq!(s.apply(Color::White, &mv("a2a3")), Err(rules::ActionError::GameOver));
}

#[test]
fn r_c2_stalemate_is_a_draw() {
    let (s, _) = play_all(game("7k/8/6K1/8/8/8/5Q2/8 w - - 0 1"), "f2f7");
    assert_eq!(s.result(), Some(GameResult::draw(EndReason::Stalemate)));
}

#[test]
fn r_c2_threefold_repetition_is_declared_automatically() {
    let shuffle = "g1f3 g8f6 f3g1 f6g8";
    let (s, results) = play_all(State::start(), &format!("{shuffle} {shuffle}"));
    // The start occurs after ply 0, 4 and 8: the third occurrence ends the game, not earlier.
    assert!(results[..7].iter().all(Option::is_none), "{results:?}");
    assert_eq!(s.result(), Some(GameResult::draw(EndReason::Repetition)));
}

#[test]
fn r_c2_repetition_compares_castling_rights() {
    // The rooks go and come back: the start's placement returns at plies 4 and 8, but without
    // the queen-side rights, so it never counts with the start. The first position to occur
    // three times is the one after ply 2 (plies 2, 6, 10); ignoring rights would end at ply 8.
    let cycle = "a1a2 a8a7 a2a1 a7a8";
    let (_, results) = play_all(
        game("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"),
        &format!("{cycle} {cycle} a1a2 a8a7"),
    );
    assert!(results[..9].iter().all(Option::is_none), "{results:?}");
    assert_eq!(results[9], Some(GameResult::draw(EndReason::Repetition)));
}

#[test]
fn r_c2_repetition_compares_a_legal_en_passant_square() {
    // After d7d5 White may take en passant; the same placement after each knight cycle, without
    // that right, is a different position (FIDE 9.2.2). The first threefold is the position after
    // ply 2 (plies 2, 6, 10); ignoring en passant would end at ply 9 (plies 1, 5, 9).
    let cycle = "g1f3 b8c6 f3g1 c6b8";
    let (_, results) = play_all(
        game("rnbqkbnr/pppppppp/8/4P3/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"),
        &format!("d7d5 {cycle} {cycle} g1f3"),
    );
    assert!(results[..9].iter().all(Option::is_none), "{results:?}");
    assert_eq!(results[9], Some(GameResult::draw(EndReason::Repetition)));
}

#[test]
fn r_c2_fifty_move_rule_after_100_plies() {
    let fen = "4k3/8/8/8/8/8/r7/4K2R w - - 99 80";
    let (s, _) = play_all(game(fen), "h1h2");
    assert_eq!(s.result(), Some(GameResult::draw(EndReason::FiftyMove)));
    // A capture on the 100th ply resets the clock instead.
    let (s, _) = play_all(game("4k3/p7/8/8/8/8/r6R/4K3 w - - 99 80"), "h2a2");
    assert_eq!(s.result(), None);
    assert_eq!(s.position().halfmoves(), 0);
    // So does a pawn move.
    let (s, _) = play_all(game("4k3/8/8/8/8/8/r3P3/4K2R w - - 99 80"), "e2e3");
    assert_eq!(s.result(), None);
    // One ply short of 100 is not yet a draw.
    let (s, _) = play_all(game("4k3/8/8/8/8/8/r7/4K2R w - - 98 80"), "h1h2");
    assert_eq!(s.result(), None);
}

#[test]
fn r_c2_checkmate_on_the_hundredth_ply_stands() {
    let (s, _) = play_all(game("6k1/5ppp/8/8/8/8/8/R3K3 w - - 99 80"), "a1a8");
    assert_eq!(s.result(), Some(GameResult::win(Color::White, EndReason::Checkmate)));
}

#[test]
fn r_c2_insufficient_material_is_exactly_the_list() {
    let cases = [
        ("4k3/8/8/8/8/8/8/4K3 w - - 0 1", true),      // K v K
        ("4k3/8/8/8/8/8/8/4KN2 w - - 0 1", true),     // K+N v K
        ("4kn2/8/8/8/8/8/8/4K3 w - - 0 1", true),     // K v K+N
        ("4k3/8/8/8/8/8/8/2B1K3 w - - 0 1", true),    // K+B v K
        ("4kb2/8/8/8/8/8/8/2B1K3 w - - 0 1", true),   // K+B v K+B, both dark (c1, f8)
        ("4k3/8/8/8/8/8/1B6/B3K3 w - - 0 1", true),   // K+B+B, both dark (a1, b2)
        ("2b1k3/8/8/8/8/8/8/2B1K3 w - - 0 1", false), // K+B v K+B on opposite colors
        ("4k3/8/8/8/8/8/8/2B1KB2 w - - 0 1", false),  // the bishop pair
        ("4kn2/8/8/8/8/8/8/4KN2 w - - 0 1", false),   // K+N v K+N
        ("4k3/8/8/8/8/8/8/3NKN2 w - - 0 1", false),   // K+N+N v K
        ("4kn2/8/8/8/8/8/8/2B1K3 w - - 0 1", false),  // K+B v K+N
        ("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", false),   // a pawn
        ("4k3/8/8/8/8/8/8/R3K3 w - - 0 1", false),    // a rook
        ("4k3/8/8/8/8/8/8/3QK3 w - - 0 1", false),    // a queen
    ];
    for (fen, drawn) in cases {
        let want = drawn.then_some(GameResult::draw(EndReason::InsufficientMaterial));
        assert_eq!(game(fen).result(), want, "{fen}");
    }
    // And declared as soon as a capture leaves it.
    let (s, _) = play_all(game("4k3/8/8/8/8/8/3r4/4K3 w - - 0 1"), "e1d2");
    assert_eq!(s.result(), Some(GameResult::draw(EndReason::InsufficientMaterial)));
}

#[test]
fn r_c1_moves_are_told_to_both_sides_and_turns_are_enforced() {
    let s = State::start();
    assert_eq!(s.to_act(), vec![Color::White]);
    assert_eq!(
        s.apply(Color::Black, &mv("e7e5")),
        Err(rules::ActionError::NotYourTurn(Color::Black))
    );
    assert!(
        matches!(s.apply(Color::White, &mv("e2e5")), Err(rules::ActionError::IllegalMove(t)) if t == "e2e5")
    );
    let t = s.apply(Color::White, &mv("e2e4")).unwrap();
    assert_eq!(t.told.white, t.told.black);
    let told = t.told.white.unwrap();
    assert_eq!(told.mv, mv("e2e4"));
    assert_eq!(told.end, None);
    assert_eq!(t.state.to_act(), vec![Color::Black]);
}

#[test]
fn castling_is_written_as_the_king_move_and_moves_the_rook() {
    let pos = Position::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").unwrap();
    let after = pos.play(&mv("e1g1")).unwrap();
    assert_eq!(after.to_fen(), "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1");
    let after = after.play(&mv("e8c8")).unwrap();
    assert_eq!(after.to_fen(), "2kr3r/8/8/8/8/8/8/R4RK1 w - - 2 2");
    // Not through an attacked square (f1 is attacked by the rook on f8).
    let pos = Position::from_fen("1k3r2/8/8/8/8/8/8/R3K2R w KQ - 0 1").unwrap();
    assert!(!pos.legal_uci().contains(&"e1g1".to_string()));
    assert!(pos.legal_uci().contains(&"e1c1".to_string()));
}

#[test]
fn r_c4_position_strings_round_trip_and_name_the_bad_field() {
    for fen in [START_FEN, "8/8/8/1k6/3Pp3/8/8/4KQ2 b - d3 0 1"] {
        assert_eq!(Position::from_fen(fen).unwrap().to_fen(), fen);
    }
    // The halfmove and fullmove fields may be left out.
    assert_eq!(
        Position::from_fen("4k3/8/8/8/8/8/8/4K3 b - -").unwrap().to_fen(),
        "4k3/8/8/8/8/8/8/4K3 b - - 0 1"
    );
    let cases = [
        ("4k3/8/8/8/8/8/8/4K3 w - - 0", "fields"),
        ("4k3/8/8/8/8/8/8/4K2 w - - 0 1", "board"),
        ("8/8/8/8/8/8/8/4K3 w - - 0 1", "board"),
        ("4k3/8/8/8/8/8/8/3KK3 w - - 0 1", "board"),
        ("4k2P/8/8/8/8/8/8/4K3 w - - 0 1", "board"),
        ("4k2R/8/8/8/8/8/8/4K3 w - - 0 1", "board"),
        ("4k3/8/8/8/8/8/8/4K3 x - - 0 1", "side"),
        ("4k3/8/8/8/8/8/8/4K3 w X - 0 1", "castling"),
        ("4k3/8/8/8/8/8/8/4K3 w K - 0 1", "castling"),
        ("4k3/8/8/8/8/8/8/4K2R w KK - 0 1", "castling"),
        ("4k3/8/8/8/8/8/8/4K3 w - e9 0 1", "en-passant"),
        ("4k3/8/8/8/8/8/8/4K3 w - e6 0 1", "en-passant"),
        ("4k3/8/8/3pP3/8/8/8/4K3 w - d3 0 1", "en-passant"),
        ("4k3/8/8/8/8/8/8/4K3 w - - x 1", "halfmove"),
        ("4k3/8/8/8/8/8/8/4K3 w - - 0 0", "fullmove"),
    ];
    for (fen, field) in cases {
        let e = Position::from_fen(fen).unwrap_err();
        assert_eq!(e.field, field, "{fen}: {e}");
    }
    let e = Position::from_fen("4k3/8/8/8/8/8/8/4K3 w X - 0 1").unwrap_err();
    assert_eq!(
        e.to_string(),
        "bad position string: castling: 'X' is not a castling right (K, Q, k, q or -)"
    );
}

#[test]
fn r_a1_unreachable_positions_are_accepted() {
    // Ten queens and two pawns: not reachable, still a position to analyse.
    let pos = Position::from_fen("QQQQQQQQ/QQ6/8/8/8/8/6PP/K6k w - - 0 1").unwrap();
    assert_eq!(pos.legal_uci().len(), pos.perft(1) as usize);
    assert!(pos.perft(1) > 0);
}

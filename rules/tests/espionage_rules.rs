//! Espionage Chess scenario tests: at least one per rule R-E1..R-E6 and the automatic draws of
//! R-C2, each built so that it fails if the rule is broken.

use rules::espionage::{Observation, Position, START_FEN, State};
use rules::{
    ActionError, Alphabet, Analysis, BoardSize, Color, EndReason, Game, GameResult, Move, Piece,
    Role, Square,
};

fn sq(s: &str) -> Square {
    Square::parse(s, BoardSize::Seven).expect("test square")
}

fn mv(s: &str) -> Move {
    Move::parse_uci(s, BoardSize::Seven, Alphabet::ESPIONAGE).expect("test move")
}

fn pos(fen: &str) -> Position {
    Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn legal(fen: &str) -> Vec<String> {
    pos(fen).legal_uci()
}

/// A position string from a list of (square, letter), side to move and spy-square.
fn fen_of(pieces: &[(&str, char)], side: char, spy: &str) -> String {
    let mut grid = [[None; 7]; 7];
    for &(s, c) in pieces {
        let q = sq(s);
        grid[q.rank() as usize][q.file() as usize] = Some(c);
    }
    let rows: Vec<String> = (0..7)
        .rev()
        .map(|r| {
            let mut row = String::new();
            let mut empty = 0;
            for cell in grid[r] {
                match cell {
                    None => empty += 1,
                    Some(c) => {
                        if empty > 0 {
                            row.push_str(&empty.to_string());
                            empty = 0;
                        }
                        row.push(c);
                    }
                }
            }
            if empty > 0 {
                row.push_str(&empty.to_string());
            }
            row
        })
        .collect();
    format!("{} {side} {spy} 0 1", rows.join("/"))
}

/// Plays moves from `state` by the side to move, panicking on refusal.
fn play(mut state: State, moves: &[&str]) -> State {
    for m in moves {
        let actor = state.position().turn();
        state = state.apply(actor, &mv(m)).unwrap_or_else(|e| panic!("{m}: {e}")).state;
    }
    state
}

fn observe(state: &State, m: &str) -> (State, Observation) {
    let t = state.apply(state.position().turn(), &mv(m)).unwrap_or_else(|e| panic!("{m}: {e}"));
    let o = t.told.white.clone().expect("white is told");
    (t.state, o)
}

// ---------------------------------------------------------------------------------------- R-E1

/// The setup lines of seed `004_…`, copied verbatim (White's line, then Black's).
const SEED_SETUP: [&str; 2] = [
    "King f1; queen d2; spy e2; rook a2, g2; cannon b1, d1; bishop c1, c2; knight b2, f2; pawn a3, b3, c3, d3, e3, f3.",
    "King b7; queen d6; spy c6; rook a6, g6; cannon d7, f7; bishop e6, e7; knight b6, f6; pawn b5, c5, d5, e5, f5, g5.",
];

#[test]
fn r_e1_start_fen_is_the_seed_setup_square_by_square() {
    let start = pos(START_FEN);
    let board = start.board();
    let mut listed = 0;
    for (line, color) in SEED_SETUP.iter().zip(Color::ALL) {
        for group in line.trim_end_matches('.').split("; ") {
            let (name, squares) = group.split_once(' ').expect("'<piece> <squares>'");
            let role = match name.to_ascii_lowercase().as_str() {
                "king" => Role::King,
                "queen" => Role::Queen,
                "spy" => Role::Spy,
                "rook" => Role::Rook,
                "cannon" => Role::Cannon,
                "bishop" => Role::Bishop,
                "knight" => Role::Knight,
                "pawn" => Role::Pawn,
                other => panic!("unknown piece name {other}"),
            };
            for s in squares.split(", ") {
                assert_eq!(board.piece_at(sq(s)), Some(Piece { color, role }), "{s} in {line}");
                listed += 1;
            }
        }
    }
    assert_eq!(listed, 34, "17 men a side");
    assert_eq!(board.occupied().count(), 34, "no piece besides the seed's");
    assert_eq!(start.turn(), Color::White, "R-E1: White moves first");
    assert_eq!(start.spy_square(), None);
    assert_eq!(rules::analysis::start_fen(rules::Variant::Espionage), START_FEN);
    assert_eq!(State::new().position(), &start);
}

// ---------------------------------------------------------------------------------------- R-E2

#[test]
fn r_e2_spy_moves_as_a_queen() {
    let with = |c: char| {
        let fen =
            fen_of(&[("d4", c), ("b1", 'K'), ("f7", 'k'), ("d6", 'p'), ("b4", 'P')], 'w', "-");
        legal(&fen).into_iter().filter(|m| m.starts_with("d4")).collect::<Vec<_>>()
    };
    let spy = with('S');
    assert_eq!(spy, with('Q'));
    assert!(spy.contains(&"d4d6".to_string()), "captures the pawn like a queen: {spy:?}");
    // 2 up (to the pawn), 3 down, 1 left (to b4's own pawn), 3 right, 3 on each diagonal.
    assert_eq!(spy.len(), 21);
}

#[test]
fn r_e2_an_immune_spy_cannot_be_captured_by_anything() {
    // Black's spy on d4 is attacked by a White queen, rook, bishop, knight, pawn, king and a
    // cannon (over the f4 pawn); it also checks the e5 king, which must not take it.
    let pieces = [
        ("d4", 's'),
        ("d7", 'Q'),
        ("d1", 'R'),
        ("a1", 'B'),
        ("c2", 'N'),
        ("e3", 'P'),
        ("e5", 'K'),
        ("g4", 'C'),
        ("f4", 'P'),
        ("g6", 'k'),
    ];
    let attackers = ["d7", "d1", "a1", "c2", "e3", "e5", "g4"];
    let immune = legal(&fen_of(&pieces, 'w', "-"));
    for from in attackers {
        assert!(!immune.contains(&format!("{from}d4")), "{from}d4 took an immune spy");
    }
    // The same Spy on the spy-square (it just captured) may be taken by every one of them.
    let exposed = legal(&fen_of(&pieces, 'w', "d4"));
    for from in attackers {
        assert!(exposed.contains(&format!("{from}d4")), "{from}d4 missing: {exposed:?}");
    }
}

#[test]
fn r_e2_a_spy_becomes_capturable_only_after_it_captures_and_only_for_one_move() {
    // White's spy e2 takes the pawn on e5, which Black's f7 knight guards.
    let fen = fen_of(&[("e2", 'S'), ("e5", 'p'), ("f7", 'n'), ("a1", 'K'), ("b7", 'k')], 'w', "-");
    let start = State::from_fen(&fen).expect("valid");
    let (s, o) = observe(&start, "e2e5");
    assert_eq!(o.capture, Some(Role::Pawn));
    assert_eq!(s.position().spy_square(), Some(sq("e5")), "R-E2(d): exposed after a capture");
    assert!(s.position().legal_uci().contains(&"f7e5".to_string()), "the knight may take it");
    // Black declines: the spy is immune again from Black's next move on.
    let s = play(s, &["b7b6"]);
    assert_eq!(s.position().spy_square(), None);
    let s = play(s, &["a1a2"]);
    assert!(!s.position().legal_uci().contains(&"f7e5".to_string()), "immune again");
    // A quiet spy move never exposes it.
    let (s, _) = observe(&start, "e2e4");
    assert_eq!(s.position().spy_square(), None);
    assert!(!s.position().legal_uci().iter().any(|m| m.ends_with("e4")));
}

#[test]
fn r_e2_a_lone_immune_spy_mates_a_cornered_king() {
    // The b6 spy checks a7 (R-E2(b)), covers a6 and b7, and cannot be taken (R-E2(c)).
    let s = State::from_fen("k6/1S5/7/7/7/7/6K b - 0 1").expect("valid");
    assert!(s.position().is_check());
    assert_eq!(s.result(), Some(GameResult::win(Color::White, EndReason::Checkmate)));
    // The same spy having just captured is taken by the king.
    assert_eq!(legal("k6/1S5/7/7/7/7/6K b b6 0 1"), ["a7b6"]);
}

#[test]
fn r_e2_check_from_an_immune_spy_is_met_by_blocking_or_moving() {
    let fen = "3k3/7/7/3s3/7/R6/3K3 w - 0 1";
    assert!(pos(fen).is_check());
    assert_eq!(legal(fen), ["a2d2", "d1c1", "d1c2", "d1e1", "d1e2"]);
    // Adjacent immune spy: only king moves help, and never onto the spy.
    let adjacent = legal("6k/7/7/7/7/3s3/2K4 w - 0 1");
    assert!(!adjacent.contains(&"c1d2".to_string()));
    assert_eq!(adjacent, ["c1b1"], "b2, c2 and d1 are on the spy's lines");
}

#[test]
fn r_e2_a_king_may_not_step_next_to_an_enemy_spy() {
    // Black's d3 spy gives no check to b2, but attacks every square next to it.
    let fen = "6k/7/7/7/3s3/1K5/7 w - 0 1";
    assert!(!pos(fen).is_check());
    let moves = legal(fen);
    for bad in ["b2c3", "b2c2", "b2b3", "b2a3", "b2b1"] {
        assert!(!moves.contains(&bad.to_string()), "{bad}: next to or in line with the spy");
    }
    assert_eq!(moves, ["b2a1", "b2a2", "b2c1"]);
}

#[test]
fn r_e2_an_immune_spy_defends_its_pieces() {
    // The e2 knight checks nothing but stands next to the d1 king; the e5 spy defends it.
    let defended = legal("6k/7/4s2/7/7/4n2/3K3 w - 0 1");
    assert!(!defended.contains(&"d1e2".to_string()));
    let undefended = legal("6k/7/7/7/7/4n2/3K3 w - 0 1");
    assert!(undefended.contains(&"d1e2".to_string()));
}

#[test]
fn r_e2_a_pawn_capturing_into_a_spy_is_exposed_a_quiet_one_is_not() {
    let fen = fen_of(&[("d7", 'k'), ("d6", 'r'), ("f6", 'n'), ("e5", 'P'), ("g1", 'K')], 'w', "-");
    let start = State::from_fen(&fen).expect("valid");
    let (s, o) = observe(&start, "e5f6s");
    assert_eq!(o.capture, Some(Role::Knight));
    assert_eq!(s.position().spy_square(), Some(sq("f6")), "R-E2(d): captured into a spy");
    assert!(s.position().legal_uci().contains(&"d6f6".to_string()));
    let (s, o) = observe(&start, "e5e6s");
    assert!(o.check, "the new spy on e6 checks d7");
    assert_eq!(s.position().spy_square(), None);
    let moves = s.position().legal_uci();
    assert!(!moves.contains(&"d6e6".to_string()) && !moves.contains(&"d7e6".to_string()));
}

#[test]
fn r_e2_spy_takes_spy_only_on_the_spy_square() {
    let immune = legal("7/6k/2s4/7/2S4/7/K6 w - 0 1");
    assert!(!immune.contains(&"c3c5".to_string()));
    let exposed = legal("7/6k/2s4/7/2S4/7/K6 w c5 0 1");
    assert!(exposed.contains(&"c3c5".to_string()));
}

// ---------------------------------------------------------------------------------------- R-E3

#[test]
fn r_e3_cannon_moves_up_to_four_empty_squares() {
    let moves: Vec<String> =
        legal("1k5/7/7/7/7/7/C5K w - 0 1").into_iter().filter(|m| m.starts_with("a1")).collect();
    assert_eq!(moves, ["a1a2", "a1a3", "a1a4", "a1a5", "a1b1", "a1c1", "a1d1", "a1e1"]);
    // It never jumps without capturing: with a piece on a3, a2 is the only square up.
    let blocked = legal("1k5/7/7/7/P6/7/C5K w - 0 1");
    assert!(blocked.contains(&"a1a2".to_string()) && !blocked.contains(&"a1a4".to_string()));
}

#[test]
fn r_e3_cannon_captures_over_one_screen_at_most_four_squares_away() {
    for screen in 2..=6u8 {
        for target in (screen + 1)..=7u8 {
            let (s, t) = (format!("a{screen}"), format!("a{target}"));
            let fen =
                fen_of(&[("a1", 'C'), (&s, 'N'), (&t, 'n'), ("g1", 'K'), ("g7", 'k')], 'w', "-");
            let can = legal(&fen).contains(&format!("a1{t}"));
            // Distance from the cannon's square to the target: target - 1.
            assert_eq!(can, target - 1 <= 4, "screen {s}, target {t}");
        }
    }
    // No screen: no capture, even next to it.
    assert!(!legal("6k/7/7/7/7/n6/C5K w - 0 1").contains(&"a1a2".to_string()));
    // Two screens: no capture.
    assert!(!legal("6k/7/7/n6/p6/P6/C5K w - 0 1").contains(&"a1a4".to_string()));
    // The screen may be an enemy piece, a king or an immune spy.
    assert!(legal("6k/7/7/n6/s6/7/C5K w - 0 1").contains(&"a1a4".to_string()));
    assert!(legal("7/7/7/n6/k6/7/C5K w - 0 1").contains(&"a1a4".to_string()));
}

#[test]
fn r_e3_cannon_gives_check_through_a_screen_only() {
    assert!(pos("7/7/k6/7/P6/7/C5K b - 0 1").is_check(), "a1 cannon over a3 onto a5");
    assert!(!pos("7/7/7/7/k6/7/C5K b - 0 1").is_check(), "no screen, no check");
    assert!(!pos("k6/7/7/7/P6/7/C5K b - 0 1").is_check(), "a7 is 6 squares away");
    // The king may not step onto a square the cannon attacks through a screen (a4 at distance
    // 3, a5 at distance 4), but may go to a6 at distance 5.
    let moves = legal("7/7/1k5/7/P6/7/C5K b - 0 1");
    assert!(!moves.contains(&"b5a5".to_string()) && !moves.contains(&"b5a4".to_string()));
    assert!(moves.contains(&"b5a6".to_string()));
}

#[test]
fn r_e3_cannon_cannot_take_an_immune_spy() {
    assert!(!legal("6k/7/7/s6/7/P6/C5K w - 0 1").contains(&"a1a4".to_string()));
    assert!(legal("6k/7/7/s6/7/P6/C5K w a4 0 1").contains(&"a1a4".to_string()));
}

// ---------------------------------------------------------------------------------------- R-E4

#[test]
fn r_e4_no_double_step_no_castling_no_en_passant() {
    let moves = legal(START_FEN);
    let pawn_moves: Vec<&String> = moves.iter().filter(|m| m.as_bytes()[1] == b'3').collect();
    assert_eq!(pawn_moves, ["a3a4", "b3b4", "c3c4", "d3d4", "e3e4", "f3f4"]);
    // A king next to its rook with empty squares around never moves two squares.
    let k = legal("3k3/7/7/7/7/7/R2K2R w - 0 1");
    assert!(!k.iter().any(|m| m == "d1b1" || m == "d1f1"));
    // Black's c5 pawn next to White's d5 pawn can only step or take diagonally.
    let p = legal("3k3/7/2pP3/7/7/7/3K3 b - 0 1");
    assert!(p.contains(&"c5c4".to_string()) && !p.contains(&"c5d4".to_string()));
}

#[test]
fn r_e4_white_promotes_on_rank_6_black_on_rank_2_to_any_of_six() {
    let w: Vec<String> =
        legal("k6/7/4P2/7/7/7/6K w - 0 1").into_iter().filter(|m| m.starts_with("e5")).collect();
    assert_eq!(w, ["e5e6b", "e5e6c", "e5e6n", "e5e6q", "e5e6r", "e5e6s"]);
    let b: Vec<String> =
        legal("k6/7/7/7/2p4/7/6K b - 0 1").into_iter().filter(|m| m.starts_with("c3")).collect();
    assert_eq!(b, ["c3c2b", "c3c2c", "c3c2n", "c3c2q", "c3c2r", "c3c2s"]);
    // Promotion is compulsory: no plain e5e6, and a second queen is fine (no army limit).
    let s = play(State::from_fen("k6/7/4P2/7/1Q5/7/6K w - 0 1").expect("valid"), &["e5e6q"]);
    assert_eq!(s.position().board().by_piece(Role::Queen.of(Color::White)).count(), 2);
    let s = State::from_fen("k6/7/4P2/7/7/7/6K w - 0 1").expect("valid");
    assert!(s.apply(Color::White, &mv("e5e6")).is_err());
}

#[test]
fn r_e4_pawns_on_or_beyond_their_promotion_rank_are_refused() {
    for (fen, needle) in [
        ("k6/4P2/7/7/7/7/6K w - 0 1", "white pawn on e6"),
        ("k3P2/7/7/7/7/7/6K w - 0 1", "white pawn on e7"),
        ("k6/7/7/7/7/2p4/6K w - 0 1", "black pawn on c2"),
        ("k6/7/7/7/7/7/2p3K w - 0 1", "black pawn on c1"),
    ] {
        let e = Position::from_fen(fen).expect_err(fen).to_string();
        assert!(e.contains(needle) && e.contains("R-E4"), "{fen}: {e}");
    }
    // Pawns behind their start ranks are accepted (R-A1) and step forward.
    assert!(legal("k6/7/7/7/7/7/P5K w - 0 1").contains(&"a1a2".to_string()));
}

// ---------------------------------------------------------------------------------------- R-E5

#[test]
fn r_e5_both_sides_are_told_the_same_full_move() {
    let t = State::new().apply(Color::White, &mv("g2g5")).expect("legal");
    assert_eq!(t.told.white, t.told.black);
    let o = t.told.white.expect("told");
    assert_eq!(
        o,
        Observation {
            mover: Color::White,
            uci: "g2g5".to_string(),
            capture: Some(Role::Pawn),
            check: false,
            end: None
        }
    );
    let json = serde_json::to_string(&o).expect("serialises");
    assert_eq!(
        json,
        r#"{"mover":"white","move":"g2g5","capture":"pawn","check":false,"end":null}"#
    );
}

// ---------------------------------------------------------------------------------------- R-E6

#[test]
fn r_e6_position_strings_round_trip_and_track_the_spy_square() {
    for fen in [START_FEN, "k6/1S5/7/7/7/7/6K b b6 17 40", "3k3/2s1s2/3p3/2SQS2/7/7/3K3 w e6 0 9"] {
        assert_eq!(pos(fen).to_fen(), fen);
    }
    let s = play(State::new(), &["e3e4", "g5g4", "e4d5", "g4g3", "e2e5"]);
    assert_eq!(s.position().to_fen(), "1k1cbc1/rnsqbnr/1ppPSp1/7/PPPP1Pp/RNBQ1NR/1CBC1K1 b e5 0 3");
}

#[test]
fn r_e6_bad_position_strings_name_the_problem() {
    for (fen, needle) in [
        ("k6/7/7/7/7/7/6K w - 0", "expected 5 fields"),
        ("k6/7/7/7/7/7/6K x - 0 1", "side: 'x' is not w or b"),
        ("k6/7/7/7/7/7/6K w h1 0 1", "spy-square: 'h1' is not"),
        ("k6/1S5/7/7/7/7/6K w b6 0 1", "b6 does not hold a spy of the side that just moved"),
        ("k6/1N5/7/7/7/7/6K b b6 0 1", "b6 does not hold a spy"),
        ("k6/7/7/7/7/7/6K w - x 1", "halfmove: 'x'"),
        ("k6/7/7/7/7/7/6K w - 0 0", "fullmove"),
        ("k5k/7/7/7/7/7/6K w - 0 1", "black has 2 kings"),
        ("7/7/7/7/7/7/6K w - 0 1", "black has 0 kings"),
        ("k6/1S5/7/7/7/7/6K w - 0 1", "black is in check but it is white's move"),
        ("k7/7/7/7/7/7/6K w - 0 1", "more than 7 files"),
        ("k6/7/7/7/7/7/5MK w - 0 1", "unknown piece letter 'M'"),
    ] {
        let e = Position::from_fen(fen).expect_err(fen).to_string();
        assert!(e.contains(needle), "{fen}: {e}");
    }
}

// ---------------------------------------------------------------------------------------- R-C2

#[test]
fn r_c2_threefold_repetition_compares_the_spy_square_too() {
    // The first position has the c3 spy exposed; when the same board returns after 4 and 8
    // plies the spy is immune, so that is a different position and ply 8 is no third
    // occurrence. The draw comes at ply 9, the third time the position after a7b7 appears.
    let shuffle = ["a7b7", "g1f1", "b7a7", "f1g1"];
    let s = State::from_fen("k6/7/7/7/2S4/7/6K b c3 0 1").expect("valid");
    let s = play(s, &shuffle);
    let s = play(s, &shuffle);
    assert_eq!(s.result(), None, "the spy-square makes the start position different");
    let (s, o) = observe(&s, "a7b7");
    assert_eq!(o.end, Some(GameResult::draw(EndReason::Repetition)));
    assert_eq!(s.result(), o.end);
    assert_eq!(s.apply(Color::White, &mv("g1f1")), Err(ActionError::GameOver));
    assert!(s.to_act().is_empty());
}

#[test]
fn r_c2_fifty_move_rule_after_100_plies_without_capture_or_pawn_move() {
    let s = State::from_fen("k6/7/7/7/2S4/7/6K w - 99 80").expect("valid");
    let (_, o) = observe(&s, "g1f1");
    assert_eq!(o.end, Some(GameResult::draw(EndReason::FiftyMove)));
    let s = State::from_fen("k6/7/7/7/2S4/P6/6K w - 99 80").expect("valid");
    let (s, o) = observe(&s, "a2a3");
    assert_eq!(o.end, None, "a pawn move resets the count");
    assert_eq!(s.position().halfmove(), 0);
}

#[test]
fn r_c2_insufficient_material_exactly_as_listed() {
    // K+N v K after a capture: draw.
    let (_, o) = observe(&State::from_fen("k6/7/7/7/2r4/7/1N4K w - 0 1").expect("valid"), "b1c3");
    assert_eq!(o.end, Some(GameResult::draw(EndReason::InsufficientMaterial)));
    // K+S v K and K+C v K are mating material.
    let (_, o) = observe(&State::from_fen("k6/7/7/7/2r4/7/4S1K w - 0 1").expect("valid"), "e1c3");
    assert_eq!(o.end, None);
    assert_eq!(State::from_fen("k6/7/7/7/7/7/1C4K w - 0 1").expect("valid").result(), None);
}

#[test]
fn r_c2_stalemate_is_a_draw() {
    let (s, o) = observe(&State::from_fen("k6/7/3Q3/7/7/7/6K w - 0 1").expect("valid"), "d5c6");
    assert!(!o.check);
    assert_eq!(o.end, Some(GameResult::draw(EndReason::Stalemate)));
    assert!(s.legal_moves().is_empty());
}

#[test]
fn game_api_refuses_wrong_turns_and_illegal_moves() {
    let s = State::new();
    assert_eq!(s.variant(), rules::Variant::Espionage);
    assert_eq!(s.to_act(), [Color::White]);
    assert_eq!(s.apply(Color::Black, &mv("b5b4")), Err(ActionError::NotYourTurn(Color::Black)));
    assert_eq!(s.apply(Color::White, &mv("a3a5")), Err(ActionError::IllegalMove("a3a5".into())));
    assert_eq!(
        s.apply(Color::White, &mv("e2c6")),
        Err(ActionError::IllegalMove("e2c6".into())),
        "not a queen line"
    );
}

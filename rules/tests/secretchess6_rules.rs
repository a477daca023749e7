//! Scenario tests for 6x6 Secret Chess, one or more per rule R-G1..R-G9 (RULES.md), including
//! the seed's scoring example.

use rules::secretchess6::{
    Action, EXAMPLE_FEN, Event, Formation, Observation, Options, PassReason, Position, State,
    TurnMove,
};
use rules::{ActionError, Analysis, ByColor, Color, EndReason, Game, Square};

const W: Color = Color::White;
const B: Color = Color::Black;

fn sq(s: &str) -> Square {
    Square::parse(s, rules::BoardSize::Six).unwrap()
}

fn pos(fen: &str) -> Position {
    Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn setup_action(formation: &str, falses: &[&str]) -> Action {
    Action::Setup {
        formation: Formation::parse(formation).expect("a formation"),
        false_squares: falses.iter().map(|s| sq(s)).collect(),
    }
}

fn act(s: &State, c: Color, a: Action) -> (State, ByColor<Option<Observation>>) {
    let t = s.apply(c, &a).unwrap_or_else(|e| panic!("{c} {a:?}: {e}"));
    (t.state, t.told)
}

fn mv(s: &State, c: Color, m: &str) -> (State, ByColor<Option<Observation>>) {
    act(s, c, move_action(m))
}

/// A move action from its text (`b1d3`, `b1c4+`).
fn move_action(m: &str) -> Action {
    Action::Move { mv: TurnMove::parse(m).unwrap_or_else(|e| panic!("{e}")) }
}

fn events(o: &Option<Observation>) -> Vec<Event> {
    o.as_ref().map(|o| o.events.clone()).unwrap_or_default()
}

/// Both setups of the example start: White `NBKQ1R`, Black `n1qkrb`.
fn started(options: Options, wf: &[&str], bf: &[&str]) -> State {
    let s = State::new(options);
    let (s, _) = act(&s, W, setup_action("NBKQ1R", wf));
    let (s, _) = act(&s, B, setup_action("n1qkrb", bf));
    s
}

fn fen(s: &State) -> String {
    s.position().unwrap().to_fen()
}

/// The red squares and (square, lifespan) of own pieces in the last board update.
type Shown = (Vec<String>, Vec<(String, Option<u8>)>);

fn board_of(evs: &[Event]) -> Option<Shown> {
    evs.iter().rev().find_map(|e| match e {
        Event::Board { red, pieces, .. } => {
            let pieces = pieces.iter().map(|p| (p.square.name(), p.lifespan)).collect();
            Some((red.map(|s| s.name()).collect(), pieces))
        }
        _ => None,
    })
}

/// Plays a whole game from `s` choosing, at each decision, the legal action with index
/// `(seed + 7 * step) % n`. Returns the final state.
fn play_out(mut s: State, seed: usize) -> State {
    for step in 0..400 {
        let actions = s.legal_actions();
        if actions.is_empty() {
            return s;
        }
        let (c, a) = actions[(seed + 7 * step) % actions.len()].clone();
        s = act(&s, c, a).0;
    }
    panic!("a game longer than 400 decisions");
}

// ---------------------------------------------------------------- R-G1

#[test]
fn r_g1_setup_errors_name_the_problem() {
    // A formation that breaks R-G1 cannot be built (nor decoded), so no setup can carry one.
    let formation = |t: &str| Formation::parse(t).unwrap_err().to_string();
    assert!(formation("RNBQK").contains("six files"));
    assert!(formation("RNBQKK").contains("appears twice"));
    assert!(formation("RNBQKX").contains("'X' is not one of K Q R B N"));
    assert!(formation("RNBQK11").contains("six files"));
    // False squares are a set (given twice or off the board is the text reader's concern,
    // `fogproof rules referee`); where they lie and how many there are, the rules check.
    let s = State::default();
    let err = |a: Action| s.apply(W, &a).unwrap_err().to_string();
    assert!(err(setup_action("RNB1QK", &["a2"])).contains("a2 is not in the enemy territory"));
    assert!(err(setup_action("RNB1QK", &["a4", "b5", "c6"])).contains("at most 2"));
    assert!(s.apply(W, &setup_action("rnb1qk", &["a4", "b5"])).is_ok(), "either case");
    assert!(s.apply(B, &setup_action("1KQRBN", &["a1", "f3"])).is_ok());
    assert!(s.apply(B, &setup_action("1KQRBN", &["a4"])).is_err(), "a4 is Black's own");
}

#[test]
fn r_g1_opponent_learns_only_readiness_and_play_starts_when_both_are_in() {
    for first in Color::ALL {
        let s = State::default();
        assert_eq!(s.to_act(), vec![W, B]);
        assert_eq!(s.apply(W, &move_action("a1b3")).unwrap_err(), ActionError::WrongPhase("setup"));
        let f = |c: Color| c.fold("NBKQ1R", "n1qkrb");
        let (s1, told) = act(&s, first, setup_action(f(first), &[]));
        assert_eq!(events(&told[first]), vec![Event::SetupAccepted]);
        assert_eq!(events(&told[first.other()]), vec![Event::OpponentReady]);
        assert_eq!(s1.to_act(), vec![first.other()]);
        assert!(s1.apply(first, &setup_action(f(first), &[])).is_err(), "one setup per side");
        let (s2, told) = act(&s1, first.other(), setup_action(f(first.other()), &[]));
        assert_eq!(fen(&s2), EXAMPLE_FEN, "formations on the first ranks, White to move");
        assert_eq!(s2.to_act(), vec![W]);
        for c in Color::ALL {
            let evs = events(&told[c]);
            let Some(Event::Board { your_turn, pieces, .. }) = evs.last() else {
                panic!("{c} is shown its board: {evs:?}")
            };
            assert_eq!(*your_turn, c == W);
            assert_eq!(pieces.len(), 5);
            assert!(pieces.iter().all(|p| p.square.rank() == c.fold(0, 5)));
        }
    }
}

#[test]
fn r_g1_secret_setup_never_reaches_the_opponent() {
    let s = State::default();
    let (s, told) = act(&s, W, setup_action("NBKQ1R", &["a4", "f6"]));
    let black_json = serde_json::to_string(&told.black).unwrap();
    assert!(!black_json.contains("a4") && !black_json.contains("NBKQ1R"), "{black_json}");
    let (s, told) = act(&s, B, setup_action("n1qkrb", &[]));
    // a4 and f6 lie in Black's territory: they show up only as red squares, alongside real
    // threats, never labelled as false.
    let (red, _) = board_of(&events(&told.black)).unwrap();
    let p = s.position().unwrap();
    let mut want = p.threatened(B);
    want.insert(sq("a4"));
    want.insert(sq("f6"));
    assert_eq!(red, want.map(|s| s.name()).collect::<Vec<_>>());
    let black_json = serde_json::to_string(&told.black).unwrap();
    assert!(!black_json.contains("false_square") && !black_json.contains("NBKQ1R"));
}

// ---------------------------------------------------------------- R-G2

#[test]
fn r_g2_king_never_moves_no_capture_no_entry_into_enemy_territory() {
    let p = pos(EXAMPLE_FEN);
    let legal = p.legal_uci();
    assert!(legal.iter().all(|m| !m.starts_with("c1")), "the king c1 never moves: {legal:?}");
    let s = started(Options::default(), &[], &[]);
    for bad in ["c1c2", "f1f4", "d1f1", "d1d4", "a1b4", "0000", "zz"] {
        // Text that is no move at all never becomes an action; a move is refused by the rules.
        let Ok(m) = TurnMove::parse(bad) else { continue };
        assert!(
            matches!(s.apply(W, &Action::Move { mv: m }), Err(ActionError::IllegalMove(_))),
            "{bad} must be refused"
        );
    }
    // A rook facing an enemy piece along its file still cannot take it.
    let p = pos("k2r2/6/6/6/6/K2R2 w");
    assert!(!p.legal_uci().contains(&"d1d6".to_string()));
    assert_eq!(p.legal_uci(), ["d1b1", "d1c1", "d1d2", "d1d3", "d1e1", "d1f1"]);
    assert_eq!(s.apply(B, &move_action("a6b4")).unwrap_err(), ActionError::NotYourTurn(B));
}

#[test]
fn r_g2_a_lone_king_skips_to_scoring_and_a_blocked_side_passes() {
    let p = pos("3k2/6/6/6/2N3/2K3 w c2=1");
    let p = p.play(TurnMove::parse("c2a3").unwrap());
    assert_eq!(p.legal_uci(), ["0000"]);
    assert_eq!(p.pass_reason(), Some(PassReason::OnlyKing));
    let blocked = pos("qk4/6/6/QQQQQQ/RRRRRR/NBBBBK w a3=1");
    assert_eq!(blocked.pass_reason(), Some(PassReason::NoLegalMove));
    // The queen a3 dies at the start of White's next turn, which unblocks the rest.
    let after = blocked.play(TurnMove::Pass).play(TurnMove::parse("a6a5").unwrap());
    assert!(after.board().piece_at(sq("a3")).is_none());
    assert!(after.legal_uci().contains(&"a2a3".to_string()));
}

#[test]
fn r_g2_skipped_turns_are_played_by_the_umpire_and_recorded() {
    // Over many played-out games, every pass in the history belongs to a side that had only its
    // king or no legal move, and that side was told so.
    let mut passes = 0;
    for seed in 0..40 {
        let mut s = started(Options::default(), &[], &[]);
        for step in 0..400 {
            let actions = s.legal_actions();
            if actions.is_empty() {
                break;
            }
            let (c, a) = actions[(seed + 7 * step) % actions.len()].clone();
            let before = s.history().len();
            let (next, told) = act(&s, c, a);
            for (side, m) in &next.history()[before..] {
                if *m == TurnMove::Pass {
                    passes += 1;
                    assert!(
                        events(&told[*side]).iter().any(|e| matches!(e, Event::Passed { .. })),
                        "{side} is told of its pass"
                    );
                    assert!(
                        !events(&told[side.other()])
                            .iter()
                            .any(|e| matches!(e, Event::Passed { .. })),
                        "the opponent is not"
                    );
                }
            }
            s = next;
        }
        assert!(s.position().unwrap().only_kings(), "seed {seed}: the game ends");
    }
    assert!(passes > 0, "the sample includes skipped turns");
}

// ---------------------------------------------------------------- R-G3

#[test]
fn r_g3_lifespans_start_at_the_first_move_and_pieces_die_at_their_owners_turn_start() {
    let s = started(Options::default(), &[], &[]);
    // Turn 1: the queen moves; it keeps lifespan 1 through Black's turn.
    let (s, _) = mv(&s, W, "d1d3");
    assert!(fen(&s).contains(" d3=1 "), "{}", fen(&s));
    let (s, told) = mv(&s, B, "a6b4");
    // Turn 3 starts: White's queen is removed before White is shown its board.
    let (_, pieces) = board_of(&events(&told.white)).unwrap();
    assert!(!pieces.iter().any(|(q, _)| q == "d3"), "{pieces:?}");
    assert!(s.position().unwrap().board().piece_at(sq("d3")).is_none());
    // Black's knight (moved on turn 2) has not aged yet: it ages at Black's turn starts only.
    assert!(fen(&s).contains("b4=4"), "{}", fen(&s));
    // The bishop lives through two of White's turn starts after its first move.
    let (s, _) = mv(&s, W, "b1d3");
    let (s, _) = mv(&s, B, "b4d5");
    assert!(fen(&s).contains("d3=1"), "{}", fen(&s));
    assert!(fen(&s).contains("d5=3"), "Black's knight aged once: {}", fen(&s));
    let (s, _) = mv(&s, W, "d3c2");
    let (s, told) = mv(&s, B, "d5b4");
    assert!(s.position().unwrap().board().piece_at(sq("c2")).is_none(), "{}", fen(&s));
    let (_, pieces) = board_of(&events(&told.white)).unwrap();
    // Unmoved pieces show no lifespan and never age.
    assert_eq!(pieces, vec![("a1".into(), None), ("c1".into(), None), ("f1".into(), None)]);
}

// ---------------------------------------------------------------- R-G4

#[test]
fn r_g4_power_up_is_a_3_1_leap_caps_the_lifespan_and_is_permanent() {
    let s = started(Options::default(), &[], &[]);
    assert!(s.apply(W, &move_action("a1d2")).is_err(), "a (3,1) leap needs '+'");
    assert!(s.apply(W, &move_action("a1b3+")).is_err(), "'+' is only on (3,1)");
    let (s, _) = mv(&s, W, "a1d2+");
    assert!(fen(&s).contains("d2=3+"), "min(4, 3) = 3: {}", fen(&s));
    let (s, _) = mv(&s, B, "a6b4");
    // White's turn: aged to 2, and only (3,1) leaps, written without '+'.
    assert!(fen(&s).contains("d2=2+"), "{}", fen(&s));
    let knight: Vec<String> =
        s.position().unwrap().legal_uci().into_iter().filter(|m| m.starts_with("d2")).collect();
    assert_eq!(knight, ["d2a1", "d2a3"]);
    // A knight with lifespan 2 keeps 2 when it powers up.
    let p = pos("k5/6/6/6/6/K1N3 w c1=2");
    let p2 = p.play(TurnMove::parse("c1f2+").unwrap());
    assert!(p2.to_fen().contains("f2=2+"), "{}", p2.to_fen());
    // R-G4 powered knights threaten by (3,1) leaps, not (2,1).
    let p = pos("k1n3/6/6/6/3N2/K5 w d2=3+");
    assert_eq!(p.threats_from(sq("d2")), [sq("c5"), sq("e5")].into_iter().collect());
    let p = pos("k1n3/6/6/6/3N2/K5 w d2=3");
    assert_eq!(p.threats_from(sq("d2")), [sq("c4"), sq("e4")].into_iter().collect());
}

// ---------------------------------------------------------------- R-G5

#[test]
fn r_g5_sliders_stop_at_the_first_piece_of_either_side_knights_leap() {
    // White rook a3: up the file a4 then Black's rook a5 (threatened), a6 hidden behind it.
    // White queen c1: c2 is its own bishop, so the file is blocked by a friend; its diagonal
    // c1-d2-e3-f4 reaches f4. Knight b2 leaps over everything to a4, c4.
    let p = pos("kq4/r5/6/R5/1NB3/2Q2K w");
    assert_eq!(p.threats_from(sq("a3")), [sq("a4"), sq("a5")].into_iter().collect());
    assert_eq!(p.threats_from(sq("c1")), [sq("f4")].into_iter().collect());
    assert_eq!(p.threats_from(sq("b2")), [sq("a4"), sq("c4")].into_iter().collect());
    // The bishop c2 reaches into Black's territory on both diagonals: c2-b3-a4 to the edge,
    // c2-d3-e4-f5.
    assert_eq!(p.threats_from(sq("c2")), [sq("a4"), sq("e4"), sq("f5")].into_iter().collect());
    // Only the enemy territory counts: a rook on rank 3 sliding along it threatens nothing there.
    let p = pos("k5/6/6/6/6/K4R w");
    assert_eq!(p.threats_from(sq("f1")), [sq("f4"), sq("f5"), sq("f6")].into_iter().collect());
    // The king never moves (R-G2), so it threatens nothing, even composed next to the enemy
    // territory with an enemy queen beside it.
    let p = pos("3k2/6/1q4/K5/6/6 w");
    assert!(p.threats_from(sq("a3")).is_empty());
    assert_eq!(p.points(W), 0);
    assert_eq!(p.points(B), 2, "while the queen b4 does threaten the king a3");
}

// ---------------------------------------------------------------- R-G6

#[test]
fn r_g6_red_squares_are_threats_and_false_squares_in_one_set() {
    // White marks c4 and c5; Black marks b2 (which its bishop f6 also really threatens along
    // f6-a1) and f2 (threatened by nothing).
    let s = started(Options::default(), &["c4", "c5"], &["b2", "f2"]);
    let p = s.position().unwrap();
    // Black's rook e6 sees down the e file to e1 (empty); Black's queen c6 sees c1 (White's
    // king) and the diagonal d5-e4-f3; its bishop f6 the long diagonal to a1.
    let threatened_white = p.threatened(W);
    assert_eq!(
        p.red_squares(W),
        threatened_white | [sq("b2"), sq("f2")].into_iter().collect::<rules::Bitboard>()
    );
    assert!(threatened_white.contains(sq("b2")), "b2 is both false and threatened by f6");
    assert!(!threatened_white.contains(sq("f2")), "f2 is only false");
    // White's initial board shows exactly that set, sorted, with no label.
    let s0 = State::default();
    let (s0, _) = act(&s0, B, setup_action("n1qkrb", &["b2", "f2"]));
    let (_, told) = act(&s0, W, setup_action("NBKQ1R", &["c4", "c5"]));
    let (red, _) = board_of(&events(&told.white)).unwrap();
    let want: Vec<String> = p.red_squares(W).map(|s| s.name()).collect();
    assert_eq!(red, want);
    let (red_b, _) = board_of(&events(&told.black)).unwrap();
    assert!(red_b.contains(&"c4".to_string()) && red_b.contains(&"c5".to_string()));
}

// ---------------------------------------------------------------- R-G7

/// The seed's scoring example, reconstructed (the seed's diagram is not in its text).
///
/// The seed says: the upper player moved first, with its bishop, whose lifespan 2 is now shown;
/// it scores 2 (its rook threatens the lower bishop, its bishop the lower knight); its bishop
/// blocks its own queen, which would otherwise threaten the lower king. The lower player scores
/// 3 (its queen threatens the upper king, 2 points; its bishop the upper knight, 1 point).
///
/// The first player is White here (R-C coordinates), so the "upper" player is White. Every
/// unmoved piece stands on its first rank, and a bishop on rank 6 reaches rank 1 only along a
/// long diagonal, so Black's bishop f6 and White's knight a1 face each other on a1-f6; White's
/// rook takes the f file (f1) to hit that bishop. A rank-6 queen reaches White's first rank only
/// along a file: Black's queen c6 over White's king c1. White's queen d1 faces Black's king d6,
/// and White's bishop went b1-d3, which blocks the d file and hits Black's knight a6 along
/// d3-c4-b5-a6. Black's rook e6 looks down the e file onto White's empty e1; Black's b6 is empty.
/// No other line reaches a piece, as the counts below confirm.
#[test]
fn r_g7_seed_scoring_example() {
    let s = started(Options::default(), &[], &[]);
    let (s, told) = mv(&s, W, "b1d3");
    let p = s.position().unwrap();
    assert_eq!(p.to_fen(), "n1qkrb/6/6/3B2/6/N1KQ1R b d3=2 - - 2-3 2");
    assert_eq!(p.scores(), ByColor { white: 2, black: 3 });
    for c in Color::ALL {
        assert!(
            events(&told[c])
                .contains(&Event::Scores { turn: 1, scores: ByColor { white: 2, black: 3 } }),
            "{c} is told the scores after turn 1"
        );
    }
    // The queen would threaten the king without the bishop in the way.
    let without = pos("n1qkrb/6/6/6/6/N1KQ1R b");
    assert_eq!(without.points(W), 1 + 2, "rook on bishop, queen on king");
}

#[test]
fn r_g7_false_squares_never_score_but_a_real_threat_on_one_does() {
    // Black has placed a false square on a3 where White's rook stands: no point for Black.
    let p = pos("k5/6/6/6/R5/K5 w - a3");
    assert!(p.red_squares(W).contains(sq("a3")));
    assert_eq!(p.points(B), 0);
    // Now Black's rook a6 really threatens a3 (a5, a4 empty): one point, false square or not.
    let p = pos("r4k/6/6/R5/6/5K w - a3");
    assert_eq!(p.points(B), 1);
    assert_eq!(p.points(W), 1, "and the white rook threatens the black rook back");
}

#[test]
fn r_g7_each_threatener_scores_and_the_king_is_worth_two() {
    // Black's king c6 is threatened by White's rook c3 and White's bishop f3 (e4, d5 empty):
    // 2 + 2. The black knight a6 is threatened by nobody.
    let p = pos("n1k3/6/6/2R2B/6/K5 w");
    assert_eq!(p.points(W), 4);
    assert_eq!(p.points(B), 0);
}

#[test]
fn r_g7_hidden_scores_are_only_told_at_the_end() {
    let s = started(Options { hidden_scores: true, ..Options::default() }, &[], &[]);
    let mut s2 = s.clone();
    let mut seen_scores = false;
    let mut final_told = None;
    for step in 0..400 {
        let actions = s2.legal_actions();
        if actions.is_empty() {
            break;
        }
        let (c, a) = actions[(3 + 5 * step) % actions.len()].clone();
        let (n, told) = act(&s2, c, a);
        for col in Color::ALL {
            seen_scores |= events(&told[col]).iter().any(|e| matches!(e, Event::Scores { .. }));
        }
        final_told = Some(told);
        s2 = n;
    }
    assert!(!seen_scores, "no Scores event with hidden-scores");
    let told = final_told.unwrap();
    let end = events(&told.white);
    assert!(
        end.iter().any(|e| matches!(e, Event::End { .. } | Event::TieBreakNeeded { .. })),
        "{end:?}"
    );
    // The same game without the option tells the scores after every turn.
    let (_, told) = mv(&started(Options::default(), &[], &[]), W, "a1b3");
    assert!(events(&told.black).iter().any(|e| matches!(e, Event::Scores { .. })));
}

// ---------------------------------------------------------------- R-G8

#[test]
fn r_g8_the_game_ends_when_both_have_only_kings_and_the_higher_score_wins() {
    let mut decided = 0;
    for seed in 0..30 {
        let s = play_out(started(Options::default(), &[], &[]), seed);
        let p = s.position().unwrap();
        assert!(p.only_kings(), "seed {seed}: {}", p.to_fen());
        let sc = p.scores();
        if sc.white != sc.black {
            decided += 1;
            let r = s.result().unwrap();
            assert_eq!(r.reason, EndReason::Score);
            assert_eq!(r.winner, Some(if sc.white > sc.black { W } else { B }));
        } else {
            assert_eq!(s.result(), None, "a tie waits for the tie-break");
            assert_eq!(s.to_act(), vec![W, B]);
        }
    }
    assert!(decided > 0);
    // A single position: after Black's lone king passes, White's last knight dies: over.
    let p = pos("3k2/6/6/6/2N3/2K3 w c2=1");
    let p = p.play(TurnMove::parse("c2a3").unwrap()).play(TurnMove::Pass);
    assert!(p.only_kings());
    assert!(p.legal_uci().is_empty());
}

/// A played-out game that ends level, found by trying policies in order (deterministic).
fn tied_game() -> State {
    for seed in 0..2000 {
        let s = play_out(started(Options::default(), &[], &[]), seed);
        if s.result().is_none() {
            return s;
        }
    }
    panic!("no tied game among 2000 played-out games");
}

fn tie_break(
    s: &State,
    c: Color,
    formation: &str,
    moves: &[String],
) -> (State, ByColor<Option<Observation>>) {
    act(s, c, tie_break_action(formation, moves))
}

/// A tie-break action from its text (a formation, moves as in [`TurnMove::parse`]).
fn tie_break_action(formation: &str, moves: &[String]) -> Action {
    Action::TieBreak {
        formation: Formation::parse(formation).expect("a formation"),
        moves: moves.iter().map(|m| TurnMove::parse(m).expect("a move")).collect(),
    }
}

fn turns_of(s: &State, c: Color) -> Vec<String> {
    s.history().iter().filter(|(side, _)| *side == c).map(|(_, m)| m.to_string()).collect()
}

#[test]
fn r_g8_tie_break_formation_stage_fewer_errors_wins() {
    let s = tied_game();
    let b_moves = turns_of(&s, W);
    // White guesses Black's n1qkrb exactly; Black swaps two of White's pieces (2 errors).
    let (s1, told) = tie_break(&s, W, "n1qkrb", &[]);
    assert_eq!(events(&told.black), vec![Event::OpponentReady], "nothing else is revealed");
    assert!(told.white.is_none());
    assert_eq!(s1.to_act(), vec![B]);
    let (s2, told) = tie_break(&s1, B, "NBKR1Q", &b_moves);
    let r = s2.result().unwrap();
    assert_eq!(r.winner, Some(W), "0 errors against 2, whatever the moves");
    assert_eq!(r.reason, EndReason::TieBreak);
    let Some(Event::End { tie_break: Some(rep), .. }) = events(&told.black).last().cloned() else {
        panic!()
    };
    // NBKR1Q against NBKQ1R: d, f differ, e is empty in both: 2 errors.
    assert_eq!(rep.formation_errors, ByColor { white: 0, black: 2 });
}

#[test]
fn r_g8_tie_break_moves_stage_first_round_with_exactly_one_wrong_decides() {
    let s = tied_game();
    let w_guess = turns_of(&s, B);
    let b_guess = turns_of(&s, W);
    assert!(w_guess.len() >= 2 && b_guess.len() >= 2);
    // Both formations right, both sides wrong in round 2 only: no round has exactly one side
    // wrong, so a draw.
    let mut wg = w_guess.clone();
    let mut bg = b_guess.clone();
    wg[1] = "a1a1".into();
    bg[1] = "a1a1".into();
    let (s1, _) = tie_break(&s, W, "n1qkrb", &wg);
    let (s2, _) = tie_break(&s1, B, "NBKQ1R", &bg);
    assert_eq!(s2.result().unwrap(), rules::GameResult::draw(EndReason::TieBreak));
    // Now Black leaves out its guess for White's 2nd turn while White is right: White wins in
    // round 2.
    let (s1, _) = tie_break(&s, W, "n1qkrb", &w_guess);
    let (s2, told) = tie_break(&s1, B, "NBKQ1R", &b_guess[..1]);
    assert_eq!(s2.result().unwrap(), rules::GameResult::win(W, EndReason::TieBreak));
    let Some(Event::End { tie_break: Some(rep), .. }) = events(&told.white).last().cloned() else {
        panic!()
    };
    assert_eq!(rep.deciding_round, Some(2));
    assert_eq!(rep.formation_errors, ByColor { white: 0, black: 0 });
    // Too many guesses are refused, naming the count.
    let mut long = w_guess.clone();
    long.push("a1a2".into());
    let e = s.apply(W, &tie_break_action("n1qkrb", &long)).unwrap_err();
    assert!(e.to_string().contains("the opponent had"), "{e}");
}

#[test]
fn r_g8_tie_break_all_right_is_a_draw() {
    let s = tied_game();
    let (s1, _) = tie_break(&s, B, "NBKQ1R", &turns_of(&s, W));
    let (s2, told) = tie_break(&s1, W, "n1qkrb", &turns_of(&s, B));
    assert_eq!(s2.result().unwrap(), rules::GameResult::draw(EndReason::TieBreak));
    assert!(matches!(events(&told.white).last(), Some(Event::End { .. })));
    assert_eq!(s2.apply(W, &Action::EndTurn).unwrap_err(), ActionError::GameOver);
}

// ---------------------------------------------------------------- R-G9

#[test]
fn r_g9_life_freeze_skips_one_reduction_of_the_named_piece() {
    let opts = Options { life_freezes: ByColor { white: 1, black: 0 }, ..Options::default() };
    let s = started(opts, &[], &[]);
    let (s, told) = mv(&s, W, "d1d3");
    assert_eq!(s.to_act(), vec![W], "the mover may freeze after its move and its scoring");
    assert!(told.black.iter().all(|o| !o.events.iter().any(|e| matches!(e, Event::Board { .. }))));
    // Refusals: the king, an enemy piece, an empty square, a move now.
    for bad in ["c1", "c6", "e1"] {
        assert!(s.apply(W, &Action::LifeFreeze { piece: sq(bad) }).is_err(), "{bad}");
    }
    assert!(s.apply(W, &move_action("a1b3")).is_err());
    let (s, told) = act(&s, W, Action::LifeFreeze { piece: sq("d3") });
    assert_eq!(events(&told.white), vec![Event::Frozen { piece: sq("d3") }]);
    assert!(fen(&s).contains(" d3 "), "frozen field: {}", fen(&s));
    assert_eq!(s.freezes_left(W), 0);
    let (s, told) = mv(&s, B, "a6b4");
    // White's turn starts: the queen did not age, and can move again.
    let (_, pieces) = board_of(&events(&told.white)).unwrap();
    assert!(pieces.contains(&("d3".into(), Some(1))), "{pieces:?}");
    let (s, _) = mv(&s, W, "d3e2");
    assert_eq!(s.to_act(), vec![B], "no copies left: no freeze step");
    let (s, _) = mv(&s, B, "b4a6");
    assert!(s.position().unwrap().board().piece_at(sq("e2")).is_none(), "the freeze was one turn");
    // Without the item the action is out of phase.
    let plain = started(Options::default(), &[], &[]);
    let (plain, _) = mv(&plain, W, "d1d3");
    assert!(matches!(
        plain.apply(W, &Action::LifeFreeze { piece: sq("d3") }),
        Err(ActionError::WrongPhase(_) | ActionError::NotYourTurn(_))
    ));
    // Ending the turn without freezing.
    let s = started(opts, &[], &[]);
    let (s, _) = mv(&s, W, "d1d3");
    let (s, _) = act(&s, W, Action::EndTurn);
    let (s, _) = mv(&s, B, "a6b4");
    assert!(s.position().unwrap().board().piece_at(sq("d3")).is_none());
    assert_eq!(s.freezes_left(W), 1);
}

#[test]
fn r_g9_false_square_item_gives_a_third_false_square() {
    let opts =
        Options { false_square: ByColor { white: true, black: false }, ..Options::default() };
    let s = State::new(opts);
    assert!(s.apply(W, &setup_action("NBKQ1R", &["a4", "b5", "c6"])).is_ok());
    assert!(s.apply(W, &setup_action("NBKQ1R", &["a4", "b5", "c6", "d6"])).is_err());
    let e = s.apply(B, &setup_action("n1qkrb", &["a1", "b2", "c3"])).unwrap_err();
    assert!(e.to_string().contains("at most 2"), "{e}");
}

// ---------------------------------------------------------------- position strings

#[test]
fn position_strings_round_trip_and_errors_name_the_field() {
    for f in [
        EXAMPLE_FEN,
        "n1qkrb/6/6/3B2/6/N1KQ1R b d3=2 - - 2-3 2",
        "kq4/1r4/6/6/2N3/K5 w c2=3+,b5=1 - b5 0-0 6",
        "rbnkq1/6/6/6/6/1QKNBR b - a1,c2,d5 - 10-7 31",
    ] {
        assert_eq!(pos(f).to_fen(), f);
    }
    assert_eq!(pos("k5/6/6/6/6/K5 w").to_fen(), "k5/6/6/6/6/K5 w - - - 0-0 1");
    let err = |f: &str| Position::from_fen(f).unwrap_err().to_string();
    assert!(err("k5/6/6/6/6/6 w").contains("white has 0 kings"));
    assert!(err("k5/6/Q5/6/6/K5 w").contains("white piece on a4 stands in the enemy territory"));
    assert!(err("k5/6/6/6/6/K5 x").contains("side"));
    assert!(err("k5/6/6/6/Q5/K5 w a2=2").contains("lifespan must be 1 to 1"));
    assert!(err("k5/6/6/6/B5/K5 w a2=2+").contains("only a knight"));
    assert!(err("k5/6/6/6/N5/K5 w a2=4+").contains("lifespan must be 1 to 3"));
    assert!(err("k5/6/6/6/N5/K5 w a1=1").contains("the king never moves"));
    assert!(err("k5/6/6/6/N5/K5 w b2=1").contains("no piece there"));
    assert!(err("k5/6/6/6/N5/K5 w - a1,a2,a3,b1").contains("at most 3"));
    assert!(err("k5/6/6/6/N5/K5 w - - a2").contains("already aged"));
    assert!(err("k5/6/6/6/N5/K5 w - - - 1:2").contains("scores"));
    assert!(err("k5/6/6/6/N5/K5 w - - - 0-0 0").contains("turn"));
    assert!(err("k5/6/6/6/N5/K5 w - - - 0-0 1 x").contains("fields"));
    assert!(err("k5/6/6/6/N5/K5").contains("fields"));
    assert!(err("k5/6/6/6/P5/K5 w").contains("unknown piece letter 'P'"));
}

#[test]
fn position_strings_round_trip_along_played_games() {
    let opts = Options { life_freezes: ByColor { white: 2, black: 2 }, ..Options::default() };
    for seed in 0..20 {
        let mut s = started(opts, &["a4", "f6"], &["c3"]);
        while let Some((c, a)) = {
            let v = s.legal_actions();
            (!v.is_empty()).then(|| v[(seed * 3 + s.history().len() * 5) % v.len()].clone())
        } {
            s = act(&s, c, a).0;
            let p = s.position().unwrap();
            let back = pos(&p.to_fen());
            assert_eq!(&back, p, "{}", p.to_fen());
        }
    }
}

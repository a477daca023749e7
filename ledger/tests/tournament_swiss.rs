//! FIDE Dutch Swiss pairings: behaviour that can be checked by hand (the differential test
//! against an independent engine is `pairing_oracle.rs`).

use ledger::tournament::definition::{Entrant, System, TournamentDefinition};
use ledger::tournament::{
    ByeKind, Game, GameResult, PairingError, Pairings, Round, pair_next_round,
};
use protocol::PublicKey;
use rules::Variant;
use std::collections::BTreeSet;

/// `n` players, player `i` rated `2400 - 10 i`: index = pairing number − 1.
fn swiss(n: u8, rounds: u32) -> TournamentDefinition {
    TournamentDefinition {
        name: "Swiss".into(),
        variant: Variant::Kriegspiel,
        ruleset: Variant::Kriegspiel.ruleset().into(),
        system: System::Swiss { rounds },
        players: (0..n)
            .map(|i| Entrant {
                key: PublicKey([i + 1; 32]),
                name: format!("P{}", i + 1),
                rating: Some(2400 - 10 * u16::from(i)),
            })
            .collect(),
        tie_breaks: vec![],
        time_control: "15+10".into(),
    }
}

fn none() -> BTreeSet<usize> {
    BTreeSet::new()
}

/// Plays a round with `result` for every game and the PAB recorded.
fn play(p: &Pairings, result: impl Fn(usize, usize) -> GameResult) -> Round {
    Round {
        games: p
            .games
            .iter()
            .map(|&(white, black)| Game { white, black, result: result(white, black) })
            .collect(),
        byes: p.bye.map(|b| (b, ByeKind::PairingAllocated)).into_iter().collect(),
    }
}

#[test]
fn round_one_is_top_half_against_bottom_half_with_alternating_colors() {
    let p = pair_next_round(&swiss(8, 3), &[], &none()).expect("pairs");
    // 1-5, 6-2, 3-7, 8-4: odd pairing numbers of the top half get the initial color (white).
    assert_eq!(p.games, vec![(0, 4), (5, 1), (2, 6), (7, 3)]);
    assert_eq!(p.bye, None);
}

#[test]
fn odd_field_gives_the_bye_to_the_lowest_ranked_player() {
    let p = pair_next_round(&swiss(7, 3), &[], &none()).expect("pairs");
    assert_eq!(p.bye, Some(6));
    assert_eq!(p.games, vec![(0, 3), (4, 1), (2, 5)]);
}

/// Round 1 of 6 players: 1-4, 5-2, 3-6, all won by the higher rated. Round 2, score groups
/// {1, 2, 3} (1 point) and {4, 5, 6} (0). Top bracket: S1 = {1}, S2 = {2, 3}; 1-2 gives both
/// their color (1 had white, 2 black), 1-3 would not (both had white): 1-2, and 3 floats down.
/// Bottom bracket: MDP 3 meets 4 (3-6 was played), then 5-6.
#[test]
fn round_two_pairs_score_groups_and_floats_without_rematches() {
    let d = swiss(6, 3);
    let r1 = pair_next_round(&d, &[], &none()).expect("pairs");
    assert_eq!(r1.games, vec![(0, 3), (4, 1), (2, 5)]);
    let rounds =
        vec![play(&r1, |w, b| if w < b { GameResult::WhiteWins } else { GameResult::BlackWins })];
    let r2 = pair_next_round(&d, &rounds, &none()).expect("pairs");
    let mut pairs: Vec<(usize, usize)> =
        r2.games.iter().map(|&(w, b)| (w.min(b), w.max(b))).collect();
    pairs.sort_unstable();
    assert_eq!(pairs, vec![(0, 1), (2, 3), (4, 5)]);
    // Colors: 1 (white in round 1) now black against 2 (black in round 1).
    assert!(r2.games.contains(&(1, 0)), "{:?}", r2.games);
}

#[test]
fn pairings_are_a_pure_function_and_never_repeat_a_game() {
    let d = swiss(11, 6);
    let mut rounds: Vec<Round> = Vec::new();
    let mut met = BTreeSet::new();
    let mut byes = BTreeSet::new();
    for r in 0..6 {
        let p = pair_next_round(&d, &rounds, &none()).expect("pairs");
        assert_eq!(p, pair_next_round(&d, &rounds, &none()).expect("pairs"), "deterministic");
        for &(w, b) in &p.games {
            assert!(met.insert((w.min(b), w.max(b))), "round {}: {w} and {b} meet again", r + 1);
        }
        let bye = p.bye.expect("odd field");
        assert!(byes.insert(bye), "round {}: {bye} has a second bye", r + 1);
        rounds.push(play(&p, |w, b| match (w + b + r) % 3 {
            0 => GameResult::WhiteWins,
            1 => GameResult::Draw,
            _ => GameResult::BlackWins,
        }));
    }
    assert!(matches!(
        pair_next_round(&d, &rounds, &none()),
        Err(PairingError::Finished { rounds: 6 })
    ));
}

#[test]
fn absent_players_are_not_paired_and_late_entrants_join() {
    let d = swiss(6, 3);
    // Player 6 enters late; player 1 is absent in round 2.
    let absent: BTreeSet<usize> = [5].into();
    let r1 = pair_next_round(&d, &[], &absent).expect("pairs");
    assert_eq!(r1.bye, Some(4), "five present: the lowest ranked present player has the bye");
    assert!(r1.games.iter().all(|&(w, b)| w != 5 && b != 5));
    let mut round = play(&r1, |_, _| GameResult::Draw);
    round.byes.push((5, ByeKind::Zero));
    let rounds = vec![round];
    let absent: BTreeSet<usize> = [0].into();
    let r2 = pair_next_round(&d, &rounds, &absent).expect("pairs");
    assert!(r2.games.iter().all(|&(w, b)| w != 0 && b != 0));
    // The late entrant is alone on zero points: the PAB goes to the lowest score group, and a
    // zero-point bye does not make a player ineligible for it (player 5 already had the PAB).
    assert_eq!(r2.bye, Some(5));
    assert_eq!(r2.games.len(), 2);
}

#[test]
fn a_field_that_cannot_be_paired_says_so() {
    // 6 players, 3 rounds played as R1 1-4 2-5 3-6, R2 1-2 3-4 5-6, R3 1-6 2-3 4-5: what is left
    // (1-3, 1-5, 3-5 and 2-4, 2-6, 4-6) is two triangles, with no perfect matching.
    let d = swiss(6, 5);
    let g = |white, black| Game { white, black, result: GameResult::Draw };
    let rounds = vec![
        Round { games: vec![g(0, 3), g(1, 4), g(2, 5)], byes: vec![] },
        Round { games: vec![g(0, 1), g(2, 3), g(4, 5)], byes: vec![] },
        Round { games: vec![g(5, 0), g(1, 2), g(3, 4)], byes: vec![] },
    ];
    assert!(matches!(
        pair_next_round(&d, &rounds, &none()),
        Err(PairingError::NoPairing { round: 4 })
    ));
}

#[test]
fn malformed_history_is_refused() {
    let d = swiss(4, 3);
    let bad = vec![Round {
        games: vec![Game { white: 0, black: 9, result: GameResult::Draw }],
        byes: vec![],
    }];
    assert!(matches!(
        pair_next_round(&d, &bad, &none()),
        Err(PairingError::UnknownPlayer { player: 9, .. })
    ));
    let pending = vec![Round {
        games: vec![Game { white: 0, black: 1, result: GameResult::Pending }],
        byes: vec![],
    }];
    assert!(matches!(
        pair_next_round(&d, &pending, &none()),
        Err(PairingError::Unfinished { round: 1 })
    ));
}

#[test]
fn a_large_open_pairs_in_reasonable_time() {
    let d = TournamentDefinition {
        players: (0..90u16)
            .map(|i| Entrant {
                key: PublicKey([
                    (i % 250) as u8,
                    (i / 250) as u8 + 1,
                    7,
                    7,
                    7,
                    7,
                    7,
                    7,
                    7,
                    7,
                    7,
                    7,
                    7,
                    7,
                    7,
                    7,
                    7,
                    7,
                    7,
                    7,
                    7,
                    7,
                    7,
                    7,
                    7,
                    7,
                    7,
                    7,
                    7,
                    7,
                    7,
                    7,
                ]),
                name: format!("P{i}"),
                rating: Some(2600 - 7 * i),
            })
            .collect(),
        ..swiss(2, 9)
    };
    let started = std::time::Instant::now();
    let mut rounds: Vec<Round> = Vec::new();
    for r in 0..9 {
        let p = pair_next_round(&d, &rounds, &none()).expect("pairs");
        assert_eq!(p.games.len(), 45);
        rounds.push(play(&p, |w, b| match (w * 7 + b * 3 + r) % 5 {
            0 | 1 => GameResult::WhiteWins,
            2 => GameResult::Draw,
            _ => GameResult::BlackWins,
        }));
    }
    // Milliseconds on a laptop; generous for a shared CI machine.
    assert!(started.elapsed().as_secs() < 60, "took {:?}", started.elapsed());
}

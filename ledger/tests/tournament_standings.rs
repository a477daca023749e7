//! Standings and tie-breaks on small tournaments computed by hand (values in quarter-points).

use ledger::tournament::definition::{Entrant, System, TieBreak, TournamentDefinition};
use ledger::tournament::standings::standings;
use ledger::tournament::{ByeKind, Game, GameResult, Round};
use protocol::PublicKey;
use rules::Variant;

use GameResult::{BlackWins as B, Draw as D, WhiteWins as W};

fn def(n: u8, tie_breaks: Vec<TieBreak>) -> TournamentDefinition {
    TournamentDefinition {
        name: "Hand".into(),
        variant: Variant::Chess,
        ruleset: "chess/fide".into(),
        system: System::RoundRobin { double: false },
        // Ratings descending: player 0 has pairing number 1.
        players: (0..n)
            .map(|i| Entrant {
                key: PublicKey([i + 1; 32]),
                name: ["A", "B", "C", "D", "E"][usize::from(i)].into(),
                rating: Some(2000 - 100 * u16::from(i)),
            })
            .collect(),
        tie_breaks,
        time_control: "5+0".into(),
    }
}

fn round(games: &[(usize, usize, GameResult)]) -> Round {
    Round {
        games: games.iter().map(|&(white, black, result)| Game { white, black, result }).collect(),
        byes: Vec::new(),
    }
}

/// A, B, C, D = 0, 1, 2, 3.
/// R1: A-D 1-0, B-C ½-½. R2: D-C 0-1, A-B ½-½. R3: B-D 1-0, C-A 0-1.
/// Scores: A 2½, B 2, C 1½, D 0.
/// Buchholz: A 0+2+1½ = 3½; B 1½+2½+0 = 4; C 2+0+2½ = 4½; D 2½+1½+2 = 6.
/// Cut-1: A 3½, B 4, C 4½, D 6−1½ = 4½. Median: A 3½−0−2 = 1½, B 1½, C 2, D 2.
/// Sonneborn-Berger: A 0+1+1½ = 2½; B ¾+1¼+0 = 2; C 1+0+0 = 1; D 0.
/// Wins: A 2, B 1, C 1, D 0. Progressive: A 1+1½+2½ = 5; B ½+1+2 = 3½; C ½+1½+1½ = 3½; D 0.
#[test]
fn four_player_round_robin_by_hand() {
    let d = def(
        4,
        vec![
            TieBreak::Buchholz,
            TieBreak::BuchholzCut1,
            TieBreak::MedianBuchholz,
            TieBreak::SonnebornBerger,
            TieBreak::Wins,
            TieBreak::ProgressiveScore,
        ],
    );
    let rounds = [
        round(&[(0, 3, W), (1, 2, D)]),
        round(&[(3, 2, B), (0, 1, D)]),
        round(&[(1, 3, W), (2, 0, B)]),
    ];
    let s = standings(&d, &rounds).expect("valid");
    let q = |x: f64| (x * 4.0) as u32;
    let got: Vec<(usize, u32, Vec<u32>)> =
        s.iter().map(|l| (l.player, l.half_points, l.tie_breaks.clone())).collect();
    assert_eq!(
        got,
        vec![
            (0, 5, vec![q(3.5), q(3.5), q(1.5), q(2.5), 2, q(5.0)]),
            (1, 4, vec![q(4.0), q(4.0), q(1.5), q(2.0), 1, q(3.5)]),
            (2, 3, vec![q(4.5), q(4.5), q(2.0), q(1.0), 1, q(3.5)]),
            (3, 0, vec![q(6.0), q(4.5), q(2.0), 0, 0, 0]),
        ]
    );
    assert_eq!(s.iter().map(|l| l.rank).collect::<Vec<_>>(), vec![1, 2, 3, 4]);
}

/// R1: A-B 0-1, C-D ½. R2: A-C 1-0, B-D 0-1. R3: A-D ½, B-C ½.
/// A 1½, B 1½, C 1, D 2. A and B are level on points and Buchholz (4½ each), B beat A.
#[test]
fn direct_encounter_breaks_a_tie_the_pairing_number_would_decide_otherwise() {
    let rounds = [
        round(&[(0, 1, B), (2, 3, D)]),
        round(&[(0, 2, W), (1, 3, B)]),
        round(&[(0, 3, D), (1, 2, D)]),
    ];
    let with_de = standings(&def(4, vec![TieBreak::Buchholz, TieBreak::DirectEncounter]), &rounds)
        .expect("valid");
    let order: Vec<usize> = with_de.iter().map(|l| l.player).collect();
    assert_eq!(order, vec![3, 1, 0, 2]);
    assert_eq!(with_de[1].tie_breaks, vec![18, 4]);
    assert_eq!(with_de[2].tie_breaks, vec![18, 0]);
    // Without it, A (pairing number 1) is ahead of B.
    let without = standings(&def(4, vec![TieBreak::Buchholz]), &rounds).expect("valid");
    assert_eq!(without.iter().map(|l| l.player).collect::<Vec<_>>(), vec![3, 0, 1, 2]);
}

/// Three players, R1: A-B 1-0, C has the pairing-allocated bye. C's Buchholz is a dummy
/// opponent with C's own score (1 point = 4 quarters); A's is B's score, 0.
#[test]
fn an_unplayed_round_counts_as_a_dummy_with_the_players_own_score() {
    let mut r1 = round(&[(0, 1, W)]);
    r1.byes.push((2, ByeKind::PairingAllocated));
    let s = standings(&def(3, vec![TieBreak::Buchholz, TieBreak::Wins]), &[r1]).expect("valid");
    let got: Vec<(usize, u32, Vec<u32>)> =
        s.iter().map(|l| (l.player, l.half_points, l.tie_breaks.clone())).collect();
    // C (4 quarters of Buchholz) ahead of A (0) on Buchholz; wins: A 1, C 0 (a bye is no win);
    // B's Buchholz is A's point.
    assert_eq!(got, vec![(2, 2, vec![4, 0]), (0, 2, vec![0, 1]), (1, 0, vec![4, 0])]);
}

#[test]
fn bad_rounds_are_refused_with_a_reason() {
    let d = def(3, vec![]);
    let err = standings(&d, &[round(&[(0, 7, W)])]).expect_err("unknown player");
    assert!(err.to_string().contains("player 7"), "{err}");
    let err = standings(&d, &[round(&[(0, 1, W), (1, 2, D)])]).expect_err("twice");
    assert!(err.to_string().contains("more than once"), "{err}");
}

//! Round-robin pairings against the FIDE Berger tables (FIDE Handbook C.05, Annex 1), typed in
//! from the handbook, plus properties of every schedule up to 16 players.

use ledger::tournament::berger::{berger_table, schedule};
use std::collections::BTreeSet;

/// Pairing numbers `white-black`, board 1 first, one string per round.
fn parse(rounds: &[&str]) -> Vec<Vec<(usize, usize)>> {
    rounds
        .iter()
        .map(|r| {
            r.split(", ")
                .map(|g| {
                    let (w, b) = g.split_once('-').expect("w-b");
                    (w.parse().expect("number"), b.parse().expect("number"))
                })
                .collect()
        })
        .collect()
}

#[test]
fn fide_table_4_players() {
    let fide = parse(&["1-4, 2-3", "4-3, 1-2", "2-4, 3-1"]);
    assert_eq!(berger_table(4), fide);
}

#[test]
fn fide_table_6_players() {
    let fide = parse(&[
        "1-6, 2-5, 3-4",
        "6-4, 5-3, 1-2",
        "2-6, 3-1, 4-5",
        "6-5, 1-4, 2-3",
        "3-6, 4-2, 5-1",
    ]);
    assert_eq!(berger_table(6), fide);
}

#[test]
fn fide_table_8_players() {
    let fide = parse(&[
        "1-8, 2-7, 3-6, 4-5",
        "8-5, 6-4, 7-3, 1-2",
        "2-8, 3-1, 4-7, 5-6",
        "8-6, 7-5, 1-4, 2-3",
        "3-8, 4-2, 5-1, 6-7",
        "8-7, 1-6, 2-5, 3-4",
        "4-8, 5-3, 6-2, 7-1",
    ]);
    assert_eq!(berger_table(8), fide);
}

#[test]
fn every_pair_meets_once_and_colors_balance() {
    for n in 2..=16 {
        let rounds = schedule(n, false);
        let expected_rounds = if n % 2 == 0 { n - 1 } else { n };
        assert_eq!(rounds.len(), expected_rounds, "n = {n}");
        let mut met = BTreeSet::new();
        let mut whites = vec![0i32; n];
        let mut byes = vec![0; n];
        for r in &rounds {
            let mut in_round = BTreeSet::new();
            for &(w, b) in &r.games {
                assert!(in_round.insert(w) && in_round.insert(b), "n = {n}: twice in a round");
                assert!(met.insert((w.min(b), w.max(b))), "n = {n}: {w} and {b} meet twice");
                whites[w] += 1;
                whites[b] -= 1;
            }
            if let Some(b) = r.bye {
                assert!(in_round.insert(b));
                byes[b] += 1;
            }
            assert_eq!(in_round.len(), n, "n = {n}: everyone plays or has the bye");
        }
        assert_eq!(met.len(), n * (n - 1) / 2, "n = {n}: every pair meets");
        for (p, d) in whites.iter().enumerate() {
            assert!(d.abs() <= 1, "n = {n}: player {p} has white-minus-black {d}");
        }
        if n % 2 == 1 {
            assert!(byes.iter().all(|&b| b == 1), "n = {n}: one bye each");
        }
    }
}

#[test]
fn double_round_robin_reverses_colors() {
    for n in [4, 5, 8] {
        let rounds = schedule(n, true);
        let half = rounds.len() / 2;
        for i in 0..half {
            let reversed: Vec<_> = rounds[i].games.iter().map(|&(w, b)| (b, w)).collect();
            assert_eq!(rounds[half + i].games, reversed);
            assert_eq!(rounds[half + i].bye, rounds[i].bye);
        }
        let mut whites = vec![0i32; n];
        for r in &rounds {
            for &(w, b) in &r.games {
                whites[w] += 1;
                whites[b] -= 1;
            }
        }
        assert!(whites.iter().all(|&d| d == 0), "n = {n}: {whites:?}");
    }
}

#[test]
fn five_players_use_the_six_table_with_a_bye() {
    let rounds = schedule(5, false);
    // Round 1 of the 6-table: 1-6, 2-5, 3-4: player 1 (index 0) sits out.
    assert_eq!(rounds[0].bye, Some(0));
    assert_eq!(rounds[0].games, vec![(1, 4), (2, 3)]);
}

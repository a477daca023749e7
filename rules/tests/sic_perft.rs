//! Data-driven perft for Secret Intelligence Chess (R-S3..R-S9), each count checked against the
//! engine and against the slow, independent generator in `slow` below (R-A1 positions).
//! Files: `tests/data/sic.perft` (default Spy rule) and `tests/data/sic-spy-original.perft`.

mod common;
mod sic_slow;
use sic_slow as slow;

use rules::sic::{Position, SpyRule};
use rules::{Analysis, Color};

fn check_file(name: &str, spy: SpyRule) {
    let lines = common::data_lines(name);
    assert!(!lines.is_empty(), "{name} is empty");
    for l in lines {
        let fen = &l[0];
        let pos = Position::from_fen_with(fen, spy).unwrap_or_else(|e| panic!("{fen}: {e}"));
        let slow_pos = slow::Pos::parse(fen, spy == SpyRule::Original);
        for (i, want) in l[1..].iter().enumerate() {
            let depth = i as u32 + 1;
            let want: u64 = want.parse().expect("a count");
            let slow_count = slow_pos.perft(depth);
            assert_eq!(slow_count, want, "slow generator, {fen} depth {depth}");
            assert_eq!(pos.perft(depth), want, "engine, {fen} depth {depth}");
        }
    }
}

#[test]
fn r_s3_to_r_s9_perft_default_spy() {
    check_file("sic.perft", SpyRule::Default);
}

#[test]
fn r_s6_perft_spy_original() {
    check_file("sic-spy-original.perft", SpyRule::Original);
}

/// The legal move lists agree move by move along every line to depth 2 (a sharper check than
/// counts) on every position of both files.
#[test]
fn legal_lists_agree_with_slow_generator() {
    for (name, spy) in
        [("sic.perft", SpyRule::Default), ("sic-spy-original.perft", SpyRule::Original)]
    {
        for l in common::data_lines(name) {
            let pos = Position::from_fen_with(&l[0], spy).expect("valid");
            let slow_pos = slow::Pos::parse(&l[0], spy == SpyRule::Original);
            assert_eq!(pos.legal_uci(), slow_pos.legal_uci(), "{}", l[0]);
            for m in pos.legal_moves() {
                let next = pos.play(&m).expect("legal");
                let uci = m.uci(rules::Alphabet::SIC);
                let slow_next = slow_pos.play_uci(&uci);
                assert_eq!(next.legal_uci(), slow_next.legal_uci(), "{} after {uci}", l[0]);
                assert_eq!(next.turn(), if slow_next.white { Color::White } else { Color::Black });
            }
        }
    }
}

//! Data-driven perft for 6x6 Secret Chess (`data/secretchess6.perft`): every count is checked
//! against the engine and against the slow, independent generator of `secretchess6_slow`.

mod common;
mod secretchess6_slow;

use secretchess6_slow as slow;

use rules::Analysis;
use rules::secretchess6::Position;

#[test]
fn secretchess6_perft_file_matches_engine_and_slow_generator() {
    let lines = common::data_lines("secretchess6.perft");
    assert!(lines.len() >= 5, "the perft file lists at least five positions");
    for fields in lines {
        let fen = &fields[0];
        let pos = Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        assert_eq!(&pos.to_fen(), fen, "the file holds normalised position strings");
        let model = slow::parse(fen);
        for (i, want) in fields[1..].iter().enumerate() {
            let depth = i as u32 + 1;
            let want: u64 = want.parse().unwrap();
            assert_eq!(slow::perft(&model, depth), want, "slow generator, {fen} depth {depth}");
            assert_eq!(pos.perft(depth), want, "engine, {fen} depth {depth}");
        }
    }
}

#[test]
fn secretchess6_divide_sums_to_perft_and_legal_is_sorted() {
    let pos = Position::from_fen(rules::secretchess6::EXAMPLE_FEN).unwrap();
    let legal = pos.legal_uci();
    let mut sorted = legal.clone();
    sorted.sort();
    assert_eq!(legal, sorted);
    let div = pos.divide(3);
    assert_eq!(div.iter().map(|(m, _)| m.clone()).collect::<Vec<_>>(), legal);
    assert_eq!(div.iter().map(|(_, n)| n).sum::<u64>(), pos.perft(3));
}

//! Intrigue perft: every count in `data/intrigue.perft` is checked against the engine and
//! against the slow, independent generator of `intrigue_slow`, written from RULES.md
//! R-I2..R-I5 alone (a character mailbox, attacks found by walking the board, no shared code
//! with the engine).

mod common;
mod intrigue_slow;

use intrigue_slow::Slow;

use rules::Analysis;
use rules::intrigue::Position;

#[test]
fn intrigue_perft_engine_and_slow_generator_agree_with_the_data_file() {
    let lines = common::data_lines("intrigue.perft");
    assert!(lines.len() >= 8, "the data file lists the positions");
    for line in lines {
        let fen = &line[0];
        let position = Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        let slow = Slow::parse(fen);
        for (depth, want) in line[1..].iter().enumerate() {
            let depth = depth as u32 + 1;
            let want: u64 = want.parse().unwrap();
            assert_eq!(position.perft(depth), want, "engine, {fen}, depth {depth}");
            assert_eq!(slow.perft(depth), want, "slow generator, {fen}, depth {depth}");
        }
    }
}

fn uci_of(&(from, to, promo): &(usize, usize, char)) -> String {
    let name = |i: usize| format!("{}{}", (b'a' + (i % 8) as u8) as char, i / 8 + 1);
    format!("{}{}{}", name(from), name(to), promo).trim().to_string()
}

/// Compares the move lists themselves, not only their counts, at every node to `depth`.
fn same_moves(position: &Position, slow: &Slow, depth: u32) {
    let mut slow_moves: Vec<(String, (usize, usize, char))> =
        slow.moves().into_iter().map(|m| (uci_of(&m), m)).collect();
    slow_moves.sort();
    let names: Vec<String> = slow_moves.iter().map(|(n, _)| n.clone()).collect();
    assert_eq!(position.legal_uci(), names, "{}", position.to_fen());
    if depth <= 1 {
        return;
    }
    let mut moves = position.legal_moves();
    moves.sort_by_key(|m| m.uci(rules::Alphabet::ORTHODOX));
    for (m, (name, sm)) in moves.into_iter().zip(&slow_moves) {
        assert_eq!(&m.uci(rules::Alphabet::ORTHODOX), name, "legal_moves and legal_uci agree");
        let (next, effects) = position.play(m);
        let (slow_next, ended) = slow.apply(*sm);
        assert_eq!(effects.end.is_some(), ended, "R-I4 end after {name} in {}", position.to_fen());
        if !ended {
            same_moves(&next, &slow_next, depth - 1);
        }
    }
}

#[test]
fn intrigue_legal_moves_match_the_slow_generator_move_by_move() {
    for line in common::data_lines("intrigue.perft") {
        let position = Position::from_fen(&line[0]).unwrap();
        same_moves(&position, &Slow::parse(&line[0]), 2);
    }
}

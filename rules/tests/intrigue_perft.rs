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

/// `is_legal` and `has_legal_move` test one move (or stop at the first legal one) instead of
/// generating every legal move: they must agree with `legal_moves` exactly. Checked at every
/// position of the data file and up to eight positions one legal move after each, for every
/// (from, to) pair of the board, and for every legal move's squares with every promotion role
/// and none.
#[test]
fn is_legal_and_has_legal_move_agree_with_legal_moves() {
    use rules::{Move, Role, Square};
    let mut checked = 0;
    for line in common::data_lines("intrigue.perft") {
        let fen = &line[0];
        let root = Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        let mut nodes = vec![root.clone()];
        nodes.extend(root.legal_moves().into_iter().take(8).map(|m| root.play(m).0));
        for pos in nodes {
            let legal = pos.legal_moves();
            assert_eq!(pos.has_legal_move(), !legal.is_empty(), "{fen}");
            let squares = || (0..64).filter_map(Square::from_index);
            let plain = squares().flat_map(|from| squares().map(move |to| Move::new(from, to)));
            let promotions = legal.iter().flat_map(|m| {
                let roles = [Role::Queen, Role::Rook, Role::Bishop, Role::Knight].map(Some);
                [None].into_iter().chain(roles).map(|promotion| Move { promotion, ..*m })
            });
            for m in plain.chain(promotions) {
                assert_eq!(pos.is_legal(m), legal.contains(&m), "{fen}: {m:?}");
            }
            checked += 1;
        }
    }
    assert!(checked > 50, "{checked} positions");
}

//! Espionage Chess perft (`data/espionage.perft`), each count checked against the engine and
//! against the independent slow generator of `espionage_slow`: a 7x7 grid of letters, every
//! (from, to) pair tried square by square, and the own-king test done by asking every enemy
//! piece whether it could hit the king. It shares no code with `rules::espionage`.

mod common;
mod espionage_slow;

use espionage_slow::Slow;

use rules::Analysis;
use rules::espionage::Position;

fn cases() -> Vec<(String, Vec<u64>)> {
    common::data_lines("espionage.perft")
        .into_iter()
        .map(|fields| {
            let counts = fields[1..]
                .iter()
                .map(|n| n.parse::<u64>().unwrap_or_else(|_| panic!("bad count {n}")))
                .collect();
            (fields[0].clone(), counts)
        })
        .collect()
}

#[test]
fn perft_file_matches_engine() {
    for (fen, counts) in cases() {
        let pos = Position::from_fen(&fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        for (i, &want) in counts.iter().enumerate() {
            let depth = i as u32 + 1;
            assert_eq!(pos.perft(depth), want, "engine perft({depth}) of {fen}");
        }
    }
}

#[test]
fn perft_file_matches_slow_generator() {
    for (fen, counts) in cases() {
        let slow = Slow::parse(&fen);
        for (i, &want) in counts.iter().enumerate() {
            let depth = i as u32 + 1;
            assert_eq!(slow.perft(depth), want, "slow perft({depth}) of {fen}");
        }
    }
}

/// Walks two plies from every perft position and compares the sorted legal move lists of the
/// engine and of the slow generator at every node, so a difference names the move.
#[test]
fn legal_moves_agree_node_by_node() {
    fn walk(fen: &str, slow: &Slow, depth: u32) {
        let pos = Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        let engine = pos.legal_uci();
        let slow_moves = slow.legal();
        let slow_text: Vec<String> = slow_moves.iter().map(|(m, _)| m.clone()).collect();
        assert_eq!(engine, slow_text, "legal moves of {fen}");
        if depth == 0 {
            return;
        }
        for (m, next) in &slow_moves {
            let mv = rules::Move::parse_uci(m, rules::BoardSize::Seven, rules::Alphabet::ESPIONAGE)
                .expect("engine move text parses");
            let (child, _) = pos.play(&mv).expect("legal move plays");
            walk(&child.to_fen(), next, depth - 1);
        }
    }
    for (fen, _) in cases() {
        walk(&fen, &Slow::parse(&fen), 2);
    }
}

/// `is_legal` and `has_legal_move` test one move (or stop at the first legal one) instead of
/// generating every legal move: they must agree with `legal_moves` exactly. Checked at every
/// position of the data file and up to eight positions one legal move after each, for every
/// (from, to) pair of the board, and for every legal move's squares with every promotion role
/// and none.
#[test]
fn is_legal_and_has_legal_move_agree_with_legal_moves() {
    let mut checked = 0;
    let mut without_moves = 0;
    for (fen, _) in cases() {
        let root = Position::from_fen(&fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        let mut nodes = vec![root.clone()];
        nodes.extend(root.legal_moves().iter().take(8).map(|m| root.play(m).expect("legal").0));
        for pos in nodes {
            let legal = pos.legal_moves();
            assert_eq!(pos.has_legal_move(), !legal.is_empty(), "{fen}");
            without_moves += usize::from(legal.is_empty());
            let squares = || (0..64).filter_map(rules::Square::from_index);
            let plain =
                squares().flat_map(|from| squares().map(move |to| rules::Move::new(from, to)));
            let promotions = legal.iter().flat_map(|m| {
                let roles = rules::espionage::PROMOTION_ROLES.map(Some);
                [None].into_iter().chain(roles).map(|promotion| rules::Move { promotion, ..*m })
            });
            for m in plain.chain(promotions) {
                assert_eq!(pos.is_legal(&m), legal.contains(&m), "{fen}: {m:?}");
                assert_eq!(pos.play(&m).is_ok(), legal.contains(&m), "{fen}: {m:?}");
            }
            checked += 1;
        }
    }
    assert!(checked > 100, "{checked} positions");
    assert!(without_moves > 0, "the data file has a position without a legal move");
}

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

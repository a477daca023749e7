//! Orthodox chess observation perft (`data/chess.obsperft`): an FNV digest of the JSON of what
//! each side is told along every line of small trees, pinned per side. Chess is open, so both
//! sides must be told exactly the same thing. Regenerate with
//! `FOGPROOF_BLESS=1 cargo test -p fogproof-rules --test chess_obsperft`.

mod common;

use common::Fnv;
use rules::chess::{Position, State};
use rules::{Alphabet, Analysis, Color, Game};

fn walk(state: &State, depth: u32, digests: &mut [Fnv; 2]) {
    // A finished game (mate, or a draw such as the 50-move rule) has no further moves.
    if depth == 0 || state.result().is_some() {
        return;
    }
    let mut moves: Vec<_> = state.position().legal_moves().into_iter().collect();
    moves.sort_by_key(|m| m.uci(Alphabet::ORTHODOX));
    for m in moves {
        let t = state.apply(state.position().turn(), &m).expect("a legal move is accepted");
        for color in Color::ALL {
            let json = serde_json::to_string(t.told.get(color)).expect("observations serialise");
            digests[color.index()].str(&json);
        }
        walk(&t.state, depth - 1, digests);
        for d in digests.iter_mut() {
            d.str("up");
        }
    }
}

fn digest(fen: &str, depth: u32) -> [String; 2] {
    let position = Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
    let mut digests = [Fnv::default(), Fnv::default()];
    walk(&State::from_position(position), depth, &mut digests);
    digests.map(|d| d.hex())
}

#[test]
fn observation_digests_are_pinned() {
    common::check_pinned_digests("chess.obsperft", digest);
}

#[test]
fn both_sides_are_told_the_same() {
    // Orthodox chess is open: the two digests of every line are equal.
    for fields in common::data_lines("chess.obsperft") {
        assert_eq!(fields.get(2), fields.get(3), "{}", fields[0]);
    }
}

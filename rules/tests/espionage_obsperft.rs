//! Espionage Chess observation perft (`data/espionage.obsperft`): for small trees, an FNV
//! digest of the JSON of everything each side is told along every line, pinned per side.
//!
//! Lines: `position ; depth ; white digest ; black digest`. Regenerate with
//! `FOGPROOF_BLESS=1 cargo test -p fogproof-rules --test espionage_obsperft`; without it a
//! changed digest fails the test.

mod common;

use common::Fnv;
use rules::espionage::State;
use rules::{Alphabet, Color, Game};

/// Feeds, for every line of the tree in sorted move order, the move tried and what each side
/// is told, into that side's digest.
fn walk(state: &State, depth: u32, digests: &mut [Fnv; 2]) {
    if depth == 0 {
        return;
    }
    let mut moves = state.legal_moves();
    moves.sort_by_key(|m| m.uci(Alphabet::ESPIONAGE));
    for m in moves {
        let actor = state.position().turn();
        let t = state.apply(actor, &m).expect("a legal move is accepted");
        for color in Color::ALL {
            let told = t.told.get(color);
            let json = serde_json::to_string(told).expect("observations serialise");
            digests[color.index()].str(&json);
        }
        walk(&t.state, depth - 1, digests);
        for d in digests.iter_mut() {
            d.str("up");
        }
    }
}

fn digest(fen: &str, depth: u32) -> [String; 2] {
    let state = State::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
    let mut digests = [Fnv::default(), Fnv::default()];
    walk(&state, depth, &mut digests);
    digests.map(|d| d.hex())
}

#[test]
fn observation_digests_are_pinned() {
    common::check_pinned_digests("espionage.obsperft", digest);
}

#[test]
fn both_sides_are_told_the_same() {
    // R-E5: everything is public, so the two digests of every line are equal.
    for fields in common::data_lines("espionage.obsperft") {
        assert_eq!(fields.get(2), fields.get(3), "{}", fields[0]);
    }
}

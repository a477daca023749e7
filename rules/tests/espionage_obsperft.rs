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
    let bless = std::env::var_os("FOGPROOF_BLESS").is_some();
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/espionage.obsperft");
    let text = std::fs::read_to_string(&path).expect("the obsperft file exists");
    let mut out = String::new();
    let mut mismatches = Vec::new();
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        let fields: Vec<&str> = trimmed.split(';').map(str::trim).collect();
        let (fen, depth) = (fields[0], fields[1].parse::<u32>().expect("depth"));
        let [white, black] = digest(fen, depth);
        if fields.get(2..4) != Some(&[white.as_str(), black.as_str()][..]) {
            mismatches.push(format!("{fen} ; {depth} ; {white} ; {black}"));
        }
        out.push_str(&format!("{fen} ; {depth} ; {white} ; {black}\n"));
    }
    if bless {
        std::fs::write(&path, out).expect("rewrite the obsperft file");
    } else {
        assert!(
            mismatches.is_empty(),
            "changed digests (bless with FOGPROOF_BLESS=1):\n{}",
            mismatches.join("\n")
        );
    }
}

#[test]
fn both_sides_are_told_the_same() {
    // R-E5: everything is public, so the two digests of every line are equal.
    for fields in common::data_lines("espionage.obsperft") {
        assert_eq!(fields.get(2), fields.get(3), "{}", fields[0]);
    }
}

//! Orthodox chess observation perft (`data/chess.obsperft`): an FNV digest of the JSON of what
//! each side is told along every line of small trees, pinned per side. Chess is open, so both
//! sides must be told exactly the same thing. Regenerate with
//! `FOGPROOF_BLESS=1 cargo test -p fogproof-rules --test chess_obsperft`.
//!
//! The pinned digests are checked independently: `shakmaty_oracle` walks the same trees with
//! shakmaty's moves and R-C2's ends written from RULES.md, builds what each side must be told,
//! compares it with the engine's at every node and digests its own values, which must equal
//! the file's. A blessed digest that the oracle does not reproduce fails.

mod common;
mod shakmaty_oracle;

use common::Fnv;
use rules::chess::Played;
use rules::chess::{Position, State};
use rules::{Alphabet, Analysis, Color, Game};
use shakmaty_oracle as oracle;

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

/// The oracle's walk: shakmaty's legal moves in UCI order, what both sides must be told (the
/// move and R-C2's end, R-C1's winner), compared with the engine's at every node (`ours` is
/// the engine's state on the same line) and fed into the oracle's own digests.
fn oracle_walk(line: &oracle::Line, ours: &State, depth: u32, digests: &mut [Fnv; 2]) {
    if depth == 0 || line.end().is_some() {
        assert_eq!(ours.result().is_some(), line.end().is_some(), "{}", ours.position().to_fen());
        return;
    }
    for (uci, m) in oracle::sorted_moves(&line.pos) {
        let next = line.play(m);
        let told = Played { mv: oracle::to_rules(m), end: next.end().map(oracle::to_rules_end) };
        let fen = ours.position().to_fen();
        let t = ours
            .apply(ours.position().turn(), &told.mv)
            .unwrap_or_else(|e| panic!("{fen}: the engine refuses {uci}: {e}"));
        for color in Color::ALL {
            assert_eq!(t.told.get(color).as_ref(), Some(&told), "{fen} {uci}: told to {color}");
            let json = serde_json::to_string(&Some(&told)).expect("observations serialise");
            digests[color.index()].str(&json);
        }
        oracle_walk(&next, &t.state, depth - 1, digests);
        for d in digests.iter_mut() {
            d.str("up");
        }
    }
}

#[test]
fn pinned_digests_are_the_oracles() {
    let lines = common::data_lines("chess.obsperft");
    assert!(lines.len() >= 5, "the data file lists the positions");
    for fields in lines {
        let (fen, depth) = (&fields[0], fields[1].parse::<u32>().expect("depth"));
        // The engine must list exactly shakmaty's moves, or the walks would part.
        let ours = State::from_position(Position::from_fen(fen).expect("valid"));
        let mut digests = [Fnv::default(), Fnv::default()];
        oracle_walk(&oracle::Line::from_fen(fen), &ours, depth, &mut digests);
        let got = digests.map(|d| d.hex());
        assert_eq!(fields[2..4], got, "{fen} depth {depth}: the oracle's digests");
    }
}

/// The oracle is not vacuous: it sees the ends the file's positions were chosen for (a mate
/// on the 100th ply stands; the 50-move rule; stalemate; promotion to a lone knight).
#[test]
fn oracle_sees_the_ends_of_r_c2() {
    let end_after = |fen: &str, ucis: &[&str]| {
        let mut line = oracle::Line::from_fen(fen);
        for u in ucis {
            let m = oracle::sorted_moves(&line.pos)
                .into_iter()
                .find(|(t, _)| t == u)
                .unwrap_or_else(|| panic!("{u} is not legal"))
                .1;
            line = line.play(m);
        }
        line.end()
    };
    let mate = "7k/5Q2/6K1/8/8/8/8/8 w - - 98 120";
    assert_eq!(
        end_after(mate, &["f7g7"]),
        Some(oracle::End::Checkmate { winner: shakmaty::Color::White })
    );
    assert_eq!(end_after(mate, &["f7f6", "h8g8"]), Some(oracle::End::FiftyMove));
    assert_eq!(end_after(mate, &["f7f6"]), None);
    assert_eq!(end_after("7k/5Q2/6K1/8/8/8/8/8 w - - 0 1", &["f7f6"]), None);
    assert_eq!(
        end_after("7k/5Q2/5K2/8/8/8/8/8 w - - 0 1", &["f7g6"]),
        Some(oracle::End::Stalemate)
    );
    let promotion = "8/8/8/8/8/2k5/1p6/3K4 b - - 0 1";
    assert_eq!(end_after(promotion, &["b2b1n"]), Some(oracle::End::InsufficientMaterial));
    assert_eq!(end_after(promotion, &["b2b1b"]), Some(oracle::End::InsufficientMaterial));
    assert_eq!(end_after(promotion, &["b2b1r"]), None);
    assert_eq!(
        end_after("8/8/8/8/8/2k5/8/1b1K4 b - - 0 1", &[]),
        Some(oracle::End::InsufficientMaterial),
        "K+B v K"
    );
    assert_eq!(end_after("8/8/8/8/8/2k5/8/1bbK4 b - - 0 1", &[]), None, "bishops of both colors");
    assert_eq!(
        end_after(
            "4k3/8/8/8/8/8/8/R3K3 w - - 0 1",
            &["a1a2", "e8d8", "a2a1", "d8e8", "a1a2", "e8d8", "a2a1", "d8e8"]
        ),
        Some(oracle::End::Repetition)
    );
}

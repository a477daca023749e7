//! Espionage Chess observation perft (`data/espionage.obsperft`): for small trees, an FNV
//! digest of the JSON of everything each side is told along every line, pinned per side.
//!
//! Lines: `position ; depth ; white digest ; black digest`. Regenerate with
//! `FOGPROOF_BLESS=1 cargo test -p fogproof-rules --test espionage_obsperft`; without it a
//! changed digest fails the test.
//!
//! The pinned digests are checked independently: the slow model of `espionage_slow` (written
//! from RULES.md, sharing no code with the engine) walks the same trees, builds what both
//! sides must be told (R-E5: the move, the captured kind, check, R-C1/R-C2's end), compares it
//! with the engine's at every node and digests its own values, which must equal the file's.

mod common;
mod espionage_slow;

use common::Fnv;
use espionage_slow::Slow;
use rules::espionage::{Observation, State};
use rules::{Alphabet, Analysis, Color, EndReason, Game, GameResult};

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

// ---- The independent oracle ----

/// R-C2's repetition compares the full position: board, side to move and the spy-square (a
/// Spy that may be taken now differs from one that may not), not the move counters.
fn same_position(a: &Slow, b: &Slow) -> bool {
    a.grid == b.grid && a.white_to_move == b.white_to_move && a.spy == b.spy
}

/// R-C2's insufficient material, exactly its list: K v K; K+N v K; only kings and bishops,
/// all bishops on squares of one color. Spies and Cannons are mating material.
fn r_c2_insufficient(pos: &Slow) -> bool {
    let mut others = Vec::new();
    for r in 0..7 {
        for f in 0..7 {
            if let Some((_, kind)) = pos.at(f, r)
                && kind != 'k'
            {
                others.push((kind, (f + r) % 2));
            }
        }
    }
    match others.as_slice() {
        [] | [('n', _)] => true,
        [(_, color), ..] => others.iter().all(|&(k, c)| k == 'b' && c == *color),
    }
}

/// The end of the game at the last position of `history` (the positions since the last
/// capture or pawn move): checkmate or stalemate when the side to move has no legal move,
/// then R-C2's automatic draws in the order RULES.md lists them.
fn r_c2_end(history: &[Slow]) -> Option<GameResult> {
    let pos = history.last().expect("the current position");
    let us = pos.white_to_move;
    if pos.legal().is_empty() {
        let (kf, kr) = pos.king(us);
        let winner = if us { Color::Black } else { Color::White };
        return Some(if pos.attacked(kf, kr, !us) {
            GameResult::win(winner, EndReason::Checkmate)
        } else {
            GameResult::draw(EndReason::Stalemate)
        });
    }
    if r_c2_insufficient(pos) {
        return Some(GameResult::draw(EndReason::InsufficientMaterial));
    }
    if history.iter().filter(|q| same_position(q, pos)).count() >= 3 {
        return Some(GameResult::draw(EndReason::Repetition));
    }
    (pos.halfmove >= 100).then_some(GameResult::draw(EndReason::FiftyMove))
}

/// What both sides are told after the move `uci` from `before` to `after` (R-E5).
fn r_e5_told(before: &Slow, uci: &str, history: &[Slow]) -> Observation {
    let after = history.last().expect("the new position");
    let b = uci.as_bytes();
    let (f2, r2) = (i32::from(b[2] - b'a'), i32::from(b[3] - b'1'));
    let capture = before
        .at(f2, r2)
        .map(|(_, kind)| Alphabet::ESPIONAGE.role(kind).expect("an Espionage Chess letter"));
    let (kf, kr) = after.king(after.white_to_move);
    Observation {
        mover: if before.white_to_move { Color::White } else { Color::Black },
        uci: uci.to_string(),
        capture,
        check: after.attacked(kf, kr, !after.white_to_move),
        end: r_c2_end(history),
    }
}

/// The oracle's walk, shaped as the engine walk above; `ours` is the engine's state on the
/// same line and must tell both sides exactly what the oracle tells.
fn oracle_walk(history: &[Slow], ours: &State, depth: u32, digests: &mut [Fnv; 2]) {
    if depth == 0 || r_c2_end(history).is_some() {
        return;
    }
    let pos = history.last().expect("the current position");
    let fen = ours.position().to_fen();
    for (uci, next) in pos.legal() {
        let mut line = history.to_vec();
        if next.halfmove == 0 {
            line.clear();
        }
        line.push(next);
        let told = r_e5_told(pos, &uci, &line);
        let m = rules::Move::parse_uci(&uci, rules::BoardSize::Seven, Alphabet::ESPIONAGE)
            .expect("the model writes UCI");
        let t = ours
            .apply(told.mover, &m)
            .unwrap_or_else(|e| panic!("{fen}: the engine refuses {uci}: {e}"));
        for color in Color::ALL {
            assert_eq!(t.told.get(color).as_ref(), Some(&told), "{fen} {uci}: told to {color}");
            let json = serde_json::to_string(&Some(&told)).expect("observations serialise");
            digests[color.index()].str(&json);
        }
        oracle_walk(&line, &t.state, depth - 1, digests);
        for d in digests.iter_mut() {
            d.str("up");
        }
    }
}

#[test]
fn pinned_digests_are_the_slow_models() {
    let lines = common::data_lines("espionage.obsperft");
    assert!(lines.len() >= 9, "the data file lists the positions");
    for fields in lines {
        let (fen, depth) = (&fields[0], fields[1].parse::<u32>().expect("depth"));
        let ours = State::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        let mut digests = [Fnv::default(), Fnv::default()];
        oracle_walk(&[Slow::parse(fen)], &ours, depth, &mut digests);
        assert_eq!(fields[2..4], digests.map(|d| d.hex()), "{fen} depth {depth}: the model's");
    }
}

/// Hand-worked cases of what the model tells, from the rule text alone, so that the model is
/// not the only judge of itself: the position, the move, and the told fields.
#[test]
fn slow_model_tells_hand_worked_cases() {
    let told = |fen: &str, uci: &str| {
        let pos = Slow::parse(fen);
        let next = pos.legal().into_iter().find(|(t, _)| t == uci);
        let next = next.unwrap_or_else(|| panic!("{uci} is not legal in {fen}")).1;
        let history = if next.halfmove == 0 { vec![next] } else { vec![pos.clone(), next] };
        let o = r_e5_told(&pos, uci, &history);
        (o.capture, o.check, o.end)
    };
    let draw = |reason| Some(GameResult::draw(reason));
    // R-E3: a Cannon takes over one screen (the knight on b4) and checks nothing.
    assert_eq!(
        told("k5r/7/c6/1n2p1C/P5K/7/CN1s1rb w d1 0 1", "a1d1"),
        (Some(rules::Role::Spy), false, None)
    );
    // R-E2: a Spy attacks like a queen, so a quiet Spy move can check.
    assert_eq!(told("3k3/7/7/7/7/7/S2K3 w - 0 1", "a1a4"), (None, true, None));
    assert_eq!(
        told("k6/1S5/7/7/7/7/6K b b6 0 1", "a7b6"),
        (Some(rules::Role::Spy), false, draw(EndReason::InsufficientMaterial))
    );
    // R-C2: stalemate; a 50-move draw on the 100th ply; a capture resets the count.
    assert_eq!(told("k6/7/3Q3/7/7/7/6K w - 0 1", "d5c6").2, draw(EndReason::Stalemate));
    assert_eq!(told("k6/7/7/7/2S4/P6/6K w - 99 80", "g1f1").2, draw(EndReason::FiftyMove));
    assert_eq!(told("k6/7/7/7/2S4/P6/6K w - 98 80", "g1f1").2, None);
}

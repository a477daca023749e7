//! The replay of finished matches, step by step as each side knew it (`verifier::views`):
//! every step of every variant is there, each side's view shows no man that is not on the
//! board, Kriegspiel's views show no enemy man at all, and the clocks only run down.

use rules::{Color, Variant};

/// The squares of a position string's board field: `Some(c)` a man, `None` unknown or empty.
fn squares(board: &str) -> Vec<Vec<Option<char>>> {
    let field = board.split(' ').next().unwrap_or_default();
    field
        .split('/')
        .map(|rank| {
            let mut out = Vec::new();
            let mut digits = String::new();
            for ch in rank.chars() {
                if ch.is_ascii_digit() {
                    digits.push(ch);
                    continue;
                }
                if !digits.is_empty() {
                    out.extend(std::iter::repeat_n(None, digits.parse().unwrap()));
                    digits.clear();
                }
                if ch.is_ascii_alphabetic() {
                    out.push(Some(ch));
                } else if ch == '*' || ch == '?' {
                    out.push(None);
                }
            }
            if !digits.is_empty() {
                out.extend(std::iter::repeat_n(None, digits.parse().unwrap()));
            }
            out
        })
        .collect()
}

#[test]
fn every_step_of_every_variant_replays_as_each_side_knew_it() {
    for variant in Variant::ALL {
        let (bytes, summary) = sim::selfplay(variant, 2).expect("self-play");
        let r = verifier::views::replay(&bytes).expect("a valid record replays");
        assert_eq!(r.variant, variant);
        assert!(!r.frames.is_empty(), "{variant}");
        assert!(r.result.is_some(), "{variant}: {summary}");
        // Self-play's clocks have no increment: each only runs down.
        let mut last = (3_600_000, 3_600_000);
        for (i, f) in r.frames.iter().enumerate() {
            for side in Color::ALL {
                let view = &f.views[side];
                assert_eq!(view.side, side);
                // Whatever a view shows as a man stands there on the full board.
                if let Some(full) = &f.full {
                    let truth = squares(full);
                    for (rank, row) in squares(&view.board).iter().enumerate() {
                        for (file, sq) in row.iter().enumerate() {
                            if let Some(man) = sq {
                                let there =
                                    truth.get(rank).and_then(|r| r.get(file)).copied().flatten();
                                assert_eq!(
                                    there,
                                    Some(*man),
                                    "{variant} step {i} {side}: {}",
                                    view.board
                                );
                            }
                        }
                    }
                }
                if variant == Variant::Kriegspiel {
                    // R-K1: a player sees only its own men.
                    let enemy = |c: char| {
                        if side == Color::White {
                            c.is_ascii_lowercase()
                        } else {
                            c.is_ascii_uppercase()
                        }
                    };
                    let field = view.board.split(' ').next().unwrap();
                    assert!(!field.chars().any(enemy), "{variant} step {i} {side}: {}", view.board);
                }
            }
            assert!(
                f.clocks.white_ms <= last.0 && f.clocks.black_ms <= last.1,
                "{variant} step {i}: {:?} after {last:?}",
                f.clocks
            );
            last = (f.clocks.white_ms, f.clocks.black_ms);
        }
        assert!(last.0 < 3_600_000 && last.1 < 3_600_000, "{variant}: both clocks ran: {last:?}");
    }
}

/// The compact replay the host serves (`verifier::views::CompactReplay`) rebuilds every step of
/// the full one exactly (less the seats' `legal` lists, which it leaves out by design), for every
/// variant, and stays small: a bound per step, where full frames cost kilobytes each.
#[test]
fn the_compact_replay_rebuilds_every_step_of_every_variant_and_stays_small() {
    /// Bytes of compact JSON per step, at most (the start's whole views come on top).
    const PER_STEP: usize = 1_500;
    const START: usize = 8_000;
    for variant in Variant::ALL {
        for seed in [2, 7] {
            let (bytes, _) = sim::selfplay(variant, seed).expect("self-play");
            let full = verifier::views::replay(&bytes).expect("a valid record replays");
            let compact = verifier::views::compact_replay(&bytes).expect("compact");
            assert_eq!(compact.format, verifier::views::COMPACT_FORMAT);
            assert_eq!(compact.variant, variant);
            assert_eq!(compact.result, full.result);
            let want = verifier::views::steps_json(&full);
            let got = compact.expand().expect("every delta fits its step");
            assert_eq!(got.len(), full.frames.len() + 1, "{variant}");
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(g, w, "{variant} seed {seed} step {i}");
            }
            // The rebuilt JSON is the full frames' own, legal lists aside.
            for (i, f) in full.frames.iter().enumerate() {
                let step = &got[i + 1];
                for side in Color::ALL {
                    let mut v = f.views[side].clone();
                    v.legal.clear();
                    assert_eq!(step["views"][side.to_string()], serde_json::to_value(&v).unwrap());
                }
                assert_eq!(step["full"], serde_json::to_value(&f.full).unwrap());
                assert_eq!(step["clocks"], serde_json::to_value(f.clocks).unwrap());
                assert_eq!(step["action"], serde_json::Value::from(f.action.clone()));
            }
            let size = serde_json::to_string(&compact).unwrap().len();
            let full_size = serde_json::to_string(&full).unwrap().len();
            let steps = full.frames.len();
            eprintln!("{variant} seed {seed}: {steps} steps, compact {size} B, full {full_size} B");
            assert!(
                size <= START + PER_STEP * steps,
                "{variant} seed {seed}: {size} bytes for {steps} steps (full: {full_size})"
            );
        }
    }
}

/// A delta that does not fit the step before is refused, not applied wrongly.
#[test]
fn a_delta_that_does_not_fit_is_refused() {
    use serde_json::json;
    use verifier::views::{apply, delta};
    let a = json!({"board": "rnbqkbnr/8 w", "moves": [1, 2], "x": 1});
    let b = json!({"board": "rnbqkb1r/8 b", "moves": [1, 2, 3], "y": null});
    let d = delta(&a, &b);
    assert_eq!(apply(&a, &d), Some(b.clone()));
    assert_eq!(apply(&a, &delta(&a, &a)), Some(a.clone()));
    assert_eq!(apply(&json!({"board": "r"}), &d), None, "a splice past the string's end");
    assert_eq!(apply(&json!("text"), &json!(["a", 0, []])), None);
    assert_eq!(apply(&json!([1]), &json!(["a", 5, []])), None);
    assert_eq!(apply(&json!({}), &json!({"gone": []})), None);
}

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
        let (bytes, summary) = client::selfplay(variant, 2).expect("self-play");
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

//! Randomness from both players: colors and private setup seeds ("coin tossing into a well").
//!
//! Each player commits to a private seed and a public contribution (32 bytes each), then opens
//! the public contribution once both commitments are in (ARCHITECTURE.md step 3).
//!
//! ```text
//! colors: b = H(fogproof/v2/colours; ("match-id", id), ("contribution-0", c0),
//!                ("contribution-1", c1))[0] & 1;  players[b] is white
//! setup_seed(side) = H(fogproof/v2/setup-seed; ("private-seed", own private seed),
//!                      ("opponent-contribution", opponent's public contribution),
//!                      ("match-id", id), ("side", [side byte]))
//! ```
//!
//! The opponent cannot bias a side's setup seed (its contribution was committed before it saw
//! anything) nor learn it (the private seed stays secret until the end); `c0`, `c1` are in
//! `players` order. The setup seed feeds `rules::sic::setup(seed, side)`.

use crate::keys::{ByColor, PublicKey};
use crate::tags;
use crate::terms::MatchTerms;
use crate::transcript::Transcript;
use crate::{Color, MatchId};

/// Colors drawn from both public contributions (`contributions` in `players` order).
pub fn draw_colors(
    terms: &MatchTerms,
    match_id: &MatchId,
    contributions: &[[u8; 32]; 2],
) -> ByColor<PublicKey> {
    let h = Transcript::new(tags::COLORS)
        .append("match-id", &match_id.0)
        .append("contribution-0", &contributions[0])
        .append("contribution-1", &contributions[1])
        .finish();
    let white = usize::from(h[0] & 1);
    ByColor { white: terms.players[white].key, black: terms.players[1 - white].key }
}

/// A side's private setup seed (formula in the module docs).
pub fn setup_seed(
    private_seed: &[u8; 32],
    opponent_contribution: &[u8; 32],
    match_id: &MatchId,
    side: Color,
) -> [u8; 32] {
    Transcript::new(tags::SETUP_SEED)
        .append("private-seed", private_seed)
        .append("opponent-contribution", opponent_contribution)
        .append("match-id", &match_id.0)
        .append("side", &[side as u8])
        .finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn setup_seed_depends_on_every_input() {
        let m = MatchId([1; 32]);
        let base = setup_seed(&[2; 32], &[3; 32], &m, Color::White);
        assert_ne!(base, setup_seed(&[9; 32], &[3; 32], &m, Color::White));
        assert_ne!(base, setup_seed(&[2; 32], &[9; 32], &m, Color::White));
        assert_ne!(base, setup_seed(&[2; 32], &[3; 32], &MatchId([9; 32]), Color::White));
        assert_ne!(base, setup_seed(&[2; 32], &[3; 32], &m, Color::Black));
        assert_eq!(base, setup_seed(&[2; 32], &[3; 32], &m, Color::White));
    }
}

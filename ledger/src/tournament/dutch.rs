//! Swiss pairings by the FIDE Dutch system (C.04.3).

use super::{PairingError, Pairings, PlayerIndex, Round};
use std::collections::BTreeSet;

/// Pairs round `round` (1-based).
pub fn pair(
    _ranking: &[PlayerIndex],
    _rounds: &[Round],
    _absent: &BTreeSet<PlayerIndex>,
    round: usize,
) -> Result<Pairings, PairingError> {
    Err(PairingError::NoPairing { round })
}

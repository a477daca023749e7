//! Analysis by variant id: the `legal` and `perft` tools of R-A1, dispatched over the closed
//! set of games.

use crate::{Analysis, FenError, Variant};

fn with<P: Analysis, T>(fen: &str, f: impl FnOnce(&P) -> T) -> Result<T, FenError> {
    P::from_fen(fen).map(|p| f(&p))
}

macro_rules! dispatch {
    ($variant:expr, $fen:expr, $f:expr) => {
        match $variant {
            // Kriegspiel moves are chess moves (RULES.md, Kriegspiel heading).
            Variant::Chess | Variant::Kriegspiel => with::<crate::chess::Position, _>($fen, $f),
            Variant::Sic => with::<crate::sic::Position, _>($fen, $f),
            Variant::Intrigue => with::<crate::intrigue::Position, _>($fen, $f),
            Variant::SecretChess6 => with::<crate::secretchess6::Position, _>($fen, $f),
            Variant::Espionage => with::<crate::espionage::Position, _>($fen, $f),
        }
    };
}

/// The legal moves of the side to move, UCI-style, sorted.
pub fn legal_moves(variant: Variant, fen: &str) -> Result<Vec<String>, FenError> {
    dispatch!(variant, fen, |p| p.legal_uci())
}

/// The perft node count to `depth`.
pub fn perft(variant: Variant, fen: &str, depth: u32) -> Result<u64, FenError> {
    dispatch!(variant, fen, |p| p.perft(depth))
}

/// The position string as the engine prints it back (normalised).
pub fn normalize(variant: Variant, fen: &str) -> Result<String, FenError> {
    dispatch!(variant, fen, |p| p.to_fen())
}

/// The perft count below each legal root move, sorted by move text.
pub fn divide(variant: Variant, fen: &str, depth: u32) -> Result<Vec<(String, u64)>, FenError> {
    dispatch!(variant, fen, |p| p.divide(depth))
}

/// The standard starting position string of a variant. For games whose start is secret or
/// random (SIC, Intrigue, 6x6), a fixed example start documented in the game's module.
#[must_use]
pub fn start_fen(variant: Variant) -> String {
    match variant {
        Variant::Chess | Variant::Kriegspiel => crate::chess::START_FEN.to_string(),
        Variant::Sic => crate::sic::EXAMPLE_FEN.to_string(),
        Variant::Intrigue => crate::intrigue::EXAMPLE_FEN.to_string(),
        Variant::SecretChess6 => crate::secretchess6::EXAMPLE_FEN.to_string(),
        Variant::Espionage => crate::espionage::START_FEN.to_string(),
    }
}

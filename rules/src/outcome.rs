//! How a game ends (RULES.md R-C1): a winner or a draw, and the reason.

use crate::Color;
use serde::{Deserialize, Serialize};

/// Why a game ended (R-C1).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum EndReason {
    /// The side to move is in check and has no legal move.
    Checkmate,
    /// The side to move is not in check and has no legal move (a draw unless a game says otherwise).
    Stalemate,
    /// Threefold repetition of the full position (R-C2).
    Repetition,
    /// 100 plies without a capture or a pawn move (R-C2).
    FiftyMove,
    /// Neither side can mate (R-C2's exact list).
    InsufficientMaterial,
    /// A king was captured (Intrigue R-I4: a king appears on the opposing king).
    KingCaptured,
    /// The higher score (6x6 Secret Chess R-G8).
    Score,
    /// Decided by the tie-break submissions (6x6 Secret Chess R-G8).
    TieBreak,
    /// A side resigned.
    Resignation,
    /// Both sides agreed a draw.
    Agreement,
    /// A side ran out of time.
    Timeout,
    /// A side was proven to have cheated.
    Forfeit,
    /// A side left the game.
    Abandonment,
}

impl EndReason {
    /// Every end reason.
    pub const ALL: [EndReason; 13] = [
        EndReason::Checkmate,
        EndReason::Stalemate,
        EndReason::Repetition,
        EndReason::FiftyMove,
        EndReason::InsufficientMaterial,
        EndReason::KingCaptured,
        EndReason::Score,
        EndReason::TieBreak,
        EndReason::Resignation,
        EndReason::Agreement,
        EndReason::Timeout,
        EndReason::Forfeit,
        EndReason::Abandonment,
    ];

    /// The end reason named `name` ([`EndReason::name`]), if any.
    #[must_use]
    pub fn from_name(name: &str) -> Option<EndReason> {
        EndReason::ALL.into_iter().find(|r| r.name() == name)
    }

    /// The kebab-case name used in JSON and on the command line.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            EndReason::Checkmate => "checkmate",
            EndReason::Stalemate => "stalemate",
            EndReason::Repetition => "repetition",
            EndReason::FiftyMove => "fifty-move",
            EndReason::InsufficientMaterial => "insufficient-material",
            EndReason::KingCaptured => "king-captured",
            EndReason::Score => "score",
            EndReason::TieBreak => "tie-break",
            EndReason::Resignation => "resignation",
            EndReason::Agreement => "agreement",
            EndReason::Timeout => "timeout",
            EndReason::Forfeit => "forfeit",
            EndReason::Abandonment => "abandonment",
        }
    }
}

/// The result of a finished game.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct GameResult {
    /// The winner, or `None` for a draw.
    pub winner: Option<Color>,
    /// Why the game ended.
    pub reason: EndReason,
}

impl GameResult {
    /// A win for `color`.
    #[must_use]
    pub const fn win(color: Color, reason: EndReason) -> GameResult {
        GameResult { winner: Some(color), reason }
    }

    /// A draw.
    #[must_use]
    pub const fn draw(reason: EndReason) -> GameResult {
        GameResult { winner: None, reason }
    }

    /// PGN-style score: `1-0`, `0-1` or `1/2-1/2`.
    #[must_use]
    pub const fn score(&self) -> &'static str {
        match self.winner {
            Some(Color::White) => "1-0",
            Some(Color::Black) => "0-1",
            None => "1/2-1/2",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_reason_is_listed_once_and_its_name_is_its_serde_name() {
        for (i, r) in EndReason::ALL.into_iter().enumerate() {
            assert_eq!(EndReason::from_name(r.name()), Some(r));
            assert!(!EndReason::ALL[..i].contains(&r), "{r:?} listed twice");
            // The name is the kebab-case serde form the JSON outputs use.
            assert_eq!(serde_json::to_string(&r).unwrap(), format!("\"{}\"", r.name()));
        }
        assert_eq!(EndReason::from_name("resigned"), None);
    }
}

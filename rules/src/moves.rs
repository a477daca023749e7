//! A plain move (`from`, `to`, optional promotion) and its UCI-style text (R-C4).

use crate::{Alphabet, BoardSize, Role, Square};
use serde::{Deserialize, Serialize};

/// A move as players write it: from, to, and the promotion piece if any. Castling is written
/// as the king's move (`e1g1`); a SIC swap as the moving piece's from and to (R-S9).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Move {
    /// The square the moving piece leaves.
    pub from: Square,
    /// The square it goes to.
    pub to: Square,
    /// The piece a pawn promotes to.
    pub promotion: Option<Role>,
}

/// Why a move's text could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad move '{text}': {problem}")]
pub struct MoveParseError {
    /// The text as given.
    pub text: String,
    /// What is wrong with it.
    pub problem: &'static str,
}

impl Move {
    /// A move without promotion.
    #[must_use]
    pub const fn new(from: Square, to: Square) -> Move {
        Move { from, to, promotion: None }
    }

    /// The UCI-style text: `e2e4`, `e7e8q` (the promotion letter from `alphabet`, lower case).
    #[must_use]
    pub fn uci(&self, alphabet: Alphabet) -> String {
        let mut s = format!("{}{}", self.from, self.to);
        if let Some(r) = self.promotion {
            s.push(alphabet.char(r).unwrap_or('?'));
        }
        s
    }

    /// Reads `e2e4` / `e7e8q` on a board of `size` with the letters of `alphabet`.
    pub fn parse_uci(
        text: &str,
        size: BoardSize,
        alphabet: Alphabet,
    ) -> Result<Move, MoveParseError> {
        let err = |problem| MoveParseError { text: text.to_string(), problem };
        if !text.is_ascii() || !(4..=5).contains(&text.len()) {
            return Err(err("expected from-square, to-square and an optional promotion letter"));
        }
        let from = Square::parse(&text[0..2], size)
            .ok_or_else(|| err("from-square is not on the board"))?;
        let to =
            Square::parse(&text[2..4], size).ok_or_else(|| err("to-square is not on the board"))?;
        let promotion = match text[4..].chars().next() {
            None => None,
            Some(c) => Some(alphabet.role(c).ok_or_else(|| err("unknown promotion letter"))?),
        };
        Ok(Move { from, to, promotion })
    }
}

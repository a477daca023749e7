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
        self.uci_text(alphabet).to_string()
    }

    /// [`Move::uci`] without a heap allocation (the SIC observation writes every legal move
    /// this way): each square is its file letter and its one-digit rank, as
    /// [`Square`]'s `Display` writes it (every board is at most 8x8).
    pub(crate) fn uci_text(&self, alphabet: Alphabet) -> arrayvec::ArrayString<8> {
        let mut s = arrayvec::ArrayString::new();
        for square in [self.from, self.to] {
            s.push(char::from(b'a' + square.file()));
            s.push(char::from(b'1' + square.rank()));
        }
        if let Some(r) = self.promotion {
            // Four ASCII bytes and one char (at most four bytes) fit in eight.
            s.push(alphabet.char(r).unwrap_or('?'));
        }
        s
    }

    /// A key that orders moves exactly as their [`Move::uci`] texts compare (byte by byte),
    /// without building the text: a square prints as its file letter and a one-digit rank
    /// (every board is at most 8x8), so the text order is the order of (from file, from rank,
    /// to file, to rank), then no promotion before any, then the promotion letter (a `char`'s
    /// order is its UTF-8 bytes' order). Sorting legal-move lists by this instead of by
    /// [`Move::uci`] gives the same order without a `String` per comparison.
    #[must_use]
    pub(crate) fn uci_order(&self, alphabet: Alphabet) -> (u8, u8, u8, u8, Option<char>) {
        (
            self.from.file(),
            self.from.rank(),
            self.to.file(),
            self.to.rank(),
            self.promotion.map(|r| alphabet.char(r).unwrap_or('?')),
        )
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every move between two squares, plain and with every promotion letter of SIC's alphabet
    /// (the largest) and one role it lacks ('?').
    fn all_moves() -> Vec<Move> {
        let mut moves = Vec::new();
        for from in (0..64).filter_map(Square::from_index) {
            for to in (0..64).filter_map(Square::from_index) {
                moves.push(Move::new(from, to));
                for role in [Role::Queen, Role::Spy, Role::Decoy, Role::Cannon] {
                    moves.push(Move { from, to, promotion: Some(role) });
                }
            }
        }
        moves
    }

    #[test]
    fn uci_text_is_the_display_of_the_squares_and_the_letter() {
        for m in all_moves() {
            let mut want = format!("{}{}", m.from, m.to);
            if let Some(r) = m.promotion {
                want.push(Alphabet::SIC.char(r).unwrap_or('?'));
            }
            assert_eq!(m.uci_text(Alphabet::SIC).as_str(), want);
            assert_eq!(m.uci(Alphabet::SIC), want);
        }
    }

    #[test]
    fn uci_order_sorts_as_the_uci_text() {
        let moves = all_moves();
        let mut by_text = moves.clone();
        by_text.sort_by_key(|m| m.uci(Alphabet::SIC));
        let mut by_key = moves.clone();
        by_key.sort_by_key(|m| m.uci_order(Alphabet::SIC));
        assert_eq!(by_text, by_key);
        // And pairwise on a spread of them (sorting alone would not see an inconsistent key).
        for a in moves.iter().step_by(97) {
            for b in moves.iter().step_by(89) {
                assert_eq!(
                    a.uci(Alphabet::SIC).cmp(&b.uci(Alphabet::SIC)),
                    a.uci_order(Alphabet::SIC).cmp(&b.uci_order(Alphabet::SIC)),
                    "{a:?} {b:?}"
                );
            }
        }
    }
}

//! Standard algebraic notation (SAN, as PGN movetext writes it) of orthodox chess moves, for
//! chess and Kriegspiel (whose moves are orthodox): `Nf3`, `exd5`, `O-O`, `h8=Q#`. Checked
//! against shakmaty over random playouts (`tests/chess_differential.rs`).

use crate::chess::Position;
use crate::{Alphabet, Move, Role, Square};

impl Position {
    /// The SAN of a legal move, with `+` or `#`; `None` if `m` moves no piece of the board.
    #[must_use]
    pub fn san(&self, m: &Move) -> Option<String> {
        let piece = self.board().piece_at(m.from)?;
        let mut after = self.clone();
        after.play_unchecked(m);
        let suffix = if after.count_legal() == 0 && after.is_check() {
            "#"
        } else if after.is_check() {
            "+"
        } else {
            ""
        };
        let file_of = |sq: Square| (b'a' + sq.file()) as char;
        let capture = if self.capture_of(m).is_some() { "x" } else { "" };
        let text = match piece.role {
            Role::King if m.from.file().abs_diff(m.to.file()) == 2 => {
                if m.to.file() > m.from.file() { "O-O".to_owned() } else { "O-O-O".to_owned() }
            }
            Role::Pawn => {
                let from =
                    if capture.is_empty() { String::new() } else { file_of(m.from).to_string() };
                let promotion = m
                    .promotion
                    .and_then(|r| Alphabet::ORTHODOX.char(r))
                    .map(|c| format!("={}", c.to_ascii_uppercase()))
                    .unwrap_or_default();
                format!("{from}{capture}{}{promotion}", m.to)
            }
            role => {
                let letter = Alphabet::ORTHODOX.char(role)?.to_ascii_uppercase();
                // Disambiguation: by file if that tells the rivals apart, else by rank, else
                // the whole square.
                let rivals: Vec<Square> = self
                    .legal_moves()
                    .iter()
                    .filter(|o| o.to == m.to && o.from != m.from)
                    .filter(|o| self.board().piece_at(o.from).is_some_and(|p| p.role == role))
                    .map(|o| o.from)
                    .collect();
                let name = m.from.to_string();
                let which = if rivals.is_empty() {
                    String::new()
                } else if rivals.iter().all(|r| r.file() != m.from.file()) {
                    name[..1].to_owned()
                } else if rivals.iter().all(|r| r.rank() != m.from.rank()) {
                    name[1..].to_owned()
                } else {
                    name
                };
                format!("{letter}{which}{capture}{}", m.to)
            }
        };
        Some(format!("{text}{suffix}"))
    }
}

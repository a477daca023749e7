//! The games' actions and what a seat knows as plain text (issue 17: one function per
//! purpose with the games, not a match per game in every caller): the text of an offered
//! action, an action's plain JSON form, and the lines a seat's knowledge adds under its board.

use crate::seat::{Knows, SeatView};
use crate::{AnyAction, Color, Square, secretchess6};
use serde::Serialize;
use std::fmt::Write as _;

impl AnyAction {
    /// The text of an action offered in a list: a move as UCI (in the game's alphabet), a 6x6
    /// move as its notation (`b1c4+` powering), `freeze-SQUARE`, `end-turn`; `None` for setups
    /// and tie-breaks, which are never offered in a list.
    #[must_use]
    pub fn text(&self) -> Option<String> {
        match self {
            AnyAction::SecretChess6(secretchess6::Action::Move { mv }) => Some(mv.to_string()),
            AnyAction::SecretChess6(secretchess6::Action::LifeFreeze { piece }) => {
                Some(format!("freeze-{piece}"))
            }
            AnyAction::SecretChess6(secretchess6::Action::EndTurn) => Some("end-turn".into()),
            AnyAction::SecretChess6(_) => None,
            other => other.as_move().map(|m| m.uci(self.variant().alphabet())),
        }
    }

    /// The action's plain serde form without this enum's tag: a move (an Intrigue move
    /// included) as its UCI string in the game's alphabet, any other action as the game's own
    /// value (what evidence and `fogproof record show` print).
    ///
    /// # Errors
    /// The serializer's.
    pub fn serialize_untagged<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if let Some(m) = self.as_move() {
            return s.serialize_str(&m.uci(self.variant().alphabet()));
        }
        match self {
            AnyAction::Intrigue(a) => a.serialize(s),
            AnyAction::SecretChess6(a) => a.serialize(s),
            other => other.serialize(s),
        }
    }
}

fn side_name(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

fn squares(list: impl IntoIterator<Item = Square>) -> String {
    let v: Vec<String> = list.into_iter().map(|s| s.to_string()).collect();
    if v.is_empty() { "none".into() } else { v.join(" ") }
}

impl SeatView {
    /// What the seat knows beyond its board, per game, as lines of plain text (each ending in
    /// a newline): the last moves, the umpire's announcements, own men, secrets, scores.
    #[must_use]
    pub fn knows_text(&self) -> String {
        let mut out = String::new();
        match &self.knows {
            Knows::Chess { moves } | Knows::Espionage { moves } => {
                let tail: Vec<String> = moves
                    .iter()
                    .rev()
                    .take(6)
                    .rev()
                    .map(|m| m.uci(self.variant.alphabet()))
                    .collect();
                if !tail.is_empty() {
                    let _ = writeln!(out, "Last moves: {}", tail.join(" "));
                }
            }
            Knows::Kriegspiel(k) => {
                let n = k.announcements.len();
                for (i, a) in k.announcements.iter().enumerate().skip(n.saturating_sub(2)) {
                    // Announcements alternate from White's first move.
                    let mover = if i % 2 == 0 { Color::White } else { Color::Black };
                    let mut said = Vec::new();
                    if let Some(c) = a.capture {
                        let kind = match c.kind {
                            crate::kriegspiel::CaptureKind::Pawn => "pawn",
                            crate::kriegspiel::CaptureKind::Piece => "piece",
                        };
                        let ep = if c.en_passant { ", en passant" } else { "" };
                        said.push(format!("capture on {} ({kind}{ep})", c.square));
                    }
                    for check in &a.checks {
                        said.push(format!("check ({})", check.name()));
                    }
                    if a.pawn_tries > 0 {
                        said.push(format!("{} pawn tries", a.pawn_tries));
                    }
                    if let Some(e) = a.end {
                        said.push(e.name().to_owned());
                    }
                    if said.is_empty() {
                        said.push("nothing".into());
                    }
                    let _ = writeln!(
                        out,
                        "Umpire after {}'s move: {}",
                        side_name(mover),
                        said.join("; ")
                    );
                }
                if !k.tried.is_empty() {
                    let tried: Vec<String> =
                        k.tried.iter().map(|m| m.uci(self.variant.alphabet())).collect();
                    let _ = writeln!(out, "Refused this turn: {}", tried.join(" "));
                }
            }
            Knows::Sic(k) => {
                let alphabet = self.variant.alphabet();
                let own: Vec<String> = k
                    .own
                    .iter()
                    .map(|p| {
                        let c = alphabet.char(p.role).unwrap_or('?').to_ascii_uppercase();
                        format!("{c}{}#{}", p.square, p.id)
                    })
                    .collect();
                let _ = writeln!(out, "Your men (square#id): {}", own.join(" "));
                let enemy: Vec<String> =
                    k.enemy_moved.iter().map(|p| format!("?{}#{}", p.square, p.id)).collect();
                if !enemy.is_empty() {
                    let _ = writeln!(out, "Enemy men that moved (square#id): {}", enemy.join(" "));
                }
                let roles = |v: &[crate::Role]| {
                    v.iter()
                        .map(|r| alphabet.char(*r).unwrap_or('?').to_ascii_uppercase().to_string())
                        .collect::<Vec<_>>()
                        .join(" ")
                };
                if !k.captured.is_empty() {
                    let _ = writeln!(out, "You captured: {}", roles(&k.captured));
                }
                if !k.lost.is_empty() {
                    let _ = writeln!(out, "You lost: {}", roles(&k.lost));
                }
                match k.check {
                    Some(crate::sic::CheckReport::King) => {
                        let _ = writeln!(out, "Check: your king is attacked.");
                    }
                    Some(crate::sic::CheckReport::Decoy) => {
                        let _ = writeln!(out, "Check report: your Decoy is attacked.");
                    }
                    None => {}
                }
                if k.gave_check {
                    let _ = writeln!(out, "Your last move attacks the enemy king or Decoy.");
                }
            }
            Knows::Intrigue(k) => {
                if self.board.trim() == "-" {
                    let _ = writeln!(
                        out,
                        "Before the setups: both kings hide off the board; each queen starts on its \
                     own square or on its king's (e1, e8), as its side chooses."
                    );
                }
                if let Some(s) = &k.setup {
                    let queen =
                        if s.queen_on_king_square { "on the king's square" } else { "home" };
                    let _ = writeln!(
                        out,
                        "Your secret: king hides on {}, informer {}, queen {queen}.",
                        s.king, s.informer
                    );
                }
                if let Some(q) = k.opponent_queen_on_king_square {
                    let where_ = if q { "on the king's square" } else { "home" };
                    let _ = writeln!(out, "Opponent's queen starts {where_}.");
                }
                for i in k.inspections.iter().rev().take(3).rev() {
                    let answer = if i.informer { "the informer" } else { "not the informer" };
                    let appeared = i
                        .appeared
                        .map(|a| format!(", its king appeared on {}", a.square))
                        .unwrap_or_default();
                    let _ = writeln!(
                        out,
                        "{}'s captured pawn was {answer}{appeared}.",
                        side_name(i.owner)
                    );
                }
                if let Some(s) = &k.opponent_setup {
                    let _ = writeln!(
                        out,
                        "Opponent's setup (opened): king hid on {}, informer {}.",
                        s.king, s.informer
                    );
                }
            }
            Knows::SecretChess6(k) => {
                if let Some(f) = &k.formation {
                    let _ = writeln!(
                        out,
                        "Your formation: {f}; your false squares: {}",
                        squares(k.false_squares)
                    );
                }
                let pieces: Vec<String> = k
                    .pieces
                    .iter()
                    .map(|p| {
                        let c = self
                            .variant
                            .alphabet()
                            .char(p.role)
                            .unwrap_or('?')
                            .to_ascii_uppercase();
                        let mut s = format!("{c}{}", p.square);
                        if let Some(l) = p.lifespan {
                            let _ = write!(s, " life {l}");
                        }
                        if p.powered {
                            s.push_str(" powered");
                        }
                        if p.frozen {
                            s.push_str(" frozen");
                        }
                        s
                    })
                    .collect();
                if !pieces.is_empty() {
                    let _ = writeln!(out, "Your men: {}", pieces.join(", "));
                }
                let _ = writeln!(out, "Red squares (threatened or false): {}", squares(k.red));
                let _ = writeln!(out, "Turn {}.", k.turn);
                if let Some(s) = k.scores {
                    let _ = writeln!(out, "Scores: White {} - Black {}", s.white, s.black);
                }
                if k.freezes_left > 0 {
                    let _ = writeln!(out, "Life Freezes left: {}", k.freezes_left);
                }
                if k.opponent_ready {
                    let _ = writeln!(out, "The opponent has submitted.");
                }
            }
        }
        out
    }
}

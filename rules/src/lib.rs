//! The rules of fogproof's games: orthodox chess, Kriegspiel, Secret Intelligence Chess,
//! Intrigue, 6x6 Secret Chess and Espionage Chess.
//!
//! Pure and deterministic: no I/O, no clock, no cryptography, no floats, no `HashMap`
//! iteration. Every rule in the code cites its id from `RULES.md` (R-C…, R-K…, R-S…, R-I…,
//! R-G…, R-E…). The vocabulary (squares, bitboards, pieces, boards) is shared; each game is a
//! module with its full state type implementing [`Game`] (actions in, observations out) and
//! [`Analysis`] (position strings, legal moves, perft).
#![warn(missing_docs)]

pub mod analysis;
mod any;
pub mod attacks;
mod bitboard;
mod board;
pub mod codec;
mod color;
mod game;
pub mod heuristic;
mod moves;
pub mod notation;
mod outcome;
mod role;
mod san;
pub mod seat;
mod secret;
pub mod setup_ask;
mod square;
mod texts;
mod variant;

pub mod chess;
pub mod espionage;
pub mod intrigue;
pub mod kriegspiel;
pub mod secretchess6;
pub mod sic;

pub use any::{AnyAction, AnyGame, AnyObservation, GameOptions, OptionError, StartError};
pub use bitboard::Bitboard;
pub use board::Board;
pub use color::{ByColor, Color};
pub use game::{ActionError, Analysis, Game, Transition};
pub use moves::{Move, MoveParseError};
pub use outcome::{EndReason, GameResult};
pub use role::{Alphabet, Piece, Role};
pub use secret::Secret;
pub use square::{BoardSize, Square};
pub use variant::{Mode, UnknownVariant, Variant};

/// A position string that could not be read: which field, and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad position string: {field}: {problem}")]
pub struct FenError {
    /// The field (`board`, `side`, `castling`, …).
    pub field: &'static str,
    /// What is wrong.
    pub problem: String,
}

impl FenError {
    /// A new error for `field`.
    pub fn new(field: &'static str, problem: impl Into<String>) -> FenError {
        FenError { field, problem: problem.into() }
    }
}

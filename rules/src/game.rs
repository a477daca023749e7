//! The one API every caller uses: a full state, an action, and the result — the new state and
//! exactly what each side is told.
//!
//! Hidden information is kept out of observations by construction: each game's `Observation`
//! type only has fields for what its rules let a side learn, and it is built by the game's own
//! code from the full state, never by copying the state.

use crate::{ByColor, Color, FenError, GameResult, Variant};
use serde::{Serialize, de::DeserializeOwned};

/// The outcome of an accepted action.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transition<S, O> {
    /// The new full state.
    pub state: S,
    /// What each side is told; `None` means that side is told nothing at all.
    pub told: ByColor<Option<O>>,
}

/// Why an action was refused. The state it was tried on is unchanged (states are values).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ActionError {
    /// The game is over.
    #[error("the game is over")]
    GameOver,
    /// It is not this side's turn to act.
    #[error("it is not {0}'s turn")]
    NotYourTurn(Color),
    /// The action has the wrong kind for the current phase (for example a move during setup).
    #[error("wrong action for this phase: {0}")]
    WrongPhase(&'static str),
    /// The move is not legal (for games where an illegal move is an error, not an answer).
    #[error("illegal move {0}")]
    IllegalMove(String),
    /// The action is one of another game (a caller's mix-up, never a player's move).
    #[error("an action of {0}, not of this game")]
    WrongGame(Variant),
    /// A setup choice or submission breaks the rules; the text says which rule.
    #[error("invalid {what}: {problem}")]
    Invalid {
        /// What was submitted.
        what: &'static str,
        /// What is wrong with it.
        problem: String,
    },
}

/// A game's full state and its rules. Implemented by each game module's state type.
pub trait Game: Clone + std::fmt::Debug + Sized {
    /// An action a side takes: a move, an attempt, a setup choice, a tie-break submission.
    type Action: Clone + std::fmt::Debug + PartialEq + Serialize + DeserializeOwned;
    /// What one side is told after an action (only what the rules let it learn).
    type Observation: Clone + std::fmt::Debug + PartialEq + Serialize + DeserializeOwned;

    /// Which game this is.
    fn variant(&self) -> Variant;

    /// The sides that may act now (both during a simultaneous secret setup; none once over).
    fn to_act(&self) -> Vec<Color>;

    /// Applies `action` by `actor`, returning the new state and what each side is told.
    fn apply(
        &self,
        actor: Color,
        action: &Self::Action,
    ) -> Result<Transition<Self, Self::Observation>, ActionError>;

    /// The result, once the game is over.
    fn result(&self) -> Option<GameResult>;
}

/// Positions for analysis (R-A1): parse and print position strings, list legal moves, perft.
pub trait Analysis: Sized {
    /// Parses a full position string of this game.
    fn from_fen(fen: &str) -> Result<Self, FenError>;
    /// The full position string.
    fn to_fen(&self) -> String;
    /// Legal moves of the side to move, as UCI-style text, sorted.
    fn legal_uci(&self) -> Vec<String>;
    /// The number of leaf nodes of the legal move tree to `depth` plies.
    fn perft(&self, depth: u32) -> u64;
    /// The perft count below each legal root move (`depth` >= 1), sorted by move text.
    fn divide(&self, depth: u32) -> Vec<(String, u64)>;
}

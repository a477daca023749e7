//! 6x6 Secret Chess (`001_…`), ruleset `secretchess/6x6`, RULES.md R-G1..R-G9.
//!
//! Each side sees only its own three ranks. Setup (R-G1): both sides secretly place K Q R B N
//! on their first rank (one square empty) and mark up to two squares of the enemy territory as
//! falsely threatened. White moves first. A turn (the seed's procedure):
//! 1. lifespan reduction (R-G3) of the side's pieces that have ever moved, removal at zero,
//!    unless under Life Freeze (R-G9);
//! 2. board update (R-G6): the side sees its pieces and its red squares;
//! 3. movement (R-G2, R-G4): one move within its own territory onto an empty square, no
//!    captures, the king never moves; a side with only its king, or with pieces of which none
//!    can move, passes (`0000`) straight to step 4 (a decision: the seed only covers the
//!    lone king, and a side that cannot move cannot be made to);
//! 4. scoring for both sides (R-G7).
//!
//! Decisions where the seed is loose, all documented in `docs/referee/secretchess6.md`:
//! - the king never moves, so it threatens nothing (it stands on its first rank, three ranks
//!   from the enemy territory, in any real game);
//! - a knight's powering move is itself a (3,1) leap ("from that move on", R-G4), written with
//!   a `+` suffix (`b1c4+`); the powered knight's later moves have no suffix;
//! - Life Freeze is used after one's move and its scoring (`life-freeze` action, at most one
//!   per turn); the piece skips its owner's next lifespan reduction, since pieces only age at
//!   their owner's turns (R-G3), covering "the opponent's next turn and the user's next turn";
//! - the game ends (R-G8) as soon as both sides have only kings, even at the start of a turn;
//!   that turn would only score zero and is not played;
//! - the tie-break (R-G8) is one submission per side holding both stages (formation and
//!   moves), so nothing is revealed between them. Formation errors: the number of the six
//!   files whose guessed content (piece or empty) differs. Moves: round k compares each side's
//!   guess of the opponent's k-th turn; a side is wrong if the opponent had that turn and the
//!   guess is missing or differs (passes are `0000`); the first round where exactly one side is
//!   wrong eliminates it; otherwise a draw.

mod position;
mod state;
mod told;

pub use position::{
    MAX_FALSE_SQUARES, MoveTextError, PassReason, PieceInfo, Position, TurnMove, initial_lifespan,
    territory,
};
pub use state::{MAX_LIFE_FREEZES, Options, State};
pub use told::{Action, Event, Formation, FormationError, Observation, OwnPiece, TieBreakReport};

/// A fixed example start (the start of the seed's scoring example as reconstructed in
/// `rules/tests/secretchess6_rules.rs`): White `NBKQ1R` on rank 1, Black `n1qkrb` on rank 6,
/// no false squares. Real games start from the two secret setups.
pub const EXAMPLE_FEN: &str = "n1qkrb/6/6/6/6/NBKQ1R w - - - 0-0 1";

//! Intrigue (`002_…`, ruleset `intrigue/2000`): orthodox chess with a hidden king and an
//! informer pawn (RULES.md R-I1..R-I6, R-C2 draws).
//!
//! - [`Position`]: a full position (hidden parts included) for analysis (R-A1): position
//!   strings (R-I6), legal moves, the effects of a move (R-I2 inspection, king appearance,
//!   R-I4 king captures), perft.
//! - [`State`]: the game, implementing [`crate::Game`]: the secret setup (R-I1), then moves, with
//!   what each side is told ([`Observation`]) and each side's [`View`].
//!
//! # Position string (R-I6)
//!
//! `board side castling ep halfmove fullmove hidden-kings informers`, for example
//! [`EXAMPLE_FEN`]. The first six fields are FEN's, except `castling`, below. The two extra
//! fields each hold a White entry and a Black entry separated by a comma:
//!
//! - `hidden-kings`: the square where that side's king hides (off the board), or `-` when it
//!   has no hidden king (its king is on the board, or it has none at all, R-A1). `e3,-` means
//!   White's king hides on e3 and Black's is on the board (or absent).
//! - `informers`: the current square of that side's informer pawn, or `-` when it has none
//!   (captured, promoted, removed by an appearing king). An informer may only be named for a
//!   side whose king is hidden.
//!
//! A player's [`View`] writes `?` for each entry of the opponent's that the player may not know
//! (while that king is hidden). [`Position`] reads full positions only; a `?` is an error. The
//! two extra fields may be left out together, meaning `-,- -,-` (an orthodox position).
//!
//! `castling` is `-` or a subset of `KQkq` in that order: `K` = White's rook on h1, `Q` = on a1,
//! `k` = Black's rook on h8, `q` = on a8, meaning that rook has not moved and, if its king is on
//! the board, the king has not moved since it appeared and shares a rank or file with the rook
//! (R-I5). Only an unmoved rook can castle, and unmoved rooks stand in the corners.
//!
//! # Decisions where the rules are silent
//!
//! - R-I2: a pawn removed by an appearing king was not captured, so it is not inspected. If it
//!   was its side's informer, that side's king stays hidden for the rest of the game, as after
//!   a promotion.
//! - R-I2/R-I4: the legality of a move is judged before any king appears (the mover cannot know
//!   where the enemy king hides). A king appears only when its own pawn is captured, that is on
//!   the opponent's move, so the appearing side is always the side to move next: R-I4's
//!   "moves first" needs no change of turn order.
//! - R-I4, appearing on the opposing king: the game ends at once. The appearing side (to move)
//!   wins (`king-captured`) unless its king is attacked and it has no legal move, which is a
//!   draw (reason `checkmate`, no winner).
//! - R-I4, appearing adjacent: if the appearing king could step onto the opposing king's square
//!   without being attacked there, it wins at once (`king-captured`); no move is played.
//!   Otherwise both kings are "in check", the appearing side is to move and must get out of
//!   check, or it is checkmated. Moves never capture a king.
//! - En passant: the `ep` field is set after a double step only when an enemy pawn stands next
//!   to the pawn that moved, so that equal positions compare equal for R-C2 repetition.

mod position;
mod state;

pub use position::{Appearance, Capture, Effects, Inspection, Position};
pub use state::{Action, MoveReport, Observation, Setup, SetupReport, State, View};

/// An example start (the real start is secret, R-I1): White's queen starts on e1 (the king's
/// home square, a public choice) and its king hides on d3 with the e2 pawn as informer; Black's
/// queen stays on d8, its king hides on f6 and its informer is the c7 pawn.
pub const EXAMPLE_FEN: &str =
    "rnbq1bnr/pppppppp/8/8/8/8/PPPPPPPP/RNB1QBNR w KQkq - 0 1 d3,f6 e2,c7";

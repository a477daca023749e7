//! Kriegspiel (ruleset `kriegspiel/1899-icc`, R-K1..R-K5): orthodox chess moves, each player
//! seeing only its own men, an umpire answering attempts and announcing what the rules allow.
//!
//! Hidden information stays out by construction: an [`Announcement`] has no field for a move,
//! a piece kind (only "pawn or piece" of a man already captured), a promotion or the square of
//! any man still on the board; an illegal attempt is answered [`Answer::Illegal`] to the mover
//! and nothing to the opponent (R-K1).

use crate::Game as _;
use crate::chess::{self, Position};
use crate::{
    ActionError, Alphabet, ByColor, Color, EndReason, GameResult, Move, Role, Square, Transition,
    Variant,
};
use serde::{Deserialize, Serialize};

/// The named options of the ruleset.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "KriegspielOptions"))]
#[serde(rename_all = "kebab-case")]
pub struct Options {
    /// R-K4's option `touch-move`: after an illegal attempt with a piece, the next attempt must
    /// use the same piece if it has any legal move. Off by default.
    pub touch_move: bool,
}

impl Options {
    /// Reads option names as in the match terms (`touch-move`).
    pub fn from_names<'a>(names: impl IntoIterator<Item = &'a str>) -> Result<Options, String> {
        let mut o = Options::default();
        for name in names {
            match name {
                "touch-move" => o.touch_move = true,
                other => {
                    return Err(format!("unknown kriegspiel option '{other}' (known: touch-move)"));
                }
            }
        }
        Ok(o)
    }
}

/// Whether a captured man was a pawn or a piece (R-K2): never which piece.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum CaptureKind {
    /// A pawn.
    Pawn,
    /// Any other man.
    Piece,
}

/// A capture (R-K2): the square where the captured man stood, whether it was a pawn or a
/// piece, and whether it was taken en passant (then the square is the captured pawn's).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "KriegspielCapture"))]
pub struct Capture {
    /// Where the captured man stood (it is gone, so the square hides nothing).
    pub square: Square,
    /// Pawn or piece.
    pub kind: CaptureKind,
    /// Taken en passant.
    pub en_passant: bool,
}

/// The direction of a check (R-K2).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum CheckKind {
    /// Along the king's rank.
    Rank,
    /// Along the king's file.
    File,
    /// Along the longer of the two diagonals through the king's square.
    LongDiagonal,
    /// Along the shorter of the two diagonals through the king's square.
    ShortDiagonal,
    /// By a knight.
    Knight,
}

impl CheckKind {
    /// The kebab-case name.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            CheckKind::Rank => "rank",
            CheckKind::File => "file",
            CheckKind::LongDiagonal => "long-diagonal",
            CheckKind::ShortDiagonal => "short-diagonal",
            CheckKind::Knight => "knight",
        }
    }
}

/// How the game ended, as announced (R-K2: checkmate, stalemate, or an automatic draw of R-C2).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "KriegspielEnd"))]
#[serde(rename_all = "kebab-case")]
pub enum End {
    /// The side to move is checkmated.
    Checkmate,
    /// The side to move is stalemated.
    Stalemate,
    /// Threefold repetition.
    Repetition,
    /// 100 plies without a capture or pawn move.
    FiftyMove,
    /// R-C2's insufficient material.
    InsufficientMaterial,
}

impl End {
    /// The kebab-case name (as [`EndReason::name`]).
    #[must_use]
    pub const fn name(self) -> &'static str {
        self.reason().name()
    }

    /// The matching [`EndReason`].
    #[must_use]
    pub const fn reason(self) -> EndReason {
        match self {
            End::Checkmate => EndReason::Checkmate,
            End::Stalemate => EndReason::Stalemate,
            End::Repetition => EndReason::Repetition,
            End::FiftyMove => EndReason::FiftyMove,
            End::InsufficientMaterial => EndReason::InsufficientMaterial,
        }
    }

    fn of(reason: EndReason) -> Option<End> {
        Some(match reason {
            EndReason::Checkmate => End::Checkmate,
            EndReason::Stalemate => End::Stalemate,
            EndReason::Repetition => End::Repetition,
            EndReason::FiftyMove => End::FiftyMove,
            EndReason::InsufficientMaterial => End::InsufficientMaterial,
            _ => return None,
        })
    }
}

/// What both players are told after a legal move (R-K2, R-K3, R-K5).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Announcement {
    /// The capture, if the move captured.
    pub capture: Option<Capture>,
    /// The checks on the side now to move, one per checking man (two for a double check),
    /// in the order of [`CheckKind`].
    pub checks: Vec<CheckKind>,
    /// The side to move's pawn tries: its legal pawn captures, en passant included, a
    /// promoting capture counted once (R-K2; always announced, R-K5).
    pub pawn_tries: u32,
    /// The end of the game, if this move ended it.
    pub end: Option<End>,
}

/// The umpire's answer to an attempt, as told to one player.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "KriegspielAnswer"))]
#[serde(rename_all = "kebab-case")]
pub enum Answer {
    /// The attempt was illegal (told to the mover only, R-K1).
    Illegal,
    /// The attempt was legal and was played (told to both, R-K2).
    Legal(Announcement),
}

/// A player's view: only its own men (what a Kriegspiel player sees on its board).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct OwnView {
    /// Whose men these are.
    pub side: Color,
    /// The men, by square in index order.
    pub men: Vec<(Square, Role)>,
}

/// A Kriegspiel game as the umpire holds it: the full chess game plus the touch-move state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    game: chess::State,
    options: Options,
    /// With `touch-move` (R-K4): the square of the man the mover tried illegally this turn.
    touched: Option<Square>,
}

impl State {
    /// A game from the standard start.
    #[must_use]
    pub fn start(options: Options) -> State {
        State::from_position(Position::start(), options)
    }

    /// A game from any position (R-A1).
    #[must_use]
    pub fn from_position(position: Position, options: Options) -> State {
        State { game: chess::State::from_position(position), options, touched: None }
    }

    /// The full position (the umpire's board).
    #[must_use]
    pub fn position(&self) -> &Position {
        self.game.position()
    }

    /// The options.
    #[must_use]
    pub const fn options(&self) -> Options {
        self.options
    }

    /// What `side` sees: its own men only.
    #[must_use]
    pub fn view(&self, side: Color) -> OwnView {
        let board = self.position().board();
        let men = board.by_color(side).map(|sq| (sq, board.piece_at(sq).expect("occupied").role));
        OwnView { side, men: men.collect() }
    }

    /// R-K4 with `touch-move`: whether `attempt` breaks the obligation to move the touched man.
    fn breaks_touch_move(&self, attempt: &Move) -> bool {
        let Some(touched) = self.touched else { return false };
        attempt.from != touched && self.position().legal_moves().iter().any(|m| m.from == touched)
    }

    /// The announcement after a legal move, from the position it led to.
    fn announce(before: &Position, m: &Move, after: &chess::State) -> Announcement {
        let capture = before.capture_of(m).map(|(square, role, en_passant)| Capture {
            square,
            kind: if role == Role::Pawn { CaptureKind::Pawn } else { CaptureKind::Piece },
            en_passant,
        });
        let pos = after.position();
        let king = pos.king(pos.turn());
        let mut checks: Vec<CheckKind> = pos
            .checkers()
            .map(|from| {
                let role = pos.board().piece_at(from).expect("a checker stands on its square").role;
                check_kind(role, from, king)
            })
            .collect();
        checks.sort();
        Announcement {
            capture,
            checks,
            pawn_tries: pawn_tries(pos),
            end: after.result().and_then(|r| End::of(r.reason)),
        }
    }
}

/// The kind of a check by a `role` on `from` against the king on `king` (R-K2).
fn check_kind(role: Role, from: Square, king: Square) -> CheckKind {
    if role == Role::Knight {
        return CheckKind::Knight;
    }
    if from.rank() == king.rank() {
        return CheckKind::Rank;
    }
    if from.file() == king.file() {
        return CheckKind::File;
    }
    // A diagonal check (bishop, queen or pawn). The two diagonals through the king have
    // 8 - |file - rank| and 8 - |file + rank - 7| squares; on 8x8 they never tie.
    let (kf, kr) = (i32::from(king.file()), i32::from(king.rank()));
    let main_len = 8 - (kf - kr).abs();
    let anti_len = 8 - (kf + kr - 7).abs();
    let on_main = i32::from(from.file()) - i32::from(from.rank()) == kf - kr;
    let (this, other) = if on_main { (main_len, anti_len) } else { (anti_len, main_len) };
    if this > other { CheckKind::LongDiagonal } else { CheckKind::ShortDiagonal }
}

/// The side to move's pawn tries (R-K2): legal pawn captures, a promoting capture once.
fn pawn_tries(pos: &Position) -> u32 {
    let pawns = pos.board().by_piece(Role::Pawn.of(pos.turn()));
    let mut tries: Vec<(Square, Square)> = pos
        .legal_moves()
        .iter()
        .filter(|m| pawns.contains(m.from) && m.from.file() != m.to.file())
        .map(|m| (m.from, m.to))
        .collect();
    tries.sort();
    tries.dedup();
    u32::try_from(tries.len()).expect("fewer pawn captures than 2^32")
}

impl crate::Game for State {
    /// An attempt: a move with the promotion piece named by the mover (R-K3).
    type Action = Move;
    type Observation = Answer;

    fn variant(&self) -> Variant {
        Variant::Kriegspiel
    }

    fn to_act(&self) -> Vec<Color> {
        self.game.to_act()
    }

    fn apply(
        &self,
        actor: Color,
        attempt: &Move,
    ) -> Result<Transition<State, Answer>, ActionError> {
        if self.game.result().is_some() {
            return Err(ActionError::GameOver);
        }
        let pos = self.position();
        if actor != pos.turn() {
            return Err(ActionError::NotYourTurn(actor));
        }
        let breaks_touch = self.options.touch_move && self.breaks_touch_move(attempt);
        if breaks_touch || !pos.is_legal(attempt) {
            // R-K1: "illegal" to the mover, nothing to the opponent.
            let mut state = self.clone();
            // R-K4 `touch-move`: an illegal attempt with one's own man binds the next attempt
            // to that man, unless an earlier binding still holds.
            if self.options.touch_move
                && !breaks_touch
                && pos.board().by_color(actor).contains(attempt.from)
            {
                state.touched = Some(attempt.from);
            }
            let mut told = ByColor::default();
            told[actor] = Some(Answer::Illegal);
            return Ok(Transition { state, told });
        }
        let game = self.game.play(attempt)?;
        let answer = Answer::Legal(State::announce(pos, attempt, &game));
        let state = State { game, options: self.options, touched: None };
        Ok(Transition { state, told: ByColor { white: Some(answer.clone()), black: Some(answer) } })
    }

    fn result(&self) -> Option<GameResult> {
        self.game.result()
    }
}

/// Reads an attempt in UCI text (`e2e4`, `e7e8q`).
pub fn parse_attempt(text: &str) -> Result<Move, crate::MoveParseError> {
    Move::parse_uci(text, crate::BoardSize::Eight, Alphabet::ORTHODOX)
}

//! The Intrigue game: the secret setup (R-I1), then moves with R-I2 answers and R-I4 endings,
//! R-C2 draws, what each side is told and each side's view.

use super::position::{Capture, Inspection, Position};
use crate::{
    ActionError, Alphabet, ByColor, Color, EndReason, Game, GameResult, Move, Square, Variant,
};
use serde::{Deserialize, Serialize};

/// One side's setup (R-I1). The king square and the informer are secret; the queen choice is
/// public.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "IntrigueSetup"))]
pub struct Setup {
    /// Where the king hides: any of the 64 squares.
    pub king: Square,
    /// The informer pawn, named by its starting square (a2..h2 for White, a7..h7 for Black).
    pub informer: Square,
    /// Whether the queen starts on the king's home square (e1/e8) instead of her own.
    pub queen_on_king_square: bool,
}

/// What a side does: its setup, then moves.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "IntrigueAction"))]
#[serde(rename_all = "kebab-case")]
pub enum Action {
    /// The secret setup (R-I1), once, before play; the two sides in any order.
    Setup(Setup),
    /// A move (castling as the king's from and to squares, R-I5).
    Move(Move),
}

/// What a side is told. Intrigue is open except for the hidden kings and the informers, so both
/// sides are told the same; no field can hold a hiding square or an informer's identity except
/// an appearance, which R-I2 makes public.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "IntrigueObservation"))]
#[serde(rename_all = "kebab-case")]
pub enum Observation {
    /// A side has set up.
    Setup(SetupReport),
    /// A move was played.
    Move(MoveReport),
}

/// A side has set up: only its public choice is told (R-I1).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SetupReport {
    /// Who set up.
    pub side: Color,
    /// Its public choice.
    pub queen_on_king_square: bool,
    /// Whether both sides are now in and play begins (White to move).
    pub play_starts: bool,
}

/// A move and everything public that followed from it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct MoveReport {
    /// The mover.
    pub side: Color,
    /// The move.
    pub mv: Move,
    /// What it captured.
    pub capture: Option<Capture>,
    /// R-I2: the owner's answer about a captured pawn, and the king's appearance.
    pub inspection: Option<Inspection>,
    /// The sides whose (visible) kings are now attacked; both after an R-I4 adjacent appearance.
    pub check: Vec<Color>,
    /// The result, if the game ended.
    pub result: Option<GameResult>,
}

/// One side's view of the game: the position string with the opponent's secrets as `?`
/// (R-I6). It is built from the state and holds nothing that side may not know.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "IntrigueView"))]
pub struct View {
    /// Whose view.
    pub side: Color,
    /// The view's position string.
    pub fen: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
#[allow(
    clippy::large_enum_variant,
    reason = "the setup phase is brief; boxing the position would cost an allocation per move"
)]
enum Phase {
    Setup(ByColor<Option<Setup>>),
    /// Boxed: a position is much larger than the setup choices.
    Play(Box<Position>),
}

/// The full state of an Intrigue game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    phase: Phase,
    /// Repetition keys of the positions since the last capture or pawn move (R-C2).
    history: Vec<String>,
    result: Option<GameResult>,
}

impl Default for State {
    fn default() -> State {
        State::new()
    }
}

impl State {
    /// A new game, waiting for both setups.
    #[must_use]
    pub fn new() -> State {
        State { phase: Phase::Setup(ByColor::default()), history: Vec::new(), result: None }
    }

    /// A game in play from `position` (for tests, analysis and resumed games). The result is
    /// decided at once if the side to move has no legal move or an R-C2 draw applies.
    #[must_use]
    pub fn from_position(position: Position) -> State {
        let result = end_of(&position, 1);
        State {
            history: vec![position.repetition_key()],
            phase: Phase::Play(Box::new(position)),
            result,
        }
    }

    /// The position once play has begun.
    #[must_use]
    pub fn position(&self) -> Option<&Position> {
        match &self.phase {
            Phase::Play(p) => Some(p),
            Phase::Setup(_) => None,
        }
    }

    /// `side`'s view (R-I6), once play has begun.
    #[must_use]
    pub fn view(&self, side: Color) -> Option<View> {
        self.position().map(|p| View { side, fen: p.view_fen(side) })
    }

    fn setup(&self, actor: Color, setup: Setup, chosen: &ByColor<Option<Setup>>) -> Transition {
        let mut chosen = *chosen;
        chosen[actor] = Some(setup);
        let report = |play_starts| {
            let r = SetupReport {
                side: actor,
                queen_on_king_square: setup.queen_on_king_square,
                play_starts,
            };
            ByColor { white: Some(Observation::Setup(r)), black: Some(Observation::Setup(r)) }
        };
        if let (Some(w), Some(b)) = (chosen.white, chosen.black) {
            let position = Position::start(
                ByColor { white: w.king, black: b.king },
                ByColor { white: w.informer, black: b.informer },
                ByColor { white: w.queen_on_king_square, black: b.queen_on_king_square },
            );
            crate::Transition { state: State::from_position(position), told: report(true) }
        } else {
            crate::Transition {
                state: State { phase: Phase::Setup(chosen), ..self.clone() },
                told: report(false),
            }
        }
    }

    fn play(&self, position: &Position, m: Move) -> Result<Transition, ActionError> {
        if !position.is_legal(m) {
            return Err(ActionError::IllegalMove(m.uci(Alphabet::ORTHODOX)));
        }
        let side = position.turn();
        let (next, effects) = position.play(m);
        let mut history = if next.halfmove() == 0 { Vec::new() } else { self.history.clone() };
        let key = next.repetition_key();
        let seen = history.iter().filter(|k| **k == key).count();
        history.push(key);
        let result = effects.end.or_else(|| end_of(&next, seen + 1));
        let check = Color::ALL.into_iter().filter(|&c| next.in_check(c)).collect();
        let report = MoveReport {
            side,
            mv: m,
            capture: effects.capture,
            inspection: effects.inspection,
            check,
            result,
        };
        let told = ByColor {
            white: Some(Observation::Move(report.clone())),
            black: Some(Observation::Move(report)),
        };
        Ok(crate::Transition {
            state: State { phase: Phase::Play(Box::new(next)), history, result },
            told,
        })
    }
}

type Transition = crate::Transition<State, Observation>;

/// The end of the game in `position`, reached for the `occurrences`-th time: checkmate,
/// stalemate (a draw even with a hidden king, R-I3), then R-C2's automatic draws.
fn end_of(position: &Position, occurrences: usize) -> Option<GameResult> {
    let turn = position.turn();
    if !position.has_legal_move() {
        return Some(if position.in_check(turn) {
            GameResult::win(turn.other(), EndReason::Checkmate)
        } else {
            GameResult::draw(EndReason::Stalemate)
        });
    }
    if position.board().insufficient_material() {
        return Some(GameResult::draw(EndReason::InsufficientMaterial));
    }
    if position.halfmove() >= 100 {
        return Some(GameResult::draw(EndReason::FiftyMove));
    }
    if occurrences >= 3 {
        return Some(GameResult::draw(EndReason::Repetition));
    }
    None
}

impl Game for State {
    type Action = Action;
    type Observation = Observation;

    fn variant(&self) -> Variant {
        Variant::Intrigue
    }

    fn to_act(&self) -> Vec<Color> {
        if self.result.is_some() {
            return Vec::new();
        }
        match &self.phase {
            Phase::Setup(chosen) => {
                Color::ALL.into_iter().filter(|&c| chosen[c].is_none()).collect()
            }
            Phase::Play(p) => vec![p.turn()],
        }
    }

    fn apply(&self, actor: Color, action: &Action) -> Result<Transition, ActionError> {
        if self.result.is_some() {
            return Err(ActionError::GameOver);
        }
        match (&self.phase, action) {
            (Phase::Setup(chosen), Action::Setup(setup)) => {
                if chosen[actor].is_some() {
                    return Err(ActionError::NotYourTurn(actor));
                }
                let pawn_rank = actor.fold(1, 6);
                if setup.informer.rank() != pawn_rank {
                    return Err(ActionError::Invalid {
                        what: "setup",
                        problem: format!(
                            "the informer must be named by a {actor} pawn's starting square on \
                             rank {}, not {} (R-I1)",
                            pawn_rank + 1,
                            setup.informer
                        ),
                    });
                }
                Ok(self.setup(actor, *setup, chosen))
            }
            (Phase::Setup(_), Action::Move(_)) => {
                Err(ActionError::WrongPhase("a move before both sides have set up"))
            }
            (Phase::Play(_), Action::Setup(_)) => {
                Err(ActionError::WrongPhase("a setup after play has begun"))
            }
            (Phase::Play(p), Action::Move(m)) => {
                if actor != p.turn() {
                    return Err(ActionError::NotYourTurn(actor));
                }
                self.play(p, *m)
            }
        }
    }

    fn result(&self) -> Option<GameResult> {
        self.result
    }
}

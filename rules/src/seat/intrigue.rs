//! An Intrigue seat: its own true setup, the opponent's public queen choice, every public move
//! and every answer about a captured pawn (R-I2), and the opponent's setup once opened.
//!
//! To know its legal moves and compute the reports of moves it needs a whole game, so it plays
//! one under a hypothesis about the opponent's secrets that agrees with every answer so far:
//! the informer is a pawn the opponent never said "not the informer" about; the hiding square
//! does not matter until the king appears, which comes with the opening. Legality of its own
//! moves and every public effect before an appearance do not depend on the opponent's secrets.
//! The hypothesis is never shown: the board string is the view of R-I6, with the opponent's
//! secrets as `?`.

use crate::intrigue::{Action, Inspection, MoveReport, Observation, Setup, State};
use crate::{AnyAction, Color, Game as _, GameResult, Move, Square};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What an Intrigue seat knows beyond its board.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct IntrigueKnowledge {
    /// Its own secret setup (R-I1), once chosen.
    pub setup: Option<Setup>,
    /// The opponent's public choice: its queen on the king's square (R-I1).
    pub opponent_queen_on_king_square: Option<bool>,
    /// The answers about captured pawns so far, both sides' (R-I2).
    pub inspections: Vec<Inspection>,
    /// The opponent's setup, once opened.
    pub opponent_setup: Option<Setup>,
    /// Where its own informer pawn stands now; `None` before the setup, once it was taken or
    /// once it promoted (R-I2).
    #[serde(default)]
    pub informer_square: Option<Square>,
    /// Every move played, both sides', in order from White's first (all public in Intrigue).
    #[serde(default)]
    pub moves: Vec<Move>,
    /// The sides whose visible kings the last move left attacked (R-I4 can make it both).
    #[serde(default)]
    pub check: Vec<Color>,
}

#[derive(Clone, Debug)]
pub(crate) struct IntrigueSeat {
    me: Color,
    own: Option<Setup>,
    opponent_queen: Option<bool>,
    opponent_truth: Option<Setup>,
    /// Every move played, by side.
    moves: Vec<(Color, Move)>,
    /// The opponent's answers, by move index.
    answers: BTreeMap<usize, Inspection>,
    /// The game under the hypothesis, while one agrees with everything known.
    game: Option<State>,
    /// The report of the last move in the model (its own answers come from it).
    last: Option<MoveReport>,
    /// The public answers, in order.
    inspections: Vec<Inspection>,
}

/// A replay of the known moves under one hypothesis about the opponent's secrets.
struct Model {
    game: State,
    last: Option<MoveReport>,
    /// Per move: the model's inspection of an opponent's pawn, if the move took one.
    theirs: Vec<Option<Inspection>>,
}

impl IntrigueSeat {
    pub(crate) fn new(me: Color) -> IntrigueSeat {
        IntrigueSeat {
            me,
            own: None,
            opponent_queen: None,
            opponent_truth: None,
            moves: Vec::new(),
            answers: BTreeMap::new(),
            game: None,
            last: None,
            inspections: Vec::new(),
        }
    }

    pub(crate) fn set_up(&mut self, setup: Setup) {
        self.own = Some(setup);
        self.rebuild();
    }

    /// The opponent's truth once opened, else every setup it may have chosen as far as the
    /// model can tell: each of its eight pawns as the informer, its king on the square where
    /// it appeared if an answer said so (else a square that matters only once it appears,
    /// which comes with that answer).
    fn hypotheses(&self) -> Vec<Setup> {
        if let Some(t) = self.opponent_truth {
            return vec![t];
        }
        let Some(queen_on_king_square) = self.opponent_queen else { return Vec::new() };
        let them = !self.me;
        let appeared = self
            .answers
            .values()
            .filter(|i| i.owner == them)
            .find_map(|i| i.appeared)
            .map(|a| a.square);
        let king =
            appeared.unwrap_or_else(|| Square::new(0, them.fold(2, 5)).expect("on the board"));
        (0..8)
            .map(|f| Setup {
                king,
                informer: Square::new(f, them.fold(1, 6)).expect("on the board"),
                queen_on_king_square,
            })
            .collect()
    }

    /// Plays every known move under `hyp`; `None` when the rules refuse one.
    fn simulate(&self, own: Setup, hyp: Setup) -> Option<Model> {
        let mut g = State::new();
        for c in Color::ALL {
            let setup = if c == self.me { own } else { hyp };
            // A setup the rules refuse (a cheater's, opened) leaves no model to play on.
            g = g.apply(c, &Action::Setup(setup)).ok()?.state;
        }
        let mut last = None;
        let mut theirs = Vec::with_capacity(self.moves.len());
        for (actor, m) in &self.moves {
            let t = g.apply(*actor, &Action::Move(*m)).ok()?;
            let report = match t.told.white {
                Some(Observation::Move(r)) => Some(r),
                _ => None,
            };
            theirs.push(report.as_ref().and_then(|r| r.inspection).filter(|i| i.owner != self.me));
            last = report;
            g = t.state;
        }
        Some(Model { game: g, last, theirs })
    }

    /// Replays the game under the first hypothesis that agrees with every answer so far. An
    /// opponent's pawn taken whose answer has not come yet is taken as "not the informer"
    /// where a hypothesis allows it: the seat never draws a king that nobody said appeared.
    fn rebuild(&mut self) {
        self.game = None;
        self.last = None;
        let Some(own) = self.own else { return };
        let models: Vec<Model> =
            self.hypotheses().into_iter().filter_map(|h| self.simulate(own, h)).collect();
        let agrees = |m: &Model, pending_silent: bool| {
            m.theirs.iter().enumerate().all(|(i, model)| match (model, self.answers.get(&i)) {
                (Some(model), Some(actual)) => model.informer == actual.informer,
                (Some(model), None) => !pending_silent || !model.informer,
                (None, _) => true,
            })
        };
        let chosen = models
            .iter()
            .position(|m| agrees(m, true))
            .or_else(|| models.iter().position(|m| agrees(m, false)));
        if let Some(i) = chosen {
            let m = models.into_iter().nth(i).expect("found above");
            self.game = Some(m.game);
            self.last = m.last;
        }
    }

    /// An owner's public statement: the opponent's setup report (its queen choice), or its
    /// answer about the pawn the last move took.
    pub(crate) fn told(&mut self, observation: &Observation) {
        match observation {
            Observation::Setup(r) if r.side != self.me => {
                self.opponent_queen = Some(r.queen_on_king_square);
                self.rebuild();
            }
            Observation::Move(r) => {
                if let Some(i) = r.inspection {
                    if i.owner != self.me {
                        self.inspections.push(i);
                    }
                    if let Some(at) = self.moves.len().checked_sub(1) {
                        self.answers.insert(at, i);
                    }
                    self.rebuild();
                }
            }
            Observation::Setup(_) => {}
        }
    }

    /// A public move: applied to the model. The report is the model's (exact for its own
    /// pawns: the answer about them is its own).
    pub(crate) fn played(
        &mut self,
        actor: Color,
        m: Move,
    ) -> Result<Observation, crate::ActionError> {
        self.moves.push((actor, m));
        let game =
            self.game.as_ref().ok_or(crate::ActionError::WrongPhase("no model to play on"))?;
        match game.apply(actor, &Action::Move(m)) {
            Ok(t) => {
                let report = match t.told.white {
                    Some(Observation::Move(r)) => r,
                    _ => return Err(crate::ActionError::WrongPhase("a move told as no move")),
                };
                if let Some(i) = report.inspection.filter(|i| i.owner == self.me) {
                    self.inspections.push(i);
                }
                let guessed = report.inspection.is_some_and(|i| i.owner != self.me && i.informer)
                    && self.opponent_truth.is_none();
                self.last = Some(report.clone());
                self.game = Some(t.state);
                if guessed {
                    // The model guessed that this pawn was the informer: until its owner says
                    // so, play on a hypothesis where it was not.
                    self.rebuild();
                    return match &self.last {
                        Some(r) if self.game.is_some() => Ok(Observation::Move(r.clone())),
                        _ => Err(crate::ActionError::WrongPhase("no model to play on")),
                    };
                }
                Ok(Observation::Move(report))
            }
            Err(e) => {
                self.game = None;
                Err(e)
            }
        }
    }

    /// The opponent opened its setup.
    pub(crate) fn revealed(&mut self, setup: Setup) {
        self.opponent_truth = Some(setup);
        self.rebuild();
    }

    pub(crate) fn last_report(&self) -> Option<&MoveReport> {
        self.last.as_ref()
    }

    /// The side to move once play has begun (the setups are the machine's business).
    pub(crate) fn to_act(&self) -> Vec<Color> {
        self.game.as_ref().map_or_else(Vec::new, State::to_act)
    }

    pub(crate) fn legal(&self) -> Vec<AnyAction> {
        let Some(p) = self.game.as_ref().and_then(State::position) else { return Vec::new() };
        if self.game.as_ref().is_some_and(|g| g.result().is_some()) {
            return Vec::new();
        }
        p.legal_moves().into_iter().map(|m| AnyAction::Intrigue(Action::Move(m))).collect()
    }

    pub(crate) fn result(&self) -> Option<GameResult> {
        self.game.as_ref().and_then(State::result)
    }

    /// The view of R-I6 (the opponent's secrets as `?`), once play has begun; before, `-`.
    pub(crate) fn board(&self) -> String {
        self.game.as_ref().and_then(|g| g.view(self.me)).map_or_else(|| "-".to_owned(), |v| v.fen)
    }

    pub(crate) fn knowledge(&self) -> IntrigueKnowledge {
        IntrigueKnowledge {
            setup: self.own,
            opponent_queen_on_king_square: self.opponent_queen,
            inspections: self.inspections.clone(),
            opponent_setup: self.opponent_truth,
            informer_square: self
                .game
                .as_ref()
                .and_then(State::position)
                .and_then(|p| p.informer(self.me)),
            moves: self.moves.iter().map(|(_, m)| *m).collect(),
            check: self.last.as_ref().map(|r| r.check.clone()).unwrap_or_default(),
        }
    }
}

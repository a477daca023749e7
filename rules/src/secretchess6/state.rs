//! The full 6x6 Secret Chess game as the umpire runs it: secret setups, turns with automatic
//! skips, Life Freeze, scores, the end and the tie-break; and what each side is told.

use super::position::{MAX_FALSE_SQUARES, Position, TurnMove, territory};
use super::told::{Action, Event, Formation, Observation, OwnPiece, TieBreakReport};
use crate::{ActionError, Bitboard, ByColor, Color, EndReason, Game, GameResult, Role, Variant};
use serde::{Deserialize, Serialize};

/// Match options (R-G7, R-G9). All off by default.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "SixOptions"))]
#[serde(default, deny_unknown_fields)]
pub struct Options {
    /// Life Freeze copies per side (R-G9; the seed's match had two).
    pub life_freezes: ByColor<u8>,
    /// Which sides hold the False Square item: one extra false square (R-G9).
    pub false_square: ByColor<bool>,
    /// `hidden-scores`: scores are told only at the end (R-G7).
    pub hidden_scores: bool,
}

/// The most Life Freeze copies a side may hold: a limit on what comes from outside.
pub const MAX_LIFE_FREEZES: u8 = 8;

/// A side's validated setup.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Setup {
    formation: Formation,
    false_squares: Bitboard,
}

/// A side's validated tie-break submission.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Guess {
    formation: Formation,
    moves: Vec<TurnMove>,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Phase {
    Setup,
    Play,
    /// The side just moved and has Life Freeze copies: it freezes a piece or ends its turn.
    AfterMove(Color),
    TieBreak,
    Over,
}

/// The full state of a 6x6 Secret Chess game (umpire's view).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    options: Options,
    phase: Phase,
    setups: ByColor<Option<Setup>>,
    position: Option<Position>,
    history: Vec<(Color, TurnMove)>,
    freezes_left: ByColor<u8>,
    guesses: ByColor<Option<Guess>>,
    result: Option<GameResult>,
}

fn invalid(what: &'static str, problem: impl Into<String>) -> ActionError {
    ActionError::Invalid { what, problem: problem.into() }
}

impl Default for State {
    fn default() -> State {
        State::new(Options::default())
    }
}

impl State {
    /// A new game waiting for both secret setups.
    #[must_use]
    pub fn new(options: Options) -> State {
        let freezes_left = options.life_freezes.map(|n| n.min(MAX_LIFE_FREEZES));
        State {
            options,
            phase: Phase::Setup,
            setups: ByColor::default(),
            position: None,
            history: Vec::new(),
            freezes_left,
            guesses: ByColor::default(),
            result: None,
        }
    }

    /// The options.
    #[must_use]
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// The full position, once play has started.
    #[must_use]
    pub fn position(&self) -> Option<&Position> {
        self.position.as_ref()
    }

    /// Every turn played so far, in order: who, and the move or pass.
    #[must_use]
    pub fn history(&self) -> &[(Color, TurnMove)] {
        &self.history
    }

    /// Life Freeze copies `color` has left.
    #[must_use]
    pub fn freezes_left(&self, color: Color) -> u8 {
        self.freezes_left[color]
    }

    /// Every action the rules accept now from the side(s) to act, apart from free-form
    /// setups and tie-break guesses: moves in play, freezes and end-turn after a move.
    #[must_use]
    pub fn legal_actions(&self) -> Vec<(Color, Action)> {
        let Some(pos) = &self.position else { return Vec::new() };
        match self.phase {
            Phase::Play => pos
                .legal_moves()
                .into_iter()
                .filter(|m| *m != TurnMove::Pass)
                .map(|mv| (pos.side(), Action::Move { mv }))
                .collect(),
            Phase::AfterMove(c) => {
                let mut v = vec![(c, Action::EndTurn)];
                for p in pos.pieces_of(c) {
                    if p.role != Role::King {
                        v.push((c, Action::LifeFreeze { piece: p.square }));
                    }
                }
                v
            }
            _ => Vec::new(),
        }
    }

    fn setup_from(
        &self,
        actor: Color,
        formation: Formation,
        false_squares: Bitboard,
    ) -> Result<Setup, ActionError> {
        let max = if self.options.false_square[actor] { MAX_FALSE_SQUARES } else { 2 };
        let given = false_squares.count() as usize;
        if given > max {
            return Err(invalid(
                "false squares",
                format!("{given} given, at most {max} (R-G1, R-G9)"),
            ));
        }
        if let Some(sq) = (false_squares & !territory(actor.other())).first() {
            return Err(invalid(
                "false squares",
                format!("{sq} is not in the enemy territory (R-G1)"),
            ));
        }
        Ok(Setup { formation, false_squares })
    }

    /// Runs turns from the start of the current side's turn (its lifespan reduction done)
    /// until a side must choose a move, or the game ends. Skipped turns (R-G2, the seed's
    /// step 2) are played here: the side is shown its board, then both sides are scored.
    fn run_turns(&mut self, told: &mut ByColor<Vec<Event>>) {
        loop {
            let pos = self.position.as_ref().expect("play has started");
            if pos.only_kings() {
                // R-G8: both sides are reduced to their kings (perhaps by this turn's lifespan
                // reduction, in which case the skipped turn would score nothing).
                self.finish(told);
                return;
            }
            let side = pos.side();
            told[side].push(self.board_event(side, true));
            let Some(reason) = pos.pass_reason() else {
                self.phase = Phase::Play;
                return;
            };
            // A composed deadlock (both sides blocked, nothing left to age) would pass for ever.
            // It cannot arise from a real setup, where unmoved pieces stand on the first rank
            // and can always move once the moved ones have died; end it by score all the same.
            if pos.is_dead() {
                self.finish(told);
                return;
            }
            told[side].push(Event::Passed { reason });
            self.history.push((side, TurnMove::Pass));
            let next = pos.play(TurnMove::Pass);
            self.position = Some(next);
            self.push_scores(told);
        }
    }

    fn board_event(&self, side: Color, your_turn: bool) -> Event {
        let pos = self.position.as_ref().expect("play has started");
        Event::Board {
            turn: pos.turn(),
            your_turn,
            pieces: pos
                .pieces_of(side)
                .into_iter()
                .map(|p| OwnPiece {
                    square: p.square,
                    role: p.role,
                    lifespan: p.lifespan,
                    powered: p.powered,
                    frozen: p.frozen,
                })
                .collect(),
            red: pos.red_squares(side),
        }
    }

    /// R-G7: the scores after the turn just played, to both sides unless `hidden-scores`.
    fn push_scores(&self, told: &mut ByColor<Vec<Event>>) {
        if self.options.hidden_scores {
            return;
        }
        let pos = self.position.as_ref().expect("play has started");
        let ev = Event::Scores { turn: pos.turn() - 1, scores: pos.scores() };
        for c in Color::ALL {
            told[c].push(ev.clone());
        }
    }

    fn turns_of(&self, color: Color) -> Vec<TurnMove> {
        self.history.iter().filter(|(c, _)| *c == color).map(|(_, m)| *m).collect()
    }

    /// R-G8: the higher score wins; a tie goes to the tie-break.
    fn finish(&mut self, told: &mut ByColor<Vec<Event>>) {
        let scores = self.position.as_ref().expect("play has started").scores();
        let winner = match scores.white.cmp(&scores.black) {
            std::cmp::Ordering::Greater => Some(Color::White),
            std::cmp::Ordering::Less => Some(Color::Black),
            std::cmp::Ordering::Equal => None,
        };
        if let Some(w) = winner {
            self.end(GameResult::win(w, EndReason::Score), None, told);
        } else {
            self.phase = Phase::TieBreak;
            for c in Color::ALL {
                let opponent_turns = self.turns_of(c.other()).len() as u32;
                told[c].push(Event::TieBreakNeeded { scores, opponent_turns });
            }
        }
    }

    fn end(
        &mut self,
        result: GameResult,
        tie_break: Option<TieBreakReport>,
        told: &mut ByColor<Vec<Event>>,
    ) {
        self.phase = Phase::Over;
        self.result = Some(result);
        let scores = self.position.as_ref().expect("play has started").scores();
        for c in Color::ALL {
            told[c].push(Event::End { result, scores, tie_break: tie_break.clone() });
        }
    }

    /// R-G8 tie-break, both submissions in: fewer formation errors wins; then, round by
    /// round (round k = each side's k-th turn), the first round where exactly one side
    /// guessed the opponent's turn wrong eliminates it; otherwise a draw.
    fn judge(&mut self, told: &mut ByColor<Vec<Event>>) {
        let guesses = self.guesses.clone().map(|g| g.expect("both submitted"));
        let setups = self.setups.map(|s| s.expect("play has started"));
        let errors = ByColor::new_with(|c| {
            let truth = setups[c.other()].formation;
            let guess = guesses[c].formation.files();
            guess.iter().zip(truth.files().iter()).filter(|(g, t)| g != t).count() as u32
        });
        let report = |deciding_round| TieBreakReport { formation_errors: errors, deciding_round };
        if errors.white != errors.black {
            let w = if errors.white < errors.black { Color::White } else { Color::Black };
            self.end(GameResult::win(w, EndReason::TieBreak), Some(report(None)), told);
            return;
        }
        let truth = ByColor::new_with(|c| self.turns_of(c));
        let rounds = truth.white.len().max(truth.black.len());
        // A side is wrong in round k if the opponent had a k-th turn and the guess for it is
        // missing or differs; a side whose opponent had no k-th turn cannot be wrong there.
        let wrong = |c: Color, k: usize| {
            let actual = &truth[c.other()];
            k < actual.len() && guesses[c].moves.get(k) != Some(&actual[k])
        };
        for k in 0..rounds {
            let (w, b) = (wrong(Color::White, k), wrong(Color::Black, k));
            if w != b {
                let winner = if w { Color::Black } else { Color::White };
                let round = Some(k as u32 + 1);
                self.end(GameResult::win(winner, EndReason::TieBreak), Some(report(round)), told);
                return;
            }
        }
        self.end(GameResult::draw(EndReason::TieBreak), Some(report(None)), told);
    }
}

impl Game for State {
    type Action = Action;
    type Observation = Observation;

    fn variant(&self) -> Variant {
        Variant::SecretChess6
    }

    fn to_act(&self) -> Vec<Color> {
        match self.phase {
            Phase::Setup => Color::ALL.into_iter().filter(|c| self.setups[*c].is_none()).collect(),
            Phase::Play => self.position.as_ref().map(|p| vec![p.side()]).unwrap_or_default(),
            Phase::AfterMove(c) => vec![c],
            Phase::TieBreak => {
                Color::ALL.into_iter().filter(|c| self.guesses[*c].is_none()).collect()
            }
            Phase::Over => Vec::new(),
        }
    }

    fn apply(
        &self,
        actor: Color,
        action: &Action,
    ) -> Result<crate::Transition<State, Observation>, ActionError> {
        if self.phase == Phase::Over {
            return Err(ActionError::GameOver);
        }
        let phase_name = match self.phase {
            Phase::Setup => "setup",
            Phase::Play => "move",
            Phase::AfterMove(_) => "life-freeze or end-turn",
            Phase::TieBreak => "tie-break",
            Phase::Over => "none",
        };
        let expected = matches!(
            (self.phase, action),
            (Phase::Setup, Action::Setup { .. })
                | (Phase::Play, Action::Move { .. })
                | (Phase::AfterMove(_), Action::LifeFreeze { .. } | Action::EndTurn)
                | (Phase::TieBreak, Action::TieBreak { .. })
        );
        if !expected {
            return Err(ActionError::WrongPhase(phase_name));
        }
        if !self.to_act().contains(&actor) {
            return Err(ActionError::NotYourTurn(actor));
        }
        let mut next = self.clone();
        let mut told: ByColor<Vec<Event>> = ByColor::default();
        match action {
            Action::Setup { formation, false_squares } => {
                let setup = self.setup_from(actor, *formation, *false_squares)?;
                next.setups[actor] = Some(setup);
                told[actor].push(Event::SetupAccepted);
                told[actor.other()].push(Event::OpponentReady);
                if let ByColor { white: Some(w), black: Some(b) } = next.setups {
                    let formations =
                        ByColor { white: w.formation.files(), black: b.formation.files() };
                    let falses = ByColor { white: w.false_squares, black: b.false_squares };
                    next.position = Some(Position::from_setup(formations, falses));
                    // The seed: once both have chosen, each is shown its board; White
                    // (the first player) then begins the first turn.
                    told.black.push(next.board_event(Color::Black, false));
                    next.run_turns(&mut told);
                }
            }
            Action::Move { mv } => {
                let m = *mv;
                let pos = self.position.as_ref().expect("play has started");
                if m == TurnMove::Pass || !pos.legal_moves().contains(&m) {
                    return Err(ActionError::IllegalMove(format!(
                        "{mv} (R-G2: own pieces but the king, within one's own territory, onto empty squares; R-G4 for knights)"
                    )));
                }
                let after = pos.play(m);
                next.history.push((actor, m));
                next.position = Some(after);
                told[actor].push(Event::Moved { mv: m });
                next.push_scores(&mut told);
                let over = next.position.as_ref().is_some_and(Position::only_kings);
                if next.freezes_left[actor] > 0 && !over {
                    next.phase = Phase::AfterMove(actor);
                } else {
                    next.run_turns(&mut told);
                }
            }
            Action::LifeFreeze { piece } => {
                let sq = *piece;
                let pos = next.position.as_mut().expect("play has started");
                match pos.board().piece_at(sq) {
                    Some(p) if p.color == actor && p.role != Role::King => {}
                    _ => {
                        return Err(invalid(
                            "life freeze",
                            format!("{sq} holds none of your pieces other than the king (R-G9)"),
                        ));
                    }
                }
                pos.freeze(sq);
                next.freezes_left[actor] -= 1;
                told[actor].push(Event::Frozen { piece: sq });
                next.run_turns(&mut told);
            }
            Action::EndTurn => next.run_turns(&mut told),
            Action::TieBreak { formation, moves } => {
                let opponent_turns = self.turns_of(actor.other()).len();
                if moves.len() > opponent_turns {
                    return Err(invalid(
                        "tie-break moves",
                        format!("{} given, the opponent had {opponent_turns} turns", moves.len()),
                    ));
                }
                let (formation, moves) = (*formation, moves.clone());
                next.guesses[actor] = Some(Guess { formation, moves });
                told[actor.other()].push(Event::OpponentReady);
                if next.guesses.white.is_some() && next.guesses.black.is_some() {
                    next.judge(&mut told);
                }
            }
        }
        let told = told.map(|events| (!events.is_empty()).then_some(Observation { events }));
        Ok(crate::Transition { state: next, told })
    }

    fn result(&self) -> Option<GameResult> {
        self.result
    }
}

//! A 6x6 Secret Chess seat: its own setup, its own men after the last board update (R-G6),
//! its red squares, the scores as told (R-G7), its Life Freezes (R-G9) and what it is asked
//! now. It never learns anything of the enemy territory but what the red squares say, so the
//! board shows that territory as fog.

use super::{Sight, board_field, square_list};
use crate::secretchess6::{
    Action, Event, Formation, MAX_LIFE_FREEZES, Observation, Options, OwnPiece, Position, TurnMove,
    initial_lifespan, territory,
};
use crate::{
    Alphabet, Analysis as _, Bitboard, Board, BoardSize, ByColor, Color, GameResult, Role, Square,
};
use serde::{Deserialize, Serialize};

/// What a 6x6 seat knows beyond its board.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SecretChess6Knowledge {
    /// Its own formation (R-G1), once chosen.
    pub formation: Option<Formation>,
    /// Its own false squares in the enemy territory (R-G1, R-G9).
    pub false_squares: Bitboard,
    /// Its own men after the last board update and its own moves since, with lifespans.
    pub pieces: Vec<OwnPiece>,
    /// Its red squares at the last board update (R-G6).
    pub red: Bitboard,
    /// The turn number of the last board update.
    pub turn: u32,
    /// The scores as last told (`None` before any, or with `hidden-scores`).
    pub scores: Option<ByColor<u32>>,
    /// Its Life Freeze copies left (R-G9).
    pub freezes_left: u8,
    /// While the tie-break is asked of it: the number of turns the opponent had (R-G8).
    pub tie_break_turns: Option<u32>,
    /// Whether the opponent has submitted its setup or tie-break (and nothing else about it).
    pub opponent_ready: bool,
}

/// What the seat is asked now.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Ask {
    Idle,
    Move,
    AfterMove,
    TieBreak(u32),
}

#[derive(Clone, Debug)]
pub(crate) struct SixSeat {
    me: Color,
    setup: Option<(Formation, Bitboard)>,
    pieces: Vec<OwnPiece>,
    red: Bitboard,
    turn: u32,
    scores: Option<ByColor<u32>>,
    freezes_left: u8,
    ask: Ask,
    opponent_ready: bool,
    /// A board update has come: play has begun.
    playing: bool,
    result: Option<GameResult>,
}

impl SixSeat {
    pub(crate) fn new(me: Color, options: Options) -> SixSeat {
        SixSeat {
            me,
            setup: None,
            pieces: Vec::new(),
            red: Bitboard::EMPTY,
            turn: 0,
            scores: None,
            freezes_left: options.life_freezes[me].min(MAX_LIFE_FREEZES),
            ask: Ask::Idle,
            opponent_ready: false,
            playing: false,
            result: None,
        }
    }

    /// Its own action went to the umpire: nothing is asked until the umpire answers.
    pub(crate) fn acted(&mut self, action: &Action) {
        if let Action::Setup { formation, false_squares } = action {
            self.setup = Some((*formation, *false_squares));
        }
        if matches!(action, Action::Setup { .. } | Action::TieBreak { .. }) {
            self.opponent_ready = false;
        }
        self.ask = Ask::Idle;
    }

    pub(crate) fn told(&mut self, observation: &Observation) {
        for event in &observation.events {
            match event {
                Event::Board { turn, your_turn, pieces, red } => {
                    self.playing = true;
                    self.turn = *turn;
                    self.pieces.clone_from(pieces);
                    self.red = *red;
                    if *your_turn {
                        self.ask = Ask::Move;
                    }
                }
                Event::Moved { mv } => {
                    if let TurnMove::Move { from, to, power } = *mv {
                        for p in &mut self.pieces {
                            if p.square == from {
                                p.square = to;
                                // R-G3: it ages from now on; R-G4: powering caps it at 3.
                                let life = p.lifespan.unwrap_or(initial_lifespan(p.role));
                                p.lifespan = Some(if power { life.min(3) } else { life });
                                p.powered |= power;
                            }
                        }
                    }
                    self.ask = if self.freezes_left > 0 { Ask::AfterMove } else { Ask::Idle };
                }
                Event::Frozen { piece } => {
                    self.freezes_left = self.freezes_left.saturating_sub(1);
                    for p in &mut self.pieces {
                        p.frozen |= p.square == *piece;
                    }
                }
                Event::Scores { turn: _, scores } => self.scores = Some(*scores),
                Event::OpponentReady => self.opponent_ready = true,
                Event::TieBreakNeeded { scores, opponent_turns } => {
                    self.only_king();
                    self.scores = Some(*scores);
                    self.opponent_ready = false;
                    self.ask = Ask::TieBreak(*opponent_turns);
                }
                Event::End { result, scores, .. } => {
                    self.only_king();
                    self.scores = Some(*scores);
                    self.ask = Ask::Idle;
                    self.result = Some(*result);
                }
                // The umpire played this side's turn as a pass (R-G2): nothing is asked of it.
                Event::Passed { .. } => self.ask = Ask::Idle,
                Event::SetupAccepted => {}
            }
        }
    }

    /// R-G8: the game ends (or goes to the tie-break) once both sides have only their kings;
    /// its last men may have died at the start of a turn it was never shown.
    fn only_king(&mut self) {
        self.pieces.retain(|p| p.role == Role::King);
    }

    pub(crate) fn tie_break_turns(&self) -> Option<u32> {
        match self.ask {
            Ask::TieBreak(n) => Some(n),
            _ => None,
        }
    }

    pub(crate) fn to_act(&self) -> Vec<Color> {
        match self.ask {
            _ if self.result.is_some() => Vec::new(),
            Ask::Move | Ask::AfterMove => vec![self.me],
            Ask::TieBreak(_) if self.opponent_ready => vec![self.me],
            Ask::TieBreak(_) => Color::ALL.to_vec(),
            Ask::Idle if self.playing => vec![!self.me],
            Ask::Idle => Vec::new(),
        }
    }

    /// Moves (R-G2, R-G4) while a move is asked; end-turn and each Life Freeze after one.
    pub(crate) fn legal(&self) -> Vec<Action> {
        match self.ask {
            Ask::Move => legal_moves(self.me, &self.pieces)
                .into_iter()
                .map(|mv| Action::Move { mv })
                .collect(),
            Ask::AfterMove => {
                let mut v = vec![Action::EndTurn];
                for p in &self.pieces {
                    if p.role != Role::King {
                        v.push(Action::LifeFreeze { piece: p.square });
                    }
                }
                v
            }
            Ask::TieBreak(_) | Ask::Idle => Vec::new(),
        }
    }

    pub(crate) fn result(&self) -> Option<GameResult> {
        self.result
    }

    /// Its own men: after the last board update, or its formation before play.
    fn own(&self) -> Vec<(Square, Role)> {
        if self.playing {
            return self.pieces.iter().map(|p| (p.square, p.role)).collect();
        }
        let Some((formation, _)) = self.setup else { return Vec::new() };
        let rank = self.me.fold(0, 5);
        formation
            .files()
            .iter()
            .enumerate()
            .filter_map(|(file, r)| Some((Square::new(file as u8, rank)?, (*r)?)))
            .collect()
    }

    /// `board side moved false-squares frozen scores turn` as the seat sees it.
    pub(crate) fn board(&self) -> String {
        let own = self.own();
        let enemy = territory(!self.me);
        let board = board_field(BoardSize::Six, Alphabet::SECRET_CHESS, |sq| {
            if let Some((_, role)) = own.iter().find(|(s, _)| *s == sq) {
                Sight::Man(role.of(self.me))
            } else if enemy.contains(sq) {
                Sight::Fog
            } else {
                Sight::Empty
            }
        });
        let side = self.to_act().first().copied().unwrap_or(self.me);
        let moved: Vec<String> = self
            .pieces
            .iter()
            .filter_map(|p| {
                let l = p.lifespan?;
                Some(format!("{}={l}{}", p.square, if p.powered { "+" } else { "" }))
            })
            .collect();
        let moved = if moved.is_empty() { "-".to_owned() } else { moved.join(",") };
        let falses = self.setup.map_or(Bitboard::EMPTY, |(_, f)| f);
        let frozen: Bitboard = self.pieces.iter().filter(|p| p.frozen).map(|p| p.square).collect();
        let scores =
            self.scores.map_or_else(|| "?".to_owned(), |s| format!("{}-{}", s.white, s.black));
        format!(
            "{board} {} {moved} {} {} {scores} {}",
            side.char(),
            square_list(falses),
            square_list(frozen),
            self.turn.max(1)
        )
    }

    pub(crate) fn knowledge(&self) -> SecretChess6Knowledge {
        SecretChess6Knowledge {
            formation: self.setup.map(|(f, _)| f),
            false_squares: self.setup.map_or(Bitboard::EMPTY, |(_, f)| f),
            pieces: self.pieces.clone(),
            red: self.red,
            turn: self.turn,
            scores: self.scores,
            freezes_left: self.freezes_left,
            tie_break_turns: self.tie_break_turns(),
            opponent_ready: self.opponent_ready,
        }
    }
}

/// A side's legal moves from its own men (R-G2, R-G4): its pieces on a board with only the
/// enemy king added (enemy men never enter one's territory, so they cannot block or be
/// blocked), run through the rules' own move generator. Passes are the umpire's.
fn legal_moves(side: Color, pieces: &[OwnPiece]) -> Vec<TurnMove> {
    let mut board = Board::empty(BoardSize::Six);
    let mut moved = Vec::new();
    for p in pieces {
        board.put(p.square, p.role.of(side));
        if let Some(l) = p.lifespan {
            moved.push(format!("{}={l}{}", p.square, if p.powered { "+" } else { "" }));
        }
    }
    let enemy_king = Square::new(0, side.fold(5, 0)).expect("a corner");
    board.put(enemy_king, Role::King.of(!side));
    let moved = if moved.is_empty() { "-".to_owned() } else { moved.join(",") };
    let fen = format!("{} {} {moved}", board.board_fen(Alphabet::SECRET_CHESS), side.char());
    match Position::from_fen(&fen) {
        Ok(pos) => pos.legal_moves().into_iter().filter(|m| *m != TurnMove::Pass).collect(),
        Err(_) => Vec::new(),
    }
}

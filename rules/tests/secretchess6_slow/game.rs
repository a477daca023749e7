//! An independent 6x6 Secret Chess game for tests, on top of the slow model of `super`: the
//! game from the two setups with its own threats (R-G5), red squares (R-G6), scoring (R-G7),
//! aging and removal (R-G3), power-ups (R-G4), umpire passes, Life Freeze and hidden scores
//! (R-G9) and R-G8's end by score, written from RULES.md and the seed (`shared/seeds/001_…`),
//! saying what each side is told in the event shapes of docs/referee/secretchess6.md. Used by
//! `secretchess6_obsperft.rs` and by `cli/tests/record.rs` (the 6x6 PGN).

use super as slow;
use rules::secretchess6::{
    Action, Event, Formation, Observation, Options, OwnPiece, PassReason, TurnMove,
};
use rules::{Alphabet, Bitboard, ByColor, Color, EndReason, GameResult, Square};

/// The canonical visiting order: side, then the action's JSON.
pub fn sorted(mut actions: Vec<(Color, Action)>) -> Vec<(Color, Action)> {
    actions.sort_by_cached_key(|(c, a)| (c.index(), serde_json::to_string(a).expect("JSON")));
    actions
}

/// Whether rank `r` (0-based) is in `white`'s territory (R-G1: its three home ranks).
pub fn own_rank(white: bool, r: i32) -> bool {
    if white { r <= 2 } else { r >= 3 }
}

pub fn square(f: i32, r: i32) -> Square {
    Square::new(f as u8, r as u8).expect("on the 6x6 board")
}

pub fn inside(f: i32, r: i32) -> bool {
    (0..6).contains(&f) && (0..6).contains(&r)
}

/// The phase of play the oracle is in.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// The side to move moves (or the umpire passes for it).
    Play,
    /// R-G9: the side that just moved, with Life Freeze copies left, freezes or ends its turn.
    AfterMove,
    /// R-G8: both sides have only kings; the higher score won.
    Over(GameResult),
}

/// A 6x6 game as the oracle holds it.
#[derive(Clone)]
pub struct Game6 {
    /// The men and the side whose turn it is.
    pub pos: slow::Pos,
    /// `[white, black]`: the false squares each side placed (in the enemy territory).
    pub falses: [Vec<(i32, i32)>; 2],
    pub scores: [u32; 2],
    /// The current turn, both sides counted, from 1.
    pub turn: u32,
    pub freezes: [u8; 2],
    pub hidden_scores: bool,
    pub phase: Phase,
}

pub type Told = [Vec<Event>; 2];

pub fn ix(white: bool) -> usize {
    usize::from(!white)
}

impl Game6 {
    /// Both setups in (R-G1): the formations on the first ranks, White to move.
    pub fn new(options: &Options, formations: [&Formation; 2], falses: [Bitboard; 2]) -> Game6 {
        let mut cells = [[None; 6]; 6];
        for (side, rank) in [(0, 0), (1, 5)] {
            for (file, role) in formations[side].files().iter().enumerate() {
                if let Some(role) = role {
                    let c = Alphabet::SECRET_CHESS.char(*role).expect("K Q R B N");
                    let letter = if side == 0 { c.to_ascii_uppercase() } else { c };
                    let life = match c {
                        'q' => 1,
                        'b' => 2,
                        'r' => 3,
                        'n' => 4,
                        _ => 0,
                    };
                    let man =
                        slow::Man { letter, moved: false, life, powered: false, frozen: false };
                    cells[rank][file] = Some(man);
                }
            }
        }
        let list = |b: Bitboard| b.map(|s| (i32::from(s.file()), i32::from(s.rank()))).collect();
        Game6 {
            pos: slow::Pos { cells, white_to_move: true },
            falses: [list(falses[0]), list(falses[1])],
            scores: [0, 0],
            turn: 1,
            freezes: [options.life_freezes.white, options.life_freezes.black],
            hidden_scores: options.hidden_scores,
            phase: Phase::Play,
        }
    }

    pub fn man(&self, f: i32, r: i32) -> Option<slow::Man> {
        self.pos.cells[r as usize][f as usize]
    }

    /// R-G5: the squares of the enemy territory the man on (f, r) threatens: where it could
    /// move in chess, sliders stopping at (and including) the first occupied square of either
    /// side, knights leaping ((3,1) once powered, R-G4). The king never moves, so it threatens
    /// nothing.
    pub fn threats(&self, f: i32, r: i32) -> Vec<(i32, i32)> {
        let m = self.man(f, r).expect("a man");
        let white = m.letter.is_ascii_uppercase();
        let mut out = Vec::new();
        let mut ray = |dirs: &[(i32, i32)]| {
            for &(df, dr) in dirs {
                let (mut g, mut s) = (f + df, r + dr);
                while inside(g, s) {
                    if !own_rank(white, s) {
                        out.push((g, s));
                    }
                    if self.man(g, s).is_some() {
                        break;
                    }
                    g += df;
                    s += dr;
                }
            }
        };
        let orth = [(1, 0), (-1, 0), (0, 1), (0, -1)];
        let diag = [(1, 1), (1, -1), (-1, 1), (-1, -1)];
        match m.letter.to_ascii_lowercase() {
            'r' => ray(&orth),
            'b' => ray(&diag),
            'q' => {
                ray(&orth);
                ray(&diag);
            }
            'n' => {
                let (a, b) = if m.powered { (3, 1) } else { (2, 1) };
                for (x, y) in [(a, b), (b, a)] {
                    for (sx, sy) in [(1, 1), (1, -1), (-1, 1), (-1, -1)] {
                        let (g, s) = (f + sx * x, r + sy * y);
                        if inside(g, s) && !own_rank(white, s) {
                            out.push((g, s));
                        }
                    }
                }
            }
            _ => {}
        }
        out
    }

    /// The men of `white` as (file, rank, man), in square order.
    pub fn men(&self, white: bool) -> Vec<(i32, i32, slow::Man)> {
        let mut v = Vec::new();
        for r in 0..6 {
            for f in 0..6 {
                if let Some(m) = self.man(f, r).filter(|m| m.letter.is_ascii_uppercase() == white) {
                    v.push((f, r, m));
                }
            }
        }
        v
    }

    pub fn only_king(&self, white: bool) -> bool {
        self.men(white).iter().all(|(_, _, m)| m.letter.eq_ignore_ascii_case(&'k'))
    }

    /// R-G6: the red squares of `white`'s territory: those an enemy man threatens, and the
    /// enemy's false squares, in one set.
    pub fn red(&self, white: bool) -> Bitboard {
        let mut red: Vec<(i32, i32)> = self.falses[ix(!white)].clone();
        for (f, r, _) in self.men(!white) {
            red.extend(self.threats(f, r));
        }
        red.into_iter().map(|(f, r)| square(f, r)).collect()
    }

    /// R-G7: one point per (own man, threatened enemy man) pair, two for the king; false
    /// squares never score.
    pub fn score_of(&self, white: bool) -> u32 {
        let mut n = 0;
        for (f, r, _) in self.men(white) {
            for (g, s) in self.threats(f, r) {
                if let Some(x) = self.man(g, s) {
                    n += if x.letter.eq_ignore_ascii_case(&'k') { 2 } else { 1 };
                }
            }
        }
        n
    }

    /// R-G6's board update for `white`: its men (lifespans once moved) and its red squares.
    pub fn board(&self, white: bool) -> Event {
        let pieces = self
            .men(white)
            .into_iter()
            .map(|(f, r, m)| OwnPiece {
                square: square(f, r),
                role: Alphabet::SECRET_CHESS.role(m.letter.to_ascii_lowercase()).expect("a role"),
                lifespan: m.moved.then_some(m.life),
                powered: m.powered,
                frozen: m.frozen,
            })
            .collect();
        Event::Board {
            turn: self.turn,
            your_turn: self.pos.white_to_move == white,
            pieces,
            red: self.red(white),
        }
    }

    /// Step 4 (R-G7): both sides score; both are told unless `hidden-scores`.
    pub fn score_turn(&mut self, told: &mut Told) {
        self.scores[0] += self.score_of(true);
        self.scores[1] += self.score_of(false);
        if !self.hidden_scores {
            let scores = ByColor { white: self.scores[0], black: self.scores[1] };
            for t in told.iter_mut() {
                t.push(Event::Scores { turn: self.turn, scores });
            }
        }
    }

    /// Steps 1-3 of the side whose turn starts: aging (R-G3; a frozen man skips it once,
    /// R-G9), the board update (R-G6), then either the move is awaited or the umpire passes
    /// (only a king, or no man that can move) and scores, and the next turn starts.
    pub fn start_turn(&mut self, told: &mut Told) {
        let white = self.pos.white_to_move;
        for (f, r, m) in self.men(white) {
            let cell = &mut self.pos.cells[r as usize][f as usize];
            if m.frozen {
                *cell = Some(slow::Man { frozen: false, ..m });
            } else if m.moved {
                *cell = (m.life > 1).then_some(slow::Man { life: m.life - 1, ..m });
            }
        }
        if self.only_king(true) && self.only_king(false) {
            // R-G8: the game ends at once; this turn, which could only score zero, is not
            // played. A tie goes to the tie-break, which this oracle does not model.
            let [w, b] = self.scores;
            assert_ne!(w, b, "a tied end (R-G8 tie-break) is not modelled");
            let winner = if w > b { Color::White } else { Color::Black };
            let result = GameResult::win(winner, EndReason::Score);
            self.phase = Phase::Over(result);
            let scores = ByColor { white: w, black: b };
            for t in told.iter_mut() {
                t.push(Event::End { result, scores, tie_break: None });
            }
            return;
        }
        told[ix(white)].push(self.board(white));
        let reason = if self.only_king(white) {
            Some(PassReason::OnlyKing)
        } else if self.moves().is_empty() {
            Some(PassReason::NoLegalMove)
        } else {
            None
        };
        self.phase = Phase::Play;
        if let Some(reason) = reason {
            told[ix(white)].push(Event::Passed { reason });
            self.score_turn(told);
            self.next_turn(told);
        }
    }

    pub fn next_turn(&mut self, told: &mut Told) {
        self.pos.white_to_move = !self.pos.white_to_move;
        self.turn += 1;
        self.start_turn(told);
    }

    /// The moves of the side to move (R-G2, R-G4), from the slow model.
    pub fn moves(&self) -> Vec<TurnMove> {
        slow::moves(&self.pos)
            .into_iter()
            .filter(|((f, _), _, _)| *f != 9)
            .map(|((ff, fr), (tf, tr), power)| TurnMove::Move {
                from: square(ff as i32, fr as i32),
                to: square(tf as i32, tr as i32),
                power,
            })
            .collect()
    }

    /// The actions the rules accept now, in the walk's canonical order.
    pub fn actions(&self) -> Vec<(Color, Action)> {
        let white = self.pos.white_to_move;
        let side = if white { Color::White } else { Color::Black };
        let v = match self.phase {
            Phase::Play => self.moves().into_iter().map(|mv| (side, Action::Move { mv })).collect(),
            Phase::AfterMove => {
                let mut v = vec![(side, Action::EndTurn)];
                for (f, r, m) in self.men(white) {
                    if !m.letter.eq_ignore_ascii_case(&'k') {
                        v.push((side, Action::LifeFreeze { piece: square(f, r) }));
                    }
                }
                v
            }
            Phase::Over(_) => Vec::new(),
        };
        sorted(v)
    }

    /// Applies an action of the side to move: the new game and what each side is told.
    pub fn apply(&self, action: &Action) -> (Game6, Told) {
        let mut g = self.clone();
        let mut told: Told = [Vec::new(), Vec::new()];
        let white = g.pos.white_to_move;
        match *action {
            Action::Move { mv: TurnMove::Move { from, to, power } } => {
                let (ff, fr) = (from.file() as usize, from.rank() as usize);
                let mut m = g.pos.cells[fr][ff].take().expect("a man to move");
                // R-G3: a man that moved ages from now on; R-G4: powering up caps it at 3.
                m.moved = true;
                if power {
                    m.powered = true;
                    m.life = m.life.min(3);
                }
                g.pos.cells[to.rank() as usize][to.file() as usize] = Some(m);
                told[ix(white)].push(Event::Moved { mv: TurnMove::Move { from, to, power } });
                g.score_turn(&mut told);
                if g.freezes[ix(white)] > 0 {
                    g.phase = Phase::AfterMove;
                } else {
                    g.next_turn(&mut told);
                }
            }
            Action::LifeFreeze { piece } => {
                let cell = &mut g.pos.cells[piece.rank() as usize][piece.file() as usize];
                let m = cell.expect("an own man");
                *cell = Some(slow::Man { frozen: true, ..m });
                g.freezes[ix(white)] -= 1;
                told[ix(white)].push(Event::Frozen { piece });
                g.next_turn(&mut told);
            }
            Action::EndTurn => g.next_turn(&mut told),
            ref other => panic!("not an action of play: {other:?}"),
        }
        (g, told)
    }
}

pub fn observation(events: Vec<Event>) -> Option<Observation> {
    (!events.is_empty()).then_some(Observation { events })
}

//! A SIC seat (R-S10): its own men with their tracking ids, the enemy men that have moved (on
//! their squares, kinds hidden), the kinds captured and lost, its legal moves as told, and the
//! squares where an unmoved enemy man may still stand.
//!
//! Those squares start as the enemy's three home ranks (R-S2) and only shrink: a square its own
//! man enters holds no unmoved enemy man any more (a capture's kind is told), and an enemy man's
//! starting square is empty once it moves away, unless the move may have been a swap (R-S9:
//! its destination may have held an unmoved partner, which then stands on that starting
//! square, still unmoved and so still untold).

use super::{Sight, board_field};
use crate::sic::{
    CheckReport, MoverReport, Observation, OpponentReport, OwnPiece, TrackedPiece, View,
};
use crate::{Alphabet, Bitboard, BoardSize, Color, GameResult, Move, Role, Square};
use serde::{Deserialize, Serialize};

/// What a SIC seat knows beyond its board.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SicKnowledge {
    /// Its own men, in square order.
    pub own: Vec<OwnPiece>,
    /// The enemy men that have moved, in square order, kinds hidden (R-S10).
    pub enemy_moved: Vec<TrackedPiece>,
    /// Squares where an unmoved enemy man may stand.
    pub unknown: Bitboard,
    /// The kinds of enemy men it captured, in order.
    pub captured: Vec<Role>,
    /// The kinds of its own men the enemy captured, in order.
    pub lost: Vec<Role>,
    /// The check report of the enemy's last move (R-S8), or whether its own last move gave
    /// check.
    pub check: Option<CheckReport>,
    /// Whether its own last move left the enemy king or decoy attacked (R-S8).
    pub gave_check: bool,
    /// The move number.
    pub fullmove: u32,
}

#[derive(Clone, Debug)]
pub(crate) struct SicSeat {
    me: Color,
    started: bool,
    to_move: Color,
    own: Vec<OwnPiece>,
    enemy: Vec<TrackedPiece>,
    unknown: Bitboard,
    captured: Vec<Role>,
    lost: Vec<Role>,
    legal: Vec<Move>,
    /// The move sent and not yet answered.
    pending: Option<Move>,
    /// The enemy's last move (for en passant: R-S4).
    last_enemy: Option<(Square, Square)>,
    check: Option<CheckReport>,
    gave_check: bool,
    fullmove: u32,
    result: Option<GameResult>,
}

/// The enemy's three home ranks (R-S2).
fn home(color: Color) -> Bitboard {
    let size = BoardSize::Eight;
    match color {
        Color::White => size.rank_bb(0) | size.rank_bb(1) | size.rank_bb(2),
        Color::Black => size.rank_bb(5) | size.rank_bb(6) | size.rank_bb(7),
    }
}

impl SicSeat {
    pub(crate) fn new(me: Color) -> SicSeat {
        SicSeat {
            me,
            started: false,
            to_move: Color::White,
            own: Vec::new(),
            enemy: Vec::new(),
            unknown: home(!me),
            captured: Vec::new(),
            lost: Vec::new(),
            legal: Vec::new(),
            pending: None,
            last_enemy: None,
            check: None,
            gave_check: false,
            fullmove: 1,
            result: None,
        }
    }

    pub(crate) fn started(&self) -> bool {
        self.started
    }

    /// A view of the game (the start view): everything R-S10 lets it know at once.
    pub(crate) fn start(&mut self, view: &View) {
        self.started = true;
        self.to_move = view.to_move;
        self.own.clone_from(&view.own);
        self.enemy.clone_from(&view.enemy_moved);
        let mut unknown = home(!self.me);
        for p in &self.own {
            unknown.remove(p.square);
        }
        for p in &self.enemy {
            unknown.remove(p.square);
            unknown.remove(p.id);
        }
        self.unknown = unknown;
        self.captured.clone_from(&view.captured);
        self.lost.clone_from(&view.lost);
        self.legal.clone_from(&view.legal);
        self.fullmove = view.fullmove;
        self.result = view.result;
    }

    pub(crate) fn acted(&mut self, m: Move) {
        self.pending = Some(m);
    }

    pub(crate) fn told(&mut self, observation: &Observation) {
        match observation {
            Observation::YouMoved(r) => self.moved(r),
            Observation::OpponentMoved(r) => self.opponent_moved(r),
        }
    }

    /// Its own move was played: it knows the move, so it moves its own men; a capture's kind is
    /// told (R-S10).
    fn moved(&mut self, r: &MoverReport) {
        self.legal.clear();
        self.to_move = !self.me;
        self.gave_check = r.check;
        self.check = None;
        self.result = r.end;
        if self.me == Color::Black {
            self.fullmove += 1;
        }
        let Some(m) = self.pending.take() else { return };
        let Some(i) = self.own.iter().position(|p| p.square == m.from) else { return };
        if let Some(j) = self.own.iter().position(|p| p.square == m.to) {
            // R-S9: a swap; the partner keeps its unmoved flag.
            self.own[j].square = m.from;
        } else if let Some(role) = r.captured {
            self.captured.push(role);
            let pawn = self.own[i].role == Role::Pawn;
            let on_target = self.enemy.iter().any(|p| p.square == m.to);
            // R-S4: a pawn taking diagonally onto the square an enemy double step passed over
            // takes en passant, the pawn beyond it.
            let passed = self.last_enemy.and_then(|(from, to)| {
                let double = from.file() == to.file() && from.rank().abs_diff(to.rank()) == 2;
                let mid = Square::new(from.file(), u8::midpoint(from.rank(), to.rank()));
                mid.filter(|mid| double && *mid == m.to).map(|_| to)
            });
            let taken = match passed {
                Some(beyond) if pawn && !on_target && m.from.file() != m.to.file() => beyond,
                _ => m.to,
            };
            self.enemy.retain(|p| p.square != taken);
        }
        let p = &mut self.own[i];
        p.square = m.to;
        p.unmoved = false;
        if let Some(role) = m.promotion {
            p.role = role;
        }
        self.unknown.remove(m.to);
        self.own.sort_by_key(|p| p.square);
    }

    /// The enemy moved: its from and to squares and the mover's tracking id, a loss, a check
    /// report and its own legal moves (R-S8, R-S10).
    fn opponent_moved(&mut self, r: &OpponentReport) {
        if let Some(p) = self.enemy.iter_mut().find(|p| p.square == r.from) {
            p.square = r.to;
        } else {
            // Its first move. If its destination may have held an unmoved partner, it may have
            // been a swap, and the partner would now stand on its starting square.
            if !self.unknown.contains(r.to) {
                self.unknown.remove(r.from);
            }
            self.enemy.push(TrackedPiece { square: r.to, id: r.id });
        }
        self.unknown.remove(r.to);
        if let Some(l) = r.lost {
            self.own.retain(|p| p.square != l.square);
            self.lost.push(l.role);
        }
        self.enemy.sort_by_key(|p| p.square);
        self.last_enemy = Some((r.from, r.to));
        self.check = r.check;
        self.gave_check = false;
        self.legal.clone_from(&r.legal);
        self.to_move = self.me;
        self.result = r.end;
        if self.me == Color::White {
            self.fullmove += 1;
        }
    }

    pub(crate) fn to_act(&self) -> Vec<Color> {
        if !self.started || self.result.is_some() {
            return Vec::new();
        }
        if self.to_move == self.me && (self.legal.is_empty() || self.pending.is_some()) {
            // Told no move (the game is over) or its move is on its way.
            return Vec::new();
        }
        vec![self.to_move]
    }

    pub(crate) fn legal(&self) -> &[Move] {
        &self.legal
    }

    pub(crate) fn result(&self) -> Option<GameResult> {
        self.result
    }

    /// `board side`: own men, enemy men that moved as `?`, squares where an unmoved enemy man
    /// may stand as `*`.
    pub(crate) fn board(&self) -> String {
        let board = board_field(BoardSize::Eight, Alphabet::SIC, |sq| {
            if let Some(p) = self.own.iter().find(|p| p.square == sq) {
                Sight::Man(p.role.of(self.me))
            } else if self.enemy.iter().any(|p| p.square == sq) {
                Sight::Unknown
            } else if self.unknown.contains(sq) {
                Sight::Fog
            } else {
                Sight::Empty
            }
        });
        format!("{board} {}", self.to_move.char())
    }

    pub(crate) fn knowledge(&self) -> SicKnowledge {
        SicKnowledge {
            own: self.own.clone(),
            enemy_moved: self.enemy.clone(),
            unknown: self.unknown,
            captured: self.captured.clone(),
            lost: self.lost.clone(),
            check: self.check,
            gave_check: self.gave_check,
            fullmove: self.fullmove,
        }
    }
}

//! A Kriegspiel seat (R-K1..R-K5): its own men, whose move it is, the umpire's announcements,
//! and the attempts refused this turn. The attempts it offers are every move its own men allow
//! on a board holding only them (enemy men unknown, so treated as absent), pawn diagonals
//! included: the legal moves are a subset (R-K1), so trying them all always finds one.

use super::{Sight, board_field};
use crate::kriegspiel::{Announcement, Answer, End};
use crate::{Alphabet, Bitboard, Board, BoardSize, Color, GameResult, Move, Role, Square, attacks};
use serde::{Deserialize, Serialize};

/// What a Kriegspiel seat knows beyond its board.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct KriegspielKnowledge {
    /// The side to move.
    pub to_move: Color,
    /// The announcement after every legal move so far, both sides' (R-K2).
    pub announcements: Vec<Announcement>,
    /// Its attempts the umpire refused this turn (R-K1), in order.
    pub tried: Vec<Move>,
}

#[derive(Clone, Debug)]
pub(crate) struct KriegspielSeat {
    me: Color,
    own: Board,
    to_move: Color,
    tried: Vec<Move>,
    /// The attempt sent and not yet answered.
    attempt: Option<Move>,
    announcements: Vec<Announcement>,
    result: Option<GameResult>,
}

impl KriegspielSeat {
    pub(crate) fn new(me: Color) -> KriegspielSeat {
        // A player knows the standard start of its own men.
        let start = crate::chess::Position::start();
        let mut own = Board::empty(BoardSize::Eight);
        for sq in start.board().by_color(me) {
            if let Some(p) = start.board().piece_at(sq) {
                own.put(sq, p);
            }
        }
        KriegspielSeat {
            me,
            own,
            to_move: Color::White,
            tried: Vec::new(),
            attempt: None,
            announcements: Vec::new(),
            result: None,
        }
    }

    pub(crate) fn acted(&mut self, m: Move) {
        self.attempt = Some(m);
    }

    /// The umpire's answer: to its own attempt while one is pending, else the announcement of
    /// the opponent's move (the opponent's illegal attempts are never told, R-K1).
    pub(crate) fn told(&mut self, answer: &Answer) {
        let mover = if let Some(m) = self.attempt.take() {
            match answer {
                Answer::Illegal => {
                    self.tried.push(m);
                    return;
                }
                Answer::Legal(_) => {
                    play_own(&mut self.own, &m);
                    self.tried.clear();
                    self.me
                }
            }
        } else {
            let Answer::Legal(a) = answer else { return };
            if let Some(c) = a.capture {
                self.own.remove(c.square);
            }
            !self.me
        };
        let Answer::Legal(a) = answer else { return };
        self.to_move = !mover;
        self.announcements.push(a.clone());
        if let Some(e) = a.end {
            let winner = (e == End::Checkmate).then_some(mover);
            self.result = Some(GameResult { winner, reason: e.reason() });
        }
    }

    pub(crate) fn to_act(&self) -> Vec<Color> {
        if self.result.is_some() { Vec::new() } else { vec![self.to_move] }
    }

    /// The attempts not refused this turn.
    pub(crate) fn legal(&self) -> Vec<Move> {
        candidates(&self.own, self.me).into_iter().filter(|m| !self.tried.contains(m)).collect()
    }

    pub(crate) fn result(&self) -> Option<GameResult> {
        self.result
    }

    /// `board side`: its own men, every other square unknown.
    pub(crate) fn board(&self) -> String {
        let board = board_field(BoardSize::Eight, Alphabet::ORTHODOX, |sq| {
            self.own.piece_at(sq).map_or(Sight::Fog, Sight::Man)
        });
        format!("{board} {}", self.to_move.char())
    }

    pub(crate) fn knowledge(&self) -> KriegspielKnowledge {
        KriegspielKnowledge {
            to_move: self.to_move,
            announcements: self.announcements.clone(),
            tried: self.tried.clone(),
        }
    }
}

/// The attempts a Kriegspiel player's own men allow: every move on a board holding only them,
/// pawn diagonals included (captures and en passant are possible there), promotions to Q R B
/// N, castling when king and rook stand on their squares. Sorted, without repeats.
pub(crate) fn candidates(own: &Board, side: Color) -> Vec<Move> {
    let occ = own.occupied();
    let mut out = Vec::new();
    let last = side.fold(7, 0);
    let push_pawn = |out: &mut Vec<Move>, from: Square, to: Square| {
        if to.rank() == last {
            for r in [Role::Queen, Role::Rook, Role::Bishop, Role::Knight] {
                out.push(Move { from, to, promotion: Some(r) });
            }
        } else {
            out.push(Move::new(from, to));
        }
    };
    for (from, piece) in own.pieces() {
        if piece.color != side {
            continue;
        }
        let targets = match piece.role {
            Role::Pawn => {
                let dr = side.fold(1, -1);
                if let Some(one) = from.offset(0, dr).filter(|s| !occ.contains(*s)) {
                    push_pawn(&mut out, from, one);
                    let start = side.fold(1, 6);
                    if let Some(two) = one.offset(0, dr).filter(|s| !occ.contains(*s))
                        && from.rank() == start
                    {
                        out.push(Move::new(from, two));
                    }
                }
                for df in [-1, 1] {
                    if let Some(to) = from.offset(df, dr).filter(|s| !occ.contains(*s)) {
                        push_pawn(&mut out, from, to);
                    }
                }
                continue;
            }
            Role::Knight => attacks::knight(from),
            Role::Bishop => attacks::bishop(from, occ),
            Role::Rook => attacks::rook(from, occ),
            Role::Queen => attacks::queen(from, occ),
            Role::King => {
                let home = Square::new(4, side.fold(0, 7)).expect("e1/e8");
                if from == home {
                    for (rook_file, to_file, between) in
                        [(7u8, 6u8, &[5u8, 6][..]), (0, 2, &[1, 2, 3])]
                    {
                        let rank = home.rank();
                        let rook = Square::new(rook_file, rank).expect("on the board");
                        let clear = between
                            .iter()
                            .all(|f| !occ.contains(Square::new(*f, rank).expect("on the board")));
                        if own.piece_at(rook) == Some(Role::Rook.of(side)) && clear {
                            out.push(Move::new(
                                from,
                                Square::new(to_file, rank).expect("on board"),
                            ));
                        }
                    }
                }
                attacks::king(from)
            }
            _ => Bitboard::EMPTY,
        };
        for to in targets {
            if !occ.contains(to) {
                out.push(Move::new(from, to));
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Plays one's own legal move on a board of one's own men (castling moves the rook too).
fn play_own(own: &mut Board, m: &Move) {
    let Some(piece) = own.remove(m.from) else { return };
    if piece.role == Role::King && m.from.file().abs_diff(m.to.file()) == 2 {
        let rank = m.from.rank();
        let (rook_from, rook_to) = if m.to.file() == 6 { (7, 5) } else { (0, 3) };
        let from = Square::new(rook_from, rank).expect("on the board");
        if let Some(rook) = own.remove(from) {
            own.put(Square::new(rook_to, rank).expect("on the board"), rook);
        }
    }
    let placed = m.promotion.map_or(piece, |r| r.of(piece.color));
    own.put(m.to, placed);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Game as _;

    #[test]
    fn r_k1_candidates_cover_every_legal_move_from_the_start() {
        let state = crate::kriegspiel::State::start(Default::default());
        for side in Color::ALL {
            let mut own = Board::empty(BoardSize::Eight);
            for (sq, role) in state.view(side).men {
                own.put(sq, role.of(side));
            }
            let cands = candidates(&own, side);
            if side == Color::White {
                for m in state.position().legal_moves() {
                    assert!(cands.contains(&m), "{m:?} missing");
                }
                assert_eq!(state.to_act(), vec![Color::White]);
            }
            // 16 pawn pushes + 14 pawn diagonals + 4 knight moves.
            assert_eq!(cands.len(), 34, "{side}");
        }
    }

    #[test]
    fn own_castling_moves_the_rook() {
        let mut own =
            Board::from_board_fen("8/8/8/8/8/8/8/4K2R", BoardSize::Eight, Alphabet::ORTHODOX)
                .expect("a board");
        let m = Move::new(Square::new(4, 0).expect("e1"), Square::new(6, 0).expect("g1"));
        assert!(candidates(&own, Color::White).contains(&m));
        play_own(&mut own, &m);
        assert_eq!(own.board_fen(Alphabet::ORTHODOX), "8/8/8/8/8/8/8/5RK1");
    }
}

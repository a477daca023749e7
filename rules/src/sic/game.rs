//! A game of Secret Intelligence Chess in progress ([`State`], implementing [`Game`]) and what
//! each side learns: the per-move [`Observation`]s (R-S8, R-S10, R-S11) and a side's [`View`].
//!
//! The observation and view types have fields only for what R-S10 lets a side know: its own
//! pieces, the from and to squares of enemy moves, the tracking ids (starting squares) of enemy
//! pieces that have moved, the types of enemy pieces it captured, check reports, its own legal
//! moves and the result. No field can hold an enemy piece's type (other than a captured one) or
//! the square of an enemy piece that has not moved.
//!
//! Serde forms: in human-readable formats (JSON: the agent, the pages) squares are names
//! (`"e4"`) and legal moves UCI texts (`"e7e8q"`); in binary ones (postcard: the protocol's
//! canonical bytes, PROTOCOL.md section 18.1) squares are index bytes and a legal-move list is
//! grouped by origin square, one encoding per list (`rules/src/sic/compact.rs`), so that the
//! padded size of SIC's sealed umpire messages (PROTOCOL.md section 19) stays small.

use super::movegen::{attacked_decoys, king_attacked, legal_moves, play_unchecked};
use super::{Position, SpyRule};
use crate::{
    ActionError, Alphabet, ByColor, Color, EndReason, Game, GameResult, Move, Role, Square,
    Transition, Variant,
};
use serde::{Deserialize, Serialize};

/// R-S8: what the side to move is told about attacks on its own royal-looking pieces.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum CheckReport {
    /// Your king is in check.
    King,
    /// Your king is not in check, but the enemy move newly attacks your Decoy.
    Decoy,
}

/// One of your pieces that the enemy move captured.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct LostPiece {
    /// Where it stood (for en passant, the pawn's square, not the move's `to`).
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub square: Square,
    /// Its type (you knew it already).
    pub role: Role,
}

/// What the side that just moved is told (R-S8, R-S10).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct MoverReport {
    /// Whether the move leaves the enemy king or an enemy Decoy attacked, without saying which.
    pub check: bool,
    /// The type of the enemy piece the move captured.
    pub captured: Option<Role>,
    /// The result, if the move ended the game.
    pub end: Option<GameResult>,
}

/// What the side now to move is told (R-S8, R-S10).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct OpponentReport {
    /// The square the enemy piece left (never its type, never a promotion).
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub from: Square,
    /// The square it went to.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub to: Square,
    /// The moved piece's tracking id: the square it started the game on (R-S10).
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub id: Square,
    /// Your piece that was captured, if any.
    pub lost: Option<LostPiece>,
    /// Check on your king, or a new attack on your Decoy (R-S8).
    pub check: Option<CheckReport>,
    /// Your legal moves, sorted (empty once the game is over).
    #[serde(with = "super::compact::legal")]
    #[cfg_attr(feature = "ts", ts(type = "string[]"))]
    pub legal: Vec<Move>,
    /// The result, if the move ended the game.
    pub end: Option<GameResult>,
}

/// What one side is told after a move.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "SicObservation"))]
#[serde(rename_all = "kebab-case")]
pub enum Observation {
    /// To the side that moved.
    YouMoved(MoverReport),
    /// To the side now to move.
    OpponentMoved(OpponentReport),
}

/// One of your own pieces.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "SicOwnPiece"))]
pub struct OwnPiece {
    /// Where it stands.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub square: Square,
    /// Its type.
    pub role: Role,
    /// Its tracking id (starting square).
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub id: Square,
    /// Whether it has not moved under its own power (R-S9).
    pub unmoved: bool,
}

/// An enemy piece that has moved: where it stands and its tracking id, type hidden (R-S10).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TrackedPiece {
    /// Where it stands.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub square: Square,
    /// The square it started the game on.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub id: Square,
}

/// Everything one side may know at a moment of the game (R-S10), built from the full state.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "SicView"))]
pub struct View {
    /// Whose view this is.
    pub side: Color,
    /// The side to move.
    pub to_move: Color,
    /// Its own pieces, in square order.
    pub own: Vec<OwnPiece>,
    /// The enemy pieces that have moved, in square order.
    pub enemy_moved: Vec<TrackedPiece>,
    /// The types of enemy pieces this side has captured, in the order taken.
    pub captured: Vec<Role>,
    /// The types of its own pieces the enemy has captured, in the order lost.
    pub lost: Vec<Role>,
    /// Its legal moves, sorted, if it is to move and the game is not over.
    #[serde(with = "super::compact::legal")]
    #[cfg_attr(feature = "ts", ts(type = "string[]"))]
    pub legal: Vec<Move>,
    /// The move number.
    pub fullmove: u32,
    /// The result, once the game is over.
    pub result: Option<GameResult>,
}

/// A game in progress: the full position, each piece's tracking id, the captured pieces, the
/// positions since the last irreversible move (R-C2 repetition) and the result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    pos: Position,
    /// The tracking id (starting square) of the piece on each square.
    ids: [Option<Square>; 64],
    /// The types of each side's pieces that were captured, in order.
    lost: ByColor<Vec<Role>>,
    /// Positions (clocks zeroed) since the last capture or pawn move, this one included.
    history: Vec<Position>,
    result: Option<GameResult>,
    /// The legal moves of the side to move, sorted as views list them (R-S10), empty once the
    /// game is over: a function of `pos` and `result`, generated once per position (by the
    /// `apply` that reached it, which tells them to the side to move) so that the next `apply`
    /// checks its move against them instead of generating them again.
    legal: Vec<Move>,
}

impl State {
    /// A new game from both sides' setup seeds (R-S2) under the given Spy rule (R-S6).
    #[must_use]
    pub fn new(white_seed: &[u8; 32], black_seed: &[u8; 32], spy: SpyRule) -> State {
        State::from_position(super::start_position(white_seed, black_seed).with_spy_rule(spy))
    }

    /// A game from any position (R-A1). Tracking ids start as the pieces' current squares.
    #[must_use]
    pub fn from_position(pos: Position) -> State {
        let mut ids = [None; 64];
        for (sq, _) in pos.board.pieces() {
            ids[sq.index()] = Some(sq);
        }
        let mut state = State {
            ids,
            lost: ByColor::default(),
            history: vec![repetition_key(&pos)],
            result: None,
            legal: Vec::new(),
            pos,
        };
        let mut legal = legal_moves(&state.pos);
        legal.sort_by_key(|m| m.uci_order(Alphabet::SIC));
        state.result = state.end_of_game(!state.pos.turn, &legal);
        if state.result.is_none() {
            state.legal = legal;
        }
        state
    }

    /// The full position.
    #[must_use]
    pub const fn position(&self) -> &Position {
        &self.pos
    }

    /// The tracking id of the piece on `sq`.
    #[must_use]
    pub fn tracking_id(&self, sq: Square) -> Option<Square> {
        self.ids[sq.index()]
    }

    /// The legal moves of `side`, sorted: empty unless it is to move and the game goes on.
    #[must_use]
    pub fn legal_moves_of(&self, side: Color) -> Vec<Move> {
        if self.result.is_none() && side == self.pos.turn { self.legal.clone() } else { Vec::new() }
    }

    /// What `side` may know now (R-S10).
    #[must_use]
    pub fn view(&self, side: Color) -> View {
        let id = |sq: Square| self.ids[sq.index()].expect("every piece has a tracking id");
        let board = &self.pos.board;
        View {
            side,
            to_move: self.pos.turn,
            own: board
                .by_color(side)
                .map(|square| OwnPiece {
                    square,
                    role: board.piece_at(square).expect("occupied").role,
                    id: id(square),
                    unmoved: self.pos.unmoved.contains(square),
                })
                .collect(),
            enemy_moved: (board.by_color(!side) & !self.pos.unmoved)
                .map(|square| TrackedPiece { square, id: id(square) })
                .collect(),
            captured: self.lost[!side].clone(),
            lost: self.lost[side].clone(),
            legal: self.legal_moves_of(side),
            fullmove: self.pos.fullmove,
            result: self.result,
        }
    }

    /// R-C1/R-C2: the result after `mover` moved into the current position, if the game ends.
    /// `legal` is the legal move list of the side to move.
    fn end_of_game(&self, mover: Color, legal: &[Move]) -> Option<GameResult> {
        let pos = &self.pos;
        if legal.is_empty() {
            return Some(if king_attacked(&pos.board, pos.spy, pos.turn) {
                GameResult::win(mover, EndReason::Checkmate)
            } else {
                GameResult::draw(EndReason::Stalemate)
            });
        }
        if pos.halfmove >= 100 {
            return Some(GameResult::draw(EndReason::FiftyMove));
        }
        let key = repetition_key(pos);
        if self.history.iter().filter(|p| **p == key).count() >= 3 {
            return Some(GameResult::draw(EndReason::Repetition));
        }
        if pos.board.insufficient_material() {
            return Some(GameResult::draw(EndReason::InsufficientMaterial));
        }
        None
    }
}

/// The position without its clocks: what R-C2's repetition compares (hidden parts included).
fn repetition_key(pos: &Position) -> Position {
    Position { halfmove: 0, fullmove: 1, ..pos.clone() }
}

impl Game for State {
    type Action = Move;
    type Observation = Observation;

    fn variant(&self) -> Variant {
        Variant::Sic
    }

    fn to_act(&self) -> Vec<Color> {
        if self.result.is_some() { Vec::new() } else { vec![self.pos.turn] }
    }

    /// R-S11: an illegal move is refused with [`ActionError::IllegalMove`] naming only the
    /// move as submitted; nothing about the position is revealed and the state is unchanged.
    fn apply(&self, actor: Color, m: &Move) -> Result<Transition<State, Observation>, ActionError> {
        if self.result.is_some() {
            return Err(ActionError::GameOver);
        }
        if actor != self.pos.turn {
            return Err(ActionError::NotYourTurn(actor));
        }
        // `self.legal` is `self.pos.legal_moves()` while the game goes on (it does here).
        if !self.legal.contains(m) {
            return Err(ActionError::IllegalMove(m.uci(Alphabet::SIC)));
        }
        let them = !actor;
        let spy = self.pos.spy;
        let decoys_before = attacked_decoys(&self.pos.board, spy, them);
        let (pos, captured) = play_unchecked(&self.pos, m);

        let mut ids = self.ids;
        let id = ids[m.from.index()].expect("every piece has a tracking id");
        if self.pos.board.piece_at(m.to).is_some_and(|p| p.color == actor) {
            ids.swap(m.from.index(), m.to.index());
        } else {
            if let Some((sq, _)) = captured {
                ids[sq.index()] = None;
            }
            ids[m.to.index()] = Some(id);
            ids[m.from.index()] = None;
        }
        let mut lost = self.lost.clone();
        if let Some((_, p)) = captured {
            lost[them].push(p.role);
        }
        let mut history = if pos.halfmove == 0 { Vec::new() } else { self.history.clone() };
        history.push(repetition_key(&pos));

        // R-S8: the mover hears "check" for the enemy king or any enemy Decoy attacked; the
        // side to move hears about its king, or about a Decoy not already attacked before.
        let king_check = king_attacked(&pos.board, spy, them);
        let decoys_after = attacked_decoys(&pos.board, spy, them);
        let mover_check = king_check || decoys_after.any();
        let report = if king_check {
            Some(CheckReport::King)
        } else if (decoys_after & !decoys_before).any() {
            Some(CheckReport::Decoy)
        } else {
            None
        };

        let mut legal = legal_moves(&pos);
        legal.sort_by_key(|m| m.uci_order(Alphabet::SIC));
        let mut state = State { pos, ids, lost, history, result: None, legal: Vec::new() };
        state.result = state.end_of_game(actor, &legal);
        if state.result.is_some() {
            legal.clear();
        }
        state.legal.clone_from(&legal);
        let mover = Observation::YouMoved(MoverReport {
            check: mover_check,
            captured: captured.map(|(_, p)| p.role),
            end: state.result,
        });
        let opponent = Observation::OpponentMoved(OpponentReport {
            from: m.from,
            to: m.to,
            id,
            lost: captured.map(|(square, p)| LostPiece { square, role: p.role }),
            check: report,
            legal,
            end: state.result,
        });
        let mut told = ByColor::new_with(|_| None);
        told[actor] = Some(mover);
        told[them] = Some(opponent);
        Ok(Transition { state, told })
    }

    fn result(&self) -> Option<GameResult> {
        self.result
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sic::SpyRule;

    /// The legal-move list a state keeps is, at every position of a game, the one the position
    /// generates (sorted as views list them) while the game goes on and empty once it is over;
    /// `apply` takes exactly its moves and refuses any other.
    #[test]
    fn the_kept_legal_list_is_the_positions_own_at_every_ply() {
        for (white, black, spy) in
            [([0; 32], [1; 32], SpyRule::Default), ([7; 32], [9; 32], SpyRule::Original)]
        {
            let mut state = State::new(&white, &black, spy);
            for ply in 0..400usize {
                let expected =
                    if state.result.is_none() { state.pos.legal_moves() } else { Vec::new() };
                assert_eq!(state.legal, expected, "ply {ply}");
                assert_eq!(state.legal_moves_of(state.pos.turn), expected, "ply {ply}");
                let Some(&m) = expected.get(ply.wrapping_mul(7919) % expected.len().max(1)) else {
                    break;
                };
                let actor = state.pos.turn;
                // A move of a piece it does not have, or onto its own square, is refused.
                let other = Move { from: m.to, to: m.from, promotion: None };
                if !expected.contains(&other) {
                    assert_eq!(
                        state.apply(actor, &other).map(|_| ()),
                        Err(ActionError::IllegalMove(other.uci(Alphabet::SIC))),
                        "ply {ply}"
                    );
                }
                let next = state.apply(actor, &m).expect("a listed move is legal");
                if let Some(Observation::OpponentMoved(report)) = &next.told[!actor] {
                    assert_eq!(report.legal, next.state.legal, "ply {ply}");
                }
                state = next.state;
            }
        }
    }
}

//! An independent oracle for orthodox chess and Kriegspiel observations, built on shakmaty (a
//! GPL dev-dependency) for the moves and on RULES.md for everything announced: R-C2's automatic
//! ends and R-K2's announcements, written here from the rule text, not from `rules`' code.
//! Used by `chess_obsperft.rs` and `kriegspiel_obsperft.rs` to check the pinned digests.
#![allow(dead_code, reason = "each test binary uses a different subset")]

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{Bitboard, CastlingMode, Chess, Color, Move, Position as _, Role, Square};

/// How a game ended, as R-C1/R-C2 name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// The side to move is mated; the other side wins.
    Checkmate {
        winner: Color,
    },
    Stalemate,
    InsufficientMaterial,
    Repetition,
    FiftyMove,
}

/// A line of play: the current position and every position since the last capture or pawn
/// move (earlier ones cannot recur), the current one last. shakmaty's `Chess` equality is
/// FIDE's "same position": board, side to move, castling rights, legal en passant.
#[derive(Clone)]
pub struct Line {
    pub pos: Chess,
    history: Vec<Chess>,
}

impl Line {
    pub fn from_fen(fen: &str) -> Line {
        let pos: Chess = Fen::from_ascii(fen.as_bytes())
            .unwrap_or_else(|e| panic!("{fen}: {e}"))
            .into_position(CastlingMode::Standard)
            .unwrap_or_else(|e| panic!("{fen}: {e}"));
        Line { history: vec![pos.clone()], pos }
    }

    /// The line after the legal move `m`.
    pub fn play(&self, m: Move) -> Line {
        let irreversible = m.is_capture() || m.role() == Role::Pawn;
        let mut next = self.clone();
        next.pos.play_unchecked(m);
        if irreversible {
            next.history.clear();
        }
        next.history.push(next.pos.clone());
        next
    }

    /// R-C2's automatic ends of the current position. When several hold, a position with no
    /// legal move ends by checkmate or stalemate first (a mate delivered on the 100th ply
    /// stands), then the draws in the order R-C2 lists them below: insufficient material,
    /// threefold repetition, the 50-move rule.
    pub fn end(&self) -> Option<End> {
        let p = &self.pos;
        if p.legal_moves().is_empty() {
            return Some(if p.is_check() {
                End::Checkmate { winner: p.turn().other() }
            } else {
                End::Stalemate
            });
        }
        if r_c2_insufficient(p.board()) {
            return Some(End::InsufficientMaterial);
        }
        if self.history.iter().filter(|q| **q == self.pos).count() >= 3 {
            return Some(End::Repetition);
        }
        if p.halfmoves() >= 100 {
            return Some(End::FiftyMove);
        }
        None
    }
}

/// R-C2, exactly: K v K; K+N v K; only kings and bishops, all bishops on one square colour.
pub fn r_c2_insufficient(board: &shakmaty::Board) -> bool {
    let kings = board.kings();
    let rest = board.occupied() & !kings;
    if rest.is_empty() {
        return true;
    }
    if rest.count() == 1 && (rest & board.knights()).any() {
        return true;
    }
    let bishops = board.bishops();
    if rest == bishops {
        let light = bishops & Bitboard::LIGHT_SQUARES;
        return light == bishops || light.is_empty();
    }
    false
}

/// The legal moves, sorted by their UCI text (castling as the king's move, `e1g1`).
pub fn sorted_moves(pos: &Chess) -> Vec<(String, Move)> {
    let mut v: Vec<(String, Move)> = pos.legal_moves().into_iter().map(|m| (uci(m), m)).collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

pub fn uci(m: Move) -> String {
    UciMove::from_standard(m).to_string()
}

/// The same move as `rules` writes it.
pub fn to_rules(m: Move) -> rules::Move {
    rules::Move::parse_uci(&uci(m), rules::BoardSize::Eight, rules::Alphabet::ORTHODOX)
        .expect("shakmaty writes UCI")
}

pub fn to_rules_end(end: End) -> rules::GameResult {
    use rules::{EndReason, GameResult};
    match end {
        End::Checkmate { winner } => GameResult::win(color(winner), EndReason::Checkmate),
        End::Stalemate => GameResult::draw(EndReason::Stalemate),
        End::InsufficientMaterial => GameResult::draw(EndReason::InsufficientMaterial),
        End::Repetition => GameResult::draw(EndReason::Repetition),
        End::FiftyMove => GameResult::draw(EndReason::FiftyMove),
    }
}

pub fn color(c: Color) -> rules::Color {
    match c {
        Color::White => rules::Color::White,
        Color::Black => rules::Color::Black,
    }
}

pub fn square(sq: Square) -> rules::Square {
    rules::Square::from_index(sq as u8).expect("a square of the 8x8 board")
}

/// (file, rank) from 0.
pub fn coords(sq: Square) -> (i32, i32) {
    (sq.file() as i32, sq.rank() as i32)
}

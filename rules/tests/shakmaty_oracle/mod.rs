//! An independent oracle for orthodox chess and Kriegspiel observations, built on shakmaty (a
//! GPL dev-dependency) for the moves and on RULES.md for everything announced: R-C2's automatic
//! ends and R-K2's announcements, written here from the rule text, not from `rules`' code.
//! Used by `chess_obsperft.rs` and `kriegspiel_obsperft.rs` to check the pinned digests, and
//! by `cli/tests/record.rs` to check the Kriegspiel PGN of a record.
#![allow(dead_code, reason = "each test binary uses a different subset")]

use rules::kriegspiel::{Announcement, Answer, Capture, CaptureKind, CheckKind, End as KEnd};
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

/// R-C2, exactly: K v K; K+N v K; only kings and bishops, all bishops on one square color.
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

// ---- Kriegspiel: R-K2's announcements ----

/// R-K2's check announcements on the side to move of `pos`, one per checking man, in the
/// order of `CheckKind` (the announcement type's documented order).
pub fn r_k2_checks(pos: &shakmaty::Chess) -> Vec<CheckKind> {
    let Some(king) = pos.board().king_of(pos.turn()) else { return Vec::new() };
    let (kf, kr) = coords(king);
    let mut out: Vec<CheckKind> = pos
        .checkers()
        .into_iter()
        .map(|sq| {
            let (f, r) = coords(sq);
            if pos.board().role_at(sq) == Some(shakmaty::Role::Knight) {
                CheckKind::Knight
            } else if r == kr {
                CheckKind::Rank
            } else if f == kf {
                CheckKind::File
            } else {
                // The two diagonals through the king: a1-h8-wise (file - rank constant), with
                // 8 - |file - rank| squares, and a8-h1-wise (file + rank constant), with
                // 8 - |file + rank - 7|. On 8x8 they never have the same length.
                let rising = f - r == kf - kr;
                let rising_len = 8 - (kf - kr).abs();
                let falling_len = 8 - (kf + kr - 7).abs();
                let len = if rising { rising_len } else { falling_len };
                let other = if rising { falling_len } else { rising_len };
                assert_ne!(len, other);
                if len > other { CheckKind::LongDiagonal } else { CheckKind::ShortDiagonal }
            }
        })
        .collect();
    out.sort();
    out
}

/// R-K2's pawn tries of the side to move: its legal pawn captures, en passant included, a
/// capture that promotes counted once (so: distinct from-to pairs).
pub fn r_k2_pawn_tries(pos: &shakmaty::Chess) -> u32 {
    let mut pairs: Vec<(shakmaty::Square, shakmaty::Square)> = pos
        .legal_moves()
        .into_iter()
        .filter(|m| m.role() == shakmaty::Role::Pawn && m.is_capture())
        .map(|m| (m.from().expect("a board move"), m.to()))
        .collect();
    pairs.sort();
    pairs.dedup();
    pairs.len() as u32
}

/// What both players are told after the legal move `m` from `before` (R-K2, R-K3: the
/// promotion piece is not announced, nor which man moved or captured).
pub fn r_k2_announcement(before: &Line, m: shakmaty::Move) -> (Line, Answer) {
    let after = before.play(m);
    let capture = if m.is_en_passant() {
        // The captured pawn stood beside the capturing pawn's start, on the target's file.
        let from = m.from().expect("a board move");
        let sq = shakmaty::Square::from_coords(m.to().file(), from.rank());
        Some(Capture { square: square(sq), kind: CaptureKind::Pawn, en_passant: true })
    } else {
        m.capture().map(|role| Capture {
            square: square(m.to()),
            kind: if role == shakmaty::Role::Pawn { CaptureKind::Pawn } else { CaptureKind::Piece },
            en_passant: false,
        })
    };
    let end = after.end().map(|e| match e {
        End::Checkmate { .. } => KEnd::Checkmate,
        End::Stalemate => KEnd::Stalemate,
        End::InsufficientMaterial => KEnd::InsufficientMaterial,
        End::Repetition => KEnd::Repetition,
        End::FiftyMove => KEnd::FiftyMove,
    });
    let a = Announcement {
        capture,
        checks: r_k2_checks(&after.pos),
        pawn_tries: r_k2_pawn_tries(&after.pos),
        end,
    };
    (after, Answer::Legal(a))
}

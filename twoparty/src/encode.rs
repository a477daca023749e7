//! Each party's circuit input from what that party alone knows, and the circuit's outputs
//! read back as `rules`' [`Answer`].
//!
//! The circuit sees the mover as White; when Black moves, both parties mirror their squares
//! rank-wise (a8 becomes a1) and the captured man's square is mirrored back.

use crate::umpire::{FIFTY_BITS, MOVER_BITS, OPPONENT_BITS, ROLES, TAG_BITS, out, tag_key_bits};
use rules::chess::Position;
use rules::kriegspiel::{Announcement, Answer, Capture, CaptureKind, CheckKind, End};
use rules::{BoardSize, Color, Move, Role, Square};

/// What the mover puts in: its own men, its castling rights, the attempt, and its 50-move
/// counter (plies since its own last pawn move or the last capture, which both sides hear).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoverInput {
    /// The mover's color.
    pub side: Color,
    /// The mover's men.
    pub men: Vec<(Square, Role)>,
    /// May still castle king side (king and h-rook unmoved).
    pub castle_king_side: bool,
    /// May still castle queen side.
    pub castle_queen_side: bool,
    /// The attempt.
    pub attempt: Move,
    /// Plies since the mover's last pawn move or the last capture (capped at 127).
    pub fifty: u32,
}

/// What the opponent puts in: its own men, the file of its last move's double pawn step (if
/// that move was one), and its 50-move counter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpponentInput {
    /// The opponent's color.
    pub side: Color,
    /// The opponent's men.
    pub men: Vec<(Square, Role)>,
    /// The file (0 = a) of the double step its last move made, if it made one.
    pub double_step_file: Option<u8>,
    /// Plies since the opponent's last pawn move or the last capture (capped at 127).
    pub fifty: u32,
}

fn role_index(role: Role) -> Option<usize> {
    Some(match role {
        Role::Pawn => crate::umpire::P,
        Role::Knight => crate::umpire::N,
        Role::Bishop => crate::umpire::B,
        Role::Rook => crate::umpire::R,
        Role::Queen => crate::umpire::Q,
        Role::King => crate::umpire::K,
        _ => return None,
    })
}

/// The square index as the circuit sees it (mirrored when Black moves).
fn frame(sq: Square, mover: Color) -> usize {
    match mover {
        Color::White => sq.index(),
        Color::Black => sq.flip_rank(BoardSize::Eight).index(),
    }
}

fn push_num(bits: &mut Vec<bool>, v: u32, width: usize) {
    bits.extend((0..width).map(|i| v >> i & 1 == 1));
}

fn men_bits(bits: &mut Vec<bool>, men: &[(Square, Role)], mover: Color) {
    let mut boards = [0u64; ROLES];
    for &(sq, role) in men {
        // Kriegspiel has only orthodox men; anything else never reaches here from `rules`.
        if let Some(r) = role_index(role) {
            boards[r] |= 1 << frame(sq, mover);
        }
    }
    for bb in boards {
        bits.extend((0..64).map(|i| bb >> i & 1 == 1));
    }
}

impl MoverInput {
    /// The circuit input bits.
    #[must_use]
    pub fn bits(&self) -> Vec<bool> {
        let mut v = Vec::with_capacity(MOVER_BITS as usize);
        men_bits(&mut v, &self.men, self.side);
        v.push(self.castle_king_side);
        v.push(self.castle_queen_side);
        push_num(&mut v, frame(self.attempt.from, self.side) as u32, 6);
        push_num(&mut v, frame(self.attempt.to, self.side) as u32, 6);
        let promo = match self.attempt.promotion {
            None => 0,
            Some(Role::Knight) => 1,
            Some(Role::Bishop) => 2,
            Some(Role::Rook) => 3,
            Some(Role::Queen) => 4,
            // Any other named piece is no promotion: the circuit answers "illegal".
            Some(_) => 7,
        };
        push_num(&mut v, promo, 3);
        push_num(&mut v, self.fifty.min(127), FIFTY_BITS);
        debug_assert_eq!(v.len(), MOVER_BITS as usize);
        v
    }
}

impl OpponentInput {
    /// The circuit input bits.
    #[must_use]
    pub fn bits(&self) -> Vec<bool> {
        let mut v = Vec::with_capacity(OPPONENT_BITS as usize);
        men_bits(&mut v, &self.men, self.side.other());
        v.extend((0..8u8).map(|f| self.double_step_file == Some(f)));
        push_num(&mut v, self.fifty.min(127), FIFTY_BITS);
        debug_assert_eq!(v.len(), OPPONENT_BITS as usize);
        v
    }
}

/// Both inputs from a full position (for tests and the figures: in play each party builds
/// its own from what it knows). `fifty` = (mover's counter, opponent's counter).
#[must_use]
pub fn inputs_from_position(
    pos: &Position,
    attempt: Move,
    fifty: (u32, u32),
) -> (MoverInput, OpponentInput) {
    let board = pos.board();
    let us = pos.turn();
    let them = us.other();
    let men = |c: Color| -> Vec<(Square, Role)> {
        board.by_color(c).map(|sq| (sq, board.piece_at(sq).expect("occupied").role)).collect()
    };
    let home = if us == Color::White { 0 } else { 7 };
    let rights = pos.castling_rooks();
    let right = |file: u8| rights.contains(Square::new(file, home).expect("on the board"));
    let mover = MoverInput {
        side: us,
        men: men(us),
        castle_king_side: right(7),
        castle_queen_side: right(0),
        attempt,
        fifty: fifty.0,
    };
    let opponent = OpponentInput {
        side: them,
        men: men(them),
        double_step_file: pos.ep_square().map(Square::file),
        fifty: fifty.1,
    };
    (mover, opponent)
}

fn num(bits: &[bool]) -> u32 {
    bits.iter().enumerate().map(|(i, &b)| u32::from(b) << i).sum()
}

/// The circuit's outputs as the umpire's answer to the mover (`mover` = its color).
///
/// # Panics
/// If `outputs` is not the circuit's output length.
#[must_use]
pub fn answer(outputs: &[bool], mover: Color) -> Answer {
    assert_eq!(outputs.len(), out::COUNT, "the circuit's outputs");
    if !outputs[out::LEGAL] {
        return Answer::Illegal;
    }
    let capture = outputs[out::CAPTURE].then(|| {
        let idx = num(&outputs[out::CAPTURE_SQUARE..out::CAPTURE_SQUARE + 6]);
        let sq = Square::from_index(u8::try_from(idx).expect("6 bits")).expect("on the board");
        let square = match mover {
            Color::White => sq,
            Color::Black => sq.flip_rank(BoardSize::Eight),
        };
        Capture {
            square,
            kind: if outputs[out::CAPTURE_PAWN] { CaptureKind::Pawn } else { CaptureKind::Piece },
            en_passant: outputs[out::CAPTURE_EP],
        }
    });
    let kinds = [
        CheckKind::Rank,
        CheckKind::File,
        CheckKind::LongDiagonal,
        CheckKind::ShortDiagonal,
        CheckKind::Knight,
    ];
    let checks = kinds
        .iter()
        .enumerate()
        .filter(|(i, _)| outputs[out::CHECKS + i])
        .map(|(_, &k)| k)
        .collect();
    let end = if outputs[out::MATE] {
        Some(End::Checkmate)
    } else if outputs[out::STALEMATE] {
        Some(End::Stalemate)
    } else if outputs[out::INSUFFICIENT] {
        Some(End::InsufficientMaterial)
    } else if outputs[out::FIFTY] {
        Some(End::FiftyMove)
    } else {
        None
    };
    Answer::Legal(Announcement {
        capture,
        checks,
        pawn_tries: num(&outputs[out::TRIES..out::TRIES + 8]),
        end,
    })
}

/// Whether `tag` is the MAC of `outputs` under the opponent's one-time `key`
/// ([`crate::umpire::circuit_with_tag`], [`crate::umpire::circuit_part`]): what the opponent
/// checks before it accepts the answer the mover forwards (the whole answer, the legality
/// verdict, or the announcement).
///
/// # Panics
/// If the tag or key length does not fit `outputs`.
#[must_use]
pub fn tag_ok(outputs: &[bool], tag: &[bool], key: &[bool]) -> bool {
    assert_eq!(tag.len(), TAG_BITS, "the tag");
    assert_eq!(key.len(), tag_key_bits(outputs.len()) as usize, "the key");
    let row = outputs.len() + 1;
    (0..TAG_BITS).all(|j| {
        let mut t = key[j * row];
        for (i, &o) in outputs.iter().enumerate() {
            t ^= key[j * row + 1 + i] & o;
        }
        t == tag[j]
    })
}

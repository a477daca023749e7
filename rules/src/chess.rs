//! Orthodox chess (ruleset `chess/fide`): positions (R-C4, R-A1), a fast fully legal move
//! generator with perft, and the open game with its automatic draws (R-C1, R-C2).
//!
//! The generator follows the usual "checkers and pins" scheme: it finds the pieces giving check
//! and the pieces pinned to the king once per position, and then only produces legal moves, so
//! no move is ever played to be tested. It writes into a [`Sink`], which either collects moves
//! or only counts them (perft's bulk counting at depth 1 counts bitboards by population).

use crate::{
    ActionError, Alphabet, Analysis, Bitboard, Board, BoardSize, ByColor, Color, EndReason,
    FenError, GameResult, Move, Role, Square, Transition, Variant, attacks,
};
use arrayvec::ArrayVec;
use serde::{Deserialize, Serialize};

/// The standard starting position (R-C4).
pub const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// The most legal moves any accepted position can have. R-A1 accepts unreachable positions
/// (any army with one king per side), so the well-known 218 of reachable positions is not a
/// bound. A queen has at most 27 destinations and every other man fewer (a pawn at most 3
/// squares times 4 promotion pieces = 12, a king 8 steps plus 2 castlings = 10), and a side has at
/// most 62 men besides its king (the enemy king holds a square): 62 * 27 + 10 = 1684 <= 2048.
pub const MAX_LEGAL_MOVES: usize = 2048;

/// A bounded list of moves (see [`MAX_LEGAL_MOVES`] for why it cannot overflow).
pub type MoveList = ArrayVec<Move, MAX_LEGAL_MOVES>;

const PROMOTIONS: [Role; 4] = [Role::Queen, Role::Rook, Role::Bishop, Role::Knight];

const fn step(sq: usize, df: i32, dr: i32) -> Option<usize> {
    let f = (sq % 8) as i32 + df;
    let r = (sq / 8) as i32 + dr;
    if f >= 0 && f < 8 && r >= 0 && r < 8 { Some((r * 8 + f) as usize) } else { None }
}

/// `BETWEEN[a][b]`: the squares strictly between `a` and `b` on a shared line, else empty.
/// `LINE[a][b]`: the whole line through both (edge to edge), else empty. Built at compile time.
const fn line_tables() -> ([[u64; 64]; 64], [[u64; 64]; 64]) {
    const DIRS: [(i32, i32); 8] =
        [(0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1)];
    let mut between = [[0u64; 64]; 64];
    let mut line = [[0u64; 64]; 64];
    let mut a = 0;
    while a < 64 {
        let mut d = 0;
        while d < 8 {
            let (df, dr) = DIRS[d];
            // The full line through `a` in this direction, both ways.
            let mut full = 1u64 << a;
            let mut cur = a;
            while let Some(n) = step(cur, df, dr) {
                full |= 1u64 << n;
                cur = n;
            }
            cur = a;
            while let Some(n) = step(cur, -df, -dr) {
                full |= 1u64 << n;
                cur = n;
            }
            let mut gap = 0u64;
            cur = a;
            while let Some(n) = step(cur, df, dr) {
                between[a][n] = gap;
                line[a][n] = full;
                gap |= 1u64 << n;
                cur = n;
            }
            d += 1;
        }
        a += 1;
    }
    (between, line)
}

const LINES: ([[u64; 64]; 64], [[u64; 64]; 64]) = line_tables();
static BETWEEN: [[u64; 64]; 64] = LINES.0;
static LINE: [[u64; 64]; 64] = LINES.1;

#[inline]
fn between(a: Square, b: Square) -> Bitboard {
    Bitboard(BETWEEN[a.index()][b.index()])
}

#[inline]
fn line(a: Square, b: Square) -> Bitboard {
    Bitboard(LINE[a.index()][b.index()])
}

#[inline]
const fn shift(bb: Bitboard, delta: i32) -> Bitboard {
    if delta >= 0 { Bitboard(bb.0 << delta) } else { Bitboard(bb.0 >> -delta) }
}

const FILE_A: Bitboard = Bitboard(0x0101_0101_0101_0101);
const FILE_H: Bitboard = Bitboard(0x8080_8080_8080_8080);
const BACK_RANKS: Bitboard = Bitboard(0xff00_0000_0000_00ff);

/// Where legal moves go: collected one by one, or only counted.
trait Sink {
    /// Moves of a non-pawn piece (or a pawn that cannot promote) from `from` to each target.
    fn piece(&mut self, from: Square, targets: Bitboard);
    /// Pawn moves to each target from `target - delta`; `promote` when the targets lie on the
    /// last rank (each then stands for four moves).
    fn pawns(&mut self, targets: Bitboard, delta: i32, promote: bool);
    /// One move.
    fn one(&mut self, m: Move);
}

struct Collect<'a>(&'a mut MoveList);

impl Sink for Collect<'_> {
    #[inline]
    fn piece(&mut self, from: Square, targets: Bitboard) {
        for to in targets {
            self.0.push(Move::new(from, to));
        }
    }
    #[inline]
    fn pawns(&mut self, targets: Bitboard, delta: i32, promote: bool) {
        for to in targets {
            let from = Square::from_index_unchecked((to.index() as i32 - delta) as u32);
            if promote {
                for role in PROMOTIONS {
                    self.0.push(Move { from, to, promotion: Some(role) });
                }
            } else {
                self.0.push(Move::new(from, to));
            }
        }
    }
    #[inline]
    fn one(&mut self, m: Move) {
        self.0.push(m);
    }
}

struct Count(usize);

impl Sink for Count {
    #[inline]
    fn piece(&mut self, _from: Square, targets: Bitboard) {
        self.0 += targets.count() as usize;
    }
    #[inline]
    fn pawns(&mut self, targets: Bitboard, _delta: i32, promote: bool) {
        self.0 += targets.count() as usize * if promote { 4 } else { 1 };
    }
    #[inline]
    fn one(&mut self, _m: Move) {
        self.0 += 1;
    }
}

/// A chess position (R-C4): board, side to move, castling rights, en passant square, halfmove
/// clock and fullmove number. Only built by [`Position::from_fen`] / [`Position::start`] and by
/// playing legal moves, so it always has exactly one king per side and the side not to move is
/// never in check.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    board: Board,
    turn: Color,
    /// The squares of the rooks that may still castle (a subset of a1, h1, a8, h8); a right
    /// implies that its king stands on its e-file home square.
    castling: Bitboard,
    /// The square a pawn passed over by a double step on the last move, as FEN writes it.
    ep: Option<Square>,
    halfmoves: u32,
    fullmoves: u32,
}

/// What makes two positions "the same" for R-C2's threefold repetition, compared in full (no
/// hash): placement, side to move, castling rights and the en passant square, the last only
/// when an en passant capture is actually legal (FIDE 9.2.2: the same possible moves).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RepetitionKey {
    board: Board,
    turn: Color,
    castling: Bitboard,
    ep: Option<Square>,
}

impl Position {
    /// The standard starting position.
    #[must_use]
    pub fn start() -> Position {
        Position::from_fen(START_FEN).expect("START_FEN is a valid position")
    }

    /// The board.
    #[must_use]
    pub const fn board(&self) -> &Board {
        &self.board
    }

    /// The side to move.
    #[must_use]
    pub const fn turn(&self) -> Color {
        self.turn
    }

    /// The en passant square of the position string (set after every double step).
    #[must_use]
    pub const fn ep_square(&self) -> Option<Square> {
        self.ep
    }

    /// The rook squares that still carry a castling right.
    #[must_use]
    pub const fn castling_rooks(&self) -> Bitboard {
        self.castling
    }

    /// Plies since the last capture or pawn move.
    #[must_use]
    pub const fn halfmoves(&self) -> u32 {
        self.halfmoves
    }

    /// The fullmove number.
    #[must_use]
    pub const fn fullmoves(&self) -> u32 {
        self.fullmoves
    }

    /// The square of `color`'s king.
    #[must_use]
    #[inline]
    pub fn king(&self, color: Color) -> Square {
        self.board
            .by_piece(Role::King.of(color))
            .first()
            .expect("a position always has one king per side")
    }

    /// The pieces of `color` attacking `sq` when the occupancy is `occ`.
    #[inline]
    fn attackers(&self, sq: Square, color: Color, occ: Bitboard) -> Bitboard {
        let b = &self.board;
        let queens = b.by_role(Role::Queen);
        ((attacks::rook(sq, occ) & (b.by_role(Role::Rook) | queens))
            | (attacks::bishop(sq, occ) & (b.by_role(Role::Bishop) | queens))
            | (attacks::knight(sq) & b.by_role(Role::Knight))
            | (attacks::king(sq) & b.by_role(Role::King))
            | (attacks::pawn(color.other(), sq) & b.by_role(Role::Pawn)))
            & b.by_color(color)
    }

    /// The enemy pieces giving check to the side to move.
    #[must_use]
    pub fn checkers(&self) -> Bitboard {
        self.attackers(self.king(self.turn), self.turn.other(), self.board.occupied())
    }

    /// Whether the side to move is in check.
    #[must_use]
    pub fn is_check(&self) -> bool {
        self.checkers().any()
    }

    /// Our pieces that alone stand between our king and an enemy slider (pinned pieces).
    #[inline]
    fn pinned(&self, king: Square, us: Color) -> Bitboard {
        let b = &self.board;
        let queens = b.by_role(Role::Queen);
        let them = b.by_color(us.other());
        let snipers = ((attacks::rook(king, Bitboard::EMPTY) & (b.by_role(Role::Rook) | queens))
            | (attacks::bishop(king, Bitboard::EMPTY) & (b.by_role(Role::Bishop) | queens)))
            & them;
        let occ = b.occupied();
        let mut pinned = Bitboard::EMPTY;
        for sniper in snipers {
            let gap = between(king, sniper) & occ;
            if !gap.more_than_one() {
                pinned |= gap;
            }
        }
        pinned & b.by_color(us)
    }

    /// Produces every legal move into `sink`.
    #[inline]
    fn generate<S: Sink>(&self, sink: &mut S) {
        let us = self.turn;
        let them = us.other();
        let b = &self.board;
        let our = b.by_color(us);
        let their = b.by_color(them);
        let occ = our | their;
        let king = self.king(us);
        let checkers = self.attackers(king, them, occ);

        // King steps: test each square with the king lifted, so it cannot hide behind itself.
        let occ_no_king = occ ^ king.bb();
        let mut safe = Bitboard::EMPTY;
        for to in attacks::king(king) & !our {
            if self.attackers(to, them, occ_no_king).is_empty() {
                safe.insert(to);
            }
        }
        sink.piece(king, safe);
        if checkers.more_than_one() {
            return;
        }
        let target = match checkers.first() {
            None => {
                self.castling_moves(king, us, occ, sink);
                !our
            }
            Some(checker) => between(king, checker) | checker.bb(),
        };
        let pinned = self.pinned(king, us);

        for from in b.by_role(Role::Knight) & our & !pinned {
            sink.piece(from, attacks::knight(from) & target);
        }
        let queens = b.by_role(Role::Queen);
        for from in (b.by_role(Role::Bishop) | queens) & our {
            let mut t = attacks::bishop(from, occ) & target;
            if pinned.contains(from) {
                t &= line(king, from);
            }
            sink.piece(from, t);
        }
        for from in (b.by_role(Role::Rook) | queens) & our {
            let mut t = attacks::rook(from, occ) & target;
            if pinned.contains(from) {
                t &= line(king, from);
            }
            sink.piece(from, t);
        }

        // Pawns: unpinned ones in bulk by shifting the whole set.
        let pawns = b.by_role(Role::Pawn) & our;
        let (fwd, third_rank, last_rank) = match us {
            Color::White => (8, Bitboard(0x0000_0000_00ff_0000), Bitboard(0xff00_0000_0000_0000)),
            Color::Black => (-8, Bitboard(0x0000_ff00_0000_0000), Bitboard(0x0000_0000_0000_00ff)),
        };
        let empty = !occ;
        let free = pawns & !pinned;
        let push1 = shift(free, fwd) & empty;
        let push2 = shift(push1 & third_rank, fwd) & empty & target;
        let push1 = push1 & target;
        let cap_west = shift(free & !FILE_A, fwd - 1) & their & target;
        let cap_east = shift(free & !FILE_H, fwd + 1) & their & target;
        sink.pawns(push1 & !last_rank, fwd, false);
        sink.pawns(push1 & last_rank, fwd, true);
        sink.pawns(push2, 2 * fwd, false);
        sink.pawns(cap_west & !last_rank, fwd - 1, false);
        sink.pawns(cap_west & last_rank, fwd - 1, true);
        sink.pawns(cap_east & !last_rank, fwd + 1, false);
        sink.pawns(cap_east & last_rank, fwd + 1, true);
        // Pinned pawns one by one, along the pin line only.
        for from in pawns & pinned {
            let along = line(king, from) & target;
            let mut t = attacks::pawn(us, from) & their;
            let one = shift(from.bb(), fwd) & empty;
            t |= one;
            if (one & third_rank).any() {
                t |= shift(one, fwd) & empty;
            }
            t &= along;
            let delta_of = |to: Square| to.index() as i32 - from.index() as i32;
            for to in t {
                sink.pawns(to.bb(), delta_of(to), last_rank.contains(to));
            }
        }

        // En passant: rare, so test it in full by looking at the board after the capture.
        // That covers the pawn pinned along a diagonal, the two pawns leaving a rank at once,
        // and the capture that removes (or fails to remove) a checking pawn.
        if let Some(ep) = self.ep {
            let captured = shift(ep.bb(), -fwd);
            for from in attacks::pawn(them, ep) & pawns {
                let after = (occ ^ from.bb() ^ captured) | ep.bb();
                if (self.attackers(king, them, after) & !captured).is_empty() {
                    sink.one(Move::new(from, ep));
                }
            }
        }
    }

    /// Castling (never out of, through or into check; the king is not in check here).
    #[inline]
    fn castling_moves<S: Sink>(&self, king: Square, us: Color, occ: Bitboard, sink: &mut S) {
        let rights = self.castling & BACK_RANKS & self.board.by_color(us);
        if rights.is_empty() {
            return;
        }
        let them = us.other();
        for rook in rights {
            // A right implies the king on its e-file home square (kept so by parse and play).
            let (king_to, rook_to) = if rook.file() == 7 { (6, 5) } else { (2, 3) };
            let rank = king.rank();
            let king_to = Square::new(king_to, rank).expect("on the board");
            let rook_to = Square::new(rook_to, rank).expect("on the board");
            let must_be_empty = (between(king, rook) | king_to.bb() | rook_to.bb()) & !king.bb();
            if (must_be_empty & occ & !rook.bb()).any() {
                continue;
            }
            let path = between(king, king_to) | king_to.bb();
            if path.into_iter().all(|sq| self.attackers(sq, them, occ).is_empty()) {
                sink.one(Move::new(king, king_to));
            }
        }
    }

    /// The legal moves of the side to move (castling written as the king's move, `e1g1`).
    #[must_use]
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.generate(&mut Collect(&mut list));
        list
    }

    /// The number of legal moves, without listing them.
    #[must_use]
    pub fn count_legal(&self) -> usize {
        let mut c = Count(0);
        self.generate(&mut c);
        c.0
    }

    /// Whether `m` is legal here.
    #[must_use]
    pub fn is_legal(&self, m: &Move) -> bool {
        self.legal_moves().contains(m)
    }

    /// Whether the move `m` (assumed legal here) captures: what it takes and where that stood.
    #[must_use]
    pub fn capture_of(&self, m: &Move) -> Option<(Square, Role, bool)> {
        if let Some(p) = self.board.piece_at(m.to) {
            return Some((m.to, p.role, false));
        }
        let mover = self.board.piece_at(m.from)?;
        if mover.role == Role::Pawn && Some(m.to) == self.ep && m.from.file() != m.to.file() {
            let sq = Square::new(m.to.file(), m.from.rank()).expect("on the board");
            return Some((sq, Role::Pawn, true));
        }
        None
    }

    /// Plays `m` if it is legal; otherwise hands the position back unchanged with the error.
    pub fn play(self, m: &Move) -> Result<Position, PlayError> {
        if self.is_legal(m) {
            let mut p = self;
            p.play_unchecked(m);
            Ok(p)
        } else {
            Err(PlayError { m: *m, position: Box::new(self) })
        }
    }

    /// Plays `m`, which must be one of [`Position::legal_moves`].
    pub fn play_unchecked(&mut self, m: &Move) {
        let us = self.turn;
        let (from, to) = (m.from, m.to);
        let piece = self.board.piece_at(from).expect("a legal move starts on a piece");
        let mut ep_next = None;
        self.halfmoves += 1;
        match piece.role {
            Role::Pawn => {
                self.halfmoves = 0;
                if Some(to) == self.ep
                    && from.file() != to.file()
                    && self.board.piece_at(to).is_none()
                {
                    self.board.remove(Square::new(to.file(), from.rank()).expect("on board"));
                }
                if from.rank().abs_diff(to.rank()) == 2 {
                    ep_next = Square::new(from.file(), u8::midpoint(from.rank(), to.rank()));
                }
            }
            Role::King => {
                // The king moved: both of its side's rights go.
                self.castling &= match us {
                    Color::White => Bitboard(!0xff),
                    Color::Black => Bitboard(!(0xff << 56)),
                };
                if from.file().abs_diff(to.file()) == 2 {
                    let (rook_from, rook_to) = if to.file() == 6 { (7, 5) } else { (0, 3) };
                    let rank = from.rank();
                    self.board.shift(
                        Square::new(rook_from, rank).expect("on board"),
                        Square::new(rook_to, rank).expect("on board"),
                    );
                }
            }
            _ => {}
        }
        self.castling &= !(from.bb() | to.bb());
        if self.board.shift(from, to).is_some() {
            self.halfmoves = 0;
        }
        if let Some(role) = m.promotion {
            self.board.put(to, role.of(us));
        }
        self.ep = ep_next;
        if us == Color::Black {
            self.fullmoves = self.fullmoves.saturating_add(1);
        }
        self.turn = us.other();
    }

    /// The en passant square if an en passant capture is legal now, else `None`.
    #[must_use]
    pub fn legal_ep_square(&self) -> Option<Square> {
        let ep = self.ep?;
        let pawns = self.board.by_piece(Role::Pawn.of(self.turn));
        if (attacks::pawn(self.turn.other(), ep) & pawns).is_empty() {
            return None;
        }
        self.legal_moves()
            .iter()
            .any(|m| {
                m.to == ep
                    && m.from.file() != ep.file()
                    && self.board.piece_at(m.from).is_some_and(|p| p.role == Role::Pawn)
            })
            .then_some(ep)
    }

    /// The full key of R-C2's repetition rule.
    #[must_use]
    pub fn repetition_key(&self) -> RepetitionKey {
        RepetitionKey {
            board: self.board.clone(),
            turn: self.turn,
            castling: self.castling,
            ep: self.legal_ep_square(),
        }
    }

    fn castling_fen(&self) -> String {
        let mut s = String::new();
        for (sq, c) in [("h1", 'K'), ("a1", 'Q'), ("h8", 'k'), ("a8", 'q')] {
            if self.castling.contains(Square::parse(sq, BoardSize::Eight).expect("a square")) {
                s.push(c);
            }
        }
        if s.is_empty() { "-".to_string() } else { s }
    }
}

/// A move refused by [`Position::play`]; the position comes back unchanged.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("illegal move {m:?}")]
pub struct PlayError {
    /// The move.
    pub m: Move,
    /// The unchanged position.
    pub position: Box<Position>,
}

fn perft(pos: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.count_legal() as u64,
        _ => pos
            .legal_moves()
            .iter()
            .map(|m| {
                let mut child = pos.clone();
                child.play_unchecked(m);
                perft(&child, depth - 1)
            })
            .sum(),
    }
}

impl Analysis for Position {
    /// Reads `board side castling ep halfmove fullmove` (R-C4); the last two may be left out.
    fn from_fen(fen: &str) -> Result<Position, FenError> {
        let fields: Vec<&str> = fen.split_ascii_whitespace().collect();
        if fields.len() != 6 && fields.len() != 4 {
            return Err(FenError::new(
                "fields",
                format!(
                    "expected 6 fields (board side castling en-passant halfmove fullmove), found {}",
                    fields.len()
                ),
            ));
        }
        let board = Board::from_board_fen(fields[0], BoardSize::Eight, Alphabet::ORTHODOX)?;
        // R-A1: any army, but exactly one king per side.
        for color in Color::ALL {
            let n = board.by_piece(Role::King.of(color)).count();
            if n != 1 {
                return Err(FenError::new(
                    "board",
                    format!("expected exactly one {color} king, found {n}"),
                ));
            }
        }
        if (board.by_role(Role::Pawn) & BACK_RANKS).any() {
            return Err(FenError::new("board", "a pawn stands on the first or last rank"));
        }
        let turn = match fields[1] {
            "w" => Color::White,
            "b" => Color::Black,
            other => {
                return Err(FenError::new("side", format!("'{other}' is not 'w' or 'b'")));
            }
        };
        let mut castling = Bitboard::EMPTY;
        if fields[2] != "-" {
            for c in fields[2].chars() {
                let (king, rook, color) = match c {
                    'K' => ("e1", "h1", Color::White),
                    'Q' => ("e1", "a1", Color::White),
                    'k' => ("e8", "h8", Color::Black),
                    'q' => ("e8", "a8", Color::Black),
                    _ => {
                        return Err(FenError::new(
                            "castling",
                            format!("'{c}' is not a castling right (K, Q, k, q or -)"),
                        ));
                    }
                };
                let king = Square::parse(king, BoardSize::Eight).expect("a square");
                let rook = Square::parse(rook, BoardSize::Eight).expect("a square");
                if castling.contains(rook) {
                    return Err(FenError::new("castling", format!("'{c}' appears twice")));
                }
                if board.piece_at(king) != Some(Role::King.of(color))
                    || board.piece_at(rook) != Some(Role::Rook.of(color))
                {
                    return Err(FenError::new(
                        "castling",
                        format!("'{c}' needs the {color} king on {king} and a rook on {rook}"),
                    ));
                }
                castling.insert(rook);
            }
        }
        let ep = if fields[3] == "-" {
            None
        } else {
            let sq = Square::parse(fields[3], BoardSize::Eight).ok_or_else(|| {
                FenError::new("en-passant", format!("'{}' is not a square or '-'", fields[3]))
            })?;
            // The square a pawn of the side not to move just passed over: behind that pawn,
            // with the square it came from empty.
            let (rank, dir) = if turn == Color::White { (5, -1) } else { (2, 1) };
            let pawn_sq = sq.offset(0, dir).expect("on the board");
            let origin = sq.offset(0, -dir).expect("on the board");
            if sq.rank() != rank
                || board.piece_at(pawn_sq) != Some(Role::Pawn.of(turn.other()))
                || board.piece_at(sq).is_some()
                || board.piece_at(origin).is_some()
            {
                return Err(FenError::new(
                    "en-passant",
                    format!(
                        "{sq} is not the square just passed over by a {} pawn's double step",
                        turn.other()
                    ),
                ));
            }
            Some(sq)
        };
        let (halfmoves, fullmoves) = if fields.len() == 6 {
            let h = fields[4].parse::<u32>().map_err(|_| {
                FenError::new("halfmove", format!("'{}' is not a number", fields[4]))
            })?;
            let f = fields[5].parse::<u32>().ok().filter(|&f| f >= 1).ok_or_else(|| {
                FenError::new("fullmove", format!("'{}' is not a number >= 1", fields[5]))
            })?;
            (h, f)
        } else {
            (0, 1)
        };
        let pos = Position { board, turn, castling, ep, halfmoves, fullmoves };
        let them = turn.other();
        if pos.attackers(pos.king(them), turn, pos.board.occupied()).any() {
            return Err(FenError::new(
                "board",
                format!("the {them} king is in check but it is {turn}'s move"),
            ));
        }
        Ok(pos)
    }

    fn to_fen(&self) -> String {
        format!(
            "{} {} {} {} {} {}",
            self.board.board_fen(Alphabet::ORTHODOX),
            self.turn.char(),
            self.castling_fen(),
            self.ep.map_or_else(|| "-".to_string(), |s| s.to_string()),
            self.halfmoves,
            self.fullmoves
        )
    }

    fn legal_uci(&self) -> Vec<String> {
        let mut v: Vec<String> =
            self.legal_moves().iter().map(|m| m.uci(Alphabet::ORTHODOX)).collect();
        v.sort();
        v
    }

    fn perft(&self, depth: u32) -> u64 {
        perft(self, depth)
    }

    fn divide(&self, depth: u32) -> Vec<(String, u64)> {
        let mut v: Vec<(String, u64)> = self
            .legal_moves()
            .iter()
            .map(|m| {
                let mut child = self.clone();
                child.play_unchecked(m);
                (m.uci(Alphabet::ORTHODOX), perft(&child, depth.saturating_sub(1)))
            })
            .collect();
        v.sort();
        v
    }
}

/// What both players of an open game are told after a move: the move and the end, if any.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Played {
    /// The move played (castling as the king's move).
    pub mv: Move,
    /// The result, if this move ended the game.
    pub end: Option<GameResult>,
}

/// A game of orthodox chess in progress: the position, the positions seen since the last
/// irreversible move (for repetition), and the result once over. Everyone sees everything.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    position: Position,
    /// Full keys of the positions since the last capture or pawn move, the current one last
    /// (an irreversible move makes every earlier position unrepeatable).
    history: Vec<RepetitionKey>,
    result: Option<GameResult>,
}

impl State {
    /// A game from the standard start.
    #[must_use]
    pub fn start() -> State {
        State::from_position(Position::start())
    }

    /// A game from any position (R-A1); it may already be over (for example stalemate).
    #[must_use]
    pub fn from_position(position: Position) -> State {
        let history = vec![position.repetition_key()];
        let mut s = State { position, history, result: None };
        s.result = s.automatic_end();
        s
    }

    /// The current position.
    #[must_use]
    pub const fn position(&self) -> &Position {
        &self.position
    }

    /// R-C2's automatic ends, in this order: checkmate, stalemate, insufficient material,
    /// threefold repetition, the 50-move rule. (A mate delivered on the 100th ply stands.)
    fn automatic_end(&self) -> Option<GameResult> {
        let p = &self.position;
        if p.count_legal() == 0 {
            return Some(if p.is_check() {
                GameResult::win(p.turn.other(), EndReason::Checkmate)
            } else {
                GameResult::draw(EndReason::Stalemate)
            });
        }
        if p.board.insufficient_material() {
            return Some(GameResult::draw(EndReason::InsufficientMaterial));
        }
        let now = self.history.last().expect("history holds the current position");
        if self.history.iter().filter(|k| *k == now).count() >= 3 {
            return Some(GameResult::draw(EndReason::Repetition));
        }
        if p.halfmoves >= 100 {
            return Some(GameResult::draw(EndReason::FiftyMove));
        }
        None
    }

    /// Plays a legal move by the side to move; illegal moves are refused, the state unchanged.
    pub fn play(&self, m: &Move) -> Result<State, ActionError> {
        if self.result.is_some() {
            return Err(ActionError::GameOver);
        }
        if !self.position.is_legal(m) {
            return Err(ActionError::IllegalMove(m.uci(Alphabet::ORTHODOX)));
        }
        let mut next = self.clone();
        next.position.play_unchecked(m);
        if next.position.halfmoves == 0 {
            next.history.clear();
        }
        next.history.push(next.position.repetition_key());
        next.result = next.automatic_end();
        Ok(next)
    }
}

impl crate::Game for State {
    type Action = Move;
    type Observation = Played;

    fn variant(&self) -> Variant {
        Variant::Chess
    }

    fn to_act(&self) -> Vec<Color> {
        if self.result.is_some() { Vec::new() } else { vec![self.position.turn] }
    }

    fn apply(&self, actor: Color, action: &Move) -> Result<Transition<State, Played>, ActionError> {
        if self.result.is_some() {
            return Err(ActionError::GameOver);
        }
        if actor != self.position.turn {
            return Err(ActionError::NotYourTurn(actor));
        }
        let state = self.play(action)?;
        let told = Played { mv: *action, end: state.result };
        Ok(Transition { told: ByColor { white: Some(told.clone()), black: Some(told) }, state })
    }

    fn result(&self) -> Option<GameResult> {
        self.result
    }
}

//! The full 6x6 Secret Chess position (both boards, lifespans, false squares, scores), its
//! position string, threats, scoring, legal moves and perft.

use crate::{
    Alphabet, Analysis, Bitboard, Board, BoardSize, ByColor, Color, FenError, Piece, Role, Square,
    attacks,
};
use std::fmt;

const SIZE: BoardSize = BoardSize::Six;
const ALPHABET: Alphabet = Alphabet::SECRET_CHESS;

/// The most false squares a side may place (R-G1), or three with the False Square item (R-G9).
pub const MAX_FALSE_SQUARES: usize = 3;

/// A side's territory: its three home ranks (R-G1). White holds ranks 1-3, Black ranks 4-6.
#[must_use]
pub fn territory(color: Color) -> Bitboard {
    match color {
        Color::White => SIZE.rank_bb(0) | SIZE.rank_bb(1) | SIZE.rank_bb(2),
        Color::Black => SIZE.rank_bb(3) | SIZE.rank_bb(4) | SIZE.rank_bb(5),
    }
}

/// The lifespan a piece starts with (R-G3): Q 1, B 2, R 3, N 4. The king never ages (R-G2).
#[must_use]
pub const fn initial_lifespan(role: Role) -> u8 {
    match role {
        Role::Queen => 1,
        Role::Bishop => 2,
        Role::Rook => 3,
        Role::Knight => 4,
        _ => 0,
    }
}

/// What a side does in one turn: a move, or a pass when the turn skips to scoring.
///
/// Text: `b1d3`; a knight's powering move (R-G4) is a (3,1) leap with the suffix `+` (`b1c4+`),
/// later moves of a powered knight are written plainly; a pass is `0000`. The suffix cannot
/// clash with anything else: the game has no promotions.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(type = "string"))]
pub enum TurnMove {
    /// The side has only its king, or no legal move: the turn goes straight to scoring.
    Pass,
    /// A piece moves from `from` to `to`; `power` marks a knight's powering move (R-G4).
    Move {
        /// Where the piece stands.
        from: Square,
        /// Where it goes.
        to: Square,
        /// Whether this move powers up a knight.
        power: bool,
    },
}

/// A move text that could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad move '{text}': {problem}")]
pub struct MoveTextError {
    /// The text as given.
    pub text: String,
    /// What is wrong.
    pub problem: &'static str,
}

impl TurnMove {
    /// Reads `b1d3`, `b1c4+` or `0000`.
    pub fn parse(text: &str) -> Result<TurnMove, MoveTextError> {
        let err = |problem| MoveTextError { text: text.to_string(), problem };
        if text == "0000" {
            return Ok(TurnMove::Pass);
        }
        if !text.is_ascii() || !(4..=5).contains(&text.len()) {
            return Err(err("expected from-square, to-square and an optional '+' (or 0000)"));
        }
        let from = Square::parse(&text[0..2], SIZE)
            .ok_or_else(|| err("from-square is not on the 6x6 board"))?;
        let to = Square::parse(&text[2..4], SIZE)
            .ok_or_else(|| err("to-square is not on the 6x6 board"))?;
        let power = match &text[4..] {
            "" => false,
            "+" => true,
            _ => return Err(err("the only suffix is '+' (a knight's power-up, R-G4)")),
        };
        Ok(TurnMove::Move { from, to, power })
    }
}

/// The binary form of a [`TurnMove`]: the enum as it is, squares as index bytes.
#[derive(serde::Serialize, serde::Deserialize)]
enum TurnMoveBytes {
    Pass,
    Move { from: Square, to: Square, power: bool },
}

/// Serde form: the text (`b1c4+`, `0000`) in human-readable formats; in binary ones the enum
/// with squares as index bytes, one encoding per move.
impl serde::Serialize for TurnMove {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if s.is_human_readable() {
            return s.collect_str(self);
        }
        match *self {
            TurnMove::Pass => TurnMoveBytes::Pass,
            TurnMove::Move { from, to, power } => TurnMoveBytes::Move { from, to, power },
        }
        .serialize(s)
    }
}

impl<'de> serde::Deserialize<'de> for TurnMove {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<TurnMove, D::Error> {
        use serde::de::Error as _;
        if d.is_human_readable() {
            return TurnMove::parse(&String::deserialize(d)?).map_err(D::Error::custom);
        }
        Ok(match TurnMoveBytes::deserialize(d)? {
            TurnMoveBytes::Pass => TurnMove::Pass,
            TurnMoveBytes::Move { from, to, power } => TurnMove::Move { from, to, power },
        })
    }
}

impl fmt::Display for TurnMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TurnMove::Pass => f.write_str("0000"),
            TurnMove::Move { from, to, power } => {
                write!(f, "{from}{to}{}", if *power { "+" } else { "" })
            }
        }
    }
}

/// Why a side passes.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum PassReason {
    /// Only the king is left (the seed's step 2: straight to scoring).
    OnlyKing,
    /// There are pieces, but none can move (every target occupied or in enemy territory).
    NoLegalMove,
}

/// A full position, taken at step 3 (movement) of the side to move: its lifespan reduction
/// (step 1) has already happened.
///
/// Position string: `board side moved false-squares frozen scores turn`, for example
/// `n1qkrb/6/6/3B2/6/N1KQ1R b d3=2 - - 2-3 2`:
/// - `board`: 6x6 board field, letters K Q R B N (upper case White);
/// - `side`: `w` or `b`;
/// - `moved`: every piece that has ever moved with its lifespan, `d3=2`, a `+` after a powered
///   knight (`c4=3+`), comma-separated, `-` for none; unlisted pieces have never moved and have
///   their full lifespan;
/// - `false-squares`: comma-separated or `-`; those on ranks 4-6 were placed by White, those on
///   ranks 1-3 by Black (each side places them in the enemy territory, R-G1);
/// - `frozen`: pieces under Life Freeze (R-G9) that skip their owner's next lifespan reduction;
/// - `scores`: `white-black`;
/// - `turn`: the number of the current turn, counting both sides' turns from 1.
///
/// The last five fields may be left out; they default to `- - - 0-0 1`.
#[derive(Clone, PartialEq, Eq)]
pub struct Position {
    board: Board,
    side: Color,
    moved: Bitboard,
    powered: Bitboard,
    frozen: Bitboard,
    life: [u8; 64],
    false_squares: ByColor<Bitboard>,
    scores: ByColor<u32>,
    turn: u32,
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({})", self.to_fen())
    }
}

/// One piece as its owner sees it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PieceInfo {
    /// Where it stands.
    pub square: Square,
    /// What it is.
    pub role: Role,
    /// Its lifespan if it has ever moved (R-G3); `None` while it has not.
    pub lifespan: Option<u8>,
    /// Whether it is a powered-up knight (R-G4).
    pub powered: bool,
    /// Whether it is under Life Freeze (R-G9).
    pub frozen: bool,
}

fn parse_square_list(s: &str, field: &'static str) -> Result<Vec<Square>, FenError> {
    if s == "-" {
        return Ok(Vec::new());
    }
    s.split(',')
        .map(|t| {
            Square::parse(t, SIZE).ok_or_else(|| {
                FenError::new(field, format!("'{t}' is not a square of the 6x6 board"))
            })
        })
        .collect()
}

fn square_list(b: Bitboard) -> String {
    if b.is_empty() { "-".to_string() } else { b.map(|s| s.name()).collect::<Vec<_>>().join(",") }
}

impl Position {
    /// The start of play from the two formations and each side's false squares. Validation of
    /// the setup itself belongs to [`crate::secretchess6::Setup`].
    #[must_use]
    pub(crate) fn from_setup(
        formations: ByColor<[Option<Role>; 6]>,
        false_squares: ByColor<Bitboard>,
    ) -> Position {
        let mut board = Board::empty(SIZE);
        let mut life = [0u8; 64];
        for color in Color::ALL {
            let rank = color.fold(0, 5);
            for (file, role) in formations[color].iter().enumerate() {
                if let Some(role) = role {
                    let sq = Square::new(file as u8, rank).expect("file below 6");
                    board.put(sq, role.of(color));
                    life[sq.index()] = initial_lifespan(*role);
                }
            }
        }
        Position {
            board,
            side: Color::White,
            moved: Bitboard::EMPTY,
            powered: Bitboard::EMPTY,
            frozen: Bitboard::EMPTY,
            life,
            false_squares,
            scores: ByColor::default(),
            turn: 1,
        }
    }

    /// The side to move.
    #[must_use]
    pub fn side(&self) -> Color {
        self.side
    }

    /// The board (both sides).
    #[must_use]
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The scores so far.
    #[must_use]
    pub fn scores(&self) -> ByColor<u32> {
        self.scores
    }

    /// The number of the current turn (both sides' turns counted, from 1).
    #[must_use]
    pub fn turn(&self) -> u32 {
        self.turn
    }

    /// The false squares `color` placed (they lie in the other side's territory).
    #[must_use]
    pub fn false_squares(&self, color: Color) -> Bitboard {
        self.false_squares[color]
    }

    /// `color`'s pieces with what their owner knows of them, in square order.
    #[must_use]
    pub fn pieces_of(&self, color: Color) -> Vec<PieceInfo> {
        self.board
            .by_color(color)
            .map(|square| {
                let role = self.board.piece_at(square).expect("occupied").role;
                PieceInfo {
                    square,
                    role,
                    lifespan: self.moved.contains(square).then(|| self.life[square.index()]),
                    powered: self.powered.contains(square),
                    frozen: self.frozen.contains(square),
                }
            })
            .collect()
    }

    /// Whether `color` has any piece besides its king.
    #[must_use]
    pub fn has_men(&self, color: Color) -> bool {
        (self.board.by_color(color) & !self.board.by_role(Role::King)).any()
    }

    /// R-G8: the game is over once both sides have only their kings.
    #[must_use]
    pub fn only_kings(&self) -> bool {
        !self.has_men(Color::White) && !self.has_men(Color::Black)
    }

    /// The squares of the enemy territory the piece on `sq` threatens (R-G5): every square it
    /// could move to in chess, sliders stopping at (and including) the first occupied square
    /// of either side, knights leaping (3,1) once powered (R-G4). The king never moves
    /// (R-G2), so it threatens nothing; it stands on its first rank anyway, out of reach of
    /// the enemy territory.
    #[must_use]
    pub fn threats_from(&self, sq: Square) -> Bitboard {
        let Some(piece) = self.board.piece_at(sq) else { return Bitboard::EMPTY };
        self.reach(sq, piece) & territory(piece.color.other())
    }

    /// Every square the piece on `sq` reaches by its chess movement, on the whole board.
    fn reach(&self, sq: Square, piece: Piece) -> Bitboard {
        let occ = self.board.occupied();
        match piece.role {
            Role::Queen => SIZE.queen_attacks(sq, occ),
            Role::Rook => SIZE.rook_attacks(sq, occ),
            Role::Bishop => SIZE.bishop_attacks(sq, occ),
            Role::Knight if self.powered.contains(sq) => attacks::leaper_3_1(sq) & SIZE.mask(),
            Role::Knight => SIZE.knight_attacks(sq),
            _ => Bitboard::EMPTY,
        }
    }

    /// Every square of `color`'s territory threatened by an enemy piece (R-G5).
    #[must_use]
    pub fn threatened(&self, color: Color) -> Bitboard {
        self.board
            .by_color(color.other())
            .fold(Bitboard::EMPTY, |acc, sq| acc | self.threats_from(sq))
    }

    /// What `color` is shown in red (R-G6): its squares threatened by an enemy piece plus the
    /// enemy's false squares, in one set, so that nothing tells them apart.
    #[must_use]
    pub fn red_squares(&self, color: Color) -> Bitboard {
        self.threatened(color) | self.false_squares[color.other()]
    }

    /// The points `color` scores now (R-G7): one per (own piece, threatened enemy piece) pair,
    /// two if the threatened piece is the king. False squares play no part.
    #[must_use]
    pub fn points(&self, color: Color) -> u32 {
        let enemy = self.board.by_color(color.other());
        let king = self.board.by_role(Role::King);
        self.board
            .by_color(color)
            .map(|sq| {
                let hit = self.threats_from(sq) & enemy;
                (hit & !king).count() + 2 * (hit & king).count()
            })
            .sum()
    }

    /// The legal turns of the side to move, sorted by text (R-G2, R-G4). Empty once the game is
    /// over (R-G8); a single [`TurnMove::Pass`] when the side has only its king or no piece
    /// can move.
    #[must_use]
    pub fn legal_moves(&self) -> Vec<TurnMove> {
        if self.only_kings() {
            return Vec::new();
        }
        let us = self.side;
        let own = territory(us) & !self.board.occupied();
        let mut moves = Vec::new();
        for from in self.board.by_color(us) {
            let piece = self.board.piece_at(from).expect("occupied");
            // R-G2: no move into the enemy territory, none onto an occupied square; the king
            // never moves (its reach is empty).
            for to in self.reach(from, piece) & own {
                moves.push(TurnMove::Move { from, to, power: false });
            }
            // R-G4: an unpowered knight may power up when it moves; the powering move is
            // already a (3,1) leap ("from that move on").
            if piece.role == Role::Knight && !self.powered.contains(from) {
                for to in attacks::leaper_3_1(from) & own {
                    moves.push(TurnMove::Move { from, to, power: true });
                }
            }
        }
        if moves.is_empty() {
            return vec![TurnMove::Pass];
        }
        moves.sort_by_cached_key(ToString::to_string);
        moves
    }

    /// Why the side to move passes, if it must.
    #[must_use]
    pub fn pass_reason(&self) -> Option<PassReason> {
        if self.only_kings() {
            None
        } else if !self.has_men(self.side) {
            Some(PassReason::OnlyKing)
        } else if self.legal_moves() == [TurnMove::Pass] {
            Some(PassReason::NoLegalMove)
        } else {
            None
        }
    }

    /// Plays `m`, which the caller took from [`Position::legal_moves`]: the move (step 3), the
    /// scoring for both sides (step 4, R-G7), then the next side's lifespan reduction (step 1
    /// of its turn, R-G3).
    #[must_use]
    pub fn play(&self, m: TurnMove) -> Position {
        let mut next = self.clone();
        if let TurnMove::Move { from, to, power } = m {
            let fi = from.index();
            let mut life = next.life[fi];
            let mut powered = next.powered.contains(from);
            if power {
                // R-G4: the lifespan becomes min(current, 3), permanently powered.
                life = life.min(3);
                powered = true;
            }
            next.board.shift(from, to);
            next.life[fi] = 0;
            next.life[to.index()] = life;
            next.moved.remove(from);
            next.powered.remove(from);
            next.frozen.remove(from);
            next.moved.insert(to);
            next.powered.set(to, powered);
        }
        let white = next.points(Color::White);
        let black = next.points(Color::Black);
        next.scores.white = next.scores.white.saturating_add(white);
        next.scores.black = next.scores.black.saturating_add(black);
        next.side = self.side.other();
        next.turn = next.turn.saturating_add(1);
        next.age_side_to_move();
        next
    }

    /// R-G3: at the start of its turn every piece of the side that has ever moved loses one
    /// point of lifespan and is removed at zero, except a piece under Life Freeze (R-G9), which
    /// skips this one reduction.
    fn age_side_to_move(&mut self) {
        let us = self.board.by_color(self.side);
        for sq in self.moved & us & !self.frozen {
            let l = &mut self.life[sq.index()];
            *l = l.saturating_sub(1);
            if *l == 0 {
                self.board.remove(sq);
                self.moved.remove(sq);
                self.powered.remove(sq);
            }
        }
        self.frozen &= !us;
    }

    /// Whether nothing can ever change: no piece has moved (so none ages) and neither side
    /// has a legal move. Only composed positions can be dead.
    #[must_use]
    pub fn is_dead(&self) -> bool {
        if self.moved.any() || self.only_kings() {
            return false;
        }
        let mut other = self.clone();
        other.side = self.side.other();
        self.legal_moves() == [TurnMove::Pass] && other.legal_moves() == [TurnMove::Pass]
    }

    /// Puts `color`'s piece on `sq` under Life Freeze (R-G9). The caller checks ownership.
    pub(crate) fn freeze(&mut self, sq: Square) {
        self.frozen.insert(sq);
    }
}

impl Analysis for Position {
    fn from_fen(fen: &str) -> Result<Position, FenError> {
        let fields: Vec<&str> = fen.split_whitespace().collect();
        if !(2..=7).contains(&fields.len()) {
            return Err(FenError::new(
                "fields",
                format!(
                    "expected 2 to 7 fields (board side moved false-squares frozen scores turn), found {}",
                    fields.len()
                ),
            ));
        }
        let field = |i: usize, default: &'static str| fields.get(i).copied().unwrap_or(default);
        let board = Board::from_board_fen(fields[0], SIZE, ALPHABET)?;
        for color in Color::ALL {
            let kings = board.by_piece(Role::King.of(color)).count();
            if kings != 1 {
                return Err(FenError::new(
                    "board",
                    format!("{color} has {kings} kings, expected exactly one (R-A1)"),
                ));
            }
            // R-G2: no piece ever enters the enemy territory.
            if let Some(sq) = (board.by_color(color) & !territory(color)).first() {
                return Err(FenError::new(
                    "board",
                    format!("{color} piece on {sq} stands in the enemy territory (R-G2)"),
                ));
            }
        }
        let side = Color::parse(fields[1])
            .ok_or_else(|| FenError::new("side", format!("'{}' is not w or b", fields[1])))?;
        let mut life = [0u8; 64];
        for (sq, p) in board.pieces() {
            life[sq.index()] = initial_lifespan(p.role);
        }
        let mut moved = Bitboard::EMPTY;
        let mut powered = Bitboard::EMPTY;
        let moved_field = field(2, "-");
        if moved_field != "-" {
            for item in moved_field.split(',') {
                let err = |p: String| FenError::new("moved", format!("'{item}': {p}"));
                let (sq_text, rest) = item
                    .split_once('=')
                    .ok_or_else(|| err("expected square=lifespan, like d3=2".into()))?;
                let sq = Square::parse(sq_text, SIZE)
                    .ok_or_else(|| err("not a square of the 6x6 board".into()))?;
                let (num, is_powered) = match rest.strip_suffix('+') {
                    Some(n) => (n, true),
                    None => (rest, false),
                };
                let l: u8 = num.parse().map_err(|_| err("lifespan is not a number".into()))?;
                let piece = board.piece_at(sq).ok_or_else(|| err("no piece there".into()))?;
                if piece.role == Role::King {
                    return Err(err("the king never moves (R-G2)".into()));
                }
                if moved.contains(sq) {
                    return Err(err("square listed twice".into()));
                }
                let max = if is_powered { 3 } else { initial_lifespan(piece.role) };
                if is_powered && piece.role != Role::Knight {
                    return Err(err("only a knight can be powered up (R-G4)".into()));
                }
                if !(1..=max).contains(&l) {
                    return Err(err(format!("lifespan must be 1 to {max} (R-G3, R-G4)")));
                }
                moved.insert(sq);
                powered.set(sq, is_powered);
                life[sq.index()] = l;
            }
        }
        let mut false_squares = ByColor::<Bitboard>::default();
        for sq in parse_square_list(field(3, "-"), "false-squares")? {
            // A false square lies in the enemy territory of the side that placed it (R-G1).
            let owner =
                if territory(Color::Black).contains(sq) { Color::White } else { Color::Black };
            if false_squares[owner].contains(sq) {
                return Err(FenError::new("false-squares", format!("{sq} is listed twice")));
            }
            false_squares[owner].insert(sq);
        }
        for color in Color::ALL {
            let n = false_squares[color].count() as usize;
            if n > MAX_FALSE_SQUARES {
                return Err(FenError::new(
                    "false-squares",
                    format!(
                        "{color} has {n} false squares, at most {MAX_FALSE_SQUARES} (R-G1, R-G9)"
                    ),
                ));
            }
        }
        let mut frozen = Bitboard::EMPTY;
        for sq in parse_square_list(field(4, "-"), "frozen")? {
            let piece = board
                .piece_at(sq)
                .ok_or_else(|| FenError::new("frozen", format!("no piece on {sq}")))?;
            if piece.role == Role::King {
                return Err(FenError::new("frozen", format!("{sq}: the king never ages (R-G2)")));
            }
            if piece.color == side {
                // The side to move has had its lifespan reduction: any freeze is spent.
                return Err(FenError::new(
                    "frozen",
                    format!(
                        "{sq}: the side to move has already aged this turn, its freeze is spent"
                    ),
                ));
            }
            frozen.insert(sq);
        }
        let scores_text = field(5, "0-0");
        let (w, b) = scores_text.split_once('-').ok_or_else(|| {
            FenError::new("scores", format!("'{scores_text}' is not white-black"))
        })?;
        let num = |t: &str| {
            t.parse::<u32>()
                .map_err(|_| FenError::new("scores", format!("'{t}' is not a whole number")))
        };
        let scores = ByColor { white: num(w)?, black: num(b)? };
        let turn_text = field(6, "1");
        let turn = turn_text.parse::<u32>().ok().filter(|&t| t >= 1).ok_or_else(|| {
            FenError::new("turn", format!("'{turn_text}' is not a number from 1"))
        })?;
        Ok(Position { board, side, moved, powered, frozen, life, false_squares, scores, turn })
    }

    fn to_fen(&self) -> String {
        let moved = if self.moved.is_empty() {
            "-".to_string()
        } else {
            self.moved
                .map(|sq| {
                    let plus = if self.powered.contains(sq) { "+" } else { "" };
                    format!("{sq}={}{plus}", self.life[sq.index()])
                })
                .collect::<Vec<_>>()
                .join(",")
        };
        format!(
            "{} {} {} {} {} {}-{} {}",
            self.board.board_fen(ALPHABET),
            self.side.char(),
            moved,
            square_list(self.false_squares.white | self.false_squares.black),
            square_list(self.frozen),
            self.scores.white,
            self.scores.black,
            self.turn
        )
    }

    fn legal_uci(&self) -> Vec<String> {
        self.legal_moves().iter().map(ToString::to_string).collect()
    }

    fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let moves = self.legal_moves();
        if depth == 1 {
            return moves.len() as u64;
        }
        moves.into_iter().map(|m| self.play(m).perft(depth - 1)).sum()
    }

    fn divide(&self, depth: u32) -> Vec<(String, u64)> {
        self.legal_moves()
            .into_iter()
            .map(|m| (m.to_string(), self.play(m).perft(depth.saturating_sub(1))))
            .collect()
    }
}

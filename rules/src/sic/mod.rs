//! Secret Intelligence Chess (`000_…`), ruleset `sic/2024`: rules R-S1..R-S12.
//!
//! - [`setup`]: the frozen random setup (R-S1, R-S2), documented in `docs/sic-setup.md`.
//! - [`Position`]: a full position (R-S12 position string), its legal moves (R-S3..R-S9) and
//!   perft; it implements [`Analysis`] for any army with one king per side (R-A1).
//! - [`State`]: a game in progress implementing [`crate::Game`]: moves in, what each side is
//!   told out (R-S8, R-S10, R-S11), plus each side's [`View`].
//! - `compact`: the legal-move lists of reports and views in binary formats (the protocol's
//!   canonical bytes): grouped by origin square, one encoding per list ([`CompactError`]).
//!
//! Words used throughout (the definitions every rule below relies on):
//! - *E could capture X*: piece E could take piece X by one of E's capturing moves on the
//!   current occupancy, ignoring whether that capture would be legal (pins and the safety of
//!   E's own king do not matter: the seed's subjunctive "could"). See [`movegen`].
//! - *X is attacked*: some enemy piece could capture X. A king that is attacked is in check.
//!
//! Decisions where RULES.md is silent (tested in `rules/tests/sic_rules.rs`):
//! - R-S6 a / R-S7 squares are judged after the move (the piece has left its square, a captured
//!   piece is gone). "Blocks/prevents a check" = the king is in check now and not after.
//! - R-S9 "could move there by its own movement" is movement geometry (path clear; pawns
//!   forward one or two, or diagonally forward); the Spy's and Decoy's square restrictions do
//!   not apply, since neither piece may be attacked. A swap never puts a pawn on its last rank.
//!   A swap moved by a pawn resets the 50-move count; a passive pawn does not.
//! - R-S4: the ep square is recorded only when an enemy pawn attacks it, and never after a
//!   double step that promotes. A pawn may stand on its own first rank (passive swap).
//! - R-S12 parsing rejects a position whose side not to move is in check, and pawns on their
//!   own last rank.

mod compact;
mod game;
mod movegen;
mod setup;

pub use compact::CompactError;
pub use game::{
    CheckReport, LostPiece, MoverReport, Observation, OpponentReport, OwnPiece, State,
    TrackedPiece, View,
};
pub use setup::{Pair, SideSetup, setup, setup_fen, start_position};

use crate::{Alphabet, Analysis, Bitboard, Board, BoardSize, Color, FenError, Move, Role, Square};
use serde::{Deserialize, Serialize};

/// The Spy's rules (R-S6): the default is the seed's precise ("alternate") wording.
#[derive(
    Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum SpyRule {
    /// R-S6 default: moves as N, B or R; square restriction (a) and capture restriction (b).
    #[default]
    Default,
    /// R-S6 option `spy-original`: moves as N, B or R without capturing; captures by one step.
    Original,
}

/// The seeds of [`EXAMPLE_FEN`]: White's setup from 32 bytes `00`, Black's from 32 bytes `01`.
pub const EXAMPLE_SEEDS: ([u8; 32], [u8; 32]) = ([0; 32], [1; 32]);

/// A fixed example start: [`start_position`] of [`EXAMPLE_SEEDS`] (checked by a test).
pub const EXAMPLE_FEN: &str = "brk1dn1r/ppppp1ba/1n3ppp/8/8/RPPN1P1P/PABPPBPD/K3RN2 w a1e1f1a2b2c2d2e2f2g2h2a3b3c3d3f3h3b6f6g6h6a7b7c7d7e7g7h7a8b8c8e8f8h8 - 0 1";

/// A full position: the board, the side to move, which pieces are unmoved (R-S9, R-S12), the en
/// passant square (R-S4), the clocks, and the Spy option in force.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    pub(crate) board: Board,
    pub(crate) turn: Color,
    /// Squares whose piece has not moved under its own power (R-S12).
    pub(crate) unmoved: Bitboard,
    /// The square passed over by a pawn's double step just made, set only when an enemy pawn
    /// attacks it (R-S4), so equal positions print equally (R-C2 repetition).
    pub(crate) ep: Option<Square>,
    pub(crate) halfmove: u32,
    pub(crate) fullmove: u32,
    pub(crate) spy: SpyRule,
}

/// The `unmoved-squares` field: square names concatenated in increasing index order, `-` if none.
pub(crate) fn squares_field(set: Bitboard) -> String {
    if set.is_empty() { "-".to_string() } else { set.map(|s| s.to_string()).collect() }
}

impl Position {
    /// A starting position: `turn` to move, the given squares unmoved, clocks `0 1`.
    pub(crate) fn from_parts(board: Board, turn: Color, unmoved: Bitboard) -> Position {
        Position { board, turn, unmoved, ep: None, halfmove: 0, fullmove: 1, spy: SpyRule::Default }
    }

    /// Parses a position string (R-S12) under the given Spy rule (R-S6).
    pub fn from_fen_with(fen: &str, spy: SpyRule) -> Result<Position, FenError> {
        let fields: Vec<&str> = fen.split_ascii_whitespace().collect();
        if fields.len() != 6 {
            return Err(FenError::new(
                "fields",
                format!(
                    "expected 6 fields (board side unmoved-squares ep-square halfmove fullmove), \
                     found {}",
                    fields.len()
                ),
            ));
        }
        let board = Board::from_board_fen(fields[0], BoardSize::Eight, Alphabet::SIC)?;
        for color in Color::ALL {
            let kings = board.by_piece(Role::King.of(color)).count();
            if kings != 1 {
                return Err(FenError::new(
                    "board",
                    format!("{color} has {kings} kings, expected exactly one (R-A1)"),
                ));
            }
            // A pawn on its own last rank would have had to promote (R-S5). A pawn on its own
            // first rank is possible: the passive piece of a swap (R-S9).
            let last = BoardSize::Eight.rank_bb(BoardSize::Eight.last_rank(color));
            if let Some(sq) = (board.by_piece(Role::Pawn.of(color)) & last).first() {
                return Err(FenError::new(
                    "board",
                    format!("{color} pawn on {sq}, its last rank (R-S5 promotion is compulsory)"),
                ));
            }
        }
        let turn = Color::parse(fields[1]).ok_or_else(|| {
            FenError::new("side", format!("'{}' is not a side (expected w or b)", fields[1]))
        })?;
        let unmoved = parse_squares(fields[2], &board)?;
        let ep = parse_ep(fields[3], &board, turn)?;
        let halfmove = fields[4].parse::<u32>().map_err(|_| {
            FenError::new("halfmove", format!("'{}' is not a non-negative number", fields[4]))
        })?;
        let fullmove = fields[5].parse::<u32>().ok().filter(|&n| n >= 1).ok_or_else(|| {
            FenError::new("fullmove", format!("'{}' is not a number >= 1", fields[5]))
        })?;
        let pos = Position { board, turn, unmoved, ep, halfmove, fullmove, spy };
        if pos.in_check(!turn) {
            return Err(FenError::new(
                "side",
                format!("{} is not to move but its king is in check", !turn),
            ));
        }
        Ok(pos)
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

    /// The squares of unmoved pieces (R-S12).
    #[must_use]
    pub const fn unmoved(&self) -> Bitboard {
        self.unmoved
    }

    /// The en passant square (R-S4), if an en passant capture may be possible.
    #[must_use]
    pub const fn ep_square(&self) -> Option<Square> {
        self.ep
    }

    /// The Spy rule in force (R-S6).
    #[must_use]
    pub const fn spy_rule(&self) -> SpyRule {
        self.spy
    }

    /// The same position under another Spy rule.
    #[must_use]
    pub fn with_spy_rule(mut self, spy: SpyRule) -> Position {
        self.spy = spy;
        self
    }

    /// Plies since the last capture or pawn move (R-C2 50-move rule).
    #[must_use]
    pub const fn halfmove(&self) -> u32 {
        self.halfmove
    }

    /// The move number.
    #[must_use]
    pub const fn fullmove(&self) -> u32 {
        self.fullmove
    }

    /// The legal moves of the side to move, sorted by UCI text.
    #[must_use]
    pub fn legal_moves(&self) -> Vec<Move> {
        let mut moves = movegen::legal_moves(self);
        moves.sort_by_key(|m| m.uci_order(Alphabet::SIC));
        moves
    }

    /// Whether `m` is legal here.
    #[must_use]
    pub fn is_legal(&self, m: &Move) -> bool {
        movegen::legal_moves(self).contains(m)
    }

    /// The position after the legal move `m`, or `None` if `m` is not legal.
    #[must_use]
    pub fn play(&self, m: &Move) -> Option<Position> {
        self.is_legal(m).then(|| movegen::play_unchecked(self, m).0)
    }

    /// Whether `color`'s king is attacked (in check).
    #[must_use]
    pub fn in_check(&self, color: Color) -> bool {
        movegen::king_attacked(&self.board, self.spy, color)
    }

    fn perft_inner(&self, depth: u32) -> u64 {
        let moves = movegen::legal_moves(self);
        if depth == 1 {
            return moves.len() as u64;
        }
        moves.iter().map(|m| movegen::play_unchecked(self, m).0.perft_inner(depth - 1)).sum()
    }
}

fn parse_squares(s: &str, board: &Board) -> Result<Bitboard, FenError> {
    let mut set = Bitboard::EMPTY;
    if s == "-" {
        return Ok(set);
    }
    if !s.is_ascii() || !s.len().is_multiple_of(2) {
        return Err(FenError::new(
            "unmoved-squares",
            format!("'{s}' is not '-' or a list of square names like a1b2"),
        ));
    }
    let mut last: Option<Square> = None;
    for i in (0..s.len()).step_by(2) {
        let name = &s[i..i + 2];
        let sq = Square::parse(name, BoardSize::Eight)
            .ok_or_else(|| FenError::new("unmoved-squares", format!("'{name}' is not a square")))?;
        if last.is_some_and(|l| l >= sq) {
            return Err(FenError::new(
                "unmoved-squares",
                format!("'{name}' is out of order (squares are listed a1, b1, ..., h8, once each)"),
            ));
        }
        if board.piece_at(sq).is_none() {
            return Err(FenError::new("unmoved-squares", format!("'{name}' is an empty square")));
        }
        last = Some(sq);
        set.insert(sq);
    }
    Ok(set)
}

/// The en passant square (R-S4): the square a pawn of the side not to move has just passed
/// over with a double step. Quick pawns double-step from any rank, so any rank can hold it.
fn parse_ep(s: &str, board: &Board, turn: Color) -> Result<Option<Square>, FenError> {
    if s == "-" {
        return Ok(None);
    }
    let sq = Square::parse(s, BoardSize::Eight)
        .ok_or_else(|| FenError::new("ep-square", format!("'{s}' is not '-' or a square")))?;
    let them = !turn;
    let fwd = them.fold(1, -1);
    let pawn_sq = sq.offset(0, fwd);
    let from_sq = sq.offset(0, -fwd);
    let pawn_ok = pawn_sq.is_some_and(|p| board.piece_at(p) == Some(Role::Pawn.of(them)));
    let empty =
        board.piece_at(sq).is_none() && from_sq.is_some_and(|f| board.piece_at(f).is_none());
    if !pawn_ok || !empty {
        return Err(FenError::new(
            "ep-square",
            format!("{s} is not a square just passed over by a {them} pawn's double step"),
        ));
    }
    Ok(Some(sq))
}

impl Analysis for Position {
    fn from_fen(fen: &str) -> Result<Position, FenError> {
        Position::from_fen_with(fen, SpyRule::Default)
    }

    fn to_fen(&self) -> String {
        format!(
            "{} {} {} {} {} {}",
            self.board.board_fen(Alphabet::SIC),
            self.turn.char(),
            squares_field(self.unmoved),
            self.ep.map_or_else(|| "-".to_string(), |s| s.to_string()),
            self.halfmove,
            self.fullmove
        )
    }

    fn legal_uci(&self) -> Vec<String> {
        self.legal_moves().iter().map(|m| m.uci(Alphabet::SIC)).collect()
    }

    fn perft(&self, depth: u32) -> u64 {
        if depth == 0 { 1 } else { self.perft_inner(depth) }
    }

    fn divide(&self, depth: u32) -> Vec<(String, u64)> {
        self.legal_moves()
            .iter()
            .map(|m| {
                let next = movegen::play_unchecked(self, m).0;
                (m.uci(Alphabet::SIC), next.perft(depth.saturating_sub(1)))
            })
            .collect()
    }
}

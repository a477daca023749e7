//! Squares, on boards of 6x6, 7x7 and 8x8, and the board sizes themselves.
//!
//! Every board is laid out in the same 8-wide index space: square index = rank * 8 + file,
//! whatever the board size. A smaller board simply never uses the squares outside its
//! [`BoardSize::mask`]. This keeps one set of attack tables for all games.

use crate::bitboard::Bitboard;
use serde::{Deserialize, Deserializer, Serialize, Serializer, de::Error as _};

/// A square: `rank * 8 + file`, both counted from 0 (a1 = 0, h8 = 63).
///
/// Serde form: the name (`"e4"`) in human-readable formats (JSON), the index byte in binary
/// ones (postcard), so the wire stays compact and readable output needs no rewriting. Both
/// refuse what is not a square of the 8x8 index space.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Square(#[cfg_attr(feature = "ts", ts(type = "string"))] u8);

impl Serialize for Square {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if s.is_human_readable() { s.collect_str(self) } else { s.serialize_u8(self.0) }
    }
}

impl<'de> Deserialize<'de> for Square {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Square, D::Error> {
        if d.is_human_readable() {
            let name = String::deserialize(d)?;
            Square::parse(&name, BoardSize::Eight)
                .ok_or_else(|| D::Error::custom(format!("'{name}' is not a square")))
        } else {
            Square::try_from(u8::deserialize(d)?).map_err(D::Error::custom)
        }
    }
}

impl Square {
    /// Builds a square from file and rank (0-based). Returns `None` off the 8x8 index space.
    #[must_use]
    pub const fn new(file: u8, rank: u8) -> Option<Square> {
        if file < 8 && rank < 8 { Some(Square(rank * 8 + file)) } else { None }
    }

    /// Builds a square from its index 0..64.
    #[must_use]
    pub const fn from_index(index: u8) -> Option<Square> {
        if index < 64 { Some(Square(index)) } else { None }
    }

    /// Builds a square from an index known to be below 64 (internal tables and bit scans).
    pub(crate) const fn from_index_unchecked(index: u32) -> Square {
        debug_assert!(index < 64);
        Square(index as u8)
    }

    /// The index 0..64.
    #[must_use]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The file, 0 = a.
    #[must_use]
    pub const fn file(self) -> u8 {
        self.0 & 7
    }

    /// The rank, 0 = first rank.
    #[must_use]
    pub const fn rank(self) -> u8 {
        self.0 >> 3
    }

    /// The square moved by `(df, dr)`, if it stays in the 8x8 index space.
    #[must_use]
    pub const fn offset(self, df: i8, dr: i8) -> Option<Square> {
        let f = self.file() as i8 + df;
        let r = self.rank() as i8 + dr;
        if f >= 0 && f < 8 && r >= 0 && r < 8 { Some(Square((r * 8 + f) as u8)) } else { None }
    }

    /// This square alone as a bitboard.
    #[must_use]
    pub const fn bb(self) -> Bitboard {
        Bitboard(1u64 << self.0)
    }

    /// Dark squares are those where file + rank is even (a1 is dark), on every board size.
    #[must_use]
    pub const fn is_dark(self) -> bool {
        (self.file() + self.rank()).is_multiple_of(2)
    }

    /// The same file, rank mirrored on a board of `size` (the square as seen from the other side).
    #[must_use]
    pub const fn flip_rank(self, size: BoardSize) -> Square {
        Square((size.width() - 1 - self.rank()) * 8 + self.file())
    }

    /// Parses `e4`-style names; the square must lie on a board of `size`.
    pub fn parse(s: &str, size: BoardSize) -> Option<Square> {
        let b = s.as_bytes();
        if b.len() != 2 {
            return None;
        }
        let file = b[0].wrapping_sub(b'a');
        let rank = b[1].wrapping_sub(b'1');
        if file < size.width() && rank < size.width() { Square::new(file, rank) } else { None }
    }

    /// The name, `e4`.
    #[must_use]
    pub fn name(self) -> String {
        self.to_string()
    }
}

impl std::fmt::Display for Square {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}{}", (b'a' + self.file()) as char, self.rank() + 1)
    }
}

impl From<Square> for u8 {
    fn from(s: Square) -> u8 {
        s.0
    }
}

impl TryFrom<u8> for Square {
    type Error = &'static str;
    fn try_from(v: u8) -> Result<Square, Self::Error> {
        Square::from_index(v).ok_or("square index out of range 0..64")
    }
}

/// The size of a square board: 6x6 (Secret Chess), 7x7 (Espionage Chess) or 8x8.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum BoardSize {
    /// 6x6, files a-f.
    Six,
    /// 7x7, files a-g.
    Seven,
    /// 8x8, files a-h.
    Eight,
}

impl BoardSize {
    /// Number of files (= number of ranks).
    #[must_use]
    pub const fn width(self) -> u8 {
        match self {
            BoardSize::Six => 6,
            BoardSize::Seven => 7,
            BoardSize::Eight => 8,
        }
    }

    /// The squares of this board inside the 8x8 index space.
    #[must_use]
    pub const fn mask(self) -> Bitboard {
        match self {
            BoardSize::Six => Bitboard(0x0000_3f3f_3f3f_3f3f),
            BoardSize::Seven => Bitboard(0x007f_7f7f_7f7f_7f7f),
            BoardSize::Eight => Bitboard(!0),
        }
    }

    /// Whether `sq` lies on this board.
    #[must_use]
    pub const fn contains(self, sq: Square) -> bool {
        self.mask().contains(sq)
    }

    /// The squares of rank `rank` (0-based) on this board.
    #[must_use]
    pub const fn rank_bb(self, rank: u8) -> Bitboard {
        Bitboard((0xffu64 << (8 * rank as u32)) & self.mask().0)
    }

    /// The squares of file `file` (0-based) on this board.
    #[must_use]
    pub const fn file_bb(self, file: u8) -> Bitboard {
        Bitboard((0x0101_0101_0101_0101u64 << file as u32) & self.mask().0)
    }

    /// The last rank index for `color` (where its pawns promote in chess-like games).
    #[must_use]
    pub const fn last_rank(self, color: crate::Color) -> u8 {
        match color {
            crate::Color::White => self.width() - 1,
            crate::Color::Black => 0,
        }
    }

    /// All squares of the board in index order (a1, b1, ..., then the next rank).
    pub fn squares(self) -> impl Iterator<Item = Square> {
        self.mask().into_iter()
    }
}

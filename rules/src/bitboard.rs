//! Sets of squares as 64-bit masks in the shared 8-wide index space (see [`crate::square`]).

use crate::Square;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A set of squares: bit `i` is the square of index `i`.
///
/// Serde form: the sorted list of square names (`["a4", "c5"]`) in human-readable formats, the
/// 64-bit mask in binary ones. A set has one mask, so its binary form is canonical: a list of
/// squares in some order and with repeats could spell one set many ways.
#[derive(Copy, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Bitboard(#[cfg_attr(feature = "ts", ts(as = "Vec<Square>"))] pub u64);

impl Serialize for Bitboard {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if s.is_human_readable() { s.collect_seq(*self) } else { s.serialize_u64(self.0) }
    }
}

impl<'de> Deserialize<'de> for Bitboard {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Bitboard, D::Error> {
        if d.is_human_readable() {
            Ok(Vec::<Square>::deserialize(d)?.into_iter().collect())
        } else {
            u64::deserialize(d).map(Bitboard)
        }
    }
}

impl Bitboard {
    /// No square.
    pub const EMPTY: Bitboard = Bitboard(0);

    /// Whether no square is set.
    #[must_use]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether any square is set.
    #[must_use]
    pub const fn any(self) -> bool {
        self.0 != 0
    }

    /// Whether `sq` is in the set.
    #[must_use]
    pub const fn contains(self, sq: Square) -> bool {
        self.0 & (1u64 << sq.index()) != 0
    }

    /// The number of squares.
    #[must_use]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// Whether more than one square is set.
    #[must_use]
    pub const fn more_than_one(self) -> bool {
        self.0 & self.0.wrapping_sub(1) != 0
    }

    /// The lowest square, if any.
    #[must_use]
    pub const fn first(self) -> Option<Square> {
        if self.0 == 0 { None } else { Some(Square::from_index_unchecked(self.0.trailing_zeros())) }
    }

    /// The highest square, if any.
    #[must_use]
    pub const fn last(self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            Some(Square::from_index_unchecked(63 - self.0.leading_zeros()))
        }
    }

    /// The only square, if exactly one is set.
    #[must_use]
    pub const fn single(self) -> Option<Square> {
        if self.0 != 0 && !self.more_than_one() { self.first() } else { None }
    }

    /// Adds a square.
    pub fn insert(&mut self, sq: Square) {
        self.0 |= 1u64 << sq.index();
    }

    /// Removes a square.
    pub fn remove(&mut self, sq: Square) {
        self.0 &= !(1u64 << sq.index());
    }

    /// Adds or removes a square.
    pub fn set(&mut self, sq: Square, on: bool) {
        if on { self.insert(sq) } else { self.remove(sq) }
    }

    /// Toggles a square.
    pub fn toggle(&mut self, sq: Square) {
        self.0 ^= 1u64 << sq.index();
    }

    /// Whether the two sets share a square.
    #[must_use]
    pub const fn intersects(self, other: Bitboard) -> bool {
        self.0 & other.0 != 0
    }

    /// Removes and returns the lowest square.
    pub fn pop_first(&mut self) -> Option<Square> {
        let sq = self.first()?;
        self.0 &= self.0 - 1;
        Some(sq)
    }
}

impl std::fmt::Debug for Bitboard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Bitboard({:#018x})", self.0)
    }
}

impl Iterator for Bitboard {
    type Item = Square;
    fn next(&mut self) -> Option<Square> {
        self.pop_first()
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.count() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Bitboard {}

impl From<Square> for Bitboard {
    fn from(sq: Square) -> Bitboard {
        sq.bb()
    }
}

impl FromIterator<Square> for Bitboard {
    fn from_iter<I: IntoIterator<Item = Square>>(iter: I) -> Bitboard {
        let mut b = Bitboard::EMPTY;
        for sq in iter {
            b.insert(sq);
        }
        b
    }
}

macro_rules! bit_op {
    ($tr:ident, $f:ident, $tra:ident, $fa:ident, $op:tt) => {
        impl std::ops::$tr for Bitboard {
            type Output = Bitboard;
            fn $f(self, rhs: Bitboard) -> Bitboard {
                Bitboard(self.0 $op rhs.0)
            }
        }
        impl std::ops::$tr<Square> for Bitboard {
            type Output = Bitboard;
            fn $f(self, rhs: Square) -> Bitboard {
                Bitboard(self.0 $op rhs.bb().0)
            }
        }
        impl std::ops::$tra for Bitboard {
            fn $fa(&mut self, rhs: Bitboard) {
                self.0 = self.0 $op rhs.0;
            }
        }
        impl std::ops::$tra<Square> for Bitboard {
            fn $fa(&mut self, rhs: Square) {
                self.0 = self.0 $op rhs.bb().0;
            }
        }
    };
}
bit_op!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
bit_op!(BitOr, bitor, BitOrAssign, bitor_assign, |);
bit_op!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl std::ops::Not for Bitboard {
    type Output = Bitboard;
    fn not(self) -> Bitboard {
        Bitboard(!self.0)
    }
}

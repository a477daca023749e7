//! Attack tables and sliding attacks in the 8x8 index space.
//!
//! Leaper tables are built at compile time. Sliding attacks use precomputed rays and the first
//! blocker found by a bit scan ("classical approach"). A board smaller than 8x8 is handled by
//! [`BoardSize`]'s methods, which treat every square off the board as occupied (so a ray stops
//! at the edge) and then drop the off-board squares from the result.

use crate::{Bitboard, BoardSize, Color, Square};

/// The eight ray directions as (file step, rank step). The first four point to higher indices.
const DIRS: [(i8, i8); 8] = [(0, 1), (1, 1), (1, 0), (-1, 1), (0, -1), (-1, -1), (-1, 0), (1, -1)];
const N: usize = 0;
const NE: usize = 1;
const E: usize = 2;
const NW: usize = 3;
const S: usize = 4;
const SW: usize = 5;
const W: usize = 6;
const SE: usize = 7;

const fn step(sq: u8, df: i8, dr: i8) -> Option<u8> {
    let f = (sq & 7) as i8 + df;
    let r = (sq >> 3) as i8 + dr;
    if f >= 0 && f < 8 && r >= 0 && r < 8 { Some((r * 8 + f) as u8) } else { None }
}

const fn leaper_table(deltas: &[(i8, i8)]) -> [u64; 64] {
    let mut t = [0u64; 64];
    let mut sq = 0;
    while sq < 64 {
        let mut i = 0;
        while i < deltas.len() {
            if let Some(to) = step(sq as u8, deltas[i].0, deltas[i].1) {
                t[sq] |= 1u64 << to;
            }
            i += 1;
        }
        sq += 1;
    }
    t
}

const fn ray_table() -> [[u64; 64]; 8] {
    let mut t = [[0u64; 64]; 8];
    let mut d = 0;
    while d < 8 {
        let mut sq = 0;
        while sq < 64 {
            let mut cur = sq as u8;
            while let Some(next) = step(cur, DIRS[d].0, DIRS[d].1) {
                t[d][sq] |= 1u64 << next;
                cur = next;
            }
            sq += 1;
        }
        d += 1;
    }
    t
}

const KNIGHT: [u64; 64] =
    leaper_table(&[(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)]);
const CAMEL_31: [u64; 64] =
    leaper_table(&[(1, 3), (3, 1), (3, -1), (1, -3), (-1, -3), (-3, -1), (-3, 1), (-1, 3)]);
const KING: [u64; 64] =
    leaper_table(&[(0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1)]);
const WAZIR: [u64; 64] = leaper_table(&[(0, 1), (1, 0), (0, -1), (-1, 0)]);
const FERZ: [u64; 64] = leaper_table(&[(1, 1), (1, -1), (-1, -1), (-1, 1)]);
const WHITE_PAWN: [u64; 64] = leaper_table(&[(-1, 1), (1, 1)]);
const BLACK_PAWN: [u64; 64] = leaper_table(&[(-1, -1), (1, -1)]);
const RAYS: [[u64; 64]; 8] = ray_table();

/// Knight leaps (2,1) from `sq`.
#[must_use]
pub const fn knight(sq: Square) -> Bitboard {
    Bitboard(KNIGHT[sq.index()])
}

/// Long knight leaps (3,1) from `sq` (the powered-up knight of 6x6 Secret Chess, R-G4).
#[must_use]
pub const fn leaper_3_1(sq: Square) -> Bitboard {
    Bitboard(CAMEL_31[sq.index()])
}

/// One step in any of the eight directions.
#[must_use]
pub const fn king(sq: Square) -> Bitboard {
    Bitboard(KING[sq.index()])
}

/// One orthogonal step.
#[must_use]
pub const fn wazir(sq: Square) -> Bitboard {
    Bitboard(WAZIR[sq.index()])
}

/// One diagonal step.
#[must_use]
pub const fn ferz(sq: Square) -> Bitboard {
    Bitboard(FERZ[sq.index()])
}

/// The squares a pawn of `color` on `sq` attacks (diagonally forward).
#[must_use]
pub const fn pawn(color: Color, sq: Square) -> Bitboard {
    match color {
        Color::White => Bitboard(WHITE_PAWN[sq.index()]),
        Color::Black => Bitboard(BLACK_PAWN[sq.index()]),
    }
}

/// The full ray from `sq` in direction `dir` (0..8), ignoring blockers.
#[inline]
const fn ray(dir: usize, sq: Square) -> u64 {
    RAYS[dir][sq.index()]
}

#[inline]
const fn pos_ray(dir: usize, sq: Square, occ: u64) -> u64 {
    let r = ray(dir, sq);
    let blockers = r & occ;
    if blockers == 0 { r } else { r ^ RAYS[dir][blockers.trailing_zeros() as usize] }
}

#[inline]
const fn neg_ray(dir: usize, sq: Square, occ: u64) -> u64 {
    let r = ray(dir, sq);
    let blockers = r & occ;
    if blockers == 0 { r } else { r ^ RAYS[dir][63 - blockers.leading_zeros() as usize] }
}

/// Rook attacks on the 8x8 board: each ray up to and including its first occupied square.
#[must_use]
#[inline]
pub const fn rook(sq: Square, occ: Bitboard) -> Bitboard {
    Bitboard(
        pos_ray(N, sq, occ.0)
            | pos_ray(E, sq, occ.0)
            | neg_ray(S, sq, occ.0)
            | neg_ray(W, sq, occ.0),
    )
}

/// Bishop attacks on the 8x8 board: each diagonal up to and including its first occupied square.
#[must_use]
#[inline]
pub const fn bishop(sq: Square, occ: Bitboard) -> Bitboard {
    Bitboard(
        pos_ray(NE, sq, occ.0)
            | pos_ray(NW, sq, occ.0)
            | neg_ray(SW, sq, occ.0)
            | neg_ray(SE, sq, occ.0),
    )
}

/// Queen attacks on the 8x8 board.
#[must_use]
#[inline]
pub const fn queen(sq: Square, occ: Bitboard) -> Bitboard {
    Bitboard(rook(sq, occ).0 | bishop(sq, occ).0)
}

/// The squares strictly between `a` and `b` if they share a rank, file or diagonal; else empty.
#[must_use]
pub fn between(a: Square, b: Square) -> Bitboard {
    for dir in 0..8 {
        if ray(dir, a) & b.bb().0 != 0 {
            return Bitboard(ray(dir, a) & !ray(dir, b) & !b.bb().0);
        }
    }
    Bitboard::EMPTY
}

/// The whole line through `a` and `b` (both included, to the board edges) if they share a rank,
/// file or diagonal; else empty.
#[must_use]
pub fn line(a: Square, b: Square) -> Bitboard {
    for dir in 0..8 {
        if ray(dir, a) & b.bb().0 != 0 {
            let opposite = (dir + 4) % 8;
            return Bitboard(ray(dir, a) | ray(opposite, a) | a.bb().0);
        }
    }
    Bitboard::EMPTY
}

/// The unobstructed ray from `sq` in direction `(df, dr)` where each step is one of the eight
/// king directions; used by games that need one ray at a time (for example the Cannon).
#[must_use]
pub fn ray_towards(sq: Square, df: i8, dr: i8) -> Bitboard {
    DIRS.iter().position(|&d| d == (df, dr)).map_or(Bitboard::EMPTY, |dir| Bitboard(ray(dir, sq)))
}

impl BoardSize {
    /// Rook attacks on this board: off-board squares block and are never attacked.
    #[must_use]
    #[inline]
    pub fn rook_attacks(self, sq: Square, occ: Bitboard) -> Bitboard {
        match self {
            BoardSize::Eight => rook(sq, occ),
            _ => rook(sq, occ | !self.mask()) & self.mask(),
        }
    }

    /// Bishop attacks on this board: off-board squares block and are never attacked.
    #[must_use]
    #[inline]
    pub fn bishop_attacks(self, sq: Square, occ: Bitboard) -> Bitboard {
        match self {
            BoardSize::Eight => bishop(sq, occ),
            _ => bishop(sq, occ | !self.mask()) & self.mask(),
        }
    }

    /// Queen attacks on this board.
    #[must_use]
    #[inline]
    pub fn queen_attacks(self, sq: Square, occ: Bitboard) -> Bitboard {
        self.rook_attacks(sq, occ) | self.bishop_attacks(sq, occ)
    }

    /// Knight leaps that land on this board.
    #[must_use]
    #[inline]
    pub fn knight_attacks(self, sq: Square) -> Bitboard {
        knight(sq) & self.mask()
    }

    /// King steps that land on this board.
    #[must_use]
    #[inline]
    pub fn king_attacks(self, sq: Square) -> Bitboard {
        king(sq) & self.mask()
    }
}

/// The squares a piece of a standard role attacks (captures onto) from `sq` on a board of
/// `size`, given the occupancy `occ`: K, Q, R, B, N, pawn captures, and SIC's compound pieces
/// M, A, C, H, D (R-S3). Returns `None` for the roles whose attacks depend on a game's own
/// rules (Spy, Decoy, Cannon): the game computes those itself.
#[must_use]
#[inline]
pub fn standard(
    piece: crate::Piece,
    sq: Square,
    occ: Bitboard,
    size: BoardSize,
) -> Option<Bitboard> {
    use crate::Role::*;
    let mask = size.mask();
    Some(match piece.role {
        Pawn => pawn(piece.color, sq) & mask,
        Knight => knight(sq) & mask,
        King => king(sq) & mask,
        Bishop => size.bishop_attacks(sq, occ),
        Rook => size.rook_attacks(sq, occ),
        Queen => size.queen_attacks(sq, occ),
        Marshall => size.rook_attacks(sq, occ) | (knight(sq) & mask),
        Archbishop => size.bishop_attacks(sq, occ) | (knight(sq) & mask),
        Centaur => (knight(sq) | king(sq)) & mask,
        DragonHorse => size.bishop_attacks(sq, occ) | (wazir(sq) & mask),
        DragonKing => size.rook_attacks(sq, occ) | (ferz(sq) & mask),
        Spy | Decoy | Cannon => return None,
    })
}

/// The pieces of `attacker` with a standard role (see [`standard`]) that attack `sq`, with
/// occupancy `occ`. Every standard attack is symmetric except the pawn's, so this looks from
/// `sq` outwards. Spies, Decoys and Cannons are not included: the game adds them itself.
#[must_use]
pub fn standard_attackers(
    board: &crate::Board,
    sq: Square,
    attacker: Color,
    occ: Bitboard,
) -> Bitboard {
    use crate::Role::*;
    let size = board.size();
    let mask = size.mask();
    let them = board.by_color(attacker);
    let role = |r: crate::Role| board.by_role(r);
    let orth = size.rook_attacks(sq, occ);
    let diag = size.bishop_attacks(sq, occ);
    let n = knight(sq) & mask;
    let k = king(sq) & mask;
    let (w, f) = (wazir(sq) & mask, ferz(sq) & mask);
    let attackers = (pawn(attacker.other(), sq) & role(Pawn))
        | (n & (role(Knight) | role(Marshall) | role(Archbishop) | role(Centaur)))
        | (k & (role(King) | role(Centaur)))
        | (w & role(DragonHorse))
        | (f & role(DragonKing))
        | (orth & (role(Rook) | role(Queen) | role(Marshall) | role(DragonKing)))
        | (diag & (role(Bishop) | role(Queen) | role(Archbishop) | role(DragonHorse)));
    attackers & them
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(s: &str) -> Square {
        Square::parse(s, BoardSize::Eight).unwrap()
    }

    #[test]
    fn rook_stops_at_first_blocker_and_includes_it() {
        let occ = sq("e6").bb() | sq("c4").bb();
        let a = rook(sq("e4"), occ);
        assert!(a.contains(sq("e6")) && !a.contains(sq("e7")));
        assert!(a.contains(sq("c4")) && !a.contains(sq("b4")));
        assert!(a.contains(sq("e1")) && a.contains(sq("h4")));
        assert_eq!(a.count(), 2 + 3 + 3 + 2);
    }

    #[test]
    fn small_boards_clip_rays_and_leaps() {
        let six = BoardSize::Six;
        let a = six.rook_attacks(sq("a1"), Bitboard::EMPTY);
        assert_eq!(a.count(), 10, "a1 rook on 6x6 sees five squares up and five across");
        assert!(!a.contains(sq("g1")) && !a.contains(sq("a7")));
        assert_eq!(BoardSize::Seven.knight_attacks(sq("f6")).count(), 4);
        assert_eq!(six.bishop_attacks(sq("c3"), Bitboard::EMPTY).count(), 9);
    }

    #[test]
    fn between_and_line() {
        assert_eq!(between(sq("a1"), sq("d4")).count(), 2);
        assert_eq!(between(sq("a1"), sq("b3")), Bitboard::EMPTY);
        assert_eq!(line(sq("b2"), sq("c3")).count(), 8);
        assert!(between(sq("h1"), sq("a8")).contains(sq("d5")));
    }
}

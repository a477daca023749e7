//! Bitboards of circuit bits: 64 [`Bit`]s, square `rank * 8 + file` (a1 = 0), and the
//! operations the Kriegspiel circuit is written in. Shifts are wiring (free); a one-hot
//! bitboard (exactly one square set) makes unions of its shifts free too (XOR of disjoint sets).

use crate::circuit::{Bit, Builder};

/// 64 bits, one per square.
pub type Bb = [Bit; 64];

/// The empty bitboard.
pub const EMPTY: Bb = [Bit::Const(false); 64];

/// The eight ray directions (file step, rank step): four orthogonal, then four diagonal.
pub const DIRS: [(i32, i32); 8] =
    [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1), (-1, 1), (1, -1)];
/// The knight's jumps.
pub const KNIGHT: [(i32, i32); 8] =
    [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)];
/// The king's steps.
pub const KING: [(i32, i32); 8] =
    [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1), (-1, 1), (1, -1)];

/// The square at (file, rank), if on the board.
#[must_use]
pub const fn at(file: i32, rank: i32) -> Option<usize> {
    if file >= 0 && file < 8 && rank >= 0 && rank < 8 {
        Some((rank * 8 + file) as usize)
    } else {
        None
    }
}

/// A constant bitboard from a mask.
#[must_use]
pub fn konst(mask: u64) -> Bb {
    std::array::from_fn(|i| Bit::Const(mask >> i & 1 == 1))
}

/// `bb` moved by (df, dr): `out[s] = bb[s - (df, dr)]`, zero where that is off the board.
#[must_use]
pub fn shift(bb: &Bb, df: i32, dr: i32) -> Bb {
    std::array::from_fn(|s| {
        let (f, r) = ((s % 8) as i32, (s / 8) as i32);
        at(f - df, r - dr).map_or(Bit::Const(false), |p| bb[p])
    })
}

/// Keeps only the squares of `mask` (free: constants).
#[must_use]
pub fn mask(bb: &Bb, mask: u64) -> Bb {
    std::array::from_fn(|s| if mask >> s & 1 == 1 { bb[s] } else { Bit::Const(false) })
}

/// Bitwise XOR (free).
pub fn xor(b: &mut Builder, x: &Bb, y: &Bb) -> Bb {
    std::array::from_fn(|s| b.xor(x[s], y[s]))
}

/// Bitwise AND.
pub fn and(b: &mut Builder, x: &Bb, y: &Bb) -> Bb {
    std::array::from_fn(|s| b.and(x[s], y[s]))
}

/// Bitwise `x AND NOT y`.
pub fn and_not(b: &mut Builder, x: &Bb, y: &Bb) -> Bb {
    std::array::from_fn(|s| {
        let ny = b.not(y[s]);
        b.and(x[s], ny)
    })
}

/// Bitwise OR.
pub fn or(b: &mut Builder, x: &Bb, y: &Bb) -> Bb {
    std::array::from_fn(|s| b.or(x[s], y[s]))
}

/// Bitwise NOT (free).
pub fn not(b: &mut Builder, x: &Bb) -> Bb {
    std::array::from_fn(|s| b.not(x[s]))
}

/// Every bit ANDed with `c`.
pub fn gate(b: &mut Builder, c: Bit, x: &Bb) -> Bb {
    std::array::from_fn(|s| b.and(c, x[s]))
}

/// XOR of the given bitboards (their union when they are disjoint).
pub fn xor_all(b: &mut Builder, xs: &[Bb]) -> Bb {
    let mut acc = EMPTY;
    for x in xs {
        acc = xor(b, &acc, x);
    }
    acc
}

/// OR of the given bitboards.
pub fn or_all(b: &mut Builder, xs: &[Bb]) -> Bb {
    let mut acc = EMPTY;
    for x in xs {
        acc = or(b, &acc, x);
    }
    acc
}

/// Union of the shifts of `bb` by `steps`. `one_hot`: `bb` has at most one square set, so the
/// shifts are disjoint and the union is a free XOR.
pub fn shifts(b: &mut Builder, bb: &Bb, steps: &[(i32, i32)], one_hot: bool) -> Bb {
    let parts: Vec<Bb> = steps.iter().map(|&(df, dr)| shift(bb, df, dr)).collect();
    if one_hot { xor_all(b, &parts) } else { or_all(b, &parts) }
}

/// Whether any square is set (OR of all bits).
pub fn any(b: &mut Builder, x: &Bb) -> Bit {
    any_bits(b, x)
}

/// OR of bits, as a balanced tree.
pub fn any_bits(b: &mut Builder, xs: &[Bit]) -> Bit {
    match xs.len() {
        0 => Bit::Const(false),
        1 => xs[0],
        n => {
            let l = any_bits(b, &xs[..n / 2]);
            let r = any_bits(b, &xs[n / 2..]);
            b.or(l, r)
        }
    }
}

/// Whether `x` and `y` share a square (any of `x AND y`), for any `x`.
pub fn meets(b: &mut Builder, x: &Bb, y: &Bb) -> Bit {
    let both = and(b, x, y);
    any(b, &both)
}

/// `XOR_s (x[s] AND y[s])`: whether `x`'s square is in `y` when at most one square of
/// `x AND y` can be set (`x` one-hot, or a single ray that ends at its first man). With two
/// common squares the XOR would cancel: use [`meets`] then.
pub fn inner(b: &mut Builder, x: &Bb, y: &Bb) -> Bit {
    let mut acc = Bit::Const(false);
    for s in 0..64 {
        let t = b.and(x[s], y[s]);
        acc = b.xor(acc, t);
    }
    acc
}

/// The squares reached from the sources `src` moving in direction (df, dr) through `empty`
/// squares, each ray ending on (and including) its first non-empty square. Requires `src`
/// disjoint from `empty` (sources are men on the board): then the union per square is a free
/// XOR and the fill costs one AND gate per square.
pub fn fill(b: &mut Builder, src: &Bb, empty: &Bb, df: i32, dr: i32) -> Bb {
    let mut out = EMPTY;
    // Visit squares in the order of their projection on the direction, so the square behind
    // each one is done first.
    let mut order: Vec<usize> = (0..64).collect();
    order.sort_by_key(|&s| (s % 8) as i32 * df + (s / 8) as i32 * dr);
    for s in order {
        let (f, r) = ((s % 8) as i32, (s / 8) as i32);
        if let Some(p) = at(f - df, r - dr) {
            let go_on = b.and(empty[p], out[p]);
            out[s] = b.xor(src[p], go_on);
        }
    }
    out
}

/// True when at least two of `xs` are true.
pub fn at_least_two(b: &mut Builder, xs: &[Bit]) -> Bit {
    let mut one = Bit::Const(false);
    let mut two = Bit::Const(false);
    for &x in xs {
        let t = b.and(one, x);
        two = b.or(two, t);
        one = b.or(one, x);
    }
    two
}

/// The one-hot decoding of an unsigned number given least significant bit first.
pub fn decode(b: &mut Builder, bits: &[Bit]) -> Vec<Bit> {
    let mut out = vec![Bit::Const(true)];
    for &x in bits {
        let nx = b.not(x);
        let mut next = Vec::with_capacity(out.len() * 2);
        // Index i with the new bit as the highest: low half where x = 0, high half where 1.
        for &o in &out {
            next.push(b.and(o, nx));
        }
        for &o in &out {
            next.push(b.and(o, x));
        }
        out = next;
    }
    out
}

/// a + b for unsigned numbers, least significant bit first (one AND per bit).
pub fn add(b: &mut Builder, x: &[Bit], y: &[Bit]) -> Vec<Bit> {
    let n = x.len().max(y.len());
    let mut carry = Bit::Const(false);
    let mut out = Vec::with_capacity(n + 1);
    for i in 0..n {
        let a = x.get(i).copied().unwrap_or(Bit::Const(false));
        let c = y.get(i).copied().unwrap_or(Bit::Const(false));
        let ab = b.xor(a, c);
        out.push(b.xor(ab, carry));
        // carry' = carry XOR ((a XOR carry) AND (c XOR carry))
        let ac = b.xor(a, carry);
        let cc = b.xor(c, carry);
        let t = b.and(ac, cc);
        carry = b.xor(carry, t);
    }
    out.push(carry);
    out
}

/// The number of true bits, least significant bit first.
pub fn popcount(b: &mut Builder, xs: &[Bit]) -> Vec<Bit> {
    match xs.len() {
        0 => vec![Bit::Const(false)],
        1 => vec![xs[0]],
        n => {
            let l = popcount(b, &xs[..n / 2]);
            let r = popcount(b, &xs[n / 2..]);
            let mut s = add(b, &l, &r);
            // Trim leading constant zeros.
            while s.len() > 1 && s.last() == Some(&Bit::Const(false)) {
                s.pop();
            }
            s
        }
    }
}

/// x < y for unsigned numbers, least significant bit first (equal widths).
pub fn less(b: &mut Builder, x: &[Bit], y: &[Bit]) -> Bit {
    // Scan from the least significant bit: lt' = (x_i != y_i) ? y_i : lt.
    let mut lt = Bit::Const(false);
    for (&a, &c) in x.iter().zip(y) {
        let d = b.xor(a, c);
        lt = b.mux(d, c, lt);
    }
    lt
}

/// x >= k for a constant k.
pub fn at_least(b: &mut Builder, x: &[Bit], k: u64) -> Bit {
    let kb: Vec<Bit> = (0..x.len()).map(|i| Bit::Const(k >> i & 1 == 1)).collect();
    let lt = less(b, x, &kb);
    let big = if x.len() < 64 && k >> x.len() != 0 { Bit::Const(true) } else { Bit::Const(false) };
    // k does not fit: x < k always.
    let r = b.not(lt);
    let nb = b.not(big);
    b.and(r, nb)
}

/// XOR of bits.
pub fn xor_all_bits(b: &mut Builder, xs: &[Bit]) -> Bit {
    let mut acc = Bit::Const(false);
    for &x in xs {
        acc = b.xor(acc, x);
    }
    acc
}

/// AND of bits.
pub fn all_bits(b: &mut Builder, xs: &[Bit]) -> Bit {
    let mut acc = Bit::Const(true);
    for &x in xs {
        acc = b.and(acc, x);
    }
    acc
}

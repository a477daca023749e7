//! The Kriegspiel umpire as one boolean circuit: one attempt's answer (R-K1, R-K2) from the
//! mover's board and attempt (party 0) and the opponent's board (party 1).
//!
//! The circuit is written from the mover's side as White (moving up the board); when Black
//! moves both parties mirror their inputs rank-wise ([`crate::encode`]), which keeps every
//! announcement (check directions, long and short diagonals, pawn tries) unchanged.
//!
//! Everything is bitboard arithmetic: sliding moves are ray fills at one AND gate per square,
//! legality of the attempt is "the mover's king is not attacked after the move" on the board
//! after it, and the opponent's mobility (for mate and stalemate) and pawn tries follow the
//! checkers-and-pins scheme of `rules::chess`. See docs/TWO-PARTY.md for the figures.

use crate::bits::{self, Bb, DIRS, KING, KNIGHT};
use crate::circuit::{Bit, Builder, Circuit};

/// Roles in input order.
pub const ROLES: usize = 6;
/// Index of the pawn, knight, bishop, rook, queen and king bitboards in a party's input.
pub const P: usize = 0;
/// Knight.
pub const N: usize = 1;
/// Bishop.
pub const B: usize = 2;
/// Rook.
pub const R: usize = 3;
/// Queen.
pub const Q: usize = 4;
/// King.
pub const K: usize = 5;

/// Width of each party's counter for the 50-move rule.
pub const FIFTY_BITS: usize = 7;

/// Party 0 (the mover): 6 role bitboards, castling (king side, queen side), from (6 bits),
/// to (6 bits), promotion (3 bits: 0 none, 1 knight, 2 bishop, 3 rook, 4 queen, else
/// invalid), and its 50-move counter.
pub const MOVER_BITS: u32 = (ROLES * 64 + 2 + 6 + 6 + 3 + FIFTY_BITS) as u32;
/// Party 1 (the opponent): 6 role bitboards, the file of its last move's double step
/// (one-hot, all zero if none), and its 50-move counter.
pub const OPPONENT_BITS: u32 = (ROLES * 64 + 8 + FIFTY_BITS) as u32;

/// Output positions.
pub mod out {
    /// The attempt was legal.
    pub const LEGAL: usize = 0;
    /// It captured.
    pub const CAPTURE: usize = 1;
    /// The captured man was a pawn.
    pub const CAPTURE_PAWN: usize = 2;
    /// En passant.
    pub const CAPTURE_EP: usize = 3;
    /// The captured man's square, 6 bits from the least significant.
    pub const CAPTURE_SQUARE: usize = 4;
    /// Checks: rank, file, long diagonal, short diagonal, knight.
    pub const CHECKS: usize = 10;
    /// Pawn tries, 8 bits from the least significant.
    pub const TRIES: usize = 15;
    /// Checkmate.
    pub const MATE: usize = 23;
    /// Stalemate.
    pub const STALEMATE: usize = 24;
    /// Insufficient material.
    pub const INSUFFICIENT: usize = 25;
    /// The 50-move rule.
    pub const FIFTY: usize = 26;
    /// Number of outputs.
    pub const COUNT: usize = 27;
}

const RANK: [u64; 8] = {
    let mut r = [0u64; 8];
    let mut i = 0;
    while i < 8 {
        r[i] = 0xff << (8 * i);
        i += 1;
    }
    r
};

fn sq(name: &str) -> usize {
    let b = name.as_bytes();
    usize::from(b[1] - b'1') * 8 + usize::from(b[0] - b'a')
}

/// One side's men, grouped as the attack tests use them.
struct Men {
    p: Bb,
    n: Bb,
    /// Bishops and queens.
    bq: Bb,
    /// Rooks and queens.
    rq: Bb,
    k: Bb,
}

/// Whether the one-hot square `target` is attacked by `by` (whose pawns move up if `up`)
/// with the `empty` squares. Returns (attacked, rays from the target per direction).
fn attacked(b: &mut Builder, target: &Bb, by: &Men, up: bool, empty: &Bb) -> (Bit, Vec<Bb>) {
    let mut hits = Vec::new();
    let mut rays = Vec::new();
    for (i, &(df, dr)) in DIRS.iter().enumerate() {
        let ray = bits::fill(b, target, empty, df, dr);
        let sliders = if i < 4 { &by.rq } else { &by.bq };
        hits.push(bits::inner(b, &ray, sliders));
        rays.push(ray);
    }
    // Two knights or two pawns may attack one square: OR, not the XOR of `inner`.
    let kn = bits::shifts(b, target, &KNIGHT, true);
    hits.push(bits::meets(b, &kn, &by.n));
    // A pawn moving up attacks the target from one rank below.
    let dr = if up { -1 } else { 1 };
    let pw = bits::shifts(b, target, &[(-1, dr), (1, dr)], true);
    hits.push(bits::meets(b, &pw, &by.p));
    let kg = bits::shifts(b, target, &KING, true);
    hits.push(bits::inner(b, &kg, &by.k));
    (bits::any_bits(b, &hits), rays)
}

/// Bits of the one-time MAC tag on the outputs ([`circuit_with_tag`]).
pub const TAG_BITS: usize = 40;
/// The opponent's MAC key for the whole circuit: per tag bit, one constant bit and one bit per
/// output.
pub const TAG_KEY_BITS: u32 = tag_key_bits(out::COUNT);

/// The opponent's MAC key length for a circuit with `outputs` outputs (before the tag).
#[must_use]
pub const fn tag_key_bits(outputs: usize) -> u32 {
    (TAG_BITS * (outputs + 1)) as u32
}

/// Which part of the umpire's answer a circuit computes. All parts take the same inputs
/// ([`MOVER_BITS`], [`OPPONENT_BITS`]), so one pair of committed inputs feeds both halves of
/// the split computation (docs/TWO-PARTY.md, section 3).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Part {
    /// The whole answer ([`out`]): legality and, ANDed with it, the announcement.
    Whole,
    /// Only whether the attempt is legal: one output.
    Legality,
    /// Only the announcement of an attempt known to be legal: the [`out`] layout with
    /// `LEGAL` the constant 1 and nothing ANDed with legality. Meaningless on an illegal
    /// attempt, so it is run only after [`Part::Legality`] said "legal".
    Announcement,
}

impl Part {
    /// The number of outputs (before any tag).
    #[must_use]
    pub const fn outputs(self) -> usize {
        match self {
            Part::Legality => 1,
            Part::Whole | Part::Announcement => out::COUNT,
        }
    }
}

/// Builds the circuit.
#[must_use]
pub fn circuit() -> Circuit {
    build(Part::Whole, false)
}

/// The circuit for an engine that gives the output to one party only (tandem: the mover, who
/// must learn "illegal"): the opponent also inputs a fresh one-time MAC key of
/// [`TAG_KEY_BITS`] bits (after its [`OPPONENT_BITS`]) and the circuit appends the
/// [`TAG_BITS`]-bit tag `K0 XOR K·outputs` over GF(2), so that the mover can forward the
/// announcement and the opponent check it ([`crate::encode::tag_ok`]): a changed announcement
/// passes with probability 2^-40.
#[must_use]
pub fn circuit_with_tag() -> Circuit {
    build(Part::Whole, true)
}

/// One part of the answer, with the MAC tag when `tag` (the key is then
/// `tag_key_bits(part.outputs())` bits after the opponent's [`OPPONENT_BITS`]).
#[must_use]
pub fn circuit_part(part: Part, tag: bool) -> Circuit {
    build(part, tag)
}

#[allow(clippy::too_many_lines, reason = "one circuit, written top to bottom as the rules read")]
fn build(part: Part, tag: bool) -> Circuit {
    let key_bits = if tag { tag_key_bits(part.outputs()) } else { 0 };
    let announce_only = part == Part::Announcement;
    let (mut builder, ins) = Builder::new(&[MOVER_BITS, OPPONENT_BITS + key_bits]);
    let b = &mut builder;
    let (a_in, o_in) = (&ins[0], &ins[1]);
    let board = |v: &[Bit], r: usize| -> Bb { std::array::from_fn(|s| v[r * 64 + s]) };
    let a: Vec<Bb> = (0..ROLES).map(|r| board(a_in, r)).collect();
    let o: Vec<Bb> = (0..ROLES).map(|r| board(o_in, r)).collect();
    let mut i = ROLES * 64;
    let (castle_k, castle_q) = (a_in[i], a_in[i + 1]);
    i += 2;
    let from_bits = &a_in[i..i + 6];
    let to_bits = &a_in[i + 6..i + 12];
    let promo_bits = &a_in[i + 12..i + 15];
    let fifty_a = &a_in[i + 15..i + 15 + FIFTY_BITS];
    let j = ROLES * 64;
    let ep_file = &o_in[j..j + 8];
    let fifty_o = &o_in[j + 8..j + 8 + FIFTY_BITS];

    // ---- The attempt.
    b.section("decode attempt");
    let from: Bb = bits::decode(b, from_bits).try_into().expect("64 squares");
    let to: Bb = bits::decode(b, to_bits).try_into().expect("64 squares");
    let promo = bits::decode(b, promo_bits);
    let (p_none, p_n, p_b, p_r, p_q) = (promo[0], promo[1], promo[2], promo[3], promo[4]);
    let p_piece = bits::xor_all_bits(b, &[p_n, p_b, p_r, p_q]);

    b.section("legality");
    let occ_a = bits::xor_all(b, &a);
    let occ_o = bits::xor_all(b, &o);
    let occ = bits::xor(b, &occ_a, &occ_o);
    let empty = bits::not(b, &occ);
    let mv: Vec<Bit> = (0..ROLES).map(|r| bits::inner(b, &from, &a[r])).collect();
    let to_own = bits::inner(b, &to, &occ_a);
    let to_enemy = bits::inner(b, &to, &occ_o);
    let to_enemy_pawn = bits::inner(b, &to, &o[P]);
    let to_occ = b.xor(to_own, to_enemy);
    let to_free = b.not(to_occ);

    // Sliding reach from the from-square.
    let mut orth = bits::EMPTY;
    let mut diag = bits::EMPTY;
    for (k, &(df, dr)) in DIRS.iter().enumerate() {
        let ray = bits::fill(b, &from, &empty, df, dr);
        if k < 4 {
            orth = bits::xor(b, &orth, &ray);
        } else {
            diag = bits::xor(b, &diag, &ray);
        }
    }
    let ok_orth = bits::inner(b, &to, &orth);
    let ok_diag = bits::inner(b, &to, &diag);
    let kn = bits::shifts(b, &from, &KNIGHT, true);
    let ok_kn = bits::inner(b, &to, &kn);
    let ks = bits::shifts(b, &from, &KING, true);
    let ok_kstep = bits::inner(b, &to, &ks);
    // Pawn moves (up).
    let push1_sq = bits::shift(&from, 0, 1);
    let on_push1 = bits::inner(b, &to, &push1_sq);
    let ok_push1 = b.and(on_push1, to_free);
    let push2_sq = bits::shift(&bits::mask(&from, RANK[1]), 0, 2);
    let on_push2 = bits::inner(b, &to, &push2_sq);
    let mid_empty = bits::inner(b, &bits::mask(&push1_sq, RANK[2]), &empty);
    let t = b.and(on_push2, mid_empty);
    let ok_push2 = b.and(t, to_free);
    let pc = bits::shifts(b, &from, &[(-1, 1), (1, 1)], true);
    let on_diag1 = bits::inner(b, &to, &pc);
    let ok_pcap = b.and(on_diag1, to_enemy);
    let ep_bb: Bb =
        std::array::from_fn(|s| if s / 8 == 5 { ep_file[s % 8] } else { Bit::Const(false) });
    let to_is_ep = bits::inner(b, &to, &ep_bb);
    let ok_ep = b.and(on_diag1, to_is_ep);
    let ok_pawn = bits::xor_all_bits(b, &[ok_push1, ok_push2, ok_pcap, ok_ep]);

    // Castling: the right (held only with king and rook at home), the squares between empty,
    // and e1 and the king's path not attacked.
    let them_now = Men {
        p: o[P],
        n: o[N],
        bq: bits::xor(b, &o[B], &o[Q]),
        rq: bits::xor(b, &o[R], &o[Q]),
        k: o[K],
    };
    let att_const = |b: &mut Builder, name: &str| {
        let mut t = bits::EMPTY;
        t[sq(name)] = Bit::Const(true);
        attacked(b, &t, &them_now, false, &empty).0
    };
    let att_e1 = att_const(b, "e1");
    let att_f1 = att_const(b, "f1");
    let att_g1 = att_const(b, "g1");
    let att_d1 = att_const(b, "d1");
    let att_c1 = att_const(b, "c1");
    let from_e1 = from[sq("e1")];
    let king_from_e1 = b.and(from_e1, mv[K]);
    let ck_free = bits::all_bits(b, &[empty[sq("f1")], empty[sq("g1")]]);
    let ck_safe = bits::any_bits(b, &[att_e1, att_f1, att_g1]);
    let ck_safe = b.not(ck_safe);
    // On an attempt known to be legal, a king's move from e1 to g1 or c1 is castling.
    let is_ck = if announce_only {
        b.and(king_from_e1, to[sq("g1")])
    } else {
        bits::all_bits(b, &[king_from_e1, to[sq("g1")], castle_k, ck_free, ck_safe])
    };
    let cq_free = bits::all_bits(b, &[empty[sq("b1")], empty[sq("c1")], empty[sq("d1")]]);
    let cq_safe = bits::any_bits(b, &[att_e1, att_d1, att_c1]);
    let cq_safe = b.not(cq_safe);
    let is_cq = if announce_only {
        b.and(king_from_e1, to[sq("c1")])
    } else {
        bits::all_bits(b, &[king_from_e1, to[sq("c1")], castle_q, cq_free, cq_safe])
    };

    let ok_king = bits::xor_all_bits(b, &[ok_kstep, is_ck, is_cq]);
    let ok_queen = b.or(ok_orth, ok_diag);
    let parts = [
        b.and(mv[P], ok_pawn),
        b.and(mv[N], ok_kn),
        b.and(mv[B], ok_diag),
        b.and(mv[R], ok_orth),
        b.and(mv[Q], ok_queen),
        b.and(mv[K], ok_king),
    ];
    let ok_move = bits::xor_all_bits(b, &parts);
    let not_own = b.not(to_own);
    let to_last = bits::xor_all_bits(b, &to[56..64]);
    let promotes = b.and(mv[P], to_last);
    let promo_ok = b.mux(promotes, p_piece, p_none);
    let pseudo = bits::all_bits(b, &[ok_move, not_own, promo_ok]);
    let is_ep = b.and(mv[P], ok_ep);
    let is_push2 = b.and(mv[P], if announce_only { on_push2 } else { ok_push2 });

    // The board after the move.
    let ep_cap = bits::gate(b, is_ep, &bits::shift(&bits::mask(&to, RANK[5]), 0, -1));
    let cap_mask = bits::xor(b, &to, &ep_cap);
    let keep_o = bits::not(b, &cap_mask);
    let o2 = Men {
        p: bits::and(b, &o[P], &keep_o),
        n: bits::and(b, &o[N], &keep_o),
        bq: bits::and(b, &them_now.bq, &keep_o),
        rq: bits::and(b, &them_now.rq, &keep_o),
        k: o[K],
    };
    let occ_o2 = bits::and(b, &occ_o, &keep_o);
    let rook_k = {
        let mut m = bits::EMPTY;
        m[sq("h1")] = is_ck;
        m[sq("f1")] = is_ck;
        m[sq("a1")] = is_cq;
        m[sq("d1")] = is_cq;
        m
    };
    let moved = bits::xor(b, &from, &to);
    let t = bits::xor(b, &occ_a, &moved);
    let occ_a2 = bits::xor(b, &t, &rook_k);
    let occ2 = bits::xor(b, &occ_a2, &occ_o2);
    let empty2 = bits::not(b, &occ2);
    let king_moves = bits::xor(b, &a[K], &to);
    let t = bits::gate(b, mv[K], &king_moves);
    let king2 = bits::xor(b, &a[K], &t);
    let legal = if announce_only {
        Bit::Const(true)
    } else {
        let (in_check_after, _) = attacked(b, &king2, &o2, false, &empty2);
        let safe = b.not(in_check_after);
        b.and(pseudo, safe)
    };
    if part == Part::Legality {
        let mut outs = vec![legal];
        if tag {
            b.section("announcement tag");
            let key = &o_in[OPPONENT_BITS as usize..];
            outs = with_tag(b, &outs, key);
        }
        return builder.finish(&outs);
    }

    // ---- The announcements, on the board after the move (the opponent to move, moving down).
    b.section("mover's men after the move");
    let not_from = bits::not(b, &from);
    // The role that lands on `to`.
    let np = b.not(promotes);
    let lands = |b: &mut Builder, role: usize, promo: Bit| {
        let x = b.and(np, mv[role]);
        let y = b.and(promotes, promo);
        b.xor(x, y)
    };
    let land_n = lands(b, N, p_n);
    let land_b = lands(b, B, p_b);
    let land_r = lands(b, R, p_r);
    let land_q = lands(b, Q, p_q);
    let land_bq = b.xor(land_b, land_q);
    let land_rq = b.xor(land_r, land_q);
    let land_p = b.and(np, mv[P]);
    let group = |b: &mut Builder, now: &Bb, land: Bit| {
        let stay = bits::and(b, now, &not_from);
        let arrive = bits::gate(b, land, &to);
        bits::xor(b, &stay, &arrive)
    };
    let a_bq = bits::xor(b, &a[B], &a[Q]);
    let a_rq = bits::xor(b, &a[R], &a[Q]);
    let us2_p = group(b, &a[P], land_p);
    let us2_n = group(b, &a[N], land_n);
    let us2_bq = group(b, &a_bq, land_bq);
    let us2_rq = group(b, &a_rq, land_rq);
    let us2_rq = bits::xor(b, &us2_rq, &rook_k);
    let us2 = Men { p: us2_p, n: us2_n, bq: us2_bq, rq: us2_rq, k: king2 };

    b.section("checks");
    let kt = o[K];
    let mut rays = Vec::new();
    let mut ray_chk = Vec::new();
    for (k, &(df, dr)) in DIRS.iter().enumerate() {
        let ray = bits::fill(b, &kt, &empty2, df, dr);
        let sliders = if k < 4 { &us2.rq } else { &us2.bq };
        ray_chk.push(bits::inner(b, &ray, sliders));
        rays.push(ray);
    }
    let kn_t = bits::shifts(b, &kt, &KNIGHT, true);
    let chk_kn = bits::meets(b, &kn_t, &us2.n);
    // Our pawns (moving up) check from one rank below the king: south-west lies on the
    // king's a1-h8 ("main") diagonal, south-east on its other one.
    let sw = bits::shift(&kt, -1, -1);
    let se = bits::shift(&kt, 1, -1);
    let chk_p_main = bits::inner(b, &sw, &us2.p);
    let chk_p_anti = bits::inner(b, &se, &us2.p);
    let chk_rank = b.or(ray_chk[0], ray_chk[1]);
    let chk_file = b.or(ray_chk[2], ray_chk[3]);
    let chk_main = bits::any_bits(b, &[ray_chk[4], ray_chk[5], chk_p_main]);
    let chk_anti = bits::any_bits(b, &[ray_chk[6], ray_chk[7], chk_p_anti]);
    // Which diagonal through the king's square is the longer one is a constant per square.
    let main_long = {
        let mut acc = Bit::Const(false);
        for (s, &k) in kt.iter().enumerate() {
            let (f, r) = ((s % 8) as i32, (s / 8) as i32);
            if 8 - (f - r).abs() > 8 - (f + r - 7).abs() {
                acc = b.xor(acc, k);
            }
        }
        acc
    };
    let main_short = b.not(main_long);
    let t1 = b.and(chk_main, main_long);
    let t2 = b.and(chk_anti, main_short);
    let chk_long = b.or(t1, t2);
    let t1 = b.and(chk_main, main_short);
    let t2 = b.and(chk_anti, main_long);
    let chk_short = b.or(t1, t2);
    let mut checker_bits = ray_chk.clone();
    checker_bits.extend([chk_kn, chk_p_main, chk_p_anti]);
    let in_check = bits::any_bits(b, &checker_bits);
    let double = bits::at_least_two(b, &checker_bits);

    b.section("mobility: check-block target");
    // Squares a non-king move may go to: anywhere not own when not in check; else the
    // checker's square or a square between it and the king.
    let mut block = bits::EMPTY;
    for k in 0..8 {
        let t = bits::gate(b, ray_chk[k], &rays[k]);
        block = bits::xor(b, &block, &t);
    }
    let t = bits::and(b, &kn_t, &us2.n);
    block = bits::xor(b, &block, &t);
    let pawn_chk_sq = bits::xor(b, &sw, &se);
    let t = bits::and(b, &pawn_chk_sq, &us2.p);
    block = bits::xor(b, &block, &t);
    let not_own_o = bits::not(b, &occ_o2);
    let target = std::array::from_fn(|s| b.mux(in_check, block[s], not_own_o[s]));
    b.section("mobility: pins");
    // Our sliders' rays with the opponent's king lifted off the board (the king steps' attack
    // map below, too). A man of the opponent's is pinned in direction k when it is the first
    // man on the king's ray k and one of our sliders' rays the other way (k ^ 1) ends on it:
    // such a slider stands beyond it on the line, and lifting the king (behind it) changes
    // nothing up to that man. One AND per square then both finds and places the pin.
    let empty_lift = bits::xor(b, &empty2, &kt);
    let slider_rays: Vec<Bb> = DIRS
        .iter()
        .enumerate()
        .map(|(k, &(df, dr))| {
            let sliders = if k < 4 { &us2.rq } else { &us2.bq };
            bits::fill(b, sliders, &empty_lift, df, dr)
        })
        .collect();
    let mut pinned_dir = Vec::new();
    for k in 0..DIRS.len() {
        let first_own = bits::and(b, &rays[k], &occ_o2);
        pinned_dir.push(bits::and(b, &first_own, &slider_rays[k ^ 1]));
    }
    let pinned = bits::xor_all(b, &pinned_dir);
    // Men free to move along line `l` (0 rank, 1 file, 2 main diagonal, 3 other diagonal):
    // not pinned, or pinned along that line.
    let free_on = |b: &mut Builder, l: usize| {
        let on_line = bits::xor(b, &pinned_dir[2 * l], &pinned_dir[2 * l + 1]);
        let off_line = bits::xor(b, &pinned, &on_line);
        bits::not(b, &off_line)
    };
    let free_line: Vec<Bb> = (0..4).map(|l| free_on(b, l)).collect();
    let not_pinned = bits::not(b, &pinned);
    b.section("mobility: men's moves");
    // Only "has any legal move" is needed, so the squares reached by every non-king,
    // non-capturing-pawn move are united first and met with the target once. The sliders free
    // on a line are the same for its two directions.
    let mut mobile = Vec::new();
    let line_movers: Vec<Bb> = (0..4)
        .map(|l| {
            let sliders = if l < 2 { &o2.rq } else { &o2.bq };
            bits::and(b, sliders, &free_line[l])
        })
        .collect();
    let mut reached = Vec::new();
    for (k, &(df, dr)) in DIRS.iter().enumerate() {
        reached.push(bits::fill(b, &line_movers[k / 2], &empty2, df, dr));
    }
    let free_n = bits::and(b, &o2.n, &not_pinned);
    reached.push(bits::shifts(b, &free_n, &KNIGHT, false));
    // Opponent's pawns move down.
    let pf = bits::and(b, &o2.p, &free_line[1]);
    let push1 = bits::shift(&pf, 0, -1);
    let push1 = bits::and(b, &push1, &empty2);
    let push2 = bits::shift(&bits::mask(&push1, RANK[5]), 0, -1);
    let push2 = bits::and(b, &push2, &empty2);
    reached.push(bits::or(b, &push1, &push2));
    let reached = bits::or_all(b, &reached);
    let t = bits::and(b, &reached, &target);
    mobile.push(bits::any(b, &t));
    // Captures down-left run along the main diagonal, down-right along the other.
    let occ_us2 = occ_a2;
    let cap_tgt = bits::and(b, &occ_us2, &target);
    let pm = bits::and(b, &o2.p, &free_line[2]);
    let cap_dl = bits::and(b, &bits::shift(&pm, -1, -1), &cap_tgt);
    let pa = bits::and(b, &o2.p, &free_line[3]);
    let cap_dr = bits::and(b, &bits::shift(&pa, 1, -1), &cap_tgt);
    b.section("mobility: en passant");
    // En passant after our double step: an opponent's pawn beside ours (on `to`, rank 4 in
    // the circuit's frame) takes it, landing on the square passed over; legal when the
    // opponent's king is not attacked afterwards. Only three squares change (the capturer's,
    // ours, the one passed over), so the king's slider rays are filled once, on the board with
    // *both* candidate capturers lifted: a ray through the other candidate's square is in
    // truth blocked there (by a pawn, no slider), and no other ray changes, since no file or
    // diagonal holds both candidates. Knights do not change; of our pawns only the one on
    // `to` leaves; our king never stands beside theirs after a legal move.
    let to3 = bits::gate(b, is_push2, &bits::mask(&to, RANK[3]));
    let ep_to = bits::shift(&to3, 0, -1);
    let cands: Vec<Bb> =
        [-1, 1].iter().map(|&df| bits::and(b, &bits::shift(&to3, df, 0), &o2.p)).collect();
    let t = bits::xor(b, &empty2, &to3);
    let t = bits::xor(b, &t, &ep_to);
    let t = bits::xor(b, &t, &cands[0]);
    let empty3 = bits::xor(b, &t, &cands[1]);
    let mut slider_hits = [Vec::new(), Vec::new()];
    for (k, &(df, dr)) in DIRS.iter().enumerate() {
        let ray = bits::fill(b, &kt, &empty3, df, dr);
        let sliders = if k < 4 { &us2.rq } else { &us2.bq };
        let hit = bits::inner(b, &ray, sliders);
        for (i, hits) in slider_hits.iter_mut().enumerate() {
            let other_blocks = bits::inner(b, &ray, &cands[1 - i]);
            let clear = b.not(other_blocks);
            hits.push(b.and(hit, clear));
        }
    }
    let sw_to = bits::inner(b, &sw, &to3);
    let se_to = bits::inner(b, &se, &to3);
    let nsw_to = b.not(sw_to);
    let nse_to = b.not(se_to);
    let pawn_main = b.and(chk_p_main, nsw_to);
    let pawn_anti = b.and(chk_p_anti, nse_to);
    let mut ep_ok = Vec::new();
    for (i, hits) in slider_hits.iter().enumerate() {
        let has = bits::any(b, &cands[i]);
        let mut att = hits.clone();
        att.extend([chk_kn, pawn_main, pawn_anti]);
        let att = bits::any_bits(b, &att);
        let nat = b.not(att);
        // In double check only king moves help (the test sees both checkers anyway).
        ep_ok.push(b.and(has, nat));
    }
    let ep_any = b.or(ep_ok[0], ep_ok[1]);
    let cap_any = bits::or(b, &cap_dl, &cap_dr);
    mobile.push(bits::any(b, &cap_any));
    mobile.push(ep_any);
    let non_king = bits::any_bits(b, &mobile);
    let single = b.not(double);
    let non_king = b.and(non_king, single);
    b.section("mobility: king steps");
    // The opponent's king steps: not onto its own men, not onto a square we attack with the
    // king lifted off the board.
    let mut att_parts = slider_rays;
    att_parts.push(bits::shifts(b, &us2.n, &KNIGHT, false));
    att_parts.push(bits::shifts(b, &us2.p, &[(-1, 1), (1, 1)], false));
    att_parts.push(bits::shifts(b, &us2.k, &KING, true));
    let our_att = bits::or_all(b, &att_parts);
    let ksteps = bits::shifts(b, &kt, &KING, true);
    let t = bits::and(b, &ksteps, &not_own_o);
    let t = bits::and_not(b, &t, &our_att);
    let king_any = bits::any(b, &t);
    let has_move = b.or(king_any, non_king);
    let no_move = b.not(has_move);
    let mate = b.and(no_move, in_check);
    let not_in_check = b.not(in_check);
    let stalemate = b.and(no_move, not_in_check);
    b.section("pawn tries");
    // Pawn tries: legal pawn captures (none in double check).
    let mut cap_list: Vec<Bit> = cap_dl.to_vec();
    cap_list.extend_from_slice(&cap_dr);
    cap_list.extend_from_slice(&ep_ok);
    let tries = bits::popcount(b, &cap_list);
    let tries: Vec<Bit> = tries.iter().map(|&x| b.and(x, single)).collect();

    b.section("automatic draws");
    // R-C2's insufficient material: no pawn, rook or queen; then either no knight and every
    // bishop on one color, or no bishop and exactly one knight.
    let p_all = bits::xor(b, &us2.p, &o2.p);
    let rq_all = bits::xor(b, &us2.rq, &o2.rq);
    let heavy = bits::xor(b, &p_all, &rq_all);
    let heavy = bits::any(b, &heavy);
    let n_all = bits::xor(b, &us2.n, &o2.n);
    let b_all = bits::xor(b, &us2.bq, &o2.bq);
    let any_n = bits::any(b, &n_all);
    let any_b = bits::any(b, &b_all);
    let dark = (0..64).filter(|s| (s % 8 + s / 8) % 2 == 0).fold(0u64, |m, s| m | 1 << s);
    let b_dark = bits::any(b, &bits::mask(&b_all, dark));
    let b_light = bits::any(b, &bits::mask(&b_all, !dark));
    let one_color = b.and(b_dark, b_light);
    let one_color = b.not(one_color);
    let no_n = b.not(any_n);
    let case1 = b.and(no_n, one_color);
    let two_n = bits::at_least_two(b, &n_all);
    let no_b = b.not(any_b);
    let not_two = b.not(two_n);
    let one_n = b.and(any_n, not_two);
    let case2 = b.and(no_b, one_n);
    let light = b.not(heavy);
    let cases = b.or(case1, case2);
    let insufficient = b.and(light, cases);
    // The 50-move rule: each party knows the plies since its own last pawn move or any
    // capture; the clock is the smaller, and this move resets it or adds one.
    let a_lt = bits::less(b, fifty_a, fifty_o);
    let clock: Vec<Bit> = (0..FIFTY_BITS).map(|k| b.mux(a_lt, fifty_a[k], fifty_o[k])).collect();
    let capture = b.xor(to_enemy, is_ep);
    let reset = b.or(mv[P], capture);
    let long = bits::at_least(b, &clock, 99);
    let no_reset = b.not(reset);
    let fifty = b.and(long, no_reset);
    // Precedence (rules::chess::State::automatic_end): mate, stalemate, insufficient
    // material, repetition (not computed here), fifty moves.
    let insufficient_end = b.and(insufficient, has_move);
    let not_ins = b.not(insufficient);
    let fifty_end = bits::all_bits(b, &[fifty, has_move, not_ins]);

    b.section("outputs");
    let cap_pawn = b.xor(to_enemy_pawn, is_ep);
    let mut cap_sq = to_bits.to_vec();
    // En passant: the captured pawn stands one rank below `to` (rank index 5 -> 4).
    let not_ep = b.not(is_ep);
    cap_sq[3] = b.and(cap_sq[3], not_ep);
    let announced = b.and(legal, capture);
    let mut outs = vec![legal, capture, cap_pawn, is_ep];
    outs.extend(cap_sq);
    for (k, o) in outs.iter_mut().enumerate().skip(1) {
        *o = b.and(*o, if k < 4 { legal } else { announced });
    }
    let rest = [chk_rank, chk_file, chk_long, chk_short, chk_kn];
    let mut rest: Vec<Bit> = rest.to_vec();
    let mut tries8 = tries.clone();
    tries8.resize(8, Bit::Const(false));
    assert!(tries.len() <= 8, "pawn tries fit 8 bits");
    rest.extend(tries8);
    rest.extend([mate, stalemate, insufficient_end, fifty_end]);
    for o in rest {
        outs.push(b.and(o, legal));
    }
    assert_eq!(outs.len(), out::COUNT);
    if tag {
        b.section("announcement tag");
        let key = &o_in[OPPONENT_BITS as usize..];
        outs = with_tag(b, &outs, key);
    }
    builder.finish(&outs)
}

/// `outs` followed by their [`TAG_BITS`]-bit one-time MAC under `key` (row `j`: a constant
/// bit, then one bit per output).
fn with_tag(b: &mut Builder, outs: &[Bit], key: &[Bit]) -> Vec<Bit> {
    let row = outs.len() + 1;
    assert_eq!(key.len(), TAG_BITS * row, "the key's length");
    let mut all = outs.to_vec();
    for j in 0..TAG_BITS {
        let mut t = key[j * row];
        for (i, &o) in outs.iter().enumerate() {
            let k = b.and(key[j * row + 1 + i], o);
            t = b.xor(t, k);
        }
        all.push(t);
    }
    all
}

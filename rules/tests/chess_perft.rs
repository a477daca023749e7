//! Orthodox chess perft (R-C4, R-A1): the wiki positions of `data/chess.perft`, each count
//! checked against the engine and against a slow, obviously-correct generator written here
//! (a mailbox that plays every pseudo-legal move and rejects those leaving the king attacked).

mod common;

use rules::Analysis;
use rules::chess::Position;

/// The independent generator: letters on a 64-square mailbox, nothing shared with the engine.
#[derive(Clone)]
struct Slow {
    sq: [u8; 64],
    white: bool,
    /// K, Q, k, q.
    castle: [bool; 4],
    ep: Option<i32>,
}

const KNIGHT: [(i32, i32); 8] =
    [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)];
const KING: [(i32, i32); 8] =
    [(0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1)];
const ROOK: [(i32, i32); 4] = [(0, 1), (1, 0), (0, -1), (-1, 0)];
const BISHOP: [(i32, i32); 4] = [(1, 1), (1, -1), (-1, -1), (-1, 1)];

fn at(f: i32, r: i32) -> Option<usize> {
    ((0..8).contains(&f) && (0..8).contains(&r)).then(|| (r * 8 + f) as usize)
}

fn name(i: usize) -> String {
    format!("{}{}", (b'a' + (i % 8) as u8) as char, i / 8 + 1)
}

impl Slow {
    fn parse(fen: &str) -> Slow {
        let f: Vec<&str> = fen.split_whitespace().collect();
        let mut sq = [b'.'; 64];
        for (i, row) in f[0].split('/').enumerate() {
            let r = 7 - i;
            let mut file = 0;
            for c in row.bytes() {
                if c.is_ascii_digit() {
                    file += usize::from(c - b'0');
                } else {
                    sq[r * 8 + file] = c;
                    file += 1;
                }
            }
        }
        let castle = ['K', 'Q', 'k', 'q'].map(|c| f[2].contains(c));
        let ep = (f[3] != "-").then(|| {
            let b = f[3].as_bytes();
            i32::from(b[1] - b'1') * 8 + i32::from(b[0] - b'a')
        });
        Slow { sq, white: f[1] == "w", castle, ep }
    }

    fn mine(&self, c: u8, white: bool) -> bool {
        c != b'.' && c.is_ascii_uppercase() == white
    }

    /// Whether `target` is attacked by the side `by_white`.
    fn attacked(&self, target: usize, by_white: bool) -> bool {
        let (tf, tr) = ((target % 8) as i32, (target / 8) as i32);
        let is = |i: usize, letter: u8| {
            let c = self.sq[i];
            self.mine(c, by_white) && c.to_ascii_lowercase() == letter
        };
        for (df, dr) in KNIGHT {
            if at(tf + df, tr + dr).is_some_and(|i| is(i, b'n')) {
                return true;
            }
        }
        for (df, dr) in KING {
            if at(tf + df, tr + dr).is_some_and(|i| is(i, b'k')) {
                return true;
            }
        }
        // A white pawn attacks upwards, so it stands one rank below the target.
        let pr = if by_white { tr - 1 } else { tr + 1 };
        for df in [-1, 1] {
            if at(tf + df, pr).is_some_and(|i| is(i, b'p')) {
                return true;
            }
        }
        for (dirs, letter) in [(ROOK, b'r'), (BISHOP, b'b')] {
            for (df, dr) in dirs {
                let (mut f, mut r) = (tf + df, tr + dr);
                while let Some(i) = at(f, r) {
                    if self.sq[i] != b'.' {
                        if is(i, letter) || is(i, b'q') {
                            return true;
                        }
                        break;
                    }
                    f += df;
                    r += dr;
                }
            }
        }
        false
    }

    /// Every legal move as (uci, position after).
    fn legal(&self) -> Vec<(String, Slow)> {
        let mut out = Vec::new();
        let w = self.white;
        let add = |from: usize, to: usize, promo: Option<u8>, out: &mut Vec<(String, Slow)>| {
            let mut n = self.clone();
            let piece = n.sq[from];
            n.sq[from] = b'.';
            n.sq[to] = match promo {
                Some(p) => {
                    if w {
                        p.to_ascii_uppercase()
                    } else {
                        p
                    }
                }
                None => piece,
            };
            n.ep = None;
            let lower = piece.to_ascii_lowercase();
            if lower == b'p' && Some(to as i32) == self.ep && from % 8 != to % 8 {
                let captured = if w { to - 8 } else { to + 8 };
                n.sq[captured] = b'.';
            }
            if lower == b'p' && from.abs_diff(to) == 16 {
                n.ep = Some(i32::midpoint(from as i32, to as i32));
            }
            if lower == b'k' && from.abs_diff(to) == 2 {
                let (rf, rt) = if to > from { (from + 3, from + 1) } else { (from - 4, from - 1) };
                n.sq[rt] = n.sq[rf];
                n.sq[rf] = b'.';
            }
            // Rights: lost when the king or that rook leaves home, or the rook is taken.
            for (i, (k, r)) in [(4, 7), (4, 0), (60, 63), (60, 56)].into_iter().enumerate() {
                if [from, to].contains(&k) || [from, to].contains(&r) {
                    n.castle[i] = false;
                }
            }
            n.white = !w;
            let king = (0..64).find(|&i| n.sq[i] == if w { b'K' } else { b'k' }).unwrap();
            if !n.attacked(king, !w) {
                let mut uci = format!("{}{}", name(from), name(to));
                if let Some(p) = promo {
                    uci.push(p as char);
                }
                out.push((uci, n));
            }
        };
        for from in 0..64 {
            let c = self.sq[from];
            if !self.mine(c, w) {
                continue;
            }
            let (f, r) = ((from % 8) as i32, (from / 8) as i32);
            let free_or_enemy = |i: usize| !self.mine(self.sq[i], w);
            match c.to_ascii_lowercase() {
                b'n' | b'k' => {
                    let steps = if c.eq_ignore_ascii_case(&b'n') { KNIGHT } else { KING };
                    for (df, dr) in steps {
                        if let Some(to) = at(f + df, r + dr).filter(|&i| free_or_enemy(i)) {
                            add(from, to, None, &mut out);
                        }
                    }
                }
                b'p' => {
                    let dir = if w { 1 } else { -1 };
                    let last = if w { 7 } else { 0 };
                    let start = if w { 1 } else { 6 };
                    let mut targets = Vec::new();
                    if let Some(one) = at(f, r + dir).filter(|&i| self.sq[i] == b'.') {
                        targets.push(one);
                        let two = at(f, r + 2 * dir).filter(|&i| self.sq[i] == b'.');
                        if let Some(two) = two.filter(|_| r == start) {
                            targets.push(two);
                        }
                    }
                    for df in [-1, 1] {
                        if let Some(to) = at(f + df, r + dir) {
                            let enemy = self.sq[to] != b'.' && !self.mine(self.sq[to], w);
                            if enemy || Some(to as i32) == self.ep {
                                targets.push(to);
                            }
                        }
                    }
                    for to in targets {
                        if (to / 8) as i32 == last {
                            for p in [b'q', b'r', b'b', b'n'] {
                                add(from, to, Some(p), &mut out);
                            }
                        } else {
                            add(from, to, None, &mut out);
                        }
                    }
                }
                letter => {
                    let mut dirs = Vec::new();
                    if letter == b'r' || letter == b'q' {
                        dirs.extend(ROOK);
                    }
                    if letter == b'b' || letter == b'q' {
                        dirs.extend(BISHOP);
                    }
                    for (df, dr) in dirs {
                        let (mut tf, mut tr) = (f + df, r + dr);
                        while let Some(to) = at(tf, tr) {
                            if self.mine(self.sq[to], w) {
                                break;
                            }
                            add(from, to, None, &mut out);
                            if self.sq[to] != b'.' {
                                break;
                            }
                            tf += df;
                            tr += dr;
                        }
                    }
                }
            }
        }
        // Castling: king and rook at home with the right, the squares between empty, and
        // the king's square, the square it crosses and the one it lands on not attacked.
        let (home, rights) = if w { (4, [0, 1]) } else { (60, [2, 3]) };
        for (i, right) in rights.into_iter().enumerate() {
            if !self.castle[right] {
                continue;
            }
            let (empty, safe, to): (Vec<usize>, Vec<usize>, usize) = if i == 0 {
                (vec![home + 1, home + 2], vec![home, home + 1, home + 2], home + 2)
            } else {
                (vec![home - 1, home - 2, home - 3], vec![home, home - 1, home - 2], home - 2)
            };
            if empty.iter().all(|&s| self.sq[s] == b'.')
                && safe.iter().all(|&s| !self.attacked(s, !w))
            {
                add(home, to, None, &mut out);
            }
        }
        out
    }

    fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let moves = self.legal();
        if depth == 1 {
            return moves.len() as u64;
        }
        moves.iter().map(|(_, n)| n.perft(depth - 1)).sum()
    }
}

#[test]
fn r_c4_wiki_perft_positions_match_engine_and_slow_generator() {
    for line in common::data_lines("chess.perft") {
        let fen = &line[0];
        let pos = Position::from_fen(fen).unwrap();
        assert_eq!(pos.to_fen(), *fen, "position string round trip");
        let slow = Slow::parse(fen);
        let mut fast_moves = pos.legal_uci();
        fast_moves.sort();
        let mut slow_moves: Vec<String> = slow.legal().into_iter().map(|(u, _)| u).collect();
        slow_moves.sort();
        assert_eq!(fast_moves, slow_moves, "{fen}");
        for (i, want) in line[1..].iter().enumerate() {
            let depth = i as u32 + 1;
            let want: u64 = want.parse().unwrap();
            assert_eq!(pos.perft(depth), want, "engine: {fen} depth {depth}");
            assert_eq!(slow.perft(depth), want, "slow generator: {fen} depth {depth}");
        }
    }
}

#[test]
fn r_c4_divide_sums_to_perft() {
    let pos = Position::from_fen(rules::chess::START_FEN).unwrap();
    let d = pos.divide(3);
    assert_eq!(d.len(), 20);
    assert_eq!(d.iter().map(|(_, n)| n).sum::<u64>(), 8902);
    assert_eq!(d[0], ("a2a3".to_string(), 380));
}

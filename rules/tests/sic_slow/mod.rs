//! A slow, independent SIC move generator for tests: a mailbox of letters, direction stepping,
//! and the rules of R-S3..R-S9 written out directly from RULES.md without the engine's code.
//! Used by `sic_perft.rs`.
#![allow(dead_code, reason = "each test binary uses a different subset")]

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Pc {
    pub white: bool,
    /// Lower-case role letter: k q r b n p m a c h d s y.
    pub role: char,
}

#[derive(Clone, Debug)]
pub struct Pos {
    pub sq: [Option<Pc>; 64],
    pub unmoved: [bool; 64],
    pub white: bool,
    pub ep: Option<usize>,
    pub spy_original: bool,
}

fn name(i: usize) -> String {
    format!("{}{}", (b'a' + (i % 8) as u8) as char, i / 8 + 1)
}

fn parse_sq(s: &str) -> usize {
    let b = s.as_bytes();
    (b[1] - b'1') as usize * 8 + (b[0] - b'a') as usize
}

fn at(f: i32, r: i32) -> Option<usize> {
    ((0..8).contains(&f) && (0..8).contains(&r)).then(|| (r * 8 + f) as usize)
}

fn fr(i: usize) -> (i32, i32) {
    ((i % 8) as i32, (i / 8) as i32)
}

const KNIGHT: [(i32, i32); 8] =
    [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)];
const ORTH: [(i32, i32); 4] = [(0, 1), (1, 0), (0, -1), (-1, 0)];
const DIAG: [(i32, i32); 4] = [(1, 1), (1, -1), (-1, -1), (-1, 1)];

impl Pos {
    pub fn parse(fen: &str, spy_original: bool) -> Pos {
        let f: Vec<&str> = fen.split_whitespace().collect();
        let mut sq = [None; 64];
        for (i, row) in f[0].split('/').enumerate() {
            let rank = 7 - i;
            let mut file = 0;
            for c in row.chars() {
                if let Some(d) = c.to_digit(10) {
                    file += d as usize;
                } else {
                    sq[rank * 8 + file] =
                        Some(Pc { white: c.is_ascii_uppercase(), role: c.to_ascii_lowercase() });
                    file += 1;
                }
            }
        }
        let mut unmoved = [false; 64];
        if f[2] != "-" {
            for i in (0..f[2].len()).step_by(2) {
                unmoved[parse_sq(&f[2][i..i + 2])] = true;
            }
        }
        let ep = (f[3] != "-").then(|| parse_sq(f[3]));
        Pos { sq, unmoved, white: f[1] == "w", ep, spy_original }
    }

    fn delta(from: usize, to: usize) -> (i32, i32) {
        let (a, b) = fr(from);
        let (c, d) = fr(to);
        (c - a, d - b)
    }

    /// Whether a slide from `from` to `to` along one of `dirs` has only empty squares between.
    fn slide(&self, from: usize, to: usize, dirs: &[(i32, i32)]) -> bool {
        for &(df, dr) in dirs {
            let (mut f, mut r) = fr(from);
            loop {
                f += df;
                r += dr;
                let Some(i) = at(f, r) else { break };
                if i == to {
                    return true;
                }
                if self.sq[i].is_some() {
                    break;
                }
            }
        }
        false
    }

    fn leap(from: usize, to: usize, deltas: &[(i32, i32)]) -> bool {
        deltas.contains(&Self::delta(from, to))
    }

    fn king_step(from: usize, to: usize) -> bool {
        let (df, dr) = Self::delta(from, to);
        df.abs() <= 1 && dr.abs() <= 1 && (df, dr) != (0, 0)
    }

    /// N, B or R movement (the Spy's movement, R-S6).
    fn spy_move(&self, from: usize, to: usize) -> bool {
        Self::leap(from, to, &KNIGHT) || self.slide(from, to, &ORTH) || self.slide(from, to, &DIAG)
    }

    /// Whether the piece on `from` could capture the piece on `to` (pins ignored).
    pub fn could_capture(&self, from: usize, to: usize) -> bool {
        let a = self.sq[from].expect("attacker");
        let t = self.sq[to].expect("target");
        let n = Self::leap(from, to, &KNIGHT);
        let k = Self::king_step(from, to);
        let o = self.slide(from, to, &ORTH);
        let d = self.slide(from, to, &DIAG);
        let w = Self::leap(from, to, &ORTH);
        let fz = Self::leap(from, to, &DIAG);
        match a.role {
            'p' => {
                let (df, dr) = Self::delta(from, to);
                df.abs() == 1 && dr == if a.white { 1 } else { -1 }
            }
            'n' => n,
            'k' => k,
            'r' => o,
            'b' => d,
            'q' => o || d,
            'm' => o || n,
            'a' => d || n,
            'c' => n || k,
            'h' => d || w,
            'd' => o || fz,
            'y' => k || (n && !"kys".contains(t.role)),
            's' if self.spy_original => k,
            's' => self.spy_move(from, to) && (t.role == 's' || !self.could_capture(to, from)),
            other => panic!("unknown role {other}"),
        }
    }

    /// Whether some enemy of the piece on `sq` could capture it (enemy Spies left out if asked).
    pub fn attacked(&self, sq: usize, without_spies: bool) -> bool {
        let me = self.sq[sq].expect("a piece");
        (0..64).any(|e| {
            self.sq[e].is_some_and(|p| {
                p.white != me.white
                    && !(without_spies && p.role == 's')
                    && self.could_capture(e, sq)
            })
        })
    }

    fn king(&self, white: bool) -> usize {
        (0..64).find(|&i| self.sq[i] == Some(Pc { white, role: 'k' })).expect("a king")
    }

    pub fn in_check(&self, white: bool) -> bool {
        self.attacked(self.king(white), false)
    }

    /// Plays a move given as from, to, promotion letter; returns the new position.
    pub fn apply(&self, from: usize, to: usize, promo: Option<char>) -> Pos {
        let mut n = self.clone();
        let me = self.sq[from].expect("mover");
        n.ep = None;
        n.white = !self.white;
        if let Some(t) = self.sq[to]
            && t.white == me.white
        {
            n.sq[to] = Some(me);
            n.sq[from] = Some(t);
            n.unmoved[to] = false;
            n.unmoved[from] = true;
            return n;
        }
        let dir = if me.white { 1 } else { -1 };
        if me.role == 'p' && Some(to) == self.ep && self.sq[to].is_none() && from % 8 != to % 8 {
            let victim = (to as i32 - 8 * dir) as usize;
            n.sq[victim] = None;
            n.unmoved[victim] = false;
        }
        n.sq[to] = Some(promo.map_or(me, |r| Pc { white: me.white, role: r }));
        n.sq[from] = None;
        n.unmoved[from] = false;
        n.unmoved[to] = false;
        let (_, r0) = fr(from);
        let (_, r1) = fr(to);
        if me.role == 'p' && (r1 - r0).abs() == 2 && promo.is_none() {
            let mid = (from as i32 + 8 * dir) as usize;
            let (mf, mr) = fr(mid);
            let takers = [at(mf - 1, mr + dir), at(mf + 1, mr + dir)];
            if takers.iter().flatten().any(|&i| n.sq[i] == Some(Pc { white: !me.white, role: 'p' }))
            {
                n.ep = Some(mid);
            }
        }
        n
    }

    /// Squares `piece` on `from` could move to by its own movement, were `to` empty (pawns:
    /// forward moves) or held by an enemy (pawns: diagonal).
    fn moves_like(&self, from: usize, to: usize) -> bool {
        let p = self.sq[from].expect("mover");
        let n = Self::leap(from, to, &KNIGHT);
        let k = Self::king_step(from, to);
        let o = self.slide(from, to, &ORTH);
        let d = self.slide(from, to, &DIAG);
        match p.role {
            'p' => {
                let dir = if p.white { 1 } else { -1 };
                let (df, dr) = Self::delta(from, to);
                (df.abs() <= 1 && dr == dir)
                    || (df == 0
                        && dr == 2 * dir
                        && self.sq[(from as i32 + 8 * dir) as usize].is_none())
            }
            'n' => n,
            'k' => k,
            'r' => o,
            'b' => d,
            'q' => o || d,
            'm' => o || n,
            'a' => d || n,
            'c' => n || k,
            'h' => d || Self::leap(from, to, &ORTH),
            'd' => o || Self::leap(from, to, &DIAG),
            'y' => k || n,
            's' => self.spy_move(from, to),
            other => panic!("unknown role {other}"),
        }
    }

    /// Every legal move as (from, to, promotion).
    pub fn legal(&self) -> Vec<(usize, usize, Option<char>)> {
        let us = self.white;
        let checked = self.in_check(us);
        let last = if us { 7 } else { 0 };
        let mut out = Vec::new();
        for from in 0..64 {
            let Some(p) = self.sq[from] else { continue };
            if p.white != us {
                continue;
            }
            for to in 0..64 {
                if to == from {
                    continue;
                }
                let target = self.sq[to];
                let ok_geometry = match target {
                    Some(t) if t.white == us => {
                        // R-S9 swap.
                        self.unmoved[from]
                            && self.unmoved[to]
                            && t.role != p.role
                            && !self.attacked(from, false)
                            && !self.attacked(to, false)
                            && self.moves_like(from, to)
                            && !(p.role == 'p' && to / 8 == last)
                            && !(t.role == 'p' && from / 8 == last)
                    }
                    Some(_) => match p.role {
                        's' | 'y' => self.could_capture(from, to),
                        'p' => self.could_capture(from, to),
                        _ => self.moves_like(from, to),
                    },
                    None => match p.role {
                        'p' => {
                            let (df, _) = Self::delta(from, to);
                            (df == 0 && self.moves_like(from, to))
                                || (df != 0 && Some(to) == self.ep && self.moves_like(from, to))
                        }
                        's' if self.spy_original => self.spy_move(from, to),
                        _ => self.moves_like(from, to),
                    },
                };
                if !ok_geometry {
                    continue;
                }
                let after = self.apply(from, to, None);
                if after.in_check(us) {
                    continue;
                }
                let is_swap = target.is_some_and(|t| t.white == us);
                if !is_swap && p.role == 's' && !self.spy_original && target.is_none() {
                    // R-S6 a.
                    if after.attacked(to, true) && !checked {
                        continue;
                    }
                }
                if !is_swap && p.role == 'y' {
                    // R-S7.
                    let next_to_king = Self::king_step(self.king(us), to);
                    if after.attacked(to, false) && !checked && !next_to_king {
                        continue;
                    }
                }
                if p.role == 'p' && to / 8 == last && !is_swap {
                    for r in "rbnqmadhcsy".chars() {
                        let have = (0..64).any(|i| self.sq[i] == Some(Pc { white: us, role: r }));
                        if "rbn".contains(r) || !have {
                            out.push((from, to, Some(r)));
                        }
                    }
                } else {
                    out.push((from, to, None));
                }
            }
        }
        out
    }

    pub fn legal_uci(&self) -> Vec<String> {
        let mut v: Vec<String> = self
            .legal()
            .into_iter()
            .map(|(f, t, p)| {
                format!("{}{}{}", name(f), name(t), p.map(String::from).unwrap_or_default())
            })
            .collect();
        v.sort();
        v
    }

    pub fn play_uci(&self, uci: &str) -> Pos {
        self.apply(parse_sq(&uci[0..2]), parse_sq(&uci[2..4]), uci[4..].chars().next())
    }

    pub fn perft(&self, depth: u32) -> u64 {
        let moves = self.legal();
        if depth == 1 {
            return moves.len() as u64;
        }
        moves.iter().map(|&(f, t, p)| self.apply(f, t, p).perft(depth - 1)).sum()
    }
}

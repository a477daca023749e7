//! A slow, independent Intrigue model for tests, written from RULES.md R-I2..R-I5 alone (a
//! character mailbox, attacks found by walking the board, no shared code with the engine).
//! Used by `intrigue_perft.rs` (move counts and lists) and `intrigue_obsperft.rs` (what each
//! side is told).
#![allow(dead_code, reason = "each test binary uses a different subset")]

/// The slow model: 64 characters (`.` empty, FEN letters), index = rank * 8 + file.
#[derive(Clone, Debug)]
pub struct Slow {
    pub sq: [char; 64],
    pub white: bool,
    /// Rook squares that may still castle (R-I5).
    pub castle: Vec<usize>,
    pub ep: Option<usize>,
    /// [white, black] hiding squares of hidden kings.
    pub hidden: [Option<usize>; 2],
    /// [white, black] informer squares.
    pub informer: [Option<usize>; 2],
}

pub fn idx(name: &str) -> usize {
    let b = name.as_bytes();
    usize::from(b[1] - b'1') * 8 + usize::from(b[0] - b'a')
}

pub fn fc(i: usize) -> (i32, i32) {
    ((i % 8) as i32, (i / 8) as i32)
}

pub fn at(f: i32, r: i32) -> Option<usize> {
    ((0..8).contains(&f) && (0..8).contains(&r)).then(|| (r * 8 + f) as usize)
}

pub fn is_white(c: char) -> bool {
    c.is_ascii_uppercase()
}

pub fn side(white: bool) -> usize {
    if white { 0 } else { 1 }
}

impl Slow {
    pub fn parse(fen: &str) -> Slow {
        let f: Vec<&str> = fen.split_whitespace().collect();
        let mut sq = ['.'; 64];
        for (i, row) in f[0].split('/').enumerate() {
            let mut file = 0;
            for c in row.chars() {
                if let Some(d) = c.to_digit(10) {
                    file += d as usize;
                } else {
                    sq[(7 - i) * 8 + file] = c;
                    file += 1;
                }
            }
        }
        let castle = f[2]
            .chars()
            .filter_map(|c| match c {
                'K' => Some(idx("h1")),
                'Q' => Some(idx("a1")),
                'k' => Some(idx("h8")),
                'q' => Some(idx("a8")),
                _ => None,
            })
            .collect();
        let pair = |s: Option<&&str>| {
            let s = s.copied().unwrap_or("-,-");
            let (w, b) = s.split_once(',').unwrap();
            let e = |x: &str| (x != "-").then(|| idx(x));
            [e(w), e(b)]
        };
        Slow {
            sq,
            white: f[1] == "w",
            castle,
            ep: (f[3] != "-").then(|| idx(f[3])),
            hidden: pair(f.get(6)),
            informer: pair(f.get(7)),
        }
    }

    pub fn king(&self, white: bool) -> Option<usize> {
        let k = if white { 'K' } else { 'k' };
        (0..64).find(|&i| self.sq[i] == k)
    }

    /// Whether the piece on `from` attacks `to` (pawns: diagonally forward only).
    pub fn hits(&self, from: usize, to: usize) -> bool {
        let c = self.sq[from];
        let (f0, r0) = fc(from);
        let (f1, r1) = fc(to);
        let (df, dr) = (f1 - f0, r1 - r0);
        if from == to {
            return false;
        }
        let clear = |sf: i32, sr: i32| {
            let (mut f, mut r) = (f0 + sf, r0 + sr);
            while (f, r) != (f1, r1) {
                if self.sq[at(f, r).unwrap()] != '.' {
                    return false;
                }
                f += sf;
                r += sr;
            }
            true
        };
        let straight = df == 0 || dr == 0;
        let diagonal = df.abs() == dr.abs();
        match c.to_ascii_lowercase() {
            'p' => dr == if is_white(c) { 1 } else { -1 } && df.abs() == 1,
            'n' => (df.abs() == 1 && dr.abs() == 2) || (df.abs() == 2 && dr.abs() == 1),
            'k' => df.abs() <= 1 && dr.abs() <= 1,
            'r' => straight && clear(df.signum(), dr.signum()),
            'b' => diagonal && clear(df.signum(), dr.signum()),
            'q' => (straight || diagonal) && clear(df.signum(), dr.signum()),
            _ => false,
        }
    }

    pub fn attacked(&self, target: usize, by_white: bool) -> bool {
        (0..64)
            .any(|i| self.sq[i] != '.' && is_white(self.sq[i]) == by_white && self.hits(i, target))
    }

    /// (from, to, promotion letter) moves, legal per R-I3 (no king on the board: all).
    pub fn moves(&self) -> Vec<(usize, usize, char)> {
        let us = self.white;
        let mut out = Vec::new();
        let enemy_king = if us { 'k' } else { 'K' };
        for from in 0..64 {
            let c = self.sq[from];
            if c == '.' || is_white(c) != us {
                continue;
            }
            let (f, r) = fc(from);
            if c.eq_ignore_ascii_case(&'p') {
                let dir = if us { 1 } else { -1 };
                let last = if us { 7 } else { 0 };
                let mut add = |to: usize| {
                    if fc(to).1 == last {
                        for p in ['q', 'r', 'b', 'n'] {
                            out.push((from, to, p));
                        }
                    } else {
                        out.push((from, to, ' '));
                    }
                };
                if let Some(one) = at(f, r + dir).filter(|&s| self.sq[s] == '.') {
                    add(one);
                    let home = if us { 1 } else { 6 };
                    if r == home
                        && let Some(two) = at(f, r + 2 * dir).filter(|&s| self.sq[s] == '.')
                    {
                        add(two);
                    }
                }
                for df in [-1, 1] {
                    if let Some(to) = at(f + df, r + dir) {
                        let t = self.sq[to];
                        if (t != '.' && is_white(t) != us && t != enemy_king) || Some(to) == self.ep
                        {
                            add(to);
                        }
                    }
                }
                continue;
            }
            for to in 0..64 {
                let t = self.sq[to];
                if self.hits(from, to) && (t == '.' || (is_white(t) != us && t != enemy_king)) {
                    out.push((from, to, ' '));
                }
            }
            if c.eq_ignore_ascii_case(&'k') && !self.attacked(from, !us) {
                // R-I5: any distance along a rank or file, rook next to the king, king beyond.
                for &rook in &self.castle {
                    if self.sq[rook] != if us { 'R' } else { 'r' } {
                        continue;
                    }
                    let (rf, rr) = fc(rook);
                    if rf != f && rr != r {
                        continue;
                    }
                    let (sf, sr) = ((rf - f).signum(), (rr - r).signum());
                    let dist = (rf - f).abs().max((rr - r).abs());
                    if dist < 2 {
                        continue;
                    }
                    let empty =
                        (1..dist).all(|k| self.sq[at(f + k * sf, r + k * sr).unwrap()] == '.');
                    let pass = at(f + sf, r + sr).unwrap();
                    if empty && !self.attacked(pass, !us) {
                        out.push((from, at(f + 2 * sf, r + 2 * sr).unwrap(), ' '));
                    }
                }
            }
        }
        if self.king(us).is_some() {
            // Legality is judged before any king appears: the mover cannot know where it hides.
            let mut unrevealed = self.clone();
            unrevealed.informer = [None, None];
            out.retain(|&m| {
                let (next, _) = unrevealed.apply(m);
                !next.attacked(next.king(us).unwrap(), !us)
            });
        }
        out
    }

    /// Plays a move; returns the new position and whether the game ended (R-I4).
    pub fn apply(&self, (from, to, promo): (usize, usize, char)) -> (Slow, bool) {
        let us = self.white;
        let me = side(us);
        let opp = side(!us);
        let mut n = self.clone();
        let c = self.sq[from];
        let (f0, r0) = fc(from);
        let (f1, r1) = fc(to);
        let mut taken: Option<(usize, char)> = None;
        n.ep = None;
        if c.eq_ignore_ascii_case(&'k') && ((f1 - f0).abs() == 2 || (r1 - r0).abs() == 2) {
            let (sf, sr) = ((f1 - f0).signum(), (r1 - r0).signum());
            let mut rook = at(f0 + sf, r0 + sr).unwrap();
            while self.sq[rook] == '.' {
                let (rf, rr) = fc(rook);
                rook = at(rf + sf, rr + sr).unwrap();
            }
            let rc = n.sq[rook];
            n.sq[rook] = '.';
            n.sq[from] = '.';
            n.sq[at(f0 + sf, r0 + sr).unwrap()] = rc;
            n.sq[to] = c;
        } else {
            if c.eq_ignore_ascii_case(&'p') && Some(to) == self.ep {
                let victim = at(f1, r0).unwrap();
                taken = Some((victim, n.sq[victim]));
                n.sq[victim] = '.';
            } else if self.sq[to] != '.' {
                taken = Some((to, self.sq[to]));
            }
            n.sq[to] = if promo == ' ' {
                c
            } else if us {
                promo.to_ascii_uppercase()
            } else {
                promo
            };
            n.sq[from] = '.';
            if c.eq_ignore_ascii_case(&'p') && (r1 - r0).abs() == 2 {
                n.ep = at(f0, (r0 + r1) / 2);
            }
        }
        if c.eq_ignore_ascii_case(&'k') {
            n.castle.retain(|&s| is_white(self.sq[s]) != us);
        }
        n.castle.retain(|&s| s != from && s != to);
        if self.informer[me] == Some(from) {
            n.informer[me] = if promo == ' ' { Some(to) } else { None };
        }
        n.white = !us;
        let mut ended = false;
        if let Some((victim, p)) = taken
            && p.eq_ignore_ascii_case(&'p')
            && self.informer[opp] == Some(victim)
        {
            // R-I2: the informer is found; its king appears, removing what stands there.
            let k = n.hidden[opp].take().unwrap();
            n.informer[opp] = None;
            let removed = n.sq[k];
            if n.informer[me] == Some(k) {
                n.informer[me] = None;
            }
            n.castle.retain(|&s| s != k);
            n.sq[k] = if us { 'k' } else { 'K' };
            let (kf, kr) = fc(k);
            n.castle.retain(|&s| {
                let (sf, sr) = fc(s);
                is_white(n.sq[s]) == us || sf == kf || sr == kr
            });
            let my_king = if us { 'K' } else { 'k' };
            if removed == my_king {
                ended = true;
            } else if let Some(mk) = n.king(us)
                && n.hits(k, mk)
            {
                // R-I4 adjacent: wins if it could take the king without being attacked there.
                let mut t = n.clone();
                t.sq[mk] = t.sq[k];
                t.sq[k] = '.';
                ended = !t.attacked(mk, us);
            }
        }
        (n, ended)
    }

    pub fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        self.moves()
            .into_iter()
            .map(|m| {
                let (n, ended) = self.apply(m);
                if depth == 1 {
                    1
                } else if ended {
                    0
                } else {
                    n.perft(depth - 1)
                }
            })
            .sum()
    }
}

//! A slow, independent Espionage Chess model for tests: a 7x7 grid of letters, every
//! (from, to) pair tried square by square, and the own-king test done by asking every enemy
//! piece whether it could hit the king, written from RULES.md R-E1..R-E6 without the engine's
//! code. Used by `espionage_perft.rs` (move counts and lists) and `espionage_obsperft.rs`
//! (what each side is told).
#![allow(dead_code, reason = "each test binary uses a different subset")]

/// A piece on the grid: White or not, and its lower-case letter.
pub type Cell = Option<(bool, char)>;

/// The slow model of an Espionage Chess position.
#[derive(Clone)]
pub struct Slow {
    /// `grid[rank][file]`, rank 0 = rank 1.
    pub grid: [[Cell; 7]; 7],
    pub white_to_move: bool,
    /// The capturable Spy's (file, rank), R-E2 / R-E6.
    pub spy: Option<(i32, i32)>,
    /// Plies since the last capture or pawn move (R-C2's 50-move rule).
    pub halfmove: u32,
}

impl Slow {
    pub fn parse(fen: &str) -> Slow {
        let fields: Vec<&str> = fen.split_whitespace().collect();
        let mut grid = [[None; 7]; 7];
        for (i, row) in fields[0].split('/').enumerate() {
            let rank = 6 - i;
            let mut file = 0;
            for c in row.chars() {
                if let Some(d) = c.to_digit(10) {
                    file += d as usize;
                } else {
                    grid[rank][file] = Some((c.is_ascii_uppercase(), c.to_ascii_lowercase()));
                    file += 1;
                }
            }
        }
        let spy = if fields[2] == "-" {
            None
        } else {
            let b = fields[2].as_bytes();
            Some((i32::from(b[0] - b'a'), i32::from(b[1] - b'1')))
        };
        let halfmove = fields[3].parse().expect("a halfmove count");
        Slow { grid, white_to_move: fields[1] == "w", spy, halfmove }
    }

    pub fn at(&self, f: i32, r: i32) -> Cell {
        self.grid[r as usize][f as usize]
    }

    /// How many pieces stand strictly between two squares on one line (None: not on a line).
    pub fn between_count(&self, f1: i32, r1: i32, f2: i32, r2: i32) -> Option<usize> {
        let (df, dr) = (f2 - f1, r2 - r1);
        if (df, dr) == (0, 0) || !(df == 0 || dr == 0 || df.abs() == dr.abs()) {
            return None;
        }
        let (sf, sr) = (df.signum(), dr.signum());
        let (mut f, mut r) = (f1 + sf, r1 + sr);
        let mut n = 0;
        while (f, r) != (f2, r2) {
            if self.at(f, r).is_some() {
                n += 1;
            }
            f += sf;
            r += sr;
        }
        Some(n)
    }

    /// Whether the piece on (f1, r1) could capture something standing on (f2, r2).
    pub fn hits(&self, f1: i32, r1: i32, f2: i32, r2: i32) -> bool {
        let Some((white, kind)) = self.at(f1, r1) else { return false };
        let (df, dr) = (f2 - f1, r2 - r1);
        let (adf, adr) = (df.abs(), dr.abs());
        let orth = (df == 0) != (dr == 0);
        let diag = adf == adr && adf > 0;
        let clear = self.between_count(f1, r1, f2, r2) == Some(0);
        match kind {
            'p' => adf == 1 && dr == if white { 1 } else { -1 },
            'n' => (adf, adr) == (1, 2) || (adf, adr) == (2, 1),
            'k' => adf.max(adr) == 1,
            'r' => orth && clear,
            'b' => diag && clear,
            'q' | 's' => (orth || diag) && clear,
            'c' => orth && adf.max(adr) <= 4 && self.between_count(f1, r1, f2, r2) == Some(1),
            _ => panic!("unknown piece {kind}"),
        }
    }

    /// Whether any piece of `white` could hit (f, r).
    pub fn attacked(&self, f: i32, r: i32, white: bool) -> bool {
        (0..7).any(|pr| {
            (0..7).any(|pf| {
                matches!(self.at(pf, pr), Some((w, _)) if w == white) && self.hits(pf, pr, f, r)
            })
        })
    }

    pub fn king(&self, white: bool) -> (i32, i32) {
        for r in 0..7 {
            for f in 0..7 {
                if self.at(f, r) == Some((white, 'k')) {
                    return (f, r);
                }
            }
        }
        panic!("no king")
    }

    /// Every legal move as UCI text, sorted.
    pub fn legal(&self) -> Vec<(String, Slow)> {
        let us = self.white_to_move;
        let mut out = Vec::new();
        for r1 in 0..7 {
            for f1 in 0..7 {
                let Some((w, kind)) = self.at(f1, r1) else { continue };
                if w != us {
                    continue;
                }
                for r2 in 0..7 {
                    for f2 in 0..7 {
                        let target = self.at(f2, r2);
                        let ok = match target {
                            Some((tw, _)) if tw == us => false,
                            // Kings are never taken; Spies only on the spy-square.
                            Some((_, 'k')) => false,
                            Some((_, 's')) if self.spy != Some((f2, r2)) => false,
                            Some(_) => self.hits(f1, r1, f2, r2),
                            None => match kind {
                                'p' => f2 == f1 && r2 - r1 == if us { 1 } else { -1 },
                                'c' => {
                                    (f1 == f2) != (r1 == r2)
                                        && (f2 - f1).abs().max((r2 - r1).abs()) <= 4
                                        && self.between_count(f1, r1, f2, r2) == Some(0)
                                }
                                _ => self.hits(f1, r1, f2, r2),
                            },
                        };
                        if !ok {
                            continue;
                        }
                        let promo_rank = if us { 5 } else { 1 };
                        let promos: &[Option<char>] = if kind == 'p' && r2 == promo_rank {
                            &[Some('q'), Some('r'), Some('b'), Some('n'), Some('c'), Some('s')]
                        } else {
                            &[None]
                        };
                        for &promo in promos {
                            let mut next = self.clone();
                            next.grid[r1 as usize][f1 as usize] = None;
                            let placed = promo.unwrap_or(kind);
                            next.grid[r2 as usize][f2 as usize] = Some((us, placed));
                            next.white_to_move = !us;
                            next.spy = (target.is_some() && placed == 's').then_some((f2, r2));
                            let irreversible = target.is_some() || kind == 'p';
                            next.halfmove = if irreversible { 0 } else { self.halfmove + 1 };
                            let (kf, kr) = next.king(us);
                            if next.attacked(kf, kr, !us) {
                                continue;
                            }
                            let mut text = format!(
                                "{}{}{}{}",
                                (b'a' + f1 as u8) as char,
                                r1 + 1,
                                (b'a' + f2 as u8) as char,
                                r2 + 1
                            );
                            if let Some(p) = promo {
                                text.push(p);
                            }
                            out.push((text, next));
                        }
                    }
                }
            }
        }
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }

    pub fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let moves = self.legal();
        if depth == 1 {
            return moves.len() as u64;
        }
        moves.iter().map(|(_, p)| p.perft(depth - 1)).sum()
    }
}

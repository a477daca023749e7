//! An obviously-correct model of 6x6 Secret Chess movement and aging (R-G2..R-G4) on a 6x6
//! array of characters, sharing no code with the engine: its own parser, its own ray walking
//! and its own aging. Used by `secretchess6_perft.rs` (move counts) and
//! `secretchess6_obsperft.rs` (what each side is told).
#![allow(dead_code, reason = "each test binary uses a different subset")]

pub mod game;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Man {
    pub letter: char,
    pub moved: bool,
    pub life: u8,
    pub powered: bool,
    pub frozen: bool,
}

#[derive(Clone, Debug)]
pub struct Pos {
    /// `cells[rank][file]`, rank 0 = rank 1.
    pub cells: [[Option<Man>; 6]; 6],
    pub white_to_move: bool,
}

fn white(c: char) -> bool {
    c.is_ascii_uppercase()
}

fn full_life(c: char) -> u8 {
    match c.to_ascii_lowercase() {
        'q' => 1,
        'b' => 2,
        'r' => 3,
        'n' => 4,
        _ => 0,
    }
}

fn sq(t: &str) -> (usize, usize) {
    let b = t.as_bytes();
    ((b[0] - b'a') as usize, (b[1] - b'1') as usize)
}

pub fn parse(fen: &str) -> Pos {
    let f: Vec<&str> = fen.split_whitespace().collect();
    let mut cells = [[None; 6]; 6];
    for (i, row) in f[0].split('/').enumerate() {
        let rank = 5 - i;
        let mut file = 0;
        for c in row.chars() {
            if let Some(d) = c.to_digit(10) {
                file += d as usize;
            } else {
                let man = Man {
                    letter: c,
                    moved: false,
                    life: full_life(c),
                    powered: false,
                    frozen: false,
                };
                cells[rank][file] = Some(man);
                file += 1;
            }
        }
    }
    if let Some(list) = f.get(2).filter(|s| **s != "-") {
        for item in list.split(',') {
            let (s, rest) = item.split_once('=').unwrap();
            let (file, rank) = sq(s);
            let m = cells[rank][file].as_mut().unwrap();
            m.moved = true;
            m.powered = rest.ends_with('+');
            m.life = rest.trim_end_matches('+').parse().unwrap();
        }
    }
    if let Some(list) = f.get(4).filter(|s| **s != "-") {
        for s in list.split(',') {
            let (file, rank) = sq(s);
            cells[rank][file].as_mut().unwrap().frozen = true;
        }
    }
    Pos { cells, white_to_move: f[1] == "w" }
}

fn own_rank(white_side: bool, rank: i32) -> bool {
    if white_side { rank <= 2 } else { rank >= 3 }
}

/// (from, to) pairs as (file, rank), with the power flag.
/// (from, to) as (file, rank), and the power flag; a pass has both at (9, 9).
pub type Mv = ((usize, usize), (usize, usize), bool);

pub fn moves(p: &Pos) -> Vec<Mv> {
    let mut out = Vec::new();
    let mut men = [0usize; 2];
    for r in 0..6 {
        for f in 0..6 {
            if let Some(m) = p.cells[r][f]
                && !m.letter.eq_ignore_ascii_case(&'k')
            {
                men[usize::from(!white(m.letter))] += 1;
            }
        }
    }
    if men == [0, 0] {
        return out;
    }
    let inside = |f: i32, r: i32| (0..6).contains(&f) && (0..6).contains(&r);
    for r in 0..6i32 {
        for f in 0..6i32 {
            let Some(m) = p.cells[r as usize][f as usize] else { continue };
            if white(m.letter) != p.white_to_move {
                continue;
            }
            let free = |ff: i32, rr: i32| {
                inside(ff, rr)
                    && own_rank(p.white_to_move, rr)
                    && p.cells[rr as usize][ff as usize].is_none()
            };
            let mut add = |ff: i32, rr: i32, power: bool| {
                out.push(((f as usize, r as usize), (ff as usize, rr as usize), power));
            };
            let mut slide = |dirs: &[(i32, i32)]| {
                for &(df, dr) in dirs {
                    let (mut ff, mut rr) = (f + df, r + dr);
                    while free(ff, rr) {
                        add(ff, rr, false);
                        ff += df;
                        rr += dr;
                    }
                }
            };
            let orth = [(1, 0), (-1, 0), (0, 1), (0, -1)];
            let diag = [(1, 1), (1, -1), (-1, 1), (-1, -1)];
            match m.letter.to_ascii_lowercase() {
                'r' => slide(&orth),
                'b' => slide(&diag),
                'q' => {
                    slide(&orth);
                    slide(&diag);
                }
                'n' => {
                    let (a, b) = if m.powered { (3, 1) } else { (2, 1) };
                    for (x, y) in [(a, b), (b, a)] {
                        for (sx, sy) in [(1, 1), (1, -1), (-1, 1), (-1, -1)] {
                            if free(f + sx * x, r + sy * y) {
                                add(f + sx * x, r + sy * y, false);
                            }
                        }
                    }
                    if !m.powered {
                        for (x, y) in [(3, 1), (1, 3)] {
                            for (sx, sy) in [(1, 1), (1, -1), (-1, 1), (-1, -1)] {
                                if free(f + sx * x, r + sy * y) {
                                    add(f + sx * x, r + sy * y, true);
                                }
                            }
                        }
                    }
                }
                _ => {}
            }
        }
    }
    if out.is_empty() {
        // Pass: encoded as from == to.
        out.push(((9, 9), (9, 9), false));
    }
    out
}

pub fn play(p: &Pos, mv: Mv) -> Pos {
    let mut n = p.clone();
    let ((ff, fr), (tf, tr), power) = mv;
    if ff != 9 {
        let mut m = n.cells[fr][ff].take().unwrap();
        m.moved = true;
        m.frozen = false;
        if power {
            m.powered = true;
            m.life = m.life.min(3);
        }
        n.cells[tr][tf] = Some(m);
    }
    n.white_to_move = !n.white_to_move;
    for r in 0..6 {
        for f in 0..6 {
            if let Some(m) = n.cells[r][f].as_mut()
                && white(m.letter) == n.white_to_move
            {
                if m.frozen {
                    m.frozen = false;
                } else if m.moved {
                    m.life -= 1;
                    if m.life == 0 {
                        n.cells[r][f] = None;
                    }
                }
            }
        }
    }
    n
}

pub fn perft(p: &Pos, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    moves(p).into_iter().map(|m| perft(&play(p, m), depth - 1)).sum()
}

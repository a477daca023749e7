//! Swiss pairings by the FIDE Dutch system (C.04.3), as a pure function of the rounds so far.
//!
//! What is implemented, in FIDE's terms:
//!
//! - Pairing numbers are the initial ranking; players are ordered by score, then pairing number.
//! - Round 1: top half against bottom half, the initial color (white) to odd pairing numbers of
//!   the top half; the pairing-allocated bye (PAB) to the lowest-ranked player of an odd field.
//! - Absolute criteria: no rematch of a game played over the board, no PAB for a player who
//!   already had one (or a forfeit win or a full-point bye), no two players with the same
//!   absolute color preference (color difference beyond ±1, or the same color twice running),
//!   relaxed for topscorers (more than half the maximum score) in the last round.
//! - Completion (C.4): before anything else the lowest score group that can take the PAB is
//!   fixed; every bracket's choice must then leave the rest of the round pairable with the PAB
//!   in that score group (an exact search with memoisation; skipped above 128 remaining players).
//! - Brackets from the top score group down: moved-down players (MDPs) plus the score group's
//!   residents. Unpaired players float down to the next bracket.
//! - Quality criteria, as one cost compared field by field (see `cost`): most pairs (C.5),
//!   lowest downfloater scores (C.6), most pairs and then lowest unpaired scores in the next
//!   bracket (C.8 of the 2017 text, "choose downfloaters for the next bracket's sake"), then
//!   C9 (bbpPairings' numbering): the fewest unplayed games (rounds not played over the board:
//!   byes, forfeits, absences) for the player who gets the pairing-allocated bye, wherever a
//!   bracket's candidate fixes who that is (it leaves one player unpaired and nobody below can
//!   take the bye; always so in the last bracket), then the topscorer color criteria, unmet
//!   color preferences, unmet strong preferences, repeated downfloats and upfloats from one
//!   and two rounds before, and the scores involved in them (C.10–C.19). The order and the
//!   exact terms follow bbpPairings' edge weights as `caissify-pairings` documents them.
//! - Each bracket in two passes: a branch-and-bound search finds the best cost any candidate
//!   reaches; then candidates are generated in the Dutch order (MDP-pairing transpositions, then
//!   for the remainder S1 = upper half against S2: transpositions of S2 in lexicographic order,
//!   then exchanges in the order of C.04.3 D.2: fewest players, smallest BSN-sum difference,
//!   highest BSNs out of S1, lowest BSNs out of S2) and the first that reaches that cost is
//!   taken.
//! - Colors by C.04.3 E: both preferences, the stronger preference (wider color difference if
//!   both absolute), alternate from the last round the two had different colors, the higher
//!   ranked player's preference, then the initial color (white) by the higher ranked player's
//!   pairing number parity. "Higher ranked" is by score, then pairing number (C.04.3 A.2, and
//!   bbpPairings' `choosePlayerColor`); `caissify-pairings` 0.5.0 uses the pairing number alone,
//!   so colors can differ from it.
//!
//! Departures (documented so they can be checked): the initial color is always white; MDPs do
//! not take part in exchanges, at most [`MAX_EXCHANGED`] players are exchanged and exchanges of
//! one size are only tried while there are at most [`MAX_EXCHANGES`] of them; the optimum search
//! stops after [`CANDIDATE_BUDGET`] steps and keeps the best found, and if the Dutch-order pass
//! does not reach the optimum within [`ORDER_BUDGET`] steps the first pass's candidate is used;
//! C9 is not weighed where a bracket leaves several players unpaired and the bye must be one of
//! them (the next bracket weighs it if it leaves one); the current bracket's pairs come before
//! its scores and the next bracket's pairs before its scores, where bbpPairings' weights fold
//! each pair into its score. Byes: a zero-point or half-point bye (absence) does not make a
//! player ineligible for the PAB (as in FIDE C.04.1 and bbpPairings; `caissify-pairings` 0.5.0
//! counts any bye). Floats: every round not played over
//! the board counts as a downfloat, as C.04.3 A.4.b says ("a player who, for whatever reason,
//! does not play in a round, also receives a downfloat"): any bye, a forfeit win, a forfeit
//! loss and both sides of a double forfeit (`caissify-pairings` 0.5.0 gives no float for a
//! forfeit loss or a double forfeit, bbpPairings the float the scores would give a played
//! game). Measured agreement with the oracle: see `tests/pairing_oracle.rs`.

use super::{ByeKind, PairingError, Pairings, PlayerIndex, Round};
use std::collections::{BTreeMap, BTreeSet};

/// The most search steps of a bracket's optimum search (pass 1) before the best so far is taken.
pub const CANDIDATE_BUDGET: usize = 20_000;
/// The most search steps spent looking for the first candidate in Dutch order that reaches the
/// optimum (pass 2) before pass 1's candidate is taken instead.
pub const ORDER_BUDGET: usize = 200_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Float {
    None,
    Up,
    Down,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Strength {
    None,
    Mild,
    Strong,
    Absolute,
}

/// A player as the pairing sees them before the round.
#[derive(Clone, Debug)]
struct P {
    idx: PlayerIndex,
    /// Pairing number, 1-based.
    pn: usize,
    /// Half-points.
    score: u32,
    /// Colors of played games, `true` = white.
    colors: Vec<bool>,
    /// One entry per previous round.
    floats: Vec<Float>,
    opponents: BTreeSet<PlayerIndex>,
    bye_ok: bool,
    /// Rounds so far not played over the board (byes, forfeits, absences): C9's count.
    unplayed: u32,
}

impl P {
    fn color_diff(&self) -> i32 {
        self.colors.iter().map(|&w| if w { 1 } else { -1 }).sum()
    }

    fn twice_running(&self) -> Option<bool> {
        match self.colors.as_slice() {
            [.., a, b] if a == b => Some(*a),
            _ => None,
        }
    }

    /// Preferred color (`true` = white) and its strength.
    fn preference(&self) -> (Option<bool>, Strength) {
        let Some(&last) = self.colors.last() else {
            return (None, Strength::None);
        };
        let d = self.color_diff();
        if !(-1..=1).contains(&d) {
            return (Some(d < 0), Strength::Absolute);
        }
        if let Some(c) = self.twice_running() {
            return (Some(!c), Strength::Absolute);
        }
        if d != 0 {
            return (Some(d < 0), Strength::Strong);
        }
        (Some(!last), Strength::Mild)
    }

    fn last_float(&self, back: usize) -> Float {
        if self.floats.len() >= back { self.floats[self.floats.len() - back] } else { Float::None }
    }

    /// Whether giving `white` would break the absolute color rules.
    fn forbidden(&self, white: bool) -> bool {
        let d = self.color_diff() + if white { 1 } else { -1 };
        d.abs() > 2 || self.twice_running() == Some(white)
    }
}

/// Builds the players' pre-round state from the rounds so far.
fn players(ranking: &[PlayerIndex], rounds: &[Round]) -> Vec<P> {
    let n = ranking.len();
    let mut pn = vec![0usize; n];
    for (k, &i) in ranking.iter().enumerate() {
        if i < n {
            pn[i] = k + 1;
        }
    }
    let mut ps: Vec<P> = (0..n)
        .map(|i| P {
            idx: i,
            pn: pn[i],
            score: 0,
            colors: Vec::new(),
            floats: Vec::new(),
            opponents: BTreeSet::new(),
            bye_ok: true,
            unplayed: 0,
        })
        .collect();
    for round in rounds {
        let before: Vec<u32> = ps.iter().map(|p| p.score).collect();
        let mut float = vec![Float::Down; n];
        for g in &round.games {
            let (w, b) = (g.white, g.black);
            let (pw, pb) = g.result.half_points();
            ps[w].score += pw;
            ps[b].score += pb;
            if g.result.played() {
                ps[w].colors.push(true);
                ps[b].colors.push(false);
                ps[w].opponents.insert(b);
                ps[b].opponents.insert(w);
                let (fw, fb) = match before[w].cmp(&before[b]) {
                    std::cmp::Ordering::Greater => (Float::Down, Float::Up),
                    std::cmp::Ordering::Less => (Float::Up, Float::Down),
                    std::cmp::Ordering::Equal => (Float::None, Float::None),
                };
                float[w] = fw;
                float[b] = fb;
            } else {
                // Not played over the board: a forfeit (either side) or a double forfeit. A.4.b:
                // "a player who, for whatever reason, does not play in a round, also receives a
                // downfloat": the winner, the loser, and both sides of a double forfeit.
                for (p, pts) in [(w, pw), (b, pb)] {
                    if pts == 2 {
                        ps[p].bye_ok = false;
                    }
                    float[p] = Float::Down;
                }
            }
        }
        for &(p, kind) in &round.byes {
            ps[p].score += kind.half_points();
            if matches!(kind, ByeKind::PairingAllocated | ByeKind::Full) {
                ps[p].bye_ok = false;
            }
        }
        for (p, f) in ps.iter_mut().zip(float) {
            p.floats.push(f);
        }
    }
    for p in &mut ps {
        // Colors are kept for games played over the board only.
        p.unplayed = (rounds.len() - p.colors.len()) as u32;
    }
    ps
}

/// Pairs round `round` (1-based) of a Swiss whose initial ranking is `ranking` (player indices,
/// pairing number 1 first), given the rounds so far and who is absent.
pub fn pair(
    ranking: &[PlayerIndex],
    rounds: &[Round],
    absent: &BTreeSet<PlayerIndex>,
    round: usize,
) -> Result<Pairings, PairingError> {
    pair_with_total(ranking, rounds, absent, round, usize::MAX)
}

/// [`pair`], knowing the tournament's number of rounds (the last round relaxes color rules for
/// topscorers).
pub fn pair_with_total(
    ranking: &[PlayerIndex],
    rounds: &[Round],
    absent: &BTreeSet<PlayerIndex>,
    round: usize,
    total_rounds: usize,
) -> Result<Pairings, PairingError> {
    super::check_history(ranking.len(), rounds)?;
    let all = players(ranking, rounds);
    let mut ps: Vec<P> = all.into_iter().filter(|p| !absent.contains(&p.idx)).collect();
    ps.sort_by_key(|p| (std::cmp::Reverse(p.score), p.pn));
    if ps.is_empty() {
        return Ok(Pairings::default());
    }
    let pairs_and_bye =
        if rounds.iter().all(|r| r.games.is_empty()) && ps.iter().all(|p| p.score == 0) {
            first_round(&ps)
        } else {
            let last_round = round == total_rounds;
            let mut ctx = Ctx::new(&ps, round, last_round);
            ctx.pair_all().ok_or(PairingError::NoPairing { round })?
        };
    let (pairs, bye) = pairs_and_bye;
    let mut games: Vec<(usize, usize)> = pairs
        .iter()
        .map(|&(a, b)| if color_of_first(&ps[a], &ps[b]) { (a, b) } else { (b, a) })
        .collect();
    // Boards: higher score of the pair first, then higher sum, then the better pairing number.
    games.sort_by_key(|&(w, b)| {
        let (pw, pb) = (&ps[w], &ps[b]);
        (
            std::cmp::Reverse(pw.score.max(pb.score)),
            std::cmp::Reverse(pw.score + pb.score),
            pw.pn.min(pb.pn),
        )
    });
    Ok(Pairings {
        games: games.into_iter().map(|(w, b)| (ps[w].idx, ps[b].idx)).collect(),
        bye: bye.map(|b| ps[b].idx),
    })
}

type Pairs = (Vec<(usize, usize)>, Option<usize>);

/// A bracket's pairs and the players it floats down.
type BracketPairing = (Vec<(usize, usize)>, Vec<usize>);

fn first_round(ps: &[P]) -> Pairs {
    let mut order: Vec<usize> = (0..ps.len()).collect();
    let mut bye = None;
    if order.len() % 2 == 1 {
        // The lowest-ranked player eligible for the bye.
        let pos = order.iter().rposition(|&i| ps[i].bye_ok).unwrap_or(order.len() - 1);
        bye = Some(order.remove(pos));
    }
    let half = order.len() / 2;
    let pairs = (0..half).map(|i| (order[i], order[half + i])).collect();
    (pairs, bye)
}

/// Whether `a` gets white against `b`.
fn color_of_first(a: &P, b: &P) -> bool {
    let (pa, sa) = a.preference();
    let (pb, sb) = b.preference();
    // Absolute rules first: never give a forbidden color if the other way is allowed.
    let a_white_ok = !a.forbidden(true) && !b.forbidden(false);
    let a_black_ok = !a.forbidden(false) && !b.forbidden(true);
    if a_white_ok != a_black_ok {
        return a_white_ok;
    }
    // E.1: both preferences.
    if let (Some(x), Some(y)) = (pa, pb)
        && x != y
    {
        return x;
    }
    // E.2: the stronger preference; both absolute: the wider color difference.
    if sa != sb {
        if sa > sb {
            if let Some(x) = pa {
                return x;
            }
        } else if let Some(y) = pb {
            return !y;
        }
    } else if sa == Strength::Absolute
        && let Some(x) = pa
    {
        let (da, db) = (a.color_diff().abs(), b.color_diff().abs());
        if da != db {
            return if da > db { x } else { !x };
        }
    }
    // E.3: alternate from the most recent round in which they had different colors.
    for (ca, cb) in a.colors.iter().rev().zip(b.colors.iter().rev()) {
        if ca != cb {
            return !ca;
        }
    }
    // E.4: the higher ranked player's preference.
    let a_higher = (std::cmp::Reverse(a.score), a.pn) < (std::cmp::Reverse(b.score), b.pn);
    let (high_pref, high_is_a) = if a_higher { (pa, true) } else { (pb, false) };
    if let Some(x) = high_pref {
        return if high_is_a { x } else { !x };
    }
    // E.5: initial color (white) to the higher ranked player if their pairing number is odd.
    let high_pn = if a_higher { a.pn } else { b.pn };
    let high_white = high_pn % 2 == 1;
    if high_is_a { high_white } else { !high_white }
}

struct Ctx<'a> {
    ps: &'a [P],
    compat: Vec<Vec<bool>>,
    memo: BTreeMap<u128, bool>,
    /// C.8 results by downfloater set.
    /// Keyed by the downfloaters and how many players are below their bracket.
    next_memo: BTreeMap<(u128, usize), (u32, u32)>,
    /// The PAB may only go to a player with at most this score: the lowest score for which the
    /// whole round can still be completed.
    bye_score: u32,
}

impl<'a> Ctx<'a> {
    fn new(ps: &'a [P], round: usize, last_round: bool) -> Ctx<'a> {
        let n = ps.len();
        // Topscorers: more than half the maximum possible score (half-points: > round - 1).
        let top = |p: &P| p.score as usize > round.saturating_sub(1);
        let compat = (0..n)
            .map(|i| {
                (0..n)
                    .map(|j| {
                        let (a, b) = (&ps[i], &ps[j]);
                        if i == j || a.opponents.contains(&b.idx) {
                            return false;
                        }
                        let color_ok = (!a.forbidden(true) && !b.forbidden(false))
                            || (!a.forbidden(false) && !b.forbidden(true));
                        color_ok || (last_round && (top(a) || top(b)))
                    })
                    .collect()
            })
            .collect();
        Ctx { ps, compat, memo: BTreeMap::new(), next_memo: BTreeMap::new(), bye_score: u32::MAX }
    }

    /// Whether the players in `mask` can all be paired, one of them (eligible) taking the bye if
    /// their number is odd.
    fn completable(&mut self, mask: u128) -> bool {
        if mask == 0 {
            return true;
        }
        if let Some(&r) = self.memo.get(&mask) {
            return r;
        }
        let i = mask.trailing_zeros() as usize;
        let rest = mask & !(1u128 << i);
        let mut ok = false;
        if mask.count_ones() % 2 == 1 && self.ps[i].bye_ok && self.ps[i].score <= self.bye_score {
            ok = self.completable(rest);
        }
        let mut m = rest;
        while !ok && m != 0 {
            let j = m.trailing_zeros() as usize;
            m &= !(1u128 << j);
            if self.compat[i][j] {
                ok = self.completable(rest & !(1u128 << j));
            }
        }
        self.memo.insert(mask, ok);
        ok
    }

    fn completable_set(&mut self, a: &[usize], b: &[usize]) -> bool {
        let mut mask = 0u128;
        for &i in a.iter().chain(b) {
            if i >= 128 {
                // Too many players for the exact check: assume completable.
                return true;
            }
            mask |= 1u128 << i;
        }
        self.completable(mask)
    }

    fn pair_all(&mut self) -> Option<Pairs> {
        let ps = self.ps;
        let n = ps.len();
        // Nothing can be done if the whole field cannot be paired.
        let everyone: Vec<usize> = (0..n).collect();
        if !self.completable_set(&everyone, &[]) {
            return None;
        }
        if n % 2 == 1 {
            // The PAB goes to the lowest score group it can (completion, C.04.3 C.4 as
            // bbpPairings reads it): fix the lowest workable score first.
            let mut scores: Vec<u32> = ps.iter().filter(|p| p.bye_ok).map(|p| p.score).collect();
            scores.sort_unstable();
            scores.dedup();
            for s in scores {
                self.bye_score = s;
                self.memo.clear();
                self.next_memo.clear();
                if self.completable_set(&everyone, &[]) {
                    break;
                }
            }
        }
        let mut pairs = Vec::new();
        let mut mdps: Vec<usize> = Vec::new();
        let mut start = 0;
        while start < n {
            let mut end = start;
            while end < n && ps[end].score == ps[start].score {
                end += 1;
            }
            let residents: Vec<usize> = (start..end).collect();
            let below: Vec<usize> = (end..n).collect();
            let (bp, left) = self.bracket(&mdps, &residents, &below)?;
            pairs.extend(bp);
            mdps = left;
            start = end;
        }
        match mdps.as_slice() {
            [] => Some((pairs, None)),
            [b] => Some((pairs, Some(*b))),
            _ => None,
        }
    }
}

/// The quality criteria of a bracket candidate as one cost, compared field by field
/// (lexicographically, lower is better); the fields are indexed by the constants of [`cost`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
struct Cost([u32; 17]);

impl Cost {
    /// Whether some field is above `target`'s: then no completion of this partial cost can
    /// equal `target` (fields only grow).
    fn exceeds(&self, target: &Cost) -> bool {
        self.0.iter().zip(target.0).any(|(&a, b)| a > b)
    }

    fn of(field: usize, amount: u32) -> Cost {
        let mut c = Cost::default();
        c.0[field] = amount;
        c
    }
}

impl std::ops::Add for Cost {
    type Output = Cost;
    fn add(mut self, other: Cost) -> Cost {
        self += other;
        self
    }
}

impl std::ops::AddAssign for Cost {
    fn add_assign(&mut self, other: Cost) {
        for (a, b) in self.0.iter_mut().zip(other.0) {
            *a += b;
        }
    }
}

impl std::ops::SubAssign for Cost {
    fn sub_assign(&mut self, other: Cost) {
        for (a, b) in self.0.iter_mut().zip(other.0) {
            *a -= b;
        }
    }
}

impl std::iter::Sum for Cost {
    fn sum<I: Iterator<Item = Cost>>(iter: I) -> Cost {
        iter.fold(Cost::default(), |a, b| a + b)
    }
}

/// The fields of a [`Cost`], most important first.
mod cost {
    /// C.5: unpaired players.
    pub const UNPAIRED: usize = 0;
    /// C.6: half-points of the downfloaters.
    pub const LEFT_SCORE: usize = 1;
    /// C.8: players of the next bracket left unpaired there at best.
    pub const NEXT: usize = 2;
    /// C.8: their half-points (so downfloaters are paired in the next bracket if they can).
    pub const NEXT_SCORE: usize = 3;
    /// C9 (as bbpPairings and `caissify-pairings` number it, and in their place: after the
    /// next bracket, before the color criteria): the unplayed games of the assignee of the
    /// pairing-allocated bye, when a candidate fixes who that is (see `Ctx::bye_cost`).
    pub const BYE_UNPLAYED: usize = 4;
    /// C.8 (topscorers, last round): pairs where both have a color difference beyond ±1 and
    /// the same preference.
    pub const TOP_IMBALANCE: usize = 5;
    /// C.9 (topscorers, last round): pairs of absolute preferences where one gets the same
    /// color a third time running.
    pub const TOP_REPEAT: usize = 6;
    /// C.10: pairs whose color preferences clash.
    pub const COLOR: usize = 7;
    /// C.11: pairs whose strong color preferences clash.
    pub const STRONG: usize = 8;
    /// C.12: repeated downfloats from last round.
    pub const DOWN1: usize = 9;
    /// C.13: repeated upfloats from last round.
    pub const UP1: usize = 10;
    /// C.14: repeated downfloats from two rounds ago.
    pub const DOWN2: usize = 11;
    /// C.15: repeated upfloats from two rounds ago.
    pub const UP2: usize = 12;
    /// C.16: scores (plus one) of last round's downfloaters floating again.
    pub const DOWN1_SCORE: usize = 13;
    /// C.17: scores (plus one) of the opponents of last round's upfloaters floating up again.
    pub const UP1_SCORE: usize = 14;
    /// C.18: as C.16, two rounds ago.
    pub const DOWN2_SCORE: usize = 15;
    /// C.19: as C.17, two rounds ago.
    pub const UP2_SCORE: usize = 16;
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    Open,
    Paired,
    Left,
}

/// The depth-first search of one bracket's candidates in Dutch order, with branch and bound.
struct Dfs {
    /// Bracket order: MDPs (by score, pairing number), then residents (by pairing number).
    order: Vec<usize>,
    n_mdp: usize,
    slot: Vec<Slot>,
    /// `true` = S1.
    s1: Vec<bool>,
    remainder_split: bool,
    pairs: Vec<(usize, usize)>,
    left: Vec<usize>,
    cost: Cost,
    best: Option<(Cost, BracketPairing)>,
    nodes: usize,
}

impl<'a> Ctx<'a> {
    fn pair_cost(&self, a: usize, b: usize) -> Cost {
        let ps = self.ps;
        let (hi, lo) = if (std::cmp::Reverse(ps[a].score), ps[a].pn)
            < (std::cmp::Reverse(ps[b].score), ps[b].pn)
        {
            (a, b)
        } else {
            (b, a)
        };
        let (h, l) = (&ps[hi], &ps[lo]);
        let (ph, sh) = h.preference();
        let (pl, sl) = l.preference();
        let mut c = Cost::default();
        if ph.is_some() && ph == pl {
            let (dh, dl) = (h.color_diff().abs(), l.color_diff().abs());
            if dh >= 2 && dl >= 2 {
                c.0[cost::TOP_IMBALANCE] += 1;
            }
            if sh == Strength::Absolute && sl == Strength::Absolute {
                // The one with the smaller imbalance yields; equal: either would.
                let (rh, rl) = (h.twice_running(), l.twice_running());
                let yields = if dh == dl {
                    rl.is_some() && rl == rh
                } else {
                    let lower = if dl > dh { rh } else { rl };
                    lower.is_some() && lower == pl.map(|w| !w)
                };
                if yields {
                    c.0[cost::TOP_REPEAT] += 1;
                }
            }
            c.0[cost::COLOR] += 1;
            if sh.min(sl) >= Strength::Strong
                && !(sh == Strength::Absolute && sl == Strength::Absolute)
            {
                c.0[cost::STRONG] += 1;
            }
        }
        if h.score > l.score {
            if h.last_float(1) == Float::Down {
                c.0[cost::DOWN1] += 1;
            }
            if h.last_float(2) == Float::Down {
                c.0[cost::DOWN2] += 1;
            }
            if l.last_float(1) == Float::Up {
                c.0[cost::UP1] += 1;
                c.0[cost::UP1_SCORE] += h.score + 1;
            }
            if l.last_float(2) == Float::Up {
                c.0[cost::UP2] += 1;
                c.0[cost::UP2_SCORE] += h.score + 1;
            }
        }
        c
    }

    /// C.8: how many players of the next bracket (the downfloaters `left` and the next score
    /// group in `below`) would stay unpaired there at best, the rest of the round still
    /// completable.
    fn next_cost(&mut self, left: &[usize], below: &[usize]) -> Cost {
        let Some(&first) = below.first() else {
            return Cost::default();
        };
        let mut key = 0u128;
        for &i in left {
            if i >= 128 {
                return Cost::default();
            }
            key |= 1u128 << i;
        }
        let key = (key, below.len());
        if let Some(&(u, sc)) = self.next_memo.get(&key) {
            return Cost::of(cost::NEXT, u) + Cost::of(cost::NEXT_SCORE, sc);
        }
        let score = self.ps[first].score;
        let split = below.iter().position(|&j| self.ps[j].score != score).unwrap_or(below.len());
        let (next, rest) = below.split_at(split);
        let mut group: Vec<usize> = left.iter().chain(next).copied().collect();
        group.sort_by_key(|&i| (std::cmp::Reverse(self.ps[i].score), self.ps[i].pn));
        let odd = group.len() % 2 == 1;
        let lowest = group.iter().map(|&i| self.ps[i].score).min().unwrap_or(0);
        let mut state = NextSearch {
            best: (group.len() as u32, u32::MAX),
            ideal: if odd { (1, lowest) } else { (0, 0) },
            used: vec![false; group.len()],
            unmatched: Vec::new(),
            nodes: 0,
        };
        self.next_search(&group, rest, 0, &mut state);
        self.next_memo.insert(key, state.best);
        Cost::of(cost::NEXT, state.best.0) + Cost::of(cost::NEXT_SCORE, state.best.1)
    }

    fn next_search(&mut self, group: &[usize], rest: &[usize], from: usize, st: &mut NextSearch) {
        st.nodes += 1;
        if st.nodes > CANDIDATE_BUDGET || st.best == st.ideal {
            return;
        }
        let open = st.used[from..].iter().filter(|&&u| !u).count() as u32;
        let lower = st.unmatched.len() as u32 + open % 2;
        if lower > st.best.0 {
            return;
        }
        let Some(k) = (from..group.len()).find(|&k| !st.used[k]) else {
            let value = (
                st.unmatched.len() as u32,
                st.unmatched.iter().map(|&i| self.ps[i].score).sum::<u32>(),
            );
            if value < st.best && self.completable_set(&st.unmatched, rest) {
                st.best = value;
            }
            return;
        };
        st.used[k] = true;
        for m in k + 1..group.len() {
            if !st.used[m] && self.compat[group[k]][group[m]] {
                st.used[m] = true;
                self.next_search(group, rest, k + 1, st);
                st.used[m] = false;
            }
        }
        st.unmatched.push(group[k]);
        self.next_search(group, rest, k + 1, st);
        st.unmatched.pop();
        st.used[k] = false;
    }

    /// C9: when a candidate leaves exactly one player unpaired and nobody below the bracket
    /// can take the pairing-allocated bye (always so in the last bracket), that player is the
    /// bye's assignee, and the candidate costs their unplayed games.
    fn bye_cost(&self, left: &[usize], below: &[usize]) -> Cost {
        let ps = self.ps;
        let &[x] = left else {
            return Cost::default();
        };
        if ps.len().is_multiple_of(2)
            || below.iter().any(|&j| ps[j].bye_ok && ps[j].score <= self.bye_score)
        {
            return Cost::default();
        }
        Cost::of(cost::BYE_UNPLAYED, ps[x].unplayed)
    }

    fn left_cost(&self, a: usize) -> Cost {
        let p = &self.ps[a];
        let mut c = Cost::of(cost::UNPAIRED, 1) + Cost::of(cost::LEFT_SCORE, p.score);
        if p.last_float(1) == Float::Down {
            c.0[cost::DOWN1] += 1;
            c.0[cost::DOWN1_SCORE] += p.score + 1;
        }
        if p.last_float(2) == Float::Down {
            c.0[cost::DOWN2] += 1;
            c.0[cost::DOWN2_SCORE] += p.score + 1;
        }
        c
    }

    /// Pairs one bracket: `mdps` moved down from above, `residents` of this score group,
    /// `below` everyone in lower groups. Returns the pairs and the players floating down.
    fn bracket(
        &mut self,
        mdps: &[usize],
        residents: &[usize],
        below: &[usize],
    ) -> Option<BracketPairing> {
        let ps = self.ps;
        let mut order = mdps.to_vec();
        order.sort_by_key(|&i| (std::cmp::Reverse(ps[i].score), ps[i].pn));
        order.extend(residents);
        let m = order.len();
        let mut s1 = vec![false; m];
        for x in s1.iter_mut().take(mdps.len()) {
            *x = true;
        }
        let mut dfs = Dfs {
            order,
            n_mdp: mdps.len(),
            slot: vec![Slot::Open; m],
            s1,
            remainder_split: false,
            pairs: Vec::new(),
            left: Vec::new(),
            cost: Cost::default(),
            best: None,
            nodes: 0,
        };
        if mdps.is_empty() {
            split_remainder(&mut dfs);
        }
        self.search(&mut dfs, below);
        let (target, (pairs, left)) = dfs.best?;
        // Pass 2: the first candidate in Dutch generation order that reaches the optimum.
        let mut order = Order { target, found: None, work: 0 };
        if mdps.is_empty() {
            self.homogeneous(&[], Cost::default(), residents, &[], below, &mut order);
        } else {
            let mut sorted = mdps.to_vec();
            sorted.sort_by_key(|&i| (std::cmp::Reverse(ps[i].score), ps[i].pn));
            self.heterogeneous(&sorted, residents, below, &mut order);
        }
        Some(order.found.unwrap_or((pairs, left)))
    }

    fn heterogeneous(
        &mut self,
        mdps: &[usize],
        residents: &[usize],
        below: &[usize],
        o: &mut Order,
    ) {
        let max_m1 = mdps.len().min(residents.len());
        for m1 in (0..=max_m1).rev() {
            for s1 in combinations(mdps, m1) {
                let limbo: Vec<usize> = mdps.iter().copied().filter(|i| !s1.contains(i)).collect();
                let mut chosen = Vec::with_capacity(m1);
                self.mdp_pairings(&s1, residents, &limbo, below, &mut chosen, Cost::default(), o);
                if o.stop() {
                    return;
                }
            }
        }
    }

    /// Transpositions of the residents against the MDPs in `s1`, in lexicographic order, each
    /// followed by the remainder's homogeneous pairing.
    #[allow(clippy::too_many_arguments, reason = "one recursive step of the search")]
    fn mdp_pairings(
        &mut self,
        s1: &[usize],
        residents: &[usize],
        limbo: &[usize],
        below: &[usize],
        chosen: &mut Vec<usize>,
        cost: Cost,
        o: &mut Order,
    ) {
        if o.stop() || cost.exceeds(&o.target) {
            return;
        }
        let k = chosen.len();
        if k == s1.len() {
            let pairs: Vec<(usize, usize)> =
                s1.iter().zip(chosen.iter()).map(|(&a, &b)| (a, b)).collect();
            let rem: Vec<usize> =
                residents.iter().copied().filter(|i| !chosen.contains(i)).collect();
            self.homogeneous(&pairs, cost, &rem, limbo, below, o);
            return;
        }
        for &r in residents {
            if chosen.contains(&r) || !self.compat[s1[k]][r] {
                continue;
            }
            o.work += 1;
            let c = self.pair_cost(s1[k], r);
            chosen.push(r);
            self.mdp_pairings(s1, residents, limbo, below, chosen, cost + c, o);
            chosen.pop();
            if o.stop() {
                return;
            }
        }
    }

    /// A homogeneous (sub-)bracket `hs` (in bracket order) after the `prefix` pairs, with
    /// `extra_left` players already floating down: S1/S2 with transpositions, then exchanges.
    fn homogeneous(
        &mut self,
        prefix: &[(usize, usize)],
        prefix_cost: Cost,
        hs: &[usize],
        extra_left: &[usize],
        below: &[usize],
        o: &mut Order,
    ) {
        let base = prefix_cost + extra_left.iter().map(|&i| self.left_cost(i)).sum::<Cost>();
        for n1 in (0..=hs.len() / 2).rev() {
            let max_k = n1.min(hs.len() - n1).min(MAX_EXCHANGED);
            // Exchanges of k players are only generated once those of fewer have not served.
            for k in 0..=max_k {
                for (s1, s2) in exchanges(hs, n1, k) {
                    let mut chosen = Vec::with_capacity(n1);
                    let ctx = Leaf { prefix, s1: &s1, s2: &s2, extra_left, below };
                    self.transpositions(&ctx, &mut chosen, base, o);
                    if o.stop() {
                        return;
                    }
                }
            }
        }
    }

    fn transpositions(&mut self, l: &Leaf<'_>, chosen: &mut Vec<usize>, cost: Cost, o: &mut Order) {
        if o.stop() || cost.exceeds(&o.target) {
            return;
        }
        let k = chosen.len();
        // Color clashes still forced: S1 players wanting a color need S2 partners wanting the
        // other (or nothing).
        let count = |players: &mut dyn Iterator<Item = usize>| {
            let (mut w, mut b, mut n) = (0u32, 0u32, 0u32);
            for i in players {
                match self.ps[i].preference().0 {
                    Some(true) => w += 1,
                    Some(false) => b += 1,
                    None => n += 1,
                }
            }
            (w, b, n)
        };
        let (w1, b1, _) = count(&mut l.s1[k..].iter().copied());
        let (w2, b2, n2) = count(&mut l.s2.iter().copied().filter(|i| !chosen.contains(i)));
        let forced = w1.saturating_sub(b2 + n2) + b1.saturating_sub(w2 + n2);
        if (cost + Cost::of(cost::COLOR, forced)).exceeds(&o.target) {
            return;
        }
        if k == l.s1.len() {
            let rest: Vec<usize> = l.s2.iter().copied().filter(|i| !chosen.contains(i)).collect();
            let mut total = cost + rest.iter().map(|&i| self.left_cost(i)).sum::<Cost>();
            if total.exceeds(&o.target) {
                return;
            }
            let mut left: Vec<usize> = l.extra_left.to_vec();
            left.extend(rest);
            total += self.next_cost(&left, l.below) + self.bye_cost(&left, l.below);
            if total != o.target {
                return;
            }
            if l.below.is_empty() && left.len() > 1 {
                return;
            }
            if !self.completable_set(&left, l.below) {
                return;
            }
            let mut pairs = l.prefix.to_vec();
            pairs.extend(l.s1.iter().zip(chosen.iter()).map(|(&a, &b)| (a, b)));
            o.found = Some((pairs, left));
            return;
        }
        for &r in l.s2 {
            if chosen.contains(&r) || !self.compat[l.s1[k]][r] {
                continue;
            }
            o.work += 1;
            let c = self.pair_cost(l.s1[k], r);
            chosen.push(r);
            self.transpositions(l, chosen, cost + c, o);
            chosen.pop();
            if o.stop() {
                return;
            }
        }
    }

    fn search(&mut self, d: &mut Dfs, below: &[usize]) {
        d.nodes += 1;
        if d.nodes > CANDIDATE_BUDGET && d.best.is_some() {
            return;
        }
        // A lower bound, lexicographically: the unpaired player parity forces, and the color
        // clashes forced among the rest if they are all paired (fewer pairs costs more anyway).
        let (mut open, mut white, mut black) = (0u32, 0u32, 0u32);
        for (k, _) in d.slot.iter().enumerate().filter(|(_, s)| **s == Slot::Open) {
            open += 1;
            match self.ps[d.order[k]].preference().0 {
                Some(true) => white += 1,
                Some(false) => black += 1,
                None => {}
            }
        }
        let forced = open % 2;
        let neutral = open - white - black;
        let excess = white.max(black).saturating_sub(white.min(black) + neutral + forced);
        let bound = d.cost + Cost::of(cost::UNPAIRED, forced) + Cost::of(cost::COLOR, excess / 2);
        if d.best.as_ref().is_some_and(|b| bound >= b.0) {
            return;
        }
        if !d.remainder_split && (0..d.n_mdp).all(|k| d.slot[k] != Slot::Open) {
            split_remainder(d);
            self.search(d, below);
            d.remainder_split = false;
            return;
        }
        let Some(x) = d.slot.iter().position(|&s| s == Slot::Open) else {
            // A complete candidate.
            if below.is_empty() && d.left.len() > 1 {
                return;
            }
            let left: Vec<usize> = d.left.clone();
            let total = d.cost + self.next_cost(&left, below) + self.bye_cost(&left, below);
            if d.best.as_ref().is_some_and(|b| total >= b.0) {
                return;
            }
            if !self.completable_set(&left, below) {
                return;
            }
            d.best = Some((total, (d.pairs.clone(), left)));
            return;
        };
        // Partners in Dutch order: S2 players first (bracket order), then S1 players.
        let mut options: Vec<usize> = Vec::new();
        for pass in [false, true] {
            for y in x + 1..d.order.len() {
                if d.slot[y] == Slot::Open && d.s1[y] == pass {
                    options.push(y);
                }
            }
        }
        let px = d.order[x];
        // Cheapest partners first (this pass only needs the optimal cost; the Dutch order is
        // pass 2's business), Dutch order among equals.
        let mut options: Vec<(Cost, usize)> = options
            .into_iter()
            .filter(|&y| self.compat[px][d.order[y]])
            .map(|y| (self.pair_cost(px, d.order[y]), y))
            .collect();
        options.sort_by_key(|&(c, _)| c);
        for (c, y) in options {
            let py = d.order[y];
            d.slot[x] = Slot::Paired;
            d.slot[y] = Slot::Paired;
            d.pairs.push((px, py));
            d.cost += c;
            self.search(d, below);
            d.cost -= c;
            d.pairs.pop();
            d.slot[x] = Slot::Open;
            d.slot[y] = Slot::Open;
            if d.nodes > CANDIDATE_BUDGET && d.best.is_some() {
                return;
            }
        }
        let c = self.left_cost(px);
        d.slot[x] = Slot::Left;
        d.left.push(px);
        d.cost += c;
        self.search(d, below);
        d.cost -= c;
        d.left.pop();
        d.slot[x] = Slot::Open;
    }
}

/// The search behind C.8.
struct NextSearch {
    /// Unpaired players and their half-points.
    best: (u32, u32),
    /// Nothing can beat this: parity, and the lowest score if one must stay unpaired.
    ideal: (u32, u32),
    used: Vec<bool>,
    unmatched: Vec<usize>,
    nodes: usize,
}

/// Pass 2 of a bracket: the Dutch-order search for a candidate of the optimal cost.
struct Order {
    target: Cost,
    found: Option<BracketPairing>,
    work: usize,
}

impl Order {
    fn stop(&self) -> bool {
        self.found.is_some() || self.work > ORDER_BUDGET
    }
}

/// What a transposition search of one S1/S2 split needs.
struct Leaf<'a> {
    prefix: &'a [(usize, usize)],
    s1: &'a [usize],
    s2: &'a [usize],
    extra_left: &'a [usize],
    below: &'a [usize],
}

/// Splits the open residents into S1 (upper half) and S2.
fn split_remainder(d: &mut Dfs) {
    let open: Vec<usize> = (0..d.order.len()).filter(|&k| d.slot[k] == Slot::Open).collect();
    let half = open.len() / 2;
    for (j, &k) in open.iter().enumerate() {
        d.s1[k] = j < half;
    }
    d.remainder_split = true;
}

/// All `k`-subsets of `items`, in lexicographic order of positions.
fn combinations(items: &[usize], k: usize) -> Vec<Vec<usize>> {
    let n = items.len();
    let mut out = Vec::new();
    if k > n {
        return out;
    }
    let mut idx: Vec<usize> = (0..k).collect();
    loop {
        out.push(idx.iter().map(|&i| items[i]).collect());
        let mut i = k;
        let found = loop {
            if i == 0 {
                break false;
            }
            i -= 1;
            if idx[i] < n - k + i {
                break true;
            }
        };
        if !found {
            return out;
        }
        idx[i] += 1;
        for j in i + 1..k {
            idx[j] = idx[j - 1] + 1;
        }
    }
}

/// The largest number of players exchanged between S1 and S2 (bounds the work in big brackets).
pub const MAX_EXCHANGED: usize = 3;

/// The largest number of exchanges of one size that are generated (bounds the work in big
/// brackets; beyond it, larger exchanges are not tried).
pub const MAX_EXCHANGES: usize = 20_000;

/// `(S1, S2)` for `n1` pairs of the homogeneous bracket `hs` with `k` players exchanged
/// between S1 and S2 (`k = 0`: the plain split), in C.04.3 D.2 order. BSNs are positions in `hs`.
fn exchanges(hs: &[usize], n1: usize, k: usize) -> Vec<(Vec<usize>, Vec<usize>)> {
    let s1: Vec<usize> = (0..n1).collect();
    let s2: Vec<usize> = (n1..hs.len()).collect();
    if k == 0 {
        return vec![(hs[..n1].to_vec(), hs[n1..].to_vec())];
    }
    let from_s1 = combinations(&s1, k);
    let from_s2 = combinations(&s2, k);
    if from_s1.len().saturating_mul(from_s2.len()) > MAX_EXCHANGES {
        return Vec::new();
    }
    // Sort key: BSN-sum difference, then the BSNs leaving S1 highest first (higher preferred),
    // then the BSNs leaving S2 lowest first (lower preferred).
    type Key = (usize, std::cmp::Reverse<Vec<usize>>, Vec<usize>);
    let mut list: Vec<(Key, usize, usize)> = Vec::new();
    for (ia, a) in from_s1.iter().enumerate() {
        let sa: usize = a.iter().sum();
        let desc: Vec<usize> = a.iter().rev().copied().collect();
        for (ib, b) in from_s2.iter().enumerate() {
            let sb: usize = b.iter().sum();
            list.push(((sb.abs_diff(sa), std::cmp::Reverse(desc.clone()), b.clone()), ia, ib));
        }
    }
    list.sort();
    list.into_iter()
        .map(|(_, ia, ib)| {
            let (a, b) = (&from_s1[ia], &from_s2[ib]);
            let mut n1s: Vec<usize> = s1.iter().copied().filter(|i| !a.contains(i)).collect();
            n1s.extend(b);
            n1s.sort_unstable();
            let mut n2s: Vec<usize> = s2.iter().copied().filter(|i| !b.contains(i)).collect();
            n2s.extend(a);
            n2s.sort_unstable();
            (n1s.iter().map(|&i| hs[i]).collect(), n2s.iter().map(|&i| hs[i]).collect())
        })
        .collect()
}

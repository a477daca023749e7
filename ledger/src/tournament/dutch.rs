//! Swiss pairings by the FIDE Dutch system (C.04.3), as a pure function of the rounds so far.
//!
//! What is implemented, in FIDE's terms:
//!
//! - Pairing numbers are the initial ranking; players are ordered by score, then pairing number.
//! - Round 1: top half against bottom half, the initial colour (white) to odd pairing numbers of
//!   the top half; the pairing-allocated bye (PAB) to the lowest-ranked player of an odd field.
//! - Later rounds, bracket by bracket from the top score group down: moved-down players (MDPs)
//!   are paired first (S1 = MDPs, S2 = residents, transpositions of S2 in lexicographic order),
//!   then the remainder as a homogeneous bracket (S1 = upper half, S2 = lower half; transpositions
//!   of S2, then exchanges between S1 and S2 in the order of C.04.3 D.2: fewest players, smallest
//!   BSN-sum difference, highest BSNs out of S1, lowest BSNs out of S2). Unpaired players float
//!   down to the next bracket.
//! - Absolute criteria: no rematch of a played game, no second PAB (nor a PAB after a forfeit win
//!   or full-point bye), no two non-topscorers with the same absolute colour preference (|colour
//!   difference| > 1 or the same colour twice running), relaxed for topscorers in the last round.
//! - Completion (C.4): a bracket's choice must leave the rest of the field pairable (an exact
//!   search with memoisation over the remaining players; skipped above 128 remaining players).
//! - Quality criteria, compared lexicographically, first candidate in generation order wins ties:
//!   most pairs (C.5), lowest scores of the downfloaters (C.6), fewest unmet colour preferences
//!   (C.10), fewest unmet strong preferences (C.11), fewest repeated downfloats/upfloats from the
//!   previous round (C.12, C.13) and from two rounds before (C.14, C.15).
//! - Colours by C.04.3 E: both preferences, the stronger preference (wider colour difference if
//!   both absolute), alternate from the last round the two had different colours, the higher
//!   ranked player's preference, then the initial colour by the higher ranked player's pairing
//!   number parity.
//!
//! Departures (documented so they can be checked): C.7 (downfloaters chosen for the next
//! bracket's sake), C.8/C.9 (topscorer colour criteria) and C.16–C.19 (score differences of
//! repeated floaters) are not applied; MDPs do not take part in exchanges; a bracket's candidate
//! search stops after [`CANDIDATE_BUDGET`] candidates and keeps the best one seen; if no bracket
//! candidate exists, the bracket is re-tried as one homogeneous group (MDPs and residents
//! together), which is how a collapsed last bracket behaves. Byes: a zero-point or half-point bye
//! (absence) does not make a player ineligible for the PAB (FIDE, bbpPairings); every round not
//! played counts as a downfloat (C.04.3 A.4.b).

use super::{ByeKind, GameResult, PairingError, Pairings, PlayerIndex, Round};
use std::collections::{BTreeSet, HashMap};

/// The most bracket candidates examined before the best one so far is taken.
pub const CANDIDATE_BUDGET: usize = 20_000;

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
    /// Colours of played games, `true` = white.
    colours: Vec<bool>,
    /// One entry per previous round.
    floats: Vec<Float>,
    opponents: BTreeSet<PlayerIndex>,
    bye_ok: bool,
}

impl P {
    fn colour_diff(&self) -> i32 {
        self.colours.iter().map(|&w| if w { 1 } else { -1 }).sum()
    }

    fn twice_running(&self) -> Option<bool> {
        match self.colours.as_slice() {
            [.., a, b] if a == b => Some(*a),
            _ => None,
        }
    }

    /// Preferred colour (`true` = white) and its strength.
    fn preference(&self) -> (Option<bool>, Strength) {
        let Some(&last) = self.colours.last() else {
            return (None, Strength::None);
        };
        let d = self.colour_diff();
        if d > 1 || d < -1 {
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

    /// Whether giving `white` would break the absolute colour rules.
    fn forbidden(&self, white: bool) -> bool {
        let d = self.colour_diff() + if white { 1 } else { -1 };
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
            colours: Vec::new(),
            floats: Vec::new(),
            opponents: BTreeSet::new(),
            bye_ok: true,
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
                ps[w].colours.push(true);
                ps[b].colours.push(false);
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
                for (p, pts) in [(w, pw), (b, pb)] {
                    if pts == 2 {
                        ps[p].bye_ok = false;
                        float[p] = Float::Down;
                    } else {
                        float[p] = Float::None;
                    }
                }
                if g.result == GameResult::DoubleForfeit {
                    float[w] = Float::None;
                    float[b] = Float::None;
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

/// [`pair`], knowing the tournament's number of rounds (the last round relaxes colour rules for
/// topscorers).
pub fn pair_with_total(
    ranking: &[PlayerIndex],
    rounds: &[Round],
    absent: &BTreeSet<PlayerIndex>,
    round: usize,
    total_rounds: usize,
) -> Result<Pairings, PairingError> {
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
        .map(|&(a, b)| if colour_of_first(&ps[a], &ps[b]) { (a, b) } else { (b, a) })
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
fn colour_of_first(a: &P, b: &P) -> bool {
    let (pa, sa) = a.preference();
    let (pb, sb) = b.preference();
    // Absolute rules first: never give a forbidden colour if the other way is allowed.
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
    // E.2: the stronger preference; both absolute: the wider colour difference.
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
        let (da, db) = (a.colour_diff().abs(), b.colour_diff().abs());
        if da != db {
            return if da > db { x } else { !x };
        }
    }
    // E.3: alternate from the most recent round in which they had different colours.
    for (ca, cb) in a.colours.iter().rev().zip(b.colours.iter().rev()) {
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
    // E.5: initial colour (white) to the higher ranked player if their pairing number is odd.
    let high_pn = if a_higher { a.pn } else { b.pn };
    let high_white = high_pn % 2 == 1;
    if high_is_a { high_white } else { !high_white }
}

/// How good a bracket candidate is: lower is better, compared field by field.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Quality {
    /// C.5: players left unpaired.
    unpaired: usize,
    /// C.6: their scores, highest first.
    left_scores: Vec<u32>,
    /// C.10: players not getting their colour preference.
    colour: usize,
    /// C.11: players not getting a strong colour preference.
    strong: usize,
    /// C.12: downfloaters who floated down last round.
    down1: usize,
    /// C.13: upfloaters who floated up last round.
    up1: usize,
    /// C.14: downfloaters who floated down two rounds ago.
    down2: usize,
    /// C.15: upfloaters who floated up two rounds ago.
    up2: usize,
}

struct Best {
    pairs: Vec<(usize, usize)>,
    left: Vec<usize>,
    quality: Quality,
}

struct Search {
    best: Option<Best>,
    /// Leaves and nodes visited.
    work: usize,
    done: bool,
    /// The best possible quality: reaching it ends the search.
    ideal_unpaired: usize,
    ideal_scores: Vec<u32>,
}

struct Ctx<'a> {
    ps: &'a [P],
    compat: Vec<Vec<bool>>,
    memo: HashMap<u128, bool>,
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
                        let colour_ok = (!a.forbidden(true) && !b.forbidden(false))
                            || (!a.forbidden(false) && !b.forbidden(true));
                        colour_ok || (last_round && (top(a) || top(b)))
                    })
                    .collect()
            })
            .collect();
        Ctx { ps, compat, memo: HashMap::new() }
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
        if mask.count_ones() % 2 == 1 && self.ps[i].bye_ok {
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

    fn quality(&self, pairs: &[(usize, usize)], left: &[usize]) -> Quality {
        let ps = self.ps;
        let mut q = Quality {
            unpaired: left.len(),
            left_scores: left.iter().map(|&i| ps[i].score).collect(),
            colour: 0,
            strong: 0,
            down1: 0,
            up1: 0,
            down2: 0,
            up2: 0,
        };
        q.left_scores.sort_unstable_by(|a, b| b.cmp(a));
        for &(a, b) in pairs {
            let (pa, sa) = ps[a].preference();
            let (pb, sb) = ps[b].preference();
            if pa.is_some() && pa == pb {
                q.colour += 1;
                if sa.min(sb) >= Strength::Strong {
                    q.strong += 1;
                }
            }
            let (hi, lo) = if ps[a].score >= ps[b].score { (a, b) } else { (b, a) };
            if ps[hi].score != ps[lo].score {
                q.up1 += usize::from(ps[lo].last_float(1) == Float::Up);
                q.up2 += usize::from(ps[lo].last_float(2) == Float::Up);
            }
        }
        for &i in left {
            q.down1 += usize::from(ps[i].last_float(1) == Float::Down);
            q.down2 += usize::from(ps[i].last_float(2) == Float::Down);
        }
        q
    }

    fn evaluate(
        &mut self,
        pairs: &[(usize, usize)],
        left: &[usize],
        below: &[usize],
        search: &mut Search,
    ) -> bool {
        search.work += 1;
        if search.work > CANDIDATE_BUDGET {
            search.done = true;
            return false;
        }
        if below.is_empty() && left.len() > 1 {
            return false;
        }
        if !self.completable_set(left, below) {
            return false;
        }
        let q = self.quality(pairs, left);
        let better = search.best.as_ref().is_none_or(|b| q < b.quality);
        let ideal = q.unpaired == search.ideal_unpaired
            && q.left_scores == search.ideal_scores
            && q.colour + q.strong + q.down1 + q.up1 + q.down2 + q.up2 == 0;
        if better {
            search.best = Some(Best { pairs: pairs.to_vec(), left: left.to_vec(), quality: q });
        }
        if ideal {
            search.done = true;
        }
        true
    }

    /// Pairs one bracket: `mdps` moved down from above, `residents` of this score group,
    /// `below` everyone in lower groups. Returns the pairs and the players floating down.
    fn bracket(
        &mut self,
        mdps: &[usize],
        residents: &[usize],
        below: &[usize],
    ) -> Option<(Vec<(usize, usize)>, Vec<usize>)> {
        let ps = self.ps;
        let total = mdps.len() + residents.len();
        let mut all: Vec<usize> = mdps.iter().chain(residents).copied().collect();
        all.sort_by_key(|&i| (std::cmp::Reverse(ps[i].score), ps[i].pn));
        let ideal_unpaired = total % 2;
        let mut scores: Vec<u32> = all.iter().map(|&i| ps[i].score).collect();
        scores.sort_unstable();
        let mut ideal_scores: Vec<u32> = scores[..ideal_unpaired].to_vec();
        ideal_scores.sort_unstable_by(|a, b| b.cmp(a));
        let mut search = Search { best: None, work: 0, done: false, ideal_unpaired, ideal_scores };
        if mdps.is_empty() {
            self.homogeneous(&[], residents, &[], below, &mut search);
        } else {
            self.heterogeneous(mdps, residents, below, &mut search);
            if search.best.is_none() {
                // Collapse: treat MDPs and residents as one group.
                search.work = 0;
                search.done = false;
                self.homogeneous(&[], &all, &[], below, &mut search);
            }
        }
        search.best.map(|b| (b.pairs, b.left))
    }

    fn heterogeneous(
        &mut self,
        mdps: &[usize],
        residents: &[usize],
        below: &[usize],
        search: &mut Search,
    ) {
        let max_m1 = mdps.len().min(residents.len());
        for m1 in (0..=max_m1).rev() {
            for s1 in combinations(mdps, m1) {
                let limbo: Vec<usize> = mdps.iter().copied().filter(|i| !s1.contains(i)).collect();
                let mut chosen = Vec::with_capacity(m1);
                self.mdp_pairings(&s1, residents, &limbo, below, &mut chosen, search);
                if search.done {
                    return;
                }
            }
            if search.best.as_ref().is_some_and(|b| b.quality.unpaired == search.ideal_unpaired) {
                return;
            }
        }
    }

    /// Transpositions of the residents against the MDPs in `s1`, in lexicographic order, each
    /// followed by the remainder's homogeneous pairing.
    fn mdp_pairings(
        &mut self,
        s1: &[usize],
        residents: &[usize],
        limbo: &[usize],
        below: &[usize],
        chosen: &mut Vec<usize>,
        search: &mut Search,
    ) {
        if search.done {
            return;
        }
        let k = chosen.len();
        if k == s1.len() {
            let pairs: Vec<(usize, usize)> =
                s1.iter().zip(chosen.iter()).map(|(&a, &b)| (a, b)).collect();
            let rem: Vec<usize> =
                residents.iter().copied().filter(|i| !chosen.contains(i)).collect();
            self.homogeneous(&pairs, &rem, limbo, below, search);
            return;
        }
        for &r in residents {
            if chosen.contains(&r) || !self.compat[s1[k]][r] {
                continue;
            }
            search.work += 1;
            if search.work > CANDIDATE_BUDGET {
                search.done = true;
                return;
            }
            chosen.push(r);
            self.mdp_pairings(s1, residents, limbo, below, chosen, search);
            chosen.pop();
            if search.done {
                return;
            }
        }
    }

    /// A homogeneous (sub-)bracket `hs` (in bracket order), after the `prefix` pairs already
    /// made, with `extra_left` players already floating down. Returns whether any candidate was
    /// valid.
    fn homogeneous(
        &mut self,
        prefix: &[(usize, usize)],
        hs: &[usize],
        extra_left: &[usize],
        below: &[usize],
        search: &mut Search,
    ) -> bool {
        let n = hs.len();
        for n1 in (0..=n / 2).rev() {
            let mut found = false;
            for (s1, s2) in exchanges(hs, n1) {
                let mut chosen = Vec::with_capacity(n1);
                found |=
                    self.transpositions(prefix, &s1, &s2, extra_left, below, &mut chosen, search);
                if search.done {
                    return found;
                }
            }
            if found {
                return true;
            }
        }
        false
    }

    #[allow(clippy::too_many_arguments, reason = "one recursive step of the search")]
    fn transpositions(
        &mut self,
        prefix: &[(usize, usize)],
        s1: &[usize],
        s2: &[usize],
        extra_left: &[usize],
        below: &[usize],
        chosen: &mut Vec<usize>,
        search: &mut Search,
    ) -> bool {
        let k = chosen.len();
        if k == s1.len() {
            let mut pairs = prefix.to_vec();
            pairs.extend(s1.iter().zip(chosen.iter()).map(|(&a, &b)| (a, b)));
            let mut left: Vec<usize> = extra_left.to_vec();
            left.extend(s2.iter().copied().filter(|i| !chosen.contains(i)));
            return self.evaluate(&pairs, &left, below, search);
        }
        let mut found = false;
        for &r in s2 {
            if chosen.contains(&r) || !self.compat[s1[k]][r] {
                continue;
            }
            search.work += 1;
            if search.work > CANDIDATE_BUDGET {
                search.done = true;
                return found;
            }
            chosen.push(r);
            found |= self.transpositions(prefix, s1, s2, extra_left, below, chosen, search);
            chosen.pop();
            if search.done {
                return found;
            }
        }
        found
    }
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
const MAX_EXCHANGED: usize = 3;

/// `(S1, S2)` for `n1` pairs of the homogeneous bracket `hs`: first the plain split, then every
/// exchange in C.04.3 D.2 order. BSNs are positions in `hs`.
fn exchanges(hs: &[usize], n1: usize) -> Vec<(Vec<usize>, Vec<usize>)> {
    let s1: Vec<usize> = (0..n1).collect();
    let s2: Vec<usize> = (n1..hs.len()).collect();
    let mut out = vec![(hs[..n1].to_vec(), hs[n1..].to_vec())];
    let max_k = n1.min(s2.len()).min(MAX_EXCHANGED);
    for k in 1..=max_k {
        let mut list: Vec<(usize, Vec<usize>, Vec<usize>)> = Vec::new();
        for a in combinations(&s1, k) {
            for b in combinations(&s2, k) {
                let sa: usize = a.iter().sum();
                let sb: usize = b.iter().sum();
                list.push((sb.abs_diff(sa), a.clone(), b));
            }
        }
        list.sort_by(|x, y| {
            x.0.cmp(&y.0)
                .then_with(|| {
                    let mut xa = x.1.clone();
                    let mut ya = y.1.clone();
                    xa.reverse();
                    ya.reverse();
                    ya.cmp(&xa)
                })
                .then_with(|| x.2.cmp(&y.2))
        });
        for (_, a, b) in list {
            let mut n1s: Vec<usize> = s1.iter().copied().filter(|i| !a.contains(i)).collect();
            n1s.extend(&b);
            n1s.sort_unstable();
            let mut n2s: Vec<usize> = s2.iter().copied().filter(|i| !b.contains(i)).collect();
            n2s.extend(&a);
            n2s.sort_unstable();
            out.push((n1s.iter().map(|&i| hs[i]).collect(), n2s.iter().map(|&i| hs[i]).collect()));
        }
    }
    out
}

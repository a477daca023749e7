//! Round-robin schedules by the FIDE Berger tables (FIDE Handbook C.05, Annex 1).
//!
//! With `n` players (`n` even; an odd field gets a dummy player `n + 1`, and whoever meets the
//! dummy has the bye), in round `r` (1-based) the player with pairing number `n` meets `p`, the
//! pairing number with `2p ≡ r + 1 (mod n − 1)`: `p` has white in odd rounds, `n` in even rounds.
//! Board `k ≥ 2` pairs `p + (k − 1)` (white) with `p − (k − 1)` (black), numbers taken mod
//! `n − 1` in `1..=n−1`. This reproduces the printed tables exactly (tests type in those for 4, 6
//! and 8 players).
//!
//! Double round-robin: the second cycle repeats the first with colors reversed. Departure: FIDE
//! C.05 advises swapping the last two rounds of the first cycle to avoid three consecutive games
//! with the same color at the change of cycle; we do not.
//!
//! Pairing numbers are the definition's initial ranking
//! ([`super::definition::TournamentDefinition::initial_ranking`]): [`schedule`] works in pairing
//! numbers minus one, [`schedule_for`] maps them to player indices through a ranking.

use super::PlayerIndex;

/// One round of a schedule, in pairing numbers minus one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScheduledRound {
    /// `(white, black)`, board 1 first.
    pub games: Vec<(PlayerIndex, PlayerIndex)>,
    /// Who sits out (odd fields).
    pub bye: Option<PlayerIndex>,
}

/// The Berger table for `n` players as `(white, black)` pairing numbers (1-based), board 1 first;
/// `n` must be even and at least 2 (for an odd field, pass `n + 1`).
pub fn berger_table(n: usize) -> Vec<Vec<(usize, usize)>> {
    if n < 2 || n % 2 == 1 {
        return Vec::new();
    }
    let m = n - 1;
    // Residue in 1..=m.
    let wrap = |x: isize| -> usize {
        let m = m as isize;
        (((x - 1) % m + m) % m + 1) as usize
    };
    (1..=m)
        .map(|r| {
            // 2p ≡ r + 1 (mod m), m odd: p = (r + 1) * (m + 1) / 2 mod m.
            let p = wrap(((r + 1) * (m + 1) / 2) as isize);
            let mut games = Vec::with_capacity(n / 2);
            games.push(if r % 2 == 1 { (p, n) } else { (n, p) });
            for k in 1..n / 2 {
                let k = k as isize;
                games.push((wrap(p as isize + k), wrap(p as isize - k)));
            }
            games
        })
        .collect()
}

/// The whole schedule for `n` players (0-based pairing numbers), one or two cycles.
pub fn schedule(n: usize, double: bool) -> Vec<ScheduledRound> {
    let even = if n.is_multiple_of(2) { n } else { n + 1 };
    let table = berger_table(even);
    let mut rounds: Vec<ScheduledRound> = table
        .iter()
        .map(|games| {
            let mut out = ScheduledRound { games: Vec::new(), bye: None };
            for &(w, b) in games {
                if w > n {
                    out.bye = Some(b - 1);
                } else if b > n {
                    out.bye = Some(w - 1);
                } else {
                    out.games.push((w - 1, b - 1));
                }
            }
            out
        })
        .collect();
    if double {
        let second: Vec<ScheduledRound> = rounds
            .iter()
            .map(|r| ScheduledRound {
                games: r.games.iter().map(|&(w, b)| (b, w)).collect(),
                bye: r.bye,
            })
            .collect();
        rounds.extend(second);
    }
    rounds
}

/// The schedule with pairing numbers mapped to player indices through `ranking`
/// (`ranking[k]` is the player with pairing number `k + 1`).
pub fn schedule_for(ranking: &[PlayerIndex], double: bool) -> Vec<ScheduledRound> {
    schedule(ranking.len(), double)
        .into_iter()
        .map(|r| ScheduledRound {
            games: r.games.iter().map(|&(w, b)| (ranking[w], ranking[b])).collect(),
            bye: r.bye.map(|b| ranking[b]),
        })
        .collect()
}

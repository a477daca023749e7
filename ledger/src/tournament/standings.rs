//! Standings: scores and FIDE tie-breaks (C.07) from the rounds played.
//!
//! Order: points, then the definition's tie-breaks in order, then pairing number. All values are
//! exact integers: points in half-points, tie-break values in **quarter-points** (so a draw's
//! Sonneborn-Berger share is exact), except [`TieBreak::Wins`], which is a count of games.
//!
//! Definitions used (FIDE Tie-Break Regulations, C.07):
//! - Buchholz: sum of the opponents' final scores, one contribution per round; a round the player
//!   did not play over the board (bye, forfeit, absence) contributes the player's own final score
//!   (the "dummy opponent" of C.07 §16.4).
//! - Buchholz Cut-1: Buchholz less the lowest contribution. Median Buchholz: less the highest and
//!   the lowest (nothing is cut below three contributions).
//! - Sonneborn-Berger: sum over games played of the opponent's final score times the points
//!   scored against them (full for a win, half for a draw).
//! - Direct encounter: among players level on points and every earlier tie-break, the points
//!   each scored in played games against the others, when every pair of them has met; otherwise
//!   0 for all of them.
//! - Wins: games won over the board. Progressive score: the sum of the running score after each
//!   round.
//!
//! Departures: the opponents' own unplayed rounds are not adjusted (C.07 §16.3 counts them as
//! draws for Buchholz); unplayed rounds add nothing to Sonneborn-Berger; direct encounter among
//! players who have not all met is 0 rather than a partial ranking.

use super::definition::{TieBreak, TournamentDefinition};
use super::{PairingError, PlayerIndex, Round, check_history};

/// One line of the standings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Standing {
    /// 1-based place (ties fully broken by pairing number).
    pub rank: usize,
    /// The player.
    pub player: PlayerIndex,
    /// Points in half-points.
    pub half_points: u32,
    /// The definition's tie-breaks, in its order (quarter-points; wins as a count).
    pub tie_breaks: Vec<u32>,
}

/// What one round meant for one player.
#[derive(Clone, Copy, Debug)]
enum Outcome {
    /// Played over the board against `opponent`, scoring `half` half-points.
    Played { opponent: PlayerIndex, half: u32 },
    /// Not played (bye, forfeit or absence), scoring `half` half-points.
    Unplayed { half: u32 },
}

/// The standings after `rounds`.
pub fn standings(
    def: &TournamentDefinition,
    rounds: &[Round],
) -> Result<Vec<Standing>, PairingError> {
    let n = def.players.len();
    check_history(n, rounds)?;
    let mut outcomes: Vec<Vec<Outcome>> = vec![Vec::with_capacity(rounds.len()); n];
    for round in rounds {
        let mut this: Vec<Outcome> = vec![Outcome::Unplayed { half: 0 }; n];
        for g in &round.games {
            let (hw, hb) = g.result.half_points();
            if g.result.played() {
                this[g.white] = Outcome::Played { opponent: g.black, half: hw };
                this[g.black] = Outcome::Played { opponent: g.white, half: hb };
            } else {
                this[g.white] = Outcome::Unplayed { half: hw };
                this[g.black] = Outcome::Unplayed { half: hb };
            }
        }
        for &(p, kind) in &round.byes {
            this[p] = Outcome::Unplayed { half: kind.half_points() };
        }
        for (p, o) in this.into_iter().enumerate() {
            outcomes[p].push(o);
        }
    }
    let half = |o: &Outcome| match *o {
        Outcome::Played { half, .. } | Outcome::Unplayed { half } => half,
    };
    let points: Vec<u32> = outcomes.iter().map(|os| os.iter().map(half).sum()).collect();

    // Buchholz contributions per player, in quarter-points.
    let contributions: Vec<Vec<u32>> = (0..n)
        .map(|p| {
            outcomes[p]
                .iter()
                .map(|o| match *o {
                    Outcome::Played { opponent, .. } => 2 * points[opponent],
                    Outcome::Unplayed { .. } => 2 * points[p],
                })
                .collect()
        })
        .collect();

    let ranking = def.initial_ranking();
    let mut pairing_number = vec![0usize; n];
    for (k, &i) in ranking.iter().enumerate() {
        pairing_number[i] = k + 1;
    }

    let mut values: Vec<Vec<u32>> = vec![Vec::with_capacity(def.tie_breaks.len()); n];
    for (k, tb) in def.tie_breaks.iter().enumerate() {
        for p in 0..n {
            let c = &contributions[p];
            let sum: u32 = c.iter().sum();
            let v = match tb {
                TieBreak::Buchholz => sum,
                TieBreak::BuchholzCut1 => sum - c.iter().min().copied().unwrap_or(0),
                TieBreak::MedianBuchholz => {
                    if c.len() >= 3 {
                        sum - c.iter().min().copied().unwrap_or(0)
                            - c.iter().max().copied().unwrap_or(0)
                    } else {
                        sum
                    }
                }
                TieBreak::SonnebornBerger => outcomes[p]
                    .iter()
                    .map(|o| match *o {
                        // opponent's score (half-points) * scored (half-points) = quarter-points.
                        Outcome::Played { opponent, half } => points[opponent] * half,
                        Outcome::Unplayed { .. } => 0,
                    })
                    .sum(),
                TieBreak::Wins => outcomes[p]
                    .iter()
                    .filter(|o| matches!(o, Outcome::Played { half: 2, .. }))
                    .count() as u32,
                TieBreak::ProgressiveScore => {
                    let mut running = 0;
                    let mut total = 0;
                    for o in &outcomes[p] {
                        running += half(o);
                        total += 2 * running;
                    }
                    total
                }
                // Filled in below, once the players level so far are known.
                TieBreak::DirectEncounter => 0,
            };
            values[p].push(v);
        }
        if *tb == TieBreak::DirectEncounter {
            direct_encounter(k, &points, &outcomes, &mut values);
        }
    }

    let mut order: Vec<PlayerIndex> = (0..n).collect();
    order.sort_by(|&a, &b| {
        points[b]
            .cmp(&points[a])
            .then_with(|| values[b].cmp(&values[a]))
            .then_with(|| pairing_number[a].cmp(&pairing_number[b]))
    });
    Ok(order
        .into_iter()
        .enumerate()
        .map(|(r, p)| Standing {
            rank: r + 1,
            player: p,
            half_points: points[p],
            tie_breaks: values[p].clone(),
        })
        .collect())
}

/// Fills tie-break `k` (direct encounter) for every group level on points and tie-breaks
/// `0..k`.
fn direct_encounter(k: usize, points: &[u32], outcomes: &[Vec<Outcome>], values: &mut [Vec<u32>]) {
    let n = points.len();
    let mut groups: std::collections::BTreeMap<(u32, Vec<u32>), Vec<PlayerIndex>> =
        std::collections::BTreeMap::new();
    for p in 0..n {
        groups.entry((points[p], values[p][..k].to_vec())).or_default().push(p);
    }
    for group in groups.values() {
        if group.len() < 2 {
            continue;
        }
        let met = |a: PlayerIndex, b: PlayerIndex| {
            outcomes[a]
                .iter()
                .any(|o| matches!(o, Outcome::Played { opponent, .. } if *opponent == b))
        };
        let all_met = group.iter().all(|&a| group.iter().all(|&b| a == b || met(a, b)));
        if !all_met {
            continue;
        }
        for &a in group {
            let scored: u32 = outcomes[a]
                .iter()
                .map(|o| match *o {
                    Outcome::Played { opponent, half } if group.contains(&opponent) => half,
                    _ => 0,
                })
                .sum();
            values[a][k] = 2 * scored;
        }
    }
}

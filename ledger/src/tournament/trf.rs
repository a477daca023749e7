//! FIDE TRF-16 tournament report files: export and import of players and rounds.
//!
//! Written: `012` (tournament name), `062` (number of players), `092` (type of tournament:
//! `Individual: Swiss-System` or `Individual: Round-Robin`, after the definition's system), `XXR`
//! (number of rounds, the convention of pairing programs) and one fixed-width `001` line per
//! player, in starting-number order (our initial ranking: starting number = pairing number).
//! The `001` line's columns (1-based, TRF-16): 1-3 `001`, 5-8 starting rank, 10 sex, 11-13
//! title, 15-47 name, 49-52 FIDE rating, 54-56 federation, 58-68 FIDE number, 70-79 birth date,
//! 81-84 points, 86-89 rank (the final rank: the place in the standings after the rounds with
//! every result in, ties broken as the standings break them; blank if they cannot be computed).
//! Each round is a 10-column block from column 92: opponent's starting number (4 digits), color
//! `w`/`b`, result (`1 0 = + -`); byes are `0000 - U` (pairing-allocated), `H` (half point), `Z`
//! (zero), `F` (full point); a round in which the player has no entry at all is left blank. A game
//! without a result is written with a blank result column.
//!
//! Read: the same subset (the `092` text is kept as it is written). Other record types are
//! ignored, as TRF-16 allows. Departures: ratings are only the `001` line's FIDE rating (0 or
//! blank = unrated); dates, federations, titles and FIDE ids are not kept. A double forfeit is
//! written `-` on both sides.

use super::definition::{System, TournamentDefinition};
use super::{ByeKind, Game, GameResult, PlayerIndex, Round};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// One player of a TRF file (starting number = position in [`Trf::players`] + 1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrfPlayer {
    /// Name, at most 33 characters are written.
    pub name: String,
    /// Rating, if rated.
    pub rating: Option<u16>,
    /// The rank column (86-89): the final rank, if known.
    pub rank: Option<usize>,
}

/// A tournament as TRF-16 holds it: players in starting-number order, rounds in those numbers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trf {
    /// Tournament name.
    pub name: String,
    /// Type of tournament (`092`), e.g. `Individual: Swiss-System`; empty: no `092` line.
    pub system: String,
    /// Planned number of rounds (`XXR`).
    pub total_rounds: u32,
    /// Players, starting number 1 first.
    pub players: Vec<TrfPlayer>,
    /// Rounds played (or being played), with player indices = starting number − 1.
    pub rounds: Vec<Round>,
}

/// Why a TRF file was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TrfError {
    /// A malformed line.
    #[error("TRF line {line}: {what}")]
    Line {
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        what: String,
    },
    /// The file is inconsistent as a whole.
    #[error("TRF: {0}")]
    Inconsistent(String),
}

fn line_err(line: usize, what: impl Into<String>) -> TrfError {
    TrfError::Line { line, what: what.into() }
}

impl Trf {
    /// The TRF view of a tournament: players renumbered by initial ranking.
    pub fn from_tournament(def: &TournamentDefinition, rounds: &[Round]) -> Trf {
        let ranking = def.initial_ranking();
        let mut number = vec![0usize; ranking.len()];
        for (k, &i) in ranking.iter().enumerate() {
            number[i] = k;
        }
        let map = |i: PlayerIndex| number.get(i).copied().unwrap_or(i);
        // The final rank: the standings after the rounds with every result in.
        let complete: Vec<Round> = rounds
            .iter()
            .filter(|r| r.games.iter().all(|g| g.result != GameResult::Pending))
            .cloned()
            .collect();
        let mut rank: Vec<Option<usize>> = vec![None; def.players.len()];
        if let Ok(standings) = super::standings::standings(def, &complete) {
            for s in standings {
                if let Some(r) = rank.get_mut(s.player) {
                    *r = Some(s.rank);
                }
            }
        }
        let system = match def.system {
            System::Swiss { .. } => "Individual: Swiss-System",
            System::RoundRobin { .. } => "Individual: Round-Robin",
        };
        Trf {
            name: def.name.clone(),
            system: system.into(),
            total_rounds: def.rounds(),
            players: ranking
                .iter()
                .map(|&i| TrfPlayer {
                    name: def.players[i].name.clone(),
                    rating: def.players[i].rating,
                    rank: rank[i],
                })
                .collect(),
            rounds: rounds
                .iter()
                .map(|r| Round {
                    games: r
                        .games
                        .iter()
                        .map(|g| Game {
                            white: map(g.white),
                            black: map(g.black),
                            result: g.result,
                        })
                        .collect(),
                    byes: r.byes.iter().map(|&(p, k)| (map(p), k)).collect(),
                })
                .collect(),
        }
    }

    /// Points of each player in half-points.
    pub fn half_points(&self) -> Vec<u32> {
        let mut pts = vec![0u32; self.players.len()];
        for r in &self.rounds {
            for g in &r.games {
                let (w, b) = g.result.half_points();
                if let Some(p) = pts.get_mut(g.white) {
                    *p += w;
                }
                if let Some(p) = pts.get_mut(g.black) {
                    *p += b;
                }
            }
            for &(p, k) in &r.byes {
                if let Some(x) = pts.get_mut(p) {
                    *x += k.half_points();
                }
            }
        }
        pts
    }

    /// The TRF-16 text.
    pub fn write(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "012 {}", one_line(&self.name));
        let _ = writeln!(out, "062 {}", self.players.len());
        if !self.system.is_empty() {
            let _ = writeln!(out, "092 {}", one_line(&self.system));
        }
        let _ = writeln!(out, "XXR {}", self.total_rounds);
        let pts = self.half_points();
        for (i, p) in self.players.iter().enumerate() {
            let name: String = one_line(&p.name).chars().take(33).collect();
            let mut line = format!(
                "001 {:>4} {:1}{:>3} {:<33} {:>4} {:>3} {:>11} {:>10} {:>4} {:>4}  ",
                i + 1,
                "",
                "",
                name,
                p.rating.unwrap_or(0),
                "",
                "",
                "",
                format!("{}.{}", pts[i] / 2, if pts[i] % 2 == 1 { 5 } else { 0 }),
                p.rank.map(|r| r.to_string()).unwrap_or_default(),
            );
            for r in &self.rounds {
                line.push_str(&block(r, i));
            }
            let _ = writeln!(out, "{}", line.trim_end());
        }
        out
    }

    /// Reads TRF-16 text.
    pub fn parse(text: &str) -> Result<Trf, TrfError> {
        let mut name = String::new();
        let mut system = String::new();
        let mut total_rounds = None;
        // Starting number -> (line, player, blocks).
        let mut lines: BTreeMap<usize, (usize, TrfPlayer, Vec<Block>)> = BTreeMap::new();
        for (k, raw) in text.lines().enumerate() {
            let ln = k + 1;
            let raw = raw.trim_end_matches('\r');
            let (Some(code), Some(rest)) = (raw.get(..3), raw.get(3..)) else {
                continue;
            };
            match code {
                "012" => name = rest.trim().to_string(),
                "092" => system = rest.trim().to_string(),
                "XXR" => {
                    total_rounds = Some(rest.trim().parse::<u32>().map_err(|_| {
                        line_err(ln, format!("XXR rounds '{}' is not a number", rest.trim()))
                    })?)
                }
                "001" => {
                    let (sn, player, blocks) = parse_player(ln, raw)?;
                    if lines.insert(sn, (ln, player, blocks)).is_some() {
                        return Err(line_err(ln, format!("starting number {sn} appears twice")));
                    }
                }
                _ => {}
            }
        }
        let n = lines.len();
        if n == 0 {
            return Err(TrfError::Inconsistent("no 001 player lines".into()));
        }
        if let Some((&last, _)) = lines.last_key_value()
            && last != n
        {
            return Err(TrfError::Inconsistent(format!(
                "starting numbers must be 1..={n}, found {last}"
            )));
        }
        let played = lines.values().map(|v| v.2.len()).max().unwrap_or(0);
        let mut rounds = vec![Round::default(); played];
        for (&sn, (ln, _, blocks)) in &lines {
            let me = sn - 1;
            for (r, b) in blocks.iter().enumerate() {
                match *b {
                    Block::Empty => {}
                    Block::Bye(kind) => rounds[r].byes.push((me, kind)),
                    Block::Game { opponent, white, result } => {
                        if opponent == sn || opponent > n || opponent == 0 {
                            return Err(line_err(
                                *ln,
                                format!("round {}: bad opponent {opponent}", r + 1),
                            ));
                        }
                        let opp = opponent - 1;
                        let theirs = lines.get(&opponent).and_then(|v| v.2.get(r)).copied();
                        let Some(Block::Game {
                            opponent: back,
                            white: their_white,
                            result: their_result,
                        }) = theirs
                        else {
                            return Err(line_err(
                                *ln,
                                format!(
                                    "round {}: opponent {opponent} does not list this game",
                                    r + 1
                                ),
                            ));
                        };
                        if back != sn || their_white == white {
                            return Err(line_err(
                                *ln,
                                format!(
                                    "round {}: opponent {opponent} lists a different game",
                                    r + 1
                                ),
                            ));
                        }
                        if !white {
                            continue; // recorded once, from white's line
                        }
                        let result = combine(result, their_result).ok_or_else(|| {
                            line_err(
                                *ln,
                                format!("round {}: results do not match the opponent's", r + 1),
                            )
                        })?;
                        rounds[r].games.push(Game { white: me, black: opp, result });
                    }
                }
            }
        }
        Ok(Trf {
            name,
            system,
            total_rounds: total_rounds.unwrap_or(played as u32),
            players: lines.into_values().map(|(_, player, _)| player).collect(),
            rounds,
        })
    }
}

fn one_line(s: &str) -> String {
    s.chars().map(|c| if c.is_control() { ' ' } else { c }).collect()
}

/// One player's 10-column block for a round.
fn block(r: &Round, me: usize) -> String {
    for g in &r.games {
        let (opp, color, mine) = if g.white == me {
            (g.black, 'w', true)
        } else if g.black == me {
            (g.white, 'b', false)
        } else {
            continue;
        };
        let c = match (g.result, mine) {
            (GameResult::Pending, _) => ' ',
            (GameResult::Draw, _) => '=',
            (GameResult::WhiteWins, true) | (GameResult::BlackWins, false) => '1',
            (GameResult::WhiteWins, false) | (GameResult::BlackWins, true) => '0',
            (GameResult::WhiteWinsByForfeit, true) | (GameResult::BlackWinsByForfeit, false) => '+',
            (GameResult::WhiteWinsByForfeit, false)
            | (GameResult::BlackWinsByForfeit, true)
            | (GameResult::DoubleForfeit, _) => '-',
        };
        return format!("{:>4} {} {}  ", opp + 1, color, c);
    }
    for &(p, k) in &r.byes {
        if p == me {
            let c = match k {
                ByeKind::PairingAllocated => 'U',
                ByeKind::Half => 'H',
                ByeKind::Zero => 'Z',
                ByeKind::Full => 'F',
            };
            return format!("0000 - {c}  ");
        }
    }
    " ".repeat(10)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Block {
    Empty,
    Bye(ByeKind),
    Game { opponent: usize, white: bool, result: Option<char> },
}

type PlayerLine = (usize, TrfPlayer, Vec<Block>);

fn field(raw: &str, from: usize, to: usize) -> &str {
    let end = to.min(raw.len());
    if from >= end { "" } else { raw.get(from..end).unwrap_or("") }
}

fn parse_player(ln: usize, raw: &str) -> Result<PlayerLine, TrfError> {
    if !raw.is_ascii() {
        // Names may be UTF-8; fixed columns are byte columns in practice only for ASCII lines.
        return Err(line_err(ln, "001 line must be ASCII for fixed-column parsing"));
    }
    let sn: usize = field(raw, 4, 8).trim().parse().map_err(|_| {
        line_err(ln, format!("starting number '{}' is not a number", field(raw, 4, 8).trim()))
    })?;
    if sn == 0 {
        return Err(line_err(ln, "starting number 0"));
    }
    let name = field(raw, 14, 47).trim().to_string();
    let rating_text = field(raw, 48, 52).trim();
    let rating = if rating_text.is_empty() {
        None
    } else {
        let r: u16 = rating_text
            .parse()
            .map_err(|_| line_err(ln, format!("rating '{rating_text}' is not a number")))?;
        (r != 0).then_some(r)
    };
    let rank_text = field(raw, 85, 89).trim();
    let rank = if rank_text.is_empty() {
        None
    } else {
        Some(
            rank_text
                .parse::<usize>()
                .map_err(|_| line_err(ln, format!("rank '{rank_text}' is not a number")))?,
        )
    };
    let mut blocks = Vec::new();
    let mut pos = 91;
    while pos < raw.len() {
        let b = field(raw, pos, pos + 10);
        let round = blocks.len() + 1;
        let parts: Vec<&str> = b.split_whitespace().collect();
        let block = match parts.as_slice() {
            [] => Block::Empty,
            [opp, "-", kind] if opp.chars().all(|c| c == '0') => Block::Bye(match *kind {
                "U" => ByeKind::PairingAllocated,
                "H" => ByeKind::Half,
                "Z" | "-" => ByeKind::Zero,
                "F" | "+" => ByeKind::Full,
                other => return Err(line_err(ln, format!("round {round}: unknown bye '{other}'"))),
            }),
            [opp, color, rest @ ..] if rest.len() <= 1 => {
                let opponent: usize = opp.parse().map_err(|_| {
                    line_err(ln, format!("round {round}: opponent '{opp}' is not a number"))
                })?;
                let white = match color.to_ascii_lowercase().as_str() {
                    "w" => true,
                    "b" => false,
                    other => return Err(line_err(ln, format!("round {round}: colour '{other}'"))),
                };
                let result = match rest.first() {
                    None => None,
                    Some(r) => match *r {
                        "1" | "0" | "=" | "+" | "-" => r.chars().next(),
                        "W" => Some('1'),
                        "L" => Some('0'),
                        "D" => Some('='),
                        other => {
                            return Err(line_err(ln, format!("round {round}: result '{other}'")));
                        }
                    },
                };
                Block::Game { opponent, white, result }
            }
            _ => return Err(line_err(ln, format!("round {round}: cannot read '{}'", b.trim()))),
        };
        blocks.push(block);
        pos += 10;
    }
    while blocks.last() == Some(&Block::Empty) {
        blocks.pop();
    }
    Ok((sn, TrfPlayer { name, rating, rank }, blocks))
}

/// White's and black's result characters as one game result.
fn combine(white: Option<char>, black: Option<char>) -> Option<GameResult> {
    Some(match (white, black) {
        (None, None) => GameResult::Pending,
        (Some('1'), Some('0')) => GameResult::WhiteWins,
        (Some('='), Some('=')) => GameResult::Draw,
        (Some('0'), Some('1')) => GameResult::BlackWins,
        (Some('+'), Some('-')) => GameResult::WhiteWinsByForfeit,
        (Some('-'), Some('+')) => GameResult::BlackWinsByForfeit,
        (Some('-'), Some('-')) => GameResult::DoubleForfeit,
        _ => return None,
    })
}

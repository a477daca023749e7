//! Tournaments: round-robin (FIDE Berger tables) and Swiss (FIDE Dutch), standings and tie-breaks.
//!
//! A tournament is a signed [`definition::TournamentDefinition`] plus the [`Round`]s played so
//! far. Everything else (the next round's pairings, colors, byes, standings) is a pure function
//! of those two: [`pair_next_round`] and [`standings::standings`].
//!
//! Players are named by their index in the definition's player list ([`PlayerIndex`]). Scores are
//! kept in half-points (`u32`), so no floating point is involved in pairing or tie-breaks.
//!
//! Late entries and withdrawals: the caller pairs a round with the set of players who are absent
//! from it (not yet entered, withdrawn, or on a requested bye); absent players are recorded in the
//! round as a zero- or half-point bye ([`ByeKind::Zero`], [`ByeKind::Half`]) and are not paired.
//! A round-robin's schedule is fixed by the Berger tables and ignores absences: an absent
//! player's game is recorded as a forfeit.

pub mod berger;
pub mod definition;
pub mod dutch;
pub mod standings;
pub mod trf;

use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// A player, as an index into [`definition::TournamentDefinition::players`].
pub type PlayerIndex = usize;

/// The result of one pairing, from white's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum GameResult {
    /// Not played yet (only allowed in the round being played).
    Pending,
    /// White won over the board.
    WhiteWins,
    /// Drawn over the board.
    Draw,
    /// Black won over the board.
    BlackWins,
    /// Black forfeited: white scores a point, the game does not count as played.
    WhiteWinsByForfeit,
    /// White forfeited.
    BlackWinsByForfeit,
    /// Both forfeited: nobody scores.
    DoubleForfeit,
}

impl GameResult {
    /// `(white, black)` points in half-points.
    pub fn half_points(self) -> (u32, u32) {
        match self {
            GameResult::Pending | GameResult::DoubleForfeit => (0, 0),
            GameResult::WhiteWins | GameResult::WhiteWinsByForfeit => (2, 0),
            GameResult::Draw => (1, 1),
            GameResult::BlackWins | GameResult::BlackWinsByForfeit => (0, 2),
        }
    }

    /// Whether the game was played over the board (counts for colors and rematches).
    pub fn played(self) -> bool {
        matches!(self, GameResult::WhiteWins | GameResult::Draw | GameResult::BlackWins)
    }
}

/// Why a player had no opponent in a round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum ByeKind {
    /// The pairing-allocated bye: a full point (TRF `U`).
    PairingAllocated,
    /// A requested half-point bye (TRF `H`).
    Half,
    /// Absent, not entered yet, or withdrawn: zero points (TRF `Z`).
    Zero,
    /// An administrative full-point bye (TRF `F`).
    Full,
}

impl ByeKind {
    /// Points in half-points.
    pub fn half_points(self) -> u32 {
        match self {
            ByeKind::PairingAllocated | ByeKind::Full => 2,
            ByeKind::Half => 1,
            ByeKind::Zero => 0,
        }
    }
}

/// One game of a round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Game {
    /// White.
    pub white: PlayerIndex,
    /// Black.
    pub black: PlayerIndex,
    /// The result.
    pub result: GameResult,
}

/// One round: its games (in board order) and its byes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Round {
    /// The games, board 1 first.
    pub games: Vec<Game>,
    /// Players without an opponent, and why.
    pub byes: Vec<(PlayerIndex, ByeKind)>,
}

/// A round's pairings: games without results, and the pairing-allocated bye if any.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Pairings {
    /// `(white, black)`, board 1 first.
    pub games: Vec<(PlayerIndex, PlayerIndex)>,
    /// The player who gets the pairing-allocated bye.
    pub bye: Option<PlayerIndex>,
}

/// Why a round could not be paired.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PairingError {
    /// The tournament has had all its rounds.
    #[error("the tournament has {rounds} rounds and all have been paired")]
    Finished {
        /// Rounds in the tournament.
        rounds: u32,
    },
    /// A round refers to a player the definition does not have.
    #[error("round {round} names player {player}, but the tournament has {players} players")]
    UnknownPlayer {
        /// 1-based round.
        round: usize,
        /// The index.
        player: PlayerIndex,
        /// How many players there are.
        players: usize,
    },
    /// A player appears twice in one round.
    #[error("round {round} has player {player} more than once")]
    DuplicatePlayer {
        /// 1-based round.
        round: usize,
        /// The index.
        player: PlayerIndex,
    },
    /// A previous round still has a game without a result.
    #[error("round {round} has a game without a result")]
    Unfinished {
        /// 1-based round.
        round: usize,
    },
    /// No pairing satisfies the absolute criteria (no rematch, color limits, one bye).
    #[error("no pairing of round {round} satisfies the absolute criteria")]
    NoPairing {
        /// 1-based round.
        round: usize,
    },
}

/// Checks the rounds played so far against the player count.
pub fn check_history(players: usize, rounds: &[Round]) -> Result<(), PairingError> {
    for (r, round) in rounds.iter().enumerate() {
        let mut seen = BTreeSet::new();
        let mut check = |p: PlayerIndex| {
            if p >= players {
                return Err(PairingError::UnknownPlayer { round: r + 1, player: p, players });
            }
            if !seen.insert(p) {
                return Err(PairingError::DuplicatePlayer { round: r + 1, player: p });
            }
            Ok(())
        };
        for g in &round.games {
            check(g.white)?;
            check(g.black)?;
        }
        for (p, _) in &round.byes {
            check(*p)?;
        }
        if round.games.iter().any(|g| g.result == GameResult::Pending) {
            return Err(PairingError::Unfinished { round: r + 1 });
        }
    }
    Ok(())
}

/// The next round's pairings: a pure function of the definition, the rounds so far and who is
/// absent from the next round.
pub fn pair_next_round(
    def: &definition::TournamentDefinition,
    rounds: &[Round],
    absent: &BTreeSet<PlayerIndex>,
) -> Result<Pairings, PairingError> {
    let n = def.players.len();
    check_history(n, rounds)?;
    let total = def.rounds();
    let next = rounds.len() as u32 + 1;
    if next > total {
        return Err(PairingError::Finished { rounds: total });
    }
    match def.system {
        definition::System::RoundRobin { double } => {
            let schedule = berger::schedule_for(&def.initial_ranking(), double);
            let idx = (next - 1) as usize;
            let round = schedule.get(idx).ok_or(PairingError::Finished { rounds: total })?;
            Ok(Pairings { games: round.games.clone(), bye: round.bye })
        }
        definition::System::Swiss { .. } => {
            let ranking = def.initial_ranking();
            dutch::pair_with_total(&ranking, rounds, absent, next as usize, total as usize)
        }
    }
}

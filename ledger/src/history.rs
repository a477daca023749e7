//! What the log says, recomputed: ratings per variant and tournaments (definitions, rounds,
//! pairings, results, standings), as pure functions of the entries in log order.
//!
//! [`History::apply`] takes one entry after another. It is both the writer's gate (an entry it
//! refuses is not appended) and the reader's recomputation (a bundle or an audit replays the
//! entries and gets the same tables on every platform). What it checks:
//! - a match id, and a tournament id, appears once;
//! - a round entry starts the round after the last one of its tournament, once that one is
//!   complete, with valid absences; its pairings are then fixed
//!   ([`crate::tournament::pair_next_round`]);
//! - a match entry naming a tournament round is one of that round's pairings, with the same
//!   colors and variant, not played yet;
//! - a match entry's close time (the relay's signed time, [`crate::entry::close_time_ms`]) is
//!   not more than [`CLOSE_TIME_TOLERANCE_MS`] before the latest close time already in the log.
//!
//! Results in a tournament: a game's result, a forfeit (the rules' `forfeit` end reason: a
//! player's proven fault, or a missing reveal) as a forfeit win, and a void game (relay or
//! umpire at fault) as a double forfeit. In a round-robin an absent player's scheduled game is a
//! forfeit.
//!
//! Ratings: every match entry that says `rated` and has a result, tournament or not
//! ([`rated_game`]; docs/LEDGER.md, "How each end is rated"), in (close time, match id) order,
//! not in log order ([`crate::rating`]).
//! The order is one anyone recomputes from the entries alone, whatever order the appender
//! wrote them in. Since no entry may close more than [`CLOSE_TIME_TOLERANCE_MS`] before the
//! latest one, games closed earlier than that are settled: a later entry can never come before
//! them, so only the games after that point are re-rated when an entry arrives out of order.

use crate::entry::{
    EntryBody, LedgerEntry, MatchEntry, NoShowEntry, RoundEntry, Sha256Digest, TournamentEntry,
};
use crate::rating::{Params, RatedGame, Ratings, Score};
use crate::tournament::definition::{SignedDefinition, TournamentDefinition};
use crate::tournament::standings::{self, Standing};
use crate::tournament::{
    self, ByeKind, Game, GameResult, PairingError, Pairings, PlayerIndex, Round,
};
use protocol::PublicKey;
use rules::Variant;
use std::collections::{BTreeMap, BTreeSet};

/// How far a match entry's close time may be before the latest close time already in the log:
/// 10 minutes. Games finish concurrently and are appended in batches, so entries arrive a little
/// out of close-time order; an entry further back is refused
/// ([`HistoryError::CloseTimeBackwards`]).
pub const CLOSE_TIME_TOLERANCE_MS: u64 = 10 * 60 * 1000;

/// A round of a tournament as the log has it so far.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoundState {
    /// The round, from 1.
    pub round: u32,
    /// The leaf index of its round entry.
    pub entry_index: u64,
    /// Who was absent, and their byes.
    pub absent: Vec<(PlayerIndex, ByeKind)>,
    /// The pairings (fixed when the round started).
    pub pairings: Pairings,
    /// Per game of `pairings`: the result and the leaf index of its match entry, once logged.
    pub results: Vec<Option<(GameResult, u64)>>,
}

impl RoundState {
    /// Whether every game has a result.
    pub fn is_complete(&self) -> bool {
        self.results.iter().all(Option::is_some)
    }

    /// The round as the pairing and standings code takes it (`Pending` for games not logged).
    pub fn to_round(&self) -> Round {
        let games = self
            .pairings
            .games
            .iter()
            .zip(&self.results)
            .map(|(&(white, black), r)| Game {
                white,
                black,
                result: r.map_or(GameResult::Pending, |(g, _)| g),
            })
            .collect();
        let mut byes: Vec<(PlayerIndex, ByeKind)> =
            self.pairings.bye.map(|p| (p, ByeKind::PairingAllocated)).into_iter().collect();
        let in_games: BTreeSet<PlayerIndex> =
            self.pairings.games.iter().flat_map(|&(w, b)| [w, b]).collect();
        byes.extend(self.absent.iter().copied().filter(|(p, _)| !in_games.contains(p)));
        Round { games, byes }
    }
}

/// A tournament as the log has it so far.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TournamentState {
    /// Its id: the SHA-256 of the signed definition file.
    pub id: Sha256Digest,
    /// The leaf index of its tournament entry.
    pub entry_index: u64,
    /// The signed definition file, as stored.
    pub definition_file: Vec<u8>,
    /// The verified definition.
    pub definition: TournamentDefinition,
    /// The rounds started so far.
    pub rounds: Vec<RoundState>,
}

impl TournamentState {
    /// The rounds whose games all have results.
    pub fn completed_rounds(&self) -> Vec<Round> {
        self.rounds.iter().take_while(|r| r.is_complete()).map(RoundState::to_round).collect()
    }

    /// The standings after the completed rounds.
    pub fn standings(&self) -> Result<Vec<Standing>, PairingError> {
        standings::standings(&self.definition, &self.completed_rounds())
    }

    /// The next round's pairings with these absences (what the server shows before it starts
    /// the round; appending the round entry fixes them).
    pub fn next_pairings(
        &self,
        absent: &[(PlayerIndex, ByeKind)],
    ) -> Result<Pairings, PairingError> {
        let absent: BTreeSet<PlayerIndex> = absent.iter().map(|(p, _)| *p).collect();
        tournament::pair_next_round(&self.definition, &self.completed_rounds(), &absent)
    }

    fn player(&self, key: &PublicKey) -> Option<PlayerIndex> {
        self.definition.players.iter().position(|p| p.key == *key)
    }
}

/// Why an entry does not fit the log before it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HistoryError {
    /// The match is logged already.
    #[error("match {} is already in the log at index {at}", protocol::hex::encode(.id))]
    DuplicateMatch {
        /// The match id.
        id: Sha256Digest,
        /// Where.
        at: u64,
    },
    /// The tournament is logged already.
    #[error("tournament {} is already in the log at index {at}", protocol::hex::encode(.id))]
    DuplicateTournament {
        /// The tournament id.
        id: Sha256Digest,
        /// Where.
        at: u64,
    },
    /// The tournament is not in the log.
    #[error("tournament {} is not in the log", protocol::hex::encode(.0))]
    UnknownTournament(Sha256Digest),
    /// A round out of order, or before the previous one is complete.
    #[error("tournament round {round} cannot start: {why}")]
    BadRound {
        /// The round.
        round: u32,
        /// Why.
        why: String,
    },
    /// The round cannot be paired.
    #[error("round {round} cannot be paired: {source}")]
    Pairing {
        /// The round.
        round: u32,
        /// Why.
        source: PairingError,
    },
    /// The match is not a game of the round it names.
    #[error("match {} is not a game of round {round} as paired: {why}", protocol::hex::encode(.id))]
    NotPaired {
        /// The match id.
        id: Sha256Digest,
        /// The round.
        round: u32,
        /// Why.
        why: String,
    },
    /// A no-show entry that does not fit its round.
    #[error("no-show in round {round}: {why}")]
    NoShow {
        /// The round.
        round: u32,
        /// Why.
        why: String,
    },
    /// A match entry whose close time is more than [`CLOSE_TIME_TOLERANCE_MS`] before the latest
    /// close time in the log.
    #[error(
        "match {} closed at {close_ms} ms, {} ms before the latest close time in the log \
         ({latest_ms} ms): more than the tolerance of {CLOSE_TIME_TOLERANCE_MS} ms",
        protocol::hex::encode(.id),
        latest_ms.saturating_sub(*close_ms)
    )]
    CloseTimeBackwards {
        /// The match id.
        id: Sha256Digest,
        /// Its close time.
        close_ms: u64,
        /// The latest close time before it.
        latest_ms: u64,
    },
    /// A tournament entry without its definition, or one that does not match it.
    #[error("tournament entry {at}: {why}")]
    Definition {
        /// Leaf index.
        at: u64,
        /// Why.
        why: String,
    },
}

/// The log's tables after some entries.
#[derive(Clone, Debug)]
pub struct History {
    size: u64,
    matches: BTreeMap<Sha256Digest, u64>,
    tournaments: BTreeMap<Sha256Digest, TournamentState>,
    /// The latest close time of a match entry so far.
    latest_close_ms: Option<u64>,
    /// The ratings after every settled game (closed more than the tolerance before the latest).
    settled: Ratings,
    /// The rated games not settled yet, in (close time, match id) order.
    pending: BTreeMap<(u64, Sha256Digest), RatedGame>,
    /// The ratings after every game: `settled`, then `pending` in order.
    ratings: Ratings,
    rated: u64,
}

impl Default for History {
    fn default() -> Self {
        History::new()
    }
}

impl History {
    /// Before any entry, with lichess's rating parameters.
    pub fn new() -> History {
        History {
            size: 0,
            matches: BTreeMap::new(),
            tournaments: BTreeMap::new(),
            latest_close_ms: None,
            settled: Ratings::new(Params::LICHESS),
            pending: BTreeMap::new(),
            ratings: Ratings::new(Params::LICHESS),
            rated: 0,
        }
    }

    /// Entries applied.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The leaf index of a match.
    pub fn match_index(&self, id: &Sha256Digest) -> Option<u64> {
        self.matches.get(id).copied()
    }

    /// A tournament.
    pub fn tournament(&self, id: &Sha256Digest) -> Option<&TournamentState> {
        self.tournaments.get(id)
    }

    /// Every tournament, by id.
    pub fn tournaments(&self) -> impl Iterator<Item = &TournamentState> {
        self.tournaments.values()
    }

    /// The latest close time of the match entries so far.
    pub fn latest_close_ms(&self) -> Option<u64> {
        self.latest_close_ms
    }

    /// The ratings: every rated game in (close time, match id) order.
    pub fn ratings(&self) -> &Ratings {
        &self.ratings
    }

    /// How many games were rated.
    pub fn rated_games(&self) -> u64 {
        self.rated
    }

    /// Applies the entry at leaf `index` (at least [`History::size`]), when only some of the
    /// log's entries are replayed (a tournament bundle holds its tournament's entries only).
    pub fn apply_at(
        &mut self,
        index: u64,
        entry: &LedgerEntry,
        stored: Option<&[u8]>,
    ) -> Result<(), HistoryError> {
        let before = self.size;
        self.size = index.max(self.size);
        let r = self.apply(entry, stored);
        if r.is_err() {
            self.size = before;
        }
        r
    }

    /// Applies the next entry. A tournament entry needs its signed definition file's bytes
    /// (`stored`); the others ignore it. On error nothing changes.
    pub fn apply(
        &mut self,
        entry: &LedgerEntry,
        stored: Option<&[u8]>,
    ) -> Result<(), HistoryError> {
        let at = self.size;
        match &entry.body {
            EntryBody::Match(m) => self.apply_match(at, m)?,
            EntryBody::Tournament(t) => self.apply_tournament(at, t, stored)?,
            EntryBody::Round(r) => self.apply_round(at, r)?,
            EntryBody::NoShow(n) => self.apply_no_show(at, n)?,
        }
        self.size += 1;
        Ok(())
    }

    fn apply_tournament(
        &mut self,
        at: u64,
        t: &TournamentEntry,
        stored: Option<&[u8]>,
    ) -> Result<(), HistoryError> {
        if let Some(prev) = self.tournaments.get(&t.definition_sha256) {
            return Err(HistoryError::DuplicateTournament {
                id: t.definition_sha256,
                at: prev.entry_index,
            });
        }
        let bad = |why: String| HistoryError::Definition { at, why };
        let file = stored.ok_or_else(|| bad("the signed definition file is missing".into()))?;
        let (expected, _) = TournamentEntry::from_definition_file(file, t.published_at_ms)
            .map_err(|e| bad(e.to_string()))?;
        if expected != *t {
            return Err(bad("the entry does not describe its signed definition".into()));
        }
        let signed: SignedDefinition =
            protocol::codec::decode(file).map_err(|e| bad(e.to_string()))?;
        let definition = signed.verify().map_err(|e| bad(e.to_string()))?;
        self.tournaments.insert(
            t.definition_sha256,
            TournamentState {
                id: t.definition_sha256,
                entry_index: at,
                definition_file: file.to_vec(),
                definition,
                rounds: Vec::new(),
            },
        );
        Ok(())
    }

    fn apply_round(&mut self, at: u64, r: &RoundEntry) -> Result<(), HistoryError> {
        let t = self
            .tournaments
            .get_mut(&r.tournament)
            .ok_or(HistoryError::UnknownTournament(r.tournament))?;
        let bad = |why: &str| HistoryError::BadRound { round: r.round, why: why.to_string() };
        if r.round as usize != t.rounds.len() + 1 {
            return Err(bad(&format!("the next round is {}", t.rounds.len() + 1)));
        }
        if t.rounds.last().is_some_and(|prev| !prev.is_complete()) {
            return Err(bad("the previous round has games without a result"));
        }
        let n = t.definition.players.len();
        let mut absent = Vec::with_capacity(r.absent.len());
        let mut last = None;
        for a in &r.absent {
            let p = a.player as usize;
            if p >= n {
                return Err(bad(&format!("absent player {p} is not in the tournament")));
            }
            if last.is_some_and(|l| l >= p) {
                return Err(bad("absences must be by ascending player index, each once"));
            }
            if a.bye == ByeKind::PairingAllocated {
                return Err(bad("an absence cannot be the pairing-allocated bye"));
            }
            last = Some(p);
            absent.push((p, a.bye));
        }
        let pairings = t
            .next_pairings(&absent)
            .map_err(|source| HistoryError::Pairing { round: r.round, source })?;
        // In a round-robin the schedule is fixed: an absent player's game is a forfeit.
        let absent_set: BTreeSet<PlayerIndex> = absent.iter().map(|(p, _)| *p).collect();
        // The schedule may also give someone the pairing-allocated bye (an odd round-robin):
        // that player has no game to be absent from, and naming them absent too would give
        // them two byes in one round (and leave the standings uncomputable).
        if let Some(p) = pairings.bye.filter(|p| absent_set.contains(p)) {
            return Err(bad(&format!(
                "player {p} is named absent but has this round's pairing-allocated bye"
            )));
        }
        let results = pairings
            .games
            .iter()
            .map(|&(w, b)| match (absent_set.contains(&w), absent_set.contains(&b)) {
                (false, false) => None,
                (true, true) => Some((GameResult::DoubleForfeit, at)),
                (true, false) => Some((GameResult::BlackWinsByForfeit, at)),
                (false, true) => Some((GameResult::WhiteWinsByForfeit, at)),
            })
            .collect();
        t.rounds.push(RoundState { round: r.round, entry_index: at, absent, pairings, results });
        Ok(())
    }

    /// A no-show: the game must be paired in that round, in those colors, without a result;
    /// at least one party is named absent. The absent party loses by forfeit (both: a double
    /// forfeit).
    fn apply_no_show(&mut self, at: u64, n: &NoShowEntry) -> Result<(), HistoryError> {
        let t = self
            .tournaments
            .get_mut(&n.tournament)
            .ok_or(HistoryError::UnknownTournament(n.tournament))?;
        let bad = |why: &str| HistoryError::NoShow { round: n.round, why: why.to_string() };
        let result = match (n.white_absent, n.black_absent) {
            (false, false) => return Err(bad("it names nobody who did not show")),
            (true, true) => GameResult::DoubleForfeit,
            (true, false) => GameResult::BlackWinsByForfeit,
            (false, true) => GameResult::WhiteWinsByForfeit,
        };
        let (Some(w), Some(b)) = (t.player(&n.white), t.player(&n.black)) else {
            return Err(bad("a player is not an entrant"));
        };
        let round = n
            .round
            .checked_sub(1)
            .and_then(|i| t.rounds.get_mut(i as usize))
            .ok_or_else(|| bad("the round has not started"))?;
        let game = round
            .pairings
            .games
            .iter()
            .position(|&g| g == (w, b))
            .ok_or_else(|| bad("these players, in these colours, are not paired"))?;
        if round.results[game].is_some() {
            return Err(bad("that game has a result already"));
        }
        round.results[game] = Some((result, at));
        Ok(())
    }

    fn apply_match(&mut self, at: u64, m: &MatchEntry) -> Result<(), HistoryError> {
        if let Some(&prev) = self.matches.get(&m.match_id) {
            return Err(HistoryError::DuplicateMatch { id: m.match_id, at: prev });
        }
        let close_ms = m.context.finished_at_ms;
        if let Some(latest_ms) = self.latest_close_ms
            && close_ms.saturating_add(CLOSE_TIME_TOLERANCE_MS) < latest_ms
        {
            return Err(HistoryError::CloseTimeBackwards { id: m.match_id, close_ms, latest_ms });
        }
        if let Some(tr) = m.context.tournament {
            let t = self
                .tournaments
                .get_mut(&tr.tournament)
                .ok_or(HistoryError::UnknownTournament(tr.tournament))?;
            let not_paired = |why: &str| HistoryError::NotPaired {
                id: m.match_id,
                round: tr.round,
                why: why.to_string(),
            };
            if m.variant != t.definition.variant.id() {
                return Err(not_paired("another variant than the tournament's"));
            }
            if !m.colors_known {
                return Err(not_paired("the record does not fix the colours"));
            }
            let (Some(w), Some(b)) = (t.player(&m.white), t.player(&m.black)) else {
                return Err(not_paired("a player is not an entrant"));
            };
            let round = tr
                .round
                .checked_sub(1)
                .and_then(|i| t.rounds.get_mut(i as usize))
                .ok_or_else(|| not_paired("the round has not started"))?;
            let game = round
                .pairings
                .games
                .iter()
                .position(|&g| g == (w, b))
                .ok_or_else(|| not_paired("these players, in these colours, are not paired"))?;
            if round.results[game].is_some() {
                return Err(not_paired("that game has a result already"));
            }
            round.results[game] = Some((tournament_result(m), at));
        }
        self.matches.insert(m.match_id, at);
        if let Some(game) = rated_game(m).filter(|g| g.white != g.black) {
            self.rate(close_ms, m.match_id, game);
        }
        let latest = self.latest_close_ms.map_or(close_ms, |l| l.max(close_ms));
        self.latest_close_ms = Some(latest);
        self.settle(latest.saturating_sub(CLOSE_TIME_TOLERANCE_MS));
        Ok(())
    }

    /// Adds a rated game at its place in (close time, match id) order. Every settled game is
    /// before it (the tolerance check); if it is after every pending game it is applied at
    /// once, otherwise the pending games are re-rated from the settled table.
    fn rate(&mut self, close_ms: u64, id: Sha256Digest, game: RatedGame) {
        let key = (close_ms, id);
        let last = self.pending.last_key_value().is_none_or(|(k, _)| *k < key);
        self.pending.insert(key, game);
        self.rated += 1;
        if last {
            // Not self-play (filtered before), so it is rated.
            let _ = self.ratings.apply(&game);
        } else {
            let mut ratings = self.settled.clone();
            for g in self.pending.values() {
                let _ = ratings.apply(g);
            }
            self.ratings = ratings;
        }
    }

    /// Moves the games closed before `frontier` from pending to settled: no entry the log
    /// accepts from now on closes before `frontier`, so none will ever be rated before them.
    fn settle(&mut self, frontier: u64) {
        while let Some(e) = self.pending.first_entry() {
            if e.key().0 >= frontier {
                break;
            }
            let _ = self.settled.apply(&e.remove());
        }
    }
}

/// A match entry's result as a tournament counts it (see the module docs).
pub fn tournament_result(m: &MatchEntry) -> GameResult {
    match m.result {
        None => GameResult::DoubleForfeit,
        Some(r) => {
            let forfeit = r.reason == rules::EndReason::Forfeit;
            match (r.winner, forfeit) {
                (None, _) => GameResult::Draw,
                (Some(rules::Color::White), false) => GameResult::WhiteWins,
                (Some(rules::Color::Black), false) => GameResult::BlackWins,
                (Some(rules::Color::White), true) => GameResult::WhiteWinsByForfeit,
                (Some(rules::Color::Black), true) => GameResult::BlackWinsByForfeit,
            }
        }
    }
}

/// The rated game a match entry is, if any: the entry says `rated` (its terms said rated and
/// the game counts, [`crate::entry::is_rated`]), it has a result and a known variant. Colors
/// need not be known: a forfeit before the colors were drawn names `players[0]` as `white`
/// and its winner by that same order, so the right key wins (ratings do not depend on color).
pub fn rated_game(m: &MatchEntry) -> Option<RatedGame> {
    if !m.rated {
        return None;
    }
    let result = m.result?;
    let variant: Variant = m.variant.parse().ok()?;
    let score = match result.winner {
        None => Score::Draw,
        Some(rules::Color::White) => Score::WhiteWins,
        Some(rules::Color::Black) => Score::BlackWins,
    };
    Some(RatedGame { variant, white: m.white, black: m.black, score })
}

//! Tournaments the server runs (docs/SERVER.md, tournaments), all through its ledger:
//!
//! 1. An organiser, signed in with the organiser's key, sends a definition they signed
//!    (`fogproof tournament define`): `POST /api/tournament`. Its tournament entry goes into the
//!    log; the entry's id is the tournament's.
//! 2. Entrants named by the definition join, signed in with their own key
//!    (`POST /api/tournament/{id}/join`). Round 1 starts when every entrant has joined, or when
//!    the organiser says so (`POST /api/tournament/{id}/start`); whoever has not joined by a
//!    round's start is absent from it (a zero-point bye; a late entry).
//! 3. Each round is paired by the ledger (`TournamentState::next_pairings`, FIDE Dutch or
//!    Berger) and started by a round entry in the log. For each game the server invites both
//!    players (`tournamentGame` event); each player's agent brings its seat
//!    (`POST /api/tournament/game/{id}/seat`), the server writes the terms as the lobby does
//!    (White first, fixed colours, the definition's clock, the server's umpire for umpired
//!    variants), every party signs them, and the match starts. Its record, when finished, is
//!    appended with the round in its context.
//! 4. A player who has not brought their seat and signed the terms within
//!    `max_tournament_show_wait_ms` of the invitation loses by forfeit: a no-show entry in the
//!    log names the pairing, the deadline and who did not show (both: a double forfeit). If only
//!    the umpire failed to sign, nobody is forfeited and the game is invited again.
//! 5. The next round starts when every game of the round has a result in the log.
//!
//! Invitations live in memory: after a restart every unplayed game of the current round is
//! invited again with a fresh deadline (nothing was committed for it).

use crate::admission::lock;
use crate::error::AppError;
use crate::ledger::ledger_of;
use crate::lobby::{Challenge, ChallengeStatus, ColorChoice, Seat};
use crate::state::Shared;
use axum::http::StatusCode;
use ledger::Submission;
use ledger::entry::{Absence, NoShowEntry, Sha256Digest};
use ledger::history::TournamentState;
use ledger::tournament::ByeKind;
use protocol::PublicKey;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// A tournament game being arranged: the invitation, the seats brought so far.
#[derive(Clone, Debug)]
pub struct Invitation {
    /// Its id (also the id of its pending terms in the lobby).
    pub id: String,
    /// The tournament.
    pub tournament: Sha256Digest,
    /// The round.
    pub round: u32,
    /// White.
    pub white: PublicKey,
    /// Black.
    pub black: PublicKey,
    /// Seats brought.
    pub seats: BTreeMap<PublicKey, Seat>,
    /// When the players must have shown (server ms).
    pub deadline_ms: u64,
    /// The lichess-shaped challenge the agents check the terms against.
    pub challenge: Challenge,
    /// Both seats were in and the terms went to the lobby to be signed.
    pub handed_to_lobby: bool,
}

impl Invitation {
    /// The `tournamentGame` event.
    pub fn event(&self) -> Value {
        json!({
            "type": "tournamentGame",
            "id": self.id,
            "tournament": protocol::hex::encode(&self.tournament),
            "round": self.round,
            "white": self.white.to_string(),
            "black": self.black.to_string(),
            "deadline_ms": self.deadline_ms,
            "challenge": self.challenge.json(),
        })
    }
}

/// Games being arranged, and tournaments their organiser asked to start.
#[derive(Debug, Default)]
pub struct Arranging {
    /// Invitations, by id.
    pub games: BTreeMap<String, Invitation>,
    /// Tournaments whose organiser asked to start round 1 without waiting for every entrant.
    pub start_requested: BTreeSet<Sha256Digest>,
}

pub(crate) fn not_found(what: impl Into<String>) -> AppError {
    AppError::new(StatusCode::NOT_FOUND, what)
}

/// A tournament id from 64 hex digits (404 naming it otherwise: no tournament has that id).
pub fn parse_tournament_id(text: &str) -> Result<Sha256Digest, AppError> {
    protocol::hex::decode_array::<32>(text).ok_or_else(|| {
        not_found(format!(
            "tournament {:?}: no such tournament (ids are 64 hex digits)",
            text.chars().take(80).collect::<String>()
        ))
    })
}

/// The clock of a definition's `time_control`, `minutes+seconds` (`15+10`), in ms.
pub fn parse_time_control(text: &str) -> Option<(u64, u64)> {
    let (m, s) = text.split_once('+')?;
    let digits = |t: &str| !t.is_empty() && t.len() <= 4 && t.bytes().all(|b| b.is_ascii_digit());
    if !digits(m) || !digits(s) {
        return None;
    }
    Some((m.parse::<u64>().ok()? * 60_000, s.parse::<u64>().ok()? * 1000))
}

/// The entrants of tournament `id` who joined and have not withdrawn since (the store keeps
/// both: a withdrawal survives a restart).
pub(crate) async fn joined_now(
    shared: &Shared,
    id: &Sha256Digest,
) -> Result<BTreeSet<PublicKey>, AppError> {
    let joined = shared.store.tournament_joins(id).await.map_err(internal)?;
    Ok(joined.into_iter().collect())
}

pub(crate) fn internal(e: impl std::fmt::Display) -> AppError {
    AppError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string())
}

pub(crate) fn status(t: &TournamentState) -> &'static str {
    let total = t.definition.rounds() as usize;
    if t.rounds.is_empty() {
        "joining"
    } else if t.rounds.len() == total && t.rounds.iter().all(|r| r.is_complete()) {
        "finished"
    } else {
        "playing"
    }
}

/// Invitations waiting for `key`'s seat (sent again on a new event stream).
pub fn invitations_for(shared: &Shared, key: &PublicKey) -> Vec<Value> {
    lock(&shared.tournaments)
        .games
        .values()
        .filter(|g| (g.white == *key || g.black == *key) && !g.seats.contains_key(key))
        .map(Invitation::event)
        .collect()
}

/// Runs the tournaments until the server stops: every 250 ms, each tournament in the log
/// moves on if it can (see the module docs).
pub async fn runner(shared: Arc<Shared>) {
    let mut stop = shared.shutdown_signal();
    let mut tick = tokio::time::interval(std::time::Duration::from_millis(250));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = tick.tick() => {}
            _ = stop.changed() => break,
        }
        if let Err(e) = step(&shared).await {
            tracing::error!(error = %e.message, "tournament runner");
        }
    }
}

/// One pass over every tournament that is not over.
pub async fn step(shared: &Arc<Shared>) -> Result<(), AppError> {
    let l = ledger_of(shared)?.clone();
    let running: Vec<TournamentState> = l
        .with(|led| {
            led.history().tournaments().filter(|t| status(t) != "finished").cloned().collect()
        })
        .await?;
    for t in running {
        if let Err(e) = step_one(shared, &l, &t).await {
            tracing::warn!(tournament = %protocol::hex::encode(&t.id), error = %e.message, "tournament step");
        }
    }
    Ok(())
}

async fn step_one(
    shared: &Arc<Shared>,
    l: &Arc<crate::ledger::ServerLedger>,
    t: &TournamentState,
) -> Result<(), AppError> {
    let joined = joined_now(shared, &t.id).await?;
    let players = &t.definition.players;
    let absent: Vec<Absence> = players
        .iter()
        .enumerate()
        .filter(|(_, p)| !joined.contains(&p.key))
        .map(|(i, _)| Absence { player: i as u32, bye: ByeKind::Zero })
        .collect();
    let total = t.definition.rounds() as usize;
    let start_round = match t.rounds.last() {
        None => {
            let asked = lock(&shared.tournaments).start_requested.contains(&t.id);
            (absent.is_empty() || asked).then_some(1)
        }
        Some(last) if last.is_complete() && t.rounds.len() < total => Some(last.round + 1),
        Some(_) => None,
    };
    if let Some(round) = start_round {
        let (tournament, now) = (t.id, shared.clock.now_ms());
        let r = l
            .with(move |led| {
                led.append(&[Submission::Round { tournament, round, absent, started_at_ms: now }])
                    .map(|_| ())
            })
            .await?;
        if let Err(e) = r {
            return Err(internal(format!("round {round} not started: {e}")));
        }
        tracing::info!(tournament = %protocol::hex::encode(&t.id), round, "round started");
        return Ok(());
    }
    let Some(last) = t.rounds.last() else { return Ok(()) };
    // The round's games: started already (a match exists), being arranged, or to invite.
    let started = shared.store.tournament_games(&t.id, last.round).await.map_err(internal)?;
    let mut started_pairs = BTreeSet::new();
    for g in &started {
        if let Some(row) = shared.store.get_match(&g.match_id).await.map_err(internal)? {
            started_pairs.insert((row.players[0], row.players[1]));
        }
    }
    let now = shared.clock.now_ms();
    let mut forfeits = Vec::new();
    let mut invite = Vec::new();
    {
        let mut arranging = lock(&shared.tournaments);
        for (k, &(w, b)) in last.pairings.games.iter().enumerate() {
            if last.results[k].is_some() {
                continue;
            }
            let (white, black) = (players[w].key, players[b].key);
            let existing = arranging
                .games
                .iter()
                .find(|(_, g)| {
                    g.tournament == t.id
                        && g.round == last.round
                        && g.white == white
                        && g.black == black
                })
                .map(|(id, g)| (id.clone(), g.clone()));
            if started_pairs.contains(&(white, black)) {
                if let Some((id, _)) = existing {
                    arranging.games.remove(&id);
                }
                continue;
            }
            match existing {
                Some((id, g)) if now >= g.deadline_ms => {
                    // Under the lobby's lock: the last signature either started the match (its
                    // pending terms are gone) or it did not, never both.
                    let mut lobby = lock(&shared.lobby);
                    let (white_absent, black_absent) = if g.handed_to_lobby {
                        match lobby.pending.remove(&id) {
                            None => continue, // started: its match entry will come
                            Some(p) => (
                                !p.signatures.contains_key(&white),
                                !p.signatures.contains_key(&black),
                            ),
                        }
                    } else {
                        (!g.seats.contains_key(&white), !g.seats.contains_key(&black))
                    };
                    drop(lobby);
                    arranging.games.remove(&id);
                    if white_absent || black_absent {
                        forfeits.push(NoShowEntry {
                            tournament: t.id,
                            round: last.round,
                            white,
                            black,
                            white_absent,
                            black_absent,
                            deadline_ms: g.deadline_ms,
                        });
                    }
                    // Neither player at fault (the umpire did not sign): invited again next pass.
                }
                Some(_) => {}
                None => {
                    let inv = invitation(shared, t, last.round, white, black, now)?;
                    arranging.games.insert(inv.id.clone(), inv.clone());
                    invite.push(inv);
                }
            }
        }
    }
    for inv in invite {
        let e = inv.event();
        shared.events.send_all([inv.white, inv.black].iter(), &e);
    }
    if !forfeits.is_empty() {
        let n = forfeits.len();
        let subs: Vec<Submission> = forfeits.iter().cloned().map(Submission::NoShow).collect();
        let r = l.with(move |led| led.append(&subs).map(|_| ())).await?;
        match r {
            Ok(()) => {
                metrics::counter!(crate::metrics::TOURNAMENT_NO_SHOWS).increment(n as u64);
                for f in &forfeits {
                    let e = json!({
                        "type": "tournamentNoShow",
                        "tournament": protocol::hex::encode(&f.tournament),
                        "round": f.round,
                        "white": f.white.to_string(),
                        "black": f.black.to_string(),
                        "white_absent": f.white_absent,
                        "black_absent": f.black_absent,
                    });
                    shared.events.send_all([f.white, f.black].iter(), &e);
                }
            }
            Err(e) => return Err(internal(format!("no-show not appended: {e}"))),
        }
    }
    Ok(())
}

fn invitation(
    shared: &Shared,
    t: &TournamentState,
    round: u32,
    white: PublicKey,
    black: PublicKey,
    now: u64,
) -> Result<Invitation, AppError> {
    let (initial_ms, increment_ms) = parse_time_control(&t.definition.time_control)
        .ok_or_else(|| internal("the definition's time control does not parse"))?;
    let id = protocol::hex::encode(&protocol::keys::random_32().map_err(internal)?[..8]);
    let variant = t.definition.variant;
    let umpire = (variant.mode() == rules::Mode::Umpire)
        .then_some(shared.config.default_umpire)
        .flatten()
        .map(|u| u.to_string());
    // The names their keys signed, as this server holds them in memory now (the invitation
    // is made under the arranging lock: no store read here). One lock, released here.
    let (challenger_name, dest_name) = {
        let auth = lock(&shared.auth);
        (auth.cached_name(&white), auth.cached_name(&black))
    };
    let challenge = Challenge {
        id: id.clone(),
        challenger: white.to_string(),
        dest: Some(black.to_string()),
        variant,
        options: BTreeMap::new(),
        initial_ms,
        increment_ms,
        rated: true,
        color: ColorChoice::White,
        umpire,
        // White's seat, once brought.
        seat: Seat { seal_key: String::new(), nonce: String::new() },
        status: ChallengeStatus::Tournament,
        created_ms: now,
        challenger_name,
        dest_name,
    };
    Ok(Invitation {
        id,
        tournament: t.id,
        round,
        white,
        black,
        seats: BTreeMap::new(),
        deadline_ms: now + shared.config.limits.max_tournament_show_wait_ms,
        challenge,
        handed_to_lobby: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_controls_are_minutes_plus_seconds() {
        assert_eq!(parse_time_control("15+10"), Some((900_000, 10_000)));
        assert_eq!(parse_time_control("1+0"), Some((60_000, 0)));
        for bad in ["15", "+10", "15+", "a+1", "1+-1", "99999+1", " 1+1"] {
            assert_eq!(parse_time_control(bad), None, "{bad}");
        }
    }
}

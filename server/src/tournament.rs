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

use crate::api::{AppError, Authed};
use crate::ledger::ledger_of;
use crate::lobby::{Challenge, Pending, Seat};
use crate::state::{Shared, lock};
use crate::store::TournamentGameRow;
use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use ledger::Submission;
use ledger::entry::{Absence, NoShowEntry, Sha256Digest};
use ledger::history::TournamentState;
use ledger::tournament::ByeKind;
use protocol::PublicKey;
use serde::Deserialize;
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

fn not_found(what: impl Into<String>) -> AppError {
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

async fn state_of(shared: &Arc<Shared>, id: Sha256Digest) -> Result<TournamentState, AppError> {
    let l = ledger_of(shared)?;
    l.with(move |led| led.tournament(&id).cloned()).await?.ok_or_else(|| {
        not_found(format!(
            "tournament {}: no such tournament in the log",
            protocol::hex::encode(&id)
        ))
    })
}

fn status(t: &TournamentState) -> &'static str {
    let total = t.definition.rounds() as usize;
    if t.rounds.is_empty() {
        "joining"
    } else if t.rounds.len() == total && t.rounds.iter().all(|r| r.is_complete()) {
        "finished"
    } else {
        "playing"
    }
}

fn summary(t: &TournamentState, organiser: Option<PublicKey>) -> Value {
    let d = &t.definition;
    json!({
        "id": protocol::hex::encode(&t.id),
        "name": d.name,
        "variant": d.variant.id(),
        "organiser": organiser.map(|k| k.to_string()),
        "system": match d.system {
            ledger::tournament::definition::System::RoundRobin { double } =>
                json!({ "round-robin": if double { "double" } else { "single" } }),
            ledger::tournament::definition::System::Swiss { rounds } => json!({ "swiss": rounds }),
        },
        "time_control": d.time_control,
        "players": d.players.len(),
        "rounds": d.rounds(),
        "rounds_started": t.rounds.len(),
        "status": status(t),
        "entry": t.entry_index,
    })
}

fn organiser_of(t: &TournamentState) -> Option<PublicKey> {
    protocol::codec::decode::<ledger::tournament::definition::SignedDefinition>(&t.definition_file)
        .ok()
        .map(|s| s.organiser)
}

/// `GET /api/tournaments`: every tournament in the log.
pub async fn list(State(shared): State<Arc<Shared>>) -> Result<Json<Value>, AppError> {
    let l = ledger_of(&shared)?;
    let all: Vec<TournamentState> =
        l.with(|led| led.history().tournaments().cloned().collect()).await?;
    let list: Vec<Value> = all.iter().map(|t| summary(t, organiser_of(t))).collect();
    Ok(Json(crate::auth::with_names(&shared, json!({ "tournaments": list })).await))
}

/// `GET /api/tournament/{id}`: definition, players (and who joined), pairings with results,
/// standings; the pairings and standings are the bundle's `pairings.json` and
/// `standings.json` exactly.
pub async fn show(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
) -> Result<Json<Value>, AppError> {
    let id = parse_tournament_id(&id)?;
    let t = state_of(&shared, id).await?;
    let joined = joined_now(&shared, &id).await?;
    let mut v = summary(&t, organiser_of(&t));
    v["definition"] = json!(protocol::hex::encode(&t.definition_file));
    v["tie_breaks"] =
        json!(t.definition.tie_breaks.iter().map(|b| format!("{b:?}")).collect::<Vec<_>>());
    v["entrants"] = json!(
        t.definition
            .players
            .iter()
            .enumerate()
            .map(|(i, p)| json!({
                "index": i,
                "name": p.name,
                "key": p.key.to_string(),
                "rating": p.rating,
                "joined": joined.contains(&p.key),
            }))
            .collect::<Vec<_>>()
    );
    v["pairings"] = ledger::bundle::pairings_json(&t);
    v["standings"] = ledger::bundle::standings_json(&t);
    let inviting: Vec<Value> = lock(&shared.tournaments)
        .games
        .values()
        .filter(|g| g.tournament == id)
        .map(Invitation::event)
        .collect();
    v["invitations"] = json!(inviting);
    Ok(Json(crate::auth::with_names(&shared, v).await))
}

/// The entrants of tournament `id` who joined and have not withdrawn since (the store keeps
/// both: a withdrawal survives a restart).
async fn joined_now(shared: &Shared, id: &Sha256Digest) -> Result<BTreeSet<PublicKey>, AppError> {
    let joined = shared.store.tournament_joins(id).await.map_err(internal)?;
    Ok(joined.into_iter().collect())
}

fn internal(e: impl std::fmt::Display) -> AppError {
    AppError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string())
}

/// The body of `POST /api/tournament`.
#[derive(Deserialize)]
pub struct Publish {
    /// The signed definition file (`fogproof tournament define --out`), hex.
    pub definition: String,
}

/// `POST /api/tournament`: the signed-in organiser publishes a definition they signed.
pub async fn publish(
    State(shared): State<Arc<Shared>>,
    Authed(key): Authed,
    Json(req): Json<Publish>,
) -> Result<Json<Value>, AppError> {
    let l = ledger_of(&shared)?.clone();
    let max = shared.config.limits.max_definition_bytes;
    if req.definition.len() > 2 * max {
        return Err(AppError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("the definition is over {max} bytes (max_definition_bytes)"),
        ));
    }
    let bytes = protocol::hex::decode(&req.definition)
        .ok_or_else(|| AppError::new(StatusCode::BAD_REQUEST, "definition: expected hex"))?;
    let signed: ledger::tournament::definition::SignedDefinition = protocol::codec::decode(&bytes)
        .map_err(|e| {
            AppError::new(
                StatusCode::BAD_REQUEST,
                format!("definition: not a signed definition: {e}"),
            )
        })?;
    let def = signed
        .verify()
        .map_err(|e| AppError::new(StatusCode::BAD_REQUEST, format!("definition: {e}")))?;
    if signed.organiser != key {
        return Err(AppError::new(
            StatusCode::FORBIDDEN,
            format!(
                "the definition is signed by {}, and you are signed in as {key}: only its \
                 organiser publishes it",
                signed.organiser
            ),
        ));
    }
    let Some((initial_ms, increment_ms)) = parse_time_control(&def.time_control) else {
        return Err(AppError::new(
            StatusCode::BAD_REQUEST,
            format!("time_control {:?}: expected minutes+seconds (15+10)", def.time_control),
        ));
    };
    let lim = shared.config.limits;
    if !(lim.min_initial_clock_ms..=lim.max_initial_clock_ms).contains(&initial_ms)
        || increment_ms > lim.max_increment_ms
    {
        return Err(AppError::new(
            StatusCode::BAD_REQUEST,
            format!("time_control {}: outside this server's clock limits", def.time_control),
        ));
    }
    if def.variant.mode() == rules::Mode::Umpire && shared.config.default_umpire.is_none() {
        return Err(AppError::new(
            StatusCode::BAD_REQUEST,
            format!("{} needs an umpire and this server runs none", def.variant),
        ));
    }
    let id = ledger::entry::sha256(&bytes);
    let now = shared.clock.now_ms();
    l.with(move |led| {
        led.append(&[Submission::Tournament { definition: bytes, published_at_ms: now }])
            .map(|_| ())
    })
    .await?
    .map_err(|e| AppError::new(StatusCode::CONFLICT, format!("the ledger refused it: {e}")))?;
    Ok(Json(json!({ "id": protocol::hex::encode(&id), "name": def.name })))
}

/// The tournament `id` names, if `key` is one of its entrants and it is not over (what join and
/// withdraw both require).
async fn entrant_of_live(
    shared: &Arc<Shared>,
    id: &str,
    key: &PublicKey,
) -> Result<Sha256Digest, AppError> {
    let id = parse_tournament_id(id)?;
    let t = state_of(shared, id).await?;
    if !t.definition.players.iter().any(|p| p.key == *key) {
        return Err(AppError::new(
            StatusCode::FORBIDDEN,
            format!("{key} is not an entrant of this tournament (its definition names them)"),
        ));
    }
    if status(&t) == "finished" {
        return Err(AppError::new(StatusCode::CONFLICT, "the tournament is over"));
    }
    Ok(id)
}

/// `POST /api/tournament/{id}/join`: a signed-in entrant joins.
pub async fn join(
    State(shared): State<Arc<Shared>>,
    Authed(key): Authed,
    Path(id): Path<String>,
) -> Result<Json<Value>, AppError> {
    let id = entrant_of_live(&shared, &id, &key).await?;
    shared.store.join_tournament(&id, &key, shared.clock.now_ms()).await.map_err(internal)?;
    Ok(Json(json!({ "ok": true, "tournament": protocol::hex::encode(&id) })))
}

/// `POST /api/tournament/{id}/withdraw`: a signed-in entrant who joined withdraws: absent
/// (a zero-point bye) from every round started from now on, until it joins again. A game of
/// the current round already paired is still its to play (or to lose by no-show).
pub async fn withdraw(
    State(shared): State<Arc<Shared>>,
    Authed(key): Authed,
    Path(id): Path<String>,
) -> Result<Json<Value>, AppError> {
    let id = entrant_of_live(&shared, &id, &key).await?;
    shared.store.withdraw_tournament(&id, &key).await.map_err(internal)?;
    Ok(Json(json!({ "ok": true, "tournament": protocol::hex::encode(&id) })))
}

/// `POST /api/tournament/{id}/start`: the organiser starts round 1 without waiting for every
/// entrant (who has not joined is absent).
pub async fn start(
    State(shared): State<Arc<Shared>>,
    Authed(key): Authed,
    Path(id): Path<String>,
) -> Result<Json<Value>, AppError> {
    let id = parse_tournament_id(&id)?;
    let t = state_of(&shared, id).await?;
    if organiser_of(&t) != Some(key) {
        return Err(AppError::new(
            StatusCode::FORBIDDEN,
            format!("{key} is not this tournament's organiser"),
        ));
    }
    if !t.rounds.is_empty() {
        return Err(AppError::new(StatusCode::CONFLICT, "the tournament has started"));
    }
    lock(&shared.tournaments).start_requested.insert(id);
    Ok(Json(json!({ "ok": true })))
}

/// `POST /api/tournament/game/{id}/seat`: a paired player brings its seat.
pub async fn seat(
    State(shared): State<Arc<Shared>>,
    Authed(key): Authed,
    Path(id): Path<String>,
    Json(seat): Json<Seat>,
) -> Result<Json<Value>, AppError> {
    seat.check()?;
    let now = shared.clock.now_ms();
    let to_send = {
        let mut arranging = lock(&shared.tournaments);
        let Some(inv) = arranging.games.get_mut(&id) else {
            return Err(not_found(format!(
                "no tournament game {:?} is being arranged",
                id.chars().take(40).collect::<String>()
            )));
        };
        if key != inv.white && key != inv.black {
            return Err(AppError::new(StatusCode::FORBIDDEN, "this game is for other players"));
        }
        if now >= inv.deadline_ms {
            return Err(AppError::new(
                StatusCode::CONFLICT,
                "past the deadline to show (max_tournament_show_wait_ms)",
            ));
        }
        inv.seats.insert(key, seat);
        let both = inv.seats.len() == 2 && !inv.handed_to_lobby;
        if both {
            let mut challenge = inv.challenge.clone();
            challenge.seat = inv.seats[&inv.white].clone();
            let mut p = Pending {
                challenge,
                acceptor: (inv.black, inv.seats[&inv.black].clone()),
                umpire: shared
                    .config
                    .default_umpire
                    .filter(|_| inv.challenge.umpire.is_some())
                    .map(|u| (u, None)),
                terms: None,
                signatures: BTreeMap::new(),
                // The tournament runner, not the lobby's sweep, ends it at its deadline (a
                // no-show is a forfeit, not a cancelation).
                deadline_ms: u64::MAX,
                tournament: Some((inv.tournament, inv.round)),
            };
            if p.umpire.is_none() {
                p.terms = Some(crate::lobby::write_terms(&shared, &p)?);
            }
            inv.handed_to_lobby = true;
            lock(&shared.lobby).pending.insert(id.clone(), p.clone());
            Some(p)
        } else {
            None
        }
    };
    if let Some(p) = to_send {
        match &p.umpire {
            Some((u, None)) => shared.events.send(u, &p.umpire_event()),
            _ => {
                if let Some(e) = p.terms_event() {
                    shared.events.send_all(p.parties().iter(), &e);
                }
            }
        }
    }
    Ok(Json(json!({ "ok": true })))
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
        variant: variant.id().to_owned(),
        options: BTreeMap::new(),
        initial_ms,
        increment_ms,
        rated: true,
        color: "white".into(),
        umpire,
        // White's seat, once brought.
        seat: Seat { seal_key: String::new(), nonce: String::new() },
        status: "tournament".into(),
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

/// Records a tournament game's match before the match is created (so its record is appended
/// with its round even after a crash).
pub async fn record_game(
    shared: &Shared,
    match_id: protocol::MatchId,
    (tournament, round): (Sha256Digest, u32),
) -> Result<(), crate::store::StoreError> {
    shared.store.put_tournament_game(&TournamentGameRow { match_id, tournament, round }).await
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

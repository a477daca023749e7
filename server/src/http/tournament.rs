//! The tournament routes (docs/SERVER.md, tournaments): list, show, publish, join, start,
//! withdraw, and a player's seat for a tournament game. The runner is `crate::tournament`.

use super::types::{
    Done, Entered, Entrant, Named, Published, RoundRobinKind, SystemJson, TournamentSummary,
    TournamentView, Tournaments, named,
};
use crate::admission::lock;
use crate::error::AppError;
use crate::http::extract::Authed;
use crate::lobby::{Pending, Seat};
use crate::state::{Shared, ledger_of};
use crate::tournament::*;
use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use ledger::Submission;
use ledger::entry::Sha256Digest;
use ledger::history::TournamentState;
use protocol::PublicKey;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::sync::Arc;

async fn state_of(shared: &Arc<Shared>, id: Sha256Digest) -> Result<TournamentState, AppError> {
    let l = ledger_of(shared)?;
    l.with(move |led| led.tournament(&id).cloned()).await?.ok_or_else(|| {
        not_found(format!(
            "tournament {}: no such tournament in the log",
            protocol::hex::encode(&id)
        ))
    })
}

fn summary(t: &TournamentState, organiser: Option<PublicKey>) -> TournamentSummary {
    use ledger::tournament::definition::System;
    let d = &t.definition;
    TournamentSummary {
        id: protocol::hex::encode(&t.id),
        name: d.name.clone(),
        variant: d.variant.id(),
        organiser: organiser.map(|k| k.to_string()),
        system: match d.system {
            System::RoundRobin { double } => SystemJson::RoundRobin(if double {
                RoundRobinKind::Double
            } else {
                RoundRobinKind::Single
            }),
            System::Swiss { rounds } => SystemJson::Swiss(rounds),
        },
        time_control: d.time_control.clone(),
        players: d.players.len(),
        rounds: d.rounds(),
        rounds_started: t.rounds.len(),
        status: status(t),
        entry: t.entry_index,
    }
}

fn organiser_of(t: &TournamentState) -> Option<PublicKey> {
    protocol::codec::decode::<ledger::tournament::definition::SignedDefinition>(&t.definition_file)
        .ok()
        .map(|s| s.organiser)
}

/// `GET /api/tournaments`: every tournament in the log.
pub async fn list(State(shared): State<Arc<Shared>>) -> Result<Json<Named<Tournaments>>, AppError> {
    let l = ledger_of(&shared)?;
    let all: Vec<TournamentState> =
        l.with(|led| led.history().tournaments().cloned().collect()).await?;
    let tournaments = all.iter().map(|t| summary(t, organiser_of(t))).collect();
    Ok(Json(named(&shared, Tournaments { tournaments }).await?))
}

/// `GET /api/tournament/{id}`: definition, players (and who joined), pairings with results,
/// standings; the pairings and standings are the bundle's `pairings.json` and
/// `standings.json` exactly.
pub async fn show(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
) -> Result<Json<Named<TournamentView>>, AppError> {
    let id = parse_tournament_id(&id)?;
    let t = state_of(&shared, id).await?;
    let joined = joined_now(&*shared.store, &id).await?;
    let entrants = t
        .definition
        .players
        .iter()
        .enumerate()
        .map(|(i, p)| Entrant {
            index: i,
            name: p.name.clone(),
            key: p.key.to_string(),
            rating: p.rating,
            joined: joined.contains(&p.key),
        })
        .collect();
    let invitations = lock(&shared.tournaments)
        .games
        .values()
        .filter(|g| g.tournament == id)
        .map(Invitation::event)
        .collect();
    let v = TournamentView {
        summary: summary(&t, organiser_of(&t)),
        definition: protocol::hex::encode(&t.definition_file),
        tie_breaks: t.definition.tie_breaks.iter().map(|b| format!("{b:?}")).collect(),
        entrants,
        pairings: ledger::bundle::pairings_json(&t),
        standings: ledger::bundle::standings_json(&t),
        invitations,
    };
    Ok(Json(named(&shared, v).await?))
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
) -> Result<Json<Published>, AppError> {
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
    Ok(Json(Published { id: protocol::hex::encode(&id), name: def.name }))
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
) -> Result<Json<Entered>, AppError> {
    let id = entrant_of_live(&shared, &id, &key).await?;
    shared.store.join_tournament(&id, &key, shared.clock.now_ms()).await.map_err(internal)?;
    Ok(Json(Entered { ok: true, tournament: protocol::hex::encode(&id) }))
}

/// `POST /api/tournament/{id}/withdraw`: a signed-in entrant who joined withdraws: absent
/// (a zero-point bye) from every round started from now on, until it joins again. A game of
/// the current round already paired is still its to play (or to lose by no-show).
pub async fn withdraw(
    State(shared): State<Arc<Shared>>,
    Authed(key): Authed,
    Path(id): Path<String>,
) -> Result<Json<Entered>, AppError> {
    let id = entrant_of_live(&shared, &id, &key).await?;
    shared.store.withdraw_tournament(&id, &key).await.map_err(internal)?;
    Ok(Json(Entered { ok: true, tournament: protocol::hex::encode(&id) }))
}

/// `POST /api/tournament/{id}/start`: the organiser starts round 1 without waiting for every
/// entrant (who has not joined is absent).
pub async fn start(
    State(shared): State<Arc<Shared>>,
    Authed(key): Authed,
    Path(id): Path<String>,
) -> Result<Json<Done>, AppError> {
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
    Ok(Json(Done { ok: true }))
}

/// `POST /api/tournament/game/{id}/seat`: a paired player brings its seat.
pub async fn seat(
    State(shared): State<Arc<Shared>>,
    Authed(key): Authed,
    Path(id): Path<String>,
    Json(seat): Json<Seat>,
) -> Result<Json<Done>, AppError> {
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
                p.terms = Some(crate::lobby::write_terms(&shared.config, &p)?);
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
    Ok(Json(Done { ok: true }))
}

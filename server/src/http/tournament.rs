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
    let rows = shared.store.invitations(&id).await.map_err(internal)?;
    let invitations = rows
        .iter()
        .map(|r| Invitation::from_row(r).map(|i| i.event()))
        .collect::<Result<_, _>>()?;
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
    // In the store: the runner runs on the ledger's node, whichever node took the request.
    shared.store.request_tournament_start(&id).await.map_err(internal)?;
    Ok(Json(Done { ok: true }))
}

/// `POST /api/tournament/game/{id}/seat`: a paired player brings its seat, on any node (the
/// invitation and its seats are in the store). The seat that completes the pair hands the
/// terms to be signed ([`hand`]). A seat brought again after the handing is answered `ok`
/// (the terms hold the one brought first: an agent's retry, or a second process of its key).
pub async fn seat(
    State(shared): State<Arc<Shared>>,
    Authed(key): Authed,
    Path(id): Path<String>,
    Json(seat): Json<Seat>,
) -> Result<Json<Done>, AppError> {
    seat.check()?;
    let now = shared.clock.now_ms();
    let not_arranged = || {
        not_found(format!(
            "no tournament game {:?} is being arranged",
            id.chars().take(40).collect::<String>()
        ))
    };
    let late = || {
        AppError::new(
            StatusCode::CONFLICT,
            "past the deadline to show (max_tournament_show_wait_ms)",
        )
    };
    let Some(row) = shared.store.invitation(&id).await.map_err(internal)? else {
        return Err(not_arranged());
    };
    if key != row.white && key != row.black {
        return Err(AppError::new(StatusCode::FORBIDDEN, "this game is for other players"));
    }
    if row.handed {
        return Ok(Json(Done { ok: true }));
    }
    if now >= row.deadline_ms {
        return Err(late());
    }
    let body = serde_json::to_string(&seat).map_err(internal)?;
    let Some(row) = shared.store.seat_invitation(&id, &key, &body, now).await.map_err(internal)?
    else {
        // Handed meanwhile (the other player's seat completed it), or ended at its deadline.
        return match shared.store.invitation(&id).await.map_err(internal)? {
            Some(r) if r.handed => Ok(Json(Done { ok: true })),
            Some(_) => Err(late()),
            None => Err(not_arranged()),
        };
    };
    if row.white_seat.is_some() && row.black_seat.is_some() {
        hand(&shared, &row).await?;
    }
    Ok(Json(Done { ok: true }))
}

/// Hands a tournament game with both seats in to be signed: the terms are written as the
/// lobby writes them (White first, fixed colors, the definition's clock, the server's umpire
/// for umpired variants) and go, on a cluster, into the database's pending terms with the
/// invitation marked handed in the same transaction (any node takes the signatures; the last
/// one's claim starts the match), on a single server into its lobby. Of two nodes handing at
/// once, one does; only it sends the events.
async fn hand(shared: &Arc<Shared>, row: &crate::store::InvitationRow) -> Result<(), AppError> {
    let inv = Invitation::from_row(row)?;
    let (Some(white), Some(black)) = (inv.seats.get(&inv.white), inv.seats.get(&inv.black)) else {
        return Ok(());
    };
    let mut challenge = inv.challenge.clone();
    challenge.seat = white.clone();
    let mut p = Pending {
        challenge,
        acceptor: (inv.black, black.clone()),
        umpire: shared
            .config
            .default_umpire
            .filter(|_| inv.challenge.umpire.is_some())
            .map(|u| (u, None)),
        terms: None,
        signatures: BTreeMap::new(),
        // The tournament runner, not the lobby's sweep, ends it at its deadline (a no-show is
        // a forfeit, not a cancelation).
        deadline_ms: u64::MAX,
        tournament: Some((inv.tournament, inv.round)),
    };
    if p.umpire.is_none() {
        p.terms = Some(crate::lobby::write_terms(&shared.config, &p)?);
    }
    let handed = match shared.cluster.get() {
        Some(pg) => pg.hand_tournament_terms(&inv.id, &p.stored()?).await.map_err(internal)?,
        None => {
            let handed = shared.store.hand_invitation(&inv.id).await.map_err(internal)?;
            if handed {
                lock(&shared.lobby).pending.insert(inv.id.clone(), p.clone());
            }
            handed
        }
    };
    if !handed {
        return Ok(());
    }
    match &p.umpire {
        Some((u, None)) => shared.events.send(u, &p.umpire_event()),
        _ => {
            if let Some(e) = p.terms_event() {
                shared.events.send_all(p.parties().iter(), &e);
            }
        }
    }
    Ok(())
}

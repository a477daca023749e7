//! The lobby's HTTP handlers (docs/SERVER.md, lobby): challenges (`/api/challenge`), the
//! umpire's seat and the parties' signatures on pending terms (`/api/pending/{id}/...`) and
//! the public lobby (`/api/lobby`). They parse the request and call `crate::services::lobby`.

use crate::admission::lock;
use crate::error::{ApiResult, AppError};
use crate::http::extract::Authed;
use crate::http::parse_signature;
use crate::http::types::{Created, Done, LobbyView, MyChallenges, Named, Signed, named};
use crate::lobby::{Challenge, ChallengeRequest, NewChallenge, Seat};
use crate::services;
use crate::state::Shared;
use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use serde::Deserialize;
use std::sync::Arc;

pub(crate) async fn my_challenges(
    State(shared): State<Arc<Shared>>,
    Authed(key): Authed,
) -> Json<MyChallenges> {
    let me = key.to_string();
    let lobby = lock(&shared.lobby);
    let out = lobby.open.values().filter(|c| c.challenger == me).map(Challenge::shown).collect();
    let incoming = lobby
        .open
        .values()
        .filter(|c| c.dest.as_deref() == Some(me.as_str()))
        .map(Challenge::shown)
        .collect();
    Json(MyChallenges { incoming, out })
}

pub(crate) async fn create_challenge(
    State(shared): State<Arc<Shared>>,
    Authed(key): Authed,
    req: Result<Json<ChallengeRequest>, JsonRejection>,
) -> ApiResult<Json<Created>> {
    // The request is parsed once, here (protocol::challenge): a field it does not have or a
    // bad value is a 400 naming the field, a body that is not JSON keeps axum's answer.
    let Json(req) = req.map_err(|e| match e {
        JsonRejection::JsonDataError(_) => AppError::bad(format!("challenge: {}", e.body_text())),
        other => AppError::new(other.status(), other.body_text()),
    })?;
    let c = services::lobby::create(&shared, key, NewChallenge::new(req)?).await?;
    Ok(Json(Created { challenge: c.shown() }))
}

pub(crate) async fn accept(
    State(shared): State<Arc<Shared>>,
    Authed(key): Authed,
    Path(id): Path<String>,
    Json(seat): Json<Seat>,
) -> ApiResult<Json<Done>> {
    services::lobby::accept(&shared, key, &id, seat).await?;
    Ok(Json(Done { ok: true }))
}

pub(crate) async fn decline(
    State(shared): State<Arc<Shared>>,
    Authed(key): Authed,
    Path(id): Path<String>,
) -> ApiResult<Json<Done>> {
    services::lobby::close(&shared, key, &id, true).await?;
    Ok(Json(Done { ok: true }))
}

pub(crate) async fn cancel(
    State(shared): State<Arc<Shared>>,
    Authed(key): Authed,
    Path(id): Path<String>,
) -> ApiResult<Json<Done>> {
    services::lobby::close(&shared, key, &id, false).await?;
    Ok(Json(Done { ok: true }))
}

pub(crate) async fn umpire_seat(
    State(shared): State<Arc<Shared>>,
    Authed(key): Authed,
    Path(id): Path<String>,
    Json(seat): Json<Seat>,
) -> ApiResult<Json<Done>> {
    services::lobby::umpire_seat(&shared, key, &id, seat).await?;
    Ok(Json(Done { ok: true }))
}

#[derive(Deserialize)]
pub(crate) struct Sign {
    signature: String,
}

pub(crate) async fn sign(
    State(shared): State<Arc<Shared>>,
    Authed(key): Authed,
    Path(id): Path<String>,
    Json(req): Json<Sign>,
) -> ApiResult<Json<Signed>> {
    let signature = parse_signature(&req.signature)?;
    let started = services::lobby::sign(&shared, key, &id, signature).await?;
    Ok(Json(Signed { ok: true, started }))
}

pub(crate) async fn lobby_view(
    State(shared): State<Arc<Shared>>,
) -> ApiResult<Json<Named<LobbyView>>> {
    let seeks = lock(&shared.lobby)
        .open
        .values()
        .filter(|c| c.dest.is_none())
        .map(Challenge::shown)
        .collect();
    let live = lock(&shared.matches).values().map(|h| lock(&h.info).clone()).collect();
    Ok(Json(named(&shared, LobbyView { seeks, live }).await?))
}

//! The handlers of the lichess-shaped local API (the table in `local`'s module docs): each
//! reads or answers the [`Hub`]. [`super::bridge`] adds the rest of what `lichess-bot` calls;
//! [`super::router`] routes both.

use super::error::LocalError;
use super::hub::Hub;
use super::types::{Account, NameSet};
use crate::agent::AgentError;
use crate::net::NetError;
use axum::Json;
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::broadcast;

#[derive(Clone)]
pub(super) struct Api {
    pub(super) hub: Arc<Hub>,
    pub(super) any_host: bool,
}

pub(super) type ApiResult = Result<Json<Value>, LocalError>;

/// The server's public lobby (open seeks and live games: players, variant, clock; nothing of a
/// hidden board), for the agent's lobby page.
pub(super) async fn lobby(State(api): State<Api>) -> ApiResult {
    Ok(Json(api.hub.vouch(api.hub.agent()?.session().get("/api/lobby").await?)))
}

/// The most tournaments not yet over whose entrants `GET /api/tournament` reads (one request
/// to the server each).
pub const MAX_TOURNAMENTS_LISTED: usize = 20;

/// `GET /api/tournament`: the server's tournaments in lichess's groups (`created`: joining,
/// `started`: being played, `finished`), each with lichess's `fullName`, `nbPlayers`,
/// `variant`, `clock` and fogproof's `entrant` (this key is named by its definition), `joined`
/// (the server counts it in), `playing` (this agent brings its seat to its games), `system`,
/// `rounds`, `roundsStarted`, `standings` (the server's, for one not joining).
pub(super) async fn tournaments(State(api): State<Api>) -> ApiResult {
    let agent = api.hub.agent()?;
    let session = agent.session();
    let me = session.key.to_string();
    let list = api.hub.vouch(session.get("/api/tournaments").await?);
    let mine = agent.tournaments();
    let (mut created, mut started, mut finished) = (Vec::new(), Vec::new(), Vec::new());
    let all = list["tournaments"].as_array().cloned().unwrap_or_default();
    for (i, t) in all.iter().enumerate() {
        let Some(id) = t["id"].as_str() else { continue };
        let mut item = tournament_item(t, &mine);
        if t["status"] != "finished" && i < MAX_TOURNAMENTS_LISTED {
            let full = api.hub.vouch(session.get(&format!("/api/tournament/{id}")).await?);
            let entrant =
                full["entrants"].as_array().and_then(|e| e.iter().find(|p| p["key"] == me));
            item["entrant"] = json!(entrant.is_some());
            item["joined"] = json!(entrant.is_some_and(|p| p["joined"] == true));
            item["standings"] = full["standings"].clone();
            item["names"] = full["names"].clone();
        }
        match t["status"].as_str() {
            Some("joining") => created.push(item),
            Some("playing") => started.push(item),
            _ => finished.push(item),
        }
    }
    Ok(Json(json!({ "created": created, "started": started, "finished": finished })))
}

pub(super) fn tournament_item(t: &Value, mine: &std::collections::BTreeSet<String>) -> Value {
    let (initial_ms, increment_ms) = t["time_control"]
        .as_str()
        .and_then(|tc| tc.split_once('+'))
        .and_then(|(m, s)| Some((m.parse::<u64>().ok()? * 60_000, s.parse::<u64>().ok()? * 1000)))
        .unwrap_or((0, 0));
    let variant = t["variant"].as_str().and_then(crate::lichess::parse_variant);
    let id = t["id"].as_str().unwrap_or_default();
    json!({
        "id": id,
        "fullName": t["name"],
        "nbPlayers": t["players"],
        "variant": variant.map(crate::lichess::variant_json),
        "clock": { "limit": initial_ms / 1000, "increment": increment_ms / 1000 },
        "status": t["status"],
        "system": t["system"],
        "rounds": t["rounds"],
        "roundsStarted": t["rounds_started"],
        "organiser": t["organiser"],
        "entrant": null,
        "joined": null,
        "playing": mine.contains(id),
    })
}

/// `GET /api/tournament/{id}`: the server's view of a tournament (entrants, pairings,
/// standings; names checked), and `playing`.
pub(super) async fn tournament(State(api): State<Api>, Path(id): Path<String>) -> ApiResult {
    check_tournament_id(&id)?;
    let agent = api.hub.agent()?;
    let mut v = api.hub.vouch(agent.session().get(&format!("/api/tournament/{id}")).await?);
    v["playing"] = json!(agent.tournaments().contains(&id.to_ascii_lowercase()));
    Ok(Json(v))
}

/// `POST /api/tournament/{id}/join` (lichess's route): joins on the server; from then on the
/// agent brings its seat to every game the tournament pairs it in, and each game is played
/// like any other (`gameStart` on the event stream).
pub(super) async fn join_tournament(State(api): State<Api>, Path(id): Path<String>) -> ApiResult {
    check_tournament_id(&id)?;
    api.hub.agent()?.join_tournament(&id).await.map_err(agent_error)?;
    ok()
}

pub(super) fn check_tournament_id(id: &str) -> Result<(), LocalError> {
    protocol::hex::decode_array::<32>(id).map(drop).ok_or_else(|| {
        LocalError::NotFound(format!(
            "tournament {:?}: no such tournament (ids are 64 hex digits)",
            id.chars().take(80).collect::<String>()
        ))
    })
}

/// An agent's error, the server's refusal passed on with its status.
pub(super) fn agent_error(e: AgentError) -> LocalError {
    match e {
        AgentError::Net(n) => LocalError::Net(n),
        other => LocalError::Agent(other),
    }
}

/// `POST /api/tournament/{id}/withdraw` (lichess's route): absent from the rounds started
/// from now on; the agent brings no seat to its games any more.
pub(super) async fn withdraw_tournament(
    State(api): State<Api>,
    Path(id): Path<String>,
) -> ApiResult {
    check_tournament_id(&id)?;
    api.hub.agent()?.withdraw_tournament(&id).await.map_err(agent_error)?;
    ok()
}

pub(super) fn ok() -> ApiResult {
    Ok(Json(json!({ "ok": true })))
}

/// Reads an optional JSON body (empty is `{}`).
pub(super) fn body_json(bytes: &[u8]) -> Result<Value, LocalError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(json!({}));
    }
    serde_json::from_slice(bytes).map_err(|e| LocalError::Bad(format!("the body is not JSON: {e}")))
}

pub(super) async fn account(State(api): State<Api>) -> ApiResult {
    let agent = api.hub.agent()?;
    let s = agent.session();
    let key = s.key.to_string();
    let name = s.name().or_else(|| api.hub.name_of(&key));
    Ok(Json(json!(Account {
        username: name.as_ref().map_or(key.clone(), |n| n.name.clone()),
        id: key,
        // lichess-bot plays only as a BOT account; the local API is a program's.
        title: "BOT",
        name: name.as_ref().map(|n| n.name.clone()),
        signed_name: name,
        fingerprint: s.key.fingerprint(),
        server: s.base().to_string(),
        bot: s.info.bot.map(|k| k.to_string()),
        umpire: s.info.umpire.map(|k| k.to_string()),
    })))
}

/// `POST /api/account` `{"name": "..."}`: sets this key's display name: the agent normalises
/// it, signs it with the key and sends it to the server (a name outside the allowed set is a
/// 400 naming why, nothing sent).
pub(super) async fn set_name(State(api): State<Api>, body: axum::body::Bytes) -> ApiResult {
    let body = body_json(&body)?;
    let text = body["name"].as_str().ok_or_else(|| LocalError::Bad("'name': a text".into()))?;
    let agent = api.hub.agent()?;
    let signed = agent.session().set_name(text).await.map_err(|e| match e {
        NetError::Name(why) => LocalError::Bad(why.to_string()),
        other => LocalError::Net(other),
    })?;
    api.hub.check_name(&json!(signed), None);
    Ok(Json(json!(NameSet { ok: true, name: signed.name.clone(), signed_name: signed })))
}

pub(super) async fn event_stream(State(api): State<Api>) -> Response {
    let (first, rx) = api.hub.events();
    let first: std::collections::VecDeque<Value> = first.into();
    let stream = futures_util::stream::unfold((first, rx), |(mut first, mut rx)| async move {
        if let Some(v) = first.pop_front() {
            return Some((v, (first, rx)));
        }
        loop {
            match tokio::time::timeout(Duration::from_secs(7), rx.recv()).await {
                Ok(Ok(v)) => return Some((v, (first, rx))),
                Ok(Err(broadcast::error::RecvError::Lagged(_))) => {}
                Ok(Err(broadcast::error::RecvError::Closed)) => return None,
                // Quiet for 7 s: a keep-alive (an empty line).
                Err(_) => return Some((Value::Null, (first, rx))),
            }
        }
    });
    ndjson(stream)
}

/// NDJSON, one value per line, a `null` item becoming an empty keep-alive line (as lichess
/// sends after a quiet while).
pub(super) fn ndjson(stream: impl futures_util::Stream<Item = Value> + Send + 'static) -> Response {
    use futures_util::StreamExt;
    let lines = stream.map(|v| {
        Ok::<_, std::convert::Infallible>(if v.is_null() {
            "\n".to_owned()
        } else {
            format!("{v}\n")
        })
    });
    ([(header::CONTENT_TYPE, "application/x-ndjson")], Body::from_stream(lines)).into_response()
}

/// How long the game stream waits for the seat to know its side before its `gameFull`.
const SIDE_WAIT: Duration = Duration::from_secs(10);

pub(super) async fn game_stream(
    State(api): State<Api>,
    Path(id): Path<String>,
) -> Result<Response, LocalError> {
    let snap =
        api.hub.snapshot(&id).ok_or_else(|| LocalError::NotFound(format!("no game {id} here")))?;
    let mut rx =
        api.hub.watch(&id).ok_or_else(|| LocalError::NotFound(format!("no game {id} here")))?;
    // lichess's gameFull names White and Black: wait for the seat to know its side (drawn
    // colors are settled by the protocol's first messages), a few seconds at most.
    let side_known = |v: &Value| !v["side"].is_null() || v["stage"] != "started";
    let _ = tokio::time::timeout(SIDE_WAIT, rx.wait_for(side_known)).await;
    let mut full = serde_json::to_value(snap.full()).unwrap_or_default();
    full["state"] = rx.borrow_and_update().clone();
    for color in ["white", "black"] {
        full[color] = api.hub.player_json(full["state"][color].as_str());
    }
    let done = |v: &Value| v["stage"] == "finished" || v["stage"] == "stopped";
    let first_done = done(&full["state"]);
    let stream = futures_util::stream::unfold(
        (Some(full), rx, first_done),
        move |(first, mut rx, finished)| async move {
            if let Some(f) = first {
                return Some((f, (None, rx, finished)));
            }
            if finished {
                return None;
            }
            match tokio::time::timeout(Duration::from_secs(7), rx.changed()).await {
                Ok(Ok(())) => {
                    let v = rx.borrow_and_update().clone();
                    let end = done(&v);
                    Some((v, (None, rx, end)))
                }
                Ok(Err(_)) => None,
                Err(_) => Some((Value::Null, (None, rx, false))),
            }
        },
    );
    Ok(ndjson(stream))
}

pub(super) async fn game_state(State(api): State<Api>, Path(id): Path<String>) -> ApiResult {
    let rx =
        api.hub.watch(&id).ok_or_else(|| LocalError::NotFound(format!("no game {id} here")))?;
    let v = rx.borrow().clone();
    Ok(Json(v))
}

/// How long a move posted on the mover's turn waits for the seat's question (a lichess
/// client moves as soon as `moves` shows its turn; the seat asks a moment after its view
/// changes).
const ASK_WAIT: Duration = Duration::from_secs(5);

pub(super) async fn play(
    State(api): State<Api>,
    Path((id, text)): Path<(String, String)>,
) -> ApiResult {
    let deadline = Instant::now() + ASK_WAIT;
    while api.hub.awaiting_ask(&id) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    api.hub.play(&id, &text)?;
    ok()
}

pub(super) async fn setup(
    State(api): State<Api>,
    Path(id): Path<String>,
    body: axum::body::Bytes,
) -> ApiResult {
    api.hub.setup(&id, &body_json(&body)?)?;
    ok()
}

pub(super) async fn resign(State(api): State<Api>, Path(id): Path<String>) -> ApiResult {
    api.hub.resign(&id)?;
    ok()
}

pub(super) async fn draw(
    State(api): State<Api>,
    Path((id, answer)): Path<(String, String)>,
) -> ApiResult {
    let yes = match answer.as_str() {
        "yes" | "true" | "accept" => true,
        "no" | "false" | "decline" => false,
        other => return Err(LocalError::Bad(format!("draw/{other}: expected yes or no"))),
    };
    api.hub.draw(&id, yes)?;
    ok()
}

pub(super) async fn challenge(
    State(api): State<Api>,
    Path(target): Path<String>,
    body: axum::body::Bytes,
) -> ApiResult {
    let c = api.hub.challenge(&target, &body_json(&body)?).await?;
    Ok(Json(json!({ "challenge": c })))
}

pub(super) async fn accept(State(api): State<Api>, Path(id): Path<String>) -> ApiResult {
    api.hub.accept(&id).await?;
    ok()
}

pub(super) async fn decline(State(api): State<Api>, Path(id): Path<String>) -> ApiResult {
    api.hub.close(&id, "decline").await?;
    ok()
}

pub(super) async fn cancel(State(api): State<Api>, Path(id): Path<String>) -> ApiResult {
    api.hub.close(&id, "cancel").await?;
    ok()
}

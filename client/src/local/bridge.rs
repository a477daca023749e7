//! The rest of lichess's Bot API that the `lichess-bot` bridge calls besides playing: the token
//! test, the account's BOT title and upgrade, the games in progress, chat, the PGN export and
//! the online bots. With these the bridge runs unmodified against the agent (docs/AGENT-API.md,
//! "lichess-bot"): it accepts fogproof challenges and plays them with any UCI engine.
//!
//! The agent's local API has no tokens of its own (it listens on loopback and checks `Host`
//! and `Origin`, `guard`): whatever token a lichess client was configured with is accepted, and
//! the token test answers it with the scopes the local API grants.

use super::api::{Api, ApiResult, ndjson, ok};
use super::error::LocalError;
use super::snapshot::{Status, notation, score};
use axum::extract::{Path, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

/// The scopes the local API grants any token (lichess's names).
pub const SCOPES: &str = "bot:play,board:play,challenge:read,challenge:write";

/// The most tokens one token test answers (lichess's limit is 1,000 a request).
const MAX_TOKENS: usize = 1000;

/// `POST /api/token/test`: the body is tokens separated by commas; each is answered with the
/// signed-in key as its user and [`SCOPES`].
pub(super) async fn token_test(State(api): State<Api>, body: String) -> ApiResult {
    let me =
        api.hub.key().ok_or_else(|| LocalError::Conflict("the agent is not running".into()))?;
    let mut out = serde_json::Map::new();
    for t in body.split(',').map(str::trim).filter(|t| !t.is_empty()).take(MAX_TOKENS) {
        out.insert(t.to_owned(), json!({ "userId": me, "scopes": SCOPES, "expires": null }));
    }
    Ok(axum::Json(Value::Object(out)))
}

/// `POST /api/bot/account/upgrade`: the agent's API already plays as a bot.
pub(super) async fn upgrade() -> ApiResult {
    ok()
}

/// `GET /api/account/playing`: lichess's `nowPlaying`, the games being played (the same
/// objects as the event stream's `gameStart`).
pub(super) async fn playing(State(api): State<Api>) -> ApiResult {
    let now: Vec<Value> = api
        .hub
        .games()
        .into_iter()
        .filter(|(_, s)| *s == Status::Started)
        .map(|(id, _)| api.hub.game_start(&id)["game"].clone())
        .collect();
    Ok(axum::Json(json!({ "nowPlaying": now })))
}

/// `POST /api/bot/game/{id}/chat`: fogproof relays no chat (nothing a player types reaches the
/// opponent but moves); the line is accepted and dropped, as lichess does in a bot-only room.
pub(super) async fn chat(State(api): State<Api>, Path(id): Path<String>) -> ApiResult {
    api.hub.snapshot(&id).ok_or_else(|| LocalError::NotFound(format!("no game {id} here")))?;
    ok()
}

/// `GET /game/export/{id}`: the game as PGN as far as the seat knows it (every move in chess;
/// the hidden games' PGN has only the result: the agent never shows what its seat was not
/// told). The final record's own PGN is `fogproof pgn RECORD`.
pub(super) async fn export(
    State(api): State<Api>,
    Path(id): Path<String>,
) -> Result<Response, LocalError> {
    let snap =
        api.hub.snapshot(&id).ok_or_else(|| LocalError::NotFound(format!("no game {id} here")))?;
    let result = snap.claim.as_ref().map_or("*", score);
    let mut side = [snap.players[0].as_str(), snap.players[1].as_str()];
    if let Some(v) = &snap.view
        && let Some(me) = api.hub.key()
        && (v.side == rules::Color::Black) == (snap.players[0] == me)
    {
        side.swap(0, 1);
    }
    let mut pgn = format!(
        "[Event \"fogproof {}\"]\n[Site \"fogproof\"]\n[White \"{}\"]\n[Black \"{}\"]\n\
         [Result \"{result}\"]\n[Variant \"{}\"]\n[GameId \"{id}\"]\n\n",
        snap.variant.id(),
        side[0],
        side[1],
        crate::lichess::variant_name(snap.variant),
    );
    let moves = snap.view.as_ref().map(notation).unwrap_or_default();
    for (i, m) in moves.iter().enumerate() {
        if i % 2 == 0 {
            pgn.push_str(&format!("{}. ", i / 2 + 1));
        }
        pgn.push_str(m);
        pgn.push(' ');
    }
    pgn.push_str(result);
    pgn.push('\n');
    Ok(([(header::CONTENT_TYPE, "application/x-chess-pgn")], pgn).into_response())
}

/// `GET /api/bot/online`: NDJSON of the bots online: the server's house bot, when it has one.
pub(super) async fn online(State(api): State<Api>) -> Response {
    let bot = api.hub.agent().ok().and_then(|a| a.session().info.bot).map(|k| k.to_string());
    let list: Vec<Value> = bot
        .into_iter()
        .map(|k| json!({ "id": k, "username": k, "title": "BOT", "online": true }))
        .collect();
    ndjson(futures_util::stream::iter(list))
}

//! Watching a live open game (chess, Espionage): `GET /api/match/{id}/watch`, an NDJSON stream
//! of the game's public moves as the relay accepts them, for the host's watch page
//! (`/watch/{id}`) and anyone else.
//!
//! Only games whose every move is public are served. A game that hides information (Kriegspiel,
//! SIC, Intrigue, 6x6) is refused before anything of it is looked at, with one answer for every
//! hidden game ([`HIDDEN`], `403`): nothing in it depends on the game's moves, its entries or how
//! far it is (R-K1; docs/SERVER.md: no live data of a hidden game beyond its public facts). Its
//! replay is published when its record is final.
//!
//! The stream joins the match task as a spectator without a key (the same subscription a
//! keyless socket gets, which the task itself refuses for hidden games), so it reads exactly the
//! public channel. Each line is JSON:
//!
//! - `{"type":"start","id","variant","white","black","board","moves":[uci…],"result"}`: the
//!   game so far (`board` is the rules' position string);
//! - `{"type":"move","ply","uci","board","result"}` for each move after it (`result`: the
//!   rules' result once the move ends the game, else `null`);
//! - `{"type":"closed"}` when the match task stops sending (the game is over and being stored,
//!   or this watcher was too slow and was dropped), then the stream ends;
//! - an empty line every [`KEEP_ALIVE_S`] seconds.
//!
//! Limits (a watcher costs a subscription in the match task and a queue): at most
//! [`MAX_SPECTATORS_PER_MATCH`] watchers of one match and [`MAX_SPECTATORS`] in all (`503` with
//! `Retry-After` beyond either); each watcher's queue holds [`SPECTATOR_QUEUE_FRAMES`] frames,
//! and a watcher that falls that far behind is dropped by the match task (it never waits for a
//! watcher).

use super::types::WatchLine;
use crate::admission::lock;
use crate::error::{AppError, parse_match_id};
use crate::live::{Command, MatchHandle, Outgoing};
use crate::state::Shared;
use axum::body::{Body, Bytes};
use axum::extract::{Extension, Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use protocol::MatchId;
use protocol::codec::Canonical;
use protocol::message::{MessageBody, Payload};
use protocol::wire::ServerFrame;
use rules::{AnyGame, Color, GameOptions, Mode, Variant};
use std::collections::BTreeMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

/// Watchers of one live match at once.
pub const MAX_SPECTATORS_PER_MATCH: usize = 64;
/// Watchers of all live matches at once.
pub const MAX_SPECTATORS: usize = 1024;
/// Frames queued to one watcher; a watcher this far behind is dropped.
pub const SPECTATOR_QUEUE_FRAMES: usize = 64;
/// Seconds between keep-alive lines (a gone watcher is noticed at the next write).
pub const KEEP_ALIVE_S: u64 = 10;
/// The answer for every game that hides information, whatever its state.
pub const HIDDEN: &str = "this game hides information: it cannot be watched live; its replay is \
                          published when its record is final";

/// The watchers counted, per match and in all.
#[derive(Debug, Default)]
pub struct Spectators {
    counts: Mutex<Counts>,
}

#[derive(Debug, Default)]
struct Counts {
    total: usize,
    per_match: BTreeMap<[u8; 32], usize>,
}

impl Spectators {
    /// A place for one more watcher of `id`, or the limit that is reached.
    fn admit(self: &Arc<Self>, id: &MatchId) -> Result<Place, AppError> {
        let mut c = lock(&self.counts);
        if c.total >= MAX_SPECTATORS {
            return Err(AppError::busy(
                format!("{MAX_SPECTATORS} games are being watched (MAX_SPECTATORS): try later"),
                5,
            ));
        }
        let here = c.per_match.entry(id.0).or_insert(0);
        if *here >= MAX_SPECTATORS_PER_MATCH {
            return Err(AppError::busy(
                format!(
                    "this game has {MAX_SPECTATORS_PER_MATCH} watchers (MAX_SPECTATORS_PER_MATCH): \
                     try later"
                ),
                5,
            ));
        }
        *here += 1;
        c.total += 1;
        Ok(Place { spectators: self.clone(), id: id.0 })
    }

    /// Watchers now: of `id`, and in all.
    #[must_use]
    pub fn count(&self, id: &MatchId) -> (usize, usize) {
        let c = lock(&self.counts);
        (c.per_match.get(&id.0).copied().unwrap_or(0), c.total)
    }
}

/// One watcher's place, given back when its stream is dropped.
struct Place {
    spectators: Arc<Spectators>,
    id: [u8; 32],
}

impl Drop for Place {
    fn drop(&mut self) {
        let mut c = lock(&self.spectators.counts);
        c.total = c.total.saturating_sub(1);
        if let Some(n) = c.per_match.get_mut(&self.id) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                c.per_match.remove(&self.id);
            }
        }
    }
}

/// The route, with its own counters (merged into the API router by `api::router`).
pub fn router() -> axum::Router<Arc<Shared>> {
    axum::Router::new()
        .route("/api/match/{id}/watch", get(watch))
        .layer(Extension(Arc::new(Spectators::default())))
}

/// Whether a game of `variant` may be watched live: every move public.
#[must_use]
pub fn watchable(variant: Variant) -> bool {
    variant.mode() == Mode::Open
}

/// `GET /api/match/{id}/watch`.
async fn watch(
    State(shared): State<Arc<Shared>>,
    Extension(spectators): Extension<Arc<Spectators>>,
    Path(id): Path<String>,
) -> Response {
    match start(&shared, &spectators, &id).await {
        Ok(r) => r,
        Err(e) => e.into_response(),
    }
}

fn hidden() -> AppError {
    AppError::new(StatusCode::FORBIDDEN, HIDDEN)
}

async fn start(
    shared: &Arc<Shared>,
    spectators: &Arc<Spectators>,
    id: &str,
) -> Result<Response, AppError> {
    let id = parse_match_id(id)?;
    let Some(handle) = shared.live(&id) else {
        return Err(AppError::new(
            StatusCode::NOT_FOUND,
            "no live game with this id here (a finished game's replay is at /game/{id})",
        ));
    };
    // The game's kind only: nothing else of a hidden game is read.
    let variant = lock(&handle.info).variant.parse::<Variant>().ok();
    let Some(variant) = variant.filter(|v| watchable(*v)) else { return Err(hidden()) };
    let game = AnyGame::start(&GameOptions::default_for(variant), None)
        .map_err(|e| AppError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
    let place = spectators.admit(&id)?;
    let conn = shared.next_conn();
    let (tx, rx) = mpsc::channel(SPECTATOR_QUEUE_FRAMES);
    let (reply, answer) = oneshot::channel();
    let join = Command::Join { conn, key: None, since: None, tx, mux: None, reply };
    let busy = || AppError::busy("the game is being stored: its replay follows shortly", 2);
    if handle.tx.send(join).await.is_err() {
        return Err(busy());
    }
    let joined = match answer.await {
        Ok(Ok(j)) => j,
        Ok(Err(crate::live::JoinError::Hidden)) => return Err(hidden()),
        Ok(Err(_)) | Err(_) => return Err(busy()),
    };
    let mut w = Watcher {
        variant,
        game,
        handle,
        moves: Vec::new(),
        rx,
        conn,
        shutdown: shared.shutdown_signal(),
        closed: false,
        _place: place,
    };
    for f in &joined.catch_up {
        w.follow(f);
    }
    let (white, black) = {
        let info = lock(&w.handle.info);
        (info.white.clone(), info.black.clone())
    };
    let first = w.line(&WatchLine::Start {
        id: protocol::hex::encode(&id.0),
        variant: variant.id(),
        white,
        black,
        board: w.game.fen(),
        moves: w.moves.clone(),
        result: w.game.result(),
    });
    let stream = futures_util::stream::unfold((w, Some(first)), |(mut w, first)| async move {
        if let Some(f) = first {
            return Some((Ok::<_, Infallible>(f), (w, None)));
        }
        let line = w.next().await?;
        Some((Ok(line), (w, None)))
    });
    Ok((
        [(header::CONTENT_TYPE, "application/x-ndjson"), (header::CACHE_CONTROL, "no-store")],
        Body::from_stream(stream),
    )
        .into_response())
}

/// One watcher: the game rebuilt from the public moves it was sent.
struct Watcher {
    variant: Variant,
    game: AnyGame,
    handle: MatchHandle,
    moves: Vec<String>,
    rx: mpsc::Receiver<Outgoing>,
    conn: u64,
    shutdown: tokio::sync::watch::Receiver<bool>,
    closed: bool,
    _place: Place,
}

impl Drop for Watcher {
    fn drop(&mut self) {
        // Tell the match task (if it still runs) this subscription is gone.
        let _ = self.handle.tx.try_send(Command::Leave { conn: self.conn });
    }
}

impl Watcher {
    fn line(&self, v: &WatchLine) -> Bytes {
        let mut s = serde_json::to_string(v).unwrap_or_default();
        s.push('\n');
        Bytes::from(s)
    }

    /// The next line: a move, a keep-alive, or `closed` (after it `None`: the stream ends).
    async fn next(&mut self) -> Option<Bytes> {
        if self.closed {
            return None;
        }
        loop {
            let frame = tokio::select! {
                f = self.rx.recv() => f,
                () = tokio::time::sleep(Duration::from_secs(KEEP_ALIVE_S)) => {
                    return Some(Bytes::from_static(b"\n"));
                }
                _ = self.shutdown.changed() => None,
            };
            let Some(Outgoing::Frame(bytes)) = frame else {
                // The task stopped sending (the end, or this watcher dropped as too slow), or
                // the server is shutting down: say so once, then end.
                self.closed = true;
                return Some(self.line(&WatchLine::Closed));
            };
            if let Some(line) = self.follow(&bytes) {
                return Some(line);
            }
        }
    }

    /// Applies one frame's public move, if it holds one the rules accept; its line.
    fn follow(&mut self, frame: &[u8]) -> Option<Bytes> {
        let Ok(ServerFrame::Entry(entry)) = ServerFrame::from_canonical(frame) else { return None };
        let body = MessageBody::from_canonical(&entry.message.body).ok()?;
        let Payload::Action(bytes) = &body.payload else { return None };
        let author = body.author.to_string();
        let actor = {
            let info = lock(&self.handle.info);
            if info.white.as_deref() == Some(author.as_str()) {
                Color::White
            } else if info.black.as_deref() == Some(author.as_str()) {
                Color::Black
            } else {
                return None;
            }
        };
        let action = protocol::game::decode_action(self.variant, bytes).ok()?;
        // A move the rules refuse (a void race after the end) is not part of the game.
        let t = self.game.apply(actor, &action).ok()?;
        self.game = t.state;
        let uci = action.as_move().map(|m| m.uci(self.variant.alphabet()))?;
        self.moves.push(uci.clone());
        Some(self.line(&WatchLine::Move {
            ply: self.moves.len(),
            uci,
            board: self.game.fen(),
            result: self.game.result(),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn watchers_are_counted_per_match_and_in_all() {
        let s = Arc::new(Spectators::default());
        let a = MatchId([1; 32]);
        let b = MatchId([2; 32]);
        let mut places: Vec<Place> = (0..MAX_SPECTATORS_PER_MATCH)
            .map(|_| s.admit(&a).expect("a place under the per-match limit"))
            .collect();
        let refused = s.admit(&a).err().expect("the per-match limit");
        assert_eq!(refused.status, StatusCode::SERVICE_UNAVAILABLE);
        assert!(refused.message.contains("MAX_SPECTATORS_PER_MATCH"), "{}", refused.message);
        // Another match still has room; a place given back is free again.
        places.push(s.admit(&b).expect("another match"));
        assert_eq!(s.count(&a), (MAX_SPECTATORS_PER_MATCH, MAX_SPECTATORS_PER_MATCH + 1));
        places.remove(0);
        places.push(s.admit(&a).expect("a freed place"));
        drop(places);
        assert_eq!(s.count(&a), (0, 0));
        // The global limit, over many matches.
        let all: Vec<Place> = (0..MAX_SPECTATORS)
            .map(|i| s.admit(&MatchId([(i / MAX_SPECTATORS_PER_MATCH) as u8; 32])).expect("room"))
            .collect();
        let refused = s.admit(&MatchId([255; 32])).err().expect("the global limit");
        assert!(refused.message.contains("(MAX_SPECTATORS)"), "{}", refused.message);
        drop(all);
        assert_eq!(s.count(&a).1, 0);
    }

    #[test]
    fn only_games_whose_every_move_is_public_are_watchable() {
        let open: Vec<Variant> = Variant::ALL.into_iter().filter(|v| watchable(*v)).collect();
        assert_eq!(open, vec![Variant::Chess, Variant::Espionage]);
    }
}

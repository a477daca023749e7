//! `GET /api/socket`: one WebSocket per signed-in participant for all its matches (the
//! multiplexed socket, [`mux_socket`]), and `GET /api/match/{id}/socket`: one WebSocket per
//! participant and match (kept for compatibility and for spectators without a key); binary
//! frames of [`ClientFrame`] and [`ServerFrame`] (docs/SERVER.md, sockets).
//!
//! The socket must say `Hello` (with the last position it holds) within `max_hello_wait_ms`;
//! it then gets `Welcome`, the entries it missed, and every new entry it may read. A frame
//! that does not decode, a second `Hello`, a text frame, a frame over `max_frame_bytes`, a
//! message written for another key, too many refusals or too many frames per second close the
//! socket with a reason; the match goes on for everyone else.

use crate::config::Limits;
use crate::error::{AppError, parse_match_id};
use crate::http::extract::{Authed, MaybeAuthed};
use crate::live::{Command, MATCH_OVER, Mux, Outgoing};
use crate::state::{ConnectionSlot, Shared, connect};
use axum::body::Bytes;
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use futures_util::{SinkExt, StreamExt};
use governor::{DefaultDirectRateLimiter, Quota, RateLimiter};
use protocol::MatchId;
use protocol::PublicKey;
use protocol::codec::Canonical;
use protocol::wire::{ClientFrame, ServerFrame};
use std::collections::HashMap;
use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, oneshot};

/// WebSocket close codes (RFC 6455 7.4.1).
mod code {
    pub const NORMAL: u16 = 1000;
    pub const GOING_AWAY: u16 = 1001;
    pub const UNSUPPORTED: u16 = 1003;
    pub const POLICY: u16 = 1008;
    pub const TOO_BIG: u16 = 1009;
    pub const INTERNAL: u16 = 1011;
    pub const TRY_LATER: u16 = 1013;
}

/// Bytes a socket reads at a time. tungstenite's default (128 KiB) is zeroed before every read
/// and stays allocated per connection, while frames here are a few hundred bytes: with 4 KiB
/// the server held 372 KiB per Kriegspiel match instead of 899 KiB, and no longer spent 6% of
/// its CPU in `memset` (docs/LOADTEST.md). A longer frame is simply read in several reads.
pub const READ_BUFFER_BYTES: usize = 4096;

/// Frames a multiplexed socket writes before one flush: the frames already queued behind the
/// one it wakes for (many matches' entries) go out in one write, not one write each.
pub const WRITE_BATCH: usize = 64;

/// The upgrade handler.
pub async fn socket(
    ws: WebSocketUpgrade,
    State(shared): State<Arc<Shared>>,
    MaybeAuthed(key): MaybeAuthed,
    Path(id): Path<String>,
) -> Result<Response, AppError> {
    let id = parse_match_id(&id)?;
    let (ws, slot) = upgrade(ws, &shared, key)?;
    Ok(ws.on_upgrade(move |socket| run(socket, shared, id, key, slot)))
}

/// What both upgrades share: a connection slot for `key` (or 429), the frame limits.
fn upgrade(
    ws: WebSocketUpgrade,
    shared: &Arc<Shared>,
    key: Option<PublicKey>,
) -> Result<(WebSocketUpgrade, ConnectionSlot), AppError> {
    let slot = connect(shared, key).map_err(|why| {
        metrics::counter!(crate::metrics::CONNECTIONS_REFUSED).increment(1);
        AppError::new(StatusCode::TOO_MANY_REQUESTS, why)
    })?;
    let max = shared.config.limits.max_frame_bytes;
    let ws = ws.read_buffer_size(READ_BUFFER_BYTES).max_message_size(max).max_frame_size(max);
    Ok((ws, slot))
}

/// Closes the socket: for anything but a normal end, first a last refusal with the whole
/// reason, then the close frame (its reason cut to the 123 bytes a close frame carries).
async fn close(socket: &mut WebSocket, code: u16, reason: &str) {
    if code != code::NORMAL {
        let frame = ServerFrame::refused(None, reason).to_canonical();
        let _ = socket.send(Message::Binary(frame.into())).await;
    }
    let mut end = reason.len().min(123);
    while !reason.is_char_boundary(end) {
        end -= 1;
    }
    let _ =
        socket.send(Message::Close(Some(CloseFrame { code, reason: reason[..end].into() }))).await;
}

/// Reads the socket's `Hello` within `max_hello_wait_ms`: the position it holds, or `None`
/// once the socket is closed (with the reason, if it said anything else).
async fn hello(socket: &mut WebSocket, limits: &Limits) -> Option<Option<u64>> {
    let wait = Duration::from_millis(limits.max_hello_wait_ms);
    let (code, reason) = match tokio::time::timeout(wait, socket.next()).await {
        Err(_) => (
            code::POLICY,
            format!("no Hello within {} ms (max_hello_wait_ms)", limits.max_hello_wait_ms),
        ),
        Ok(Some(Ok(Message::Binary(b)))) => match ClientFrame::from_canonical(&b) {
            Ok(ClientFrame::Hello { since, .. }) => return Some(since),
            Ok(_) => (code::POLICY, "the first frame must be Hello".to_owned()),
            Err(e) => (code::POLICY, format!("bad frame: {e}")),
        },
        Ok(Some(Ok(Message::Close(_))) | None) => return None,
        Ok(Some(Ok(_))) => (code::UNSUPPORTED, "binary frames only (ClientFrame)".to_owned()),
        Ok(Some(Err(e))) => (code::TOO_BIG, e.to_string()),
    };
    close(socket, code, &reason).await;
    None
}

/// A binary frame read after `Hello`: `Ok(None)` for a ping or pong; `Err` once the socket
/// has ended (closed here with the reason, unless the peer closed it).
async fn binary(
    socket: &mut WebSocket,
    incoming: Option<Result<Message, axum::Error>>,
) -> Result<Option<Bytes>, ()> {
    let (code, reason) = match incoming {
        Some(Ok(Message::Binary(b))) => return Ok(Some(b)),
        Some(Ok(Message::Ping(_) | Message::Pong(_))) => return Ok(None),
        Some(Ok(Message::Close(_))) | None => return Err(()),
        Some(Ok(Message::Text(_))) => {
            (code::UNSUPPORTED, "binary frames only (ClientFrame)".into())
        }
        Some(Err(e)) => (code::TOO_BIG, e.to_string()),
    };
    close(socket, code, &reason).await;
    Err(())
}

/// What opening a match gives a socket (either kind: the one open path).
enum Opened {
    /// Following the live match as subscription `conn` of the match task `tx`; `frames` are
    /// its `Welcome` and catch-up, already wrapped for a multiplexed socket.
    Live { tx: mpsc::Sender<Command>, conn: u64, frames: Vec<Bytes> },
    /// The match is finished here: `Welcome`, every entry after `since`, `Finished`
    /// (unwrapped).
    Finished(Vec<Vec<u8>>),
    /// Not opened: the close code and reason.
    Refused(u16, String),
}

/// Opens `id` for a socket of `key` holding everything up to `since`: joins the live match
/// (its frames to `tx`, wrapped if `mux`), or reads the finished one.
async fn open_match(
    shared: &Shared,
    id: &MatchId,
    key: Option<PublicKey>,
    since: Option<u64>,
    tx: mpsc::Sender<Outgoing>,
    mux: Option<Mux>,
) -> Opened {
    let Some(handle) = shared.live(id) else {
        return match finished_frames(shared, id, since).await {
            Ok(frames) => Opened::Finished(frames),
            Err((c, reason)) => Opened::Refused(c, reason),
        };
    };
    let conn = shared.next_conn();
    let (reply, answer) = oneshot::channel();
    if handle.tx.send(Command::Join { conn, key, since, tx, mux, reply }).await.is_err() {
        return Opened::Refused(code::TRY_LATER, "the match is being stored; open it again".into());
    }
    match answer.await {
        Ok(Ok(joined)) => {
            let mut frames = Vec::with_capacity(joined.catch_up.len() + 1);
            frames.push(Bytes::from(joined.welcome));
            frames.extend(joined.catch_up);
            Opened::Live { tx: handle.tx, conn, frames }
        }
        Ok(Err(e)) => Opened::Refused(code::POLICY, e.to_string()),
        Err(_) => Opened::Refused(code::TRY_LATER, "the match ended; open it again".into()),
    }
}

/// Sends `frames` one by one; `false` if the socket is gone.
async fn send_all(socket: &mut WebSocket, frames: impl IntoIterator<Item = Bytes>) -> bool {
    for f in frames {
        if socket.send(Message::Binary(f)).await.is_err() {
            return false;
        }
    }
    true
}

async fn run(
    mut socket: WebSocket,
    shared: Arc<Shared>,
    id: MatchId,
    key: Option<PublicKey>,
    _slot: ConnectionSlot,
) {
    let limits = shared.config.limits;
    // 1. Hello, in time.
    let Some(since) = hello(&mut socket, &limits).await else { return };
    // 2. The match: live, or finished (then everything, and the end).
    let (tx, mut rx) = mpsc::channel(limits.max_queued_frames_per_connection);
    let (match_tx, conn) = match open_match(&shared, &id, key, since, tx, None).await {
        Opened::Live { tx, conn, frames } => {
            if !send_all(&mut socket, frames).await {
                let _ = tx.send(Command::Leave { conn }).await;
                return;
            }
            (tx, conn)
        }
        Opened::Finished(frames) => {
            if send_all(&mut socket, frames.into_iter().map(Bytes::from)).await {
                close(&mut socket, code::NORMAL, MATCH_OVER).await;
            }
            return;
        }
        Opened::Refused(c, reason) => return close(&mut socket, c, &reason).await,
    };
    // 3. Frames both ways.
    let limiter = per_second(limits.max_frames_per_second_per_connection);
    let mut shutdown = shared.shutdown_signal();
    loop {
        tokio::select! {
            incoming = socket.next() => {
                let b = match binary(&mut socket, incoming).await {
                    Ok(Some(b)) => b,
                    Ok(None) => continue,
                    Err(()) => break,
                };
                let arrived = Instant::now();
                if limiter.check().is_err() {
                    close(&mut socket, code::POLICY, &format!(
                        "more than {} frames per second (max_frames_per_second_per_connection)",
                        limits.max_frames_per_second_per_connection
                    )).await;
                    break;
                }
                let why = match ClientFrame::from_canonical(&b) {
                    Ok(ClientFrame::Message(bytes)) => {
                        if match_tx.send(Command::Message { conn, bytes, arrived }).await.is_ok() {
                            continue;
                        }
                        (code::TRY_LATER, "the match has stopped; reconnect".to_owned())
                    }
                    Ok(ClientFrame::Hello { .. }) => {
                        (code::POLICY, "Hello comes once, first".to_owned())
                    }
                    Ok(ClientFrame::Open { .. } | ClientFrame::To { .. }
                        | ClientFrame::Leave { .. }) => (
                        code::POLICY,
                        "Open, To and Leave are for the multiplexed socket (GET /api/socket)"
                            .to_owned(),
                    ),
                    Err(e) => (code::POLICY, format!("bad frame: {e}")),
                };
                close(&mut socket, why.0, &why.1).await;
                break;
            }
            out = rx.recv() => match out {
                Some(Outgoing::Frame(f)) => {
                    if socket.send(Message::Binary(f)).await.is_err() {
                        break;
                    }
                }
                Some(Outgoing::Close(reason)) => {
                    let c = if reason == MATCH_OVER { code::NORMAL } else { code::POLICY };
                    close(&mut socket, c, &reason).await;
                    break;
                }
                // Only for multiplexed sockets.
                Some(Outgoing::For { .. } | Outgoing::Left { .. }) => {}
                None => {
                    close(&mut socket, code::TRY_LATER, &format!(
                        "this socket fell {} frames behind (max_queued_frames_per_connection); \
                         reconnect with the last position you hold",
                        limits.max_queued_frames_per_connection
                    )).await;
                    break;
                }
            },
            _ = shutdown.changed() => {
                close(&mut socket, code::GOING_AWAY, "the server is restarting; reconnect").await;
                break;
            }
        }
    }
    let _ = match_tx.send(Command::Leave { conn }).await;
}

/// The frames a socket to a match that is not live gets: `Welcome`, every entry after
/// `since`, `Finished`; or a close code and reason if the match is not finished here.
async fn finished_frames(
    shared: &Shared,
    id: &MatchId,
    since: Option<u64>,
) -> Result<Vec<Vec<u8>>, (u16, String)> {
    let row = match shared.store.get_match(id).await {
        Ok(Some(row)) if row.finish.is_some() => row,
        Ok(Some(_)) => {
            // A cluster node names the node that holds the match's lease (docs/SERVER.md,
            // several nodes); an expired lease is taken by the next lease round.
            let owner = match shared.cluster.get().and_then(|pg| pg.leases().map(|l| (pg, l))) {
                // (An operator's URL, bounded so the reason stays within its 1024 bytes.)
                Some((pg, l)) => l
                    .owner_url(pg.pool(), id)
                    .await
                    .ok()
                    .flatten()
                    .map(|u| u.chars().take(512).collect::<String>()),
                None => None,
            };
            return Err((
                code::TRY_LATER,
                owner.map_or_else(
                    || "the match is not running here; reconnect".into(),
                    |url| protocol::wire::owner_redirect(&url),
                ),
            ));
        }
        Ok(None) => return Err((code::POLICY, "no such match".into())),
        Err(e) => return Err((code::INTERNAL, e.to_string())),
    };
    let Ok(terms) = protocol::terms::SignedTerms::from_canonical(&row.terms) else {
        return Err((code::INTERNAL, "stored terms do not decode".into()));
    };
    let entries = shared.store.entries(id).await.map_err(|e| (code::INTERNAL, e.to_string()))?;
    let from = since.map_or(0, |s| usize::try_from(s).unwrap_or(usize::MAX).saturating_add(1));
    let welcome = ServerFrame::Welcome {
        version: protocol::codec::VERSION,
        match_id: *id,
        terms,
        entries: entries.len() as u64,
        catch_up: entries.len().saturating_sub(from) as u64,
    };
    let mut frames = vec![welcome.to_canonical()];
    for bytes in entries.iter().skip(from) {
        let Ok(entry) = protocol::relay::Entry::from_canonical(bytes) else {
            return Err((code::INTERNAL, "a stored entry does not decode".into()));
        };
        frames.push(ServerFrame::Entry(entry).to_canonical());
    }
    frames.push(ServerFrame::Finished { entries: entries.len() as u64 }.to_canonical());
    Ok(frames)
}

/// The upgrade handler of the multiplexed socket (signed in only: it carries a party's
/// matches).
pub async fn mux_socket(
    ws: WebSocketUpgrade,
    State(shared): State<Arc<Shared>>,
    Authed(key): Authed,
) -> Result<Response, AppError> {
    let (ws, slot) = upgrade(ws, &shared, Some(key))?;
    Ok(ws.on_upgrade(move |socket| run_mux(socket, shared, key, slot)))
}

/// One match followed on a multiplexed socket.
struct MuxSub {
    /// The match task.
    tx: mpsc::Sender<Command>,
    /// The subscription's id in the match task.
    conn: u64,
    /// This match's frames per second.
    limiter: DefaultDirectRateLimiter,
}

/// Sends one frame of `match_id`, wrapped; `false` if the socket is gone.
async fn send_for(socket: &mut WebSocket, match_id: &MatchId, frame: &ServerFrame) -> bool {
    let bytes = ServerFrame::wrap(match_id, &frame.to_canonical());
    socket.send(Message::Binary(bytes.into())).await.is_ok()
}

fn per_second(n: u32) -> DefaultDirectRateLimiter {
    RateLimiter::direct(Quota::per_second(NonZeroU32::new(n).unwrap_or(NonZeroU32::MIN)))
}

/// The multiplexed socket: `Hello` within `max_hello_wait_ms`, then `Open`, `To` and `Leave`
/// frames naming their match. What is wrong with one match's frames (too many per second,
/// too many refusals, a message by another key) ends that match's subscription with a wrapped
/// `Left`, as does an `Open` past the socket's budget; what is wrong with the socket itself (a
/// frame that does not decode, a text frame, a second `Hello`, an unwrapped `Message`, too
/// many frames per second for matches not open, a queue the client does not read) closes the
/// socket, and with it every subscription; the matches go on and the client opens them again
/// on a new socket.
async fn run_mux(
    mut socket: WebSocket,
    shared: Arc<Shared>,
    key: PublicKey,
    _slot: ConnectionSlot,
) {
    let limits = shared.config.limits;
    if hello(&mut socket, &limits).await.is_none() {
        return;
    }
    // The server's own umpire service follows every match, and opens them all again at once
    // after a reconnect: it is bound by `max_live_matches`, not by the per-socket budgets.
    let exempt = shared.config.is_umpire_service(&key);
    let max_matches =
        if exempt { limits.max_live_matches } else { limits.max_matches_per_connection };
    let (tx, mut rx) = mpsc::channel(limits.max_queued_frames_per_connection);
    let mux = Mux::default();
    // `Open`s, and frames for matches not open here, share one budget per socket.
    let socket_frames = per_second(limits.max_frames_per_second_per_connection);
    let mut subs: HashMap<MatchId, MuxSub> = HashMap::new();
    let mut shutdown = shared.shutdown_signal();
    let mut ok = true;
    while ok {
        tokio::select! {
            incoming = socket.next() => {
                let b = match binary(&mut socket, incoming).await {
                    Ok(Some(b)) => b,
                    Ok(None) => continue,
                    Err(()) => break,
                };
                let arrived = Instant::now();
                let frame = match ClientFrame::from_canonical(&b) {
                    Ok(f) => f,
                    Err(e) => {
                        close(&mut socket, code::POLICY, &format!("bad frame: {e}")).await;
                        break;
                    }
                };
                // Frames for matches not open here: past the socket's budget, a flood.
                let stray = matches!(&frame, ClientFrame::To { match_id, .. } if !subs.contains_key(match_id));
                if stray && !exempt && socket_frames.check().is_err() {
                    close(&mut socket, code::POLICY, &format!(
                        "more than {} frames per second for matches not open on this socket \
                         (max_frames_per_second_per_connection)",
                        limits.max_frames_per_second_per_connection
                    )).await;
                    break;
                }
                match frame {
                    ClientFrame::To { match_id, message } => {
                        let Some(sub) = subs.get(&match_id) else {
                            ok = send_for(&mut socket, &match_id, &ServerFrame::left(
                                "this match is not open on this socket: Open it first",
                            )).await;
                            continue;
                        };
                        let reason = if sub.limiter.check().is_err() {
                            format!(
                                "more than {} frames per second for this match \
                                 (max_frames_per_second_per_connection)",
                                limits.max_frames_per_second_per_connection
                            )
                        } else if sub.tx.send(Command::Message { conn: sub.conn, bytes: message, arrived }).await.is_err() {
                            "the match has stopped; open it again".to_owned()
                        } else {
                            continue;
                        };
                        if let Some(sub) = subs.remove(&match_id) {
                            let _ = sub.tx.send(Command::Leave { conn: sub.conn }).await;
                        }
                        ok = send_for(&mut socket, &match_id, &ServerFrame::left(&reason)).await;
                    }
                    ClientFrame::Open { match_id, since } => {
                        // Past the budget an Open is refused, not the socket: a client
                        // opening all its matches again after a reconnect retries them.
                        if !exempt && socket_frames.check().is_err() {
                            ok = send_for(&mut socket, &match_id, &ServerFrame::left(&format!(
                                "more than {} Open frames per second on this socket \
                                 (max_frames_per_second_per_connection): open it again shortly",
                                limits.max_frames_per_second_per_connection
                            ))).await;
                            continue;
                        }
                        if let Some(old) = subs.remove(&match_id) {
                            let _ = old.tx.send(Command::Leave { conn: old.conn }).await;
                        }
                        if subs.len() >= max_matches {
                            ok = send_for(&mut socket, &match_id, &ServerFrame::left(&format!(
                                "{max_matches} matches are open on this socket \
                                 (max_matches_per_connection)"
                            ))).await;
                            continue;
                        }
                        ok = open(&mut socket, &shared, key, match_id, since, &tx, &mux, &mut subs).await;
                    }
                    ClientFrame::Leave { match_id } => {
                        if let Some(old) = subs.remove(&match_id) {
                            let _ = old.tx.send(Command::Leave { conn: old.conn }).await;
                        }
                    }
                    ClientFrame::Hello { .. } => {
                        close(&mut socket, code::POLICY, "Hello comes once, first").await;
                        break;
                    }
                    ClientFrame::Message(_) => {
                        close(&mut socket, code::POLICY,
                            "this socket carries many matches: a message goes in To, naming its match").await;
                        break;
                    }
                }
            }
            out = rx.recv() => {
                // This frame and those queued behind it (at most `WRITE_BATCH`) go in one write.
                let mut next = out;
                let mut fed = 0;
                while let Some(out) = next.take() {
                    let frame = match out {
                        Outgoing::For { match_id, conn, frame } => {
                            subs.get(&match_id).is_some_and(|s| s.conn == conn).then_some(frame)
                        }
                        Outgoing::Left { match_id, conn, reason } => {
                            if subs.get(&match_id).is_some_and(|s| s.conn == conn) {
                                subs.remove(&match_id);
                                (reason != MATCH_OVER).then(|| {
                                    let left = ServerFrame::left(&reason).to_canonical();
                                    ServerFrame::wrap(&match_id, &left).into()
                                })
                            } else {
                                None
                            }
                        }
                        // Only for sockets of one match.
                        Outgoing::Frame(_) | Outgoing::Close(_) => None,
                    };
                    if let Some(frame) = frame {
                        if socket.feed(Message::Binary(frame)).await.is_err() {
                            ok = false;
                            break;
                        }
                        fed += 1;
                    }
                    if fed < WRITE_BATCH {
                        next = rx.try_recv().ok();
                    }
                }
                if ok && fed > 0 {
                    ok = socket.flush().await.is_ok();
                }
            },
            () = mux.slow.notified() => {
                close(&mut socket, code::TRY_LATER, &format!(
                    "this socket fell {} frames behind (max_queued_frames_per_connection); \
                     reconnect and open each match with the last position you hold",
                    limits.max_queued_frames_per_connection
                )).await;
                break;
            }
            _ = shutdown.changed() => {
                close(&mut socket, code::GOING_AWAY, "the server is restarting; reconnect").await;
                break;
            }
        }
    }
    for sub in subs.into_values() {
        let _ = sub.tx.send(Command::Leave { conn: sub.conn }).await;
    }
}

/// Opens `match_id` on a multiplexed socket: its `Welcome` and catch-up (or, for a finished
/// match, every entry and `Finished`), wrapped; `false` if the socket is gone.
#[allow(
    clippy::too_many_arguments,
    reason = "one socket's state, passed apart to keep the borrows short"
)]
async fn open(
    socket: &mut WebSocket,
    shared: &Arc<Shared>,
    key: PublicKey,
    match_id: MatchId,
    since: Option<u64>,
    tx: &mpsc::Sender<Outgoing>,
    mux: &Mux,
    subs: &mut HashMap<MatchId, MuxSub>,
) -> bool {
    match open_match(shared, &match_id, Some(key), since, tx.clone(), Some(mux.clone())).await {
        Opened::Live { tx, conn, frames } => {
            let limiter = per_second(shared.config.limits.max_frames_per_second_per_connection);
            subs.insert(match_id, MuxSub { tx, conn, limiter });
            send_all(socket, frames).await
        }
        Opened::Finished(frames) => {
            let wrapped: Vec<Bytes> =
                frames.iter().map(|f| Bytes::from(ServerFrame::wrap(&match_id, f))).collect();
            send_all(socket, wrapped).await
        }
        Opened::Refused(_, reason) => {
            send_for(socket, &match_id, &ServerFrame::left(&reason)).await
        }
    }
}

//! `GET /api/match/{id}/socket`: one WebSocket per participant and match, binary frames of
//! [`ClientFrame`] and [`ServerFrame`] (docs/SERVER.md, sockets).
//!
//! The socket must say `Hello` (with the last position it holds) within `max_hello_wait_ms`;
//! it then gets `Welcome`, the entries it missed, and every new entry it may read. A frame
//! that does not decode, a second `Hello`, a text frame, a frame over `max_frame_bytes`, a
//! message written for another key, too many refusals or too many frames per second close the
//! socket with a reason; the match goes on for everyone else.

use crate::api::{AppError, MaybeAuthed, parse_match_id};
use crate::live::{Command, Outgoing};
use crate::state::{ConnectionSlot, Shared, connect};
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use futures_util::StreamExt;
use governor::{DefaultDirectRateLimiter, Quota, RateLimiter};
use protocol::MatchId;
use protocol::PublicKey;
use protocol::codec::Canonical;
use protocol::wire::{ClientFrame, ServerFrame};
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

/// The upgrade handler.
pub async fn socket(
    ws: WebSocketUpgrade,
    State(shared): State<Arc<Shared>>,
    MaybeAuthed(key): MaybeAuthed,
    Path(id): Path<String>,
) -> Result<Response, AppError> {
    let id = parse_match_id(&id)?;
    let slot = connect(&shared, key).map_err(|why| {
        metrics::counter!(crate::metrics::CONNECTIONS_REFUSED).increment(1);
        AppError::new(StatusCode::TOO_MANY_REQUESTS, why)
    })?;
    let max = shared.config.limits.max_frame_bytes;
    Ok(ws
        .read_buffer_size(READ_BUFFER_BYTES)
        .max_message_size(max)
        .max_frame_size(max)
        .on_upgrade(move |socket| run(socket, shared, id, key, slot)))
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

async fn run(
    mut socket: WebSocket,
    shared: Arc<Shared>,
    id: MatchId,
    key: Option<PublicKey>,
    _slot: ConnectionSlot,
) {
    let limits = shared.config.limits;
    // 1. Hello, in time.
    let hello =
        tokio::time::timeout(Duration::from_millis(limits.max_hello_wait_ms), socket.next()).await;
    let since = match hello {
        Err(_) => {
            return close(
                &mut socket,
                code::POLICY,
                &format!("no Hello within {} ms (max_hello_wait_ms)", limits.max_hello_wait_ms),
            )
            .await;
        }
        Ok(Some(Ok(Message::Binary(b)))) => match ClientFrame::from_canonical(&b) {
            Ok(ClientFrame::Hello { since, .. }) => since,
            Ok(ClientFrame::Message(_)) => {
                return close(&mut socket, code::POLICY, "the first frame must be Hello").await;
            }
            Err(e) => return close(&mut socket, code::POLICY, &format!("bad frame: {e}")).await,
        },
        Ok(Some(Ok(Message::Close(_))) | None) => return,
        Ok(Some(Ok(_))) => {
            return close(&mut socket, code::UNSUPPORTED, "binary frames only (ClientFrame)").await;
        }
        Ok(Some(Err(e))) => return close(&mut socket, code::TOO_BIG, &format!("{e}")).await,
    };
    // 2. The match: live, or finished (then everything, and the end).
    let Some(handle) = shared.live(&id) else {
        return finished(&mut socket, &shared, &id, since).await;
    };
    let conn = shared.next_conn();
    let (tx, mut rx) = mpsc::channel(limits.max_queued_frames_per_connection);
    let (reply, answer) = oneshot::channel();
    if handle.tx.send(Command::Join { conn, key, since, tx, reply }).await.is_err() {
        return close(&mut socket, code::TRY_LATER, "the match is being stored; reconnect").await;
    }
    let joined = match answer.await {
        Ok(Ok(j)) => j,
        Ok(Err(e)) => return close(&mut socket, code::POLICY, &e.to_string()).await,
        Err(_) => return close(&mut socket, code::TRY_LATER, "the match ended; reconnect").await,
    };
    let mut ok = socket.send(Message::Binary(joined.welcome.into())).await.is_ok();
    for f in joined.catch_up {
        if !ok {
            break;
        }
        ok = socket.send(Message::Binary(f.to_vec().into())).await.is_ok();
    }
    // 3. Frames both ways.
    let rate =
        NonZeroU32::new(limits.max_frames_per_second_per_connection).unwrap_or(NonZeroU32::MIN);
    let limiter: DefaultDirectRateLimiter = RateLimiter::direct(Quota::per_second(rate));
    let mut shutdown = shared.shutdown_signal();
    while ok {
        tokio::select! {
            incoming = socket.next() => match incoming {
                Some(Ok(Message::Binary(b))) => {
                    let arrived = Instant::now();
                    if limiter.check().is_err() {
                        close(&mut socket, code::POLICY, &format!(
                            "more than {} frames per second (max_frames_per_second_per_connection)",
                            limits.max_frames_per_second_per_connection
                        )).await;
                        break;
                    }
                    match ClientFrame::from_canonical(&b) {
                        Ok(ClientFrame::Message(bytes)) => {
                            if handle.tx.send(Command::Message { conn, bytes, arrived }).await.is_err() {
                                close(&mut socket, code::TRY_LATER, "the match has stopped; reconnect").await;
                                break;
                            }
                        }
                        Ok(ClientFrame::Hello { .. }) => {
                            close(&mut socket, code::POLICY, "Hello comes once, first").await;
                            break;
                        }
                        Err(e) => {
                            close(&mut socket, code::POLICY, &format!("bad frame: {e}")).await;
                            break;
                        }
                    }
                }
                Some(Ok(Message::Ping(_) | Message::Pong(_))) => {}
                Some(Ok(Message::Text(_))) => {
                    close(&mut socket, code::UNSUPPORTED, "binary frames only (ClientFrame)").await;
                    break;
                }
                Some(Ok(Message::Close(_))) | None => break,
                Some(Err(e)) => {
                    close(&mut socket, code::TOO_BIG, &format!("{e}")).await;
                    break;
                }
            },
            out = rx.recv() => match out {
                Some(Outgoing::Frame(f)) => {
                    ok = socket.send(Message::Binary(f.to_vec().into())).await.is_ok();
                }
                Some(Outgoing::Close(reason)) => {
                    let c = if reason == "the match is over" { code::NORMAL } else { code::POLICY };
                    close(&mut socket, c, &reason).await;
                    break;
                }
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
    let _ = handle.tx.send(Command::Leave { conn }).await;
}

/// A socket to a match that is not live: if it is finished, every entry after `since` (the
/// record is public once the match is over), then `Finished`.
async fn finished(socket: &mut WebSocket, shared: &Shared, id: &MatchId, since: Option<u64>) {
    let row = match shared.store.get_match(id).await {
        Ok(Some(row)) if row.finish.is_some() => row,
        Ok(Some(_)) => {
            return close(socket, code::TRY_LATER, "the match is not running here; reconnect")
                .await;
        }
        Ok(None) => return close(socket, code::POLICY, "no such match").await,
        Err(e) => return close(socket, code::INTERNAL, &e.to_string()).await,
    };
    let Ok(terms) = protocol::terms::SignedTerms::from_canonical(&row.terms) else {
        return close(socket, code::INTERNAL, "stored terms do not decode").await;
    };
    let entries = match shared.store.entries(id).await {
        Ok(e) => e,
        Err(e) => return close(socket, code::INTERNAL, &e.to_string()).await,
    };
    let from = since.map_or(0, |s| usize::try_from(s).unwrap_or(usize::MAX).saturating_add(1));
    let welcome = ServerFrame::Welcome {
        version: protocol::codec::VERSION,
        match_id: *id,
        terms,
        entries: entries.len() as u64,
        catch_up: entries.len().saturating_sub(from) as u64,
    };
    if socket.send(Message::Binary(welcome.to_canonical().into())).await.is_err() {
        return;
    }
    for bytes in entries.iter().skip(from) {
        let Ok(entry) = protocol::relay::Entry::from_canonical(bytes) else {
            return close(socket, code::INTERNAL, "a stored entry does not decode").await;
        };
        if socket
            .send(Message::Binary(ServerFrame::Entry(entry).to_canonical().into()))
            .await
            .is_err()
        {
            return;
        }
    }
    let done = ServerFrame::Finished { entries: entries.len() as u64 }.to_canonical();
    let _ = socket.send(Message::Binary(done.into())).await;
    close(socket, code::NORMAL, "the match is over").await;
}

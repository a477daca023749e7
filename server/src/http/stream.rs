//! `GET /api/stream/event`: NDJSON, as lichess's. On connect: the key's current games
//! (`gameStart` with their terms), its challenges in and out (`challenge`), terms waiting for
//! its signature (`terms`) and umpire requests (`umpireRequest`); then every new event as it
//! happens, and an empty line every few seconds to keep the connection open.

use crate::admission::lock;
use crate::error::AppError;
use crate::http::extract::Authed;
use crate::state::{Shared, connect};
use axum::body::Body;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

/// How often an idle stream gets an empty line.
const KEEP_ALIVE_SECONDS: u64 = 7;

/// The event stream handler.
pub async fn event_stream(
    State(shared): State<Arc<Shared>>,
    Authed(key): Authed,
) -> Result<Response, AppError> {
    let slot = connect(&shared, Some(key))
        .map_err(|why| AppError::new(StatusCode::TOO_MANY_REQUESTS, why))?;
    // Subscribe first, then read the current state: an event in between comes twice rather
    // than never (clients treat events as idempotent).
    // The server's own umpire service hears of every match (asked for its seat, the terms,
    // the start, the end): at 250 starts per second 256 queued events are one second's, and a
    // dropped stream loses the requests until it reconnects. It is bound by the matches the
    // host holds instead, as on its socket.
    let queued = if shared.config.is_umpire_service(&key) {
        crate::events::MAX_QUEUED_EVENTS.max(4 * shared.config.limits.max_live_matches)
    } else {
        crate::events::MAX_QUEUED_EVENTS
    };
    let rx = shared.events.subscribe(key, queued);
    let mut first: Vec<Value> = Vec::new();
    for h in shared.live_of(&key) {
        let id = lock(&h.info).id.clone();
        if let Ok(Some(row)) = shared.store.get_match(&crate::error::parse_match_id(&id)?).await
            && let Ok(signed) =
                <protocol::terms::SignedTerms as protocol::codec::Canonical>::from_canonical(
                    &row.terms,
                )
        {
            first.push(crate::lobby::game_start(&id, &row.variant, &signed));
        }
    }
    {
        let me = key.to_string();
        let lobby = lock(&shared.lobby);
        for c in lobby.open.values() {
            if c.challenger == me || c.dest.as_deref() == Some(me.as_str()) {
                first.push(json!({ "type": "challenge", "challenge": c.json() }));
            }
        }
        for p in lobby.pending.values().filter(|p| p.parties().contains(&key)) {
            match &p.umpire {
                Some((u, None)) if *u == key => first.push(p.umpire_event()),
                _ => {
                    if !p.signatures.contains_key(&key)
                        && let Some(e) = p.terms_event()
                    {
                        first.push(e);
                    }
                }
            }
        }
    }
    let now = shared.clock.now_ms();
    match crate::services::tournament::reminders(&shared, &key, now).await {
        Ok(events) => first.extend(events),
        Err(e) => tracing::warn!(error = %e.message, "reading a player's tournament invitations"),
    }
    let initial = futures_util::stream::iter(first.into_iter().map(|v| format!("{v}\n")));
    let live = live_lines(rx, shared.shutdown_signal());
    // The slot lives as long as the stream: dropping the response frees it.
    let body = initial.chain(live).map(move |line| {
        let _hold = &slot;
        Ok::<_, std::convert::Infallible>(line)
    });
    Ok(([(header::CONTENT_TYPE, "application/x-ndjson")], Body::from_stream(body)).into_response())
}

/// The live part of a stream: each event as a line, an empty line after a quiet while; it
/// ends when the bus drops the stream (it fell behind: the client reconnects and gets the
/// current state) or the server shuts down.
fn live_lines(
    rx: tokio::sync::mpsc::Receiver<crate::events::Line>,
    shutdown: tokio::sync::watch::Receiver<bool>,
) -> impl futures_util::Stream<Item = String> {
    futures_util::stream::unfold((rx, shutdown), |(mut rx, mut shutdown)| async move {
        if *shutdown.borrow() {
            return None;
        }
        tokio::select! {
            line = tokio::time::timeout(Duration::from_secs(KEEP_ALIVE_SECONDS), rx.recv()) => {
                match line {
                    Ok(Some(line)) => Some((format!("{line}\n"), (rx, shutdown))),
                    Ok(None) => None,
                    Err(_) => Some(("\n".to_owned(), (rx, shutdown))),
                }
            }
            _ = shutdown.changed() => None,
        }
    })
}

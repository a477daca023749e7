//! A cluster node's lease keeper (`fogproof serve --cluster`, docs/SERVER.md, several nodes):
//! every fifth of the lease it renews the leases of the matches running here in one
//! statement ([`crate::store::lease::Leases::renew`]), stops the match tasks whose leases
//! another node took, and takes the leases that have expired on the database's clock (a dead
//! or cut-off node's), resuming each match from its stored entries exactly as a restart does
//! (relay time stands still for `resume_grace_ms`: the gap is charged to nobody).

use crate::live::Command;
use crate::services::live::MatchTask;
use crate::state::{Shared, lock};
use crate::store::lease::MAX_TAKEOVERS_PER_ROUND;
use crate::store::postgres::PostgresStore;
use protocol::MatchId;
use std::sync::Arc;

/// Runs until the server shuts down.
pub async fn run(shared: Arc<Shared>, store: Arc<PostgresStore>) {
    let Some(leases) = store.leases() else { return };
    let mut tick = tokio::time::interval(leases.renew_every());
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut stop = shared.shutdown_signal();
    loop {
        tokio::select! {
            _ = tick.tick() => {}
            _ = stop.changed() => return,
        }
        round(&shared, &store).await;
    }
}

/// One round: renew, stop what was lost, take what expired.
pub async fn round(shared: &Arc<Shared>, store: &Arc<PostgresStore>) {
    let Some(leases) = store.leases() else { return };
    let running = |id: &MatchId| lock(&shared.matches).contains_key(id);
    match leases.renew(store.pool(), &running).await {
        Ok(lost) => {
            for id in lost {
                tracing::warn!(match_id = %crate::store::sqlite::id_text(&id), "another node took this match's lease: stopping it here");
                if let Some(h) = shared.live(&id) {
                    let _ = h.tx.send(Command::Stop).await;
                }
            }
        }
        Err(e) => tracing::warn!(error = %e, "renewing the match leases failed"),
    }
    let taken = match leases.take_expired(store.pool(), MAX_TAKEOVERS_PER_ROUND).await {
        Ok(t) => t,
        Err(e) => {
            tracing::warn!(error = %e, "taking expired match leases failed");
            return;
        }
    };
    for id in taken {
        if let Err(e) = resume(shared, store, id).await {
            let text = crate::store::sqlite::id_text(&id);
            tracing::error!(match_id = %text, error = %e, "could not resume a match taken over");
            let _ = leases.release(store.pool(), None, &id).await;
        }
    }
}

/// Resumes a match whose lease this node has just taken.
async fn resume(
    shared: &Arc<Shared>,
    store: &Arc<PostgresStore>,
    id: MatchId,
) -> Result<(), String> {
    let Some(leases) = store.leases() else { return Ok(()) };
    let row = shared.store.get_match(&id).await.map_err(|e| e.to_string())?;
    let Some(row) = row.filter(|r| r.finish.is_none()) else {
        // Finished (or gone) meanwhile: nothing to serve.
        let row = shared.store.get_match(&id).await.ok().flatten();
        return leases.release(store.pool(), row.as_ref(), &id).await.map_err(|e| e.to_string());
    };
    if shared.live(&id).is_some() {
        return Ok(());
    }
    let entries = shared.store.entries(&id).await.map_err(|e| e.to_string())?;
    let (task, handle) =
        MatchTask::resume(shared.clone(), shared.config.relay.clone(), row, &entries)
            .map_err(|e| e.to_string())?;
    lock(&shared.matches).insert(id, handle);
    tokio::spawn(task.run());
    tracing::info!(match_id = %crate::store::sqlite::id_text(&id), entries = entries.len(), "took over a match");
    Ok(())
}

/// The PostgreSQL channel the nodes' events go through.
pub const EVENTS_CHANNEL: &str = "fogproof_events";

/// The longest event a node publishes (PostgreSQL's NOTIFY payload is at most 8,000 bytes;
/// a longer event reaches the publishing node's streams only, with a warning).
pub const MAX_NOTIFY_BYTES: usize = 7_900;

/// Events waiting to be published (past it an event reaches this node's streams only).
pub const MAX_QUEUED_NOTIFIES: usize = 4_096;

/// The most events one NOTIFY statement carries.
pub const MAX_NOTIFIES_PER_STATEMENT: usize = 256;

/// Events between nodes (docs/SERVER.md, several nodes): every event a node sends to a key's
/// streams is NOTIFYed on [`EVENTS_CHANNEL`] (after the write it tells of has committed: the
/// lobby stores a challenge before its event), and every node LISTENs: it hands the others'
/// events to its own streams of that key, and re-reads from the database each challenge an
/// event names, so an open challenge made on any node can be accepted on any other and one
/// accepted, declined or canceled elsewhere is no longer open here. After a lost LISTEN
/// connection (whose notifications are lost) the open challenges are read again.
pub fn events(shared: &Arc<Shared>, store: &Arc<PostgresStore>) {
    let Some(leases) = store.leases() else { return };
    let node = leases.node();
    let (tx, rx) = tokio::sync::mpsc::channel(MAX_QUEUED_NOTIFIES);
    shared.events.publish_to(tx);
    tokio::spawn(publish(shared.clone(), store.clone(), node, rx));
    tokio::spawn(listen(shared.clone(), store.clone(), node));
}

/// Publishes this node's events, many per statement.
async fn publish(
    shared: Arc<Shared>,
    store: Arc<PostgresStore>,
    node: i64,
    mut rx: tokio::sync::mpsc::Receiver<(protocol::PublicKey, crate::events::Line)>,
) {
    let mut stop = shared.shutdown_signal();
    loop {
        let first = tokio::select! {
            m = rx.recv() => match m { Some(m) => m, None => return },
            _ = stop.changed() => return,
        };
        let mut batch = vec![first];
        while batch.len() < MAX_NOTIFIES_PER_STATEMENT {
            match rx.try_recv() {
                Ok(m) => batch.push(m),
                Err(_) => break,
            }
        }
        let payloads: Vec<String> = batch
            .iter()
            .filter_map(|(key, line)| {
                let p = format!("{{\"n\":{node},\"k\":\"{key}\",\"e\":{line}}}");
                if p.len() > MAX_NOTIFY_BYTES {
                    tracing::warn!(%key, bytes = p.len(), "an event too long to NOTIFY reaches this node only");
                    return None;
                }
                Some(p)
            })
            .collect();
        let sent = sqlx::query("SELECT pg_notify($1, p) FROM unnest($2::text[]) AS p")
            .bind(EVENTS_CHANNEL)
            .bind(&payloads)
            .execute(store.pool())
            .await;
        if let Err(e) = sent {
            tracing::warn!(error = %e, events = payloads.len(), "publishing events to the other nodes failed");
        }
    }
}

/// Hands the other nodes' events to this node's streams, and keeps its open challenges in
/// step with the database.
async fn listen(shared: Arc<Shared>, store: Arc<PostgresStore>, node: i64) {
    let mut stop = shared.shutdown_signal();
    let mut backoff = std::time::Duration::from_millis(100);
    loop {
        let mut listener = match sqlx::postgres::PgListener::connect_with(store.pool()).await {
            Ok(l) => l,
            Err(e) => {
                tracing::warn!(error = %e, "LISTEN for the other nodes' events: no connection");
                tokio::select! {
                    () = tokio::time::sleep(backoff) => {}
                    _ = stop.changed() => return,
                }
                backoff = (backoff * 2).min(std::time::Duration::from_secs(5));
                continue;
            }
        };
        if let Err(e) = listener.listen(EVENTS_CHANNEL).await {
            tracing::warn!(error = %e, "LISTEN for the other nodes' events failed");
            tokio::select! {
                () = tokio::time::sleep(backoff) => {}
                _ = stop.changed() => return,
            }
            backoff = (backoff * 2).min(std::time::Duration::from_secs(5));
            continue;
        }
        backoff = std::time::Duration::from_millis(100);
        // What was missed before LISTEN took effect (or while the connection was lost).
        if let Err(e) = crate::services::lobby::restore(&shared).await {
            tracing::warn!(error = %e, "reading the open challenges again failed");
        }
        let mut last: Option<(String, String)> = None;
        loop {
            let n = tokio::select! {
                n = listener.try_recv() => n,
                _ = stop.changed() => return,
            };
            match n {
                Ok(Some(n)) => heard(&shared, &store, node, n.payload(), &mut last).await,
                // The connection was lost (and is made again): read the lobby again.
                Ok(None) => {
                    if let Err(e) = crate::services::lobby::restore(&shared).await {
                        tracing::warn!(error = %e, "reading the open challenges again failed");
                    }
                }
                Err(e) => {
                    tracing::warn!(error = %e, "LISTEN for the other nodes' events broke");
                    break;
                }
            }
        }
    }
}

/// One event another node published: to this node's streams of its key; a challenge it names
/// read again (once per event, whatever the number of keys it went to).
async fn heard(
    shared: &Arc<Shared>,
    store: &Arc<PostgresStore>,
    node: i64,
    payload: &str,
    last: &mut Option<(String, String)>,
) {
    let Ok(v) = serde_json::from_str::<serde_json::Value>(payload) else { return };
    if v["n"].as_i64() == Some(node) {
        return;
    }
    let Some(key) = v["k"].as_str().and_then(|k| k.parse::<protocol::PublicKey>().ok()) else {
        return;
    };
    let event = &v["e"];
    // The lobby first, then the streams: a player told of a challenge can accept it here.
    resync(shared, store, event, last).await;
    // This node's in-process umpire service and house bot serve its own lobby only.
    let local = shared.config.cluster.as_ref().is_some_and(|c| c.local_services.contains(&key));
    if !local {
        shared.events.deliver_local(&key, event.to_string().into());
    }
}

/// Reads again the challenge an event names, if it is about one (once per event).
async fn resync(
    shared: &Arc<Shared>,
    store: &Arc<PostgresStore>,
    event: &serde_json::Value,
    last: &mut Option<(String, String)>,
) {
    let kind = event["type"].as_str().unwrap_or_default();
    let id = event["challenge"]["id"].as_str().or_else(|| event["id"].as_str());
    let Some(id) = id.filter(|_| {
        matches!(
            kind,
            "challenge" | "challengeCanceled" | "challengeDeclined" | "umpireRequest" | "terms"
        )
    }) else {
        return;
    };
    let seen = (kind.to_owned(), id.to_owned());
    if last.as_ref() == Some(&seen) {
        return;
    }
    *last = Some(seen);
    match store.challenge(id).await {
        Ok(Some(row)) if row.status == "open" => {
            if let Ok(c) = serde_json::from_str::<crate::lobby::Challenge>(&row.body) {
                lock(&shared.lobby).open.entry(c.id.clone()).or_insert(c);
            }
        }
        Ok(_) => {
            lock(&shared.lobby).open.remove(id);
        }
        Err(e) => tracing::warn!(error = %e, "reading a challenge another node changed failed"),
    }
}

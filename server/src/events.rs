//! Each key's event stream (`GET /api/stream/event`, NDJSON, as lichess's): challenges made,
//! canceled and declined, terms to sign, umpire requests, games started and finished.
//!
//! A stream is a bounded queue; a stream that does not keep up is dropped (its client
//! reconnects and gets the current state again), so a slow reader never holds the server.
//!
//! On a cluster node every event sent here is also handed to the node's publisher
//! ([`EventBus::publish_to`]), which NOTIFYs the other nodes through PostgreSQL
//! (`crate::cluster::events`); what they publish comes back through
//! [`EventBus::deliver_local`], so a key's streams hear of its events whichever node it
//! streams from.

use protocol::PublicKey;
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use tokio::sync::mpsc;

/// Events queued to one stream before it is dropped.
pub const MAX_QUEUED_EVENTS: usize = 256;

/// One event line (JSON, no newline).
pub type Line = Arc<str>;

/// Every open event stream, by key.
#[derive(Debug, Default)]
pub struct EventBus {
    streams: Mutex<BTreeMap<PublicKey, Vec<mpsc::Sender<Line>>>>,
    /// A cluster node's publisher of its events to the other nodes (none: one server).
    publish: std::sync::OnceLock<mpsc::Sender<(PublicKey, Line)>>,
}

impl EventBus {
    /// Opens a stream for `key` that holds at most `queued` events ([`MAX_QUEUED_EVENTS`]
    /// for anyone but the server's own umpire service, which hears of every match).
    pub fn subscribe(&self, key: PublicKey, queued: usize) -> mpsc::Receiver<Line> {
        let (tx, rx) = mpsc::channel(queued.max(1));
        let mut streams = self.streams.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        streams.entry(key).or_default().push(tx);
        rx
    }

    /// Hands every event sent from now on to `tx` as well (a cluster node's publisher; its
    /// queue is bounded: an event it has no room for reaches this node's streams only).
    pub fn publish_to(&self, tx: mpsc::Sender<(PublicKey, Line)>) {
        let _ = self.publish.set(tx);
    }

    /// Sends `event` to every stream of `key` (dropping those that are full or closed), and
    /// to the other nodes of a cluster.
    pub fn send(&self, key: &PublicKey, event: &Value) {
        let line: Line = event.to_string().into();
        if let Some(tx) = self.publish.get()
            && tx.try_send((*key, line.clone())).is_err()
        {
            tracing::warn!(%key, "the cluster's event queue is full: an event reaches this node only");
        }
        self.deliver_local(key, line);
    }

    /// Sends an event line to this node's streams of `key` only (one another node published).
    pub fn deliver_local(&self, key: &PublicKey, line: Line) {
        let mut streams = self.streams.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(list) = streams.get_mut(key) {
            list.retain(|tx| tx.try_send(line.clone()).is_ok());
            if list.is_empty() {
                streams.remove(key);
            }
        }
    }

    /// Sends `event` to each of `keys` once.
    pub fn send_all<'a>(&self, keys: impl IntoIterator<Item = &'a PublicKey>, event: &Value) {
        let mut done = std::collections::BTreeSet::new();
        for k in keys {
            if done.insert(*k) {
                self.send(k, event);
            }
        }
    }

    /// Whether `key` has a stream open (a house bot or umpire service is listening).
    pub fn is_listening(&self, key: &PublicKey) -> bool {
        let streams = self.streams.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        streams.get(key).is_some_and(|l| l.iter().any(|tx| !tx.is_closed()))
    }
}

//! Each key's event stream (`GET /api/stream/event`, NDJSON, as lichess's): challenges made,
//! canceled and declined, terms to sign, umpire requests, games started and finished.
//!
//! A stream is a bounded queue; a stream that does not keep up is dropped (its client
//! reconnects and gets the current state again), so a slow reader never holds the server.

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

    /// Sends `event` to every stream of `key` (dropping those that are full or closed).
    pub fn send(&self, key: &PublicKey, event: &Value) {
        let line: Line = event.to_string().into();
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

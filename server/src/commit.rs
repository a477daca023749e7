//! Group commit: every match task hands its new entries to one committer, which writes all
//! that are waiting in one transaction and then acknowledges each. A match task sends no
//! receipt before its acknowledgement, so a receipt always names a stored entry; under load,
//! one fsync serves many matches.

use crate::store::{EntryRow, Store, StoreError};
use std::sync::Arc;
use tokio::sync::{mpsc, oneshot};

/// The most entries one transaction takes (the rest wait for the next).
const MAX_BATCH_ENTRIES: usize = 4096;

type Ack = oneshot::Sender<Result<(), Arc<StoreError>>>;

/// A handle to the committer task.
#[derive(Clone, Debug)]
pub struct Committer {
    tx: mpsc::Sender<(Vec<EntryRow>, Ack)>,
}

impl Committer {
    /// Starts the committer over `store`.
    pub fn start(store: Arc<dyn Store>) -> Committer {
        let (tx, rx) = mpsc::channel(MAX_BATCH_ENTRIES);
        tokio::spawn(run(store, rx));
        Committer { tx }
    }

    /// Entry batches waiting for the committer (the storage work the host has queued; the
    /// admission limit `max_pending_commits` reads it).
    pub fn queued(&self) -> usize {
        self.tx.max_capacity().saturating_sub(self.tx.capacity())
    }

    /// Stores `rows`; returns once they are committed (or the commit failed).
    pub async fn commit(&self, rows: Vec<EntryRow>) -> Result<(), Arc<StoreError>> {
        if rows.is_empty() {
            return Ok(());
        }
        let (ack, done) = oneshot::channel();
        let stopped = || Arc::new(StoreError::Database("the committer has stopped".into()));
        self.tx.send((rows, ack)).await.map_err(|_| stopped())?;
        done.await.map_err(|_| stopped())?
    }
}

async fn run(store: Arc<dyn Store>, mut rx: mpsc::Receiver<(Vec<EntryRow>, Ack)>) {
    while let Some(first) = rx.recv().await {
        let mut batch = vec![first];
        let mut count = batch[0].0.len();
        while count < MAX_BATCH_ENTRIES {
            match rx.try_recv() {
                Ok(more) => {
                    count += more.0.len();
                    batch.push(more);
                }
                Err(_) => break,
            }
        }
        let rows: Vec<EntryRow> = batch.iter().flat_map(|(r, _)| r.iter().cloned()).collect();
        let started = std::time::Instant::now();
        let result = store.append_entries(&rows).await.map_err(Arc::new);
        metrics::histogram!(crate::metrics::COMMIT_SECONDS).record(started.elapsed());
        metrics::counter!(crate::metrics::ENTRIES_COMMITTED).increment(rows.len() as u64);
        if let Err(e) = &result {
            tracing::error!(error = %e, entries = rows.len(), "commit failed");
        }
        for (_, ack) in batch {
            let _ = ack.send(result.clone());
        }
    }
}

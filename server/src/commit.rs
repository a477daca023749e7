//! Group commit: every match task hands its new entries to one committer, and the lobby and
//! the match start their challenge rows and new matches, which writes all that are waiting in
//! one transaction (one commit, one fsync) and then acknowledges each. A match task sends no
//! receipt before its acknowledgement, so a receipt always names a stored entry; a match
//! starts only once its row and first entries are stored; under load, one fsync serves many
//! matches and many match starts.

use crate::store::{EntryRow, Store, StoreError, Write};
use std::sync::Arc;
use tokio::sync::{mpsc, oneshot};

/// The most entries one transaction takes (the rest wait for the next); a challenge or a new
/// match counts as one.
const MAX_BATCH_ENTRIES: usize = 4096;

type Ack = oneshot::Sender<Result<(), Arc<StoreError>>>;

/// A handle to the committer task.
#[derive(Clone, Debug)]
pub struct Committer {
    tx: mpsc::Sender<(Write, Ack)>,
}

impl Committer {
    /// Starts the committer over `store`.
    pub fn start(store: Arc<dyn Store>) -> Committer {
        let (tx, rx) = mpsc::channel(MAX_BATCH_ENTRIES);
        tokio::spawn(run(store, rx));
        Committer { tx }
    }

    /// Writes waiting for the committer (the storage work the host has queued; the admission
    /// limit `max_pending_commits` reads it).
    pub fn queued(&self) -> usize {
        self.tx.max_capacity().saturating_sub(self.tx.capacity())
    }

    /// Stores `rows`; returns once they are committed (or the commit failed).
    pub async fn commit(&self, rows: Vec<EntryRow>) -> Result<(), Arc<StoreError>> {
        if rows.is_empty() {
            return Ok(());
        }
        self.write(Write::Entries(rows)).await
    }

    /// Stores one write in the next group commit; returns once it is committed (or failed).
    pub async fn write(&self, write: Write) -> Result<(), Arc<StoreError>> {
        let (ack, done) = oneshot::channel();
        let stopped = || Arc::new(StoreError::Database("the committer has stopped".into()));
        self.tx.send((write, ack)).await.map_err(|_| stopped())?;
        done.await.map_err(|_| stopped())?
    }
}

fn weight(w: &Write) -> usize {
    match w {
        Write::Entries(rows) => rows.len(),
        Write::Match(..) | Write::Challenge(_) => 1,
    }
}

async fn run(store: Arc<dyn Store>, mut rx: mpsc::Receiver<(Write, Ack)>) {
    while let Some((write, ack)) = rx.recv().await {
        let mut count = weight(&write);
        let (mut writes, mut acks) = (vec![write], vec![ack]);
        while count < MAX_BATCH_ENTRIES {
            match rx.try_recv() {
                Ok((w, a)) => {
                    count += weight(&w);
                    writes.push(w);
                    acks.push(a);
                }
                Err(_) => break,
            }
        }
        let entries: usize =
            writes.iter().map(|w| if let Write::Entries(r) = w { r.len() } else { 0 }).sum();
        let started = std::time::Instant::now();
        let result = store.write_batch(&writes).await.map_err(Arc::new);
        metrics::histogram!(crate::metrics::COMMIT_SECONDS).record(started.elapsed());
        if let Err(e) = &result {
            tracing::error!(error = %e, writes = writes.len(), "commit failed");
        }
        if result.is_err() && writes.len() > 1 {
            // One bad write (a match stored twice) must not fail the others': each alone.
            let mut stored = 0;
            for (w, ack) in writes.iter().zip(acks) {
                let alone = store.write_batch(std::slice::from_ref(w)).await.map_err(Arc::new);
                if alone.is_ok() {
                    stored += if let Write::Entries(r) = w { r.len() } else { 0 };
                }
                let _ = ack.send(alone);
            }
            metrics::counter!(crate::metrics::ENTRIES_COMMITTED).increment(stored as u64);
            continue;
        }
        if result.is_ok() {
            metrics::counter!(crate::metrics::ENTRIES_COMMITTED).increment(entries as u64);
        }
        for ack in acks {
            let _ = ack.send(result.clone());
        }
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::sqlite::SqliteStore;
    use crate::store::{ChallengeRow, MatchRow, MatchStatus};
    use protocol::{Identity, MatchId};

    fn new_match(id: MatchId, k: protocol::PublicKey) -> Write {
        let row = MatchRow {
            id,
            terms: vec![1, 2, 3],
            variant: "chess".into(),
            players: [k, k],
            rated: false,
            challenge: Some(format!("c{}", id.0[0])),
            created_ms: 5,
            status: MatchStatus::Live,
            finish: None,
        };
        Write::Match(row, vec![EntryRow { match_id: id, seq: 0, bytes: vec![id.0[0]; 3] }])
    }

    /// Writes sent at once share group commits, and one bad write (a match stored twice)
    /// fails only itself: the others in its group are stored.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn starts_and_challenges_share_group_commits_and_a_bad_write_fails_alone() {
        let dir = std::env::temp_dir().join(format!("fogproof-commit-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let store = Arc::new(SqliteStore::open(&dir).await.expect("store"));
        let committer = Committer::start(store.clone());
        let k = Identity::from_seed(&[4; 32]).public();
        committer.write(new_match(MatchId([1; 32]), k)).await.expect("the first match");
        let challenge = |n: u8| {
            Write::Challenge(ChallengeRow {
                id: format!("c{n}"),
                challenger: k,
                status: "open".into(),
                body: "{}".into(),
                created_ms: 1,
            })
        };
        let mut writes = vec![new_match(MatchId([1; 32]), k)];
        for n in 2..40u8 {
            writes.push(new_match(MatchId([n; 32]), k));
            writes.push(challenge(n));
        }
        let entry = EntryRow { match_id: MatchId([1; 32]), seq: 1, bytes: vec![9] };
        writes.push(Write::Entries(vec![entry]));
        let results = futures_util::future::join_all(writes.into_iter().map(|w| {
            let c = committer.clone();
            async move { c.write(w).await }
        }))
        .await;
        assert!(results[0].is_err(), "the match stored twice is refused");
        assert!(results[1..].iter().all(Result::is_ok), "{results:?}");
        assert_eq!(store.live_matches().await.expect("matches").len(), 39);
        assert_eq!(store.entries(&MatchId([1; 32])).await.expect("entries").len(), 2);
        assert_eq!(store.entries(&MatchId([39; 32])).await.expect("entries").len(), 1);
        let open = store.open_challenges().await.expect("challenges");
        assert_eq!(open.len(), 38);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

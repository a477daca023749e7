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

/// Under load (the last group commit carried writes of several tasks), how long at most the
/// committer waits for more writes before it commits: the last commit's own duration, at most
/// this. A commit's fixed work (its `fsync`, its WAL pages) is then shared by more entries;
/// a lone write (no load) is committed at once.
const MAX_GATHER: std::time::Duration = std::time::Duration::from_millis(5);

/// Under load, how long at least the committer waits for more writes: a commit's fixed work
/// (its `fsync` and WAL pages, a quarter of the server's CPU at 1,900 messages/s on the 2-core
/// machine) is then shared by about twice the entries it was when the window was a sub-ms
/// commit's own duration, for about 2 ms more on a receipt's median and nothing measurable on
/// its p99 (docs/LOADTEST.md, stop 27).
const MIN_GATHER: std::time::Duration = std::time::Duration::from_millis(2);

/// The entries after which the committer stops gathering (it commits at once).
const GATHER_ENTRIES: usize = 64;

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

/// How long the committer waits for more writes after the last commit carried `writes` writes
/// and took `took`: not at all after a lone write (no load: it commits at once), else the last
/// commit's own duration, at least [`MIN_GATHER`] and at most [`MAX_GATHER`] (under load the
/// writes that would have waited for the next commit share this one's fixed work).
fn gather_window(writes: usize, took: std::time::Duration) -> Option<std::time::Duration> {
    (writes > 1).then(|| took.clamp(MIN_GATHER, MAX_GATHER))
}

async fn run(store: Arc<dyn Store>, mut rx: mpsc::Receiver<(Write, Ack)>) {
    // The last commit's writes and how long it took.
    let mut last = (0usize, std::time::Duration::ZERO);
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
        if let Some(window) = gather_window(last.0, last.1)
            && count < GATHER_ENTRIES
        {
            let until = tokio::time::Instant::now() + window;
            while count < GATHER_ENTRIES {
                match tokio::time::timeout_at(until, rx.recv()).await {
                    Ok(Some((w, a))) => {
                        count += weight(&w);
                        writes.push(w);
                        acks.push(a);
                    }
                    Ok(None) | Err(_) => break,
                }
            }
        }
        let entries: usize =
            writes.iter().map(|w| if let Write::Entries(r) = w { r.len() } else { 0 }).sum();
        let started = std::time::Instant::now();
        let result = store.write_batch(&writes).await.map_err(Arc::new);
        last = (writes.len(), started.elapsed());
        metrics::histogram!(crate::metrics::COMMIT_SECONDS).record(last.1);
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
    use crate::store::postgres::PostgresStore;
    use crate::store::sqlite::SqliteStore;
    use crate::store::suite::{entry, expire, finish, live, postgres_url};
    use crate::store::{ChallengeRow, MatchRow, MatchStatus};
    use protocol::{Identity, MatchId};
    use sqlx::Connection as _;
    use sqlx::postgres::PgConnection;

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

    #[test]
    fn a_lone_write_is_committed_at_once_and_a_busy_committer_gathers_between_min_and_max_gather() {
        let ms = std::time::Duration::from_millis;
        assert_eq!(gather_window(0, ms(0)), None, "the first write");
        assert_eq!(gather_window(1, ms(3)), None, "after a lone write: no load");
        assert_eq!(gather_window(2, ms(3)), Some(ms(3)), "the last commit's duration");
        assert_eq!(gather_window(2, ms(0)), Some(MIN_GATHER), "at least MIN_GATHER");
        assert_eq!(gather_window(40, ms(30)), Some(MAX_GATHER), "at most MAX_GATHER");
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

    /// PostgreSQL only, several nodes (`serve --cluster`): a node holds the lease of each match it
    /// creates; another node takes a lease only once it has expired on the database's clock,
    /// raising its epoch; the old owner's commits for that match then fail (in a group commit
    /// too, where its other matches' entries are stored), its other matches are unaffected, its
    /// renewal reports the lease lost, and the new owner carries on from what was committed. A
    /// single-owner server is refused while nodes run.
    #[tokio::test]
    async fn postgres_cluster_a_node_that_lost_a_match_lease_commits_nothing_more_for_it() {
        let Some(url) = postgres_url("leases").await else { return };
        let a =
            std::sync::Arc::new(PostgresStore::open_node(&url, "http://a", 60_000).await.unwrap());
        let b = PostgresStore::open_node(&url, "http://b", 60_000).await.expect("a second node");
        let refused = PostgresStore::open(&url).await.expect_err("no single owner beside nodes");
        assert!(refused.to_string().contains("in use by another fogproof server"), "{refused}");
        let (la, lb) = (a.leases().unwrap(), b.leases().unwrap());
        assert_ne!(la.node(), lb.node());
        let (m1, m2) = (MatchId([1; 32]), MatchId([2; 32]));
        for id in [m1, m2] {
            a.create_match(&live(id, 1), &[entry(id, 0, 0)]).await.unwrap();
        }
        assert!(la.holds(&m1) && la.holds(&m2) && !lb.holds(&m1));
        // Nothing has expired: B takes nothing, and cannot write for a match it does not hold.
        assert!(lb.take_expired(b.pool(), 10).await.unwrap().is_empty());
        let e = b.append_entries(&[entry(m1, 1, 9)]).await.expect_err("B holds no lease");
        assert!(e.to_string().contains("no longer holds its lease"), "{e}");
        assert_eq!(lb.owner_url(b.pool(), &m1).await.unwrap().as_deref(), Some("http://a"));

        // A stops renewing m1 (cut off from the database, say): its lease expires, B takes it.
        let mut admin = PgConnection::connect(&url).await.unwrap();
        expire(&mut admin, &m1).await;
        assert_eq!(lb.take_expired(b.pool(), 10).await.unwrap(), [m1]);
        let epoch: i64 = sqlx::query_scalar("SELECT epoch FROM match_leases WHERE match_id = $1")
            .bind(crate::store::sqlite::id_text(&m1))
            .fetch_one(&mut admin)
            .await
            .unwrap();
        assert_eq!(epoch, 2, "a takeover raises the epoch");
        assert!(la.holds(&m1), "A does not know yet");
        // A's group commit of both matches: m1's write fails, m2's is stored.
        let committer = Committer::start(a.clone());
        let (one, two) = tokio::join!(
            committer.commit(vec![entry(m1, 1, 1)]),
            committer.commit(vec![entry(m2, 1, 2)])
        );
        let e = one.expect_err("the old owner of m1 is fenced");
        // (The group failed on m1's lease, "another node took it", then m1 alone: "not held".)
        assert!(e.to_string().contains("no longer holds its lease"), "{e}");
        two.expect("the old owner's other match goes on");
        assert!(!la.holds(&m1));
        // B carries on from what was committed; A's m1 entry is nowhere.
        b.append_entries(&[entry(m1, 1, 11)]).await.unwrap();
        assert_eq!(b.entries(&m1).await.unwrap(), vec![vec![0], vec![11]]);
        assert_eq!(a.entries(&m2).await.unwrap(), vec![vec![0], vec![2]]);
        assert_eq!(la.owner_url(a.pool(), &m1).await.unwrap().as_deref(), Some("http://b"));

        // A renewal reports a lease taken meanwhile as lost.
        expire(&mut admin, &m2).await;
        assert_eq!(lb.take_expired(b.pool(), 10).await.unwrap(), [m2]);
        assert_eq!(la.renew(a.pool(), &|_| true).await.unwrap(), [m2]);
        assert!(la.held().is_empty());
        // The owner's finish removes the lease: nobody takes a finished match over.
        b.finish_match(&m2, &finish(9)).await.unwrap();
        expire(&mut admin, &m1).await;
        assert!(la.take_expired(a.pool(), 10).await.unwrap() == [m1]);
        let e = b.finish_match(&m1, &finish(10)).await.expect_err("B lost m1 to A");
        assert!(e.to_string().contains("no longer holds its lease"), "{e}");
        let left: i64 = sqlx::query_scalar("SELECT count(*) FROM match_leases")
            .fetch_one(&mut admin)
            .await
            .unwrap();
        assert_eq!(left, 1, "m2's lease went with its finish");
    }
}

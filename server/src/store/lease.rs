//! Match leases: several `fogproof serve --cluster` nodes on one PostgreSQL database, each live
//! match owned by one node at a time (docs/SERVER.md, several nodes).
//!
//! A match's row in `match_leases (match_id, node, epoch, expires_at)` says which node owns it
//! and until when. **Expiry is read on the database's clock only** (`now()`): the nodes'
//! clocks never decide ownership. The owner renews all its leases in one statement per round
//! ([`Leases::renew`], every `lease_ms / 5`); another node takes a lease only once it has
//! expired, raising its **epoch** ([`Leases::take_expired`]: `UPDATE … SET node = $me, epoch =
//! epoch + 1 WHERE expires_at < now()`), and then resumes the match from its stored entries.
//!
//! **Fencing.** Every write of a match's entries (the group commit), its finish, runs in a
//! transaction that first reads the match's lease `FOR SHARE` and commits only if the row still
//! names this node at the epoch it took ([`Leases::fence`]). A takeover's `UPDATE` conflicts
//! with that lock, so it is ordered entirely before the commit (which then finds another node
//! or epoch and fails) or entirely after it (and the new owner, which reads the entries after
//! taking the lease, holds the committed entries). A receipt leaves only after its entry's
//! commit, so a node that lost a lease sends no receipt the new owner lacks, whatever the
//! clocks and the network do. The node's own **monotonic deadline** (the start of the last
//! renewal that succeeded, plus the lease, less a fifth) stops it committing, so receipting,
//! before the database's expiry even while the database cannot be reached.
//!
//! Advisory locks were not used per match: they belong to a session (a pool's few sessions
//! would hold 100,000 locks, and a lost session frees them all at an instant the node does not
//! learn of) and carry no token to fence a commit already under way.

use super::sqlite::{id_text, match_id};
use super::{MatchRow, StoreError};
use protocol::MatchId;
use sqlx::postgres::PgConnection;
use sqlx::{PgPool, Row};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The cluster's tables (PostgreSQL only; created with the schema).
pub const SCHEMA: [&str; 4] = [
    "CREATE TABLE IF NOT EXISTS nodes (
        id BIGSERIAL PRIMARY KEY,
        url TEXT COLLATE \"C\" NOT NULL,
        pid BIGINT NOT NULL,
        host TEXT COLLATE \"C\" NOT NULL,
        heartbeat TIMESTAMPTZ NOT NULL)",
    "CREATE TABLE IF NOT EXISTS match_leases (
        match_id TEXT COLLATE \"C\" PRIMARY KEY,
        node BIGINT NOT NULL,
        epoch BIGINT NOT NULL,
        expires_at TIMESTAMPTZ NOT NULL)",
    "CREATE INDEX IF NOT EXISTS match_leases_expiry ON match_leases (expires_at)",
    // One leader per role among the nodes (the ledger appender): `crate::leader`.
    "CREATE TABLE IF NOT EXISTS leaders (
        role TEXT COLLATE \"C\" PRIMARY KEY,
        node BIGINT NOT NULL,
        epoch BIGINT NOT NULL,
        expires_at TIMESTAMPTZ NOT NULL)",
];

/// The default lease (`serve --lease-ms`): a dead node's matches are taken within about this.
pub const DEFAULT_LEASE_MS: u64 = 5_000;

/// The fewest ms a lease may be (renewals run every fifth of it).
pub const MIN_LEASE_MS: u64 = 500;

/// The most expired leases one round takes (`MAX_TAKEOVERS_PER_ROUND`): a node that takes over
/// a dead node's thousands of matches resumes them a batch per round, not all at once.
pub const MAX_TAKEOVERS_PER_ROUND: u32 = 256;

/// How long a lease this node holds may have no running match before it is let go (a match
/// being created or resumed is registered within this).
pub const RELEASE_GRACE_MS: u64 = 10_000;

/// One lease this node holds.
#[derive(Clone, Copy, Debug)]
struct Held {
    epoch: i64,
    /// Commits for the match stop at this instant unless a renewal moves it.
    deadline: Instant,
    /// When this node took it.
    since: Instant,
}

/// A cluster node's leases.
#[derive(Debug)]
pub struct Leases {
    node: i64,
    lease_ms: u64,
    held: Mutex<BTreeMap<MatchId, Held>>,
}

fn db(e: sqlx::Error) -> StoreError {
    StoreError::Database(e.to_string())
}

fn lost(id: &MatchId, why: &str) -> StoreError {
    StoreError::Database(format!(
        "match {}: this node no longer holds its lease ({why}): another node serves it; nothing \
         more is stored or receipted here",
        id_text(id)
    ))
}

fn lock(
    held: &Mutex<BTreeMap<MatchId, Held>>,
) -> std::sync::MutexGuard<'_, BTreeMap<MatchId, Held>> {
    held.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Leases {
    pub(crate) fn new(node: i64, lease_ms: u64) -> Leases {
        Leases { node, lease_ms: lease_ms.max(MIN_LEASE_MS), held: Mutex::new(BTreeMap::new()) }
    }

    /// This node's id in `nodes`.
    pub fn node(&self) -> i64 {
        self.node
    }

    /// The lease, in ms.
    pub fn lease_ms(&self) -> u64 {
        self.lease_ms
    }

    /// How often the owner renews (a fifth of the lease).
    pub fn renew_every(&self) -> Duration {
        Duration::from_millis(self.lease_ms / 5)
    }

    /// The local deadline of a lease renewed by a statement sent at `sent`: the lease less a
    /// fifth, so the node stops before the database's `expires_at` (set after `sent`).
    fn deadline(&self, sent: Instant) -> Instant {
        sent + Duration::from_millis(self.lease_ms - self.lease_ms / 5)
    }

    /// Whether this node holds `id`'s lease and its deadline has not passed.
    pub fn holds(&self, id: &MatchId) -> bool {
        lock(&self.held).get(id).is_some_and(|h| Instant::now() < h.deadline)
    }

    /// The matches whose leases this node holds.
    pub fn held(&self) -> Vec<MatchId> {
        lock(&self.held).keys().copied().collect()
    }

    fn interval(&self) -> i64 {
        i64::try_from(self.lease_ms).unwrap_or(i64::MAX)
    }

    /// Inside a write's transaction: checks that this node still holds the lease of every
    /// match in `ids` at its epoch (the rows read `FOR SHARE`, so no takeover can commit
    /// before this transaction ends). A lease found lost is forgotten.
    pub(crate) async fn fence(
        &self,
        tx: &mut PgConnection,
        ids: &BTreeSet<MatchId>,
    ) -> Result<(), StoreError> {
        if ids.is_empty() {
            return Ok(());
        }
        let now = Instant::now();
        let mut expect = BTreeMap::new();
        {
            let held = lock(&self.held);
            for id in ids {
                match held.get(id) {
                    Some(h) if now < h.deadline => {
                        expect.insert(id_text(id), (*id, h.epoch));
                    }
                    Some(_) => return Err(lost(id, "its local deadline passed without a renewal")),
                    None => return Err(lost(id, "not held")),
                }
            }
        }
        let texts: Vec<String> = expect.keys().cloned().collect();
        let rows = sqlx::query(
            "SELECT match_id, epoch FROM match_leases WHERE node = $1 AND match_id = ANY($2)
             FOR SHARE",
        )
        .bind(self.node)
        .bind(&texts)
        .fetch_all(&mut *tx)
        .await
        .map_err(db)?;
        let mut found = BTreeMap::new();
        for r in &rows {
            found.insert(
                r.try_get::<String, _>("match_id").map_err(db)?,
                r.try_get::<i64, _>("epoch").map_err(db)?,
            );
        }
        for (text, (id, epoch)) in &expect {
            if found.get(text) != Some(epoch) {
                lock(&self.held).remove(id);
                return Err(lost(id, "another node took it"));
            }
        }
        Ok(())
    }

    /// Inside a new match's transaction: its lease, epoch 1, for this node.
    pub(crate) async fn insert(
        &self,
        tx: &mut PgConnection,
        id: &MatchId,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO match_leases (match_id, node, epoch, expires_at)
             VALUES ($1, $2, 1, now() + $3::float8 * interval '1 millisecond')",
        )
        .bind(id_text(id))
        .bind(self.node)
        .bind(self.interval())
        .execute(tx)
        .await
        .map(drop)
        .map_err(db)
    }

    /// After a new match's transaction committed (begun at `began`): the node holds it.
    pub(crate) fn created(&self, id: MatchId, began: Instant) {
        let h = Held { epoch: 1, deadline: self.deadline(began), since: began };
        lock(&self.held).insert(id, h);
    }

    /// Inside a finished match's transaction: its lease goes (it is fenced first).
    pub(crate) async fn finish(
        &self,
        tx: &mut PgConnection,
        id: &MatchId,
    ) -> Result<(), StoreError> {
        sqlx::query("DELETE FROM match_leases WHERE match_id = $1 AND node = $2")
            .bind(id_text(id))
            .bind(self.node)
            .execute(tx)
            .await
            .map(drop)
            .map_err(db)
    }

    /// After a finished match's transaction committed.
    pub(crate) fn forget(&self, id: &MatchId) {
        lock(&self.held).remove(id);
    }

    /// Renews, in one statement, the leases of the held matches that `running` says run here
    /// (and those taken within [`RELEASE_GRACE_MS`], which are being started), and the node's
    /// heartbeat; lets the others go (their rows expire at once, for any node to take).
    /// Returns the matches whose leases were lost (another node took them).
    pub async fn renew(
        &self,
        pool: &PgPool,
        running: &(dyn Fn(&MatchId) -> bool + Sync),
    ) -> Result<Vec<MatchId>, StoreError> {
        let sent = Instant::now();
        let grace = Duration::from_millis(RELEASE_GRACE_MS);
        let (keep, release): (Vec<_>, Vec<_>) = {
            let held = lock(&self.held);
            held.iter()
                .map(|(id, h)| (*id, running(id) || sent.duration_since(h.since) < grace))
                .partition(|(_, k)| *k)
        };
        let asked: BTreeSet<MatchId> = keep.iter().map(|(id, _)| *id).collect();
        let keep: Vec<String> = keep.iter().map(|(id, _)| id_text(id)).collect();
        let release: Vec<String> = release.iter().map(|(id, _)| id_text(id)).collect();
        let rows = sqlx::query(
            "WITH hb AS (UPDATE nodes SET heartbeat = now() WHERE id = $1),
             gone AS (UPDATE match_leases SET expires_at = now() - interval '1 millisecond'
                      WHERE node = $1 AND match_id = ANY($4))
             UPDATE match_leases SET expires_at = now() + $3::float8 * interval '1 millisecond'
             WHERE node = $1 AND match_id = ANY($2) RETURNING match_id, epoch",
        )
        .bind(self.node)
        .bind(&keep)
        .bind(self.interval())
        .bind(&release)
        .fetch_all(pool)
        .await
        .map_err(db)?;
        let mut renewed = BTreeMap::new();
        for r in &rows {
            let id = match_id(&r.try_get::<String, _>("match_id").map_err(db)?)?;
            renewed.insert(id, r.try_get::<i64, _>("epoch").map_err(db)?);
        }
        let deadline = self.deadline(sent);
        let mut out = Vec::new();
        let mut held = lock(&self.held);
        for text in &release {
            if let Ok(id) = match_id(text) {
                held.remove(&id);
            }
        }
        let ids: Vec<MatchId> = held.keys().copied().collect();
        for id in ids {
            let Some(h) = held.get_mut(&id) else { continue };
            match renewed.get(&id) {
                Some(e) if *e == h.epoch => h.deadline = deadline,
                // Not asked for (taken after the statement was built): kept as it is.
                None if !asked.contains(&id) => {}
                _ => {
                    held.remove(&id);
                    out.push(id);
                }
            }
        }
        Ok(out)
    }

    /// Takes at most `limit` leases that have expired on the database's clock (their node
    /// dead, cut off, or letting them go), raising each epoch, and the leases of live matches
    /// that have none (stored before the database had a cluster): the matches to resume.
    pub async fn take_expired(
        &self,
        pool: &PgPool,
        limit: u32,
    ) -> Result<Vec<MatchId>, StoreError> {
        let sent = Instant::now();
        let rows = sqlx::query(
            "WITH orphan AS (
                INSERT INTO match_leases (match_id, node, epoch, expires_at)
                SELECT m.id, $1, 1, now() + $3::float8 * interval '1 millisecond' FROM matches m
                WHERE m.status = 'live'
                  AND NOT EXISTS (SELECT 1 FROM match_leases l WHERE l.match_id = m.id)
                LIMIT $2
                ON CONFLICT (match_id) DO NOTHING RETURNING match_id, epoch),
             taken AS (
                UPDATE match_leases SET node = $1, epoch = epoch + 1,
                    expires_at = now() + $3::float8 * interval '1 millisecond'
                WHERE match_id IN (SELECT match_id FROM match_leases
                                   WHERE expires_at < now() AND node <> $1
                                   ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED)
                  AND expires_at < now()
                RETURNING match_id, epoch)
             SELECT match_id, epoch FROM orphan UNION ALL SELECT match_id, epoch FROM taken",
        )
        .bind(self.node)
        .bind(i64::from(limit))
        .bind(self.interval())
        .fetch_all(pool)
        .await
        .map_err(db)?;
        let deadline = self.deadline(sent);
        let mut out = Vec::with_capacity(rows.len());
        let mut held = lock(&self.held);
        for r in &rows {
            let id = match_id(&r.try_get::<String, _>("match_id").map_err(db)?)?;
            let epoch: i64 = r.try_get("epoch").map_err(db)?;
            held.insert(id, Held { epoch, deadline, since: sent });
            out.push(id);
        }
        out.sort();
        Ok(out)
    }

    /// Lets a lease go now (a match taken but finished, or not resumable here): its row expires
    /// at once, or goes if the match is finished.
    pub async fn release(
        &self,
        pool: &PgPool,
        row: Option<&MatchRow>,
        id: &MatchId,
    ) -> Result<(), StoreError> {
        lock(&self.held).remove(id);
        let finished = row.is_some_and(|r| r.finish.is_some());
        let sql = if finished {
            "DELETE FROM match_leases WHERE match_id = $1 AND node = $2"
        } else {
            "UPDATE match_leases SET expires_at = now() - interval '1 millisecond'
             WHERE match_id = $1 AND node = $2"
        };
        sqlx::query(sql).bind(id_text(id)).bind(self.node).execute(pool).await.map(drop).map_err(db)
    }

    /// Takes or renews the leadership of `role` (`crate::leader`), in one statement: this node
    /// keeps it while it renews, and takes it once the holder's lease has expired on the
    /// database's clock, raising the epoch. Returns the epoch and the local deadline (as a
    /// match lease's: the lease less a fifth after the statement was sent) while this node
    /// leads; `None` while another live node does.
    pub async fn lead(
        &self,
        pool: &PgPool,
        role: &str,
    ) -> Result<Option<(i64, Instant)>, StoreError> {
        let sent = Instant::now();
        let epoch: Option<i64> = sqlx::query_scalar(
            "INSERT INTO leaders (role, node, epoch, expires_at)
             VALUES ($1, $2, 1, now() + $3::float8 * interval '1 millisecond')
             ON CONFLICT (role) DO UPDATE SET node = EXCLUDED.node,
                 epoch = CASE WHEN leaders.node = EXCLUDED.node THEN leaders.epoch
                              ELSE leaders.epoch + 1 END,
                 expires_at = EXCLUDED.expires_at
             WHERE leaders.node = EXCLUDED.node OR leaders.expires_at < now()
             RETURNING epoch",
        )
        .bind(role)
        .bind(self.node)
        .bind(self.interval())
        .fetch_optional(pool)
        .await
        .map_err(db)?;
        Ok(epoch.map(|e| (e, self.deadline(sent))))
    }

    /// The URL of the node that leads `role` now, if another node does and its lease has not
    /// expired on the database's clock (`crate::http::forward`: a follower forwards the log's
    /// routes there).
    pub async fn leader_url(
        &self,
        pool: &PgPool,
        role: &str,
    ) -> Result<Option<String>, StoreError> {
        sqlx::query_scalar(
            "SELECT n.url FROM leaders l JOIN nodes n ON n.id = l.node
             WHERE l.role = $1 AND l.node <> $2 AND l.expires_at > now()",
        )
        .bind(role)
        .bind(self.node)
        .fetch_optional(pool)
        .await
        .map_err(db)
    }

    /// The URL of the node that holds `id`'s lease now, if another live one does (for a
    /// redirect: a socket opened on the wrong node).
    pub async fn owner_url(
        &self,
        pool: &PgPool,
        id: &MatchId,
    ) -> Result<Option<String>, StoreError> {
        let url: Option<String> = sqlx::query_scalar(
            "SELECT n.url FROM match_leases l JOIN nodes n ON n.id = l.node
             WHERE l.match_id = $1 AND l.node <> $2 AND l.expires_at > now()",
        )
        .bind(id_text(id))
        .bind(self.node)
        .fetch_optional(pool)
        .await
        .map_err(db)?;
        Ok(url)
    }
}

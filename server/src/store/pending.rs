//! The lobby's shared state on a cluster (`fogproof serve --cluster`, docs/SERVER.md, several
//! nodes): the one acceptance of a challenge, and terms being completed and signed, kept in
//! PostgreSQL so that any node can take a seat or a signature.
//!
//! **One acceptance.** A node accepting a challenge first claims it with a conditional
//! `UPDATE challenges … WHERE status = 'open'`: of two nodes accepting at once, the database
//! gives the row to one; the other finds nothing open.
//!
//! **Pending terms.** `pending_terms (id, body, version, deadline_ms)` holds the lobby's
//! [`crate::lobby::Pending`] as JSON. A seat or a signature is a read, a check and a
//! conditional write (`… WHERE version = $read`, the version raised): two parties signing on
//! two nodes at once cannot lose one another's signature (the loser of the race reads again
//! and writes again). The last signature is written by marking the row `signed` at the
//! version it read ([`PostgresStore::claim_signed`]): exactly one node claims the terms and
//! starts the match, and deletes the row only once the match row exists
//! ([`PostgresStore::drop_pending`]). A node that dies in between leaves the row `signed`, with
//! a deadline [`START_GRACE_MS`] away: the next sweep of any node claims it again and starts
//! the match (or, finding the match stored, only deletes the row), so signed terms are never
//! lost. Other rows past their deadline are taken by one node's sweep (`DELETE … RETURNING`,
//! `FOR UPDATE SKIP LOCKED`), which cancels them.

use super::StoreError;
use super::postgres::PostgresStore;
use super::sqlite::ms;
use sqlx::Row;

/// The cluster's lobby tables (PostgreSQL only; created with the schema).
pub const SCHEMA: [&str; 3] = [
    "CREATE TABLE IF NOT EXISTS pending_terms (
        id TEXT COLLATE \"C\" PRIMARY KEY,
        body TEXT NOT NULL,
        version BIGINT NOT NULL,
        deadline_ms BIGINT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS pending_terms_deadline ON pending_terms (deadline_ms)",
    // Every signature in: the match is being started ([`PostgresStore::claim_signed`]).
    "ALTER TABLE pending_terms ADD COLUMN IF NOT EXISTS signed BOOLEAN NOT NULL DEFAULT false",
];

/// The most expired pending terms one sweep of one node cancels (the rest in later sweeps).
pub const MAX_EXPIRED_PER_SWEEP: i64 = 1_024;

/// How long a node that claimed signed terms has to store their match before another node's
/// sweep claims them again and starts it ([`PostgresStore::claim_signed`]).
pub const START_GRACE_MS: u64 = 5_000;

fn db(e: sqlx::Error) -> StoreError {
    StoreError::Database(e.to_string())
}

/// Pending terms as the database holds them.
#[derive(Clone, Debug)]
pub struct PendingRow {
    /// The lobby's `Pending`, JSON.
    pub body: String,
    /// Raised by every write.
    pub version: i64,
    /// Every signature is in: the match is being started.
    pub signed: bool,
}

impl PendingRow {
    /// A row of `body, version, signed`.
    fn read(r: &sqlx::postgres::PgRow) -> Result<PendingRow, StoreError> {
        Ok(PendingRow {
            body: r.try_get("body").map_err(db)?,
            version: r.try_get("version").map_err(db)?,
            signed: r.try_get("signed").map_err(db)?,
        })
    }
}

/// Runs one conditional write (`… WHERE id = $1 AND version = $2 …`, then the other values):
/// whether it wrote (`false`: another node wrote first, or the row is gone).
async fn conditional(
    store: &PostgresStore,
    sql: &'static str,
    id: &str,
    version: i64,
    rest: &[&str],
    deadline_ms: Option<u64>,
) -> Result<bool, StoreError> {
    let mut q = sqlx::query(sql).bind(id).bind(version);
    for v in rest {
        q = q.bind(*v);
    }
    if let Some(d) = deadline_ms {
        q = q.bind(ms(d));
    }
    let done = q.execute(store.pool()).await.map_err(db)?;
    Ok(done.rows_affected() == 1)
}

impl PostgresStore {
    /// Claims the open challenge `id` for this node's acceptance, writing `body` (the
    /// challenge accepted) in the same statement: `false` when it is not open (another node's
    /// acceptance won, or it was canceled or declined).
    pub async fn claim_challenge(&self, id: &str, body: &str) -> Result<bool, StoreError> {
        let done = sqlx::query(
            "UPDATE challenges SET status = 'accepted', body = $2 WHERE id = $1 AND status = 'open'",
        )
        .bind(id)
        .bind(body)
        .execute(self.pool())
        .await
        .map_err(db)?;
        Ok(done.rows_affected() == 1)
    }

    /// Stores new pending terms (version 0).
    pub async fn put_pending(
        &self,
        id: &str,
        body: &str,
        deadline_ms: u64,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO pending_terms (id, body, version, deadline_ms) VALUES ($1, $2, 0, $3)",
        )
        .bind(id)
        .bind(body)
        .bind(ms(deadline_ms))
        .execute(self.pool())
        .await
        .map(drop)
        .map_err(db)
    }

    /// The pending terms `id`, if any.
    pub async fn pending(&self, id: &str) -> Result<Option<PendingRow>, StoreError> {
        let row = sqlx::query("SELECT body, version, signed FROM pending_terms WHERE id = $1")
            .bind(id)
            .fetch_optional(self.pool())
            .await
            .map_err(db)?;
        row.as_ref().map(PendingRow::read).transpose()
    }

    /// Replaces the pending terms `id` read at `version`: `false` if another node wrote them
    /// since (or they are gone, or signed).
    pub async fn update_pending(
        &self,
        id: &str,
        version: i64,
        body: &str,
    ) -> Result<bool, StoreError> {
        let sql = "UPDATE pending_terms SET body = $3, version = version + 1
                   WHERE id = $1 AND version = $2 AND NOT signed";
        conditional(self, sql, id, version, &[body], None).await
    }

    /// Claims the pending terms `id` read at `version` with their last signature in (`body`):
    /// the row is marked `signed` and kept until [`PostgresStore::drop_pending`], after the
    /// match is stored, with a deadline at `hold_until_ms` (now and [`START_GRACE_MS`]) past
    /// which any node's sweep claims it again. `false` if another node wrote or claimed them
    /// since.
    pub async fn claim_signed(
        &self,
        id: &str,
        version: i64,
        body: &str,
        hold_until_ms: u64,
    ) -> Result<bool, StoreError> {
        let sql = "UPDATE pending_terms SET body = $3, version = version + 1, signed = true,
                   deadline_ms = $4 WHERE id = $1 AND version = $2 AND NOT signed";
        conditional(self, sql, id, version, &[body], Some(hold_until_ms)).await
    }

    /// Deletes the pending terms `id` (their match is stored).
    pub async fn drop_pending(&self, id: &str) -> Result<(), StoreError> {
        sqlx::query("DELETE FROM pending_terms WHERE id = $1")
            .bind(id)
            .execute(self.pool())
            .await
            .map(drop)
            .map_err(db)
    }

    /// Hands tournament game `id`'s terms to be signed: in one transaction, marks its
    /// invitation handed ([`super::Store::hand_invitation`]: both seats in, not handed
    /// before) and stores its pending terms (`body`, no deadline of their own: the tournament
    /// runner ends them at the invitation's, [`PostgresStore::withdraw_pending`]). `true` for
    /// exactly one caller; a node dying in between leaves neither.
    pub async fn hand_tournament_terms(&self, id: &str, body: &str) -> Result<bool, StoreError> {
        let mut tx = self.pool().begin().await.map_err(db)?;
        let handed = sqlx::query(sqlx::AssertSqlSafe(super::invitations::numbered(
            super::invitations::HAND,
        )))
        .bind(id)
        .execute(&mut *tx)
        .await
        .map_err(db)?;
        if handed.rows_affected() != 1 {
            return Ok(false);
        }
        sqlx::query(
            "INSERT INTO pending_terms (id, body, version, deadline_ms) VALUES ($1, $2, 0, $3)",
        )
        .bind(id)
        .bind(body)
        .bind(i64::MAX)
        .execute(&mut *tx)
        .await
        .map_err(db)?;
        tx.commit().await.map_err(db)?;
        Ok(true)
    }

    /// Deletes the pending terms `id` unless they are signed (their match being started):
    /// what they were, if deleted. The tournament runner's end of a game's terms at its
    /// deadline: either the last signature's claim ([`PostgresStore::claim_signed`]) or this
    /// wins, never both.
    pub async fn withdraw_pending(&self, id: &str) -> Result<Option<PendingRow>, StoreError> {
        let row = sqlx::query(
            "DELETE FROM pending_terms WHERE id = $1 AND NOT signed RETURNING body, version, signed",
        )
        .bind(id)
        .fetch_optional(self.pool())
        .await
        .map_err(db)?;
        row.as_ref().map(PendingRow::read).transpose()
    }

    /// Takes the pending terms whose deadline is at or before `now_ms` (at most
    /// [`MAX_EXPIRED_PER_SWEEP`]), each to exactly one node: those not signed are deleted
    /// (to cancel), those signed (a node claimed them and has not stored their match in
    /// [`START_GRACE_MS`]) are claimed again until `hold_until_ms` (to start).
    pub async fn expire_pending(
        &self,
        now_ms: u64,
        hold_until_ms: u64,
    ) -> Result<Vec<PendingRow>, StoreError> {
        let rows = sqlx::query(
            "WITH due AS (SELECT id, signed FROM pending_terms WHERE deadline_ms <= $1
                          ORDER BY deadline_ms LIMIT $2 FOR UPDATE SKIP LOCKED),
             gone AS (DELETE FROM pending_terms p USING due
                      WHERE p.id = due.id AND NOT due.signed
                      RETURNING p.body, p.version, false AS signed),
             held AS (UPDATE pending_terms p SET deadline_ms = $3, version = p.version + 1
                      FROM due WHERE p.id = due.id AND due.signed
                      RETURNING p.body, p.version, true AS signed)
             SELECT body, version, signed FROM gone
             UNION ALL SELECT body, version, signed FROM held",
        )
        .bind(ms(now_ms))
        .bind(MAX_EXPIRED_PER_SWEEP)
        .bind(ms(hold_until_ms))
        .fetch_all(self.pool())
        .await
        .map_err(db)?;
        rows.iter().map(PendingRow::read).collect()
    }
}

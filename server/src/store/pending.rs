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
//! and writes again). The last signature is written by deleting the row at the version it
//! read: exactly one node consumes the terms and starts the match. Rows past their deadline
//! are taken by one node's sweep (`DELETE … RETURNING`, `FOR UPDATE SKIP LOCKED`), which
//! cancels them.

use super::StoreError;
use super::postgres::PostgresStore;
use super::sqlite::ms;
use sqlx::Row;

/// The cluster's lobby tables (PostgreSQL only; created with the schema).
pub const SCHEMA: [&str; 2] = [
    "CREATE TABLE IF NOT EXISTS pending_terms (
        id TEXT COLLATE \"C\" PRIMARY KEY,
        body TEXT NOT NULL,
        version BIGINT NOT NULL,
        deadline_ms BIGINT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS pending_terms_deadline ON pending_terms (deadline_ms)",
];

/// The most expired pending terms one sweep of one node cancels (the rest in later sweeps).
pub const MAX_EXPIRED_PER_SWEEP: i64 = 1_024;

fn db(e: sqlx::Error) -> StoreError {
    StoreError::Database(e.to_string())
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

    /// The pending terms `id` and their version, if any.
    pub async fn pending(&self, id: &str) -> Result<Option<(String, i64)>, StoreError> {
        let row = sqlx::query("SELECT body, version FROM pending_terms WHERE id = $1")
            .bind(id)
            .fetch_optional(self.pool())
            .await
            .map_err(db)?;
        row.map(|r| Ok((r.try_get("body").map_err(db)?, r.try_get("version").map_err(db)?)))
            .transpose()
    }

    /// Replaces the pending terms `id` read at `version`: `false` if another node wrote them
    /// since (or they are gone).
    pub async fn update_pending(
        &self,
        id: &str,
        version: i64,
        body: &str,
    ) -> Result<bool, StoreError> {
        let done = sqlx::query(
            "UPDATE pending_terms SET body = $3, version = version + 1
             WHERE id = $1 AND version = $2",
        )
        .bind(id)
        .bind(version)
        .bind(body)
        .execute(self.pool())
        .await
        .map_err(db)?;
        Ok(done.rows_affected() == 1)
    }

    /// Consumes the pending terms `id` read at `version` (their last signature is in):
    /// `false` if another node wrote or consumed them since.
    pub async fn take_pending(&self, id: &str, version: i64) -> Result<bool, StoreError> {
        let done = sqlx::query("DELETE FROM pending_terms WHERE id = $1 AND version = $2")
            .bind(id)
            .bind(version)
            .execute(self.pool())
            .await
            .map_err(db)?;
        Ok(done.rows_affected() == 1)
    }

    /// Takes the pending terms whose deadline is at or before `now_ms` (at most
    /// [`MAX_EXPIRED_PER_SWEEP`]), returning their bodies: each to exactly one node.
    pub async fn expire_pending(&self, now_ms: u64) -> Result<Vec<String>, StoreError> {
        sqlx::query_scalar(
            "DELETE FROM pending_terms WHERE id IN (SELECT id FROM pending_terms
             WHERE deadline_ms <= $1 ORDER BY deadline_ms LIMIT $2 FOR UPDATE SKIP LOCKED)
             RETURNING body",
        )
        .bind(ms(now_ms))
        .bind(MAX_EXPIRED_PER_SWEEP)
        .fetch_all(self.pool())
        .await
        .map_err(db)
    }
}

//! The shared store: PostgreSQL through sqlx (`fogproof serve --database postgres://...`).
//!
//! The same semantics as [`super::sqlite::SqliteStore`]: a commit is durable when it returns
//! (every connection sets `synchronous_commit = on`, whatever the server's default), the
//! group committer ([`crate::commit`]) writes many matches' entries in one transaction, and
//! every operation SQLite runs in a transaction runs in one here.
//!
//! **Schema.** SQLite's statements ([`super::sqlite::SCHEMA`], and the entries' table as
//! SQLite had it before its schema version 1, [`super::sqlite::ENTRIES_BY_TEXT_ID`]) are the
//! migrations of both:
//! [`translate_schema`] turns each into PostgreSQL's by its types alone (BLOB is BYTEA,
//! INTEGER is BIGINT, as SQLite's integers are 64-bit, and TEXT is `TEXT COLLATE "C"`, so text
//! compares and sorts bytewise as in SQLite: the order of ids, keys and tournament joins does
//! not depend on the database's locale). PostgreSQL adds one table of its own, [`OWNER_TABLE`].
//! The queries differ only in their placeholders (`$1` for `?`) and are written out below.
//!
//! **One owner.** A database holds one server's matches, as a data directory does: a second
//! server on it would resume the same live matches and receipt the same positions. So a store
//! opens only while it can take a session advisory lock ([`OWNER_LOCK`], held on a connection
//! of its own for as long as the store lives: a second server refuses to start and names the
//! first), and each opening raises the owner row's **epoch**. Every write runs in a
//! transaction that first reads the epoch `FOR SHARE` and commits only if it is still its own:
//! a server whose lock was lost (its connection cut, the database restarted) and whose database
//! another server has since taken can commit nothing more, so it sends no receipt the new owner
//! does not know of: no split brain, whatever the clocks and the network do. A store that
//! finds itself deposed refuses every write after (the match tasks stop) and says so. The lock
//! connection sets short TCP keepalives (about 10 s), so a dead machine's lock goes with it.
//!
//! **Or several nodes** ([`PostgresStore::open_node`], `serve --cluster`): no owner epoch;
//! each live match's writes are fenced by its lease instead ([`super::lease`]).

use super::sqlite::{ENTRIES_BY_TEXT_ID, SCHEMA, from_ms, id_text, key, match_id, ms};
use super::{
    Account, ChallengeRow, EntryRow, Finish, InvitationRow, LedgerMark, MatchRow, MatchStatus,
    Store, StoreError, StoreFuture, TournamentGameRow, Write, invitations,
};
use protocol::{MatchId, PublicKey};
use sqlx::postgres::{PgConnectOptions, PgConnection, PgPool, PgPoolOptions, PgRow};
use sqlx::{Connection as _, Postgres, Row, Transaction};
use std::str::FromStr as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The owner row: which server opened the database last, and its epoch.
pub const OWNER_TABLE: &str = "CREATE TABLE IF NOT EXISTS server_owner (
    id BIGINT PRIMARY KEY CHECK (id = 1),
    epoch BIGINT NOT NULL,
    pid BIGINT NOT NULL,
    host TEXT COLLATE \"C\" NOT NULL,
    since_ms BIGINT NOT NULL)";

/// The session advisory lock a store holds while it owns the database (`fogproof` in ASCII).
pub const OWNER_LOCK: i64 = 0x666f_6770_726f_6f66;

/// The transaction advisory lock that serialises schema creation between servers starting at
/// once (PostgreSQL's `CREATE TABLE IF NOT EXISTS` is not safe against a concurrent one).
const SCHEMA_LOCK: i64 = OWNER_LOCK + 1;

/// Connections in a store's pool (besides its lock connection).
pub const MAX_POOL_CONNECTIONS: u32 = 16;

/// How long opening waits for the owner lock (a killed server's session may take a moment to
/// end) before it refuses.
pub const OWNER_LOCK_WAIT_MS: u64 = 3_000;

/// How often the lock connection is checked (and the lock taken again after a lost
/// connection, if no other server took the database meanwhile).
pub const OWNER_CHECK_MS: u64 = 2_000;

/// The session settings of every connection: durable commits, and keepalives so the database
/// ends a dead machine's session (and its lock) within about 10 s.
const SESSION: [(&str, &str); 4] = [
    ("synchronous_commit", "on"),
    ("tcp_keepalives_idle", "5"),
    ("tcp_keepalives_interval", "2"),
    ("tcp_keepalives_count", "3"),
];

/// SQLite's schema statement in PostgreSQL's types (see the module's documentation).
pub fn translate_schema(statement: &str) -> String {
    let mut out = String::with_capacity(statement.len() + 32);
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        out.push_str(match word.as_str() {
            "BLOB" => "BYTEA",
            "INTEGER" => "BIGINT",
            "TEXT" => "TEXT COLLATE \"C\"",
            w => w,
        });
        word.clear();
    };
    for c in statement.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// The PostgreSQL store.
#[derive(Debug)]
pub struct PostgresStore {
    pool: PgPool,
    /// This store's epoch in the owner row.
    epoch: i64,
    /// Set once a write found another epoch: every later write is refused.
    deposed: Arc<AtomicBool>,
    /// The connection holding [`OWNER_LOCK`] (and its keeper task).
    lock: tokio::task::JoinHandle<()>,
    /// The lock connection's backend pid (tests end it to simulate a lost connection).
    lock_backend: Arc<std::sync::atomic::AtomicI32>,
    /// A cluster node's match leases; none: the single owner of the database.
    cluster: Option<Arc<super::lease::Leases>>,
}

impl Drop for PostgresStore {
    fn drop(&mut self) {
        // The lock connection goes with its task: the lock is released.
        self.lock.abort();
    }
}

fn db(e: sqlx::Error) -> StoreError {
    StoreError::Database(e.to_string())
}

fn options(url: &str) -> Result<PgConnectOptions, StoreError> {
    let options = PgConnectOptions::from_str(url)
        .map_err(|e| StoreError::Database(format!("--database: {e}")))?;
    Ok(options.options(SESSION).application_name("fogproof"))
}

/// `url` with its database name replaced by `name` (a `postgres://` URL; its query kept).
pub fn with_database(url: &str, name: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (url, None),
    };
    let authority_start = base.find("://").map_or(0, |i| i + 3);
    let path_start = base[authority_start..].find('/').map_or(base.len(), |i| authority_start + i);
    let mut out = format!("{}/{name}", &base[..path_start]);
    if let Some(q) = query {
        out.push('?');
        out.push_str(q);
    }
    out
}

/// Creates (dropping it first if it exists) the database `name` on the server of `url`, and
/// returns `url` naming it: for tests and the load test, each on a database of its own.
pub async fn fresh_database(url: &str, name: &str) -> Result<String, StoreError> {
    drop_database(url, name).await?;
    let mut c = PgConnection::connect_with(&options(url)?).await.map_err(db)?;
    // `name` was checked by `drop_database`: lower-case letters, digits and underscores only.
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .execute(&mut c)
        .await
        .map_err(db)?;
    c.close().await.map_err(db)?;
    Ok(with_database(url, name))
}

/// The process ids of the database server's processes now (`pg_stat_activity`: every
/// backend and background process of the server `url` names), for a load test on the same
/// machine to measure the database's CPU (`fogproof loadtest --nodes`).
pub async fn server_pids(url: &str) -> Result<Vec<u32>, StoreError> {
    let mut c = PgConnection::connect_with(&options(url)?).await.map_err(db)?;
    let pids: Vec<i32> = sqlx::query_scalar("SELECT pid FROM pg_stat_activity")
        .fetch_all(&mut c)
        .await
        .map_err(db)?;
    c.close().await.map_err(db)?;
    Ok(pids.into_iter().filter_map(|p| u32::try_from(p).ok()).collect())
}

/// Drops the database `name` on the server `url` names (what [`fresh_database`] made).
pub async fn drop_database(url: &str, name: &str) -> Result<(), StoreError> {
    if !name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_') {
        return Err(StoreError::Database(format!("database name {name:?}")));
    }
    let mut c = PgConnection::connect_with(&options(url)?).await.map_err(db)?;
    // `name` is checked above: lower-case letters, digits and underscores only.
    sqlx::query(sqlx::AssertSqlSafe(format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)")))
        .execute(&mut c)
        .await
        .map_err(db)?;
    c.close().await.map_err(db)
}

/// How a server holds [`OWNER_LOCK`]: alone (a single-owner server) or shared (a cluster node).
#[derive(Clone, Copy)]
enum LockMode {
    Exclusive,
    Shared,
}

/// Takes [`OWNER_LOCK`] on `c` in `mode`, waiting up to `wait_ms`; false while a session holds
/// it in a mode that excludes this one (any holder for exclusive, an exclusive one for shared).
async fn try_lock(c: &mut PgConnection, mode: LockMode, wait_ms: u64) -> Result<bool, StoreError> {
    let sql = match mode {
        LockMode::Exclusive => "SELECT pg_try_advisory_lock($1)",
        LockMode::Shared => "SELECT pg_try_advisory_lock_shared($1)",
    };
    let deadline = tokio::time::Instant::now() + Duration::from_millis(wait_ms);
    loop {
        let got: bool =
            sqlx::query_scalar(sql).bind(OWNER_LOCK).fetch_one(&mut *c).await.map_err(db)?;
        if got {
            return Ok(true);
        }
        if tokio::time::Instant::now() >= deadline {
            return Ok(false);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A cluster node's keeper of its shared owner lock: taken again after a lost connection.
/// Nothing rests on it but keeping a single-owner server out; the leases fence the writes.
async fn keep_shared_lock(
    mut lock: PgConnection,
    options: PgConnectOptions,
    check_ms: u64,
    backend: Arc<std::sync::atomic::AtomicI32>,
) {
    loop {
        tokio::time::sleep(Duration::from_millis(check_ms)).await;
        if sqlx::query("SELECT 1").execute(&mut lock).await.is_ok() {
            continue;
        }
        let again = async {
            let mut c = PgConnection::connect_with(&options).await.map_err(db)?;
            if try_lock(&mut c, LockMode::Shared, 0).await? {
                Ok::<_, StoreError>(Some(c))
            } else {
                Ok(None)
            }
        };
        match again.await {
            Ok(Some(mut c)) => {
                if let Ok(pid) = backend_pid(&mut c).await {
                    backend.store(pid, Ordering::Relaxed);
                }
                lock = c;
            }
            Ok(None) => tracing::warn!("a single-owner server holds the database's owner lock"),
            Err(e) => tracing::warn!(error = %e, "could not take the owner lock again; retrying"),
        }
    }
}

async fn backend_pid(c: &mut PgConnection) -> Result<i32, StoreError> {
    sqlx::query_scalar("SELECT pg_backend_pid()").fetch_one(&mut *c).await.map_err(db)
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

fn hostname() -> String {
    std::fs::read_to_string("/etc/hostname").map(|h| h.trim().to_owned()).unwrap_or_default()
}

/// Connects to `url` and creates the schema if needed (serialised between servers starting
/// at once).
async fn connect(url: &str) -> Result<(PgPool, PgConnectOptions), StoreError> {
    let options = options(url)?;
    let pool = PgPoolOptions::new()
        .max_connections(MAX_POOL_CONNECTIONS)
        .acquire_timeout(Duration::from_secs(30))
        .connect_with(options.clone())
        .await
        .map_err(db)?;
    let mut tx = pool.begin().await.map_err(db)?;
    sqlx::query("SELECT pg_advisory_xact_lock($1)")
        .bind(SCHEMA_LOCK)
        .execute(&mut *tx)
        .await
        .map_err(db)?;
    for statement in SCHEMA.iter().chain([&ENTRIES_BY_TEXT_ID]) {
        // The schema is this crate's own constants, translated.
        sqlx::query(sqlx::AssertSqlSafe(translate_schema(statement)))
            .execute(&mut *tx)
            .await
            .map_err(db)?;
    }
    sqlx::query(OWNER_TABLE).execute(&mut *tx).await.map_err(db)?;
    for statement in super::lease::SCHEMA {
        sqlx::query(statement).execute(&mut *tx).await.map_err(db)?;
    }
    for statement in super::pending::SCHEMA {
        sqlx::query(statement).execute(&mut *tx).await.map_err(db)?;
    }
    tx.commit().await.map_err(db)?;
    Ok((pool, options))
}

impl PostgresStore {
    /// Connects to `url` (`postgres://user@host:port/db`), creates the schema if needed and
    /// takes the database for this server: refused while another server holds it.
    pub async fn open(url: &str) -> Result<PostgresStore, StoreError> {
        PostgresStore::open_with(url, OWNER_CHECK_MS).await
    }

    /// [`PostgresStore::open`], the lock connection checked every `check_ms`.
    pub(crate) async fn open_with(url: &str, check_ms: u64) -> Result<PostgresStore, StoreError> {
        let (pool, options) = connect(url).await?;
        let mut lock = PgConnection::connect_with(&options).await.map_err(db)?;
        if !try_lock(&mut lock, LockMode::Exclusive, OWNER_LOCK_WAIT_MS).await? {
            let owner = sqlx::query("SELECT pid, host, since_ms FROM server_owner WHERE id = 1")
                .fetch_optional(&pool)
                .await
                .map_err(db)?;
            let who = owner.map_or_else(
                || "unknown".to_owned(),
                |r| {
                    format!(
                        "pid {} on {:?} since {} ms",
                        r.try_get::<i64, _>("pid").unwrap_or(0),
                        r.try_get::<String, _>("host").unwrap_or_default(),
                        r.try_get::<i64, _>("since_ms").unwrap_or(0)
                    )
                },
            );
            return Err(StoreError::Database(format!(
                "the database is in use by another fogproof server ({who}): one server owns a \
                 database at a time (docs/SERVER.md, several nodes)"
            )));
        }
        let epoch: i64 = sqlx::query_scalar(
            "INSERT INTO server_owner (id, epoch, pid, host, since_ms) VALUES (1, 1, $1, $2, $3)
             ON CONFLICT (id) DO UPDATE SET epoch = server_owner.epoch + 1,
             pid = excluded.pid, host = excluded.host, since_ms = excluded.since_ms
             RETURNING epoch",
        )
        .bind(i64::from(std::process::id()))
        .bind(hostname())
        .bind(now_ms())
        .fetch_one(&pool)
        .await
        .map_err(db)?;
        let lock_backend =
            Arc::new(std::sync::atomic::AtomicI32::new(backend_pid(&mut lock).await?));
        let deposed = Arc::new(AtomicBool::new(false));
        let keeper =
            keep_lock(lock, options, check_ms, epoch, deposed.clone(), lock_backend.clone());
        Ok(PostgresStore {
            pool,
            epoch,
            deposed,
            lock: tokio::spawn(keeper),
            lock_backend,
            cluster: None,
        })
    }

    /// Opens the database as one node of a cluster (`fogproof serve --cluster`, docs/SERVER.md,
    /// several nodes): any number of nodes share it, each live match owned by one node at a time
    /// through its row in `match_leases` ([`crate::store::lease`]). The node registers in
    /// `nodes` with `node_url`, where players reach it. A node holds the owner lock shared, so a
    /// single-owner server ([`PostgresStore::open`]) is refused while any node runs, and a node
    /// is refused while a single-owner server runs.
    pub async fn open_node(
        url: &str,
        node_url: &str,
        lease_ms: u64,
    ) -> Result<PostgresStore, StoreError> {
        let (pool, options) = connect(url).await?;
        let mut lock = PgConnection::connect_with(&options).await.map_err(db)?;
        if !try_lock(&mut lock, LockMode::Shared, OWNER_LOCK_WAIT_MS).await? {
            return Err(StoreError::Database(
                "the database is owned by a single fogproof server (serve without --cluster): \
                 stop it before starting cluster nodes on it (docs/SERVER.md, several nodes)"
                    .into(),
            ));
        }
        let node: i64 = sqlx::query_scalar(
            "INSERT INTO nodes (url, pid, host, heartbeat) VALUES ($1, $2, $3, now()) RETURNING id",
        )
        .bind(node_url)
        .bind(i64::from(std::process::id()))
        .bind(hostname())
        .fetch_one(&pool)
        .await
        .map_err(db)?;
        let lock_backend =
            Arc::new(std::sync::atomic::AtomicI32::new(backend_pid(&mut lock).await?));
        let keeper = keep_shared_lock(lock, options, OWNER_CHECK_MS, lock_backend.clone());
        tracing::info!(node, url = node_url, lease_ms, "joined the cluster");
        Ok(PostgresStore {
            pool,
            epoch: 0,
            deposed: Arc::new(AtomicBool::new(false)),
            lock: tokio::spawn(keeper),
            lock_backend,
            cluster: Some(Arc::new(super::lease::Leases::new(node, lease_ms))),
        })
    }

    /// The node's leases, when it is a cluster node ([`PostgresStore::open_node`]).
    pub fn leases(&self) -> Option<&super::lease::Leases> {
        self.cluster.as_deref()
    }

    /// The challenge `id`'s row, if any (a cluster node reads again a challenge another node
    /// changed: `crate::cluster::events`).
    pub async fn challenge(&self, id: &str) -> Result<Option<ChallengeRow>, StoreError> {
        let row = sqlx::query(
            "SELECT id, challenger, status, body, created_ms FROM challenges WHERE id = $1",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await
        .map_err(db)?;
        row.map(|r| {
            Ok(ChallengeRow {
                id: r.try_get("id").map_err(db)?,
                challenger: key(&r.try_get::<String, _>("challenger").map_err(db)?)?,
                status: r.try_get("status").map_err(db)?,
                body: r.try_get("body").map_err(db)?,
                created_ms: from_ms(r.try_get("created_ms").map_err(db)?),
            })
        })
        .transpose()
    }

    /// The connection pool (the lease operations of [`crate::store::lease`] run on it).
    pub(crate) fn pool(&self) -> &PgPool {
        &self.pool
    }

    /// This store's epoch (raised by each opening of the database).
    pub fn epoch(&self) -> i64 {
        self.epoch
    }

    /// The backend pid of the connection holding the owner lock.
    pub fn lock_backend_pid(&self) -> i32 {
        self.lock_backend.load(Ordering::Relaxed)
    }

    /// Whether another server has taken the database from this one.
    pub fn deposed(&self) -> bool {
        self.deposed.load(Ordering::Relaxed)
    }

    /// A transaction in which this store still owns the database (its epoch read `FOR SHARE`,
    /// so no other server can take the database until it ends).
    async fn owned(&self) -> Result<Transaction<'static, Postgres>, StoreError> {
        if self.cluster.is_some() {
            // A cluster node: shared rows are anyone's; a match's rows are fenced by its lease.
            return self.pool.begin().await.map_err(db);
        }
        if self.deposed() {
            return Err(deposed_error(self.epoch, None));
        }
        let mut tx = self.pool.begin().await.map_err(db)?;
        let now: Option<i64> =
            sqlx::query_scalar("SELECT epoch FROM server_owner WHERE id = 1 FOR SHARE")
                .fetch_optional(&mut *tx)
                .await
                .map_err(db)?;
        if now != Some(self.epoch) {
            self.deposed.store(true, Ordering::Relaxed);
            tracing::error!(epoch = self.epoch, now = ?now, "another server took the database: this one stores nothing more");
            return Err(deposed_error(self.epoch, now));
        }
        Ok(tx)
    }

    /// One fenced transaction for a group commit, all or none, as SQLite's. On a cluster node
    /// the entries' matches are fenced by their leases and each new match gets its lease.
    async fn batch(&self, batch: &[Write]) -> Result<(), StoreError> {
        let began = std::time::Instant::now();
        let mut tx = self.owned().await?;
        if let Some(l) = &self.cluster {
            let ids: std::collections::BTreeSet<MatchId> = batch
                .iter()
                .flat_map(|w| match w {
                    Write::Entries(rows) => rows.iter().map(|r| r.match_id).collect(),
                    _ => Vec::new(),
                })
                .collect();
            l.fence(&mut tx, &ids).await?;
        }
        for w in batch {
            match w {
                Write::Match(row, first) => {
                    insert_match(&mut tx, row, first).await?;
                    if let Some(l) = &self.cluster {
                        l.insert(&mut tx, &row.id).await?;
                    }
                }
                Write::Challenge(c) => upsert_challenge(&mut tx, c).await?,
                Write::Entries(rows) => {
                    for chunk in rows.chunks(MAX_ROWS_PER_INSERT) {
                        insert_entries(chunk).build().execute(&mut *tx).await.map_err(db)?;
                    }
                }
            }
        }
        tx.commit().await.map_err(db)?;
        if let Some(l) = &self.cluster {
            for w in batch {
                if let Write::Match(row, _) = w {
                    l.created(row.id, began);
                }
            }
        }
        Ok(())
    }

    fn match_row(row: &PgRow) -> Result<MatchRow, StoreError> {
        let get = |e: sqlx::Error| StoreError::Corrupt(e.to_string());
        let status: String = row.try_get("status").map_err(get)?;
        let finished_ms: Option<i64> = row.try_get("finished_ms").map_err(get)?;
        let finish = match finished_ms {
            None => None,
            Some(at) => {
                let sha: String = row.try_get("record_sha256").map_err(get)?;
                Some(Finish {
                    finished_ms: from_ms(at),
                    record_sha256: protocol::hex::decode_array::<32>(&sha)
                        .ok_or_else(|| StoreError::Corrupt(format!("record hash {sha:?}")))?,
                    verdict: row.try_get("verdict").map_err(get)?,
                    result: row.try_get("result").map_err(get)?,
                })
            }
        };
        Ok(MatchRow {
            id: match_id(&row.try_get::<String, _>("id").map_err(get)?)?,
            terms: row.try_get("terms").map_err(get)?,
            variant: row.try_get("variant").map_err(get)?,
            players: [
                key(&row.try_get::<String, _>("player0").map_err(get)?)?,
                key(&row.try_get::<String, _>("player1").map_err(get)?)?,
            ],
            rated: row.try_get::<i64, _>("rated").map_err(get)? != 0,
            challenge: row.try_get("challenge").map_err(get)?,
            created_ms: from_ms(row.try_get("created_ms").map_err(get)?),
            status: if status == "finished" { MatchStatus::Finished } else { MatchStatus::Live },
            finish,
        })
    }
}

fn deposed_error(mine: i64, now: Option<i64>) -> StoreError {
    StoreError::Database(format!(
        "this server no longer owns the database (its epoch {mine}, the database's {}): another \
         server took it over; nothing more is stored or receipted here",
        now.map_or_else(|| "none".to_owned(), |n| n.to_string())
    ))
}

/// Keeps the owner lock: checks its connection every [`OWNER_CHECK_MS`]; when the connection
/// is lost (the database restarted, the network cut), connects again and takes the lock again
/// if the epoch is still this store's (no other server took the database meanwhile; if one
/// did, the store is deposed and the fenced writes already refuse). Correctness never rests on
/// this task: the writes are fenced by the epoch; it only keeps a second server from starting
/// on a database this one still serves.
async fn keep_lock(
    mut lock: PgConnection,
    options: PgConnectOptions,
    check_ms: u64,
    epoch: i64,
    deposed: Arc<AtomicBool>,
    backend: Arc<std::sync::atomic::AtomicI32>,
) {
    loop {
        tokio::time::sleep(Duration::from_millis(check_ms)).await;
        if deposed.load(Ordering::Relaxed) {
            return;
        }
        if sqlx::query("SELECT 1").execute(&mut lock).await.is_ok() {
            continue;
        }
        tracing::warn!("the database's owner lock connection was lost: taking the lock again");
        let again = async {
            let mut c = PgConnection::connect_with(&options).await.map_err(db)?;
            if !try_lock(&mut c, LockMode::Exclusive, 0).await? {
                // Still held: by this server's old session (the database has not noticed it
                // is gone yet) or by another server, which will have raised the epoch.
                return Ok::<_, StoreError>(None);
            }
            let now: Option<i64> =
                sqlx::query_scalar("SELECT epoch FROM server_owner WHERE id = 1")
                    .fetch_optional(&mut c)
                    .await
                    .map_err(db)?;
            Ok(Some((c, now)))
        };
        match again.await {
            Ok(Some((mut c, Some(now)))) if now == epoch => {
                if let Ok(pid) = backend_pid(&mut c).await {
                    backend.store(pid, Ordering::Relaxed);
                }
                lock = c;
                tracing::info!("the database's owner lock is held again");
            }
            Ok(Some(_)) => {
                deposed.store(true, Ordering::Relaxed);
                tracing::error!(
                    epoch,
                    "another server took the database: this one stores nothing more"
                );
                return;
            }
            Ok(None) => tracing::warn!("the owner lock is still held elsewhere; retrying"),
            Err(e) => tracing::warn!(error = %e, "could not take the owner lock again; retrying"),
        }
    }
}

/// Entries in one INSERT statement (3 parameters each, far below PostgreSQL's 65,535).
const MAX_ROWS_PER_INSERT: usize = 256;

fn insert_entries(rows: &[EntryRow]) -> sqlx::QueryBuilder<Postgres> {
    let mut q = sqlx::QueryBuilder::<Postgres>::new("INSERT INTO entries (match_id, seq, entry) ");
    q.push_values(rows, |mut row, e| {
        row.push_bind(id_text(&e.match_id)).push_bind(ms(e.seq)).push_bind(e.bytes.clone());
    });
    q
}

/// Creates or updates a challenge row inside `conn`'s transaction.
async fn upsert_challenge(
    conn: &mut sqlx::PgConnection,
    c: &ChallengeRow,
) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO challenges (id, challenger, status, body, created_ms)
         VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (id) DO UPDATE SET status = excluded.status, body = excluded.body",
    )
    .bind(&c.id)
    .bind(c.challenger.to_string())
    .bind(&c.status)
    .bind(&c.body)
    .bind(ms(c.created_ms))
    .execute(conn)
    .await
    .map(drop)
    .map_err(db)
}

/// Inserts a new live match and its first entries inside `conn`'s transaction.
async fn insert_match(
    conn: &mut sqlx::PgConnection,
    row: &MatchRow,
    first: &[EntryRow],
) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO matches (id, terms, variant, player0, player1, rated, challenge,
         created_ms, status) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
    )
    .bind(id_text(&row.id))
    .bind(row.terms.clone())
    .bind(&row.variant)
    .bind(row.players[0].to_string())
    .bind(row.players[1].to_string())
    .bind(i64::from(row.rated))
    .bind(row.challenge.clone())
    .bind(ms(row.created_ms))
    .bind(row.status.as_str())
    .execute(&mut *conn)
    .await
    .map_err(db)?;
    for chunk in first.chunks(MAX_ROWS_PER_INSERT) {
        insert_entries(chunk).build().execute(&mut *conn).await.map_err(db)?;
    }
    Ok(())
}

impl Store for PostgresStore {
    fn put_account<'a>(&'a self, account: &'a Account) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut tx = self.owned().await?;
            sqlx::query(
                "INSERT INTO accounts (key, name, created_ms) VALUES ($1, $2, $3)
                 ON CONFLICT (key) DO UPDATE SET name = excluded.name",
            )
            .bind(account.key.to_string())
            .bind(&account.name)
            .bind(ms(account.created_ms))
            .execute(&mut *tx)
            .await
            .map_err(db)?;
            tx.commit().await.map_err(db)
        })
    }

    fn account<'a>(&'a self, key: &'a PublicKey) -> StoreFuture<'a, Option<Account>> {
        Box::pin(async move {
            let row = sqlx::query("SELECT name, created_ms FROM accounts WHERE key = $1")
                .bind(key.to_string())
                .fetch_optional(&self.pool)
                .await
                .map_err(db)?;
            row.map(|r| {
                Ok(Account {
                    key: *key,
                    name: r.try_get("name").map_err(db)?,
                    created_ms: from_ms(r.try_get("created_ms").map_err(db)?),
                })
            })
            .transpose()
        })
    }

    fn put_challenge<'a>(&'a self, c: &'a ChallengeRow) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut tx = self.owned().await?;
            upsert_challenge(&mut tx, c).await?;
            tx.commit().await.map_err(db)
        })
    }

    fn open_challenges(&self) -> StoreFuture<'_, Vec<ChallengeRow>> {
        Box::pin(async move {
            let rows = sqlx::query(
                "SELECT id, challenger, status, body, created_ms FROM challenges
                 WHERE status = 'open' ORDER BY created_ms, id",
            )
            .fetch_all(&self.pool)
            .await
            .map_err(db)?;
            rows.iter()
                .map(|r| {
                    Ok(ChallengeRow {
                        id: r.try_get("id").map_err(db)?,
                        challenger: key(&r.try_get::<String, _>("challenger").map_err(db)?)?,
                        status: r.try_get("status").map_err(db)?,
                        body: r.try_get("body").map_err(db)?,
                        created_ms: from_ms(r.try_get("created_ms").map_err(db)?),
                    })
                })
                .collect()
        })
    }

    fn create_match<'a>(&'a self, row: &'a MatchRow, first: &'a [EntryRow]) -> StoreFuture<'a, ()> {
        Box::pin(async move { self.batch(&[Write::Match(row.clone(), first.to_vec())]).await })
    }

    fn write_batch<'a>(&'a self, batch: &'a [Write]) -> StoreFuture<'a, ()> {
        Box::pin(self.batch(batch))
    }

    fn append_entries<'a>(&'a self, rows: &'a [EntryRow]) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            if rows.is_empty() {
                return Ok(());
            }
            self.batch(&[Write::Entries(rows.to_vec())]).await
        })
    }

    fn finish_match<'a>(&'a self, id: &'a MatchId, f: &'a Finish) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut tx = self.owned().await?;
            if let Some(l) = &self.cluster {
                l.fence(&mut tx, &std::iter::once(*id).collect()).await?;
                l.finish(&mut tx, id).await?;
            }
            sqlx::query(
                "UPDATE matches SET status = 'finished', finished_ms = $1, record_sha256 = $2,
                 verdict = $3, result = $4 WHERE id = $5",
            )
            .bind(ms(f.finished_ms))
            .bind(protocol::hex::encode(&f.record_sha256))
            .bind(&f.verdict)
            .bind(&f.result)
            .bind(id_text(id))
            .execute(&mut *tx)
            .await
            .map_err(db)?;
            tx.commit().await.map_err(db)?;
            if let Some(l) = &self.cluster {
                l.forget(id);
            }
            Ok(())
        })
    }

    fn get_match<'a>(&'a self, id: &'a MatchId) -> StoreFuture<'a, Option<MatchRow>> {
        Box::pin(async move {
            let row = sqlx::query("SELECT * FROM matches WHERE id = $1")
                .bind(id_text(id))
                .fetch_optional(&self.pool)
                .await
                .map_err(db)?;
            row.as_ref().map(PostgresStore::match_row).transpose()
        })
    }

    fn live_matches(&self) -> StoreFuture<'_, Vec<MatchRow>> {
        Box::pin(async move {
            let rows =
                sqlx::query("SELECT * FROM matches WHERE status = 'live' ORDER BY created_ms, id")
                    .fetch_all(&self.pool)
                    .await
                    .map_err(db)?;
            rows.iter().map(PostgresStore::match_row).collect()
        })
    }

    fn finished_matches(&self, limit: u32) -> StoreFuture<'_, Vec<MatchRow>> {
        Box::pin(async move {
            let rows = sqlx::query(
                "SELECT * FROM matches WHERE status = 'finished'
                 ORDER BY finished_ms DESC, id LIMIT $1",
            )
            .bind(i64::from(limit))
            .fetch_all(&self.pool)
            .await
            .map_err(db)?;
            rows.iter().map(PostgresStore::match_row).collect()
        })
    }

    fn entries<'a>(&'a self, id: &'a MatchId) -> StoreFuture<'a, Vec<Vec<u8>>> {
        Box::pin(async move {
            let rows =
                sqlx::query("SELECT seq, entry FROM entries WHERE match_id = $1 ORDER BY seq")
                    .bind(id_text(id))
                    .fetch_all(&self.pool)
                    .await
                    .map_err(db)?;
            let mut out = Vec::with_capacity(rows.len());
            for (i, r) in rows.iter().enumerate() {
                let seq: i64 = r.try_get("seq").map_err(db)?;
                if from_ms(seq) != i as u64 {
                    return Err(StoreError::Corrupt(format!(
                        "match {}: entry {i} is missing (found position {seq})",
                        id_text(id)
                    )));
                }
                out.push(r.try_get("entry").map_err(db)?);
            }
            Ok(out)
        })
    }

    fn unledgered(&self, limit: u32) -> StoreFuture<'_, Vec<MatchRow>> {
        Box::pin(async move {
            let rows = sqlx::query(
                "SELECT m.* FROM matches m LEFT JOIN ledger_marks l ON l.match_id = m.id
                 WHERE m.status = 'finished' AND l.match_id IS NULL
                 ORDER BY m.finished_ms, m.id LIMIT $1",
            )
            .bind(i64::from(limit))
            .fetch_all(&self.pool)
            .await
            .map_err(db)?;
            rows.iter().map(PostgresStore::match_row).collect()
        })
    }

    fn mark_ledgered<'a>(&'a self, marks: &'a [(MatchId, LedgerMark)]) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut tx = self.owned().await?;
            for (id, mark) in marks {
                let (status, note) = match mark {
                    LedgerMark::Appended => ("appended", ""),
                    LedgerMark::Refused(why) => ("refused", why.as_str()),
                };
                sqlx::query(
                    "INSERT INTO ledger_marks (match_id, status, note) VALUES ($1, $2, $3)
                     ON CONFLICT (match_id) DO UPDATE SET status = excluded.status,
                     note = excluded.note",
                )
                .bind(id_text(id))
                .bind(status)
                .bind(note)
                .execute(&mut *tx)
                .await
                .map_err(db)?;
            }
            tx.commit().await.map_err(db)
        })
    }

    fn appended_after<'a>(
        &'a self,
        after: Option<&'a MatchId>,
        limit: u32,
    ) -> StoreFuture<'a, Vec<MatchId>> {
        Box::pin(async move {
            let rows = sqlx::query(
                "SELECT match_id FROM ledger_marks WHERE status = 'appended' AND match_id > $1
                 ORDER BY match_id LIMIT $2",
            )
            .bind(after.map(id_text).unwrap_or_default())
            .bind(i64::from(limit))
            .fetch_all(&self.pool)
            .await
            .map_err(db)?;
            rows.iter()
                .map(|r| match_id(&r.try_get::<String, _>("match_id").map_err(db)?))
                .collect()
        })
    }

    fn unmark_ledgered<'a>(&'a self, ids: &'a [MatchId]) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut tx = self.owned().await?;
            for id in ids {
                sqlx::query("DELETE FROM ledger_marks WHERE match_id = $1")
                    .bind(id_text(id))
                    .execute(&mut *tx)
                    .await
                    .map_err(db)?;
            }
            tx.commit().await.map_err(db)
        })
    }

    fn put_tournament_game<'a>(&'a self, row: &'a TournamentGameRow) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut tx = self.owned().await?;
            sqlx::query(
                "INSERT INTO tournament_games (match_id, tournament, round) VALUES ($1, $2, $3)
                 ON CONFLICT (match_id) DO NOTHING",
            )
            .bind(id_text(&row.match_id))
            .bind(protocol::hex::encode(&row.tournament))
            .bind(i64::from(row.round))
            .execute(&mut *tx)
            .await
            .map_err(db)?;
            tx.commit().await.map_err(db)
        })
    }

    fn tournament_game<'a>(
        &'a self,
        id: &'a MatchId,
    ) -> StoreFuture<'a, Option<TournamentGameRow>> {
        Box::pin(async move {
            let row = sqlx::query("SELECT * FROM tournament_games WHERE match_id = $1")
                .bind(id_text(id))
                .fetch_optional(&self.pool)
                .await
                .map_err(db)?;
            row.as_ref().map(tournament_game_row).transpose()
        })
    }

    fn tournament_games<'a>(
        &'a self,
        tournament: &'a [u8; 32],
        round: u32,
    ) -> StoreFuture<'a, Vec<TournamentGameRow>> {
        Box::pin(async move {
            let rows = sqlx::query(
                "SELECT * FROM tournament_games WHERE tournament = $1 AND round = $2
                 ORDER BY match_id",
            )
            .bind(protocol::hex::encode(tournament))
            .bind(i64::from(round))
            .fetch_all(&self.pool)
            .await
            .map_err(db)?;
            rows.iter().map(tournament_game_row).collect()
        })
    }

    fn join_tournament<'a>(
        &'a self,
        tournament: &'a [u8; 32],
        k: &'a PublicKey,
        at_ms: u64,
    ) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut tx = self.owned().await?;
            sqlx::query(
                "INSERT INTO tournament_joins (tournament, key, joined_ms) VALUES ($1, $2, $3)
                 ON CONFLICT (tournament, key) DO NOTHING",
            )
            .bind(protocol::hex::encode(tournament))
            .bind(k.to_string())
            .bind(ms(at_ms))
            .execute(&mut *tx)
            .await
            .map_err(db)?;
            tx.commit().await.map_err(db)
        })
    }

    fn withdraw_tournament<'a>(
        &'a self,
        tournament: &'a [u8; 32],
        k: &'a PublicKey,
    ) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut tx = self.owned().await?;
            sqlx::query("DELETE FROM tournament_joins WHERE tournament = $1 AND key = $2")
                .bind(protocol::hex::encode(tournament))
                .bind(k.to_string())
                .execute(&mut *tx)
                .await
                .map_err(db)?;
            tx.commit().await.map_err(db)
        })
    }

    fn tournament_joins<'a>(&'a self, tournament: &'a [u8; 32]) -> StoreFuture<'a, Vec<PublicKey>> {
        Box::pin(async move {
            let rows = sqlx::query(
                "SELECT key FROM tournament_joins WHERE tournament = $1 ORDER BY joined_ms, key",
            )
            .bind(protocol::hex::encode(tournament))
            .fetch_all(&self.pool)
            .await
            .map_err(db)?;
            rows.iter().map(|r| key(&r.try_get::<String, _>("key").map_err(db)?)).collect()
        })
    }

    fn put_invitation<'a>(&'a self, row: &'a InvitationRow) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let done = sqlx::query(sqlx::AssertSqlSafe(invitations::numbered(invitations::PUT)))
                .bind(&row.id)
                .bind(protocol::hex::encode(&row.tournament))
                .bind(i64::from(row.round))
                .bind(row.white.to_string())
                .bind(row.black.to_string())
                .bind(ms(row.deadline_ms))
                .bind(&row.challenge)
                .execute(&self.pool)
                .await
                .map_err(db)?;
            Ok(done.rows_affected() == 1)
        })
    }

    fn invitation<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<InvitationRow>> {
        Box::pin(async move {
            let row = sqlx::query(sqlx::AssertSqlSafe(invitations::numbered(invitations::ONE)))
                .bind(id)
                .fetch_optional(&self.pool)
                .await
                .map_err(db)?;
            row.as_ref().map(|r| invitations::invitation_row!(r)).transpose()
        })
    }

    fn invitations<'a>(&'a self, tournament: &'a [u8; 32]) -> StoreFuture<'a, Vec<InvitationRow>> {
        Box::pin(async move {
            let rows =
                sqlx::query(sqlx::AssertSqlSafe(invitations::numbered(invitations::OF_TOURNAMENT)))
                    .bind(protocol::hex::encode(tournament))
                    .fetch_all(&self.pool)
                    .await
                    .map_err(db)?;
            rows.iter().map(|r| invitations::invitation_row!(r)).collect()
        })
    }

    fn invitations_for<'a>(&'a self, k: &'a PublicKey) -> StoreFuture<'a, Vec<InvitationRow>> {
        Box::pin(async move {
            let rows =
                sqlx::query(sqlx::AssertSqlSafe(invitations::numbered(invitations::FOR_KEY)))
                    .bind(k.to_string())
                    .bind(k.to_string())
                    .fetch_all(&self.pool)
                    .await
                    .map_err(db)?;
            rows.iter().map(|r| invitations::invitation_row!(r)).collect()
        })
    }

    fn seat_invitation<'a>(
        &'a self,
        id: &'a str,
        k: &'a PublicKey,
        seat: &'a str,
        now_ms: u64,
    ) -> StoreFuture<'a, Option<InvitationRow>> {
        Box::pin(async move {
            let k = k.to_string();
            let row = sqlx::query(sqlx::AssertSqlSafe(invitations::numbered(invitations::SEAT)))
                .bind(&k)
                .bind(seat)
                .bind(&k)
                .bind(seat)
                .bind(id)
                .bind(&k)
                .bind(&k)
                .bind(ms(now_ms))
                .fetch_optional(&self.pool)
                .await
                .map_err(db)?;
            row.as_ref().map(|r| invitations::invitation_row!(r)).transpose()
        })
    }

    fn hand_invitation<'a>(&'a self, id: &'a str) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let done = sqlx::query(sqlx::AssertSqlSafe(invitations::numbered(invitations::HAND)))
                .bind(id)
                .execute(&self.pool)
                .await
                .map_err(db)?;
            Ok(done.rows_affected() == 1)
        })
    }

    fn remove_invitation<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<InvitationRow>> {
        Box::pin(async move {
            let row = sqlx::query(sqlx::AssertSqlSafe(invitations::numbered(invitations::REMOVE)))
                .bind(id)
                .fetch_optional(&self.pool)
                .await
                .map_err(db)?;
            row.as_ref().map(|r| invitations::invitation_row!(r)).transpose()
        })
    }

    fn end_invitation<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<InvitationRow>> {
        Box::pin(async move {
            let row = sqlx::query(sqlx::AssertSqlSafe(invitations::numbered(invitations::END)))
                .bind(id)
                .fetch_optional(&self.pool)
                .await
                .map_err(db)?;
            row.as_ref().map(|r| invitations::invitation_row!(r)).transpose()
        })
    }

    fn request_tournament_start<'a>(&'a self, tournament: &'a [u8; 32]) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            sqlx::query(sqlx::AssertSqlSafe(invitations::numbered(invitations::REQUEST_START)))
                .bind(protocol::hex::encode(tournament))
                .execute(&self.pool)
                .await
                .map(drop)
                .map_err(db)
        })
    }

    fn tournament_start_requested<'a>(&'a self, tournament: &'a [u8; 32]) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let n: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(invitations::numbered(
                invitations::START_REQUESTED,
            )))
            .bind(protocol::hex::encode(tournament))
            .fetch_one(&self.pool)
            .await
            .map_err(db)?;
            Ok(n > 0)
        })
    }
}

fn tournament_game_row(r: &PgRow) -> Result<TournamentGameRow, StoreError> {
    let t: String = r.try_get("tournament").map_err(db)?;
    Ok(TournamentGameRow {
        match_id: match_id(&r.try_get::<String, _>("match_id").map_err(db)?)?,
        tournament: protocol::hex::decode_array::<32>(&t)
            .ok_or_else(|| StoreError::Corrupt(format!("tournament id {t:?}")))?,
        round: u32::try_from(r.try_get::<i64, _>("round").map_err(db)?)
            .map_err(|e| StoreError::Corrupt(format!("round: {e}")))?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schema_translates_types_only() {
        assert_eq!(
            translate_schema(
                "CREATE TABLE t (a TEXT PRIMARY KEY, b BLOB NOT NULL, c INTEGER, texts TEXT)"
            ),
            "CREATE TABLE t (a TEXT COLLATE \"C\" PRIMARY KEY, b BYTEA NOT NULL, c BIGINT, texts TEXT COLLATE \"C\")"
        );
    }

    #[test]
    fn a_url_names_another_database() {
        assert_eq!(with_database("postgres://u@h:5/db", "x"), "postgres://u@h:5/x");
        assert_eq!(with_database("postgres://u@h:5", "x"), "postgres://u@h:5/x");
        assert_eq!(
            with_database("postgres://u@h/db?sslmode=disable", "x"),
            "postgres://u@h/x?sslmode=disable"
        );
    }
}

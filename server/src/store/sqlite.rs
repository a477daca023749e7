//! The embedded store: SQLite through sqlx, one file `fogproof.sqlite` under the data
//! directory, in WAL mode with `synchronous = FULL` (a commit is on disk when it returns).

use super::{
    Account, ChallengeRow, EntryRow, Finish, InvitationRow, LedgerMark, MatchRow, MatchStatus,
    Store, StoreError, StoreFuture, TournamentGameRow, Write, invitations,
};
use protocol::{MatchId, PublicKey};
use sqlx::sqlite::{
    SqliteArguments, SqliteConnectOptions, SqliteConnection, SqliteJournalMode, SqlitePool,
    SqlitePoolOptions, SqliteRow, SqliteSynchronous,
};
use sqlx::{Connection as _, Row};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

/// The schema shared with PostgreSQL: plain SQL that PostgreSQL reads as well once its types
/// are translated ([`super::postgres::translate_schema`]: BLOB is BYTEA there, INTEGER BIGINT,
/// TEXT compares bytewise as here). The entries are not in it: SQLite keeps them in
/// [`ENTRIES_SCHEMA`], PostgreSQL in [`ENTRIES_BY_TEXT_ID`].
pub(super) const SCHEMA: [&str; 10] = [
    "CREATE TABLE IF NOT EXISTS accounts (
        key TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        created_ms BIGINT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS challenges (
        id TEXT PRIMARY KEY,
        challenger TEXT NOT NULL,
        status TEXT NOT NULL,
        body TEXT NOT NULL,
        created_ms BIGINT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS matches (
        id TEXT PRIMARY KEY,
        terms BLOB NOT NULL,
        variant TEXT NOT NULL,
        player0 TEXT NOT NULL,
        player1 TEXT NOT NULL,
        rated INTEGER NOT NULL,
        challenge TEXT,
        created_ms BIGINT NOT NULL,
        status TEXT NOT NULL,
        finished_ms BIGINT,
        record_sha256 TEXT,
        verdict TEXT,
        result TEXT)",
    "CREATE INDEX IF NOT EXISTS matches_by_status ON matches (status, finished_ms)",
    "CREATE INDEX IF NOT EXISTS challenges_by_status ON challenges (status)",
    // What became of each finished match in the ledger: `appended`, or `refused` with why.
    "CREATE TABLE IF NOT EXISTS ledger_marks (
        match_id TEXT PRIMARY KEY,
        status TEXT NOT NULL,
        note TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS tournament_games (
        match_id TEXT PRIMARY KEY,
        tournament TEXT NOT NULL,
        round BIGINT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS tournament_joins (
        tournament TEXT NOT NULL,
        key TEXT NOT NULL,
        joined_ms BIGINT NOT NULL,
        PRIMARY KEY (tournament, key))",
    // Tournament games being arranged (`super::invitations`): one per pairing.
    "CREATE TABLE IF NOT EXISTS tournament_invitations (
        id TEXT PRIMARY KEY,
        tournament TEXT NOT NULL,
        round BIGINT NOT NULL,
        white TEXT NOT NULL,
        black TEXT NOT NULL,
        deadline_ms BIGINT NOT NULL,
        challenge TEXT NOT NULL,
        white_seat TEXT,
        black_seat TEXT,
        handed INTEGER NOT NULL,
        UNIQUE (tournament, round, white, black))",
    // Tournaments whose organiser asked to start round 1 without waiting for every entrant.
    "CREATE TABLE IF NOT EXISTS tournament_starts (
        tournament TEXT PRIMARY KEY)",
];

/// The entries keyed by the match id's text (64 hex digits): PostgreSQL's table (translated),
/// and SQLite's up to [`SCHEMA_VERSION`] 1, which [`SqliteStore::open`] migrates.
pub(super) const ENTRIES_BY_TEXT_ID: &str = "CREATE TABLE IF NOT EXISTS entries (
        match_id TEXT NOT NULL,
        seq BIGINT NOT NULL,
        entry BLOB NOT NULL,
        PRIMARY KEY (match_id, seq))";

/// SQLite's entries (issue 14): keyed by a small match number, not by the 64-hex-digit id. The
/// primary key's index then holds about 10 bytes per entry instead of about 80, so one group
/// commit of entries from many matches dirties (and writes to the WAL, a whole page each) about
/// half as many index pages (docs/LOADTEST.md, "SQLite's share"). `match_numbers` gives each
/// match id its number (an alias of the rowid, so it never changes, VACUUM included).
const ENTRIES_SCHEMA: [&str; 2] = [
    "CREATE TABLE IF NOT EXISTS match_numbers (
        no INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE)",
    "CREATE TABLE IF NOT EXISTS match_entries (
        match_no INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        entry BLOB NOT NULL,
        PRIMARY KEY (match_no, seq))",
];

/// The version of SQLite's schema, kept in the file's `PRAGMA user_version`: 0 is the schema
/// before it (entries in [`ENTRIES_BY_TEXT_ID`]), 1 this one. A file of a later version (a
/// newer fogproof's) is refused rather than misread.
const SCHEMA_VERSION: i64 = 1;

/// Marks the file as [`SCHEMA_VERSION`] (a PRAGMA takes no bound parameter).
const SET_SCHEMA_VERSION: &str = "PRAGMA user_version = 1";

/// From version 0 to 1, in the transaction that creates the schema: every match id of the old
/// table numbered (in the order its first entry was stored), every entry copied under its
/// match's number, and the old table dropped.
const MIGRATE_FROM_TEXT_IDS: [&str; 3] = [
    "INSERT OR IGNORE INTO match_numbers (id)
        SELECT match_id FROM entries GROUP BY match_id ORDER BY min(rowid), match_id",
    "INSERT INTO match_entries (match_no, seq, entry)
        SELECT n.no, e.seq, e.entry FROM entries e JOIN match_numbers n ON n.id = e.match_id
        ORDER BY n.no, e.seq",
    "DROP TABLE entries",
];

/// The most match numbers a store keeps in memory ([`SqliteStore`]'s `numbers`: about 100
/// bytes each). A finished match's is dropped; past this, all are, and each is read again
/// from `match_numbers` by the next group commit that needs it.
pub const MAX_KNOWN_MATCH_NUMBERS: usize = 65_536;

/// The SQLite store.
#[derive(Clone, Debug)]
pub struct SqliteStore {
    pool: SqlitePool,
    /// The connection every write of entries takes (group commits, appends, new matches): one
    /// held by the store rather than taken from `pool` each time (the pool pings a connection's
    /// thread when it hands it out and again when it is given back: two more round trips a
    /// group commit). `None` after a write that failed or was dropped part way (its connection
    /// closed, which rolled back what it had begun), until the next write opens a new one.
    writer: Arc<tokio::sync::Mutex<Option<SqliteConnection>>>,
    /// How `writer` is opened again.
    options: SqliteConnectOptions,
    /// The numbers of matches in `match_numbers`, once their transaction is committed (a
    /// number given in a transaction that rolled back may be given to another match). With
    /// every match of a group commit here, the commit is one statement: no `match_numbers`
    /// statement and no lookup of a number by its text id per row.
    numbers: Arc<Mutex<BTreeMap<MatchId, i64>>>,
}

fn db(e: sqlx::Error) -> StoreError {
    StoreError::Database(e.to_string())
}

pub(super) fn ms(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

pub(super) fn from_ms(v: i64) -> u64 {
    u64::try_from(v).unwrap_or(0)
}

pub(super) fn key(text: &str) -> Result<PublicKey, StoreError> {
    text.parse().map_err(|e| StoreError::Corrupt(format!("{e}")))
}

pub(super) fn match_id(text: &str) -> Result<MatchId, StoreError> {
    protocol::hex::decode_array::<32>(text)
        .map(MatchId)
        .ok_or_else(|| StoreError::Corrupt(format!("match id {text:?}")))
}

/// The text form of a match id in the store and the API: 64 hex digits.
pub fn id_text(id: &MatchId) -> String {
    protocol::hex::encode(&id.0)
}

impl SqliteStore {
    /// Opens (creating if needed) `fogproof.sqlite` in `dir`.
    pub async fn open(dir: &Path) -> Result<SqliteStore, StoreError> {
        std::fs::create_dir_all(dir)
            .map_err(|e| StoreError::Database(format!("{}: {e}", dir.display())))?;
        let options = SqliteConnectOptions::new()
            .filename(dir.join("fogproof.sqlite"))
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Full)
            .busy_timeout(std::time::Duration::from_secs(10));
        // No test of a connection when it is taken from the pool: it is a thread of this
        // process, not a socket that may have been closed (the pool still tests it when it is
        // given back).
        let pool = SqlitePoolOptions::new()
            .max_connections(4)
            .test_before_acquire(false)
            .connect_with(options.clone())
            .await
            .map_err(db)?;
        // The schema, and the migration of a file an older fogproof wrote, in one transaction:
        // a crash leaves the file as it was or wholly migrated.
        let mut tx = pool.begin().await.map_err(db)?;
        for statement in SCHEMA.iter().chain(&ENTRIES_SCHEMA) {
            sqlx::query(*statement).execute(&mut *tx).await.map_err(db)?;
        }
        let version: i64 =
            sqlx::query_scalar("PRAGMA user_version").fetch_one(&mut *tx).await.map_err(db)?;
        if version > SCHEMA_VERSION {
            return Err(StoreError::Database(format!(
                "{}: schema version {version}, newer than this fogproof's ({SCHEMA_VERSION})",
                dir.join("fogproof.sqlite").display()
            )));
        }
        if version < SCHEMA_VERSION {
            let old: i64 = sqlx::query_scalar(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'entries'",
            )
            .fetch_one(&mut *tx)
            .await
            .map_err(db)?;
            if old > 0 {
                for statement in MIGRATE_FROM_TEXT_IDS {
                    sqlx::query(statement).execute(&mut *tx).await.map_err(db)?;
                }
            }
            sqlx::query(SET_SCHEMA_VERSION).execute(&mut *tx).await.map_err(db)?;
        }
        tx.commit().await.map_err(db)?;
        let writer = SqliteConnection::connect_with(&options).await.map_err(db)?;
        Ok(SqliteStore {
            pool,
            writer: Arc::new(tokio::sync::Mutex::new(Some(writer))),
            options,
            numbers: Arc::new(Mutex::new(BTreeMap::new())),
        })
    }

    /// The numbers known in memory (a panic while it was held left it whole: every change to
    /// it is one insert, remove or clear).
    fn known_numbers(&self) -> std::sync::MutexGuard<'_, BTreeMap<MatchId, i64>> {
        self.numbers.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The number of each row's match, if every one is known in memory.
    fn numbers_in_memory(&self, rows: &[&EntryRow]) -> Option<Vec<i64>> {
        let known = self.known_numbers();
        rows.iter().map(|e| known.get(&e.match_id).copied()).collect()
    }

    /// Remembers numbers whose transaction has committed.
    fn remember(&self, numbers: &[(MatchId, i64)]) {
        let mut known = self.known_numbers();
        for (id, no) in numbers {
            if known.len() >= MAX_KNOWN_MATCH_NUMBERS && !known.contains_key(id) {
                known.clear();
            }
            known.insert(*id, *no);
        }
    }

    /// Writes `batch` in one transaction on the store's writing connection.
    ///
    /// The common group commit (entries only, of matches whose numbers are in memory, at most
    /// [`MAX_ROWS_PER_INSERT`]) is ONE statement, one INSERT of every row in SQLite's
    /// autocommit mode: one request to the connection's thread, and its own transaction,
    /// which a refused row rolls back whole. (Inside `BEGIN … COMMIT` the same statement would
    /// also copy every page it changes to a statement journal, to undo the statement alone,
    /// spilled to a temporary file past 64 KiB: in the profile of a loaded server, 2% of its
    /// CPU opened, wrote and closed that file.) Anything else (new matches,
    /// challenges, a match not numbered in memory: a new one, or one resumed after a restart)
    /// takes a transaction of a few statements, which also numbers the matches.
    async fn write(&self, batch: &[Write]) -> Result<(), StoreError> {
        let mut writer = self.writer.lock().await;
        // Taken out while it writes: if this future is dropped part way (a transaction
        // perhaps begun), the connection goes with it, and closing it rolls the transaction
        // back. After an error it is closed too; the next write opens another.
        let mut conn = match writer.take() {
            Some(conn) => conn,
            None => SqliteConnection::connect_with(&self.options).await.map_err(db)?,
        };
        match self.write_on(&mut conn, batch).await {
            Ok(()) => {
                *writer = Some(conn);
                Ok(())
            }
            Err(e) => {
                let _ = conn.close().await;
                Err(e)
            }
        }
    }

    /// [`SqliteStore::write`] on `conn`.
    async fn write_on(
        &self,
        conn: &mut SqliteConnection,
        batch: &[Write],
    ) -> Result<(), StoreError> {
        let rows: Vec<&EntryRow> = batch
            .iter()
            .flat_map(|w| match w {
                Write::Entries(rows) => rows.as_slice(),
                Write::Match(_, first) => first.as_slice(),
                Write::Challenge(_) => &[],
            })
            .collect();
        let entries_only = batch.iter().all(|w| matches!(w, Write::Entries(_)));
        if entries_only && rows.is_empty() {
            return Ok(());
        }
        if entries_only
            && rows.len() <= MAX_ROWS_PER_INSERT
            && let Some(numbers) = self.numbers_in_memory(&rows)
        {
            bind_entries(insert_entries_text(rows.len()), &rows, &numbers)
                .execute(&mut *conn)
                .await
                .map_err(db)?;
            return Ok(());
        }
        let mut tx = conn.begin().await.map_err(db)?;
        for w in batch {
            match w {
                Write::Match(row, _) => insert_match_row(&mut tx, row).await?,
                Write::Challenge(c) => {
                    upsert_challenge(c).execute(&mut *tx).await.map_err(db)?;
                }
                Write::Entries(_) => {}
            }
        }
        let (numbers, new) = self.number(&mut tx, &rows).await?;
        for (chunk, nos) in
            rows.chunks(MAX_ROWS_PER_INSERT).zip(numbers.chunks(MAX_ROWS_PER_INSERT))
        {
            bind_entries(insert_entries_text(chunk.len()), chunk, nos)
                .execute(&mut *tx)
                .await
                .map_err(db)?;
        }
        tx.commit().await.map_err(db)?;
        self.remember(&new);
        Ok(())
    }

    /// The number of each row's match inside the transaction `tx`: from memory, else from
    /// `match_numbers`, where a match without one is numbered first. Also returns the numbers
    /// read or given here, to remember once `tx` commits.
    async fn number(
        &self,
        tx: &mut SqliteConnection,
        rows: &[&EntryRow],
    ) -> Result<(Vec<i64>, Vec<(MatchId, i64)>), StoreError> {
        let mut numbers = BTreeMap::new();
        let mut unknown = BTreeSet::new();
        {
            let known = self.known_numbers();
            for e in rows {
                match known.get(&e.match_id) {
                    Some(no) => {
                        numbers.insert(e.match_id, *no);
                    }
                    None => {
                        unknown.insert(e.match_id);
                    }
                }
            }
        }
        let unknown: Vec<String> = unknown.iter().map(id_text).collect();
        for chunk in insert_chunks(&unknown) {
            let mut q = sqlx::QueryBuilder::<sqlx::Sqlite>::new(
                "INSERT OR IGNORE INTO match_numbers (id) ",
            );
            q.push_values(chunk, |mut row, id| {
                row.push_bind(id.as_str());
            });
            q.build().execute(&mut *tx).await.map_err(db)?;
        }
        let mut new = Vec::with_capacity(unknown.len());
        for chunk in insert_chunks(&unknown) {
            let mut q = sqlx::QueryBuilder::<sqlx::Sqlite>::new(
                "SELECT id, no FROM match_numbers WHERE id IN (",
            );
            let mut ids = q.separated(", ");
            for id in chunk {
                ids.push_bind(id.as_str());
            }
            q.push(")");
            for r in q.build().fetch_all(&mut *tx).await.map_err(db)? {
                let id = match_id(&r.try_get::<String, _>("id").map_err(db)?)?;
                let no: i64 = r.try_get("no").map_err(db)?;
                numbers.insert(id, no);
                new.push((id, no));
            }
        }
        let numbers = rows
            .iter()
            .map(|e| {
                numbers.get(&e.match_id).copied().ok_or_else(|| {
                    StoreError::Corrupt(format!(
                        "match {} was given no number",
                        id_text(&e.match_id)
                    ))
                })
            })
            .collect::<Result<_, _>>()?;
        Ok((numbers, new))
    }

    fn match_row(row: &SqliteRow) -> Result<MatchRow, StoreError> {
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

/// The most rows one INSERT statement takes (3 parameters each, far below SQLite's limit on
/// the parameters of a statement); a group commit of more takes several.
const MAX_ROWS_PER_INSERT: usize = 256;

/// `rows` cut into INSERTs of [`MAX_ROWS_PER_INSERT`] rows, then of powers of two (35 rows are
/// 32, 2 and 1): so there are at most 9 texts of each INSERT, and every one stays in each
/// connection's statement cache (sqlx's, 100 statements) instead of a new statement to prepare
/// for each length. (The numbering of new matches; the entries pad instead.)
fn insert_chunks<T>(mut rows: &[T]) -> impl Iterator<Item = &[T]> {
    std::iter::from_fn(move || {
        let n = match rows.len() {
            0 => return None,
            n if n >= MAX_ROWS_PER_INSERT => MAX_ROWS_PER_INSERT,
            n => 1 << n.ilog2(),
        };
        let (chunk, rest) = rows.split_at(n);
        rows = rest;
        Some(chunk)
    })
}

/// The INSERT of `rows` entries (at most [`MAX_ROWS_PER_INSERT`]): its rows' count rounded up
/// to a power of two, the rows past `rows` bound to NULL and left out by its `WHERE`, so there
/// are 9 texts and every one stays in the connection's statement cache.
fn insert_entries_text(rows: usize) -> &'static str {
    static TEXTS: OnceLock<Vec<String>> = OnceLock::new();
    let texts = TEXTS.get_or_init(|| {
        (0..=MAX_ROWS_PER_INSERT.ilog2())
            .map(|class| {
                let values = vec!["(?, ?, ?)"; 1 << class].join(", ");
                format!(
                    "INSERT INTO match_entries (match_no, seq, entry)
                     SELECT column1, column2, column3 FROM (VALUES {values})
                     WHERE column1 IS NOT NULL"
                )
            })
            .collect()
    });
    let class = rows.clamp(1, MAX_ROWS_PER_INSERT).next_power_of_two().ilog2() as usize;
    texts[class].as_str()
}

/// `text` ([`insert_entries_text`]) with `rows` bound under their matches' `numbers`, and
/// NULLs for the rows the text has beyond them.
fn bind_entries<'q>(
    text: &'static str,
    rows: &[&EntryRow],
    numbers: &[i64],
) -> sqlx::query::Query<'q, sqlx::Sqlite, SqliteArguments> {
    let mut q = sqlx::query(text);
    for (e, no) in rows.iter().zip(numbers) {
        q = q.bind(*no).bind(ms(e.seq)).bind(e.bytes.clone());
    }
    for _ in rows.len()..rows.len().max(1).next_power_of_two() {
        q = q.bind(None::<i64>).bind(None::<i64>).bind(None::<Vec<u8>>);
    }
    q
}

const UPSERT_CHALLENGE: &str = "INSERT INTO challenges (id, challenger, status, body, created_ms)
     VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET status = excluded.status, body = excluded.body";

fn upsert_challenge(
    c: &ChallengeRow,
) -> sqlx::query::Query<'_, sqlx::Sqlite, sqlx::sqlite::SqliteArguments> {
    sqlx::query(UPSERT_CHALLENGE)
        .bind(&c.id)
        .bind(c.challenger.to_string())
        .bind(&c.status)
        .bind(&c.body)
        .bind(ms(c.created_ms))
}

/// A new match's row alone, on `conn` (the storage suite also writes a file of the schema
/// before version 1 with it).
pub(super) async fn insert_match_row(
    conn: &mut sqlx::SqliteConnection,
    row: &MatchRow,
) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO matches (id, terms, variant, player0, player1, rated, challenge,
         created_ms, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
    Ok(())
}

impl Store for SqliteStore {
    fn put_account<'a>(&'a self, account: &'a Account) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            sqlx::query(
                "INSERT INTO accounts (key, name, created_ms) VALUES (?, ?, ?)
                 ON CONFLICT (key) DO UPDATE SET name = excluded.name",
            )
            .bind(account.key.to_string())
            .bind(&account.name)
            .bind(ms(account.created_ms))
            .execute(&self.pool)
            .await
            .map_err(db)?;
            Ok(())
        })
    }

    fn account<'a>(&'a self, key: &'a PublicKey) -> StoreFuture<'a, Option<Account>> {
        Box::pin(async move {
            let row = sqlx::query("SELECT name, created_ms FROM accounts WHERE key = ?")
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
            upsert_challenge(c).execute(&self.pool).await.map_err(db)?;
            Ok(())
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
        Box::pin(async move { self.write(&[Write::Match(row.clone(), first.to_vec())]).await })
    }

    fn write_batch<'a>(&'a self, batch: &'a [Write]) -> StoreFuture<'a, ()> {
        Box::pin(self.write(batch))
    }

    fn append_entries<'a>(&'a self, rows: &'a [EntryRow]) -> StoreFuture<'a, ()> {
        Box::pin(async move { self.write(&[Write::Entries(rows.to_vec())]).await })
    }

    fn finish_match<'a>(&'a self, id: &'a MatchId, f: &'a Finish) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            sqlx::query(
                "UPDATE matches SET status = 'finished', finished_ms = ?, record_sha256 = ?,
                 verdict = ?, result = ? WHERE id = ?",
            )
            .bind(ms(f.finished_ms))
            .bind(protocol::hex::encode(&f.record_sha256))
            .bind(&f.verdict)
            .bind(&f.result)
            .bind(id_text(id))
            .execute(&self.pool)
            .await
            .map_err(db)?;
            // Its entries are all stored: its number is no longer needed in memory.
            self.known_numbers().remove(id);
            Ok(())
        })
    }

    fn get_match<'a>(&'a self, id: &'a MatchId) -> StoreFuture<'a, Option<MatchRow>> {
        Box::pin(async move {
            let row = sqlx::query("SELECT * FROM matches WHERE id = ?")
                .bind(id_text(id))
                .fetch_optional(&self.pool)
                .await
                .map_err(db)?;
            row.as_ref().map(SqliteStore::match_row).transpose()
        })
    }

    fn live_matches(&self) -> StoreFuture<'_, Vec<MatchRow>> {
        Box::pin(async move {
            let rows =
                sqlx::query("SELECT * FROM matches WHERE status = 'live' ORDER BY created_ms, id")
                    .fetch_all(&self.pool)
                    .await
                    .map_err(db)?;
            rows.iter().map(SqliteStore::match_row).collect()
        })
    }

    fn finished_matches(&self, limit: u32) -> StoreFuture<'_, Vec<MatchRow>> {
        Box::pin(async move {
            let rows = sqlx::query(
                "SELECT * FROM matches WHERE status = 'finished'
                 ORDER BY finished_ms DESC, id LIMIT ?",
            )
            .bind(i64::from(limit))
            .fetch_all(&self.pool)
            .await
            .map_err(db)?;
            rows.iter().map(SqliteStore::match_row).collect()
        })
    }

    fn entries<'a>(&'a self, id: &'a MatchId) -> StoreFuture<'a, Vec<Vec<u8>>> {
        Box::pin(async move {
            let rows = sqlx::query(
                "SELECT e.seq, e.entry FROM match_numbers n
                     JOIN match_entries e ON e.match_no = n.no WHERE n.id = ? ORDER BY e.seq",
            )
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
                 ORDER BY m.finished_ms, m.id LIMIT ?",
            )
            .bind(i64::from(limit))
            .fetch_all(&self.pool)
            .await
            .map_err(db)?;
            rows.iter().map(SqliteStore::match_row).collect()
        })
    }

    fn mark_ledgered<'a>(&'a self, marks: &'a [(MatchId, LedgerMark)]) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut tx = self.pool.begin().await.map_err(db)?;
            for (id, mark) in marks {
                let (status, note) = match mark {
                    LedgerMark::Appended => ("appended", ""),
                    LedgerMark::Refused(why) => ("refused", why.as_str()),
                };
                sqlx::query(
                    "INSERT INTO ledger_marks (match_id, status, note) VALUES (?, ?, ?)
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
                "SELECT match_id FROM ledger_marks WHERE status = 'appended' AND match_id > ?
                 ORDER BY match_id LIMIT ?",
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
            let mut tx = self.pool.begin().await.map_err(db)?;
            for id in ids {
                sqlx::query("DELETE FROM ledger_marks WHERE match_id = ?")
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
            sqlx::query(
                "INSERT INTO tournament_games (match_id, tournament, round) VALUES (?, ?, ?)
                 ON CONFLICT (match_id) DO NOTHING",
            )
            .bind(id_text(&row.match_id))
            .bind(protocol::hex::encode(&row.tournament))
            .bind(i64::from(row.round))
            .execute(&self.pool)
            .await
            .map_err(db)?;
            Ok(())
        })
    }

    fn tournament_game<'a>(
        &'a self,
        id: &'a MatchId,
    ) -> StoreFuture<'a, Option<TournamentGameRow>> {
        Box::pin(async move {
            let row = sqlx::query("SELECT * FROM tournament_games WHERE match_id = ?")
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
                "SELECT * FROM tournament_games WHERE tournament = ? AND round = ?
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
            sqlx::query(
                "INSERT INTO tournament_joins (tournament, key, joined_ms) VALUES (?, ?, ?)
                 ON CONFLICT (tournament, key) DO NOTHING",
            )
            .bind(protocol::hex::encode(tournament))
            .bind(k.to_string())
            .bind(ms(at_ms))
            .execute(&self.pool)
            .await
            .map_err(db)?;
            Ok(())
        })
    }

    fn withdraw_tournament<'a>(
        &'a self,
        tournament: &'a [u8; 32],
        k: &'a PublicKey,
    ) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            sqlx::query("DELETE FROM tournament_joins WHERE tournament = ? AND key = ?")
                .bind(protocol::hex::encode(tournament))
                .bind(k.to_string())
                .execute(&self.pool)
                .await
                .map_err(db)?;
            Ok(())
        })
    }

    fn tournament_joins<'a>(&'a self, tournament: &'a [u8; 32]) -> StoreFuture<'a, Vec<PublicKey>> {
        Box::pin(async move {
            let rows = sqlx::query(
                "SELECT key FROM tournament_joins WHERE tournament = ? ORDER BY joined_ms, key",
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
            let done = sqlx::query(invitations::PUT)
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
            let row = sqlx::query(invitations::ONE)
                .bind(id)
                .fetch_optional(&self.pool)
                .await
                .map_err(db)?;
            row.as_ref().map(|r| invitations::invitation_row!(r)).transpose()
        })
    }

    fn invitations<'a>(&'a self, tournament: &'a [u8; 32]) -> StoreFuture<'a, Vec<InvitationRow>> {
        Box::pin(async move {
            let rows = sqlx::query(invitations::OF_TOURNAMENT)
                .bind(protocol::hex::encode(tournament))
                .fetch_all(&self.pool)
                .await
                .map_err(db)?;
            rows.iter().map(|r| invitations::invitation_row!(r)).collect()
        })
    }

    fn invitations_for<'a>(&'a self, k: &'a PublicKey) -> StoreFuture<'a, Vec<InvitationRow>> {
        Box::pin(async move {
            let rows = sqlx::query(invitations::FOR_KEY)
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
            let row = sqlx::query(invitations::SEAT)
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
            let done =
                sqlx::query(invitations::HAND).bind(id).execute(&self.pool).await.map_err(db)?;
            Ok(done.rows_affected() == 1)
        })
    }

    fn remove_invitation<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<InvitationRow>> {
        Box::pin(async move {
            let row = sqlx::query(invitations::REMOVE)
                .bind(id)
                .fetch_optional(&self.pool)
                .await
                .map_err(db)?;
            row.as_ref().map(|r| invitations::invitation_row!(r)).transpose()
        })
    }

    fn end_invitation<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<InvitationRow>> {
        Box::pin(async move {
            let row = sqlx::query(invitations::END)
                .bind(id)
                .fetch_optional(&self.pool)
                .await
                .map_err(db)?;
            row.as_ref().map(|r| invitations::invitation_row!(r)).transpose()
        })
    }

    fn request_tournament_start<'a>(&'a self, tournament: &'a [u8; 32]) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            sqlx::query(invitations::REQUEST_START)
                .bind(protocol::hex::encode(tournament))
                .execute(&self.pool)
                .await
                .map(drop)
                .map_err(db)
        })
    }

    fn tournament_start_requested<'a>(&'a self, tournament: &'a [u8; 32]) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let n: i64 = sqlx::query_scalar(invitations::START_REQUESTED)
                .bind(protocol::hex::encode(tournament))
                .fetch_one(&self.pool)
                .await
                .map_err(db)?;
            Ok(n > 0)
        })
    }
}

fn tournament_game_row(r: &SqliteRow) -> Result<TournamentGameRow, StoreError> {
    let t: String = r.try_get("tournament").map_err(db)?;
    Ok(TournamentGameRow {
        match_id: match_id(&r.try_get::<String, _>("match_id").map_err(db)?)?,
        tournament: protocol::hex::decode_array::<32>(&t)
            .ok_or_else(|| StoreError::Corrupt(format!("tournament id {t:?}")))?,
        round: u32::try_from(r.try_get::<i64, _>("round").map_err(db)?)
            .map_err(|e| StoreError::Corrupt(format!("round: {e}")))?,
    })
}

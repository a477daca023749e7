//! The server's ledger (docs/SERVER.md, the ledger): it owns a `ledger::Ledger`, appends every
//! finished match to it within seconds; `crate::http::ledger` serves the log read-only at
//! `/ledger/` in the C2SP tlog-tiles layout, exactly as the files in the log directory, and its
//! JSON APIs. This module is below `crate::state`: the appender is given the server as a
//! [`LedgerHost`].
//!
//! **The appender** is one task. Each `append_interval_ms` (and once at start) it reads from
//! the store the finished matches that have no ledger mark yet, rebuilds each record from the
//! stored entries, and appends them as one batch (`Ledger::append` verifies every record, writes
//! tiles and the checkpoint durably), then marks them `appended` in the store. The ledger, not
//! the mark, is the truth: a crash after the append and before the mark is seen at the next
//! round (the ledger already holds the match id) and only the mark is written, so nothing is
//! appended twice; a crash before the append leaves the match unmarked, so it is appended after
//! the restart: nothing finished is lost.
//!
//! **What the log holds** follows the ledger's rules (docs/LEDGER.md): every record whose terms
//! can be read goes in, valid or not (a record with faults goes in with its verdict naming the
//! culprits: that is what the log is for). A record the ledger refuses (its terms cannot be
//! read, or it does not fit the log: e.g. it names a tournament round it was not paired in)
//! is marked `refused` with the reason, logged, and counted in
//! `fogproof_ledger_refused_total`; the rest of its batch is appended and the appender goes on.
//! A write failure (disk full, ...) leaves the batch unmarked, counted in
//! `fogproof_ledger_write_failures_total`, and retried at the next round.
//!
//! **At start** ([`reconcile`]), before the appender's first round, every match the store
//! marks `appended` is looked up in the log; one the log lacks (a log directory restored from
//! an older copy, or written over by a second server before the data-directory lock existed)
//! loses its mark, so the appender appends it again: the store never says "in the log" of a
//! match the log does not hold. Counted in `fogproof_ledger_reconciled_total`.

use crate::admission::lock;
use crate::error::AppError;
use crate::store::{LedgerMark, MatchRow, Store};
use axum::http::StatusCode;
use ledger::entry::TournamentRound;
use ledger::{AppendError, Ledger, Submission};
use std::collections::{BTreeMap, VecDeque};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// Why the ledger could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum LedgerStartError {
    /// The log in the directory could not be opened or created.
    #[error("ledger in {dir}: {source}")]
    Open {
        /// The log directory.
        dir: PathBuf,
        /// Why.
        source: ledger::service::LedgerError,
    },
    /// The blocking task failed.
    #[error("ledger task: {0}")]
    Task(String),
}

/// The server's ledger: the log writer behind a mutex, called from blocking tasks.
pub struct ServerLedger {
    ledger: Mutex<Ledger>,
    /// The verifications made when matches ended here, kept for the appender.
    kept: Mutex<KeptVerifications>,
    /// The log directory served at `/ledger/`.
    pub dir: PathBuf,
    /// The log's verifier key (`fogproof ledger key`).
    pub vkey: String,
}

/// How many verifications of ended matches the appender may be handed
/// ([`ServerLedger::keep_verification`]): about a minute of match ends at 60 per second, and
/// at most a few MiB (a verification is a few hundred bytes, its listed faults capped).
pub const MAX_KEPT_VERIFICATIONS: usize = 4096;

/// The verifications kept for the appender, by match id, and their order (oldest first).
#[derive(Default)]
struct KeptVerifications {
    by_id: BTreeMap<[u8; 32], Arc<verifier::VerifiedMatch>>,
    order: VecDeque<[u8; 32]>,
}

impl KeptVerifications {
    fn keep(&mut self, id: [u8; 32], verified: Arc<verifier::VerifiedMatch>) {
        if self.by_id.insert(id, verified).is_none() {
            self.order.push_back(id);
        }
        // The oldest go first; the ids of verifications already taken leave `order` here too.
        while self.by_id.len() > MAX_KEPT_VERIFICATIONS
            || self.order.len() > 2 * MAX_KEPT_VERIFICATIONS
        {
            let Some(old) = self.order.pop_front() else { break };
            self.by_id.remove(&old);
        }
    }
}

impl std::fmt::Debug for ServerLedger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerLedger").field("dir", &self.dir).finish_non_exhaustive()
    }
}

impl ServerLedger {
    /// Opens the log in `config.dir`, creating an empty one on first start.
    pub async fn open(
        config: &crate::config::LedgerConfig,
    ) -> Result<ServerLedger, LedgerStartError> {
        let dir = config.dir.clone();
        let key = config.key.clone();
        tokio::task::spawn_blocking(move || {
            let opened = if dir.join("checkpoint").exists() {
                Ledger::open(&dir, key)
            } else {
                Ledger::create(&dir, key)
            };
            let ledger =
                opened.map_err(|source| LedgerStartError::Open { dir: dir.clone(), source })?;
            let vkey = ledger.verifier_key().to_string();
            Ok(ServerLedger {
                ledger: Mutex::new(ledger),
                kept: Mutex::new(KeptVerifications::default()),
                dir,
                vkey,
            })
        })
        .await
        .map_err(|e| LedgerStartError::Task(e.to_string()))?
    }

    /// Keeps the verification made when `m` ended (by its match task), so that the appender
    /// does not verify the record a second time ([`Submission::Verified`]). At most
    /// [`MAX_KEPT_VERIFICATIONS`] are kept, the oldest dropped first; a match whose
    /// verification was dropped (or that ended on another node, or before a restart) is
    /// verified by the ledger as it is appended.
    pub fn keep_verification(&self, m: &crate::finished::FinishedMatch) {
        lock(&self.kept).keep(m.row.id.0, Arc::new(m.verified.clone()));
    }

    /// Takes the kept verification of match `id`, if any.
    fn take_verification(&self, id: &[u8; 32]) -> Option<Arc<verifier::VerifiedMatch>> {
        lock(&self.kept).by_id.remove(id)
    }

    /// Makes the server's clock the log's own clock (what a record's close time may not run
    /// ahead of by more than the tolerance: [`Ledger::set_clock`]).
    pub fn set_clock(&self, clock: Arc<dyn crate::clock::Clock>) {
        lock(&self.ledger).set_clock(Box::new(move || clock.now_ms()));
    }

    /// Runs `f` on the ledger in a blocking task (every call may read files; appends verify
    /// records and fsync).
    pub async fn with<T: Send + 'static>(
        self: &Arc<Self>,
        f: impl FnOnce(&mut Ledger) -> T + Send + 'static,
    ) -> Result<T, AppError> {
        let me = self.clone();
        tokio::task::spawn_blocking(move || f(&mut lock(&me.ledger)))
            .await
            .map_err(|e| AppError::new(StatusCode::INTERNAL_SERVER_ERROR, format!("ledger: {e}")))
    }
}

impl crate::witnessing::CosignedLog for Arc<ServerLedger> {
    async fn with_log<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Ledger) -> T + Send + 'static,
    ) -> Result<T, String> {
        self.with(f).await.map_err(|e| e.message)
    }
}

/// What the appender uses of the server (`crate::state::Shared` implements it): this module
/// stays below the server's shared state, which holds a [`ServerLedger`].
pub trait LedgerHost: Send + Sync + 'static {
    /// The store the finished matches are read from and marked in.
    fn ledger_store(&self) -> &dyn Store;
    /// The server's configuration (its witnesses).
    fn ledger_config(&self) -> &crate::config::Config;
    /// A receiver that sees `true` once the server shuts down.
    fn stop_signal(&self) -> tokio::sync::watch::Receiver<bool>;
}

/// Runs the appender until the server shuts down: once at start (whatever finished before a
/// crash and is not in the log yet), then every `append_interval_ms`; each round only while
/// `leads()` (a cluster's ledger leader, `crate::leader`; a single server always leads).
pub async fn appender<H: LedgerHost>(
    shared: Arc<H>,
    l: Arc<ServerLedger>,
    interval_ms: u64,
    batch: usize,
    leads: impl Fn() -> bool + Send + 'static,
) {
    let mut stop = shared.stop_signal();
    let mut tick = tokio::time::interval(std::time::Duration::from_millis(interval_ms.max(1)));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let witnessing = crate::witnessing::Witnessing::of(shared.ledger_config());
    loop {
        tokio::select! {
            _ = tick.tick() => {}
            _ = stop.changed() => break,
        }
        if !leads() {
            continue;
        }
        match append_finished(&shared, &l, batch).await {
            Ok(0) => {}
            Ok(n) => tracing::debug!(matches = n, "appended to the ledger"),
            Err(e) => {
                metrics::counter!(crate::metrics::LEDGER_WRITE_FAILURES).increment(1);
                tracing::error!(error = %e, "ledger append failed; retried at the next round");
            }
        }
        // The witnesses' cosignatures on the new checkpoint (crate::witnessing).
        witnessing.round(&l).await;
    }
}

/// Counter: matches the store marked appended that the log lacked at start (appended again).
pub const LEDGER_RECONCILED: &str = "fogproof_ledger_reconciled_total";

/// Matches the reconciliation reads from the store at a time.
const RECONCILE_PAGE: u32 = 4096;

/// Takes the `appended` mark off every match the log does not hold, so the appender appends
/// it; returns how many. Run at start, before the appender.
pub async fn reconcile<H: LedgerHost>(
    shared: &Arc<H>,
    l: &Arc<ServerLedger>,
) -> Result<usize, String> {
    let mut after: Option<protocol::MatchId> = None;
    let mut missing = Vec::new();
    loop {
        let ids = shared
            .ledger_store()
            .appended_after(after.as_ref(), RECONCILE_PAGE)
            .await
            .map_err(|e| e.to_string())?;
        let Some(last) = ids.last().copied() else { break };
        after = Some(last);
        let lacking: Vec<protocol::MatchId> = l
            .with(move |led| {
                ids.into_iter().filter(|id| led.history().match_index(&id.0).is_none()).collect()
            })
            .await
            .map_err(|e| e.message)?;
        missing.extend(lacking);
    }
    if !missing.is_empty() {
        for id in &missing {
            tracing::warn!(
                match_id = %crate::store::sqlite::id_text(id),
                "the store marks this match appended but the log lacks it: appending it again"
            );
        }
        shared.ledger_store().unmark_ledgered(&missing).await.map_err(|e| e.to_string())?;
        metrics::counter!(LEDGER_RECONCILED).increment(missing.len() as u64);
    }
    Ok(missing.len())
}

/// Appends every finished match the ledger does not hold yet, in batches of at most `batch`;
/// returns how many were appended.
pub async fn append_finished<H: LedgerHost>(
    shared: &Arc<H>,
    l: &Arc<ServerLedger>,
    batch: usize,
) -> Result<usize, String> {
    let mut appended = 0;
    loop {
        let limit = u32::try_from(batch.max(1)).unwrap_or(u32::MAX);
        let rows = shared.ledger_store().unledgered(limit).await.map_err(|e| e.to_string())?;
        if rows.is_empty() {
            return Ok(appended);
        }
        // Matches the ledger already holds (a crash between the append and the mark): mark only.
        let ids: Vec<[u8; 32]> = rows.iter().map(|r| r.id.0).collect();
        let held: Vec<bool> = l
            .with(move |led| ids.iter().map(|id| led.history().match_index(id).is_some()).collect())
            .await
            .map_err(|e| e.message)?;
        let mut marks = Vec::new();
        let mut todo: Vec<(MatchRow, Submission)> = Vec::new();
        for (row, held) in rows.into_iter().zip(held) {
            if held {
                marks.push((row.id, LedgerMark::Appended));
                continue;
            }
            match submission(shared.ledger_store(), &row, l.take_verification(&row.id.0)).await {
                Ok(s) => todo.push((row, s)),
                Err(why) => {
                    refused(&row, &why);
                    marks.push((row.id, LedgerMark::Refused(why)));
                }
            }
        }
        // Append; a refused submission is marked and taken out, the rest tried again.
        while !todo.is_empty() {
            let subs: Vec<Submission> = todo.iter().map(|(_, s)| s.clone()).collect();
            let result = l
                .with(move |led| match led.append(&subs) {
                    Ok(_) => Ok(()),
                    Err(AppendError::Refused { index, source }) => {
                        Err(Ok((index, source.to_string())))
                    }
                    Err(AppendError::Inconsistent { index, source }) => {
                        Err(Ok((index, source.to_string())))
                    }
                    Err(AppendError::Write(e)) => Err(Err(e.to_string())),
                })
                .await
                .map_err(|e| e.message)?;
            match result {
                Ok(()) => {
                    metrics::counter!(crate::metrics::LEDGER_APPENDED).increment(todo.len() as u64);
                    appended += todo.len();
                    marks.extend(todo.drain(..).map(|(r, _)| (r.id, LedgerMark::Appended)));
                }
                Err(Ok((index, why))) => {
                    let (row, _) = todo.remove(index);
                    refused(&row, &why);
                    marks.push((row.id, LedgerMark::Refused(why)));
                }
                Err(Err(write)) => {
                    // Nothing of the batch is in the log: keep what is marked so far, retry the
                    // rest at the next round.
                    shared.ledger_store().mark_ledgered(&marks).await.map_err(|e| e.to_string())?;
                    return Err(write);
                }
            }
        }
        shared.ledger_store().mark_ledgered(&marks).await.map_err(|e| e.to_string())?;
    }
}

fn refused(row: &MatchRow, why: &str) {
    metrics::counter!(crate::metrics::LEDGER_REFUSED).increment(1);
    tracing::error!(
        match_id = %crate::store::sqlite::id_text(&row.id),
        why,
        "the ledger refused a finished match; it stays out of the log"
    );
}

/// The submission of a finished match: its record rebuilt from the store, its tournament round
/// if the server started it as one.
async fn submission(
    store: &dyn Store,
    row: &MatchRow,
    verified: Option<Arc<verifier::VerifiedMatch>>,
) -> Result<Submission, String> {
    let record = crate::finished::record_bytes(store, row).await.map_err(|e| e.message)?;
    let tournament = store
        .tournament_game(&row.id)
        .await
        .map_err(|e| e.to_string())?
        .map(|g| TournamentRound { tournament: g.tournament, round: g.round });
    // The close time is the record's (the relay's signed time): the ledger takes it from there.
    Ok(match verified {
        // The ledger uses it only if it is the verification of exactly these bytes.
        Some(verified) => {
            metrics::counter!(crate::metrics::LEDGER_VERIFICATIONS_REUSED).increment(1);
            Submission::Verified { record, tournament, verified }
        }
        None => Submission::Match { record, tournament },
    })
}

/// What a path under `/ledger/` names, if it is one of the log's files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LedgerFile {
    /// `checkpoint`: mutable, never cached.
    Checkpoint,
    /// A full tile or entry bundle: immutable.
    FullTile,
    /// A partial tile (`.p/<W>`): immutable while it exists, deleted once the tile is full.
    PartialTile,
    /// `records/<sha256 hex>`: a record or a definition, immutable.
    Record,
}

/// Checks a path under `/ledger/` against the tlog-tiles grammar (and `records/`): only
/// these paths are ever opened, so `..`, absolute paths, backslashes, empty or dotted segments
/// and anything else cannot reach a file outside the log (or any other file in it).
pub fn classify(path: &str) -> Option<LedgerFile> {
    if path == "checkpoint" {
        return Some(LedgerFile::Checkpoint);
    }
    let segments: Vec<&str> = path.split('/').collect();
    match segments.as_slice() {
        ["records", hash] => (hash.len() == 64
            && hash.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)))
        .then_some(LedgerFile::Record),
        ["tile", level, rest @ ..] => {
            let level_ok = *level == "entries"
                || (!level.is_empty()
                    && level.len() <= 2
                    && level.bytes().all(|b| b.is_ascii_digit())
                    && level.parse::<u8>().is_ok_and(|l| l <= 63));
            if !level_ok || rest.is_empty() {
                return None;
            }
            // <N>: x### groups, then ###; optionally `.p` on the last group and a width.
            let (index, partial) = match rest.iter().position(|s| s.ends_with(".p")) {
                Some(i) if i + 2 == rest.len() => {
                    let w = rest[i + 1];
                    let width_ok = !w.is_empty()
                        && w.len() <= 3
                        && w.bytes().all(|b| b.is_ascii_digit())
                        && !w.starts_with('0')
                        && w.parse::<u16>().is_ok_and(|w| (1..256).contains(&w));
                    if !width_ok {
                        return None;
                    }
                    let mut idx: Vec<&str> = rest[..=i].to_vec();
                    let last = idx.len() - 1;
                    idx[last] = idx[last].trim_end_matches(".p");
                    (idx, true)
                }
                Some(_) => return None,
                None => (rest.to_vec(), false),
            };
            let (last, groups) = index.split_last()?;
            let three = |s: &str| s.len() == 3 && s.bytes().all(|b| b.is_ascii_digit());
            let ok = three(last) && groups.iter().all(|g| g.strip_prefix('x').is_some_and(three));
            ok.then_some(if partial { LedgerFile::PartialTile } else { LedgerFile::FullTile })
        }
        _ => None,
    }
}

/// The server's finish hook for the ledger: counts the match (`LEDGER_FINISHED`). The appender's
/// next round takes it from the store, so a crash here loses nothing.
pub fn count_finished(_: &crate::finished::FinishedMatch) {
    metrics::counter!(crate::metrics::LEDGER_FINISHED).increment(1);
}

/// `GET /api/ledger`'s answer.
#[derive(Clone, Debug, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export_to = "host/"))]
pub struct LedgerInfo {
    /// The log's origin line.
    pub origin: String,
    /// Its size (entries).
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub size: u64,
    /// Its root hash (base64).
    pub root: String,
    /// The latest signed checkpoint (the note's text).
    pub checkpoint: String,
    /// The log's verifier key.
    pub vkey: String,
    /// The cosignatures the checkpoint carries but the log's own.
    pub witnesses: Vec<Cosignature>,
    /// The server's witness policy, and how the checkpoint meets it.
    pub witness_policy: crate::witnessing::WitnessPolicy,
    /// Where the log's files are served.
    #[cfg_attr(feature = "ts", ts(type = "\"/ledger/\""))]
    pub tiles: &'static str,
}

/// A cosignature of the checkpoint.
#[derive(Clone, Debug, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export_to = "host/"))]
pub struct Cosignature {
    /// The signer's name.
    pub name: String,
    /// Its key id (8 hex digits), where the signature line has one.
    pub key_id: Option<String>,
}

/// `GET /api/ledger/proof/{id}`'s answer.
#[derive(Clone, Debug, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export_to = "host/"))]
pub struct LedgerProof {
    /// The leaf's index.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub index: u64,
    /// The checkpoint's size.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub size: u64,
    /// The leaf's bytes (base64).
    pub leaf: Option<String>,
    /// The proof's hashes (base64).
    pub hashes: Vec<String>,
    /// The checkpoint proved against.
    pub checkpoint: String,
    /// What the entry says, where it is a match's.
    pub entry: Option<MatchEntryJson>,
    /// Where the stored record is served.
    pub record: Option<String>,
    /// The C2SP tlog-proof.
    pub tlog_proof: String,
}

/// A match's log entry, as the proof shows it.
#[derive(Clone, Debug, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export_to = "host/"))]
pub struct MatchEntryJson {
    /// The match id (hex).
    pub match_id: String,
    /// The record's SHA-256 (hex).
    pub record_sha256: String,
    /// The variant id.
    pub variant: String,
    /// The ruleset.
    pub ruleset: String,
    /// White's key.
    pub white: String,
    /// Black's key.
    pub black: String,
    /// Whether the colors are known.
    #[serde(rename = "colours_known")] // the published JSON key
    pub colors_known: bool,
    /// The umpire's key.
    pub umpire: Option<String>,
    /// The relay's key.
    pub relay: String,
    /// Whether the verdict was valid.
    pub valid: bool,
    /// The score.
    pub result: Option<&'static str>,
    /// Rated or casual.
    pub rated: bool,
    /// The tournament and round, for a tournament game.
    pub tournament: Option<EntryTournament>,
    /// When it finished (ms).
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub finished_at_ms: u64,
    /// The verifier's version.
    pub verifier_version: String,
}

/// The tournament of a match entry.
#[derive(Clone, Debug, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export_to = "host/"))]
pub struct EntryTournament {
    /// Its id (hex).
    pub id: String,
    /// The round.
    pub round: u32,
}

/// `GET /api/ratings/{variant}`'s answer.
#[derive(Clone, Debug, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export_to = "host/"))]
pub struct RatingList {
    /// The variant.
    pub variant: rules::Variant,
    /// The log's size.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub log_size: u64,
    /// Best first.
    pub ratings: Vec<RatingRow>,
}

/// A player's rating.
#[derive(Clone, Debug, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export_to = "host/"))]
pub struct RatingRow {
    /// The key.
    pub key: String,
    /// Glicko-2 rating.
    pub rating: f64,
    /// Its deviation.
    pub deviation: f64,
    /// Its volatility.
    pub volatility: f64,
    /// Rated games.
    pub games: u32,
    /// Whether it is provisional.
    pub provisional: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_verifications_are_bounded_oldest_out_and_taken_once() {
        let v = Arc::new(verifier::verify_match(b"not a record"));
        let id = |i: usize| {
            let mut id = [0u8; 32];
            id[..8].copy_from_slice(&(i as u64).to_le_bytes());
            id
        };
        let mut kept = KeptVerifications::default();
        for i in 0..MAX_KEPT_VERIFICATIONS + 10 {
            kept.keep(id(i), v.clone());
            assert!(kept.by_id.len() <= MAX_KEPT_VERIFICATIONS);
        }
        // The ten oldest were dropped, the newest kept.
        assert!(!kept.by_id.contains_key(&id(9)));
        assert!(kept.by_id.contains_key(&id(10)));
        assert!(kept.by_id.remove(&id(10)).is_some());
        assert!(kept.by_id.remove(&id(10)).is_none(), "taken once");
        // Taking every one as it is kept (the appender keeping up) leaves `order` bounded.
        for i in 0..5 * MAX_KEPT_VERIFICATIONS {
            kept.keep(id(1_000_000 + i), v.clone());
            kept.by_id.remove(&id(1_000_000 + i));
            assert!(kept.order.len() <= 2 * MAX_KEPT_VERIFICATIONS);
        }
        assert!(kept.by_id.len() < MAX_KEPT_VERIFICATIONS);
    }

    #[test]
    fn only_paths_of_the_tlog_tiles_layout_are_log_files() {
        use LedgerFile::*;
        let h = "ab".repeat(32);
        for (path, want) in [
            ("checkpoint", Some(Checkpoint)),
            ("tile/0/000", Some(FullTile)),
            ("tile/0/x001/x234/067", Some(FullTile)),
            ("tile/entries/000", Some(FullTile)),
            ("tile/entries/001.p/17", Some(PartialTile)),
            ("tile/1/000.p/255", Some(PartialTile)),
            (&format!("records/{h}"), Some(Record)),
            ("tile/0/000.p/256", None),
            ("tile/0/000.p/0", None),
            ("tile/0/000.p/017", None),
            ("tile/0/000.p", None),
            ("tile/0/00", None),
            ("tile/0/x00/000", None),
            ("tile/0/001/000", None),
            ("tile/64/000", None),
            ("tile/x/000", None),
            ("tile/0/../../etc/passwd", None),
            ("../checkpoint", None),
            ("/etc/passwd", None),
            ("records/../checkpoint", None),
            (&format!("records/{}", "AB".repeat(32)), None),
            ("records", None),
            ("checkpoint.tmp", None),
            ("tile/0/000/", None),
            ("", None),
        ] {
            assert_eq!(classify(path), want, "{path}");
        }
    }
}

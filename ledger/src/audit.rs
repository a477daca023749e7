//! Audit a published log from its tiles alone: check the checkpoint against the reader's
//! policy, re-hash every entry bundle into its level-0 tile and every full tile into the level
//! above, recompute the root, then fetch every stored record and definition, check its hash and
//! re-verify it into its entry, and replay the entries (duplicates, tournaments, ratings).
//!
//! Bundles and records are processed on every core (rayon); the entries are replayed in log
//! order. Anything structural (a missing or wrong tile, a wrong root) stops the audit with an
//! error; a record that does not give back its entry is a [`Finding`] and the audit goes on.

use crate::checkpoint::{Policy, SignedCheckpoint, TrustedCheckpoint};
use crate::entry::{EntryBody, LedgerEntry, MatchEntry, sha256};
use crate::history::History;
use crate::log::{OpenError, TreeState, read_bundle, read_tile_hashes};
use crate::merkle::{self, Hash};
use crate::store::{LogReader, TILE_HEIGHT, TILE_WIDTH, tile_path, tile_width};
use rayon::prelude::*;

/// Something wrong with one entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// The leaf index.
    pub index: u64,
    /// What is wrong.
    pub what: String,
}

/// What an audit found.
#[derive(Debug)]
pub struct AuditReport {
    /// The checkpoint audited.
    pub checkpoint: TrustedCheckpoint,
    /// Match entries.
    pub matches: u64,
    /// Tournament entries.
    pub tournaments: u64,
    /// Round entries.
    pub rounds: u64,
    /// No-show entries (tournament games forfeited before they started).
    pub no_shows: u64,
    /// Entries whose record or definition did not check out.
    pub findings: Vec<Finding>,
    /// The tables replayed from the entries (when no entry was refused by the replay).
    pub history: History,
}

/// One entry after its file was checked: the entry (if it decodes), the stored file the replay
/// needs (a definition), and what is wrong.
type Checked = (Option<LedgerEntry>, Option<Vec<u8>>, Option<Finding>);

/// Why an audit stopped.
#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    /// The checkpoint does not pass the policy.
    #[error("checkpoint: {0}")]
    Checkpoint(#[from] crate::checkpoint::CheckpointError),
    /// A tile or bundle is missing, malformed or does not hash as it must.
    #[error(transparent)]
    Log(#[from] OpenError),
    /// The tiles do not give the checkpoint's root.
    #[error("the tiles give root {computed}, the checkpoint says {expected}")]
    Root {
        /// From the tiles.
        computed: String,
        /// From the checkpoint.
        expected: String,
    },
}

/// Audits the log `reader` serves, trusting what `policy` says; `progress` is called with the
/// number of entries checked so far (from several threads).
pub fn audit<R: LogReader>(
    reader: &R,
    policy: &Policy,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<AuditReport, AuditError> {
    let signed = SignedCheckpoint::parse(&reader.checkpoint().map_err(OpenError::from)?)
        .map_err(AuditError::Checkpoint)?;
    let trusted = policy.verify(&signed)?;
    let size = signed.checkpoint.size;
    let bundles = size.div_ceil(TILE_WIDTH);

    // Level 0: every bundle hashes into its tile.
    let level0: Vec<(Vec<Vec<u8>>, Vec<Hash>)> = (0..bundles)
        .into_par_iter()
        .map(|b| {
            let entries = read_bundle(reader, b, size)?;
            let width = tile_width(0, b, size);
            let tile = read_tile_hashes(reader, 0, b, width)?;
            for (k, (e, h)) in entries.iter().zip(&tile).enumerate() {
                if merkle::leaf_hash(e) != *h {
                    return Err(OpenError::Corrupt(format!(
                        "entry {} does not hash to its place in {}",
                        b * TILE_WIDTH + k as u64,
                        tile_path(0, b, width)
                    )));
                }
            }
            Ok((entries, tile))
        })
        .collect::<Result<_, OpenError>>()?;
    let mut tiles: Vec<Vec<Hash>> = level0.iter().map(|(_, t)| t.clone()).collect();
    let entries: Vec<Vec<u8>> = level0.into_iter().flat_map(|(e, _)| e).collect();

    // Levels above: each hash is the root of a full tile below; the partial tiles are the right
    // edge the root is made of.
    let mut right_edge = Vec::new();
    let mut level: u8 = 0;
    loop {
        let partial =
            tiles.last().filter(|t| (t.len() as u64) < TILE_WIDTH).cloned().unwrap_or_default();
        right_edge.push(partial);
        let above: Vec<Hash> = tiles
            .iter()
            .filter(|t| t.len() as u64 == TILE_WIDTH)
            .map(|t| merkle::mth_of_hashes(t))
            .collect();
        level += 1;
        if size >> (TILE_HEIGHT * u32::from(level)) == 0 {
            break;
        }
        let count = size >> (TILE_HEIGHT * u32::from(level));
        let read: Vec<Vec<Hash>> = (0..count.div_ceil(TILE_WIDTH))
            .into_par_iter()
            .map(|n| read_tile_hashes(reader, level, n, tile_width(level, n, size)))
            .collect::<Result<_, _>>()?;
        let flat: Vec<Hash> = read.iter().flatten().copied().collect();
        if flat != above {
            let n =
                flat.iter().zip(&above).position(|(a, b)| a != b).unwrap_or(0) as u64 / TILE_WIDTH;
            return Err(OpenError::Corrupt(format!(
                "{} does not hold the hashes of the full tiles below it",
                tile_path(level, n, tile_width(level, n, size))
            ))
            .into());
        }
        tiles = read;
    }
    let computed = TreeState::from_right_edge(size, right_edge).root();
    if computed != signed.checkpoint.root {
        return Err(AuditError::Root {
            computed: protocol::hex::encode(&computed),
            expected: protocol::hex::encode(&signed.checkpoint.root),
        });
    }

    // Every entry: decode, fetch its file, check its hash, re-verify a record into its entry.
    let done = std::sync::atomic::AtomicU64::new(0);
    let checked: Vec<Checked> = entries
        .par_iter()
        .enumerate()
        .map(|(i, bytes)| {
            let index = i as u64;
            let finding = |what: String| Finding { index, what };
            let out = match LedgerEntry::from_bytes(bytes) {
                Err(e) => (None, None, Some(finding(format!("the entry does not decode: {e}")))),
                Ok(entry) => {
                    let (file, finding) = check_stored(reader, &entry, index);
                    (Some(entry), file, finding)
                }
            };
            progress(done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1);
            out
        })
        .collect();

    let (mut matches, mut tournaments, mut rounds, mut no_shows) = (0, 0, 0, 0);
    let mut findings = Vec::new();
    let mut history = History::new();
    let mut replaying = true;
    for (index, (entry, file, finding)) in checked.into_iter().enumerate() {
        findings.extend(finding);
        let Some(entry) = entry else {
            replaying = false;
            continue;
        };
        match entry.body {
            EntryBody::Match(_) => matches += 1,
            EntryBody::Tournament(_) => tournaments += 1,
            EntryBody::Round(_) => rounds += 1,
            EntryBody::NoShow(_) => no_shows += 1,
        }
        if replaying && let Err(e) = history.apply(&entry, file.as_deref()) {
            findings.push(Finding { index: index as u64, what: e.to_string() });
            replaying = false;
        }
    }
    Ok(AuditReport {
        checkpoint: trusted,
        matches,
        tournaments,
        rounds,
        no_shows,
        findings,
        history,
    })
}

/// Fetches an entry's stored file and checks it: the file a tournament entry needs for the
/// replay, and what is wrong, if anything.
fn check_stored<R: LogReader>(
    reader: &R,
    entry: &LedgerEntry,
    index: u64,
) -> (Option<Vec<u8>>, Option<Finding>) {
    let finding = |what: String| Some(Finding { index, what });
    let Some(sha) = entry.stored_file() else { return (None, None) };
    let file = match reader.record(&sha) {
        Ok(f) => f,
        Err(e) => return (None, finding(e.to_string())),
    };
    if sha256(&file) != sha {
        return (
            None,
            finding(format!(
                "{} does not have the SHA-256 its name says",
                crate::store::record_path(&sha)
            )),
        );
    }
    match &entry.body {
        EntryBody::Match(m) => {
            let recomputed = MatchEntry::from_record(&file, m.context);
            match recomputed {
                Ok(r) if m.same_judgement(&r) => (None, None),
                Ok(_) => (None, finding("re-verifying the record gives another entry".to_string())),
                Err(e) => (None, finding(format!("re-verifying the record: {e}"))),
            }
        }
        EntryBody::Tournament(_) => (Some(file), None),
        EntryBody::Round(_) | EntryBody::NoShow(_) => (None, None),
    }
}

//! [`Ledger`]: the log of finished matches as one object a server (through `spawn_blocking`) or
//! the command line calls: open it, append verified matches and tournament entries in batches,
//! read the checkpoint, prove inclusion, read ratings and tournaments.
//!
//! Every call blocks on the file system and on verification; `Ledger` is `Send`, so a tokio
//! server keeps it in an `Arc<Mutex<Ledger>>` and calls it from `spawn_blocking`. One process
//! writes a log at a time (the caller's job: the log directory is not locked).

use crate::checkpoint::SignedCheckpoint;
use crate::entry::{
    Absence, ENTRY_VERSION, EntryBody, EntryError, LedgerEntry, MatchEntry, NoShowEntry,
    RoundEntry, Sha256Digest, TournamentEntry, TournamentRound,
};
use crate::history::{History, HistoryError, TournamentState};
use crate::log::{LogWriter, OpenError, TileNodes, WriteError, read_bundle};
use crate::merkle::{self, ProveError};
use crate::note::{Note, NoteError, SignerKey, VerifierKey};
use crate::proof::TlogProof;
use crate::rating::Rating;
use crate::store::{DirReader, LogReader, TILE_WIDTH};
use protocol::PublicKey;
use rayon::prelude::*;
use rules::Variant;
use std::path::Path;

/// One thing to append.
#[derive(Clone, Debug)]
pub enum Submission {
    /// A finished match: its record's exact bytes and the tournament round it was played in.
    /// Its close time is not the appender's to state: the ledger takes it from the record (the
    /// relay's signed time of the last receipt, [`crate::entry::close_time_ms`]).
    Match {
        /// The record file's bytes.
        record: Vec<u8>,
        /// The tournament round, if any.
        tournament: Option<TournamentRound>,
    },
    /// A finished match as [`Submission::Match`], with the verification this process made of
    /// it ([`verifier::verify_match`]), so the ledger need not verify it again
    /// ([`MatchEntry::from_record_verified`]: a verification of other bytes or by another
    /// verifier version is not used, and the record is verified here). The entry is the
    /// same as [`Submission::Match`]'s.
    Verified {
        /// The record file's bytes.
        record: Vec<u8>,
        /// The tournament round, if any.
        tournament: Option<TournamentRound>,
        /// `verifier::verify_match(&record)`, made earlier by the caller.
        verified: std::sync::Arc<verifier::VerifiedMatch>,
    },
    /// A tournament definition: the signed definition file's bytes.
    Tournament {
        /// The file (canonical `SignedDefinition`).
        definition: Vec<u8>,
        /// When it is published (milliseconds since the Unix epoch).
        published_at_ms: u64,
    },
    /// The start of a tournament round, with its absences.
    Round {
        /// The tournament's id.
        tournament: Sha256Digest,
        /// The round, from 1.
        round: u32,
        /// Who does not play.
        absent: Vec<Absence>,
        /// When it starts (milliseconds since the Unix epoch).
        started_at_ms: u64,
    },
    /// A paired tournament game that never started: who did not show by the deadline.
    NoShow(NoShowEntry),
}

/// Why a batch was not appended. Nothing of the batch is in the log, and nothing the last
/// checkpoint covered is changed.
#[derive(Debug, thiserror::Error)]
pub enum AppendError {
    /// Submission `index` cannot be made into an entry (e.g. a record whose terms cannot be read,
    /// a definition whose signature does not verify).
    #[error("submission {index} refused: {source}")]
    Refused {
        /// Its place in the batch.
        index: usize,
        /// Why.
        source: EntryError,
    },
    /// Submission `index` does not fit the log before it (a duplicate, a match not paired, a
    /// close time too far before the log's latest, ...).
    #[error("submission {index} refused: {source}")]
    Inconsistent {
        /// Its place in the batch.
        index: usize,
        /// Why.
        source: HistoryError,
    },
    /// The files could not be written.
    #[error(transparent)]
    Write(#[from] WriteError),
}

/// Why the ledger could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum LedgerError {
    /// The log could not be opened.
    #[error(transparent)]
    Open(#[from] OpenError),
    /// An entry in the log does not decode.
    #[error("entry {index} of the log: {source}")]
    Entry {
        /// Leaf index.
        index: u64,
        /// Why.
        source: EntryError,
    },
    /// An entry in the log does not fit the ones before it.
    #[error("entry {index} of the log: {source}")]
    History {
        /// Leaf index.
        index: u64,
        /// Why.
        source: HistoryError,
    },
}

/// Why an inclusion proof could not be made.
#[derive(Debug, thiserror::Error)]
pub enum LedgerProveError {
    /// No such match or tournament in the log.
    #[error("{} is not in the log", protocol::hex::encode(.0))]
    NotFound(Sha256Digest),
    /// The tiles could not be read.
    #[error(transparent)]
    Prove(#[from] ProveError<OpenError>),
    /// The entry could not be read.
    #[error(transparent)]
    Open(#[from] OpenError),
}

/// Why cosignatures were not added.
#[derive(Debug, thiserror::Error)]
pub enum CosignError {
    /// The lines are not signature lines.
    #[error("not note signature lines: {0}")]
    Format(NoteError),
    /// A line does not verify as a known witness's cosignature of the current checkpoint.
    #[error("cosignature of {0} does not verify on the current checkpoint")]
    Invalid(String),
    /// No line is a known witness's.
    #[error("none of the lines is a cosignature by a known witness")]
    NoKnownWitness,
    /// The checkpoint could not be rewritten.
    #[error(transparent)]
    Write(#[from] WriteError),
}

/// The ledger: the log writer and the tables recomputed from its entries.
pub struct Ledger {
    log: LogWriter,
    history: History,
    /// The log's own clock, ms since the Unix epoch ([`Ledger::set_clock`]): a record whose
    /// close time is more than the tolerance after it is refused at append. None: no bound.
    clock: Option<LogClock>,
}

/// The log's own clock ([`Ledger::set_clock`]).
pub type LogClock = Box<dyn Fn() -> u64 + Send + Sync>;

impl std::fmt::Debug for Ledger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ledger")
            .field("log", &self.log)
            .field("history", &self.history)
            .finish_non_exhaustive()
    }
}

impl Ledger {
    /// Creates an empty ledger in `dir`, signed by `key` (its name is the log's origin).
    pub fn create(dir: &Path, key: SignerKey) -> Result<Ledger, LedgerError> {
        Ok(Ledger { log: LogWriter::create(dir, key)?, history: History::new(), clock: None })
    }

    /// Opens the ledger in `dir` and replays every entry its checkpoint covers.
    pub fn open(dir: &Path, key: SignerKey) -> Result<Ledger, LedgerError> {
        let log = LogWriter::open(dir, key)?;
        let reader = DirReader::new(dir);
        let size = log.size();
        let mut history = History::new();
        for bundle in 0..size.div_ceil(TILE_WIDTH) {
            for (k, bytes) in read_bundle(&reader, bundle, size)?.into_iter().enumerate() {
                let index = bundle * TILE_WIDTH + k as u64;
                let entry = LedgerEntry::from_bytes(&bytes)
                    .map_err(|source| LedgerError::Entry { index, source })?;
                let stored = match &entry.body {
                    EntryBody::Tournament(t) => {
                        Some(reader.record(&t.definition_sha256).map_err(OpenError::from)?)
                    }
                    _ => None,
                };
                history
                    .apply(&entry, stored.as_deref())
                    .map_err(|source| LedgerError::History { index, source })?;
            }
        }
        Ok(Ledger { log, history, clock: None })
    }

    /// Sets the log's own clock (this crate reads no clock of its own: the server gives it its
    /// clock, `fogproof ledger append` the system's; without one no bound is checked). It
    /// bounds close times from above only: an append refuses a record that closes more than
    /// [`crate::history::CLOSE_TIME_TOLERANCE_MS`] after this clock (a relay clock far ahead
    /// would hold every later match back as "too early"). An auditor replaying the log does
    /// not use it (it is the appender's check, not part of what an entry is).
    pub fn set_clock(&mut self, clock: LogClock) {
        self.clock = Some(clock);
    }

    /// The latest checkpoint (with whatever cosignatures were added to it).
    pub fn checkpoint(&self) -> &SignedCheckpoint {
        self.log.checkpoint()
    }

    /// The log's verifier key (what `fogproof ledger key` prints).
    pub fn verifier_key(&self) -> &VerifierKey {
        self.log.key().verifier()
    }

    /// The log's directory.
    pub fn dir(&self) -> &Path {
        self.log.dir()
    }

    /// The tables recomputed from the log.
    pub fn history(&self) -> &History {
        &self.history
    }

    /// Every rated player of `variant`, by key.
    pub fn ratings(&self, variant: Variant) -> Vec<(PublicKey, Rating)> {
        self.history
            .ratings()
            .iter()
            .filter(|((v, _), _)| *v == variant)
            .map(|((_, k), r)| (*k, *r))
            .collect()
    }

    /// A tournament as the log has it.
    pub fn tournament(&self, id: &Sha256Digest) -> Option<&TournamentState> {
        self.history.tournament(id)
    }

    /// Verifies and appends a batch as one checkpoint. Records are verified (on every core)
    /// before anything is written; the whole batch goes in or nothing does.
    pub fn append(&mut self, batch: &[Submission]) -> Result<&SignedCheckpoint, AppendError> {
        let log_ms = self.clock.as_ref().map(|c| c());
        let tolerance_ms = crate::history::CLOSE_TIME_TOLERANCE_MS;
        let entries: Vec<Result<(LedgerEntry, &[u8]), AppendError>> = batch
            .par_iter()
            .enumerate()
            .map(|(index, s)| {
                let refused = |source| AppendError::Refused { index, source };
                // A match's entry, refused if its close time runs ahead of the log's clock.
                let matched = |m: Result<MatchEntry, EntryError>| {
                    let m = m.map_err(refused)?;
                    let close_ms = m.context.finished_at_ms;
                    if let Some(log_ms) = log_ms
                        && close_ms > log_ms.saturating_add(tolerance_ms)
                    {
                        return Err(refused(EntryError::CloseInFuture {
                            close_ms,
                            log_ms,
                            tolerance_ms,
                        }));
                    }
                    Ok(EntryBody::Match(m))
                };
                let (body, file): (EntryBody, &[u8]) = match s {
                    Submission::Match { record, tournament } => {
                        (matched(MatchEntry::from_record_in(record, *tournament))?, record)
                    }
                    Submission::Verified { record, tournament, verified } => (
                        matched(MatchEntry::from_record_verified(record, *tournament, verified))?,
                        record,
                    ),
                    Submission::Tournament { definition, published_at_ms } => (
                        EntryBody::Tournament(
                            TournamentEntry::from_definition_file(definition, *published_at_ms)
                                .map_err(refused)?
                                .0,
                        ),
                        definition,
                    ),
                    Submission::Round { tournament, round, absent, started_at_ms } => (
                        EntryBody::Round(RoundEntry {
                            tournament: *tournament,
                            round: *round,
                            absent: absent.clone(),
                            started_at_ms: *started_at_ms,
                        }),
                        &[],
                    ),
                    Submission::NoShow(n) => (EntryBody::NoShow(n.clone()), &[]),
                };
                Ok((LedgerEntry { version: ENTRY_VERSION, body }, file))
            })
            .collect();
        let mut next = self.history.clone();
        let mut encoded = Vec::with_capacity(batch.len());
        let mut files: Vec<&[u8]> = Vec::new();
        for (index, e) in entries.into_iter().enumerate() {
            let (entry, file) = e?;
            let stored = matches!(entry.body, EntryBody::Tournament(_)).then_some(file);
            next.apply(&entry, stored)
                .map_err(|source| AppendError::Inconsistent { index, source })?;
            encoded
                .push(entry.to_bytes().map_err(|source| AppendError::Refused { index, source })?);
            if !file.is_empty() {
                files.push(file);
            }
        }
        self.log.append(&encoded, &files)?;
        self.history = next;
        Ok(self.log.checkpoint())
    }

    /// The entry at leaf `index`, as stored.
    pub fn entry_bytes(&self, index: u64) -> Result<Vec<u8>, OpenError> {
        let reader = DirReader::new(self.log.dir());
        let size = self.log.size();
        let bundle = read_bundle(&reader, index / TILE_WIDTH, size)?;
        bundle
            .into_iter()
            .nth((index % TILE_WIDTH) as usize)
            .ok_or_else(|| OpenError::Corrupt(format!("no entry {index} in a log of {size}")))
    }

    /// A tlog proof of the match (or tournament) with this id in the latest checkpoint.
    pub fn prove(&self, id: &Sha256Digest) -> Result<TlogProof, LedgerProveError> {
        let index = self
            .history
            .match_index(id)
            .or_else(|| self.history.tournament(id).map(|t| t.entry_index))
            .ok_or(LedgerProveError::NotFound(*id))?;
        self.prove_index(index)
    }

    /// A tlog proof of leaf `index` in the latest checkpoint.
    pub fn prove_index(&self, index: u64) -> Result<TlogProof, LedgerProveError> {
        let reader = DirReader::new(self.log.dir());
        let checkpoint = self.log.checkpoint().clone();
        let nodes = TileNodes::new(&reader, checkpoint.checkpoint.size);
        let proof = merkle::prove_inclusion(&nodes, index, checkpoint.checkpoint.size)?;
        Ok(TlogProof { extra: Some(self.entry_bytes(index)?), index, proof, checkpoint })
    }

    /// The consistency proof from the tree of `old` leaves to the latest checkpoint.
    pub fn consistency(&self, old: u64) -> Result<Vec<merkle::Hash>, ProveError<OpenError>> {
        let reader = DirReader::new(self.log.dir());
        let size = self.log.size();
        merkle::prove_consistency(&TileNodes::new(&reader, size), old, size)
    }

    /// The body of a C2SP tlog-witness `add-checkpoint` request for a witness that last
    /// cosigned the tree of `old` leaves.
    pub fn witness_request(&self, old: u64) -> Result<String, ProveError<OpenError>> {
        let proof = if old == 0 { Vec::new() } else { self.consistency(old)? };
        Ok(crate::witness::request_body(old, &proof, self.log.checkpoint()))
    }

    /// Adds witness cosignatures (note signature lines, as a witness answers) to the latest
    /// checkpoint, after checking each line that names a known witness.
    pub fn add_cosignatures(
        &mut self,
        lines: &str,
        witnesses: &[VerifierKey],
    ) -> Result<&SignedCheckpoint, CosignError> {
        let text = self.log.checkpoint().note.text.clone();
        let mut added = Note { text: text.clone(), signatures: Vec::new() };
        for line in lines.lines().filter(|l| !l.is_empty()) {
            let sig = crate::note::NoteSignature::parse_line(line).map_err(CosignError::Format)?;
            let one = Note { text: text.clone(), signatures: vec![sig.clone()] };
            match one.verify(witnesses) {
                Ok(_) => added.signatures.push(sig),
                Err(NoteError::NoKnownSignature(_)) => {}
                Err(_) => return Err(CosignError::Invalid(sig.name)),
            }
        }
        if added.signatures.is_empty() {
            return Err(CosignError::NoKnownWitness);
        }
        Ok(self.log.add_signatures(added)?)
    }
}

/// Finds the entry known by `id` (a match id, or a tournament id) in the log `reader` serves and
/// proves it in the log's checkpoint; needs no key (any reader of a published log can).
pub fn prove_in<R: LogReader>(
    reader: &R,
    id: &Sha256Digest,
) -> Result<TlogProof, LedgerProveError> {
    let checkpoint = SignedCheckpoint::parse(&reader.checkpoint().map_err(OpenError::from)?)
        .map_err(OpenError::from)?;
    let size = checkpoint.checkpoint.size;
    for b in 0..size.div_ceil(TILE_WIDTH) {
        for (k, bytes) in read_bundle(reader, b, size)?.into_iter().enumerate() {
            let Ok(entry) = LedgerEntry::from_bytes(&bytes) else { continue };
            let known_as = match &entry.body {
                EntryBody::Match(m) => Some(m.match_id),
                EntryBody::Tournament(t) => Some(t.definition_sha256),
                EntryBody::Round(_) | EntryBody::NoShow(_) => None,
            };
            if known_as == Some(*id) {
                let index = b * TILE_WIDTH + k as u64;
                let proof = merkle::prove_inclusion(&TileNodes::new(reader, size), index, size)?;
                return Ok(TlogProof { extra: Some(bytes), index, proof, checkpoint });
            }
        }
    }
    Err(LedgerProveError::NotFound(*id))
}

//! A match's journal: everything the agent needs to rebuild its machine after a crash, written
//! and fsynced *before* anything that depends on it is sent (docs/SERVER.md, the agent).
//!
//! A player or umpire machine is a pure function of its identity, the signed terms, its secret
//! (the seed of every nonce, contribution and seal seed it draws) and its inputs: the entries
//! the relay delivers (the server sends them all again on reconnect) and the decisions it was
//! given, at the position they were given. So the journal holds the secret and the terms
//! (written before the machine exists, hence before its first commitment is sent), then each
//! decision with the relay position after which it was made (written before the message it
//! produces is sent). Replaying the entries and the decisions rebuilds the machine exactly: it
//! writes the same bytes again (ed25519 and the seal seeds are deterministic), so what it had
//! sent is recognised in the log, and what it had not yet sent is sent.
//!
//! File: `<dir>/<match id hex>.journal`, a sequence of records, each
//! `u32_le(len) || postcard(Record) || first 4 bytes of SHA-256 of the postcard bytes`. A torn
//! last record (a crash in the middle of a write) is ignored: nothing was sent on its account.
//!
//! A journal holds the match's secret (and with it a player's hidden setup), so on Unix it is
//! created owner-only (mode 0600), in a directory created owner-only (0700).

use protocol::codec::Canonical;
use protocol::terms::SignedTerms;
use protocol::{Identity, MatchId};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Who keeps a journal: a player or the umpire (which machine it rebuilds).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Keeper {
    /// A player.
    Player,
    /// The umpire.
    Umpire,
}

/// One journal record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Record {
    /// The first record: the role, the signed terms (canonical bytes) and the secret.
    Start {
        /// The role.
        role: Keeper,
        /// `SignedTerms`, canonical.
        terms: Vec<u8>,
        /// The machine's secret seed.
        secret: [u8; 32],
    },
    /// A decision given to the player after the entry at `after` was delivered.
    Decision {
        /// The relay position of the last entry delivered before it (`None`: none yet).
        after: Option<u64>,
        /// The decision: the canonical bytes of the game's action or setup
        /// (`protocol::game::encode_action`), exactly what the machine signs; read back with
        /// the terms' variant. Bytes, not the typed action, so that the records of every
        /// agent version read the same.
        bytes: Vec<u8>,
    },
    /// The player resigned after the entry at `after`.
    Resign {
        /// As for a decision.
        after: Option<u64>,
    },
    /// The player offered (or accepted) a draw after the entry at `after`.
    OfferDraw {
        /// As for a decision.
        after: Option<u64>,
    },
    /// The match is over and its record was received: nothing to resume.
    Finished,
}

/// Why a journal could not be written or read.
#[derive(Debug, Error)]
pub enum JournalError {
    /// The file system failed.
    #[error("journal {path}: {why}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        why: std::io::Error,
    },
    /// The journal does not start with a readable `Start` record.
    #[error("journal {path}: {why}")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        why: String,
    },
}

/// An open journal, appending.
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    file: File,
}

fn checksum(bytes: &[u8]) -> [u8; 4] {
    let h = Sha256::digest(bytes);
    [h[0], h[1], h[2], h[3]]
}

fn encode(r: &Record) -> Vec<u8> {
    let body = postcard::to_allocvec(r).expect("journal records always serialize");
    let mut out = Vec::with_capacity(body.len() + 8);
    out.extend_from_slice(&u32::try_from(body.len()).unwrap_or(u32::MAX).to_le_bytes());
    out.extend_from_slice(&body);
    out.extend_from_slice(&checksum(&body));
    out
}

/// The journal file of a match under `dir`.
pub fn path_for(dir: &Path, id: &MatchId) -> PathBuf {
    dir.join(format!("{}.journal", protocol::hex::encode(&id.0)))
}

/// Creates `dir` and its missing parents, owner-only on Unix (0700); an existing directory is
/// left as it is.
pub fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut b = std::fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        b.mode(0o700);
    }
    b.create(dir)
}

/// Fsyncs a directory, so a file created in it survives a crash.
fn sync_dir(dir: &Path) -> std::io::Result<()> {
    File::open(dir)?.sync_all()
}

impl Journal {
    /// Creates the journal of a match with its `Start` record, on disk (file and directory
    /// fsynced) when this returns. Refuses to overwrite an existing journal.
    pub fn create(
        dir: &Path,
        id: &MatchId,
        role: Keeper,
        terms: &SignedTerms,
        secret: [u8; 32],
    ) -> Result<Journal, JournalError> {
        let path = path_for(dir, id);
        let io = |why| JournalError::Io { path: path.clone(), why };
        create_private_dir(dir).map_err(io)?;
        let mut options = OpenOptions::new();
        options.append(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        let mut file = options.open(&path).map_err(io)?;
        file.write_all(&encode(&Record::Start { role, terms: terms.to_canonical(), secret }))
            .map_err(io)?;
        file.sync_all().map_err(io)?;
        sync_dir(dir).map_err(io)?;
        Ok(Journal { path, file })
    }

    /// Appends a record, on disk when this returns.
    pub fn append(&mut self, r: &Record) -> Result<(), JournalError> {
        let io = |why| JournalError::Io { path: self.path.clone(), why };
        self.file.write_all(&encode(r)).map_err(io)?;
        self.file.sync_data().map_err(io)
    }

    /// Opens an existing journal for appending, with its records.
    pub fn open(path: &Path) -> Result<(Journal, Vec<Record>), JournalError> {
        let records = read(path)?;
        let file = OpenOptions::new()
            .append(true)
            .open(path)
            .map_err(|why| JournalError::Io { path: path.to_owned(), why })?;
        Ok((Journal { path: path.to_owned(), file }, records))
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Reads a journal's records (a torn last record is left out; one that fails its checksum
/// anywhere else is corruption).
pub fn read(path: &Path) -> Result<Vec<Record>, JournalError> {
    let corrupt = |why: String| JournalError::Corrupt { path: path.to_owned(), why };
    let bytes =
        std::fs::read(path).map_err(|why| JournalError::Io { path: path.to_owned(), why })?;
    let mut out = Vec::new();
    let mut rest = bytes.as_slice();
    while !rest.is_empty() {
        let Some((len, tail)) = rest.split_first_chunk::<4>() else { break };
        let len = u32::from_le_bytes(*len) as usize;
        if tail.len() < len + 4 {
            break; // torn tail
        }
        let (body, tail) = tail.split_at(len);
        let (sum, tail) = tail.split_at(4);
        if sum != checksum(body) {
            if tail.is_empty() {
                break; // torn tail
            }
            return Err(corrupt(format!("record {} fails its checksum", out.len())));
        }
        let r: Record = postcard::from_bytes(body)
            .map_err(|e| corrupt(format!("record {}: {e}", out.len())))?;
        out.push(r);
        rest = tail;
    }
    match out.first() {
        Some(Record::Start { .. }) => Ok(out),
        _ => Err(corrupt("no Start record".into())),
    }
}

/// The journals under `dir` of matches not finished, with their records.
pub fn unfinished(dir: &Path) -> Vec<(PathBuf, Result<Vec<Record>, JournalError>)> {
    let Ok(list) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut paths: Vec<PathBuf> = list
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "journal"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let r = read(&p);
            (p, r)
        })
        .filter(|(_, r)| !matches!(r, Ok(records) if records.last() == Some(&Record::Finished)))
        .collect()
}

/// A fresh secret from the operating system.
pub fn fresh_secret() -> Result<[u8; 32], JournalError> {
    protocol::keys::random_32().map_err(|e| JournalError::Corrupt {
        path: PathBuf::new(),
        why: format!("no randomness: {e}"),
    })
}

/// A party's seat in new terms: a fresh nonce and the seal key it derives with `identity`.
pub fn fresh_seat(
    identity: &Identity,
) -> Result<(protocol::seal::SealPublicKey, [u8; 32]), JournalError> {
    let nonce = fresh_secret()?;
    Ok((protocol::seal::SealSecret::for_match(identity, &nonce).public(), nonce))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms() -> SignedTerms {
        SignedTerms { terms: vec![1, 2, 3], signatures: Vec::new() }
    }

    #[test]
    fn records_survive_and_a_torn_tail_is_ignored_but_damage_inside_is_not() {
        let dir = std::env::temp_dir().join(format!("fogproof-journal-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let id = MatchId([4; 32]);
        let mut j = Journal::create(&dir, &id, Keeper::Player, &terms(), [9; 32]).unwrap();
        assert!(
            Journal::create(&dir, &id, Keeper::Player, &terms(), [9; 32]).is_err(),
            "no overwrite"
        );
        j.append(&Record::Decision { after: Some(3), bytes: vec![7, 7] }).unwrap();
        j.append(&Record::Resign { after: Some(5) }).unwrap();
        let path = j.path().to_owned();
        drop(j);
        let records = read(&path).unwrap();
        assert_eq!(records.len(), 3);
        assert_eq!(records[1], Record::Decision { after: Some(3), bytes: vec![7, 7] });
        // A torn last record: cut the file inside it.
        let full = std::fs::read(&path).unwrap();
        std::fs::write(&path, &full[..full.len() - 3]).unwrap();
        assert_eq!(read(&path).unwrap().len(), 2);
        // A flipped byte inside an earlier record is corruption, named.
        let mut bad = full.clone();
        bad[10] ^= 1;
        std::fs::write(&path, &bad).unwrap();
        assert!(matches!(read(&path), Err(JournalError::Corrupt { .. })));
        // Finished journals are not resumed.
        std::fs::write(&path, &full).unwrap();
        assert_eq!(unfinished(&dir).len(), 1);
        let (mut j, _) = Journal::open(&path).unwrap();
        j.append(&Record::Finished).unwrap();
        assert!(unfinished(&dir).is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[cfg(unix)]
    #[test]
    fn journals_and_their_directory_are_owner_only() {
        use std::os::unix::fs::PermissionsExt;
        let base =
            std::env::temp_dir().join(format!("fogproof-journal-mode-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let dir = base.join("agent").join("journals");
        let j =
            Journal::create(&dir, &MatchId([5; 32]), Keeper::Player, &terms(), [9; 32]).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(j.path()), 0o600, "the journal holds the match secret");
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&base.join("agent")), 0o700, "parents created on the way too");
        let _ = std::fs::remove_dir_all(&base);
    }
}

//! The transparency log: a C2SP tlog-tiles tree of entries in a directory, its durable batched
//! writer, and proofs read from its tiles.
//!
//! [`LogWriter::append`] takes a batch of entries (and the content-addressed files that go
//! with them) and makes it durable in this order:
//! 1. the stored files (`records/<sha256>`), then every new or grown tile and entry bundle
//!    (gzipped: see [`crate::store`]), each written to a temporary name, fsynced and renamed,
//!    then their directories fsynced;
//! 2. only then the new checkpoint, signed, through a temporary file, fsync, rename and an fsync
//!    of the log directory;
//! 3. after that, partial tiles made obsolete by a full one are deleted.
//!
//! So a crash at any instant leaves either the old checkpoint (and everything it covers: no file
//! it needs is ever rewritten or removed before it is replaced) or the new one (and everything
//! it covers, fsynced before it was written). Files past the checkpoint's size are ignored by
//! readers and rewritten by the next append. [`LogWriter::open`] rebuilds the writer's state
//! from the checkpoint and its partial tiles only, and checks them against the checkpoint root.
//! `ledger/tests/crash.rs` kills a writer at random instants and checks all of this.
//!
//! Readers trust nothing but a checkpoint that passes their [`crate::checkpoint::Policy`];
//! [`TileNodes`] reads the hashes a proof needs from the tiles that checkpoint covers.

use crate::checkpoint::{Checkpoint, CheckpointError, SignedCheckpoint};
use crate::merkle::{self, Hash, NodeReader};
use crate::note::{Note, SignerKey};
use crate::store::{
    self, DirReader, DurableDir, LogReader, ReadError, TILE_HEIGHT, TILE_WIDTH, bundle_path,
    record_path, tile_path, tile_width,
};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The hashes of a tree's right edge: for each tile level, the hashes of its partial tile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TreeState {
    size: u64,
    /// `levels[l]`: the hashes of level `8l` in the partial tile of tile level `l` (< 256).
    levels: Vec<Vec<Hash>>,
    /// The entries of the partial entry bundle (< 256).
    bundle: Vec<Vec<u8>>,
}

/// A file an append writes.
type PendingFile = (String, Vec<u8>);

impl TreeState {
    /// The empty tree.
    pub fn empty() -> TreeState {
        TreeState { size: 0, levels: Vec::new(), bundle: Vec::new() }
    }

    /// Leaves in the tree.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The tree of `size` leaves whose partial tiles, level 0 first, hold `levels` (enough to
    /// compute its root; it has no entries to append to).
    pub fn from_right_edge(size: u64, levels: Vec<Vec<Hash>>) -> TreeState {
        TreeState { size, levels, bundle: Vec::new() }
    }

    /// The RFC 6962 root: the partial tiles' hashes, highest level first, are the complete
    /// subtrees of the tree once grouped by powers of two.
    pub fn root(&self) -> Hash {
        let mut parts = Vec::new();
        for hashes in self.levels.iter().rev() {
            let mut at = 0;
            while at < hashes.len() {
                let width = 1usize << (usize::BITS - 1 - (hashes.len() - at).leading_zeros());
                parts.push(merkle::mth_of_hashes(&hashes[at..at + width]));
                at += width;
            }
        }
        let Some(mut acc) = parts.pop() else { return merkle::EMPTY_ROOT };
        while let Some(left) = parts.pop() {
            acc = merkle::node_hash(&left, &acc);
        }
        acc
    }

    /// Reads the right edge of the tree of `size` leaves from its partial tiles, and checks it
    /// against `root`.
    pub fn load<R: LogReader + ?Sized>(
        r: &R,
        size: u64,
        root: &Hash,
    ) -> Result<TreeState, OpenError> {
        let mut levels = Vec::new();
        let mut level: u8 = 0;
        while size >> (TILE_HEIGHT * u32::from(level)) > 0 {
            let count = size >> (TILE_HEIGHT * u32::from(level));
            let index = count / TILE_WIDTH;
            let width = count % TILE_WIDTH;
            let hashes =
                if width == 0 { Vec::new() } else { read_tile_hashes(r, level, index, width)? };
            levels.push(hashes);
            level += 1;
        }
        let width = size % TILE_WIDTH;
        let bundle = if width == 0 {
            Vec::new()
        } else {
            let stored = r.bundle(size / TILE_WIDTH, width)?;
            let bytes =
                store::decode_bundle(&stored).map_err(|e| OpenError::Corrupt(e.to_string()))?;
            let entries =
                store::parse_bundle(&bytes).map_err(|e| OpenError::Corrupt(e.to_string()))?;
            if entries.len() as u64 != width {
                return Err(OpenError::Corrupt(format!(
                    "{} holds {} entries",
                    bundle_path(size / TILE_WIDTH, width),
                    entries.len()
                )));
            }
            let hashes: Vec<Hash> = entries.iter().map(|e| merkle::leaf_hash(e)).collect();
            if hashes != levels[0] {
                return Err(OpenError::Corrupt(format!(
                    "{} does not hash to {}",
                    bundle_path(size / TILE_WIDTH, width),
                    tile_path(0, size / TILE_WIDTH, width)
                )));
            }
            entries.into_iter().map(<[u8]>::to_vec).collect()
        };
        let state = TreeState { size, levels, bundle };
        if state.root() != *root {
            return Err(OpenError::Corrupt(format!(
                "the partial tiles of size {size} do not give the checkpoint's root"
            )));
        }
        Ok(state)
    }

    /// Adds entries; returns the tiles and bundles to write (full ones first) and the tiles
    /// (level, index; level `None` for entry bundles) that became full.
    fn append(&mut self, entries: &[Vec<u8>]) -> (Vec<PendingFile>, Vec<(Option<u8>, u64)>) {
        let mut files = Vec::new();
        let mut full = Vec::new();
        let mut changed = vec![false; self.levels.len().max(1)];
        for entry in entries {
            let mut hash = merkle::leaf_hash(entry);
            self.bundle.push(entry.clone());
            let n = self.size;
            self.size += 1;
            if self.bundle.len() as u64 == TILE_WIDTH {
                let index = n / TILE_WIDTH;
                files.push((
                    bundle_path(index, TILE_WIDTH),
                    store::compress_bundle(&store::encode_bundle(
                        self.bundle.iter().map(Vec::as_slice),
                    )),
                ));
                full.push((None, index));
                self.bundle.clear();
            }
            let mut level = 0usize;
            loop {
                if self.levels.len() <= level {
                    self.levels.push(Vec::new());
                    changed.push(false);
                }
                self.levels[level].push(hash);
                changed[level] = true;
                if self.levels[level].len() as u64 != TILE_WIDTH {
                    break;
                }
                let count = self.size >> (TILE_HEIGHT * level as u32);
                let index = count / TILE_WIDTH - 1;
                let hashes = std::mem::take(&mut self.levels[level]);
                files.push((tile_path(level as u8, index, TILE_WIDTH), hashes.concat()));
                full.push((Some(level as u8), index));
                hash = merkle::mth_of_hashes(&hashes);
                level += 1;
            }
        }
        for (level, hashes) in self.levels.iter().enumerate() {
            if changed.get(level).copied().unwrap_or(false) && !hashes.is_empty() {
                let count = self.size >> (TILE_HEIGHT * level as u32);
                files.push((
                    tile_path(level as u8, count / TILE_WIDTH, hashes.len() as u64),
                    hashes.concat(),
                ));
            }
        }
        if !self.bundle.is_empty() && !entries.is_empty() {
            files.push((
                bundle_path(self.size / TILE_WIDTH, self.bundle.len() as u64),
                store::compress_bundle(&store::encode_bundle(
                    self.bundle.iter().map(Vec::as_slice),
                )),
            ));
        }
        (files, full)
    }
}

/// Reads a tile and splits it into hashes, checking its length.
pub fn read_tile_hashes<R: LogReader + ?Sized>(
    r: &R,
    level: u8,
    index: u64,
    width: u64,
) -> Result<Vec<Hash>, OpenError> {
    let bytes = r.tile(level, index, width)?;
    if bytes.len() as u64 != width * 32 {
        return Err(OpenError::Corrupt(format!(
            "{} is {} bytes, not {}",
            tile_path(level, index, width),
            bytes.len(),
            width * 32
        )));
    }
    Ok(bytes.chunks_exact(32).map(|c| c.try_into().unwrap_or([0; 32])).collect())
}

/// The entries of bundle `index` of the tree of `size` leaves, checked against their count.
pub fn read_bundle<R: LogReader + ?Sized>(
    r: &R,
    index: u64,
    size: u64,
) -> Result<Vec<Vec<u8>>, OpenError> {
    let width = tile_width(0, index, size);
    let stored = r.bundle(index, width)?;
    let corrupt =
        |e: store::BundleError| OpenError::Corrupt(format!("{}: {e}", bundle_path(index, width)));
    let bytes = store::decode_bundle(&stored).map_err(corrupt)?;
    let entries = store::parse_bundle(&bytes).map_err(corrupt)?;
    if entries.len() as u64 != width {
        return Err(OpenError::Corrupt(format!(
            "{} holds {} entries, not {width}",
            bundle_path(index, width),
            entries.len()
        )));
    }
    Ok(entries.into_iter().map(<[u8]>::to_vec).collect())
}

/// Why a log could not be opened or read.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// A file is missing or unreadable.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// The checkpoint does not parse or verify.
    #[error("checkpoint: {0}")]
    Checkpoint(#[from] CheckpointError),
    /// The checkpoint is not signed by this writer's key.
    #[error("the checkpoint is not signed by this log's key ({0})")]
    NotOurLog(String),
    /// Tiles or bundles disagree with the checkpoint.
    #[error("the log is corrupt: {0}")]
    Corrupt(String),
    /// `create` found a log already there.
    #[error("{0} already holds a log (a checkpoint file exists)")]
    Exists(PathBuf),
    /// Writing failed.
    #[error("cannot write the log: {0}")]
    Io(#[from] std::io::Error),
}

/// Why an append failed (nothing the last checkpoint covers is changed).
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// A write or fsync failed.
    #[error("cannot write the log: {0}")]
    Io(#[from] std::io::Error),
    /// An entry over the bundle's 16-bit length limit.
    #[error("entry {index} of the batch is {len} bytes, over the limit of {max_bytes}")]
    EntryTooLarge {
        /// Its place in the batch.
        index: usize,
        /// Its length.
        len: usize,
        /// The limit.
        max_bytes: usize,
    },
}

/// The writer of one log directory, holding the log's signing key.
#[derive(Debug)]
pub struct LogWriter {
    dir: PathBuf,
    key: SignerKey,
    state: TreeState,
    checkpoint: SignedCheckpoint,
}

impl LogWriter {
    /// Creates an empty log (a signed checkpoint of size 0) in `dir`.
    pub fn create(dir: &Path, key: SignerKey) -> Result<LogWriter, OpenError> {
        if dir.join("checkpoint").exists() {
            return Err(OpenError::Exists(dir.to_path_buf()));
        }
        std::fs::create_dir_all(dir)?;
        let checkpoint = sign(&key, 0, merkle::EMPTY_ROOT);
        let mut dd = DurableDir::new(dir);
        dd.write("checkpoint", checkpoint.to_text().as_bytes())?;
        dd.sync_dirs()?;
        Ok(LogWriter { dir: dir.to_path_buf(), key, state: TreeState::empty(), checkpoint })
    }

    /// Opens the log in `dir`: its checkpoint must be signed by `key`; the writer's state is
    /// rebuilt from the partial tiles of the checkpoint's size.
    pub fn open(dir: &Path, key: SignerKey) -> Result<LogWriter, OpenError> {
        let reader = DirReader::new(dir);
        let checkpoint = SignedCheckpoint::parse(&reader.checkpoint()?)?;
        crate::checkpoint::Policy::log_only(key.verifier().clone())
            .verify(&checkpoint)
            .map_err(|e| OpenError::NotOurLog(e.to_string()))?;
        let state =
            TreeState::load(&reader, checkpoint.checkpoint.size, &checkpoint.checkpoint.root)?;
        Ok(LogWriter { dir: dir.to_path_buf(), key, state, checkpoint })
    }

    /// The log's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The latest checkpoint.
    pub fn checkpoint(&self) -> &SignedCheckpoint {
        &self.checkpoint
    }

    /// The log's key.
    pub fn key(&self) -> &SignerKey {
        &self.key
    }

    /// Leaves in the log.
    pub fn size(&self) -> u64 {
        self.state.size
    }

    /// Appends a batch durably (see the module docs): `files` are stored under
    /// `records/<sha256>` first, then the entries go in, then the checkpoint is replaced.
    /// On error the log is as its last checkpoint says, in memory and on disk.
    pub fn append(
        &mut self,
        entries: &[Vec<u8>],
        files: &[&[u8]],
    ) -> Result<&SignedCheckpoint, WriteError> {
        for (index, e) in entries.iter().enumerate() {
            if e.len() > crate::entry::MAX_ENTRY_BYTES {
                return Err(WriteError::EntryTooLarge {
                    index,
                    len: e.len(),
                    max_bytes: crate::entry::MAX_ENTRY_BYTES,
                });
            }
        }
        if entries.is_empty() && files.is_empty() {
            return Ok(&self.checkpoint);
        }
        let mut dd = DurableDir::new(&self.dir);
        for file in files {
            let hash = crate::entry::sha256(file);
            let rel = record_path(&hash);
            // Content-addressed: a file already there with the right content is kept.
            let present =
                std::fs::read(self.dir.join(&rel)).is_ok_and(|b| crate::entry::sha256(&b) == hash);
            if !present {
                dd.write(&rel, file)?;
            }
        }
        let mut next = self.state.clone();
        let (tiles, full) = next.append(entries);
        for (rel, bytes) in &tiles {
            dd.write(rel, bytes)?;
        }
        dd.sync_dirs()?;
        if entries.is_empty() {
            return Ok(&self.checkpoint);
        }
        let checkpoint = sign(&self.key, next.size, next.root());
        dd.write("checkpoint", checkpoint.to_text().as_bytes())?;
        dd.sync_dirs()?;
        self.state = next;
        self.checkpoint = checkpoint;
        // The full tiles replace their partial versions, which no checkpoint needs any more.
        for (level, index) in full {
            let partials = match level {
                Some(l) => format!("{}.p", tile_path(l, index, TILE_WIDTH)),
                None => format!("{}.p", bundle_path(index, TILE_WIDTH)),
            };
            // Best effort: a partial tile left behind is harmless.
            let _ = std::fs::remove_dir_all(self.dir.join(partials));
        }
        Ok(&self.checkpoint)
    }

    /// Replaces the checkpoint file by the same checkpoint with more signatures (witness
    /// cosignatures), atomically.
    pub fn add_signatures(&mut self, note: Note) -> Result<&SignedCheckpoint, WriteError> {
        let mut updated = self.checkpoint.clone();
        for s in note.signatures {
            updated.note.add_signature(s);
        }
        let mut dd = DurableDir::new(&self.dir);
        dd.write("checkpoint", updated.to_text().as_bytes())?;
        dd.sync_dirs()?;
        self.checkpoint = updated;
        Ok(&self.checkpoint)
    }
}

/// Signs the checkpoint of a tree.
fn sign(key: &SignerKey, size: u64, root: Hash) -> SignedCheckpoint {
    let checkpoint =
        Checkpoint { origin: key.name().to_string(), size, root, extensions: Vec::new() };
    let text = checkpoint.to_text();
    let note = Note { signatures: vec![key.sign(&text, 0)], text };
    SignedCheckpoint { checkpoint, note }
}

/// Complete-subtree hashes read from a log's tiles, for the tree of `size` leaves (a trusted
/// checkpoint's). Tiles are read once and kept.
pub struct TileNodes<'a, R: LogReader + ?Sized> {
    reader: &'a R,
    size: u64,
    cache: RefCell<BTreeMap<(u8, u64), Vec<Hash>>>,
}

impl<'a, R: LogReader + ?Sized> TileNodes<'a, R> {
    /// Reads the tree of `size` leaves from `reader`.
    pub fn new(reader: &'a R, size: u64) -> Self {
        TileNodes { reader, size, cache: RefCell::new(BTreeMap::new()) }
    }
}

impl<R: LogReader + ?Sized> NodeReader for TileNodes<'_, R> {
    type Error = OpenError;
    fn node(&self, level: u8, index: u64) -> Result<Hash, OpenError> {
        let tile_level = level / TILE_HEIGHT as u8;
        let within = u32::from(level) % TILE_HEIGHT;
        let first = index << within;
        let count = 1u64 << within;
        let tile = first / TILE_WIDTH;
        let at = (first % TILE_WIDTH) as usize;
        let width = tile_width(tile_level, tile, self.size);
        if at as u64 + count > width {
            return Err(OpenError::Corrupt(format!(
                "node {index} of level {level} is not in a tree of {} leaves",
                self.size
            )));
        }
        let mut cache = self.cache.borrow_mut();
        let hashes = match cache.entry((tile_level, tile)) {
            std::collections::btree_map::Entry::Occupied(o) => o.into_mut(),
            std::collections::btree_map::Entry::Vacant(v) => {
                v.insert(read_tile_hashes(self.reader, tile_level, tile, width)?)
            }
        };
        Ok(merkle::mth_of_hashes(&hashes[at..at + count as usize]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::note::KeyKind;

    fn key() -> SignerKey {
        SignerKey::from_seed("log.example/test", KeyKind::Ed25519, [4; 32]).unwrap()
    }

    fn entry(i: u64) -> Vec<u8> {
        format!("entry {i}").into_bytes()
    }

    #[test]
    fn appends_match_an_in_memory_tree_and_reopen() {
        let dir = tempfile::tempdir().unwrap();
        let mut w = LogWriter::create(dir.path(), key()).unwrap();
        let mut all = Vec::new();
        // Batches that cross tile boundaries at levels 0 and 1.
        for (b, len) in [1u64, 254, 1, 300, 65_536 - 556, 7].into_iter().enumerate() {
            let batch: Vec<Vec<u8>> = (0..len).map(|i| entry(b as u64 * 1_000_000 + i)).collect();
            all.extend(batch.iter().map(|e| merkle::leaf_hash(e)));
            let cp = w.append(&batch, &[]).unwrap().checkpoint.clone();
            let mem = merkle::MemoryTree::new(all.clone());
            assert_eq!(cp.size, all.len() as u64);
            assert_eq!(cp.root, merkle::root(&mem, cp.size).unwrap());
            let reopened = LogWriter::open(dir.path(), key()).unwrap();
            assert_eq!(reopened.state, w.state);
            // Proofs from the tiles are the in-memory tree's.
            let reader = DirReader::new(dir.path());
            let nodes = TileNodes::new(&reader, cp.size);
            for i in [0, cp.size / 2, cp.size - 1] {
                assert_eq!(
                    merkle::prove_inclusion(&nodes, i, cp.size).unwrap(),
                    merkle::prove_inclusion(&mem, i, cp.size).unwrap()
                );
            }
        }
        // No partial tile of a full tile is left.
        assert!(!dir.path().join("tile/0/000.p").exists());
        assert!(dir.path().join("tile/2/000.p/1").exists());
    }

    #[test]
    fn open_refuses_another_key_and_corrupt_tiles() {
        let dir = tempfile::tempdir().unwrap();
        let mut w = LogWriter::create(dir.path(), key()).unwrap();
        w.append(&[entry(1), entry(2), entry(3)], &[]).unwrap();
        let other = SignerKey::from_seed("log.example/test", KeyKind::Ed25519, [5; 32]).unwrap();
        assert!(matches!(LogWriter::open(dir.path(), other), Err(OpenError::NotOurLog(_))));
        std::fs::write(dir.path().join("tile/0/000.p/3"), [0u8; 96]).unwrap();
        assert!(matches!(LogWriter::open(dir.path(), key()), Err(OpenError::Corrupt(_))));
        assert!(matches!(LogWriter::create(dir.path(), key()), Err(OpenError::Exists(_))));
    }
}

//! Where a log lives: the C2SP tlog-tiles paths, a reader trait (a directory today, HTTP later)
//! and the durable file writes the writer relies on.
//!
//! ```text
//! checkpoint                         the signed checkpoint (replaced atomically)
//! tile/<L>/<N>[.p/<W>]               hash tiles: 256 hashes of level 8L, or W < 256 (partial)
//! tile/entries/<N>[.p/<W>]           entry bundles: big-endian u16 length, entry bytes, ...
//! records/<sha256 hex>               match records and signed definitions, content-addressed
//! ```
//!
//! `<N>` is written in zero-padded groups of three digits, every group but the last prefixed
//! with `x` (1234067 is `x001/x234/067`).
//!
//! Durability (as Sunlight and Tessera do it): every file is written to a temporary name in its
//! directory, fsynced, renamed into place, and the directories fsynced; nothing is rewritten in
//! place, so a reader never sees half a file.

use crate::merkle::Hash;
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// Hashes (or entries) in a full tile.
pub const TILE_WIDTH: u64 = 256;
/// Tree levels per tile level (256 = 2^8).
pub const TILE_HEIGHT: u32 = 8;
/// The largest tile: 256 hashes of 32 bytes.
pub const MAX_TILE_BYTES: usize = 256 * 32;
/// The largest entry bundle: 256 entries of at most 65,535 bytes, each with its 2-byte length.
pub const MAX_BUNDLE_BYTES: usize = 256 * (2 + u16::MAX as usize);
/// The largest stored file (a match record, or a signed definition).
pub const MAX_RECORD_FILE_BYTES: usize = protocol::record::MAX_RECORD_BYTES as usize;
/// The largest checkpoint file.
pub const MAX_CHECKPOINT_BYTES: usize = crate::note::MAX_NOTE_BYTES;

/// `<N>` as path segments: `x001/x234/067`.
pub fn index_path(mut n: u64) -> String {
    let mut groups = vec![format!("{:03}", n % 1000)];
    while n >= 1000 {
        n /= 1000;
        groups.push(format!("x{:03}", n % 1000));
    }
    groups.reverse();
    groups.join("/")
}

/// The width suffix: empty for a full tile, `.p/<W>` for a partial one.
fn width_suffix(width: u64) -> String {
    if width == TILE_WIDTH { String::new() } else { format!(".p/{width}") }
}

/// `tile/<L>/<N>[.p/<W>]`.
pub fn tile_path(level: u8, index: u64, width: u64) -> String {
    format!("tile/{level}/{}{}", index_path(index), width_suffix(width))
}

/// `tile/entries/<N>[.p/<W>]`.
pub fn bundle_path(index: u64, width: u64) -> String {
    format!("tile/entries/{}{}", index_path(index), width_suffix(width))
}

/// `records/<sha256 hex>`.
pub fn record_path(sha256: &Hash) -> String {
    format!("records/{}", protocol::hex::encode(sha256))
}

/// The width of tile `index` at tile level `level` in a tree of `size` leaves (0: none).
pub fn tile_width(level: u8, index: u64, size: u64) -> u64 {
    let hashes = size >> (TILE_HEIGHT * u32::from(level));
    let start = index.saturating_mul(TILE_WIDTH);
    hashes.saturating_sub(start).min(TILE_WIDTH)
}

/// Splits an entry bundle into its entries.
pub fn parse_bundle(bytes: &[u8]) -> Result<Vec<&[u8]>, BundleError> {
    let mut out = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        let (len, tail) = rest.split_at_checked(2).ok_or(BundleError::Truncated)?;
        let len = usize::from(u16::from_be_bytes([len[0], len[1]]));
        let (entry, tail) = tail.split_at_checked(len).ok_or(BundleError::Truncated)?;
        out.push(entry);
        rest = tail;
        if out.len() > TILE_WIDTH as usize {
            return Err(BundleError::TooMany);
        }
    }
    Ok(out)
}

/// An entry bundle's bytes.
pub fn encode_bundle<'a>(entries: impl IntoIterator<Item = &'a [u8]>) -> Vec<u8> {
    let mut out = Vec::new();
    for e in entries {
        // Entries are checked against MAX_ENTRY_BYTES (= u16::MAX) before they get here.
        let len = u16::try_from(e.len()).unwrap_or(u16::MAX);
        out.extend_from_slice(&len.to_be_bytes());
        out.extend_from_slice(e);
    }
    out
}

/// Why an entry bundle is malformed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BundleError {
    /// A length prefix points past the end.
    #[error("entry bundle is truncated")]
    Truncated,
    /// More than 256 entries.
    #[error("entry bundle has more than 256 entries")]
    TooMany,
}

/// Why a resource could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// It does not exist.
    #[error("{0} is missing")]
    NotFound(String),
    /// Over its size limit.
    #[error("{path} is over its limit of {max_bytes} bytes")]
    TooLarge {
        /// The resource.
        path: String,
        /// Its limit.
        max_bytes: usize,
    },
    /// Any other I/O failure.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The resource.
        path: String,
        /// What went wrong.
        source: std::io::Error,
    },
}

/// Reads a published log: every path is relative to the log's prefix. A directory implements it
/// today ([`DirReader`]); an HTTP client can implement it for a log served by a web server.
pub trait LogReader: Sync {
    /// Reads the resource at `path`, refusing more than `max_bytes`.
    fn read(&self, path: &str, max_bytes: usize) -> Result<Vec<u8>, ReadError>;

    /// The checkpoint file.
    fn checkpoint(&self) -> Result<Vec<u8>, ReadError> {
        self.read("checkpoint", MAX_CHECKPOINT_BYTES)
    }

    /// A hash tile.
    fn tile(&self, level: u8, index: u64, width: u64) -> Result<Vec<u8>, ReadError> {
        self.read(&tile_path(level, index, width), MAX_TILE_BYTES)
    }

    /// An entry bundle.
    fn bundle(&self, index: u64, width: u64) -> Result<Vec<u8>, ReadError> {
        self.read(&bundle_path(index, width), MAX_BUNDLE_BYTES)
    }

    /// A stored record or definition.
    fn record(&self, sha256: &Hash) -> Result<Vec<u8>, ReadError> {
        self.read(&record_path(sha256), MAX_RECORD_FILE_BYTES)
    }
}

/// A log in a directory.
#[derive(Clone, Debug)]
pub struct DirReader {
    root: PathBuf,
}

impl DirReader {
    /// The log in `root`.
    pub fn new(root: impl Into<PathBuf>) -> DirReader {
        DirReader { root: root.into() }
    }
}

impl LogReader for DirReader {
    fn read(&self, path: &str, max_bytes: usize) -> Result<Vec<u8>, ReadError> {
        let full = self.root.join(path);
        let io = |source| ReadError::Io { path: path.to_string(), source };
        let file = match File::open(&full) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(ReadError::NotFound(path.to_string()));
            }
            Err(e) => return Err(io(e)),
        };
        let mut out = Vec::new();
        file.take(max_bytes as u64 + 1).read_to_end(&mut out).map_err(io)?;
        if out.len() > max_bytes {
            return Err(ReadError::TooLarge { path: path.to_string(), max_bytes });
        }
        Ok(out)
    }
}

/// Durable writes into one directory tree: files are written and fsynced as they come, and
/// [`DurableDir::sync_dirs`] fsyncs every directory that got a new name.
#[derive(Debug)]
pub struct DurableDir {
    root: PathBuf,
    touched: std::collections::BTreeSet<PathBuf>,
}

impl DurableDir {
    /// Writes under `root`.
    pub fn new(root: impl Into<PathBuf>) -> DurableDir {
        DurableDir { root: root.into(), touched: std::collections::BTreeSet::new() }
    }

    /// The root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Writes `bytes` at `rel` by temporary file, fsync and rename. The directory entry is
    /// durable only after [`DurableDir::sync_dirs`].
    pub fn write(&mut self, rel: &str, bytes: &[u8]) -> std::io::Result<()> {
        let path = self.root.join(rel);
        let dir = path.parent().unwrap_or(&self.root).to_path_buf();
        if !dir.is_dir() {
            std::fs::create_dir_all(&dir)?;
            // Every directory from the root down may be new: each needs its parent fsynced.
            let mut d = dir.as_path();
            while d.starts_with(&self.root) && d != self.root {
                self.touched.insert(d.to_path_buf());
                match d.parent() {
                    Some(p) => d = p,
                    None => break,
                }
            }
        }
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
        let mut f = OpenOptions::new().write(true).create(true).truncate(true).open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        std::fs::rename(&tmp, &path)?;
        self.touched.insert(dir);
        Ok(())
    }

    /// Fsyncs every directory written into (deepest first, then the root).
    pub fn sync_dirs(&mut self) -> std::io::Result<()> {
        let mut dirs: Vec<PathBuf> = std::mem::take(&mut self.touched).into_iter().collect();
        dirs.sort_by_key(|d| std::cmp::Reverse(d.components().count()));
        for d in dirs {
            File::open(&d)?.sync_all()?;
        }
        File::open(&self.root)?.sync_all()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_follow_tlog_tiles() {
        assert_eq!(index_path(0), "000");
        assert_eq!(index_path(999), "999");
        assert_eq!(index_path(1000), "x001/000");
        assert_eq!(index_path(1_234_067), "x001/x234/067");
        assert_eq!(tile_path(0, 1_234_067, 256), "tile/0/x001/x234/067");
        assert_eq!(tile_path(1, 5, 17), "tile/1/005.p/17");
        assert_eq!(bundle_path(2, 112), "tile/entries/002.p/112");
    }

    #[test]
    fn widths_match_the_spec_example() {
        // 70,000 leaves: 273 full level-0 tiles and one of 112, one full level-1 tile and one of
        // 17, one level-2 tile of 1 (C2SP tlog-tiles, "Partial Tiles").
        assert_eq!(tile_width(0, 272, 70_000), 256);
        assert_eq!(tile_width(0, 273, 70_000), 112);
        assert_eq!(tile_width(0, 274, 70_000), 0);
        assert_eq!(tile_width(1, 0, 70_000), 256);
        assert_eq!(tile_width(1, 1, 70_000), 17);
        assert_eq!(tile_width(2, 0, 70_000), 1);
        assert_eq!(tile_width(1, 0, 256), 1);
    }

    #[test]
    fn bundles_round_trip_and_refuse_truncation() {
        let b = encode_bundle([&b"ab"[..], b"", b"xyz"]);
        assert_eq!(parse_bundle(&b).unwrap(), vec![&b"ab"[..], b"", b"xyz"]);
        assert_eq!(parse_bundle(&b[..b.len() - 1]), Err(BundleError::Truncated));
        assert_eq!(parse_bundle(&[0]), Err(BundleError::Truncated));
    }
}

//! Where a log lives: the C2SP tlog-tiles paths, a reader trait (a directory today, HTTP later)
//! and the durable file writes the writer relies on.
//!
//! ```text
//! checkpoint                         the signed checkpoint (replaced atomically)
//! tile/<L>/<N>[.p/<W>]               hash tiles: 256 hashes of level 8L, or W < 256 (partial)
//! tile/entries/<N>[.p/<W>]           entry bundles: big-endian u16 length, entry bytes, ...,
//!                                    stored gzip-compressed
//! records/<sha256 hex>               match records and signed definitions, content-addressed
//! ```
//!
//! Entry bundles: tlog-tiles says they SHOULD be compressed at the HTTP layer and that a log MAY
//! use `Content-Encoding: gzip` with no negotiation. The writer stores each bundle gzipped
//! ([`compress_bundle`]), so a web server can serve the bytes as stored with that header; the
//! bundle itself, and every hash, is of the uncompressed bytes (each entry hashes to its leaf in
//! the level-0 tile). Readers accept both ([`decode_bundle`]): gzip (the bytes start with the
//! gzip magic `1f 8b 08`) and plain (logs written before bundles were compressed). A plain
//! bundle never starts that way when its first entry is a fogproof entry (its first byte, after
//! the length, is the `f` of the entry prefix).
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
/// A stored (gzipped) bundle is refused if it inflates to more.
pub const MAX_BUNDLE_BYTES: usize = 256 * (2 + u16::MAX as usize);
/// The largest entry bundle file as stored: gzip adds at most 5 bytes per 16 KiB block to
/// data it cannot compress, and a few dozen of header and trailer.
pub const MAX_STORED_BUNDLE_BYTES: usize = MAX_BUNDLE_BYTES + MAX_BUNDLE_BYTES / 1024 + 1024;
/// The first bytes of a gzip stream (magic and the deflate method).
pub const GZIP_MAGIC: [u8; 3] = [0x1f, 0x8b, 0x08];
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

/// An entry bundle as the writer stores it: gzipped (deterministic: no name, no time, default
/// level). If compression fails (it cannot, into memory), the plain bytes, which readers accept
/// too.
pub fn compress_bundle(plain: &[u8]) -> Vec<u8> {
    use flate2::{Compression, GzBuilder};
    let mut enc = GzBuilder::new().mtime(0).write(Vec::new(), Compression::default());
    match enc.write_all(plain).and_then(|()| enc.finish()) {
        Ok(gz) => gz,
        Err(_) => plain.to_vec(),
    }
}

/// An entry bundle's bytes from its stored bytes: inflated if gzipped (see the module docs),
/// as they are otherwise. At most [`MAX_BUNDLE_BYTES`] are inflated.
pub fn decode_bundle(stored: &[u8]) -> Result<std::borrow::Cow<'_, [u8]>, BundleError> {
    if !stored.starts_with(&GZIP_MAGIC) {
        return Ok(std::borrow::Cow::Borrowed(stored));
    }
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(stored)
        .take(MAX_BUNDLE_BYTES as u64 + 1)
        .read_to_end(&mut out)
        .map_err(|_| BundleError::Gzip)?;
    if out.len() > MAX_BUNDLE_BYTES {
        return Err(BundleError::TooLarge);
    }
    Ok(std::borrow::Cow::Owned(out))
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
    /// It starts as gzip but does not inflate.
    #[error("entry bundle is not valid gzip")]
    Gzip,
    /// It inflates to more than [`MAX_BUNDLE_BYTES`].
    #[error("entry bundle inflates to more than {MAX_BUNDLE_BYTES} bytes")]
    TooLarge,
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

    /// An entry bundle, as stored: gzipped or plain ([`decode_bundle`] gives its bytes).
    fn bundle(&self, index: u64, width: u64) -> Result<Vec<u8>, ReadError> {
        self.read(&bundle_path(index, width), MAX_STORED_BUNDLE_BYTES)
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
    fn bundles_are_stored_gzipped_and_read_plain_or_gzipped() {
        // A fogproof entry starts with its prefix, so its plain bundle is not taken for gzip.
        let entry = [crate::entry::ENTRY_PREFIX, &[7u8; 300][..]].concat();
        let plain = encode_bundle([&entry[..], b"second"]);
        let stored = compress_bundle(&plain);
        assert!(stored.starts_with(&GZIP_MAGIC), "the writer's bundles are gzip");
        assert!(stored.len() < plain.len(), "and smaller: {} < {}", stored.len(), plain.len());
        assert_eq!(compress_bundle(&plain), stored, "deterministic");
        // Both read back to the same entries.
        assert_eq!(decode_bundle(&stored).unwrap().as_ref(), plain.as_slice());
        assert_eq!(decode_bundle(&plain).unwrap().as_ref(), plain.as_slice());
        // Gzip that does not inflate, and gzip that inflates past the limit, are refused.
        let mut broken = stored.clone();
        let n = broken.len();
        broken[n / 2] ^= 0xff;
        broken.truncate(n - 4);
        assert_eq!(decode_bundle(&broken), Err(BundleError::Gzip));
        let bomb = compress_bundle(&vec![0u8; MAX_BUNDLE_BYTES + 1]);
        assert!(bomb.len() < MAX_STORED_BUNDLE_BYTES);
        assert_eq!(decode_bundle(&bomb), Err(BundleError::TooLarge));
    }

    #[test]
    fn bundles_round_trip_and_refuse_truncation() {
        let b = encode_bundle([&b"ab"[..], b"", b"xyz"]);
        assert_eq!(parse_bundle(&b).unwrap(), vec![&b"ab"[..], b"", b"xyz"]);
        assert_eq!(parse_bundle(&b[..b.len() - 1]), Err(BundleError::Truncated));
        assert_eq!(parse_bundle(&[0]), Err(BundleError::Truncated));
    }
}

//! The one framing and hashing helper: length-prefixed, labelled fields behind a domain tag.
//!
//! Every hash in the protocol is computed by [`Transcript`], and the HPKE `info`/`aad` strings are
//! built by [`Frame`] with the same encoding, so no two different inputs can frame to the same
//! bytes (the idea of merlin's transcript, without the STROBE construction).
//!
//! Encoding (`lp(x) = u64_le(len(x)) || x`):
//!
//! ```text
//! frame(tag; (label_1, value_1), ..., (label_n, value_n))
//!     = lp(tag) || lp(label_1) || lp(value_1) || ... || lp(label_n) || lp(value_n)
//! H(tag; fields) = SHA-256(frame(tag; fields))
//! ```
//!
//! Labels and tags are `&'static str`: they are protocol constants, never data.

use crate::tags::Tag;
use sha2::{Digest, Sha256};

/// Where framed bytes go: a hash state or a byte buffer.
trait Sink {
    fn put(&mut self, bytes: &[u8]);
    /// `lp(bytes)`: the length as u64 little-endian, then the bytes.
    fn put_lp(&mut self, bytes: &[u8]) {
        self.put(&(bytes.len() as u64).to_le_bytes());
        self.put(bytes);
    }
}

impl Sink for Sha256 {
    fn put(&mut self, bytes: &[u8]) {
        self.update(bytes);
    }
}

impl Sink for Vec<u8> {
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}

/// A SHA-256 transcript: `H(tag; fields)` as documented at the top of this module.
#[derive(Clone)]
pub struct Transcript {
    hasher: Sha256,
}

impl Transcript {
    /// Starts a transcript for one protocol purpose, named by its domain tag.
    pub fn new(tag: Tag) -> Self {
        let mut hasher = Sha256::new();
        hasher.put_lp(tag.as_bytes());
        Transcript { hasher }
    }

    /// Appends one labelled, length-prefixed field.
    pub fn append(mut self, label: &'static str, value: &[u8]) -> Self {
        self.hasher.put_lp(label.as_bytes());
        self.hasher.put_lp(value);
        self
    }

    /// Appends a u64 as its 8 little-endian bytes (itself length-prefixed like any field).
    pub fn append_u64(self, label: &'static str, value: u64) -> Self {
        self.append(label, &value.to_le_bytes())
    }

    /// The SHA-256 of everything appended.
    pub fn finish(self) -> [u8; 32] {
        self.hasher.finalize().into()
    }
}

/// The same framing as [`Transcript`], kept as bytes (for HPKE `info` and `aad`).
#[derive(Clone, Debug, Default)]
pub struct Frame {
    bytes: Vec<u8>,
}

impl Frame {
    /// Starts a frame with its domain tag.
    pub fn new(tag: Tag) -> Self {
        let mut bytes = Vec::new();
        bytes.put_lp(tag.as_bytes());
        Frame { bytes }
    }

    /// Appends one labelled, length-prefixed field.
    pub fn append(mut self, label: &'static str, value: &[u8]) -> Self {
        self.bytes.put_lp(label.as_bytes());
        self.bytes.put_lp(value);
        self
    }

    /// Appends a u64 as its 8 little-endian bytes.
    pub fn append_u64(self, label: &'static str, value: u64) -> Self {
        self.append(label, &value.to_le_bytes())
    }

    /// The framed bytes.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }
}

/// `u64_le(len(tag)) || tag || bytes`: the exact input of every signature (the signed bytes
/// come last, so they need no length prefix, and the tag's prefix keeps tags prefix-free).
pub fn signing_input(tag: Tag, bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(8 + tag.as_bytes().len() + bytes.len());
    out.put_lp(tag.as_bytes());
    out.put(bytes);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tags;

    #[test]
    fn transcript_hashes_exactly_the_frame() {
        let frame = Frame::new(tags::COMMITMENT).append("a", b"xy").append_u64("n", 7).into_bytes();
        let mut expected = Vec::new();
        expected.extend_from_slice(&(tags::COMMITMENT.as_bytes().len() as u64).to_le_bytes());
        expected.extend_from_slice(tags::COMMITMENT.as_bytes());
        expected.extend_from_slice(&1u64.to_le_bytes());
        expected.extend_from_slice(b"a");
        expected.extend_from_slice(&2u64.to_le_bytes());
        expected.extend_from_slice(b"xy");
        expected.extend_from_slice(&1u64.to_le_bytes());
        expected.extend_from_slice(b"n");
        expected.extend_from_slice(&8u64.to_le_bytes());
        expected.extend_from_slice(&7u64.to_le_bytes());
        assert_eq!(frame, expected);
        let hashed = Transcript::new(tags::COMMITMENT).append("a", b"xy").append_u64("n", 7);
        assert_eq!(hashed.finish(), <[u8; 32]>::from(Sha256::digest(&expected)));
    }

    #[test]
    fn moving_a_byte_between_fields_changes_the_hash() {
        let a = Transcript::new(tags::COMMITMENT).append("x", b"ab").append("y", b"c").finish();
        let b = Transcript::new(tags::COMMITMENT).append("x", b"a").append("y", b"bc").finish();
        assert_ne!(a, b);
    }

    #[test]
    fn the_tag_separates_domains() {
        let a = Transcript::new(tags::COMMITMENT).append("x", b"v").finish();
        let b = Transcript::new(tags::MATCH_ID).append("x", b"v").finish();
        assert_ne!(a, b);
    }
}

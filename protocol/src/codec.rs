//! Canonical bytes: postcard 1.1 over versioned serde types, with a strict decoder.
//!
//! postcard alone is not canonical on input: version 1.1.3 decodes `[0x81, 0x00]` as the varint
//! 1 (an overlong encoding of `[0x01]`) and `take_from_bytes` leaves trailing bytes for the caller.
//! [`decode`] therefore (1) refuses input over the type's size limit, (2) refuses trailing bytes,
//! (3) re-encodes the value against the input ([`Matches`]: a serializer output that compares
//! each byte with the input as it is written and allocates nothing) and refuses it unless the
//! bytes are identical, and (4) runs the type's own checks (the protocol version). Every value
//! thus has exactly one accepted encoding, and signatures and hashes can be computed over the
//! bytes as received.
//!
//! The comparison is by re-encoding rather than a check of postcard's varints alone because it
//! covers every way a value can have two encodings, not only an overlong varint: an unsorted or
//! repeated map key, a type whose `Deserialize` normalises (e.g. a string parsed to a name), a
//! bool or option tag other than 0 and 1. Byte fields are `serde_bytes` (one comparison of the
//! whole slice, not one call per byte).

use serde::Serialize;
use serde::de::DeserializeOwned;
use thiserror::Error;

/// The protocol version every versioned type carries in its `version` field.
pub const VERSION: u8 = 3;

/// Why bytes were refused by [`decode`].
#[derive(Debug, Error, PartialEq, Eq)]
pub enum DecodeError {
    /// More bytes than the type may ever take.
    #[error("{what}: {len} bytes is over the limit of {max_bytes} bytes")]
    TooLong {
        /// The type being decoded.
        what: &'static str,
        /// The input length.
        len: usize,
        /// The type's limit.
        max_bytes: usize,
    },
    /// postcard could not decode the bytes as this type.
    #[error("{what}: malformed: {reason}")]
    Malformed {
        /// The type being decoded.
        what: &'static str,
        /// postcard's reason.
        reason: postcard::Error,
    },
    /// A frame of a framed stream (a match record) with no bytes in it.
    #[error("{what}: an empty frame (every frame holds a value)")]
    EmptyFrame {
        /// The type being decoded.
        what: &'static str,
    },
    /// A valid value followed by extra bytes.
    #[error("{what}: {count} trailing bytes after the value")]
    TrailingBytes {
        /// The type being decoded.
        what: &'static str,
        /// How many bytes were left.
        count: usize,
    },
    /// The bytes decode but are not the value's one canonical encoding (e.g. an overlong varint).
    #[error("{what}: not the canonical encoding (e.g. an overlong varint or an unsorted map)")]
    NonCanonical {
        /// The type being decoded.
        what: &'static str,
    },
    /// A version other than [`VERSION`].
    #[error("{what}: unsupported protocol version {found} (this build speaks {VERSION})")]
    UnsupportedVersion {
        /// The type being decoded.
        what: &'static str,
        /// The version in the bytes.
        found: u8,
    },
}

/// A type with one canonical byte encoding.
pub trait Canonical: Serialize + DeserializeOwned {
    /// The type's name in errors.
    const NAME: &'static str;
    /// No encoding of this type is ever longer (a limit on everything from outside).
    const MAX_BYTES: usize;

    /// The canonical bytes (postcard).
    fn to_canonical(&self) -> Vec<u8> {
        to_vec(self)
    }

    /// Checks beyond the encoding, such as the protocol version.
    fn check(&self) -> Result<(), DecodeError> {
        Ok(())
    }

    /// Decodes strictly; see [`decode`].
    fn from_canonical(bytes: &[u8]) -> Result<Self, DecodeError> {
        decode(bytes)
    }
}

/// The largest scratch buffer a thread keeps between encodings ([`to_vec`]).
const SCRATCH_KEPT: usize = 64 * 1024;

thread_local! {
    static SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// `value`'s postcard bytes in a vector of exactly their length.
///
/// Written first into a buffer the thread keeps, then copied once: postcard's own vector grows
/// from empty by doubling, a reallocation every few fields of a message (the reallocations
/// showed in the relay's and the umpire's profiles; what this saves is below what the load test
/// tells apart, docs/LOADTEST.md, stop 27), and the copy leaves no spare capacity in vectors a
/// match keeps for its whole life.
pub fn to_vec<T: Serialize + ?Sized>(value: &T) -> Vec<u8> {
    // Derived serde impls of our types only produce sequences of known length, the one thing
    // postcard's serializer can fail on.
    let encode = |buf: &mut Vec<u8>| {
        buf.clear();
        postcard::serialize_with_flavor(value, Scratch(buf))
            .expect("protocol types always serialize with postcard");
        let bytes = buf.to_vec();
        if buf.capacity() > SCRATCH_KEPT {
            *buf = Vec::new();
        }
        bytes
    };
    SCRATCH.with(|s| match s.try_borrow_mut() {
        Ok(mut buf) => encode(&mut buf),
        // Only if a `Serialize` encoded something itself: it gets a buffer of its own.
        Err(_) => encode(&mut Vec::new()),
    })
}

/// A postcard serializer output appending to a borrowed buffer ([`to_vec`]).
struct Scratch<'a>(&'a mut Vec<u8>);

impl postcard::ser_flavors::Flavor for Scratch<'_> {
    type Output = ();

    #[inline(always)]
    fn try_push(&mut self, data: u8) -> postcard::Result<()> {
        self.0.push(data);
        Ok(())
    }

    #[inline(always)]
    fn try_extend(&mut self, data: &[u8]) -> postcard::Result<()> {
        self.0.extend_from_slice(data);
        Ok(())
    }

    fn finalize(self) -> postcard::Result<()> {
        Ok(())
    }
}

/// Strict decoding (see the module docs): one accepted encoding per value.
pub fn decode<T: Canonical>(bytes: &[u8]) -> Result<T, DecodeError> {
    let what = T::NAME;
    if bytes.len() > T::MAX_BYTES {
        return Err(DecodeError::TooLong { what, len: bytes.len(), max_bytes: T::MAX_BYTES });
    }
    let (value, rest) = postcard::take_from_bytes::<T>(bytes)
        .map_err(|reason| DecodeError::Malformed { what, reason })?;
    if !rest.is_empty() {
        return Err(DecodeError::TrailingBytes { what, count: rest.len() });
    }
    if !encodes_to(&value, bytes) {
        return Err(DecodeError::NonCanonical { what });
    }
    value.check()?;
    Ok(value)
}

/// Whether `value`'s postcard encoding is exactly `bytes`, compared as it is written (nothing
/// allocated; stops at the first byte that differs).
pub fn encodes_to<T: Serialize + ?Sized>(value: &T, bytes: &[u8]) -> bool {
    postcard::serialize_with_flavor(value, Matches { rest: bytes }).unwrap_or(false)
}

/// A postcard serializer output that compares what is written with `rest` instead of storing it
/// ([`encodes_to`]): a byte that differs, or a byte past the end, fails the serialization.
struct Matches<'a> {
    rest: &'a [u8],
}

impl postcard::ser_flavors::Flavor for Matches<'_> {
    /// True when every byte of the input was written.
    type Output = bool;

    fn try_push(&mut self, data: u8) -> postcard::Result<()> {
        match self.rest.split_first() {
            Some((&b, rest)) if b == data => {
                self.rest = rest;
                Ok(())
            }
            _ => Err(postcard::Error::SerializeBufferFull),
        }
    }

    fn try_extend(&mut self, data: &[u8]) -> postcard::Result<()> {
        match self.rest.split_at_checked(data.len()) {
            Some((head, rest)) if head == data => {
                self.rest = rest;
                Ok(())
            }
            _ => Err(postcard::Error::SerializeBufferFull),
        }
    }

    fn finalize(self) -> postcard::Result<bool> {
        Ok(self.rest.is_empty())
    }
}

/// The version check shared by versioned types.
pub fn check_version(what: &'static str, found: u8) -> Result<(), DecodeError> {
    if found == VERSION { Ok(()) } else { Err(DecodeError::UnsupportedVersion { what, found }) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use std::collections::BTreeMap;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Probe {
        version: u8,
        n: u32,
        map: BTreeMap<String, String>,
    }

    impl Canonical for Probe {
        const NAME: &'static str = "probe";
        const MAX_BYTES: usize = 64;
        fn check(&self) -> Result<(), DecodeError> {
            check_version(Self::NAME, self.version)
        }
    }

    fn probe(n: u32) -> Probe {
        Probe { version: VERSION, n, map: BTreeMap::new() }
    }

    #[test]
    fn postcard_alone_accepts_an_overlong_varint() {
        // The reason this module exists: plain postcard 1.1.3 takes [0x81, 0x00] as 1.
        assert_eq!(postcard::from_bytes::<u32>(&[0x81, 0x00]), Ok(1));
        assert_eq!(postcard::from_bytes::<u32>(&[0x01, 0xff]), Ok(1));
    }

    #[test]
    fn round_trip() {
        let p = probe(300);
        assert_eq!(p.to_canonical(), vec![VERSION, 0xac, 0x02, 0]);
        assert_eq!(Probe::from_canonical(&p.to_canonical()), Ok(p));
    }

    /// A value whose own `Serialize` encodes another with [`to_vec`] while the outer encoding
    /// holds the thread's scratch buffer.
    struct Nested(Vec<u32>);

    impl Serialize for Nested {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            serde_bytes::Bytes::new(&to_vec(&self.0)).serialize(s)
        }
    }

    #[test]
    fn to_vec_writes_postcards_bytes_with_no_spare_capacity() {
        // Small, larger than the scratch buffer a thread keeps, then small again: the same
        // bytes as postcard's own vector each time.
        for n in [0usize, 1, 40, 300, 40_000, 3] {
            let value: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2_654_435_761)).collect();
            let bytes = to_vec(&value);
            assert_eq!(bytes, postcard::to_allocvec(&value).unwrap(), "{n} numbers");
            assert_eq!(bytes.capacity(), bytes.len(), "{n} numbers");
        }
        let nested = Nested(vec![1, 300, 70_000]);
        let inner = postcard::to_allocvec(&nested.0).unwrap();
        assert_eq!(
            to_vec(&nested),
            postcard::to_allocvec(&serde_bytes::Bytes::new(&inner)).unwrap()
        );
    }

    #[test]
    fn overlong_varint_is_refused() {
        assert_eq!(
            Probe::from_canonical(&[VERSION, 0x81, 0x00, 0]),
            Err(DecodeError::NonCanonical { what: "probe" })
        );
        assert_eq!(Probe::from_canonical(&[VERSION, 0x01, 0]), Ok(probe(1)));
    }

    #[test]
    fn encodes_to_compares_every_byte_and_the_length() {
        let p = probe(300);
        let bytes = p.to_canonical();
        assert!(encodes_to(&p, &bytes));
        // Short, long, and one byte different anywhere.
        assert!(!encodes_to(&p, &bytes[..bytes.len() - 1]));
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(!encodes_to(&p, &longer));
        for i in 0..bytes.len() {
            let mut other = bytes.clone();
            other[i] ^= 1;
            assert!(!encodes_to(&p, &other), "byte {i}");
        }
        // Byte strings are compared as a whole (try_extend), including their length prefix.
        let blob = serde_bytes::ByteBuf::from(vec![1, 2, 3]);
        assert!(encodes_to(&blob, &[3, 1, 2, 3]));
        assert!(!encodes_to(&blob, &[3, 1, 2, 4]));
        assert!(!encodes_to(&blob, &[3, 1, 2]));
    }

    #[test]
    fn non_canonical_bools_and_options_are_refused() {
        // postcard itself refuses a bool or an option tag other than 0 or 1.
        assert!(decode::<Flags>(&[1, 1]).is_ok());
        assert!(matches!(decode::<Flags>(&[2, 1]), Err(DecodeError::Malformed { .. })));
        assert!(matches!(decode::<Flags>(&[1, 2]), Err(DecodeError::Malformed { .. })));
        assert!(matches!(decode::<Flags>(&[0, 1, 0]), Err(DecodeError::TrailingBytes { .. })));
    }

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Flags {
        flag: bool,
        opt: Option<()>,
    }

    impl Canonical for Flags {
        const NAME: &'static str = "flags";
        const MAX_BYTES: usize = 8;
    }

    #[test]
    fn overlong_byte_string_lengths_are_refused() {
        let ok = [2, 7, 7];
        assert_eq!(decode::<Blob>(&ok).map(|b| b.0.len()), Ok(2));
        assert_eq!(
            decode::<Blob>(&[0x82, 0x00, 7, 7]),
            Err(DecodeError::NonCanonical { what: "blob" })
        );
    }

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Blob(#[serde(with = "serde_bytes")] Vec<u8>);

    impl Canonical for Blob {
        const NAME: &'static str = "blob";
        const MAX_BYTES: usize = 8;
    }

    #[test]
    fn trailing_bytes_are_refused() {
        assert_eq!(
            Probe::from_canonical(&[VERSION, 1, 0, 0xff, 0xee]),
            Err(DecodeError::TrailingBytes { what: "probe", count: 2 })
        );
    }

    #[test]
    fn unsorted_or_repeated_map_keys_are_refused() {
        // {"b": "", "a": ""}: decodes into a BTreeMap but re-encodes sorted.
        let unsorted = [VERSION, 1, 2, 1, b'b', 0, 1, b'a', 0];
        assert_eq!(
            Probe::from_canonical(&unsorted),
            Err(DecodeError::NonCanonical { what: "probe" })
        );
        let repeated = [VERSION, 1, 2, 1, b'a', 0, 1, b'a', 0];
        assert!(Probe::from_canonical(&repeated).is_err());
        let sorted = [VERSION, 1, 2, 1, b'a', 0, 1, b'b', 0];
        assert_eq!(Probe::from_canonical(&sorted).map(|p| p.map.len()), Ok(2));
    }

    #[test]
    fn other_versions_and_oversize_are_refused() {
        assert_eq!(
            Probe::from_canonical(&[1, 1, 0]),
            Err(DecodeError::UnsupportedVersion { what: "probe", found: 1 })
        );
        assert!(matches!(Probe::from_canonical(&[0; 65]), Err(DecodeError::TooLong { .. })));
        assert!(matches!(Probe::from_canonical(&[1]), Err(DecodeError::Malformed { .. })));
    }
}

//! Identities: ed25519 signing keys, public keys, signatures and the key-file text format.
//!
//! Signatures are over `signing_input(tag, bytes)` (see [`crate::transcript`]) and are checked
//! with ed25519-dalek's `verify_strict`, which rejects non-canonical and small-order keys and
//! signatures, so one key and message cannot have two accepted encodings of "the same" signature
//! point. A key's decompressed point is kept in a bounded process-wide cache (`KeyCache`), so
//! a party's key is decompressed once, not for every message it signed; a verification gives
//! the same answer with or without it.
//!
//! Key file (UTF-8, `\n` line ends, exactly these four lines in this order):
//!
//! ```text
//! fogproof-identity v1
//! public-key: ed25519:<64 hex digits>
//! secret-key: ed25519:<64 hex digits, the 32-byte ed25519 seed>
//! comment: <free text on one line, may be empty>
//! ```

use crate::hex;
use crate::tags::Tag;
use crate::transcript::signing_input;
use ed25519_dalek::{SigningKey, VerifyingKey};
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// An ed25519 public key, as its 32 bytes (validated when a signature is checked).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct PublicKey(pub [u8; 32]);

impl std::fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PublicKey({})", hex::encode(&self.0))
    }
}

impl std::fmt::Display for PublicKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ed25519:{}", hex::encode(&self.0))
    }
}

/// Why a text is not a public key.
#[derive(Debug, Error, PartialEq, Eq)]
#[error("{text:?} is not a public key (expected ed25519: then 64 hex digits)")]
pub struct PublicKeyParseError {
    /// The text given (at most 100 characters of it).
    pub text: String,
}

impl std::str::FromStr for PublicKey {
    type Err = PublicKeyParseError;

    /// Parses the [`Display`](std::fmt::Display) form, `ed25519:<64 hex digits>`.
    fn from_str(text: &str) -> Result<PublicKey, PublicKeyParseError> {
        text.strip_prefix("ed25519:")
            .and_then(hex::decode_array::<32>)
            .map(PublicKey)
            .ok_or_else(|| PublicKeyParseError { text: text.chars().take(100).collect() })
    }
}

/// An ed25519 signature: `R` (32 bytes) then `s` (32 bytes), 64 bytes on the wire.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Signature {
    /// The encoded point `R`.
    pub r: [u8; 32],
    /// The scalar `s`.
    pub s: [u8; 32],
}

impl Signature {
    /// The 64 bytes `R || s`.
    pub fn to_bytes(&self) -> [u8; 64] {
        let mut out = [0u8; 64];
        out[..32].copy_from_slice(&self.r);
        out[32..].copy_from_slice(&self.s);
        out
    }
}

impl std::fmt::Debug for Signature {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Signature({})", hex::encode(&self.to_bytes()))
    }
}

/// Why a signature was refused.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum SignatureError {
    /// The 32 bytes are not a valid ed25519 point.
    #[error("public key {key} is not a valid ed25519 key")]
    BadKey {
        /// The key as given.
        key: PublicKey,
    },
    /// `verify_strict` refused the signature under this key and tag.
    #[error("signature does not verify under {key} with domain tag {tag}")]
    Invalid {
        /// The claimed signer.
        key: PublicKey,
        /// The domain tag the verifier used.
        tag: Tag,
    },
}

impl PublicKey {
    /// Checks `signature` over `signing_input(tag, bytes)` with `verify_strict`.
    pub fn verify(
        &self,
        tag: Tag,
        bytes: &[u8],
        signature: &Signature,
    ) -> Result<(), SignatureError> {
        let key = KEYS.decompress(&self.0).ok_or(SignatureError::BadKey { key: *self })?;
        let sig = ed25519_dalek::Signature::from_components(signature.r, signature.s);
        key.verify_strict(&signing_input(tag, bytes), &sig)
            .map_err(|_| SignatureError::Invalid { key: *self, tag })
    }

    /// What a person compares to recognise a key: the key's own text cut to its first 16
    /// bytes, `ed25519:` and 32 hex digits (128 bits: no key can be ground to match another's).
    /// Being a prefix of the key as every API, record and page writes it (`ed25519:<64 hex>`),
    /// it matches whatever a page shows of that key (pages cut it shorter, the full key on
    /// hover): one format everywhere (docs/PROTOCOL.md, section 5).
    pub fn fingerprint(&self) -> String {
        format!("ed25519:{}", hex::encode(&self.0[..16]))
    }
}

/// How many decompressed keys the process keeps ([`KeyCache`]): `KEY_CACHE_SHARDS` sets of
/// `KEY_CACHE_WAYS` (8,192 keys, about 1.5 MiB at most). A server holding more parties than
/// this decompresses some keys more than once, never wrongly.
const KEY_CACHE_SHARDS: usize = 1024;
/// Keys per set of the process's [`KeyCache`].
const KEY_CACHE_WAYS: usize = 8;

/// The process's decompressed keys, shared by every verification (the relay, the player and
/// umpire machines, the verifier).
static KEYS: std::sync::LazyLock<KeyCache> =
    std::sync::LazyLock::new(|| KeyCache::new(KEY_CACHE_SHARDS, KEY_CACHE_WAYS));

/// Decompressed ed25519 public keys by their 32 bytes, bounded: decompressing a key (a field
/// square root) is about a tenth of a verification, and one key verifies every message of its
/// party, so each is decompressed once while it stays here (docs/LOADTEST.md).
///
/// A key is found in one of `shards` sets by a keyed hash of its bytes (std's `RandomState`, so
/// nobody can aim keys at one set), and compared by all 32 bytes; a full set replaces its
/// oldest key. Only keys that decompress are kept: a key that does not is decompressed (and
/// refused) every time, as before. What is kept is exactly what `VerifyingKey::from_bytes`
/// returned, so a verification gives the same answer with or without the cache; which keys are
/// kept depends on the order of verifications and on the hash key, and changes nothing else.
struct KeyCache {
    shards: Box<[std::sync::Mutex<KeySet>]>,
    ways: usize,
    hasher: std::hash::RandomState,
}

/// One set of a [`KeyCache`]: at most `ways` keys, and the slot the next new key takes.
#[derive(Default)]
struct KeySet {
    keys: Vec<VerifyingKey>,
    next: usize,
}

impl KeyCache {
    fn new(shards: usize, ways: usize) -> KeyCache {
        KeyCache {
            shards: (0..shards.max(1)).map(|_| std::sync::Mutex::default()).collect(),
            ways: ways.max(1),
            hasher: std::hash::RandomState::new(),
        }
    }

    /// The key `bytes` decompress to, or `None` if they are not a valid point encoding.
    fn decompress(&self, bytes: &[u8; 32]) -> Option<VerifyingKey> {
        use std::hash::BuildHasher;
        // The index is below `shards.len()`, a `usize`: the conversions cannot fail.
        let index = usize::try_from(
            self.hasher.hash_one(bytes) % u64::try_from(self.shards.len()).unwrap_or(1),
        )
        .unwrap_or(0);
        let shard = &self.shards[index];
        // A set holds only keys `from_bytes` returned, whole, so one left by a thread that
        // panicked is still right: take it rather than give up the cache.
        let lock = || shard.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(key) = lock().keys.iter().find(|k| k.as_bytes() == bytes) {
            return Some(*key);
        }
        // Decompressed outside the lock; two threads may both do it, and both keep the same key.
        let key = VerifyingKey::from_bytes(bytes).ok()?;
        let mut set = lock();
        if !set.keys.iter().any(|k| k.as_bytes() == bytes) {
            if set.keys.len() < self.ways {
                set.keys.push(key);
            } else {
                let slot = set.next;
                set.keys[slot] = key;
                set.next = (slot + 1) % self.ways;
            }
        }
        Some(key)
    }

    /// How many keys are kept (tests).
    #[cfg(test)]
    fn len(&self) -> usize {
        self.shards
            .iter()
            .map(|s| s.lock().unwrap_or_else(std::sync::PoisonError::into_inner).keys.len())
            .sum()
    }
}

/// A signing identity: an ed25519 secret key. Its `Debug` never shows the secret; the secret is
/// zeroed on drop (ed25519-dalek's `zeroize` feature).
#[derive(Clone)]
pub struct Identity {
    signing: SigningKey,
}

impl std::fmt::Debug for Identity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Identity({})", self.public())
    }
}

/// Why fresh randomness could not be had from the operating system.
#[derive(Debug, Error)]
#[error("the operating system's random source failed: {0}")]
pub struct RandomnessError(pub getrandom::Error);

/// 32 fresh random bytes from the operating system (keys, nonces, seeds, seal seeds).
pub fn random_32() -> Result<[u8; 32], RandomnessError> {
    let mut out = [0u8; 32];
    getrandom::fill(&mut out).map_err(RandomnessError)?;
    Ok(out)
}

impl Identity {
    /// A fresh identity from the operating system's random source.
    pub fn generate() -> Result<Identity, RandomnessError> {
        Ok(Identity::from_seed(&random_32()?))
    }

    /// The identity whose ed25519 seed is `seed` (deterministic: tests and vectors).
    pub fn from_seed(seed: &[u8; 32]) -> Identity {
        Identity { signing: SigningKey::from_bytes(seed) }
    }

    /// The public key.
    pub fn public(&self) -> PublicKey {
        PublicKey(self.signing.verifying_key().to_bytes())
    }

    /// The 32-byte ed25519 seed, for key files and the sealing-key derivation only.
    pub(crate) fn seed(&self) -> [u8; 32] {
        self.signing.to_bytes()
    }

    /// A secret of the holder's own derived from this identity's seed under `tag`
    /// (`H(tag; ("ed25519-seed", seed))`): one purpose a tag, never in a record.
    pub fn derived_secret(&self, tag: Tag) -> [u8; 32] {
        crate::transcript::Transcript::new(tag).append("ed25519-seed", &self.seed()).finish()
    }

    /// Signs `signing_input(tag, bytes)`.
    pub fn sign(&self, tag: Tag, bytes: &[u8]) -> Signature {
        use ed25519_dalek::Signer;
        let sig = self.signing.sign(&signing_input(tag, bytes));
        Signature { r: *sig.r_bytes(), s: *sig.s_bytes() }
    }

    /// The key file text (see the module docs). `comment` must be one line.
    pub fn to_key_file(&self, comment: &str) -> Result<String, KeyFileError> {
        if comment.contains(['\n', '\r']) {
            return Err(KeyFileError::MultiLineComment);
        }
        Ok(format!(
            "{HEADER}\npublic-key: ed25519:{}\nsecret-key: ed25519:{}\ncomment: {comment}\n",
            hex::encode(&self.public().0),
            hex::encode(&self.seed()),
        ))
    }

    /// Parses a key file strictly: header, field names, order, hex lengths, and that the public
    /// key is the one the secret derives. Returns the identity and the comment.
    pub fn from_key_file(text: &str) -> Result<(Identity, String), KeyFileError> {
        let text = text.strip_suffix('\n').ok_or(KeyFileError::MissingFinalNewline)?;
        let lines: Vec<&str> = text.split('\n').collect();
        if lines.len() != 4 {
            return Err(KeyFileError::LineCount { found: lines.len() });
        }
        if lines[0] != HEADER {
            return Err(KeyFileError::Header { found: truncate(lines[0]) });
        }
        let public = field(lines[1], 2, "public-key: ed25519:")?;
        let secret = field(lines[2], 3, "secret-key: ed25519:")?;
        let comment = lines[3]
            .strip_prefix("comment: ")
            .or_else(|| (lines[3] == "comment:").then_some(""))
            .ok_or(KeyFileError::Field { line: 4, expected: "comment: " })?;
        if comment.contains('\r') {
            return Err(KeyFileError::MultiLineComment);
        }
        let identity = Identity::from_seed(&secret);
        if identity.public().0 != public {
            return Err(KeyFileError::PublicKeyMismatch {
                stated: PublicKey(public),
                derived: identity.public(),
            });
        }
        Ok((identity, comment.to_owned()))
    }
}

/// The first line of a key file.
pub const HEADER: &str = "fogproof-identity v1";

fn truncate(s: &str) -> String {
    s.chars().take(40).collect()
}

fn field(line: &str, number: usize, prefix: &'static str) -> Result<[u8; 32], KeyFileError> {
    let hex =
        line.strip_prefix(prefix).ok_or(KeyFileError::Field { line: number, expected: prefix })?;
    hex::decode_array::<32>(hex).ok_or(KeyFileError::Hex { line: number })
}

/// Why a key file was refused.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum KeyFileError {
    /// The file does not end with `\n`.
    #[error("key file does not end with a newline (truncated?)")]
    MissingFinalNewline,
    /// Not exactly four lines.
    #[error("key file has {found} lines, expected 4")]
    LineCount {
        /// Lines found.
        found: usize,
    },
    /// The first line is not the v1 header.
    #[error("key file header is '{found}', expected '{HEADER}'")]
    Header {
        /// The first line (at most 40 characters).
        found: String,
    },
    /// A line does not start with its field name.
    #[error("key file line {line} does not start with '{expected}'")]
    Field {
        /// 1-based line number.
        line: usize,
        /// The expected prefix.
        expected: &'static str,
    },
    /// A key is not 64 hex digits.
    #[error("key file line {line}: the key is not 64 hex digits")]
    Hex {
        /// 1-based line number.
        line: usize,
    },
    /// The public key line does not match the secret key.
    #[error(
        "key file's public key {stated} does not belong to its secret key (which gives {derived})"
    )]
    PublicKeyMismatch {
        /// What the file says.
        stated: PublicKey,
        /// What the secret derives.
        derived: PublicKey,
    },
    /// A comment with a line break.
    #[error("key file comment must be a single line")]
    MultiLineComment,
}

/// The two player keys of a match by color are a `ByColor<PublicKey>` (re-exported here and at
/// the crate root; `colors[side]` is a side's key, `colors.color_of(&key)` a key's side).
pub use rules::ByColor;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tags;

    fn alice() -> Identity {
        Identity::from_seed(&[1; 32])
    }

    #[test]
    fn public_keys_parse_their_display_form_only() {
        let key = alice().public();
        assert_eq!(key.to_string().parse::<PublicKey>(), Ok(key));
        let hex = hex::encode(&key.0);
        for bad in [
            hex.clone(),
            format!("x25519:{hex}"),
            format!("ed25519:{}", &hex[2..]),
            format!("ed25519:{hex}00"),
            format!("ed25519:{}zz", &hex[2..]),
        ] {
            assert!(bad.parse::<PublicKey>().is_err(), "{bad}");
        }
    }

    #[test]
    fn sign_and_verify() {
        let sig = alice().sign(tags::MESSAGE, b"hello");
        assert_eq!(alice().public().verify(tags::MESSAGE, b"hello", &sig), Ok(()));
    }

    #[test]
    fn forged_signature_is_refused() {
        let mut sig = alice().sign(tags::MESSAGE, b"hello");
        sig.s[0] ^= 1;
        assert!(matches!(
            alice().public().verify(tags::MESSAGE, b"hello", &sig),
            Err(SignatureError::Invalid { .. })
        ));
        let sig = alice().sign(tags::MESSAGE, b"hello");
        assert!(alice().public().verify(tags::MESSAGE, b"hellp", &sig).is_err());
        let mallory = Identity::from_seed(&[2; 32]);
        assert!(mallory.public().verify(tags::MESSAGE, b"hello", &sig).is_err());
    }

    #[test]
    fn wrong_domain_tag_is_refused() {
        let sig = alice().sign(tags::RECEIPT, b"hello");
        assert_eq!(
            alice().public().verify(tags::MESSAGE, b"hello", &sig),
            Err(SignatureError::Invalid { key: alice().public(), tag: tags::MESSAGE })
        );
    }

    #[test]
    fn small_order_key_is_refused_by_verify_strict() {
        // The identity point (y = 1) is a valid encoding of a small-order point: with s = 0 and
        // R = identity, a lax verifier accepts any message. verify_strict must not.
        let mut id = [0u8; 32];
        id[0] = 1;
        let sig = Signature { r: id, s: [0; 32] };
        assert!(PublicKey(id).verify(tags::MESSAGE, b"anything", &sig).is_err());
    }

    /// The process's cache answers exactly as a fresh decompression: a valid signature
    /// verifies, a forged one, another key's and a small-order key's are refused, the second
    /// time (the key cached) as the first.
    #[test]
    fn verification_through_the_cache_is_unchanged() {
        let alice = alice();
        let mallory = Identity::from_seed(&[2; 32]);
        let sig = alice.sign(tags::MESSAGE, b"hello");
        let mut forged = sig;
        forged.s[0] ^= 1;
        let mut small = [0u8; 32];
        small[0] = 1;
        for _ in 0..2 {
            assert_eq!(alice.public().verify(tags::MESSAGE, b"hello", &sig), Ok(()));
            assert_eq!(
                alice.public().verify(tags::MESSAGE, b"hello", &forged),
                Err(SignatureError::Invalid { key: alice.public(), tag: tags::MESSAGE })
            );
            assert_eq!(
                mallory.public().verify(tags::MESSAGE, b"hello", &sig),
                Err(SignatureError::Invalid { key: mallory.public(), tag: tags::MESSAGE })
            );
            let weak = Signature { r: small, s: [0; 32] };
            assert!(matches!(
                PublicKey(small).verify(tags::MESSAGE, b"anything", &weak),
                Err(SignatureError::Invalid { .. })
            ));
        }
    }

    /// 32 bytes that are not a point (y = 2 has no x on the curve) are refused with `BadKey`
    /// every time, and never kept.
    #[test]
    fn a_key_that_does_not_decompress_is_named_every_time() {
        let mut bytes = [0u8; 32];
        bytes[0] = 2;
        assert!(VerifyingKey::from_bytes(&bytes).is_err(), "the test needs a non-point");
        let cache = KeyCache::new(1, 4);
        let sig = alice().sign(tags::MESSAGE, b"hello");
        for _ in 0..2 {
            assert!(cache.decompress(&bytes).is_none());
            assert_eq!(
                PublicKey(bytes).verify(tags::MESSAGE, b"hello", &sig),
                Err(SignatureError::BadKey { key: PublicKey(bytes) })
            );
        }
        assert_eq!(cache.len(), 0);
    }

    /// A cache of one set of two keys keeps at most two, and every key it returns is the
    /// decompression of the bytes asked for (compared whole, never confused with a neighbour).
    #[test]
    fn the_cache_is_bounded_and_returns_the_key_asked_for() {
        let cache = KeyCache::new(1, 2);
        let keys: Vec<PublicKey> =
            (1..=5u8).map(|i| Identity::from_seed(&[i; 32]).public()).collect();
        for round in 0..3 {
            for key in &keys {
                let got = cache.decompress(&key.0).map(|k| k.to_bytes());
                assert_eq!(got, Some(key.0), "round {round}");
                assert_eq!(got, VerifyingKey::from_bytes(&key.0).ok().map(|k| k.to_bytes()));
                assert!(cache.len() <= 2);
            }
        }
        assert_eq!(cache.len(), 2);
        // The last two asked are the ones kept, and asking again finds them.
        let kept = cache.decompress(&keys[4].0).map(|k| k.to_bytes());
        assert_eq!(kept, Some(keys[4].0));
        assert_eq!(cache.len(), 2);
    }

    #[test]
    fn key_file_round_trip() {
        let text = alice().to_key_file("alice's laptop").unwrap();
        assert!(text.starts_with("fogproof-identity v1\npublic-key: ed25519:"));
        let (back, comment) = Identity::from_key_file(&text).unwrap();
        assert_eq!(back.public(), alice().public());
        assert_eq!(comment, "alice's laptop");
        let (_, empty) = Identity::from_key_file(&alice().to_key_file("").unwrap()).unwrap();
        assert_eq!(empty, "");
    }

    #[test]
    fn key_file_errors_name_the_problem() {
        let good = alice().to_key_file("c").unwrap();
        let e = Identity::from_key_file(&good.replace("v1", "v2")).unwrap_err();
        assert_eq!(e, KeyFileError::Header { found: "fogproof-identity v2".into() });
        assert_eq!(
            Identity::from_key_file(good.trim_end()).unwrap_err(),
            KeyFileError::MissingFinalNewline
        );
        let other = Identity::from_seed(&[2; 32]).public();
        let swapped = good.replace(&hex::encode(&alice().public().0), &hex::encode(&other.0));
        assert!(matches!(
            Identity::from_key_file(&swapped).unwrap_err(),
            KeyFileError::PublicKeyMismatch { .. }
        ));
        let short = good.replacen("secret-key: ed25519:", "secret-key: ed25519:0", 1);
        assert_eq!(Identity::from_key_file(&short).unwrap_err(), KeyFileError::Hex { line: 3 });
        assert!(alice().to_key_file("two\nlines").is_err());
    }

    #[test]
    fn debug_never_shows_the_secret() {
        let secret = hex::encode(&alice().seed());
        assert!(!format!("{:?}", alice()).contains(&secret));
    }

    #[test]
    fn fingerprint_shape() {
        let key = alice().public();
        let f = key.fingerprint();
        assert_eq!(f.len(), "ed25519:".len() + 32);
        // A prefix of the key's own text, as the pages show it.
        assert!(key.to_string().starts_with(&f), "{f} {key}");
        assert_ne!(f, Identity::from_seed(&[2; 32]).public().fingerprint());
    }
}

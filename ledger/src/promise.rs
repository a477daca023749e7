//! Signed inclusion promises (docs/LEDGER.md, inclusion promises): when a match finishes, the
//! log's operator signs, with the log's key, a promise to include the match's record in the log
//! by a stated time (as a certificate transparency SCT). A promise not kept is evidence any third
//! party can check: the promise, and a witnessed checkpoint after the deadline whose tree lacks
//! the match.
//!
//! ```text
//! promise   = postcard({ version: u8 = 1, origin: string, match_id: [u8; 32],
//!                        record_sha256: [u8; 32], promised_at_ms: u64, include_by_ms: u64 })
//! file      = promise || signature (64 bytes)
//! signature = Ed25519 by the log's key over
//!             u64_le(29) || "fogproof/v2/inclusion-promise" || promise
//! ```
//!
//! The signed bytes begin with a control byte (`0x1d`), which no signed note (checkpoint)
//! text may hold, and with a domain tag no protocol signature uses, so a promise signature can
//! never pass for a checkpoint signature, a cosignature or a protocol signature, nor the reverse.
//!
//! **Time.** A checkpoint carries no time. The only time a third party can check is a witness's
//! cosignature timestamp (C2SP tlog-cosignature, seconds): with a policy needing a quorum of `q`
//! witnesses, the trusted time of a checkpoint is the `q`-th latest timestamp among its valid
//! cosignatures (at least `q` trusted witnesses saw the tree at or after it). A checkpoint
//! trusted at a time after `include_by_ms` whose tree lacks the match proves the promise broken.
//! With no witnesses in the policy there is no trusted time: a missing match is only ever
//! pending (the reader may compare with its own clock, which proves nothing to anyone else).

use crate::checkpoint::{CheckpointError, Policy, SignedCheckpoint, TrustedCheckpoint};
use crate::entry::{EntryBody, LedgerEntry, Sha256Digest};
use crate::log::{OpenError, read_bundle};
use crate::merkle::{self, Hash};
use crate::note::{KeyKind, SignerKey, VerifierKey};
use crate::proof::{ProofError, TlogProof};
use crate::store::{LogReader, TILE_WIDTH};
use ed25519_dalek::Signer;
use serde::{Deserialize, Serialize};

/// The promise format's version.
pub const PROMISE_VERSION: u8 = 1;
/// Ed25519 signature length.
pub const SIGNATURE_BYTES: usize = 64;
/// The largest promise file accepted (a key name is short; this is generous).
pub const MAX_PROMISE_BYTES: usize = 1024;

/// What the log promises.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Promise {
    /// [`PROMISE_VERSION`].
    pub version: u8,
    /// The log's origin (its key name).
    pub origin: String,
    /// The match id.
    pub match_id: Sha256Digest,
    /// SHA-256 of the record the log will include (its name under `records/`).
    pub record_sha256: Sha256Digest,
    /// When the promise was made, ms since the Unix epoch.
    pub promised_at_ms: u64,
    /// The log includes the record in a checkpoint by then, ms since the Unix epoch.
    pub include_by_ms: u64,
}

/// Why a promise file was refused.
#[derive(Debug, thiserror::Error)]
pub enum PromiseError {
    /// Too large, truncated, trailing bytes, or not canonical postcard.
    #[error("not an inclusion promise file: {0}")]
    Malformed(String),
    /// A version this reader does not know.
    #[error("inclusion promise version {0} is not supported (only {PROMISE_VERSION})")]
    Version(u8),
    /// The promise names another log than the key given.
    #[error("the promise is for log {found:?}, not the log key's {expected:?}")]
    Origin {
        /// The log key's name.
        expected: String,
        /// The promise's origin.
        found: String,
    },
    /// The key given is not an Ed25519 log key.
    #[error("the log key must be an Ed25519 (type 0x01) key")]
    LogKeyKind,
    /// The signature does not verify under the log's key.
    #[error("the promise's signature does not verify under the log key {0} (forged or altered)")]
    BadSignature(String),
}

impl Promise {
    /// The canonical bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        // postcard cannot fail on these types (no maps, no unsized sequences of unknown length).
        postcard::to_allocvec(self).unwrap_or_default()
    }

    /// The exact bytes the log's key signs.
    pub fn signing_input(&self) -> Vec<u8> {
        protocol::transcript::signing_input(protocol::tags::INCLUSION_PROMISE, &self.to_bytes())
    }

    /// Signs the promise with the log's key: the promise file's bytes.
    pub fn sign(&self, key: &SignerKey) -> Vec<u8> {
        let mut out = self.to_bytes();
        out.extend_from_slice(&key.signing_key().sign(&self.signing_input()).to_bytes());
        out
    }

    /// Parses a promise file strictly, without checking its signature.
    pub fn parse_unverified(
        bytes: &[u8],
    ) -> Result<(Promise, [u8; SIGNATURE_BYTES]), PromiseError> {
        let bad = |why: &str| PromiseError::Malformed(why.to_string());
        if bytes.len() > MAX_PROMISE_BYTES {
            return Err(bad("over MAX_PROMISE_BYTES"));
        }
        if bytes.first().is_some_and(|&v| v != PROMISE_VERSION) {
            return Err(PromiseError::Version(bytes[0]));
        }
        let (promise, rest): (Promise, &[u8]) =
            postcard::take_from_bytes(bytes).map_err(|e| PromiseError::Malformed(e.to_string()))?;
        let sig: [u8; SIGNATURE_BYTES] =
            rest.try_into().map_err(|_| bad("the signature is not the last 64 bytes"))?;
        if promise.to_bytes() != bytes[..bytes.len() - SIGNATURE_BYTES] {
            return Err(bad("not canonical postcard"));
        }
        Ok((promise, sig))
    }

    /// Parses a promise file and checks the log's signature on it.
    pub fn verify(bytes: &[u8], log: &VerifierKey) -> Result<Promise, PromiseError> {
        if log.kind() != KeyKind::Ed25519 {
            return Err(PromiseError::LogKeyKind);
        }
        let (promise, sig) = Promise::parse_unverified(bytes)?;
        if promise.origin != log.name() {
            return Err(PromiseError::Origin {
                expected: log.name().to_string(),
                found: promise.origin,
            });
        }
        let key = ed25519_dalek::VerifyingKey::from_bytes(&log.public())
            .map_err(|_| PromiseError::BadSignature(log.to_string()))?;
        key.verify_strict(&promise.signing_input(), &ed25519_dalek::Signature::from_bytes(&sig))
            .map_err(|_| PromiseError::BadSignature(log.to_string()))?;
        Ok(promise)
    }
}

/// What a log's current checkpoint says of a promise.
#[derive(Clone, Debug)]
pub enum Verdict {
    /// The record is in the log: the proof verified under the policy.
    Kept {
        /// The verified proof (its index is the leaf index).
        proof: TlogProof,
        /// The checkpoint it verified against.
        trusted: TrustedCheckpoint,
    },
    /// The match is not in the trusted tree, and no trusted time after the deadline says so.
    Pending {
        /// The trusted checkpoint whose tree lacks the match.
        trusted: TrustedCheckpoint,
        /// Its trusted time in ms, if the policy's witnesses give one.
        trusted_at_ms: Option<u64>,
    },
    /// The promise is broken: a checkpoint trusted at a time after the deadline lacks the match,
    /// or holds the match with another record than the one promised.
    Broken {
        /// The checkpoint (with its signatures: the evidence, with the promise and the entries).
        trusted: TrustedCheckpoint,
        /// Its trusted time in ms (None when the log holds another record for the match).
        trusted_at_ms: Option<u64>,
        /// Where the match is, with another record, if it is.
        other_record: Option<(u64, Sha256Digest)>,
    },
}

/// Why a promise could not be judged (not a verdict on it).
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// The log could not be read, or its tiles disagree with its checkpoint.
    #[error(transparent)]
    Open(#[from] OpenError),
    /// The checkpoint does not pass the policy.
    #[error("checkpoint: {0}")]
    Checkpoint(#[from] CheckpointError),
    /// The proof does not verify.
    #[error(transparent)]
    Proof(#[from] ProofError),
    /// The promise is for another log.
    #[error("the promise is for log {0:?}, not this policy's")]
    Origin(String),
}

/// The time a policy trusts a checkpoint at, in ms: the `quorum`-th latest timestamp of its
/// policy witnesses' cosignatures; `None` with a quorum of 0 (the log's word alone has no time).
pub fn trusted_time_ms(trusted: &TrustedCheckpoint, quorum: usize) -> Option<u64> {
    if quorum == 0 {
        return None;
    }
    let mut times: Vec<u64> = trusted.cosigners.iter().map(|(_, t)| *t).collect();
    times.sort_unstable_by(|a, b| b.cmp(a));
    times.get(quorum - 1).map(|s| s.saturating_mul(1000))
}

/// Judges a (verified) promise against the log `reader` serves, under `policy`: kept (with the
/// inclusion proof), pending or broken. To show absence it reads every entry bundle of the tree
/// and checks their leaf hashes give the checkpoint's root.
pub fn check<R: LogReader>(
    reader: &R,
    promise: &Promise,
    policy: &Policy,
) -> Result<Verdict, CheckError> {
    if promise.origin != policy.log.name() {
        return Err(CheckError::Origin(promise.origin.clone()));
    }
    let signed = SignedCheckpoint::parse(&reader.checkpoint().map_err(OpenError::from)?)?;
    let trusted = policy.verify(&signed)?;
    let size = signed.checkpoint.size;
    let mut leaves: Vec<Hash> = Vec::new();
    let mut found: Option<(u64, Vec<u8>, Sha256Digest)> = None;
    for b in 0..size.div_ceil(TILE_WIDTH) {
        for (k, bytes) in read_bundle(reader, b, size)?.into_iter().enumerate() {
            leaves.push(merkle::leaf_hash(&bytes));
            if found.is_some() {
                continue;
            }
            if let Ok(LedgerEntry { body: EntryBody::Match(m), .. }) =
                LedgerEntry::from_bytes(&bytes)
                && m.match_id == promise.match_id
            {
                found = Some((b * TILE_WIDTH + k as u64, bytes, m.record_sha256));
            }
        }
    }
    if merkle::mth_of_hashes(&leaves) != signed.checkpoint.root {
        return Err(OpenError::Corrupt(
            "the entry bundles do not hash to the checkpoint's root".to_string(),
        )
        .into());
    }
    let trusted_at_ms = trusted_time_ms(&trusted, policy.quorum);
    match found {
        Some((index, bytes, record)) if record == promise.record_sha256 => {
            let proof =
                merkle::prove_inclusion(&crate::log::TileNodes::new(reader, size), index, size)
                    .map_err(|e| OpenError::Corrupt(e.to_string()))?;
            let proof = TlogProof { extra: Some(bytes), index, proof, checkpoint: signed };
            let (trusted, _) = proof.verify(policy)?;
            Ok(Verdict::Kept { proof, trusted })
        }
        Some((index, _, record)) => {
            Ok(Verdict::Broken { trusted, trusted_at_ms, other_record: Some((index, record)) })
        }
        None => match trusted_at_ms {
            Some(t) if t > promise.include_by_ms => {
                Ok(Verdict::Broken { trusted, trusted_at_ms, other_record: None })
            }
            _ => Ok(Verdict::Pending { trusted, trusted_at_ms }),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> SignerKey {
        SignerKey::from_seed("fogproof.test/ledger", KeyKind::Ed25519, [9; 32]).unwrap()
    }

    const SIGNATURE_HEX: &str = "21983eeb2b9540e2ae41297726fbc6e51c890975a1f34019bb4f3b224be7fbe3c4460f7f6c2916453cee804c5b083a8f959aca16540c65c19832d5498856fb0f";

    fn promise() -> Promise {
        Promise {
            version: PROMISE_VERSION,
            origin: "fogproof.test/ledger".into(),
            match_id: [1; 32],
            record_sha256: [2; 32],
            promised_at_ms: 1_700_000_000_000,
            include_by_ms: 1_700_000_600_000,
        }
    }

    #[test]
    fn the_promise_bytes_vector() {
        // docs/LEDGER.md, inclusion promises: the test vector.
        let bytes = promise().to_bytes();
        let mut expected = vec![1u8, 20];
        expected.extend_from_slice(b"fogproof.test/ledger");
        expected.extend_from_slice(&[1; 32]);
        expected.extend_from_slice(&[2; 32]);
        // 1_700_000_000_000 and 1_700_000_600_000 as LEB128 varints.
        expected.extend_from_slice(&[0x80, 0xd0, 0x95, 0xff, 0xbc, 0x31]);
        expected.extend_from_slice(&[0xc0, 0x9f, 0xba, 0xff, 0xbc, 0x31]);
        assert_eq!(bytes, expected);
        let file = promise().sign(&key());
        assert_eq!(file.len(), bytes.len() + 64);
        assert_eq!(
            protocol::hex::encode(&file[bytes.len()..]),
            SIGNATURE_HEX,
            "the signature of the vector (Ed25519 is deterministic)"
        );
        assert_eq!(Promise::verify(&file, key().verifier()).unwrap(), promise());
    }

    #[test]
    fn forged_promises_are_refused_by_name() {
        let file = promise().sign(&key());
        for i in [0usize, 5, 30, 70, file.len() - 1] {
            let mut bad = file.clone();
            bad[i] ^= 1;
            assert!(Promise::verify(&bad, key().verifier()).is_err(), "byte {i} flipped");
        }
        let mut bad = file.clone();
        bad[file.len() - 1] ^= 1;
        assert!(matches!(
            Promise::verify(&bad, key().verifier()),
            Err(PromiseError::BadSignature(_))
        ));
        // Same name, another key.
        let other =
            SignerKey::from_seed("fogproof.test/ledger", KeyKind::Ed25519, [8; 32]).unwrap();
        assert!(matches!(
            Promise::verify(&promise().sign(&other), key().verifier()),
            Err(PromiseError::BadSignature(_))
        ));
        // Another log's name.
        let elsewhere = SignerKey::from_seed("elsewhere", KeyKind::Ed25519, [9; 32]).unwrap();
        assert!(matches!(
            Promise::verify(&file, elsewhere.verifier()),
            Err(PromiseError::Origin { .. })
        ));
        assert!(matches!(
            Promise::verify(&file[..file.len() - 1], key().verifier()),
            Err(PromiseError::Malformed(_))
        ));
    }

    #[test]
    fn a_promise_signature_is_never_a_checkpoint_signature() {
        // A note's text is UTF-8 without control characters other than newline.
        let input = promise().signing_input();
        assert_eq!(input[0], 29);
        assert!(input[0].is_ascii_control() && input[0] != b'\n');
        let text = String::from_utf8_lossy(&input).into_owned();
        assert!(crate::note::Note::parse(format!("{text}\n\n").as_bytes()).is_err());
    }
}

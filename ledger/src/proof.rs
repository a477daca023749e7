//! Offline proofs that an entry is in the log, in the C2SP `tlog-proof` text form.
//!
//! ```text
//! c2sp.org/tlog-proof@v1
//! extra <base64 of the entry's bytes>
//! index <leaf index>
//! <base64 hash>            one per line: the RFC 6962 inclusion proof, leaf's sibling first
//!
//! <the checkpoint note, with its signatures and cosignatures>
//! ```
//!
//! fogproof's `extra` is the entry itself: the data a verifier needs to compute the leaf hash
//! (and read what the entry says). Nothing in `extra` is trusted until the inclusion proof binds
//! its hash to a checkpoint that passes the reader's [`Policy`].

use crate::checkpoint::{CheckpointError, Policy, SignedCheckpoint, TrustedCheckpoint};
use crate::entry::{EntryError, LedgerEntry};
use crate::merkle::{self, Hash, InclusionError};
use base64ct::{Base64, Encoding};

/// The first line of a tlog proof.
pub const HEADER: &str = "c2sp.org/tlog-proof@v1";
/// The most inclusion proof lines (a tree of 2^64 leaves needs 64).
pub const MAX_PROOF_HASHES: usize = 64;

/// A parsed tlog proof.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TlogProof {
    /// The opaque extra data (fogproof: the entry bytes).
    pub extra: Option<Vec<u8>>,
    /// The leaf index.
    pub index: u64,
    /// The inclusion proof.
    pub proof: Vec<Hash>,
    /// The checkpoint, verbatim.
    pub checkpoint: SignedCheckpoint,
}

/// Why a tlog proof was refused.
#[derive(Debug, thiserror::Error)]
pub enum ProofError {
    /// Not the tlog-proof text form.
    #[error("not a c2sp.org/tlog-proof@v1 proof: {0}")]
    Format(&'static str),
    /// The checkpoint does not parse or does not pass the policy.
    #[error("the proof's checkpoint: {0}")]
    Checkpoint(#[from] CheckpointError),
    /// No `extra` line: there is no entry to check.
    #[error("the proof carries no entry (no extra line)")]
    NoEntry,
    /// The entry does not decode.
    #[error("the proof's entry: {0}")]
    Entry(#[from] EntryError),
    /// The inclusion proof does not verify.
    #[error("the entry is not proven to be in the checkpoint's tree: {0}")]
    Inclusion(#[from] InclusionError),
}

impl TlogProof {
    /// The text form.
    pub fn to_text(&self) -> String {
        let mut out = format!("{HEADER}\n");
        if let Some(extra) = &self.extra {
            out.push_str(&format!("extra {}\n", Base64::encode_string(extra)));
        }
        out.push_str(&format!("index {}\n", self.index));
        for h in &self.proof {
            out.push_str(&Base64::encode_string(h));
            out.push('\n');
        }
        out.push('\n');
        out.push_str(&self.checkpoint.to_text());
        out
    }

    /// Parses the text form strictly.
    pub fn parse(text: &[u8]) -> Result<TlogProof, ProofError> {
        let text = std::str::from_utf8(text).map_err(|_| ProofError::Format("not UTF-8"))?;
        let (head, checkpoint) = text
            .split_once("\n\n")
            .ok_or(ProofError::Format("no blank line before the checkpoint"))?;
        let mut lines = head.split('\n');
        if lines.next() != Some(HEADER) {
            return Err(ProofError::Format("the first line is not c2sp.org/tlog-proof@v1"));
        }
        let mut line = lines.next().ok_or(ProofError::Format("no index line"))?;
        let mut extra = None;
        if let Some(b64) = line.strip_prefix("extra ") {
            extra = Some(
                Base64::decode_vec(b64).map_err(|_| ProofError::Format("extra is not base64"))?,
            );
            line = lines.next().ok_or(ProofError::Format("no index line"))?;
        }
        let index_text = line.strip_prefix("index ").ok_or(ProofError::Format("no index line"))?;
        let index = index_text
            .parse::<u64>()
            .ok()
            .filter(|_| {
                index_text.bytes().all(|b| b.is_ascii_digit())
                    && (index_text == "0" || !index_text.starts_with('0'))
            })
            .ok_or(ProofError::Format("the index is not a decimal without leading zeros"))?;
        let mut proof = Vec::new();
        for l in lines {
            if proof.len() == MAX_PROOF_HASHES {
                return Err(ProofError::Format("more than 64 proof hashes"));
            }
            let h = Base64::decode_vec(l)
                .ok()
                .and_then(|b| <Hash>::try_from(b.as_slice()).ok())
                .ok_or(ProofError::Format("a proof line is not base64 of 32 bytes"))?;
            proof.push(h);
        }
        let checkpoint = SignedCheckpoint::parse(checkpoint.as_bytes())?;
        Ok(TlogProof { extra, index, proof, checkpoint })
    }

    /// Verifies the proof for a reader with `policy`: the checkpoint passes it, and the entry in
    /// `extra` is leaf `index` of its tree. Returns the trusted checkpoint and the entry.
    pub fn verify(&self, policy: &Policy) -> Result<(TrustedCheckpoint, LedgerEntry), ProofError> {
        let trusted = policy.verify(&self.checkpoint)?;
        let entry_bytes = self.extra.as_deref().ok_or(ProofError::NoEntry)?;
        let c = &self.checkpoint.checkpoint;
        merkle::verify_inclusion(
            self.index,
            c.size,
            &merkle::leaf_hash(entry_bytes),
            &self.proof,
            &c.root,
        )?;
        let entry = LedgerEntry::from_bytes(entry_bytes)?;
        Ok((trusted, entry))
    }
}

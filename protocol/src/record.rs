//! The match record: terms, every message with its receipt, and the disclosures of sealed
//! payloads. Self-contained and canonical; the verifier (a later crate) replays it.

use crate::codec::{self, Canonical, DecodeError};
use crate::message::{MessageError, ReceiptError};
use crate::relay::Entry;
use crate::seal::SealDisclosure;
use crate::terms::{AgreedTerms, SignedTerms, TermsError};
use crate::{Channel, MessageHash};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use thiserror::Error;

/// A match record (version 1).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatchRecord {
    /// Always [`codec::VERSION`].
    pub version: u8,
    /// The signed terms.
    pub terms: SignedTerms,
    /// Every message with its receipt, in the relay's acceptance order.
    pub entries: Vec<Entry>,
    /// What the sealed payloads said, with the seal seeds that prove it.
    pub disclosures: Vec<SealDisclosure>,
}

impl Canonical for MatchRecord {
    const NAME: &'static str = "match record";
    const MAX_BYTES: usize = 64 * 1024 * 1024;

    fn check(&self) -> Result<(), DecodeError> {
        codec::check_version(Self::NAME, self.version)
    }
}

/// Why a record's envelope (terms, signatures, receipts) is refused. Game-level checks are the
/// verifier's.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum RecordError {
    /// The terms.
    #[error("terms: {0}")]
    Terms(#[from] TermsError),
    /// A message.
    #[error("entry {index}: {source}")]
    Message {
        /// Its index in `entries`.
        index: usize,
        /// Why.
        source: MessageError,
    },
    /// A receipt.
    #[error("entry {index}: {source}")]
    Receipt {
        /// Its index in `entries`.
        index: usize,
        /// Why.
        source: ReceiptError,
    },
    /// Receipts of a channel not numbered 0, 1, 2, ... in order, or time going backwards.
    #[error(
        "entry {index}: receipt {found} on {channel}, expected {expected} with time >= {after_ms} ms"
    )]
    ReceiptOrder {
        /// Its index in `entries`.
        index: usize,
        /// The channel.
        channel: Channel,
        /// The receipt's relay_seq.
        found: u64,
        /// The expected relay_seq.
        expected: u64,
        /// The previous receipt's time.
        after_ms: u64,
    },
    /// A disclosure for no message of the record.
    #[error("disclosure for unknown message {0}")]
    UnknownDisclosure(MessageHash),
}

impl MatchRecord {
    /// Checks the terms, every message signature and match id, every receipt (relay signature,
    /// message, channel) and that receipts number each channel 0, 1, 2, ... with time never
    /// going back. Returns the agreed terms.
    pub fn check_envelope(&self) -> Result<AgreedTerms, RecordError> {
        let agreed = self.terms.verify()?;
        let mut next: BTreeMap<Channel, (u64, u64)> = BTreeMap::new();
        let mut last_time = 0;
        let mut hashes = Vec::with_capacity(self.entries.len());
        for (index, e) in self.entries.iter().enumerate() {
            let body = e
                .message
                .verify_for(&agreed.match_id)
                .map_err(|source| RecordError::Message { index, source })?;
            let receipt = e
                .receipt
                .verify(&agreed.terms.relay, &e.message, &body)
                .map_err(|source| RecordError::Receipt { index, source })?;
            let (expected, _) = next.get(&body.channel).copied().unwrap_or((0, 0));
            if receipt.relay_seq != expected || receipt.time_ms < last_time {
                return Err(RecordError::ReceiptOrder {
                    index,
                    channel: body.channel,
                    found: receipt.relay_seq,
                    expected,
                    after_ms: last_time,
                });
            }
            last_time = receipt.time_ms;
            next.insert(body.channel, (expected + 1, last_time));
            hashes.push(e.message.hash());
        }
        for d in &self.disclosures {
            if !hashes.contains(&d.message) {
                return Err(RecordError::UnknownDisclosure(d.message));
            }
        }
        Ok(agreed)
    }
}

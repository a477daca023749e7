//! The match record: terms, every message with its receipt, and the disclosures of sealed
//! payloads. Self-contained and canonical; the verifier (a later crate) replays it.

use crate::codec::{self, Canonical, DecodeError};
use crate::keys::ByColour;
use crate::message::{MessageError, Payload, ReceiptError, seal_context};
use crate::relay::Entry;
use crate::seal::SealDisclosure;
use crate::seal::{self, SealError, SealPublicKey};
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
    /// A disclosure for a message that is not a sealed private-channel message.
    #[error("disclosure for message {0}, which is not sealed on a private channel")]
    NotSealed(MessageHash),
    /// A disclosure that does not reproduce its ciphertext.
    #[error("disclosure for message {message}: {source}")]
    Disclosure {
        /// The message.
        message: MessageHash,
        /// Why.
        source: SealError,
    },
    /// A disclosed plaintext that is not a canonical, non-sealed payload.
    #[error("disclosure for message {message}: plaintext is not a payload: {source}")]
    Plaintext {
        /// The message.
        message: MessageHash,
        /// Why.
        source: DecodeError,
    },
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

    /// Checks every disclosure against its sealed message (re-sealing to the recipient named by
    /// the terms: the umpire for a player's message, the channel's player for the umpire's) and
    /// returns the disclosed payloads by message. Call after [`MatchRecord::check_envelope`];
    /// `colours` are the match's (fixed, or drawn from the revealed contributions).
    pub fn check_disclosures(
        &self,
        agreed: &AgreedTerms,
        colours: &ByColour,
    ) -> Result<BTreeMap<MessageHash, Payload>, RecordError> {
        let mut out = BTreeMap::new();
        for d in &self.disclosures {
            let message = d.message;
            let index = self
                .entries
                .iter()
                .position(|e| e.message.hash() == message)
                .ok_or(RecordError::UnknownDisclosure(message))?;
            let body = self.entries[index]
                .message
                .verify_for(&agreed.match_id)
                .map_err(|source| RecordError::Message { index, source })?;
            let (Payload::Sealed(sealed), Some(side)) = (&body.payload, body.channel.side()) else {
                return Err(RecordError::NotSealed(message));
            };
            let recipient = recipient_seal_key(agreed, colours, side, &body.author)
                .ok_or(RecordError::NotSealed(message))?;
            seal::check_disclosure_deep(
                &recipient,
                &seal_context(&body),
                sealed,
                &d.plaintext,
                &d.seal_seed,
            )
            .map_err(|source| RecordError::Disclosure { message, source })?;
            let payload = Payload::from_canonical(&d.plaintext)
                .map_err(|source| RecordError::Plaintext { message, source })?;
            if matches!(payload, Payload::Sealed(_)) {
                return Err(RecordError::NotSealed(message));
            }
            out.insert(message, payload);
        }
        Ok(out)
    }
}

/// Whom a message on `side`'s private channel is sealed to: the umpire if the author is that
/// side's player, that player if the author is the umpire; `None` otherwise.
pub fn recipient_seal_key(
    agreed: &AgreedTerms,
    colours: &ByColour,
    side: crate::Side,
    author: &crate::PublicKey,
) -> Option<SealPublicKey> {
    let t = &agreed.terms;
    let umpire = t.umpire.as_ref()?;
    let player_key = colours.key(side);
    if *author == player_key {
        Some(umpire.seal_key)
    } else if *author == umpire.key {
        t.player(&player_key).map(|p| p.seal_key)
    } else {
        None
    }
}

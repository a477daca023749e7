//! The match record: the terms and every message with its receipt. Self-contained, canonical
//! and append-only on disk, so a server can persist a match entry by entry and a verifier reads
//! the same bytes. What sealed payloads said travels in the record too, as the signed public
//! `Disclose` messages their authors owe after the end (docs/PROTOCOL.md, disclosures).
//!
//! ```text
//! record = [version] || frame(signed terms) || frame(entry)*
//! frame  = varint(len(bytes)) || bytes                  (postcard varint, canonical)
//! entry  = postcard(Entry { message, receipt })
//! ```
//!
//! Entries come in the relay's total order (each receipt's `after` is the order head of the entry
//! before it; each channel's positions run 0, 1, 2, ...). Appending an entry is
//! writing one frame at the end of the file; nothing before it changes. Version 1 records
//! (never published) are refused by their first byte.

use crate::LogHead;
use crate::codec::{self, Canonical, DecodeError};
use crate::keys::ByColour;
use crate::message::{
    MessageError, ReceiptError, SignedMessage, SignedReceipt, genesis_head, genesis_order,
    next_head,
};
use crate::relay::Entry;
use crate::seal::SealPublicKey;
use crate::terms::{AgreedTerms, SignedTerms, TermsError};
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Largest match record any reader accepts, in bytes; the terms may set a lower limit.
pub const MAX_RECORD_BYTES: u64 = 64 * 1024 * 1024;

/// Bytes charged to a party per entry beyond its signed message: an upper bound on the relay's
/// receipt and the entry's frame header (docs/PROTOCOL.md, limits).
pub const ENTRY_OVERHEAD_BYTES: u64 = SignedReceipt::MAX_BYTES as u64 + 16;

/// Bytes of every record kept for the relay's own notices (`Start`, `Timeout`s, `Close`): at
/// most one start, one close and one timeout per party, each far below 1 KiB.
pub const RELAY_RESERVE_BYTES: u64 = 16 * 1024;

/// Each party's share of the terms' `max_record_bytes`, and what each has used (PROTOCOL.md,
/// limits). The record's header and the relay's reserve come off the top; the rest is split
/// evenly between the players and the umpire. Every message is charged its signed bytes plus
/// [`ENTRY_OVERHEAD_BYTES`], so the parties' shares and the reserve together keep the whole
/// record within `max_record_bytes`. Sizes are of bytes the author signed, so an author always
/// knows what it has used: one that signs beyond its share is at fault, as for
/// `max_messages_per_side`. The relay refuses such a message; the verifier names its author if
/// a relay accepted it anyway. A flood therefore exhausts only the flooder's share, never the
/// opponent's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordBudget {
    relay: crate::PublicKey,
    share_bytes: u64,
    used_bytes: std::collections::BTreeMap<crate::PublicKey, u64>,
}

/// A message that would take its author beyond its share of the record.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
#[error(
    "{author} would use {would_use_bytes} bytes of the record with this message; its share of \
     the terms' max_record_bytes is {share_bytes}"
)]
pub struct OverBudget {
    /// The author.
    pub author: crate::PublicKey,
    /// What the author's messages would take with this one (overhead included).
    pub would_use_bytes: u64,
    /// The author's share.
    pub share_bytes: u64,
}

impl RecordBudget {
    /// The budget of a match under `terms`.
    pub fn new(terms: &AgreedTerms) -> RecordBudget {
        let signers = terms.terms.signers().len();
        let signed = SignedTerms {
            terms: terms.bytes.clone(),
            signatures: vec![crate::keys::Signature { r: [0; 32], s: [0; 32] }; signers],
        };
        let header = MatchRecord::header_bytes(&signed).len() as u64;
        // Everyone but the relay shares the rest.
        let parties = (signers - 1) as u64;
        let share_bytes = terms
            .terms
            .limits
            .max_record_bytes
            .saturating_sub(header)
            .saturating_sub(RELAY_RESERVE_BYTES)
            / parties;
        RecordBudget {
            relay: terms.terms.relay,
            share_bytes,
            used_bytes: std::collections::BTreeMap::new(),
        }
    }

    /// The share of `author`, in bytes: [`RELAY_RESERVE_BYTES`] for the relay's notices, an
    /// even part of the rest for everyone else.
    pub fn share_bytes(&self, author: &crate::PublicKey) -> u64 {
        if *author == self.relay { RELAY_RESERVE_BYTES } else { self.share_bytes }
    }

    /// What `author` has used so far, in bytes.
    pub fn used_bytes(&self, author: &crate::PublicKey) -> u64 {
        self.used_bytes.get(author).copied().unwrap_or(0)
    }

    /// Charges a message of `message_bytes` ([`SignedMessage::encoded_len`]) to `author`, or
    /// says it does not fit (and charges nothing).
    pub fn charge(
        &mut self,
        author: &crate::PublicKey,
        message_bytes: usize,
    ) -> Result<(), OverBudget> {
        let used = self.used_bytes(author);
        let would_use_bytes = used + message_bytes as u64 + ENTRY_OVERHEAD_BYTES;
        let share_bytes = self.share_bytes(author);
        if would_use_bytes > share_bytes {
            return Err(OverBudget { author: *author, would_use_bytes, share_bytes });
        }
        self.used_bytes.insert(*author, would_use_bytes);
        Ok(())
    }
}

/// A match record (version 2), in memory.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatchRecord {
    /// Always [`codec::VERSION`].
    pub version: u8,
    /// The signed terms.
    pub terms: SignedTerms,
    /// Every message with its receipt, in the relay's sequence.
    pub entries: Vec<Entry>,
}

impl Canonical for Entry {
    const NAME: &'static str = "record entry";
    const MAX_BYTES: usize = SignedMessage::MAX_BYTES + SignedReceipt::MAX_BYTES + 16;
}

/// Appends `bytes` to `out` as one frame.
fn frame(out: &mut Vec<u8>, bytes: &[u8]) {
    out.extend(postcard::to_allocvec(&(bytes.len() as u64)).expect("a u64 always encodes"));
    out.extend_from_slice(bytes);
}

/// Reads one frame from `input`: its bytes and the rest.
fn read_frame<'a>(
    what: &'static str,
    input: &'a [u8],
    max_bytes: usize,
) -> Result<(&'a [u8], &'a [u8]), DecodeError> {
    let (len, rest) = postcard::take_from_bytes::<u64>(input)
        .map_err(|reason| DecodeError::Malformed { what, reason })?;
    let header = input.len() - rest.len();
    if postcard::to_allocvec(&len).expect("a u64 always encodes") != input[..header] {
        return Err(DecodeError::NonCanonical { what });
    }
    let len = usize::try_from(len).unwrap_or(usize::MAX);
    if len == 0 {
        // Every frame holds a value of at least one byte.
        return Err(DecodeError::EmptyFrame { what });
    }
    if len > max_bytes {
        return Err(DecodeError::TooLong { what, len, max_bytes });
    }
    if rest.len() < len {
        return Err(DecodeError::Malformed {
            what,
            reason: postcard::Error::DeserializeUnexpectedEnd,
        });
    }
    Ok(rest.split_at(len))
}

impl MatchRecord {
    /// The record's first bytes: the version and the terms frame. A server writes these when a
    /// match starts, then [`MatchRecord::entry_frame`] per accepted entry.
    pub fn header_bytes(terms: &SignedTerms) -> Vec<u8> {
        let mut out = vec![codec::VERSION];
        frame(&mut out, &terms.to_canonical());
        out
    }

    /// Reads as much of a record as decodes, for a description of a damaged file: the terms
    /// frame, then items up to the first that does not decode (`None` without readable terms).
    /// Nothing read this way is checked: never trust it without the verifier's verdict.
    pub fn read_prefix(bytes: &[u8]) -> Option<MatchRecord> {
        let what = Self::NAME;
        let (&version, rest) = bytes.split_first()?;
        let (terms, mut rest) = read_frame(what, rest, SignedTerms::MAX_BYTES).ok()?;
        let terms: SignedTerms = postcard::from_bytes(terms).ok()?;
        let mut record = MatchRecord { version, terms, entries: Vec::new() };
        while let Ok((item, r)) = read_frame(what, rest, Entry::MAX_BYTES) {
            rest = r;
            match postcard::from_bytes::<Entry>(item) {
                Ok(e) => record.entries.push(e),
                Err(_) => break,
            }
        }
        Some(record)
    }

    /// What the record's `Disclose` messages disclose, by sealed message: each sealed message
    /// that opens under the key its author's disclosed seal seed gives on its channel
    /// ([`open_disclosed`]), with the index of the first `Disclose` entry of that channel.
    /// Nothing else is checked: the verifier's verdict says whether the disclosures are true.
    pub fn disclosures(
        &self,
    ) -> std::collections::BTreeMap<crate::MessageHash, (usize, Disclosed)> {
        let Ok(agreed) = self.terms.verify() else { return Default::default() };
        let bodies: Vec<(usize, crate::MessageHash, crate::message::MessageBody)> = self
            .entries
            .iter()
            .enumerate()
            .filter_map(|(i, e)| Some((i, e.message.hash(), e.message.verify().ok()?)))
            .collect();
        open_disclosed(&agreed, None, bodies.iter().map(|(i, h, b)| (*i, *h, b)))
    }

    /// One entry as the frame appended to a record file.
    pub fn entry_frame(entry: &Entry) -> Vec<u8> {
        let mut out = Vec::new();
        frame(&mut out, &entry.to_canonical());
        out
    }
}

impl Canonical for MatchRecord {
    const NAME: &'static str = "match record";
    const MAX_BYTES: usize = MAX_RECORD_BYTES as usize;

    fn to_canonical(&self) -> Vec<u8> {
        let mut out = vec![self.version];
        frame(&mut out, &self.terms.to_canonical());
        for e in &self.entries {
            frame(&mut out, &e.to_canonical());
        }
        out
    }

    fn from_canonical(bytes: &[u8]) -> Result<Self, DecodeError> {
        let what = Self::NAME;
        if bytes.len() > Self::MAX_BYTES {
            return Err(DecodeError::TooLong {
                what,
                len: bytes.len(),
                max_bytes: Self::MAX_BYTES,
            });
        }
        let Some((&version, mut rest)) = bytes.split_first() else {
            return Err(DecodeError::Malformed {
                what,
                reason: postcard::Error::DeserializeUnexpectedEnd,
            });
        };
        codec::check_version(what, version)?;
        let (terms, r) = read_frame(what, rest, SignedTerms::MAX_BYTES)?;
        rest = r;
        let terms = SignedTerms::from_canonical(terms)?;
        let mut entries = Vec::new();
        while !rest.is_empty() {
            let (item, r) = read_frame(what, rest, Entry::MAX_BYTES)?;
            rest = r;
            entries.push(Entry::from_canonical(item)?);
        }
        Ok(MatchRecord { version, terms, entries })
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
    /// A receipt that names another channel than its message's, a channel's positions not
    /// 0, 1, 2, ... in order, time going backwards, a channel head that the channel's entries
    /// before it do not produce, or an entry that does not follow the one before it in the
    /// relay's order (its `after` is not that entry's order head).
    #[error(
        "entry {index}: receipt on {channel} at position {found} (expected {expected}), time {time_ms} ms (after {after_ms} ms), head {head_ok}, order {order_ok}"
    )]
    ReceiptOrder {
        /// Its index in `entries`.
        index: usize,
        /// The receipt's channel.
        channel: crate::Channel,
        /// The receipt's position.
        found: u64,
        /// The expected position.
        expected: u64,
        /// The receipt's time.
        time_ms: u64,
        /// The previous receipt's time.
        after_ms: u64,
        /// Whether the channel head matched.
        head_ok: bool,
        /// Whether it follows the entry before it (and names its message's channel).
        order_ok: bool,
    },
}

impl MatchRecord {
    /// Checks the terms, every message signature and match id, every receipt (relay signature,
    /// the whole signed message, its message's channel) and that each channel's receipts number
    /// it 0, 1, 2, ... with each channel head chaining from the one before, that every entry
    /// follows the one before it in the relay's order, and that time never goes back. Returns
    /// the agreed terms and the final order head (the match's head).
    pub fn check_envelope(&self) -> Result<(AgreedTerms, LogHead), RecordError> {
        let agreed = self.terms.verify()?;
        let mut heads = crate::Channel::ALL.map(|c| genesis_head(&agreed.match_id, c));
        let mut lengths = [0u64; 3];
        let mut order = genesis_order(&agreed.match_id);
        let mut last_time = 0;
        for (index, e) in self.entries.iter().enumerate() {
            let body = e
                .message
                .verify_for(&agreed.match_id)
                .map_err(|source| RecordError::Message { index, source })?;
            let receipt = e
                .receipt
                .verify(&agreed.terms.relay, &agreed.match_id, &e.message)
                .map_err(|source| RecordError::Receipt { index, source })?;
            let c = usize::from(receipt.channel.byte());
            let expected = lengths[c];
            let next = next_head(&heads[c], expected, receipt.time_ms, &receipt.message);
            let order_ok = receipt.after == order && receipt.channel == body.channel;
            if receipt.position != expected
                || receipt.time_ms < last_time
                || receipt.head != next
                || !order_ok
            {
                return Err(RecordError::ReceiptOrder {
                    index,
                    channel: receipt.channel,
                    found: receipt.position,
                    expected,
                    time_ms: receipt.time_ms,
                    after_ms: last_time,
                    head_ok: receipt.head == next,
                    order_ok,
                });
            }
            heads[c] = next;
            lengths[c] += 1;
            order = receipt.order();
            last_time = receipt.time_ms;
        }
        Ok((agreed, order))
    }
}

/// A sealed message as its author's disclosure shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Disclosed {
    /// The plaintext (canonical [`crate::message::Payload`] bytes), opened with the disclosed key.
    pub plaintext: Vec<u8>,
    /// The seal seed of the author's context on the message's channel.
    pub seal_seed: [u8; 32],
}

/// Opens every sealed message among `bodies` (index, hash, verified body, in the relay's order)
/// whose author disclosed its context on the channel: per (author, channel), the first
/// disclosure that reproduces the first setup there ([`crate::seal::check_disclosure`], one
/// key agreement), then one AEAD decryption per message. The recipient is the one `colours`
/// names, or without colours each candidate the terms allow (the umpire's key for a player; a
/// player's for the umpire), the one whose key reproduces the signed key commitment. Returns,
/// by sealed message, the index of the `Disclose` entry and what it shows.
pub fn open_disclosed<'a>(
    agreed: &AgreedTerms,
    colours: Option<&ByColour>,
    bodies: impl Iterator<Item = (usize, crate::MessageHash, &'a crate::message::MessageBody)> + Clone,
) -> std::collections::BTreeMap<crate::MessageHash, (usize, Disclosed)> {
    use crate::message::{Payload, seal_context};
    use std::collections::BTreeMap;
    type At = (crate::PublicKey, crate::Channel);
    let mut setups: BTreeMap<At, (crate::seal::SealSetup, crate::seal::SealContext)> =
        BTreeMap::new();
    let mut seeds: BTreeMap<At, Vec<(usize, [u8; 32])>> = BTreeMap::new();
    for (i, _, body) in bodies.clone() {
        match &body.payload {
            Payload::Sealed(s) => {
                if let Some(setup) = s.setup {
                    setups
                        .entry((body.author, body.channel))
                        .or_insert((setup, seal_context(body)));
                }
            }
            Payload::Disclose(items) => {
                for d in items {
                    seeds.entry((body.author, d.channel)).or_default().push((i, d.seal_seed));
                }
            }
            _ => {}
        }
    }
    let t = &agreed.terms;
    let umpire = t.umpire.as_ref();
    let mut keys: BTreeMap<At, (usize, [u8; 32], crate::seal::ChannelKey)> = BTreeMap::new();
    for (at, disclosed) in seeds {
        let Some((setup, context)) = setups.get(&at) else { continue };
        let Some(side) = at.1.side() else { continue };
        let recipients: Vec<SealPublicKey> = match colours {
            Some(c) => recipient_seal_key(agreed, c, side, &at.0).into_iter().collect(),
            None if umpire.is_some_and(|u| u.key == at.0) => {
                t.players.iter().map(|p| p.seal_key).collect()
            }
            None => umpire.map(|u| u.seal_key).into_iter().collect(),
        };
        let found = disclosed.iter().find_map(|(i, seed)| {
            recipients.iter().find_map(|r| {
                crate::seal::check_disclosure(r, context, setup, seed).ok().map(|k| (*i, *seed, k))
            })
        });
        if let Some(found) = found {
            keys.insert(at, found);
        }
    }
    let mut out = BTreeMap::new();
    for (_, hash, body) in bodies {
        let Payload::Sealed(sealed) = &body.payload else { continue };
        let Some((entry, seal_seed, key)) = keys.get(&(body.author, body.channel)) else {
            continue;
        };
        let direction = if umpire.is_some_and(|u| u.key == body.author) {
            crate::game::SealDirection::FromUmpire
        } else {
            crate::game::SealDirection::ToUmpire
        };
        let padded = crate::game::sealed_plaintext_bytes(t.variant, direction);
        if let Ok(plaintext) = key.open(&seal_context(body), sealed, padded) {
            out.insert(hash, (*entry, Disclosed { plaintext, seal_seed: *seal_seed }));
        }
    }
    out
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_canonical() {
        let mut out = Vec::new();
        frame(&mut out, &[7; 200]);
        assert_eq!(&out[..2], &[0xc8, 0x01]);
        let (bytes, rest) = read_frame("t", &out, 1000).unwrap();
        assert_eq!((bytes.len(), rest.len()), (200, 0));
        // An overlong length prefix is refused.
        let mut overlong = vec![0x81, 0x80, 0x00];
        overlong.push(9);
        assert_eq!(read_frame("t", &overlong, 10), Err(DecodeError::NonCanonical { what: "t" }));
        assert!(matches!(read_frame("t", &out, 100), Err(DecodeError::TooLong { .. })));
        assert!(matches!(read_frame("t", &out[..50], 1000), Err(DecodeError::Malformed { .. })));
    }

    #[test]
    fn version_one_records_are_refused_by_their_first_byte() {
        assert_eq!(
            MatchRecord::from_canonical(&[1, 0, 0]),
            Err(DecodeError::UnsupportedVersion { what: "match record", found: 1 })
        );
    }
}

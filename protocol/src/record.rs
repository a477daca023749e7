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
use crate::keys::{ByColor, PublicKey};
use crate::message::{
    MessageError, ReceiptError, SignedMessage, SignedReceipt, genesis_head, genesis_order,
    next_head,
};
use crate::seal::SealPublicKey;
use crate::terms::{AgreedTerms, SignedTerms, TermsError};
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Largest match record any reader accepts, in bytes; the terms may set a lower limit. Defined
/// with the terms (which bound their own limit by it); the path `record::MAX_RECORD_BYTES`
/// stays.
pub use crate::terms::MAX_RECORD_BYTES;

/// A message with the relay's receipt: one entry of a match record (also `relay::Entry`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Entry {
    /// The message as sent.
    pub message: SignedMessage,
    /// The relay's receipt for it.
    pub receipt: SignedReceipt,
}

/// Bytes charged to a party per entry beyond its signed message: an upper bound on the relay's
/// receipt and the entry's frame header (docs/PROTOCOL.md, limits).
pub const ENTRY_OVERHEAD_BYTES: u64 = SignedReceipt::MAX_BYTES as u64 + 16;

/// Bytes of every record kept for the relay's own notices (`Start`, `Timeout`s, `Close`): at
/// most one start, one close and one timeout per party, each far below 1 KiB.
pub const RELAY_RESERVE_BYTES: u64 = 16 * 1024;

/// A bound on a signed message's bytes beyond the variable bytes of its payload (header
/// fields, `seen`, `re`, the payload's fixed fields, the signature and length prefixes): what a
/// Turn, a claim or a countersignature takes at most, and the envelope of a sealed message or a
/// disclosure (checked against real messages in the tests).
pub const MESSAGE_FRAME_BYTES: u64 = 400;

/// What each player keeps back from its actions for the end (claim, openings, countersignature,
/// the last partly filled disclosure messages): a sealed action that would leave less is
/// refused (docs/PROTOCOL.md 13.6).
pub const END_RESERVE_BYTES: u64 = 8 * 1024;

/// Plaintext bytes per disclosure message the machines fill before starting another
/// (`roles`: the batches of their `Disclose` messages).
pub const DISCLOSE_BATCH_BYTES: u64 = 32 * 1024;

/// A disclosure item's bytes beyond its plaintext (message hash, seal seed, length prefix), as
/// the machines count it when they fill a batch.
pub const DISCLOSURE_ITEM_OVERHEAD_BYTES: u64 = 32 + 32 + 8;

/// The record budget (docs/PROTOCOL.md 13.6): who pays for which bytes of the terms'
/// `max_record_bytes`. The record's header and the relay's reserve come off the top.
///
/// - Open and owner games: the rest is split evenly between the players.
/// - Umpired games: the umpire has a fixed share (its start views, SIC's acknowledgements,
///   its claim, countersignature and the envelopes of its disclosures), and the rest is split
///   evenly between the players. **A player pays for what it makes the umpire say**: every
///   umpire message that names a player's sealed message (`re`: an answer, a Turn, an
///   announcement to the opponent, a complaint) is charged to that player's share, together
///   with the future disclosure of each sealed answer. A player's sealed message is accepted
///   only if its share still has room, beyond the message, for the worst answer the umpire can
///   owe it (a Turn and two sealed answers, with their disclosures) and for the player's own
///   end ([`END_RESERVE_BYTES`]); and each sealed message pays for its own future
///   disclosure when it is sent. So an honest umpire always has the room its answers need, an
///   honest player always has the room its disclosures need, and a flood spends only the
///   flooder's share: the flooder, refused, can only stop and be timed out.
///
/// Every message is charged its signed bytes plus [`ENTRY_OVERHEAD_BYTES`], so the shares and
/// the reserve together keep any record within `max_record_bytes`. Sizes are of bytes the
/// author signed, so an author always knows what it has used: one that signs beyond what it
/// may is at fault (for the umpire: an answer that does not fit the share it is charged to,
/// which only more than the worst answer can do). The relay refuses such a message; the
/// verifier names its author if a relay accepted it anyway. Deterministic (ordered maps).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordBudget {
    relay: crate::PublicKey,
    umpire: Option<crate::PublicKey>,
    variant: rules::Variant,
    share_bytes: u64,
    umpire_bytes: u64,
    used_bytes: std::collections::BTreeMap<crate::PublicKey, u64>,
    /// Prepaid disclosure bytes not yet spent, by author.
    disclosure_credit: std::collections::BTreeMap<crate::PublicKey, u64>,
    /// The players' sealed messages, by hash: who pays for the umpire's answers to each.
    sealed_by: std::collections::BTreeMap<crate::MessageHash, crate::PublicKey>,
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
    /// What the share it is charged to would hold with this one (overhead and whatever it must
    /// keep free included).
    pub would_use_bytes: u64,
    /// That share.
    pub share_bytes: u64,
}

/// The bytes of one signed sealed message of padded size `padded` (a bound).
fn sealed_message_bytes(padded: usize) -> u64 {
    MESSAGE_FRAME_BYTES + crate::seal::ciphertext_bytes(padded) as u64
}

/// What one sealed message of padded size `padded` prepays for its disclosure: its item and
/// its part of a disclosure message's envelope (a batch holds at least `k` such items).
fn disclosure_reserve(padded: usize) -> u64 {
    let item = padded as u64 + DISCLOSURE_ITEM_OVERHEAD_BYTES;
    let k = (DISCLOSE_BATCH_BYTES / item).max(1);
    item + (MESSAGE_FRAME_BYTES + ENTRY_OVERHEAD_BYTES).div_ceil(k)
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
        let variant = terms.terms.variant();
        let umpire = terms.terms.umpire.as_ref().map(|u| u.key);
        let umpire_bytes = if umpire.is_some() { Self::umpire_fixed_bytes(variant) } else { 0 };
        let share_bytes = terms
            .terms
            .limits
            .max_record_bytes
            .saturating_sub(header)
            .saturating_sub(RELAY_RESERVE_BYTES)
            .saturating_sub(umpire_bytes)
            / 2;
        RecordBudget {
            relay: terms.terms.relay,
            umpire,
            variant,
            share_bytes,
            umpire_bytes,
            used_bytes: std::collections::BTreeMap::new(),
            disclosure_credit: std::collections::BTreeMap::new(),
            sealed_by: std::collections::BTreeMap::new(),
        }
    }

    fn padded(&self, direction: crate::game::SealDirection) -> usize {
        crate::game::sealed_plaintext_bytes(self.variant, direction)
    }

    /// The umpire's own share: two start views and two acknowledgements (SIC), each with its
    /// disclosure; a claim; a countersignature; and two disclosure envelopes beyond those its
    /// answers prepaid.
    fn umpire_fixed_bytes(variant: rules::Variant) -> u64 {
        let padded =
            crate::game::sealed_plaintext_bytes(variant, crate::game::SealDirection::FromUmpire);
        let sealed =
            sealed_message_bytes(padded) + ENTRY_OVERHEAD_BYTES + disclosure_reserve(padded);
        let small = MESSAGE_FRAME_BYTES + ENTRY_OVERHEAD_BYTES;
        4 * sealed + 4 * small
    }

    /// The worst the umpire can owe a player for one sealed message: a Turn and two sealed
    /// answers (the actor's and the announcement to the side now to move), with their
    /// disclosures; a complaint is smaller than the Turn.
    pub fn worst_answer_bytes(&self) -> u64 {
        let padded = self.padded(crate::game::SealDirection::FromUmpire);
        let sealed =
            sealed_message_bytes(padded) + ENTRY_OVERHEAD_BYTES + disclosure_reserve(padded);
        MESSAGE_FRAME_BYTES + ENTRY_OVERHEAD_BYTES + 2 * sealed
    }

    /// The share of `author`, in bytes: [`RELAY_RESERVE_BYTES`] for the relay's notices, the
    /// umpire's fixed share, half the rest for each player.
    pub fn share_bytes(&self, author: &crate::PublicKey) -> u64 {
        if *author == self.relay {
            RELAY_RESERVE_BYTES
        } else if Some(*author) == self.umpire {
            self.umpire_bytes
        } else {
            self.share_bytes
        }
    }

    /// What has been charged to `party`'s share so far, in bytes (for a player: its own
    /// messages and the umpire's answers to them).
    pub fn used_bytes(&self, party: &crate::PublicKey) -> u64 {
        self.used_bytes.get(party).copied().unwrap_or(0)
    }

    /// Charges a message of `message_bytes` ([`SignedMessage::encoded_len`]) that carries no
    /// sealed payload and names nothing (`re`) to `author`, or says it does not fit (and
    /// charges nothing). The relay's notices come here.
    pub fn charge(
        &mut self,
        author: &crate::PublicKey,
        message_bytes: usize,
    ) -> Result<(), OverBudget> {
        self.charge_to(author, author, message_bytes as u64 + ENTRY_OVERHEAD_BYTES, 0)
    }

    /// Charges the message `body` (hash `hash`, `message_bytes` signed bytes) to whoever pays
    /// for it (see the type's docs), or says it does not fit (and charges nothing).
    pub fn charge_message(
        &mut self,
        body: &crate::message::MessageBody,
        hash: crate::MessageHash,
        message_bytes: usize,
    ) -> Result<(), OverBudget> {
        use crate::game::SealDirection;
        use crate::message::Payload;
        let author = body.author;
        let mut cost = message_bytes as u64 + ENTRY_OVERHEAD_BYTES;
        let sealed = matches!(body.payload, Payload::Sealed(_));
        let is_umpire = Some(author) == self.umpire;
        let is_player = author != self.relay && !is_umpire;
        if let Payload::Disclose(_) = body.payload {
            // What its sealed messages prepaid first.
            let credit = self.disclosure_credit.get(&author).copied().unwrap_or(0);
            let paid = credit.min(cost);
            self.charge_to(&author, &author, cost - paid, 0)?;
            self.disclosure_credit.insert(author, credit - paid);
            return Ok(());
        }
        if is_player && sealed {
            let prepaid = disclosure_reserve(self.padded(SealDirection::ToUmpire));
            cost += prepaid;
            let keep = self.worst_answer_bytes() + END_RESERVE_BYTES;
            self.charge_to(&author, &author, cost, keep)?;
            *self.disclosure_credit.entry(author).or_insert(0) += prepaid;
            self.sealed_by.insert(hash, author);
            return Ok(());
        }
        if is_umpire {
            let prepaid =
                if sealed { disclosure_reserve(self.padded(SealDirection::FromUmpire)) } else { 0 };
            cost += prepaid;
            let payer = body.re.and_then(|re| self.sealed_by.get(&re).copied()).unwrap_or(author);
            self.charge_to(&author, &payer, cost, 0)?;
            *self.disclosure_credit.entry(author).or_insert(0) += prepaid;
            return Ok(());
        }
        self.charge_to(&author, &author, cost, 0)
    }

    /// Charges `cost` bytes of `author`'s message to `payer`'s share, which must keep `keep`
    /// bytes free after it.
    fn charge_to(
        &mut self,
        author: &crate::PublicKey,
        payer: &crate::PublicKey,
        cost: u64,
        keep: u64,
    ) -> Result<(), OverBudget> {
        let used = self.used_bytes(payer);
        let would_use_bytes = used.saturating_add(cost);
        let share_bytes = self.share_bytes(payer);
        if would_use_bytes.saturating_add(keep) > share_bytes {
            return Err(OverBudget {
                author: *author,
                would_use_bytes: would_use_bytes.saturating_add(keep),
                share_bytes,
            });
        }
        self.used_bytes.insert(*payer, would_use_bytes);
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
/// key agreement), then one AEAD decryption per message. The recipient is the one `colors`
/// names, or without colors each candidate the terms allow (the umpire's key for a player; a
/// player's for the umpire), the one whose key reproduces the signed key commitment. Returns,
/// by sealed message, the index of the `Disclose` entry and what it shows.
pub fn open_disclosed<'a>(
    agreed: &AgreedTerms,
    colors: Option<&ByColor<PublicKey>>,
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
        let recipients: Vec<SealPublicKey> = match colors {
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
        let padded = crate::game::sealed_plaintext_bytes(t.variant(), direction);
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
    colors: &ByColor<PublicKey>,
    side: crate::Color,
    author: &crate::PublicKey,
) -> Option<SealPublicKey> {
    let t = &agreed.terms;
    let umpire = t.umpire.as_ref()?;
    let player_key = colors[side];
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

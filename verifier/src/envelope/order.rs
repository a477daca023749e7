//! Stage 3: the order of the match and of every channel: receipts, the relay's one sequence,
//! its log heads, authors' sequence numbers and hash chains, equivocation.
//!
//! Blame follows what the signatures alone prove:
//! - two different relay receipts for one position of the match, or a receipt whose log head the
//!   entries before it do not produce: the relay kept two logs (`Equivocation`, the relay);
//! - a message whose `prev` (the last message its author saw on the channel) is in no log of the
//!   record: the relay showed its author a history that is not the one it recorded
//!   (`Equivocation`, the relay; the author's signed `prev` is the evidence);
//! - a receipted message whose `seq` skips ahead, a message receipted twice, a `prev` that is
//!   later in the log or on another channel: an honest relay refuses each of them, and the
//!   author may be honest (its message could have been dropped or delayed), so `BrokenChain`,
//!   the relay;
//! - two different messages one author signed with the same `seq` on a channel, or a `prev` older
//!   than the author's own last message: the author's own signatures contradict each other
//!   (`BrokenChain`, the author);
//! - receipt times going back: `BadReceipt`, the relay;
//! - a position missing from the receipts, an entry repeated, or entries not in the relay's
//!   order: nobody signed the record's order, so the record (`TruncatedRecord`,
//!   `MalformedRecord`).
//!
//! Only the first fault of the sequence, or of each channel, is reported: what follows it is its
//! consequence.

use super::{Auth, Blame, who};
use crate::{Fault, FaultKind};
use protocol::keys::ByColour;
use protocol::message::{genesis_head, next_head};
use protocol::terms::AgreedTerms;
use protocol::{Channel, MessageHash, PublicKey};
use std::collections::BTreeMap;

/// Checks the match's sequence and every channel's chains; `Err` with the faults found.
pub(crate) fn check(
    terms: &AgreedTerms,
    colours: &ByColour,
    entries: &[Auth],
) -> Result<(), Vec<Fault>> {
    if let Some(f) = numbering(terms, entries) {
        return Err(vec![f]);
    }
    let mut faults = Vec::new();
    let mut channel_of: BTreeMap<MessageHash, Channel> = BTreeMap::new();
    for e in entries {
        channel_of.entry(e.hash).or_insert(e.body.channel);
    }
    for channel in Channel::ALL {
        let log: Vec<&Auth> = entries.iter().filter(|e| e.body.channel == channel).collect();
        if let Some(f) = chains(terms, colours, channel, &log, &channel_of) {
            faults.push(f);
        }
    }
    if faults.is_empty() { Ok(()) } else { Err(faults) }
}

/// The receipts number the match 0, 1, 2, ... once each, in record order, with time never
/// going back and every head chaining from the one before (PROTOCOL.md 11).
fn numbering(terms: &AgreedTerms, log: &[Auth]) -> Option<Fault> {
    let mut by_seq: BTreeMap<u64, &Auth> = BTreeMap::new();
    for e in log {
        if let Some(first) = by_seq.insert(e.receipt.seq, e) {
            if first.receipt != e.receipt {
                return Some(Blame::relay(terms).fault(
                    FaultKind::Equivocation,
                    e.at(),
                    format!(
                        "relay receipts for position {} of the match: message {} (entry {}) and \
                         message {} (entry {})",
                        e.receipt.seq, first.hash, first.index, e.hash, e.index
                    ),
                    "The relay signed two different receipts for the same position of the \
                     match: it kept two different histories."
                        .to_owned(),
                ));
            }
            return Some(Blame::record().fault(
                FaultKind::MalformedRecord,
                e.at(),
                format!("entries {} and {} are the same message and receipt", first.index, e.index),
                "The record repeats an entry.".to_owned(),
            ));
        }
    }
    for (expected, (seq, e)) in (0u64..).zip(&by_seq) {
        if *seq != expected {
            return Some(Blame::record().fault(
                FaultKind::TruncatedRecord,
                e.at(),
                format!(
                    "the match has receipts up to position {} but none for position {expected}",
                    by_seq.keys().last().copied().unwrap_or(0)
                ),
                format!(
                    "A message the relay receipted at position {expected} of the match is \
                     missing from the record."
                ),
            ));
        }
    }
    for (expected, e) in (0u64..).zip(log) {
        if e.receipt.seq != expected {
            return Some(Blame::record().fault(
                FaultKind::MalformedRecord,
                e.at(),
                format!(
                    "entry {} has position {} of the match where position {expected} belongs",
                    e.index, e.receipt.seq
                ),
                "The record's entries are not in the relay's order.".to_owned(),
            ));
        }
    }
    let mut head = genesis_head(&terms.match_id);
    let mut last_time = 0;
    for e in log {
        let r = &e.receipt;
        if r.time_ms < last_time {
            return Some(Blame::relay(terms).fault(
                FaultKind::BadReceipt,
                e.at(),
                format!("position {} at {} ms after a receipt at {last_time} ms", r.seq, r.time_ms),
                "The relay's receipts go back in time.".to_owned(),
            ));
        }
        head = next_head(&head, r.seq, r.time_ms, &r.message);
        if r.head != head {
            return Some(
                Blame::relay(terms).fault(
                    FaultKind::Equivocation,
                    e.at(),
                    format!(
                        "receipt {} carries log head {}, its entries give {head}",
                        r.seq, r.head
                    ),
                    "The relay signed a log head that the entries before it do not produce: the \
                 history it committed to is not the one in the record."
                        .to_owned(),
                ),
            );
        }
        last_time = r.time_ms;
    }
    None
}

#[derive(Default)]
struct AuthorChain {
    next_seq: u64,
    /// Position of the author's last message.
    last: Option<u64>,
    /// The author's messages by seq.
    by_seq: BTreeMap<u64, MessageHash>,
}

/// Every author's sequence numbers and `prev` links on one channel, in log order.
fn chains(
    terms: &AgreedTerms,
    colours: &ByColour,
    channel: Channel,
    log: &[&Auth],
    channel_of: &BTreeMap<MessageHash, Channel>,
) -> Option<Fault> {
    let relay = || Blame::relay(terms);
    let mut position: BTreeMap<MessageHash, u64> = BTreeMap::new();
    let mut authors: BTreeMap<PublicKey, AuthorChain> = BTreeMap::new();
    for e in log {
        let pos = e.receipt.seq;
        let b = &e.body;
        let author = Blame::signer(terms, colours, &b.author);
        let name = who(author.role);
        let state = authors.entry(b.author).or_default();
        if let Some(first) = position.get(&e.hash) {
            return Some(relay().fault(
                FaultKind::BrokenChain,
                e.at(),
                format!("message {} receipted at positions {first} and {pos} of {channel}", e.hash),
                format!("The relay accepted the same message twice on the {channel} channel."),
            ));
        }
        if b.seq < state.next_seq {
            let earlier = state.by_seq.get(&b.seq).copied();
            return Some(author.fault(
                FaultKind::BrokenChain,
                e.at(),
                format!(
                    "seq {} on {channel} signed twice: message {} and message {}",
                    b.seq,
                    earlier.map_or_else(|| "?".to_owned(), |h| h.to_string()),
                    e.hash
                ),
                format!(
                    "{name} signed two different messages with the same sequence number {} on \
                     the {channel} channel.",
                    b.seq
                ),
            ));
        }
        if b.seq > state.next_seq {
            return Some(relay().fault(
                FaultKind::BrokenChain,
                e.at(),
                format!(
                    "seq {} of {} receipted at position {pos} of {channel}; the author's next seq \
                     was {}",
                    b.seq, b.author, state.next_seq
                ),
                format!(
                    "The relay accepted message {} of {} on the {channel} channel while message \
                     {} was not yet in its log: a message was dropped or reordered.",
                    b.seq,
                    name.to_lowercase(),
                    state.next_seq
                ),
            ));
        }
        match b.prev {
            None if state.last.is_some() => {
                return Some(author.fault(
                    FaultKind::BrokenChain,
                    e.at(),
                    format!(
                        "seq {} on {channel} has no prev after the author's own messages",
                        b.seq
                    ),
                    format!(
                        "{name} signed a message saying it had seen nothing on the {channel} \
                         channel, after its own earlier messages there."
                    ),
                ));
            }
            None => {}
            Some(prev) => match position.get(&prev) {
                Some(&q) => {
                    if state.last.is_some_and(|l| q < l) {
                        return Some(author.fault(
                            FaultKind::BrokenChain,
                            e.at(),
                            format!(
                                "prev {prev} is at position {q}, before the author's own last \
                                 message at position {}",
                                state.last.unwrap_or(0)
                            ),
                            format!(
                                "{name} signed a message whose last seen message is older than \
                                 its own previous message on the {channel} channel."
                            ),
                        ));
                    }
                }
                None => {
                    let later = log.iter().find(|x| x.hash == prev);
                    let (kind, evidence, explanation) = match (later, channel_of.get(&prev)) {
                        (Some(x), _) => (
                            FaultKind::BrokenChain,
                            format!(
                                "prev {prev} is at position {} of {channel}, after this message \
                                 at position {pos}",
                                x.receipt.seq
                            ),
                            format!(
                                "The relay logged a message of {} before the message it says it \
                                 had already seen.",
                                name.to_lowercase()
                            ),
                        ),
                        (None, Some(other)) => (
                            FaultKind::BrokenChain,
                            format!(
                                "prev {prev} is a message of the {other} channel, not {channel}"
                            ),
                            format!(
                                "The relay accepted on the {channel} channel a message chained to \
                                 a message of the {other} channel."
                            ),
                        ),
                        (None, None) => (
                            FaultKind::Equivocation,
                            format!(
                                "{} signed seq {} on {channel} with prev {prev}, a message that is \
                                 in no log of the record",
                                b.author, b.seq
                            ),
                            format!(
                                "{name} signed that it had seen a message on the {channel} channel \
                                 that the relay's log does not contain: the relay showed it a \
                                 different history from the one it recorded."
                            ),
                        ),
                    };
                    return Some(relay().fault(kind, e.at(), evidence, explanation));
                }
            },
        }
        state.by_seq.insert(b.seq, e.hash);
        state.next_seq += 1;
        state.last = Some(pos);
        position.insert(e.hash, pos);
    }
    None
}

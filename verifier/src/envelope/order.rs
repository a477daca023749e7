//! Stage 3a: the order of the match: receipts, each channel's positions and hash chain, the
//! relay's total order (the order head), equivocation. (Authors' numbering and what they had
//! seen are stage 3b, [`super::coordinate`].)
//!
//! Blame follows what the signatures alone prove:
//! - a receipt naming another channel than its message's, two different relay receipts for one
//!   place of a channel or two placed after one order head, a receipt whose channel head the
//!   channel's entries before it do not produce, or an order that puts a channel's positions out
//!   of sequence: the relay kept two logs (`BadReceipt`, `Equivocation`, the relay);
//! - receipt times going back: `BadReceipt`, the relay;
//! - a position missing from a channel, an entry the order says comes before one but that the
//!   record lacks, an entry repeated, or entries not in the relay's order: nobody signed the
//!   record's order, so the record (`TruncatedRecord`, `MalformedRecord`).
//!
//! Only the first fault is reported: what follows it is its consequence.

use super::{Auth, Blame};
use crate::{Fault, FaultKind};
use protocol::message::{genesis_head, genesis_order, next_head};
use protocol::terms::AgreedTerms;
use protocol::{Channel, LogHead};
use std::collections::BTreeMap;

/// Checks the match's order; `Err` with the fault found. `Ok`: each entry's channel head and
/// the order head after it (its receipt's `head` and `order()`), now known to chain, so that
/// stage 3b need not hash them again.
pub(crate) fn check(
    terms: &AgreedTerms,
    entries: &[Auth],
) -> Result<Vec<(LogHead, LogHead)>, Vec<Fault>> {
    let orders: Vec<LogHead> = entries.iter().map(|e| e.receipt.order()).collect();
    match numbering(terms, entries, &orders) {
        Some(f) => Err(vec![f]),
        None => Ok(entries.iter().zip(orders).map(|(e, order)| (e.receipt.head, order)).collect()),
    }
}

fn equivocation(terms: &AgreedTerms, e: &Auth, evidence: String, why: &str) -> Fault {
    Blame::relay(terms).fault(FaultKind::Equivocation, e.at(), evidence, why.to_owned())
}

/// Each channel's receipts number it 0, 1, 2, ... once each, every receipt follows the one
/// before it in the record by the order head, time never goes back and every channel head
/// chains from the one before (PROTOCOL.md 11).
/// `orders[i]` is `log[i].receipt.order()`.
fn numbering(terms: &AgreedTerms, log: &[Auth], orders: &[LogHead]) -> Option<Fault> {
    for e in log {
        if e.receipt.channel != e.body.channel {
            return Some(Blame::relay(terms).fault(
                FaultKind::BadReceipt,
                e.at(),
                format!(
                    "entry {}: receipt on the {} channel for a message on the {} channel",
                    e.index, e.receipt.channel, e.body.channel
                ),
                "The relay signed a receipt that puts a message on another channel than its own."
                    .to_owned(),
            ));
        }
    }
    let mut by_place: BTreeMap<(u8, u64), &Auth> = BTreeMap::new();
    let mut by_after: BTreeMap<LogHead, &Auth> = BTreeMap::new();
    for e in log {
        let r = &e.receipt;
        if let Some(first) = by_place.insert((r.channel.byte(), r.position), e) {
            if first.receipt != *r {
                return Some(equivocation(
                    terms,
                    e,
                    format!(
                        "relay receipts for position {} of the {} channel: message {} (entry {}) \
                         and message {} (entry {})",
                        r.position, r.channel, first.hash, first.index, e.hash, e.index
                    ),
                    "The relay signed two different receipts for the same position of a \
                     channel: it kept two different histories.",
                ));
            }
            return Some(Blame::record().fault(
                FaultKind::MalformedRecord,
                e.at(),
                format!("entries {} and {} are the same message and receipt", first.index, e.index),
                "The record repeats an entry.".to_owned(),
            ));
        }
        if let Some(first) = by_after.insert(r.after, e) {
            return Some(equivocation(
                terms,
                e,
                format!(
                    "entries {} and {} are both placed right after order head {}",
                    first.index, e.index, r.after
                ),
                "The relay signed two different entries as the next one after the same point of \
                 the match: it kept two different histories.",
            ));
        }
    }
    for channel in Channel::ALL {
        let places = by_place.range((channel.byte(), 0)..=(channel.byte(), u64::MAX));
        for (expected, ((_, position), e)) in (0u64..).zip(places) {
            if *position != expected {
                return Some(Blame::record().fault(
                    FaultKind::TruncatedRecord,
                    e.at(),
                    format!(
                        "the {channel} channel has a receipt for position {position} but none for \
                         position {expected}"
                    ),
                    format!(
                        "A message the relay receipted at position {expected} of the {channel} \
                         channel is missing from the record."
                    ),
                ));
            }
        }
    }
    // In record order: each entry follows the one before it (the record's fault if not), time
    // never goes back, and the relay's order agrees with each channel's positions and heads (the
    // relay's fault if not). The first fault in record order is the one reported.
    let order_of = orders;
    let orders: BTreeMap<LogHead, usize> =
        log.iter().zip(order_of).map(|(e, order)| (*order, e.index)).collect();
    let genesis = genesis_order(&terms.match_id);
    let mut order = genesis;
    let mut heads = Channel::ALL.map(|c| genesis_head(&terms.match_id, c));
    let mut lengths = [0u64; 3];
    let mut last_time = 0;
    for (e, order_after) in log.iter().zip(order_of) {
        let r = &e.receipt;
        if r.after != order {
            let (kind, evidence, why) = match orders.get(&r.after) {
                Some(before) => (
                    FaultKind::MalformedRecord,
                    format!("entry {} follows entry {before} in the relay's order", e.index),
                    "The record's entries are not in the relay's order.".to_owned(),
                ),
                None if r.after == genesis => (
                    FaultKind::MalformedRecord,
                    format!("entry {} is the first in the relay's order", e.index),
                    "The record's entries are not in the relay's order.".to_owned(),
                ),
                None => (
                    FaultKind::TruncatedRecord,
                    format!(
                        "entry {} follows order head {}, which no entry of the record ends",
                        e.index, r.after
                    ),
                    "A message the relay receipted before this entry is missing from the record."
                        .to_owned(),
                ),
            };
            return Some(Blame::record().fault(kind, e.at(), evidence, why));
        }
        if r.time_ms < last_time {
            return Some(Blame::relay(terms).fault(
                FaultKind::BadReceipt,
                e.at(),
                format!("entry {} at {} ms after a receipt at {last_time} ms", e.index, r.time_ms),
                "The relay's receipts go back in time.".to_owned(),
            ));
        }
        let c = usize::from(r.channel.byte());
        if r.position != lengths[c] {
            return Some(equivocation(
                terms,
                e,
                format!(
                    "the relay's order puts position {} of the {} channel where position {} \
                     belongs",
                    r.position, r.channel, lengths[c]
                ),
                "The relay's order and its channel's positions disagree: it kept two different \
                 histories.",
            ));
        }
        let head = next_head(&heads[c], r.position, r.time_ms, &r.message);
        if r.head != head {
            return Some(equivocation(
                terms,
                e,
                format!(
                    "receipt for position {} of the {} channel carries head {}, its entries give \
                     {head}",
                    r.position, r.channel, r.head
                ),
                "The relay signed a channel head that the entries before it do not produce: the \
                 history it committed to is not the one in the record.",
            ));
        }
        heads[c] = head;
        lengths[c] += 1;
        order = *order_after;
        last_time = r.time_ms;
    }
    None
}

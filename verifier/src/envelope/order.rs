//! Stage 3a: the order of the match: receipts, the relay's one sequence, its log heads,
//! equivocation. (Authors' numbering and what they had seen are stage 3b, [`super::coordinate`].)
//!
//! Blame follows what the signatures alone prove:
//! - two different relay receipts for one position of the match, or a receipt whose log head the
//!   entries before it do not produce: the relay kept two logs (`Equivocation`, the relay);
//! - receipt times going back: `BadReceipt`, the relay;
//! - a position missing from the receipts, an entry repeated, or entries not in the relay's
//!   order: nobody signed the record's order, so the record (`TruncatedRecord`,
//!   `MalformedRecord`).
//!
//! Only the first fault of the sequence, or of each channel, is reported: what follows it is its
//! consequence.

use super::{Auth, Blame};
use crate::{Fault, FaultKind};
use protocol::message::{genesis_head, next_head};
use protocol::terms::AgreedTerms;
use std::collections::BTreeMap;

/// Checks the match's sequence; `Err` with the fault found.
pub(crate) fn check(terms: &AgreedTerms, entries: &[Auth]) -> Result<(), Vec<Fault>> {
    match numbering(terms, entries) {
        Some(f) => Err(vec![f]),
        None => Ok(()),
    }
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

//! Evidence of relay equivocation: two receipts the relay signed for one match that cannot both
//! be true. A player keeps every receipt it is delivered; if the relay shows it one log and the
//! opponent (or a published record) another, two receipts prove it from the relay's signatures
//! alone, without the rest of either log (docs/PROTOCOL.md, evidence).
//!
//! ```text
//! evidence = postcard(Evidence { version, terms: SignedTerms, receipts: [SignedReceipt; 2] })
//! ```
//!
//! The terms name the relay's key (and are signed by every party, the relay included). Each
//! channel has its own positions and hash chain; the order head chains the channels (each
//! receipt names the order head `after` which the relay placed it). The receipts contradict each
//! other when:
//! - **fork**: the same channel and position with another head, time, message or place;
//! - **order fork**: two different entries placed right after the same order head;
//! - **broken chain**: consecutive positions `i` and `i + 1` of a channel whose second head is
//!   not `next_head(first head, i + 1, time, message)`, or two entries of one channel that the
//!   order head puts next to each other while their positions are not consecutive (or go back);
//! - **duplicate**: one signed message at two places (the relay accepts each once);
//! - **time reversed**: a later entry (by its channel's positions, or placed right after the
//!   other) with an earlier time.
//!
//! Two receipts of different channels that are not next to each other in the order cannot be
//! compared: the order head counts nothing, so that a reader of one channel learns nothing of
//! another (PROTOCOL.md 11, 20).

use crate::codec::{self, Canonical, DecodeError};
use crate::message::{Receipt, ReceiptError, SignedReceipt, next_head};
use crate::terms::{AgreedTerms, SignedTerms, TermsError};
use crate::{Channel, LogHead};
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Two receipts of one match, with the terms naming its relay.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evidence {
    /// Always [`codec::VERSION`].
    pub version: u8,
    /// The match's signed terms.
    pub terms: SignedTerms,
    /// The two receipts, as the relay signed them.
    pub receipts: [SignedReceipt; 2],
}

impl Canonical for Evidence {
    const NAME: &'static str = "evidence";
    const MAX_BYTES: usize = SignedTerms::MAX_BYTES + 2 * SignedReceipt::MAX_BYTES + 16;
}

/// A place in a channel: the channel and the position in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct At {
    /// The channel.
    pub channel: Channel,
    /// The position in it.
    pub position: u64,
}

impl std::fmt::Display for At {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "position {} of the {} channel", self.position, self.channel)
    }
}

/// How two receipts contradict each other.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Contradiction {
    /// One place, two entries (or two heads).
    Fork {
        /// The place.
        at: At,
    },
    /// Two entries placed right after the same order head.
    OrderFork {
        /// The order head both follow.
        after: LogHead,
    },
    /// `second` does not chain from `first` in their channel.
    BrokenChain {
        /// The earlier place.
        first: At,
        /// The later one.
        second: At,
    },
    /// One signed message accepted at two places.
    Duplicate {
        /// The one place.
        first: At,
        /// The other.
        second: At,
    },
    /// A later entry with an earlier time.
    TimeReversed {
        /// The earlier entry.
        first: At,
        /// The later one.
        second: At,
    },
}

impl std::fmt::Display for Contradiction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Contradiction::Fork { at } => write!(f, "two different entries signed for {at}"),
            Contradiction::OrderFork { after } => {
                write!(f, "two different entries signed as next after order head {after}")
            }
            Contradiction::BrokenChain { first, second } => {
                write!(f, "the entry signed for {second} does not chain from the one for {first}")
            }
            Contradiction::Duplicate { first, second } => {
                write!(f, "one message signed at {first} and at {second}")
            }
            Contradiction::TimeReversed { first, second } => {
                write!(f, "{second} is signed with an earlier time than {first}, before it")
            }
        }
    }
}

/// Why evidence proves nothing.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum EvidenceError {
    /// The bytes are not evidence.
    #[error(transparent)]
    Decode(#[from] DecodeError),
    /// The terms do not verify.
    #[error("terms: {0}")]
    Terms(#[from] TermsError),
    /// A receipt is not the terms' relay's, or not for this match.
    #[error("receipt {index}: {source}")]
    Receipt {
        /// 0 or 1.
        index: usize,
        /// Why.
        source: ReceiptError,
    },
    /// Both receipts are the relay's, and consistent.
    #[error("the two receipts are consistent: they prove nothing against the relay")]
    Consistent,
}

impl Evidence {
    /// Checks the terms and both receipts' signatures, and names the contradiction.
    pub fn check(&self) -> Result<(AgreedTerms, Contradiction), EvidenceError> {
        codec::check_version(Self::NAME, self.version)?;
        let agreed = self.terms.verify()?;
        let open = |index: usize| -> Result<Receipt, EvidenceError> {
            let r = self.receipts[index]
                .open(&agreed.terms.relay)
                .map_err(|source| EvidenceError::Receipt { index, source })?;
            if r.match_id != agreed.match_id {
                let source =
                    ReceiptError::WrongMatch { expected: agreed.match_id, found: r.match_id };
                return Err(EvidenceError::Receipt { index, source });
            }
            Ok(r)
        };
        let (a, b) = (open(0)?, open(1)?);
        contradiction(&a, &b).map(|c| (agreed, c)).ok_or(EvidenceError::Consistent)
    }
}

/// How receipts `a` and `b` (both the relay's, for one match) contradict each other, if they do.
pub fn contradiction(a: &Receipt, b: &Receipt) -> Option<Contradiction> {
    let at = |r: &Receipt| At { channel: r.channel, position: r.position };
    if a == b {
        return None;
    }
    if at(a) == at(b) {
        return Some(Contradiction::Fork { at: at(a) });
    }
    if a.message == b.message {
        return Some(Contradiction::Duplicate { first: at(a), second: at(b) });
    }
    if a.after == b.after {
        return Some(Contradiction::OrderFork { after: a.after });
    }
    // Which comes first, where the receipts tell: by position in one channel, or by the order
    // head where one is placed right after the other.
    let (first, second) = if a.channel == b.channel {
        if a.position < b.position { (a, b) } else { (b, a) }
    } else if b.after == a.order() {
        (a, b)
    } else if a.after == b.order() {
        (b, a)
    } else {
        return None;
    };
    let (f, s) = (at(first), at(second));
    if second.time_ms < first.time_ms {
        return Some(Contradiction::TimeReversed { first: f, second: s });
    }
    if first.channel != second.channel {
        return None;
    }
    let adjacent = first.position.checked_add(1) == Some(second.position);
    let broken = (adjacent
        && second.head != next_head(&first.head, second.position, second.time_ms, &second.message))
        || (second.after == first.order() && !adjacent)
        || first.after == second.order();
    broken.then_some(Contradiction::BrokenChain { first: f, second: s })
}

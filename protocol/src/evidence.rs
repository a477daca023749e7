//! Evidence of relay equivocation: two receipts the relay signed for one match that cannot both
//! be true. A player keeps every receipt it is delivered; if the relay shows it one log and the
//! opponent (or a published record) another, two receipts prove it from the relay's signatures
//! alone, without the rest of either log (docs/PROTOCOL.md, evidence).
//!
//! ```text
//! evidence = postcard(Evidence { version, terms: SignedTerms, receipts: [SignedReceipt; 2] })
//! ```
//!
//! The terms name the relay's key (and are signed by every party, the relay included). The
//! receipts contradict each other when:
//! - **fork**: the same position with another head or another message;
//! - **broken chain**: consecutive positions `i` and `i + 1` whose second head is not
//!   `next_head(first head, i + 1, time, message)`;
//! - **duplicate**: one signed message at two positions (the relay accepts each once);
//! - **time reversed**: a later position with an earlier time.

use crate::codec::{self, Canonical, DecodeError};
use crate::message::{Receipt, ReceiptError, SignedReceipt, next_head};
use crate::terms::{AgreedTerms, SignedTerms, TermsError};
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

/// How two receipts contradict each other.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Contradiction {
    /// One position, two entries (or two heads).
    Fork {
        /// The position.
        seq: u64,
    },
    /// Position `seq + 1` does not chain from position `seq`.
    BrokenChain {
        /// The first position.
        seq: u64,
    },
    /// One signed message accepted at two positions.
    Duplicate {
        /// The earlier position.
        first: u64,
        /// The later one.
        second: u64,
    },
    /// A later position with an earlier time.
    TimeReversed {
        /// The earlier position.
        first: u64,
        /// The later one.
        second: u64,
    },
}

impl std::fmt::Display for Contradiction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Contradiction::Fork { seq } => {
                write!(f, "two different entries signed for position {seq}")
            }
            Contradiction::BrokenChain { seq } => write!(
                f,
                "the head signed for position {} does not chain from the one for position {seq}",
                seq + 1
            ),
            Contradiction::Duplicate { first, second } => {
                write!(f, "one message signed at positions {first} and {second}")
            }
            Contradiction::TimeReversed { first, second } => {
                write!(f, "position {second} is signed with an earlier time than position {first}")
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
        let (a, b) = if a.seq <= b.seq { (a, b) } else { (b, a) };
        let contradiction = if a.seq == b.seq {
            (a != b).then_some(Contradiction::Fork { seq: a.seq })
        } else if a.message == b.message {
            Some(Contradiction::Duplicate { first: a.seq, second: b.seq })
        } else if b.time_ms < a.time_ms {
            Some(Contradiction::TimeReversed { first: a.seq, second: b.seq })
        } else if b.seq == a.seq + 1 && b.head != next_head(&a.head, b.seq, b.time_ms, &b.message) {
            Some(Contradiction::BrokenChain { seq: a.seq })
        } else {
            None
        };
        contradiction.map(|c| (agreed, c)).ok_or(EvidenceError::Consistent)
    }
}

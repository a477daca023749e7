//! Verdicts and faults: what the verifier concludes, in a form both machines and a human
//! arbiter can read.

use protocol::{MessageHash, PublicKey};
use rules::GameResult;
use serde::{Deserialize, Serialize};

/// The role of a key in a match (ARCHITECTURE.md, Roles).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export_to = "verifier/"))]
#[serde(rename_all = "kebab-case")]
pub enum MatchRole {
    /// The white player.
    White,
    /// The black player.
    Black,
    /// The umpire of an umpired game.
    Umpire,
    /// The relay (the host's server).
    Relay,
    /// Nobody can be blamed: the record itself is unreadable or incomplete as given.
    Record,
}

/// The kind of a fault: a stable, kebab-case name tests and tools match on.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export_to = "verifier/"))]
#[serde(rename_all = "kebab-case")]
pub enum FaultKind {
    /// The record bytes do not decode (bad encoding, non-canonical, trailing bytes, too large).
    MalformedRecord,
    /// The record ends before the match does (no end, missing messages).
    TruncatedRecord,
    /// The terms are not signed by both players or are invalid.
    BadTerms,
    /// A message's signature does not verify under its author's key.
    BadSignature,
    /// A message belongs to another match.
    WrongMatch,
    /// A message body is not canonical or has trailing bytes.
    NonCanonical,
    /// A receipt is missing, forged or does not match its message.
    BadReceipt,
    /// Messages out of order, duplicated or dropped on a channel (sequence or hash chain).
    BrokenChain,
    /// The relay showed the two players different histories.
    Equivocation,
    /// An opening does not match its commitment.
    BadOpening,
    /// Two authors submitted the same commitment.
    DuplicateCommitment,
    /// A revealed seed does not reproduce the setup that was used.
    BadSetup,
    /// A player's move or action is not legal.
    IllegalAction,
    /// The umpire accepted an illegal move or refused a legal one.
    FalseAdjudication,
    /// A signed announcement, observation, view, legal-move list, score or red-square set differs
    /// from what the rules give.
    FalseAnnouncement,
    /// A false informer answer or king square (Intrigue, owner mode).
    FalseInformerAnswer,
    /// A commitment was never opened before the deadline.
    MissingReveal,
    /// A side did not act in time (proven by the relay's signed timeout).
    Timeout,
    /// A claimed result differs from what the rules give.
    FalseClaim,
    /// A sealed payload does not match its disclosure.
    BadDisclosure,
    /// A message the relay must refuse and receipted anyway: an author the terms do not name, a
    /// channel the author may not write on, a payload not allowed there (an unsealed private
    /// payload, a sealed public one, a sealed payload of another size than the variant's
    /// padded size, a timeout not from the relay).
    NotAllowed,
    /// The relay timed a party out for a duty that a message of that party answered, which a
    /// delivery witness proves it was offered in time and forwarded (docs/PROTOCOL.md,
    /// delivery notices): relay fault, dropped message.
    DroppedMessage,
}

/// One finding.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fault {
    /// What went wrong.
    pub kind: FaultKind,
    /// The key that signed the false statement (`None` when the record itself is unreadable).
    pub culprit: Option<PublicKey>,
    /// That key's role.
    pub role: MatchRole,
    /// The index of the record entry the fault is in, if any.
    pub entry: Option<usize>,
    /// The hash of the message the fault is in, if any.
    pub message: Option<MessageHash>,
    /// The evidence: what was signed and what the rules or cryptography give instead.
    pub evidence: String,
    /// A sentence a human arbiter can read.
    pub explanation: String,
}

/// What the verifier concludes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Every check passed; the game's result under its rules.
    Valid {
        /// The result (winner and reason).
        result: GameResult,
    },
    /// Faults were found. A player's fault forfeits the game; an umpire's or relay's voids it.
    Faults(Vec<Fault>),
}

impl Verdict {
    /// Whether the record is valid.
    #[must_use]
    pub fn is_valid(&self) -> bool {
        matches!(self, Verdict::Valid { .. })
    }

    /// The faults (empty when valid).
    #[must_use]
    pub fn faults(&self) -> &[Fault] {
        match self {
            Verdict::Valid { .. } => &[],
            Verdict::Faults(f) => f,
        }
    }

    /// The result a proven fault gives (ARCHITECTURE.md step 7): the first player at fault
    /// forfeits; an umpire's or relay's fault voids the game (`None`).
    #[must_use]
    pub fn sanctioned_result(&self) -> Option<GameResult> {
        match self {
            Verdict::Valid { result } => Some(*result),
            Verdict::Faults(faults) => {
                let first = faults.first()?;
                match first.role {
                    MatchRole::White => {
                        Some(GameResult::win(rules::Color::Black, rules::EndReason::Forfeit))
                    }
                    MatchRole::Black => {
                        Some(GameResult::win(rules::Color::White, rules::EndReason::Forfeit))
                    }
                    MatchRole::Umpire | MatchRole::Relay | MatchRole::Record => None,
                }
            }
        }
    }
}

//! Delivery notices (docs/PROTOCOL.md, delivery notices): a second path to the relay that the
//! relay does not control.
//!
//! A party whose signed message gets no receipt within [`GRACE_MS`] hands it, with the match's
//! signed terms, to a **delivery witness** ([`DeliveryRequest`]). The witness checks the terms'
//! signatures, the message's signature, its match and that its author is a party of the terms,
//! then signs a [`DeliveryNotice`] `{ match_id, signed_hash, witness_time_ms }` under the tag
//! `fogproof/v2/delivery-notice`, forwards the message to the relay, and answers with the notice
//! and whatever the relay said ([`DeliveryAnswer`]). The relay must receipt a forwarded message
//! like any other: the witness, not the sender, is now the one who can show it was offered.
//!
//! A notice ([`Delivered`]: the signed notice and the message it names) is evidence from
//! signatures alone. The verifier (`verifier::delivery`) takes a record, notices and the
//! witness keys it trusts (the host's published witness policy: a witness the log names), and
//! when the record times a party out for a duty that a noticed message of that party answers,
//! offered at least [`CLOCK_TOLERANCE_MS`] before the deadline by the witness's clock and never
//! receipted before the timeout, the fault is the relay's (the game is void). A notice after
//! that changes nothing (late is late); a noticed message the rules would have refused changes
//! nothing; a message offered only to the witness still reaches the relay through it, so a
//! player cannot keep a move from the relay and then blame it.

use crate::codec::{self, Canonical, DecodeError};
use crate::keys::{Identity, PublicKey, Signature, SignatureError};
use crate::message::{MessageBody, MessageError, SignedMessage, SignedReceipt};
use crate::relay::Entry;
use crate::terms::{AgreedTerms, SignedTerms, TermsError};
use crate::{MatchId, SignedHash, tags};
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// How long an agent waits for a receipt before it offers the message to a delivery witness.
pub const GRACE_MS: u64 = 2_000;

/// The tolerance between the witness's clock and the relay's, in ms: a notice proves a message
/// was offered in time only if `witness_time_ms + CLOCK_TOLERANCE_MS <= deadline_ms`. It covers
/// the two clocks' difference (both are meant to be NTP wall clocks; relay time is wall time
/// less a match's uncharged downtime, which only makes the test stricter for the party) and the
/// forwarding time from the witness to the relay.
pub const CLOCK_TOLERANCE_MS: u64 = 2_000;

/// What a witness signs: that it was offered the signed message `message` of match `match_id`
/// at `witness_time_ms` (ms since the Unix epoch, its clock), and forwarded it to the relay.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeliveryNotice {
    /// Always [`codec::VERSION`].
    pub version: u8,
    /// The match.
    pub match_id: MatchId,
    /// The witness's key (the signer).
    pub witness: PublicKey,
    /// The whole signed message offered (`SignedMessage::signed_hash`).
    pub message: SignedHash,
    /// When the witness was offered it, in ms since the Unix epoch by its clock.
    pub witness_time_ms: u64,
}

impl Canonical for DeliveryNotice {
    const NAME: &'static str = "delivery notice";
    const MAX_BYTES: usize = 128;

    fn check(&self) -> Result<(), DecodeError> {
        codec::check_version(Self::NAME, self.version)
    }
}

/// A notice's bytes with the witness's signature over
/// `signing_input(fogproof/v2/delivery-notice, notice)`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignedNotice {
    /// Canonical [`DeliveryNotice`] bytes.
    pub notice: Vec<u8>,
    /// The witness's signature.
    pub signature: Signature,
}

impl Canonical for SignedNotice {
    const NAME: &'static str = "signed delivery notice";
    const MAX_BYTES: usize = 256;
}

/// A notice file: the witness's signed notice and the message it names (what a party keeps
/// beside its record, and gives the verifier).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Delivered {
    /// Always [`codec::VERSION`].
    pub version: u8,
    /// The witness's signed notice.
    pub notice: SignedNotice,
    /// The message it names.
    pub message: SignedMessage,
}

impl Canonical for Delivered {
    const NAME: &'static str = "delivery notice file";
    const MAX_BYTES: usize = SignedNotice::MAX_BYTES + SignedMessage::MAX_BYTES + 16;

    fn check(&self) -> Result<(), DecodeError> {
        codec::check_version(Self::NAME, self.version)
    }
}

/// What a party sends a delivery witness (`POST /deliver`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeliveryRequest {
    /// Always [`codec::VERSION`].
    pub version: u8,
    /// The match's terms, signed by every signer.
    pub terms: SignedTerms,
    /// The message to deliver.
    pub message: SignedMessage,
}

impl Canonical for DeliveryRequest {
    const NAME: &'static str = "delivery request";
    const MAX_BYTES: usize = SignedTerms::MAX_BYTES + SignedMessage::MAX_BYTES + 16;

    fn check(&self) -> Result<(), DecodeError> {
        codec::check_version(Self::NAME, self.version)
    }
}

/// What the relay answered the witness's forwarding.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RelayAnswer {
    /// The entry: the message with the relay's receipt (also for a message it already had).
    Receipted(Entry),
    /// The relay refused it, saying why.
    Refused(String),
    /// The relay could not be reached or did not answer in time.
    Unreachable(String),
}

/// The witness's answer to a [`DeliveryRequest`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeliveryAnswer {
    /// Always [`codec::VERSION`].
    pub version: u8,
    /// The notice (keep it: it is the evidence).
    pub delivered: Delivered,
    /// What the relay said.
    pub relay: RelayAnswer,
}

impl Canonical for DeliveryAnswer {
    const NAME: &'static str = "delivery answer";
    const MAX_BYTES: usize = Delivered::MAX_BYTES + Entry::MAX_BYTES + 1024;

    fn check(&self) -> Result<(), DecodeError> {
        codec::check_version(Self::NAME, self.version)
    }
}

/// Why a delivery request or a notice was refused.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum NoticeError {
    /// Bad bytes.
    #[error(transparent)]
    Decode(#[from] DecodeError),
    /// The terms do not verify.
    #[error("the terms: {0}")]
    Terms(#[from] TermsError),
    /// The message does not verify or is for another match.
    #[error("the message: {0}")]
    Message(#[from] MessageError),
    /// The message's author is not a player or the umpire of the terms.
    #[error("{0} is not a player or the umpire of this match")]
    NotAParty(PublicKey),
    /// The notice is signed by a key the verifier does not trust as a witness.
    #[error("the notice is signed by {0}, which is not a trusted witness")]
    UntrustedWitness(PublicKey),
    /// The witness's signature does not verify.
    #[error("the witness's signature: {0}")]
    Signature(#[from] SignatureError),
    /// The notice is for another match.
    #[error("the notice is for match {found}, not {expected}")]
    WrongMatch {
        /// The record's match.
        expected: MatchId,
        /// The notice's.
        found: MatchId,
    },
    /// The notice names another message than the one beside it.
    #[error("the notice names signed message {named}, the file holds {held}")]
    WrongMessage {
        /// What the notice names.
        named: SignedHash,
        /// The message in the file.
        held: SignedHash,
    },
}

/// What a witness checks before it signs (and forwards): the terms verify, the message verifies
/// for their match, and its author is a player or the umpire. Returns both.
pub fn check_request(request: &DeliveryRequest) -> Result<(AgreedTerms, MessageBody), NoticeError> {
    let terms = request.terms.verify()?;
    let body = request.message.verify_for(&terms.match_id)?;
    let t = &terms.terms;
    let party =
        t.player(&body.author).is_some() || t.umpire.as_ref().is_some_and(|u| u.key == body.author);
    if !party {
        return Err(NoticeError::NotAParty(body.author));
    }
    Ok((terms, body))
}

impl SignedNotice {
    /// Encodes and signs a notice with the witness's identity (whose key should be
    /// `notice.witness`).
    pub fn sign(notice: &DeliveryNotice, witness: &Identity) -> SignedNotice {
        let bytes = notice.to_canonical();
        SignedNotice { signature: witness.sign(tags::DELIVERY_NOTICE, &bytes), notice: bytes }
    }

    /// Decodes the notice strictly and checks that its signer is among `trusted` and signed it.
    pub fn open(&self, trusted: &[PublicKey]) -> Result<DeliveryNotice, NoticeError> {
        let notice = DeliveryNotice::from_canonical(&self.notice)?;
        if !trusted.contains(&notice.witness) {
            return Err(NoticeError::UntrustedWitness(notice.witness));
        }
        notice.witness.verify(tags::DELIVERY_NOTICE, &self.notice, &self.signature)?;
        Ok(notice)
    }
}

impl Delivered {
    /// The witness's notice for `message` of `match_id`, offered at `now_ms` (its clock).
    pub fn notarize(
        witness: &Identity,
        match_id: MatchId,
        message: SignedMessage,
        now_ms: u64,
    ) -> Delivered {
        let notice = DeliveryNotice {
            version: codec::VERSION,
            match_id,
            witness: witness.public(),
            message: message.signed_hash(),
            witness_time_ms: now_ms,
        };
        Delivered { version: codec::VERSION, notice: SignedNotice::sign(&notice, witness), message }
    }

    /// Checks the notice from signatures alone: signed by a `trusted` witness, for `match_id`,
    /// naming exactly the message beside it, which its author signed for that match.
    pub fn check(
        &self,
        trusted: &[PublicKey],
        match_id: &MatchId,
    ) -> Result<(DeliveryNotice, MessageBody), NoticeError> {
        let notice = self.notice.open(trusted)?;
        if notice.match_id != *match_id {
            return Err(NoticeError::WrongMatch { expected: *match_id, found: notice.match_id });
        }
        let held = self.message.signed_hash();
        if notice.message != held {
            return Err(NoticeError::WrongMessage { named: notice.message, held });
        }
        let body = self.message.verify_for(match_id)?;
        Ok((notice, body))
    }
}

impl RelayAnswer {
    /// The relay's receipt, if it gave one for `message` that verifies under `relay`.
    pub fn receipt_for(
        &self,
        relay: &PublicKey,
        match_id: &MatchId,
        message: &SignedMessage,
    ) -> Option<SignedReceipt> {
        match self {
            RelayAnswer::Receipted(e) if e.message == *message => {
                e.receipt.verify(relay, match_id, message).ok().map(|_| e.receipt.clone())
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: u8) -> Identity {
        Identity::from_seed(&[n; 32])
    }

    fn message(author: &Identity, match_id: MatchId) -> SignedMessage {
        let body = MessageBody {
            version: codec::VERSION,
            match_id,
            channel: crate::Channel::Public,
            author: author.public(),
            seq: 0,
            seen: None,
            re: None,
            payload: crate::message::Payload::Start,
        };
        SignedMessage::sign(&body, author)
    }

    #[test]
    fn a_notice_checks_only_under_a_trusted_witness_for_its_match_and_message() {
        let (witness, other, author) = (id(1), id(2), id(3));
        let m = MatchId([7; 32]);
        let msg = message(&author, m);
        let d = Delivered::notarize(&witness, m, msg.clone(), 1_234);
        let bytes = d.to_canonical();
        let back = Delivered::from_canonical(&bytes).expect("round trip");
        let (notice, body) = back.check(&[witness.public()], &m).expect("valid");
        assert_eq!(notice.witness_time_ms, 1_234);
        assert_eq!(body.author, author.public());
        // Not a trusted witness.
        assert_eq!(
            d.check(&[other.public()], &m).unwrap_err(),
            NoticeError::UntrustedWitness(witness.public())
        );
        // Signed by another key than the one it names.
        let mut forged = Delivered::notarize(&other, m, msg.clone(), 1_234);
        let mut n = DeliveryNotice::from_canonical(&forged.notice.notice).expect("notice");
        n.witness = witness.public();
        forged.notice.notice = n.to_canonical();
        assert!(matches!(forged.check(&[witness.public()], &m), Err(NoticeError::Signature(_))));
        // Another match.
        assert!(matches!(
            d.check(&[witness.public()], &MatchId([8; 32])),
            Err(NoticeError::WrongMatch { .. })
        ));
        // Another message beside the notice.
        let mut swapped = d.clone();
        swapped.message = message(&other, m);
        assert!(matches!(
            swapped.check(&[witness.public()], &m),
            Err(NoticeError::WrongMessage { .. })
        ));
        // A notice under another tag's signature (a message signature) does not verify.
        let mut retagged = d;
        retagged.notice.signature = witness.sign(tags::MESSAGE, &retagged.notice.notice);
        assert!(matches!(retagged.check(&[witness.public()], &m), Err(NoticeError::Signature(_))));
    }
}

//! Signed messages, their hashes, and the relay's receipts.
//!
//! ```text
//! body_bytes   = postcard(MessageBody)
//! message_hash = H(fogproof/v2/message-hash; ("body", body_bytes))
//! signature    = ed25519(author, signing_input(fogproof/v2/message, body_bytes))
//! receipt_bytes = postcard(Receipt { version, match_id, channel, position, time_ms, message,
//!                                     head, after })
//! receipt_sig  = ed25519(relay, signing_input(fogproof/v2/receipt, receipt_bytes))
//! ```
//!
//! Numbering (v3, PROTOCOL.md 11): every channel has its own hash chain and positions 0, 1, 2,
//! ...; the relay's total order over the channels is a second chain, the order head, that
//! commits to each channel head without counting anything. So a receipt on one channel says
//! nothing about how many entries another channel has, and an author's numbers count only its
//! own messages on one channel.
//!
//! A [`SignedMessage`] keeps the body as the exact bytes that were signed; verification decodes
//! those bytes strictly and checks the signature over them, never over a re-encoding.

use crate::codec::{self, Canonical, DecodeError};
use crate::commitment::Opening;
use crate::keys::{Identity, PublicKey, Signature, SignatureError};
use crate::seal::{self, SealContext, SealError, SealPublicKey, Sealed, Sealer};
use crate::tags;
use crate::transcript::Transcript;
use crate::{Channel, Color, Commitment, LogHead, MatchId, MessageHash, Party, SignedHash};
use serde::{Deserialize, Serialize};

use thiserror::Error;

/// Largest accepted signed message, in bytes (a limit on everything from outside).
pub const MAX_MESSAGE_BYTES: usize = 64 * 1024;

/// What a party owes, and so which deadline it missed (docs/PROTOCOL.md, clocks).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Expectation {
    /// A move (or attempt, or a claim such as resignation); runs the side's clock.
    Move,
    /// A commitment, reveal, opening or setup; bounded by the terms' `reveal_ms`.
    Reveal,
    /// An answer (the umpire's to an action, an owner's informer answer); bounded by the
    /// terms' `answer_ms`.
    Answer,
}

/// Whose move clock runs after an umpire's answer ([`Payload::Turn`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Owed {
    /// One side is to act.
    Side(Color),
    /// Both sides act at once (6x6's tie-break, R-G8): each under the reveal deadline.
    Both,
    /// Nobody: the game is over.
    Nobody,
}

/// A game result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Outcome {
    /// White wins.
    WhiteWins,
    /// Black wins.
    BlackWins,
    /// Draw.
    Draw,
    /// No result (aborted, disputed).
    NoResult,
}

/// A claimed result and why (the rules' end reason, e.g. `checkmate`, `resignation`, `timeout`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Claim {
    /// The result claimed.
    pub outcome: Outcome,
    /// Why.
    pub reason: ClaimReason,
}

/// Why a claim ends a match: an end the rules name (`checkmate`, `resignation`, `timeout`,
/// `forfeit`, ...), or one of the protocol's own two. On the wire it is its name, a string
/// (PROTOCOL.md, messages); a name nobody defined does not decode.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum ClaimReason {
    /// An end the rules name.
    Game(rules::EndReason),
    /// `bad-terms`: the terms name a game or options this build cannot start; nothing is played.
    BadTerms,
    /// `umpire-timeout`: the relay timed the umpire out; the match has no result.
    UmpireTimeout,
}

impl ClaimReason {
    /// The name on the wire and in every output.
    pub const fn name(self) -> &'static str {
        match self {
            ClaimReason::Game(r) => r.name(),
            ClaimReason::BadTerms => "bad-terms",
            ClaimReason::UmpireTimeout => "umpire-timeout",
        }
    }

    /// The reason named `name`, if any.
    pub fn from_name(name: &str) -> Option<ClaimReason> {
        match name {
            "bad-terms" => Some(ClaimReason::BadTerms),
            "umpire-timeout" => Some(ClaimReason::UmpireTimeout),
            _ => rules::EndReason::from_name(name).map(ClaimReason::Game),
        }
    }
}

impl From<rules::EndReason> for ClaimReason {
    fn from(r: rules::EndReason) -> ClaimReason {
        ClaimReason::Game(r)
    }
}

impl From<ClaimReason> for String {
    fn from(r: ClaimReason) -> String {
        r.name().to_owned()
    }
}

impl TryFrom<String> for ClaimReason {
    type Error = UnknownClaimReason;
    fn try_from(name: String) -> Result<ClaimReason, UnknownClaimReason> {
        ClaimReason::from_name(&name).ok_or(UnknownClaimReason(name))
    }
}

impl std::fmt::Display for ClaimReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A claim reason nobody defined.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
#[error("unknown claim reason {0:?}")]
pub struct UnknownClaimReason(pub String);

/// What a message says. Game content is opaque bytes here: the rules crate's serde types,
/// encoded by the game layer; the protocol only frames, signs, seals and orders them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Payload {
    /// A commitment (ARCHITECTURE.md step 2).
    Commit {
        /// What it commits to ([`crate::commitment::PRIVATE_SEED`], ...).
        purpose: crate::commitment::Purpose,
        /// The commitment.
        commitment: Commitment,
    },
    /// A reveal during setup (the public contribution, step 3).
    Reveal {
        /// The purpose of the commitment it opens.
        purpose: crate::commitment::Purpose,
        /// The opening.
        opening: Opening,
    },
    /// A private-channel payload: the canonical bytes of another (non-sealed) payload, sealed.
    Sealed(Sealed),
    /// A move or attempt (game-action bytes).
    Action(#[serde(with = "serde_bytes")] Vec<u8>),
    /// An announcement or a side's observation (game bytes).
    Observation(#[serde(with = "serde_bytes")] Vec<u8>),
    /// A result claim.
    Claim(Claim),
    /// An end-of-game opening of an earlier commitment (step 6).
    Open {
        /// The purpose of the commitment it opens.
        purpose: crate::commitment::Purpose,
        /// The opening.
        opening: Opening,
    },
    /// Acknowledges a message (e.g. the umpire acknowledging sealed setup openings, step 4).
    Ack {
        /// The message acknowledged.
        message: MessageHash,
    },
    /// A relay's notice that a party missed its deadline (authored by the relay only).
    Timeout {
        /// The party that ran out of time.
        party: Party,
        /// What it failed to send.
        expectation: Expectation,
        /// The deadline it missed.
        deadline_ms: u64,
    },
    /// The umpire's public statement, answering an action (`re`), of whose move clock runs
    /// now. Sent first, before the sealed observations, and only when the turn changes hands or
    /// the game ends, so the opponent learns nothing it is not told anyway (R-K1).
    Turn {
        /// Who is to act.
        next: Owed,
    },
    /// The relay's notice that the match has started: its receipt time starts the clocks.
    Start,
    /// After the end, the author's disclosures of the sealed messages it sent: the seal seed
    /// of its context on each private channel it sealed on, on the public channel; owed under
    /// the reveal deadline, checked against the signed setup and by opening every sealed message
    /// of the channel (PROTOCOL.md, disclosures).
    Disclose(Vec<crate::seal::SealDisclosure>),
    /// The relay's notice that the match is complete: over, and nothing owed by anyone. Its
    /// receipt's head is the match's final head.
    Close {
        /// The relay's wall-clock time when it closed, milliseconds since the Unix epoch: the
        /// match's close time in the ledger (docs/LEDGER.md). Receipt times are the relay's
        /// match time, which stands still while the server is down, so they can be far behind
        /// the calendar after an outage; this one is not.
        wall_ms: u64,
    },
    /// A party's countersignature of the final head: its `seen` names the `Close` entry (or a
    /// later one), whose head chains through every entry before, so this signature binds the
    /// party to the whole log as the relay closed it.
    Countersign,
}

impl Canonical for Payload {
    const NAME: &'static str = "payload";
    const MAX_BYTES: usize = MAX_MESSAGE_BYTES;
}

impl Payload {
    /// The payload's kind, for errors.
    pub fn kind(&self) -> &'static str {
        match self {
            Payload::Commit { .. } => "commit",
            Payload::Reveal { .. } => "reveal",
            Payload::Sealed(_) => "sealed",
            Payload::Action(_) => "action",
            Payload::Observation(_) => "observation",
            Payload::Claim(_) => "claim",
            Payload::Open { .. } => "open",
            Payload::Ack { .. } => "ack",
            Payload::Timeout { .. } => "timeout",
            Payload::Turn { .. } => "turn",
            Payload::Start => "start",
            Payload::Disclose(_) => "disclose",
            Payload::Close { .. } => "close",
            Payload::Countersign => "countersign",
        }
    }
}

/// A message before signing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MessageBody {
    /// Always [`codec::VERSION`].
    pub version: u8,
    /// The match it belongs to.
    pub match_id: MatchId,
    /// Its channel.
    pub channel: Channel,
    /// Its author's signing key.
    pub author: PublicKey,
    /// The author's own number for its messages on this channel, strictly increasing in the
    /// order it signs them (0, 1, 2, ...; a number its message was refused under is not reused,
    /// so the next message leaves a gap, which only the channel's readers see).
    pub seq: u64,
    /// The last entry of the match the author had received when it wrote this message, by its
    /// order head (`None` before it received any): a hash, no count. The relay refuses a `seen`
    /// its own log does not have; the verifier reads races from it (PROTOCOL.md, the race rule).
    pub seen: Option<Seen>,
    /// The message this one answers (the action an umpire's observation adjudicates, the
    /// capture an informer answer inspects, the message acknowledged), `None` otherwise.
    pub re: Option<MessageHash>,
    /// What it says.
    pub payload: Payload,
}

/// What an author had seen: the order head after the last entry it received
/// ([`Receipt::order`]). Only the relay and a verifier, which hold the whole log, can map it to a
/// position; a reader of the message learns no count from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Seen {
    /// The order head after the entry seen.
    pub order: LogHead,
}

impl Canonical for MessageBody {
    const NAME: &'static str = "message body";
    const MAX_BYTES: usize = MAX_MESSAGE_BYTES;

    fn check(&self) -> Result<(), DecodeError> {
        codec::check_version(Self::NAME, self.version)
    }
}

/// `H(fogproof/v2/message-hash; ("body", body_bytes))`.
pub fn message_hash(body_bytes: &[u8]) -> MessageHash {
    MessageHash(Transcript::new(tags::MESSAGE_HASH).append("body", body_bytes).finish())
}

/// A message as sent: the exact body bytes and the author's signature over them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignedMessage {
    /// Canonical [`MessageBody`] bytes.
    #[serde(with = "serde_bytes")]
    pub body: Vec<u8>,
    /// The author's signature over `signing_input(fogproof/v2/message, body)`.
    pub signature: Signature,
}

impl Canonical for SignedMessage {
    const NAME: &'static str = "signed message";
    const MAX_BYTES: usize = MAX_MESSAGE_BYTES + 128;
}

/// Why a message was refused.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum MessageError {
    /// Bad bytes.
    #[error(transparent)]
    Decode(#[from] DecodeError),
    /// The author's signature does not verify.
    #[error("message signature: {0}")]
    Signature(#[from] SignatureError),
    /// The message belongs to another match (e.g. a replay from another game).
    #[error("message is for match {found}, not {expected}")]
    WrongMatch {
        /// This match.
        expected: MatchId,
        /// The message's match.
        found: MatchId,
    },
}

impl SignedMessage {
    /// The length of the message's canonical bytes (what an author sends and the record holds),
    /// computed without encoding: `varint(len(body)) || body || signature`.
    pub fn encoded_len(&self) -> usize {
        let mut varint = 1;
        let mut n = self.body.len() >> 7;
        while n > 0 {
            varint += 1;
            n >>= 7;
        }
        varint + self.body.len() + 64
    }

    /// Encodes and signs `body` with `author` (whose key should be `body.author`).
    pub fn sign(body: &MessageBody, author: &Identity) -> SignedMessage {
        let bytes = body.to_canonical();
        let signature = author.sign(tags::MESSAGE, &bytes);
        SignedMessage { body: bytes, signature }
    }

    /// The message hash (over the body bytes as stored).
    pub fn hash(&self) -> MessageHash {
        message_hash(&self.body)
    }

    /// The hash of the whole signed message, signature included ([`signed_hash`]).
    pub fn signed_hash(&self) -> SignedHash {
        signed_hash(&self.body, &self.signature)
    }

    /// Decodes the body strictly and checks the signature of its stated author.
    pub fn verify(&self) -> Result<MessageBody, MessageError> {
        let body = MessageBody::from_canonical(&self.body)?;
        body.author.verify(tags::MESSAGE, &self.body, &self.signature)?;
        Ok(body)
    }

    /// [`SignedMessage::verify`], and that it belongs to `match_id`.
    pub fn verify_for(&self, match_id: &MatchId) -> Result<MessageBody, MessageError> {
        let body = self.verify()?;
        if body.match_id != *match_id {
            return Err(MessageError::WrongMatch { expected: *match_id, found: body.match_id });
        }
        Ok(body)
    }

    /// Decodes the body strictly and checks that it belongs to `match_id`, without checking
    /// the signature: only for the exact bytes the caller signed itself (a machine reading its
    /// own message back, `roles`), whose signature it made.
    pub(crate) fn decode_own(&self, match_id: &MatchId) -> Result<MessageBody, MessageError> {
        let body = MessageBody::from_canonical(&self.body)?;
        if body.match_id != *match_id {
            return Err(MessageError::WrongMatch { expected: *match_id, found: body.match_id });
        }
        Ok(body)
    }
}

/// `H(fogproof/v2/signed-message; ("body", body_bytes), ("signature", signature))`.
pub fn signed_hash(body_bytes: &[u8], signature: &Signature) -> SignedHash {
    SignedHash(
        Transcript::new(tags::SIGNED_MESSAGE)
            .append("body", body_bytes)
            .append("signature", &signature.to_bytes())
            .finish(),
    )
}

/// A channel's head before its first entry: `H(fogproof/v2/log-head; ("match-id", match_id),
/// ("channel", [channel byte]))`.
pub fn genesis_head(match_id: &MatchId, channel: Channel) -> LogHead {
    LogHead(
        Transcript::new(tags::LOG_HEAD)
            .append("match-id", &match_id.0)
            .append("channel", &[channel.byte()])
            .finish(),
    )
}

/// The order head before the first entry of the match: `H(fogproof/v2/order-head;
/// ("match-id", match_id))`.
pub fn genesis_order(match_id: &MatchId) -> LogHead {
    LogHead(Transcript::new(tags::ORDER_HEAD).append("match-id", &match_id.0).finish())
}

/// The order head after an entry: `H(fogproof/v2/order-head; ("prev", previous order head),
/// ("channel", [channel byte]), ("head", the entry's channel head))`. It chains the channels'
/// heads in the relay's total order and counts nothing: a reader of one channel cannot tell
/// from it how many entries of another channel came between two it received.
pub fn next_order(prev: &LogHead, channel: Channel, head: &LogHead) -> LogHead {
    LogHead(
        Transcript::new(tags::ORDER_HEAD)
            .append("prev", &prev.0)
            .append("channel", &[channel.byte()])
            .append("head", &head.0)
            .finish(),
    )
}

/// A channel's head after its entry at `seq` (its position in the channel):
/// `H(fogproof/v2/log-head; ("prev", previous head of the channel), ("seq", u64_le(seq)),
/// ("time", u64_le(time_ms)), ("message", signed hash))`. Two receipts that carry different
/// heads at the same channel and position, or a head that the channel's entries before it do
/// not produce, prove that the relay kept two histories.
pub fn next_head(prev: &LogHead, seq: u64, time_ms: u64, message: &SignedHash) -> LogHead {
    LogHead(
        Transcript::new(tags::LOG_HEAD)
            .append("prev", &prev.0)
            .append_u64("seq", seq)
            .append_u64("time", time_ms)
            .append("message", &message.0)
            .finish(),
    )
}

/// The relay's statement that it accepted a message at a time and position of its channel.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Receipt {
    /// Always [`codec::VERSION`].
    pub version: u8,
    /// The match.
    pub match_id: MatchId,
    /// The channel of the entry (the message's own).
    pub channel: Channel,
    /// The entry's position in its channel: 0, 1, 2, ... (each channel counts its own).
    pub position: u64,
    /// The relay's time of acceptance, in ms (feeds the clocks only).
    pub time_ms: u64,
    /// The whole signed message accepted (body and signature, [`signed_hash`]).
    pub message: SignedHash,
    /// The channel's head after this entry ([`next_head`]).
    pub head: LogHead,
    /// The match's order head before this entry ([`genesis_order`] for the first): the entry
    /// the relay placed just before this one, by its hash, on whichever channel. This, not the
    /// time, orders the match; [`Receipt::order`] is the order head after it.
    pub after: LogHead,
}

impl Receipt {
    /// The match's order head after this entry: [`next_order`]`(after, channel, head)`.
    pub fn order(&self) -> LogHead {
        next_order(&self.after, self.channel, &self.head)
    }
}

impl Canonical for Receipt {
    const NAME: &'static str = "receipt";
    const MAX_BYTES: usize = 256;

    fn check(&self) -> Result<(), DecodeError> {
        codec::check_version(Self::NAME, self.version)
    }
}

/// A receipt as bytes with the relay's signature.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignedReceipt {
    /// Canonical [`Receipt`] bytes.
    #[serde(with = "serde_bytes")]
    pub receipt: Vec<u8>,
    /// The relay's signature over `signing_input(fogproof/v2/receipt, receipt)`.
    pub signature: Signature,
}

impl Canonical for SignedReceipt {
    const NAME: &'static str = "signed receipt";
    const MAX_BYTES: usize = 512;
}

/// Why a receipt was refused.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum ReceiptError {
    /// Bad bytes.
    #[error(transparent)]
    Decode(#[from] DecodeError),
    /// Not signed by the relay of the terms.
    #[error("receipt signature: {0}")]
    Signature(#[from] SignatureError),
    /// For another match.
    #[error("receipt is for match {found}, not {expected}")]
    WrongMatch {
        /// This match.
        expected: MatchId,
        /// The receipt's match.
        found: MatchId,
    },
    /// For another message (or the same body with another signature).
    #[error("receipt is for signed message {found}, not {expected}")]
    WrongMessage {
        /// The signed message in hand.
        expected: SignedHash,
        /// The receipt's message.
        found: SignedHash,
    },
}

impl SignedReceipt {
    /// Encodes and signs a receipt.
    pub fn sign(receipt: &Receipt, relay: &Identity) -> SignedReceipt {
        let bytes = receipt.to_canonical();
        SignedReceipt { signature: relay.sign(tags::RECEIPT, &bytes), receipt: bytes }
    }

    /// Decodes the receipt strictly and checks the relay's signature (nothing else).
    pub fn open(&self, relay: &PublicKey) -> Result<Receipt, ReceiptError> {
        let receipt = Receipt::from_canonical(&self.receipt)?;
        relay.verify(tags::RECEIPT, &self.receipt, &self.signature)?;
        Ok(receipt)
    }

    /// Checks that this is `relay`'s receipt, in `match_id`, for exactly `message` (body and
    /// signature as received).
    pub fn verify(
        &self,
        relay: &PublicKey,
        match_id: &MatchId,
        message: &SignedMessage,
    ) -> Result<Receipt, ReceiptError> {
        self.verify_signed_hash(relay, match_id, message.signed_hash())
    }

    /// [`SignedReceipt::verify`] for the message whose [`SignedMessage::signed_hash`] is
    /// `expected` (computed once by a caller that needs it too).
    pub fn verify_signed_hash(
        &self,
        relay: &PublicKey,
        match_id: &MatchId,
        expected: SignedHash,
    ) -> Result<Receipt, ReceiptError> {
        let receipt = self.open(relay)?;
        if receipt.match_id != *match_id {
            return Err(ReceiptError::WrongMatch { expected: *match_id, found: receipt.match_id });
        }
        if receipt.message != expected {
            return Err(ReceiptError::WrongMessage { expected, found: receipt.message });
        }
        Ok(receipt)
    }
}

/// Writes an author's messages: numbers them 0, 1, 2, ... on each channel separately and states
/// in each the last entry of the match the author had received. Player and umpire state
/// machines send through one of these. A number is used once, whether the relay accepts the
/// message or refuses it: the next message on the channel takes the next number (the relay
/// allows gaps), so a refusal never blocks what the author writes after it.
/// It keeps one sealing context per private channel it seals on ([`Sealer`]).
#[derive(Clone, Debug)]
pub struct Author {
    identity: Identity,
    match_id: MatchId,
    /// The next number on each channel (by [`Channel::byte`]).
    next_seq: [u64; 3],
    seen: Option<Seen>,
    /// The last position received on each channel (to ignore an entry delivered again).
    received: [Option<u64>; 3],
    sealers: std::collections::BTreeMap<Channel, Sealer>,
}

impl Author {
    /// An author for one match.
    pub fn new(identity: Identity, match_id: MatchId) -> Author {
        Author {
            identity,
            match_id,
            next_seq: [0; 3],
            seen: None,
            received: [None; 3],
            sealers: std::collections::BTreeMap::new(),
        }
    }

    /// The author's key.
    pub fn key(&self) -> PublicKey {
        self.identity.public()
    }

    /// Records that the author has received the entry with this receipt (entries arrive in the
    /// relay's order; one at or before a position of its channel already received changes
    /// nothing).
    pub fn saw(&mut self, receipt: &Receipt) {
        self.saw_at(receipt, receipt.order());
    }

    /// [`Author::saw`] with the receipt's order head already computed (`receipt.order()`): a
    /// machine that also indexes entries by it hashes it once.
    pub fn saw_at(&mut self, receipt: &Receipt, order: LogHead) {
        debug_assert_eq!(order, receipt.order());
        let last = &mut self.received[usize::from(receipt.channel.byte())];
        if last.is_none_or(|p| p < receipt.position) {
            *last = Some(receipt.position);
            self.seen = Some(Seen { order });
        }
    }

    /// The last entry the author has received.
    pub fn seen(&self) -> Option<Seen> {
        self.seen
    }

    /// The body of the next message (not yet counted as sent).
    pub fn next_body(
        &self,
        channel: Channel,
        re: Option<MessageHash>,
        payload: Payload,
    ) -> MessageBody {
        MessageBody {
            version: codec::VERSION,
            match_id: self.match_id,
            channel,
            author: self.key(),
            seq: self.next_seq[usize::from(channel.byte())],
            seen: self.seen,
            re,
            payload,
        }
    }

    /// Signs and counts the next message.
    pub fn write(
        &mut self,
        channel: Channel,
        re: Option<MessageHash>,
        payload: Payload,
    ) -> SignedMessage {
        let message = SignedMessage::sign(&self.next_body(channel, re, payload), &self.identity);
        self.next_seq[usize::from(channel.byte())] += 1;
        message
    }

    /// Seals `inner` to `recipient`, padded to `padded_len` bytes
    /// ([`crate::game::sealed_plaintext_bytes`] of the variant and direction), and writes it on
    /// a private `channel`. The author's first sealed message on `channel` sets its sealing
    /// context up from `seal_seed` (fresh random bytes) and carries the setup; later ones are
    /// sealed in that context (their `seal_seed` is not used) and carry none. Returns the
    /// message and the channel's disclosure (the same for every message of the channel), which
    /// lets a record show what they said. Nothing is written (and no sequence number used) if
    /// `inner` does not fit, or `recipient` is not the channel's.
    pub fn write_sealed(
        &mut self,
        channel: Channel,
        re: Option<MessageHash>,
        inner: &Payload,
        recipient: &SealPublicKey,
        seal_seed: &[u8; 32],
        padded_len: usize,
    ) -> Result<(SignedMessage, seal::SealDisclosure), SealError> {
        if matches!(inner, Payload::Sealed(_)) {
            return Err(SealError::Nested);
        }
        let context = SealContext {
            match_id: self.match_id,
            channel,
            author: self.key(),
            seq: self.next_seq[usize::from(channel.byte())],
        };
        let plaintext = inner.to_canonical();
        let (mut sealer, first) = match self.sealers.get(&channel) {
            Some(s) if s.recipient() != *recipient => {
                return Err(SealError::OtherRecipient { channel });
            }
            Some(s) => (s.clone(), false),
            None => (Sealer::new(recipient, &context, seal_seed)?, true),
        };
        let sealed = sealer.seal(&context, &plaintext, padded_len, first)?;
        let disclosure = sealer.disclosure();
        self.sealers.insert(channel, sealer);
        let message = self.write(channel, re, Payload::Sealed(sealed));
        Ok((message, disclosure))
    }
}

/// The HPKE context of a verified message body (for opening or checking its sealed payload).
pub fn seal_context(body: &MessageBody) -> SealContext {
    SealContext {
        match_id: body.match_id,
        channel: body.channel,
        author: body.author,
        seq: body.seq,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn author() -> Author {
        Author::new(Identity::from_seed(&[1; 32]), MatchId([7; 32]))
    }

    #[test]
    fn signed_message_verifies_and_states_what_its_author_saw() {
        let mut a = author();
        let m0 = a.write(Channel::Public, None, Payload::Action(b"e2e4".to_vec()));
        let id = MatchId([7; 32]);
        let head = next_head(&genesis_head(&id, Channel::Public), 0, 5, &m0.signed_hash());
        let r = Receipt {
            version: codec::VERSION,
            match_id: id,
            channel: Channel::Public,
            position: 0,
            time_ms: 5,
            message: m0.signed_hash(),
            head,
            after: genesis_order(&id),
        };
        a.saw(&r);
        let order = next_order(&genesis_order(&id), Channel::Public, &head);
        assert_eq!(r.order(), order);
        let m1 = a.write(Channel::WhiteUmpire, Some(m0.hash()), Payload::Action(b"e7e5".to_vec()));
        let m2 = a.write(Channel::Public, None, Payload::Action(b"d2d4".to_vec()));
        let b0 = m0.verify_for(&id).unwrap();
        let b1 = m1.verify().unwrap();
        let b2 = m2.verify().unwrap();
        assert_eq!((b0.seq, b0.seen, b0.re), (0, None, None));
        // Numbers count per channel: the first on the private channel is 0 again.
        assert_eq!((b1.seq, b1.seen, b1.re), (0, Some(Seen { order }), Some(m0.hash())));
        assert_eq!((b2.seq, b2.seen), (1, Some(Seen { order })));
        // The same entry delivered again changes nothing; nor does an older one.
        a.saw(&r);
        assert_eq!(a.seen(), Some(Seen { order }));
    }

    #[test]
    fn claim_reasons_travel_as_their_names_and_unknown_names_do_not_decode() {
        for reason in rules::EndReason::ALL
            .into_iter()
            .map(ClaimReason::Game)
            .chain([ClaimReason::BadTerms, ClaimReason::UmpireTimeout])
        {
            let claim = Claim { outcome: Outcome::Draw, reason };
            // The wire form is the outcome, then the name as a postcard string.
            let mut expected = postcard::to_allocvec(&Outcome::Draw).unwrap();
            expected.extend(postcard::to_allocvec(reason.name()).unwrap());
            assert_eq!(postcard::to_allocvec(&claim).unwrap(), expected, "{reason}");
            assert_eq!(postcard::from_bytes::<Claim>(&expected).unwrap(), claim);
        }
        let mut a = author();
        let good = a.write(
            Channel::Public,
            None,
            Payload::Claim(Claim {
                outcome: Outcome::WhiteWins,
                reason: rules::EndReason::Resignation.into(),
            }),
        );
        // The same message with the reason respelled (same length, re-signed): refused.
        let name = b"resignation";
        let at = good.body.windows(name.len()).position(|w| w == name).unwrap();
        let mut body = good.body.clone();
        body[at..at + name.len()].copy_from_slice(b"resignatioN");
        let bad = SignedMessage {
            signature: Identity::from_seed(&[1; 32]).sign(tags::MESSAGE, &body),
            body,
        };
        let e = bad.verify().unwrap_err();
        assert!(matches!(e, MessageError::Decode(DecodeError::Malformed { .. })), "{e}");
    }

    #[test]
    fn forged_message_is_refused() {
        let mut m = author().write(Channel::Public, None, Payload::Action(b"e2e4".to_vec()));
        let last = m.body.len() - 1;
        m.body[last] ^= 1; // change the action: the signature no longer covers it
        assert!(matches!(m.verify(), Err(MessageError::Signature(_))));
    }

    #[test]
    fn message_signed_under_the_receipt_tag_is_refused() {
        let id = Identity::from_seed(&[1; 32]);
        let body = author().next_body(Channel::Public, None, Payload::Action(vec![1]));
        let bytes = body.to_canonical();
        let m = SignedMessage { signature: id.sign(tags::RECEIPT, &bytes), body: bytes };
        assert!(matches!(m.verify(), Err(MessageError::Signature(SignatureError::Invalid { .. }))));
    }

    #[test]
    fn message_from_another_match_is_refused() {
        let m = author().write(Channel::Public, None, Payload::Action(vec![1]));
        assert_eq!(
            m.verify_for(&MatchId([8; 32])),
            Err(MessageError::WrongMatch { expected: MatchId([8; 32]), found: MatchId([7; 32]) })
        );
    }

    #[test]
    fn receipts_are_checked() {
        let relay = Identity::from_seed(&[2; 32]);
        let m = author().write(Channel::Public, None, Payload::Action(vec![1]));
        let other = author().write(Channel::Public, None, Payload::Action(vec![2]));
        let id = MatchId([7; 32]);
        let r = Receipt {
            version: codec::VERSION,
            match_id: id,
            channel: Channel::Public,
            position: 0,
            time_ms: 5,
            message: m.signed_hash(),
            head: next_head(&genesis_head(&id, Channel::Public), 0, 5, &m.signed_hash()),
            after: genesis_order(&id),
        };
        let signed = SignedReceipt::sign(&r, &relay);
        assert_eq!(signed.verify(&relay.public(), &id, &m), Ok(r.clone()));
        let impostor = Identity::from_seed(&[3; 32]).public();
        assert!(matches!(signed.verify(&impostor, &id, &m), Err(ReceiptError::Signature(_))));
        assert!(matches!(
            signed.verify(&relay.public(), &id, &other),
            Err(ReceiptError::WrongMessage { .. })
        ));
        // The same body with one signature bit flipped is another signed message: the receipt
        // no longer covers it (PROTOCOL.md: receipts cover the whole signed message).
        let mut flipped = m.clone();
        flipped.signature.s[0] ^= 1;
        assert!(matches!(
            signed.verify(&relay.public(), &id, &flipped),
            Err(ReceiptError::WrongMessage { .. })
        ));
        assert!(matches!(
            signed.verify(&relay.public(), &MatchId([0; 32]), &m),
            Err(ReceiptError::WrongMatch { .. })
        ));
    }

    #[test]
    fn sealed_write_opens_for_the_recipient_and_discloses() {
        let umpire = seal::SealSecret::for_match(&Identity::from_seed(&[3; 32]), &[0; 32]);
        let mut a = author();
        let mut inbox = seal::Inbox::new(umpire.clone());
        let mut disclosures = Vec::new();
        let mut bodies = Vec::new();
        for (i, inner) in [b"e2e4", b"d2d4"].map(|m| Payload::Action(m.to_vec())).iter().enumerate()
        {
            // The second seed is not used: the channel's context is set up already.
            let seed = [4 + i as u8; 32];
            let (m, d) = a
                .write_sealed(Channel::WhiteUmpire, None, inner, &umpire.public(), &seed, 32)
                .unwrap();
            let body = m.verify().unwrap();
            let Payload::Sealed(sealed) = &body.payload else { panic!("not sealed: {body:?}") };
            assert_eq!(sealed.setup.is_some(), i == 0, "only the first carries the setup");
            let plain = inbox.open(&seal_context(&body), sealed, 32).unwrap();
            assert_eq!(Payload::from_canonical(&plain).as_ref(), Ok(inner));
            disclosures.push(d);
            bodies.push(body);
        }
        assert_eq!(disclosures[0], disclosures[1], "one disclosure for the channel");
        assert_eq!(
            (disclosures[0].channel, disclosures[0].seal_seed),
            (Channel::WhiteUmpire, [4; 32])
        );
        let Payload::Sealed(first) = &bodies[0].payload else { unreachable!() };
        // The disclosed key is the one the setup commits to, and opens every message.
        let by_key = seal::check_disclosed_key(
            Channel::WhiteUmpire,
            &first.setup.unwrap(),
            &disclosures[0].key,
        )
        .unwrap();
        for body in &bodies {
            let Payload::Sealed(sealed) = &body.payload else { unreachable!() };
            assert!(by_key.open(&seal_context(body), sealed, 32).is_ok());
        }
        let key = seal::check_disclosure(
            &umpire.public(),
            &seal_context(&bodies[0]),
            &first.setup.unwrap(),
            &[4; 32],
        )
        .unwrap();
        for body in &bodies {
            let Payload::Sealed(sealed) = &body.payload else { unreachable!() };
            assert!(key.open(&seal_context(body), sealed, 32).is_ok());
        }
        // A second recipient on the same channel is refused, and nothing is written.
        let other = seal::SealSecret::for_match(&Identity::from_seed(&[4; 32]), &[0; 32]);
        let inner = Payload::Action(b"e7e5".to_vec());
        assert_eq!(
            a.write_sealed(Channel::WhiteUmpire, None, &inner, &other.public(), &[9; 32], 32)
                .map(|_| ()),
            Err(SealError::OtherRecipient { channel: Channel::WhiteUmpire })
        );
        // Numbers count per channel: nothing was written on the public channel yet.
        assert_eq!(a.write(Channel::Public, None, Payload::Start).verify().unwrap().seq, 0);
    }

    #[test]
    fn a_payload_too_long_to_seal_writes_nothing() {
        let umpire = seal::SealSecret::for_match(&Identity::from_seed(&[3; 32]), &[0; 32]);
        let mut a = author();
        let inner = Payload::Action(vec![0; 30]);
        let r = a.write_sealed(Channel::WhiteUmpire, None, &inner, &umpire.public(), &[4; 32], 32);
        assert!(
            matches!(r, Err(SealError::Padding { seq: 0, .. })),
            "32 bytes of payload do not fit 32 padded bytes: {r:?}"
        );
        let next = a.write(Channel::WhiteUmpire, None, Payload::Start).verify().unwrap();
        assert_eq!(next.seq, 0, "the refused message used no sequence number");
    }
}

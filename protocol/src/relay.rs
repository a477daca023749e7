//! The relay's state machine, sans-IO: bytes and the time in ms go in, receipts, timeout
//! notices and typed refusals come out. No sockets, no clock (as quinn-proto): the same machine
//! runs in the server and in tests, and its two rule books, [`Sequence`] and
//! [`Coordinator`], run in the verifier over a record.
//!
//! For each message the relay checks, in this order: the strict encoding, the author's signature,
//! the match id, the author's sequence number and what it says it had seen ([`Sequence`]), then
//! who may say what, on which channel, in which phase ([`Coordinator::admit`]), and the terms'
//! message limit. Then it appends the message and signs a receipt `(match, channel, position,
//! time_ms, signed message hash, channel head, order head before)`: each channel has its own
//! positions and hash chain, and the order head chains the channels' heads in the relay's total
//! order without counting them, so no receipt tells a reader of one channel how many entries
//! another has (PROTOCOL.md 11).
//!
//! The relay writes two notices of its own on the public channel: `Start` when it is created
//! (its receipt time starts the clocks), and a `Timeout` for each deadline the coordinator says
//! was missed, before it accepts anything later. Time only moves forward: an earlier `now_ms`
//! than already seen counts as the latest.

use crate::codec::{self, Canonical};
use crate::coordinator::{Admission, Coordinator, Deadline, NotEntitled};
use crate::keys::{ByColor, Identity, PublicKey};
use crate::message::{
    Expectation, MessageBody, MessageError, Payload, Receipt, Seen, SignedMessage, SignedReceipt,
    genesis_head, genesis_order, next_head, next_order,
};
use crate::tags;
use crate::terms::AgreedTerms;
use crate::{Channel, Color, LogHead, MatchId, MessageHash, Party};
use std::collections::{BTreeMap, VecDeque};
use thiserror::Error;

/// A record's entry, defined with the record (`relay` writes them, `record` reads them; the
/// path `relay::Entry` stays).
pub use crate::record::Entry;

/// Why an author's numbering or its `seen` does not fit the relay's log.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum ChainError {
    /// A number this author already used on this channel (a replay, or two messages it signed
    /// with one number).
    #[error("seq {seq} on {channel} is already used by this author: a replay")]
    Replayed {
        /// The message's channel.
        channel: Channel,
        /// The message's seq.
        seq: u64,
    },
    /// A number below one this author already used on this channel, not used itself: its
    /// messages out of the order it signed them in (an honest relay never accepts it).
    #[error("seq {seq} on {channel} comes after the author's seq {last}: reordered")]
    OutOfOrder {
        /// The message's channel.
        channel: Channel,
        /// The message's seq.
        seq: u64,
        /// The author's highest seq on the channel so far.
        last: u64,
    },
    /// `seen` names an order head the relay's log does not have (a history other than the
    /// relay's, or one it has not reached).
    #[error("seen names order head {seen}, which the log does not have")]
    SeenUnknown {
        /// The order head named.
        seen: LogHead,
    },
    /// `seen` names an entry its author could not have received (another side's channel).
    #[error("seen names entry {seen} of the log, on a channel its author does not read")]
    SeenInvisible {
        /// The entry's index in the log.
        seen: u64,
    },
    /// `seen` goes back from the author's previous message.
    #[error("seen goes back from entry {before} of the log to {after:?}")]
    SeenBackwards {
        /// The entry the author's previous `seen` named.
        before: u64,
        /// This message's.
        after: Option<u64>,
    },
}

/// The relay's log as its rule book needs it: each channel's head and length, the order head,
/// which entry each order head ends (so a `seen` maps to a position only the relay and a
/// verifier know), each author's numbers on each channel and its last `seen`. The relay refuses
/// what [`Sequence::check`] refuses; the verifier runs the same check over a record to find what
/// a relay accepted but should not have.
#[derive(Clone, Debug)]
pub struct Sequence {
    /// Each entry's channel, in the relay's order.
    channels: Vec<Channel>,
    /// Entry index by the order head after it.
    index: BTreeMap<LogHead, u64>,
    /// Each channel's head (genesis before its first entry) and length, by [`Channel::byte`].
    heads: [LogHead; 3],
    lengths: [u64; 3],
    order: LogHead,
    /// Numbers used, by author and channel, in increasing order ([`Sequence::check`] lets only
    /// a number above the last through, so placing one is a push, not a tree insert).
    numbers: BTreeMap<(PublicKey, Channel), Vec<u64>>,
    /// Each author's last `seen`, as an entry index.
    seen: BTreeMap<PublicKey, u64>,
}

/// Where [`Sequence::push`] placed an entry: what its receipt says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placed {
    /// Its position in its channel.
    pub position: u64,
    /// The channel's head after it.
    pub head: LogHead,
    /// The order head before it.
    pub after: LogHead,
    /// The order head after it.
    pub order: LogHead,
}

impl Sequence {
    /// An empty sequence for `match_id`.
    pub fn new(match_id: &MatchId) -> Sequence {
        Sequence {
            channels: Vec::new(),
            index: BTreeMap::new(),
            heads: Channel::ALL.map(|c| genesis_head(match_id, c)),
            lengths: [0; 3],
            order: genesis_order(match_id),
            numbers: BTreeMap::new(),
            seen: BTreeMap::new(),
        }
    }

    /// Entries so far, all channels together (known to the relay and a verifier only).
    pub fn len(&self) -> u64 {
        self.channels.len() as u64
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.channels.is_empty()
    }

    /// The order head after the last entry (the genesis order head before any).
    pub fn head(&self) -> LogHead {
        self.order
    }

    /// `channel`'s head after its last entry (its genesis head before any).
    pub fn channel_head(&self, channel: Channel) -> LogHead {
        self.heads[usize::from(channel.byte())]
    }

    /// The number of `channel`'s entries so far.
    pub fn channel_len(&self, channel: Channel) -> u64 {
        self.lengths[usize::from(channel.byte())]
    }

    /// The author's next number on `channel` (one past the highest it used).
    pub fn next_seq(&self, author: &PublicKey, channel: Channel) -> u64 {
        self.numbers
            .get(&(*author, channel))
            .and_then(|n| n.last())
            .map_or(0, |n| n.saturating_add(1))
    }

    /// The index in the log of the entry whose order head is `order`, if the log has it.
    pub fn position_of(&self, order: &LogHead) -> Option<u64> {
        self.index.get(order).copied()
    }

    /// Checks `body`'s numbering and `seen`; `reads(channel)` says whether its author reads
    /// that channel. Returns the index in the log of the entry it had seen (what the
    /// coordinator's race rule reads).
    pub fn check(
        &self,
        body: &MessageBody,
        reads: impl Fn(Channel) -> bool,
    ) -> Result<Option<u64>, ChainError> {
        let channel = body.channel;
        if let Some(used) = self.numbers.get(&(body.author, channel)) {
            if used.binary_search(&body.seq).is_ok() {
                return Err(ChainError::Replayed { channel, seq: body.seq });
            }
            if let Some(&last) = used.last()
                && body.seq < last
            {
                return Err(ChainError::OutOfOrder { channel, seq: body.seq, last });
            }
        }
        let seen = match body.seen {
            None => None,
            Some(Seen { order }) => {
                let i = self.position_of(&order).ok_or(ChainError::SeenUnknown { seen: order })?;
                let at = usize::try_from(i).unwrap_or(usize::MAX);
                if !self.channels.get(at).is_some_and(|c| reads(*c)) {
                    return Err(ChainError::SeenInvisible { seen: i });
                }
                Some(i)
            }
        };
        if let Some(&before) = self.seen.get(&body.author)
            && seen.is_none_or(|s| s < before)
        {
            return Err(ChainError::SeenBackwards { before, after: seen });
        }
        Ok(seen)
    }

    /// Appends an entry at `time_ms` (checked by [`Sequence::check`]) and returns where.
    pub fn push(&mut self, body: &MessageBody, signed: &crate::SignedHash, time_ms: u64) -> Placed {
        let c = usize::from(body.channel.byte());
        let head = next_head(&self.heads[c], self.lengths[c], time_ms, signed);
        let order = next_order(&self.order, body.channel, &head);
        self.place(body, head, order)
    }

    /// [`Sequence::push`] of an entry whose channel head and order head after it are already
    /// known to be the ones `push` computes: the verifier has checked a record's receipts
    /// against the hash chains (`verifier::envelope::order`) and hands them over instead of
    /// hashing every entry twice. The same state as `push` (debug builds recompute and compare).
    pub fn push_known(
        &mut self,
        body: &MessageBody,
        signed: &crate::SignedHash,
        time_ms: u64,
        (head, order): (LogHead, LogHead),
    ) -> Placed {
        let c = usize::from(body.channel.byte());
        debug_assert_eq!(head, next_head(&self.heads[c], self.lengths[c], time_ms, signed));
        debug_assert_eq!(order, next_order(&self.order, body.channel, &head));
        self.place(body, head, order)
    }

    fn place(&mut self, body: &MessageBody, head: LogHead, order: LogHead) -> Placed {
        let c = usize::from(body.channel.byte());
        let position = self.lengths[c];
        let after = self.order;
        self.heads[c] = head;
        self.lengths[c] += 1;
        self.order = order;
        self.index.insert(order, self.len());
        self.channels.push(body.channel);
        let used = self.numbers.entry((body.author, body.channel)).or_default();
        // Checked entries come in increasing order: a push. An unchecked one keeps the order.
        match used.last() {
            Some(&last) if body.seq <= last => {
                if let Err(at) = used.binary_search(&body.seq) {
                    used.insert(at, body.seq);
                }
            }
            _ => used.push(body.seq),
        }
        if let Some(i) = body.seen.and_then(|s| self.position_of(&s.order)) {
            self.seen.insert(body.author, i);
        }
        Placed { position, head, after, order }
    }
}

/// Whether the party with `key` reads `channel` under `colors` (the umpire reads all; a player
/// the public channel and its own).
pub fn reads(
    terms: &AgreedTerms,
    colors: &ByColor<PublicKey>,
    key: &PublicKey,
    channel: Channel,
) -> bool {
    if terms.terms.umpire.as_ref().is_some_and(|u| u.key == *key) || *key == terms.terms.relay {
        return true;
    }
    match channel.side() {
        None => true,
        Some(side) => colors[side] == *key,
    }
}

/// Why the relay refused a message. Nothing changes in the relay's state on a refusal.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum RelayError {
    /// Bad encoding, bad signature or another match.
    #[error(transparent)]
    Message(#[from] MessageError),
    /// The author's numbering or `seen` does not fit the sequence.
    #[error(transparent)]
    Chain(#[from] ChainError),
    /// Outside what the author may say now (docs/PROTOCOL.md, who may say what).
    #[error(transparent)]
    NotEntitled(#[from] NotEntitled),
    /// The author has sent as many messages as the terms allow.
    #[error("{author} has sent the {max} messages the terms allow")]
    TooManyMessages {
        /// The author.
        author: PublicKey,
        /// The terms' `max_messages_per_side`.
        max: u32,
    },
    /// The author's messages would take more than its share of the terms' `max_record_bytes`.
    #[error(transparent)]
    RecordFull(#[from] crate::record::OverBudget),
    /// The terms break a rule every party checks ([`crate::terms::MatchTerms::validate`]).
    #[error("terms: {0}")]
    Terms(crate::terms::TermsError),
    /// The relay was started with a key other than the terms' relay key.
    #[error("{key} is not this match's relay (the terms name {relay})")]
    NotTheRelay {
        /// The key given.
        key: PublicKey,
        /// The terms' relay key.
        relay: PublicKey,
    },
}

/// A signed message and its body, each decoded strictly once.
fn decode_message(bytes: &[u8]) -> Result<(SignedMessage, MessageBody), codec::DecodeError> {
    let message = SignedMessage::from_canonical(bytes)?;
    let body = MessageBody::from_canonical(&message.body)?;
    Ok((message, body))
}

/// Why [`Relay::accept_by`] took no message.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum SenderError {
    /// The message is by `author`, not by the sender: nobody writes for another seat.
    #[error("this message is by {author}, not by the key that sent it")]
    Impostor {
        /// The message's author.
        author: PublicKey,
    },
    /// The relay refused it.
    #[error(transparent)]
    Refused(#[from] RelayError),
}

/// Something the relay reports besides receipts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RelayEvent {
    /// Colors are known (at once for fixed colors, after both public reveals for drawn ones).
    Colors(ByColor<PublicKey>),
    /// A party missed a deadline; `notice` is the relay's signed public timeout message.
    TimedOut {
        /// The party.
        party: Party,
        /// What it failed to send.
        expectation: Expectation,
        /// The deadline missed.
        deadline_ms: u64,
        /// The notice and its receipt (already appended to the log).
        notice: Entry,
    },
    /// The match is complete; `notice` is the relay's signed `Close` (already appended), for
    /// every party to countersign.
    Closed {
        /// The notice and its receipt.
        notice: Entry,
    },
}

/// What [`Relay::accept`] returns: the receipt to hand back and the position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Accepted {
    /// The message and its receipt.
    pub entry: Entry,
    /// Its index in the log ([`Relay::entries`]).
    pub index: usize,
    /// The decoded body.
    pub body: MessageBody,
    /// Its hash.
    pub hash: MessageHash,
    /// Whether it counts or is a void race (recorded, ignored).
    pub admission: Admission,
}

/// Why [`Relay::resume`] could not rebuild a relay from stored entries.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum ResumeError {
    /// The relay could not start at all.
    #[error(transparent)]
    Start(#[from] RelayError),
    /// A stored message the relay's rules refuse now: the store does not hold what was accepted.
    #[error("stored entry {index} is refused on replay: {source}")]
    Refused {
        /// Its position.
        index: usize,
        /// Why.
        source: RelayError,
    },
    /// A stored receipt other than the one the relay signs for that entry.
    #[error("stored entry {index}'s receipt is not the one this relay issues for it")]
    Receipt {
        /// Its position.
        index: usize,
    },
}

/// The relay of one match.
#[derive(Debug)]
pub struct Relay {
    identity: Identity,
    terms: AgreedTerms,
    sequence: Sequence,
    coordinator: Coordinator,
    colors_told: bool,
    /// Messages accepted per player (by `players` index).
    sent: [u32; 2],
    /// Each party's share of the record and what it has used.
    budget: crate::record::RecordBudget,
    now_ms: u64,
    /// The driver's wall clock ([`Relay::set_wall_ms`]), for the `Close` notice's `wall_ms`;
    /// `None`: relay time is wall time (the driver never set it).
    wall_ms: Option<u64>,
    entries: Vec<Entry>,
    events: VecDeque<RelayEvent>,
    /// Replaying stored entries ([`Relay::resume`]): the relay's own notices come from the
    /// store, none are written anew.
    resuming: bool,
}

impl Relay {
    /// A relay for agreed terms, started at `now_ms`: it writes its `Start` notice at once.
    /// `identity` must be the terms' relay key.
    pub fn new(identity: Identity, terms: AgreedTerms, now_ms: u64) -> Result<Relay, RelayError> {
        let mut relay = Relay::empty(identity, terms)?;
        relay.write_own(Payload::Start, now_ms);
        Ok(relay)
    }

    fn empty(identity: Identity, terms: AgreedTerms) -> Result<Relay, RelayError> {
        if identity.public() != terms.terms.relay {
            return Err(RelayError::NotTheRelay {
                key: identity.public(),
                relay: terms.terms.relay,
            });
        }
        // The one terms gate every party calls: terms a verifier would call bad never run.
        terms.terms.validate().map_err(RelayError::Terms)?;
        let budget = crate::record::RecordBudget::new(&terms);
        Ok(Relay {
            identity,
            sequence: Sequence::new(&terms.match_id),
            coordinator: Coordinator::new(terms.clone()),
            terms,
            colors_told: false,
            sent: [0; 2],
            budget,
            now_ms: 0,
            wall_ms: None,
            entries: Vec::new(),
            events: VecDeque::new(),
            resuming: false,
        })
    }

    /// The match id.
    pub fn match_id(&self) -> MatchId {
        self.terms.match_id
    }

    /// The colors, once known.
    pub fn colors(&self) -> Option<ByColor<PublicKey>> {
        self.coordinator.colors()
    }

    /// The coordinator (phases, clocks, deadlines) as the relay runs it.
    pub fn coordinator(&self) -> &Coordinator {
        &self.coordinator
    }

    /// Every accepted message with its receipt, in the relay's sequence.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The order head after the last entry: the match's head, chaining every channel.
    pub fn head(&self) -> LogHead {
        self.sequence.head()
    }

    /// Rebuilds a relay from the entries it accepted before (a server restarting after a
    /// crash): each stored entry goes through the same rules at its receipt's time, the relay's
    /// own notices are re-issued at theirs, and every receipt must come out byte for byte as
    /// stored (ed25519 signatures are deterministic). The clocks resume as the entries leave
    /// them; how time while the relay was down is charged is the driver's choice (it passes the
    /// time it resumes at to [`Relay::handle_timeout`] or [`Relay::accept`]).
    pub fn resume(
        identity: Identity,
        terms: AgreedTerms,
        entries: &[Entry],
    ) -> Result<Relay, ResumeError> {
        let mut relay = Relay::empty(identity, terms)?;
        relay.resuming = true;
        for (index, stored) in entries.iter().enumerate() {
            let receipt = stored
                .receipt
                .open(&relay.terms.terms.relay)
                .map_err(|_| ResumeError::Receipt { index })?;
            let refused = |e: MessageError| ResumeError::Refused { index, source: e.into() };
            let author = MessageBody::from_canonical(&stored.message.body)
                .map_err(|e| refused(e.into()))?
                .author;
            // Each stored message's signature is checked once: the relay's own notices here,
            // every other message by `accept`.
            let entry = if author == relay.identity.public() {
                let body = stored.message.verify_for(&relay.terms.match_id).map_err(refused)?;
                relay.now_ms = relay.now_ms.max(receipt.time_ms);
                let hash = stored.message.hash();
                relay.append(stored.message.clone(), &body, hash, Admission::Counts)
            } else {
                relay
                    .accept(&stored.message.to_canonical(), receipt.time_ms)
                    .map_err(|source| ResumeError::Refused { index, source })?
                    .entry
            };
            if entry != *stored {
                return Err(ResumeError::Receipt { index });
            }
        }
        relay.events.clear();
        relay.resuming = false;
        relay.maybe_close();
        Ok(relay)
    }

    /// A side's remaining clock time (as of its last completed move).
    pub fn remaining_ms(&self, side: Color) -> u64 {
        self.coordinator.remaining_ms(side)
    }

    /// Whether a party has timed out.
    pub fn has_timed_out(&self, party: Party) -> bool {
        self.coordinator.has_timed_out(party)
    }

    /// Tells the relay the wall-clock time (ms since the Unix epoch) before a call to
    /// [`Relay::accept`] or [`Relay::handle_timeout`]. Relay time (receipts, clocks) is the
    /// driver's match time, which may stand still while the server is down; the `Close`
    /// notice carries this wall time (`Close { wall_ms }`), the ledger's close time. A driver
    /// that never sets it runs relay time as wall time, and `Close` carries relay time.
    pub fn set_wall_ms(&mut self, wall_ms: u64) {
        self.wall_ms = Some(wall_ms);
    }

    /// The next event, if any.
    pub fn poll_event(&mut self) -> Option<RelayEvent> {
        self.events.pop_front()
    }

    /// The earliest pending deadline: call [`Relay::handle_timeout`] after it.
    pub fn poll_timeout(&self) -> Option<u64> {
        self.coordinator.poll_timeout()
    }

    /// Writes a `Timeout` notice for every deadline missed by `now_ms`, earliest first.
    pub fn handle_timeout(&mut self, now_ms: u64) {
        let now = self.tick(now_ms);
        // One at a time: a timeout can end the game and so end other waits.
        while let Some(Deadline { party, expectation, due_ms }) =
            self.coordinator.overdue(now).first().copied()
        {
            let payload = Payload::Timeout { party, expectation, deadline_ms: due_ms };
            let notice = self.write_own(payload, now);
            self.events.push_back(RelayEvent::TimedOut {
                party,
                expectation,
                deadline_ms: due_ms,
                notice,
            });
        }
        self.maybe_close();
    }

    /// Writes the `Close` notice once the match is complete (over, nothing owed).
    fn maybe_close(&mut self) {
        if !self.resuming && self.coordinator.ready_to_close() {
            let now = self.now_ms;
            let wall_ms = self.wall_ms.unwrap_or(now);
            let notice = self.write_own(Payload::Close { wall_ms }, now);
            self.events.push_back(RelayEvent::Closed { notice });
        }
    }

    /// Accepts one message (its bytes as received) at `now_ms`, or says why not. Deadlines
    /// before `now_ms` expire first, so a late move is refused.
    pub fn accept(&mut self, bytes: &[u8], now_ms: u64) -> Result<Accepted, RelayError> {
        self.accept_decoded(decode_message(bytes), now_ms)
    }

    /// [`Relay::accept`] for a message that came from the socket of `sender` (the key signed
    /// in on it): a message by any other author is refused before the relay does anything
    /// with it (its signature is not checked, no deadline expires), so nobody writes for
    /// another seat, even with a signature the relay would accept. The bytes are decoded
    /// once for both checks (a server comparing the author itself decodes them twice).
    pub fn accept_by(
        &mut self,
        sender: &PublicKey,
        bytes: &[u8],
        now_ms: u64,
    ) -> Result<Accepted, SenderError> {
        let decoded = decode_message(bytes);
        if let Ok((_, body)) = &decoded
            && body.author != *sender
        {
            return Err(SenderError::Impostor { author: body.author });
        }
        Ok(self.accept_decoded(decoded, now_ms)?)
    }

    fn accept_decoded(
        &mut self,
        decoded: Result<(SignedMessage, MessageBody), codec::DecodeError>,
        now_ms: u64,
    ) -> Result<Accepted, RelayError> {
        // Decoding is pure: the deadlines expire before a malformed message is refused, as
        // when it was decoded after them.
        self.handle_timeout(now_ms);
        let (message, body) = decoded.map_err(MessageError::from)?;
        // `SignedMessage::verify_for` without decoding the body a second time: the author's
        // signature over the bytes as received, and this match.
        body.author
            .verify(tags::MESSAGE, &message.body, &message.signature)
            .map_err(MessageError::from)?;
        if body.match_id != self.terms.match_id {
            return Err(MessageError::WrongMatch {
                expected: self.terms.match_id,
                found: body.match_id,
            }
            .into());
        }
        let colors = self.coordinator.colors().unwrap_or(ByColor {
            white: self.terms.terms.players[0].key,
            black: self.terms.terms.players[1].key,
        });
        let seen = self.sequence.check(&body, |c| reads(&self.terms, &colors, &body.author, c))?;
        let admission = self.coordinator.admit(&body, seen, &self.terms.terms.relay)?;
        let player = self.terms.terms.players.iter().position(|p| p.key == body.author);
        let max = self.terms.terms.limits.max_messages_per_side;
        if let Some(i) = player
            && self.sent[i] >= max
        {
            return Err(RelayError::TooManyMessages { author: body.author, max });
        }
        // Hashed once: the budget, the coordinator and the caller take the same hash.
        let hash = message.hash();
        // The last check: it charges the author's share when the message fits.
        self.budget.charge_message(&body, hash, message.encoded_len())?;
        if let Some(i) = player {
            self.sent[i] += 1;
        }
        let index = self.entries.len();
        let entry = self.append(message, &body, hash, admission);
        self.maybe_close();
        Ok(Accepted { entry, index, body, hash, admission })
    }

    fn tick(&mut self, now_ms: u64) -> u64 {
        self.now_ms = self.now_ms.max(now_ms);
        self.now_ms
    }

    fn append(
        &mut self,
        message: SignedMessage,
        body: &MessageBody,
        hash: MessageHash,
        admission: Admission,
    ) -> Entry {
        let now = self.now_ms;
        let signed = message.signed_hash();
        let placed = self.sequence.push(body, &signed, now);
        self.coordinator.apply(body, hash, admission, now);
        if !self.colors_told
            && let Some(c) = self.coordinator.colors()
        {
            self.colors_told = true;
            self.events.push_back(RelayEvent::Colors(c));
        }
        let receipt = Receipt {
            version: codec::VERSION,
            match_id: self.terms.match_id,
            channel: body.channel,
            position: placed.position,
            time_ms: now,
            message: signed,
            head: placed.head,
            after: placed.after,
        };
        let entry = Entry { message, receipt: SignedReceipt::sign(&receipt, &self.identity) };
        self.entries.push(entry.clone());
        entry
    }

    /// Writes and appends a relay-authored notice on the public channel.
    fn write_own(&mut self, payload: Payload, now_ms: u64) -> Entry {
        self.tick(now_ms);
        let me = self.identity.public();
        let body = MessageBody {
            version: codec::VERSION,
            match_id: self.terms.match_id,
            channel: Channel::Public,
            author: me,
            seq: self.sequence.next_seq(&me, Channel::Public),
            seen: (!self.sequence.is_empty()).then(|| Seen { order: self.sequence.head() }),
            re: None,
            payload,
        };
        let message = SignedMessage::sign(&body, &self.identity);
        let hash = message.hash();
        self.append(message, &body, hash, Admission::Counts)
    }
}

//! The relay's state machine, sans-IO: bytes and the time in ms go in, receipts, timeout
//! notices and typed refusals come out. No sockets, no clock (as quinn-proto): the same machine
//! runs in the server, in tests and (replayed) in the verifier.
//!
//! For each message the relay checks, in this order: the strict encoding, the author's signature,
//! the match id, that the author may write on the channel (players on the public channel and
//! their own private channel, the umpire on all), that private channels carry only sealed
//! payloads, the author's sequence number (exactly one more than its last on this channel), the
//! `prev` chaining (a message the relay accepted on this channel, no older than the author's own
//! last message), and on the public channel the commitment rules (no copied commitments,
//! reveals that open their commitment). Then it appends the message to the channel log and signs
//! a receipt `(match, seq, time_ms, signed message hash, log head)`: `seq` is one sequence over all
//! channels of the match, and the head chains every entry to the ones before (PROTOCOL.md 11).
//!
//! Clocks: the driver tells the relay what it waits for from a side ([`Relay::expect`]). A move
//! runs that side's clock (`initial_ms`, plus `increment_ms` per move); a reveal has `reveal_ms`.
//! A deadline is missed when `now_ms > deadline_ms`; the relay then writes a signed
//! [`Payload::Timeout`] notice on the public channel, receipts it, and refuses further moves from
//! that side. Time only moves forward: an earlier `now_ms` than already seen counts as the latest.

use crate::codec::{self, Canonical};
use crate::commitment::{self, Committed, DuplicateCommitmentError, OpeningError};
use crate::keys::{ByColour, Identity, PublicKey};
use crate::message::{
    Expectation, MessageBody, MessageError, Payload, Receipt, SignedMessage, SignedReceipt,
    genesis_head, next_head,
};
use crate::seed::draw_colours;
use crate::terms::AgreedTerms;
use crate::{Channel, LogHead, MatchId, MessageHash, Side};
use std::collections::{BTreeMap, VecDeque};
use thiserror::Error;

/// A message with the relay's receipt: one entry of a match record.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Entry {
    /// The message as sent.
    pub message: SignedMessage,
    /// The relay's receipt for it.
    pub receipt: SignedReceipt,
}

/// Why the relay refused a message. Nothing changes in the relay's state on a refusal.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum RelayError {
    /// Bad encoding, bad signature or another match.
    #[error(transparent)]
    Message(#[from] MessageError),
    /// The author may not write on this channel.
    #[error("{author} may not write on the {channel} channel")]
    NotAllowed {
        /// The author.
        author: PublicKey,
        /// The channel.
        channel: Channel,
    },
    /// A private channel before colours are known, or in a game without an umpire.
    #[error("the {channel} channel is not open (no umpire, or colours not yet drawn)")]
    ChannelClosed {
        /// The channel.
        channel: Channel,
    },
    /// A payload the relay could read on a private channel (the relay must learn nothing).
    #[error("a {kind} payload on the private {channel} channel must be sealed")]
    Unsealed {
        /// The payload kind.
        kind: &'static str,
        /// The channel.
        channel: Channel,
    },
    /// A sealed payload on the public channel, or a timeout notice not from the relay.
    #[error("a {kind} payload is not allowed on the {channel} channel from this author")]
    PayloadNotAllowed {
        /// The payload kind.
        kind: &'static str,
        /// The channel.
        channel: Channel,
    },
    /// The exact message was already accepted.
    #[error("message {hash} was already accepted on {channel} (a duplicate or replay)")]
    Duplicate {
        /// The message.
        hash: MessageHash,
        /// The channel.
        channel: Channel,
    },
    /// A sequence number already used by this author on this channel.
    #[error("seq {seq} on {channel} is already used by this author (next is {expected}): a replay")]
    Replayed {
        /// The message's seq.
        seq: u64,
        /// The author's next seq.
        expected: u64,
        /// The channel.
        channel: Channel,
    },
    /// A sequence number beyond the next one (a message missing or reordered).
    #[error(
        "seq {seq} on {channel} skips ahead (next is {expected}): reordered or missing message"
    )]
    OutOfOrder {
        /// The message's seq.
        seq: u64,
        /// The author's next seq.
        expected: u64,
        /// The channel.
        channel: Channel,
    },
    /// `prev` names no message accepted on this channel.
    #[error("prev {prev} is not a message accepted on {channel}")]
    UnknownPrev {
        /// The claimed prev.
        prev: MessageHash,
        /// The channel.
        channel: Channel,
    },
    /// `prev` is missing, or older than the author's own last message on this channel.
    #[error("prev on {channel} must be at or after the author's own last message")]
    StalePrev {
        /// The channel.
        channel: Channel,
    },
    /// The side ran out of time and may make no more moves.
    #[error("{side} has timed out and may not move")]
    TimedOut {
        /// The side.
        side: Side,
    },
    /// A second commitment for the same purpose by the same author.
    #[error("{author} already committed to '{purpose}'")]
    Recommitted {
        /// The author.
        author: PublicKey,
        /// The purpose.
        purpose: String,
    },
    /// A commitment equal to one already published (a copy).
    #[error(transparent)]
    DuplicateCommitment(#[from] DuplicateCommitmentError),
    /// A reveal of something never committed.
    #[error("{author} reveals '{purpose}' without having committed to it")]
    NotCommitted {
        /// The author.
        author: PublicKey,
        /// The purpose.
        purpose: String,
    },
    /// A reveal that does not open its commitment.
    #[error(transparent)]
    BadOpening(#[from] OpeningError),
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
    /// The author has sent as many messages as the terms allow.
    #[error("{author} has sent the {max} messages the terms allow")]
    TooManyMessages {
        /// The author.
        author: PublicKey,
        /// The terms' `max_messages_per_side`.
        max: u32,
    },
    /// A public contribution that is not 32 bytes.
    #[error("public contribution of {author} is {len} bytes, expected 32")]
    ContributionLength {
        /// The author.
        author: PublicKey,
        /// Its length.
        len: usize,
    },
}

/// Something the relay reports besides receipts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RelayEvent {
    /// Colours are known (at once for fixed colours, after both public reveals for drawn ones).
    Colours(ByColour),
    /// A side missed a deadline; `notice` is the relay's signed public timeout message.
    TimedOut {
        /// The side.
        side: Side,
        /// What it failed to send.
        expectation: Expectation,
        /// The deadline missed.
        deadline_ms: u64,
        /// The notice and its receipt (already appended to the public log).
        notice: Entry,
    },
}

/// What [`Relay::accept`] returns: the receipt to hand back and the position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Accepted {
    /// The message and its receipt.
    pub entry: Entry,
    /// The decoded body.
    pub body: MessageBody,
    /// Its hash.
    pub hash: MessageHash,
}

#[derive(Clone, Copy, Debug, Default)]
struct AuthorState {
    next_seq: u64,
    /// Log position of the author's last message on the channel.
    last_position: Option<u64>,
}

#[derive(Clone, Debug, Default)]
struct ChannelLog {
    positions: BTreeMap<MessageHash, u64>,
    len: u64,
    last: Option<MessageHash>,
    authors: BTreeMap<PublicKey, AuthorState>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Deadline {
    expectation: Expectation,
    /// When the wait began (for the clock).
    since_ms: u64,
    due_ms: u64,
}

/// The relay of one match.
#[derive(Debug)]
pub struct Relay {
    identity: Identity,
    terms: AgreedTerms,
    colours: Option<ByColour>,
    logs: BTreeMap<Channel, ChannelLog>,
    commitments: Vec<Committed>,
    contributions: BTreeMap<PublicKey, [u8; 32]>,
    remaining_ms: [u64; 2],
    deadlines: [Option<Deadline>; 2],
    timed_out: [bool; 2],
    now_ms: u64,
    /// Messages accepted per player (by `players` index).
    sent: [u32; 2],
    head: LogHead,
    entries: Vec<Entry>,
    events: VecDeque<RelayEvent>,
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

impl Relay {
    /// A relay for agreed terms. `identity` must be the terms' relay key.
    pub fn new(identity: Identity, terms: AgreedTerms) -> Result<Relay, RelayError> {
        if identity.public() != terms.terms.relay {
            return Err(RelayError::NotTheRelay {
                key: identity.public(),
                relay: terms.terms.relay,
            });
        }
        let initial = terms.terms.time_control.initial_ms;
        terms.terms.validate().map_err(RelayError::Terms)?;
        let mut relay = Relay {
            identity,
            colours: terms.terms.fixed_colours(),
            logs: BTreeMap::new(),
            commitments: Vec::new(),
            contributions: BTreeMap::new(),
            remaining_ms: [initial; 2],
            deadlines: [None; 2],
            timed_out: [false; 2],
            now_ms: 0,
            sent: [0; 2],
            head: genesis_head(&terms.match_id),
            entries: Vec::new(),
            events: VecDeque::new(),
            terms,
        };
        if let Some(c) = relay.colours {
            relay.events.push_back(RelayEvent::Colours(c));
        }
        Ok(relay)
    }

    /// The match id.
    pub fn match_id(&self) -> MatchId {
        self.terms.match_id
    }

    /// The colours, once known.
    pub fn colours(&self) -> Option<ByColour> {
        self.colours
    }

    /// Every accepted message with its receipt, in acceptance order.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The running log head after the last entry.
    pub fn head(&self) -> LogHead {
        self.head
    }

    /// Rebuilds a relay from the entries it accepted before (a server restarting after a
    /// crash): each stored entry goes through the same acceptance rules at its receipt's time,
    /// the relay's own timeout notices are re-issued, and every receipt must come out byte for
    /// byte as stored (ed25519 signatures are deterministic). Clock waits that were running are
    /// not restored; the driver starts them again ([`Relay::expect`]).
    pub fn resume(
        identity: Identity,
        terms: AgreedTerms,
        entries: &[Entry],
    ) -> Result<Relay, ResumeError> {
        let mut relay = Relay::new(identity, terms)?;
        for (index, stored) in entries.iter().enumerate() {
            let receipt = stored
                .receipt
                .open(&relay.terms.terms.relay)
                .map_err(|_| ResumeError::Receipt { index })?;
            let body = stored
                .message
                .verify_for(&relay.terms.match_id)
                .map_err(|e| ResumeError::Refused { index, source: e.into() })?;
            let entry = if body.author == relay.identity.public() {
                let Payload::Timeout { side, expectation, .. } = body.payload else {
                    return Err(ResumeError::Receipt { index });
                };
                relay.tick(receipt.time_ms);
                relay.deadlines[side.index()] = None;
                relay.timed_out[side.index()] = true;
                if expectation == Expectation::Move {
                    relay.remaining_ms[side.index()] = 0;
                }
                let hash = stored.message.hash();
                relay.append(stored.message.clone(), &body, hash, receipt.time_ms)
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
        Ok(relay)
    }

    /// A side's remaining clock time (as of its last completed move).
    pub fn remaining_ms(&self, side: Side) -> u64 {
        self.remaining_ms[side.index()]
    }

    /// Whether a side has timed out.
    pub fn has_timed_out(&self, side: Side) -> bool {
        self.timed_out[side.index()]
    }

    /// The next event, if any.
    pub fn poll_event(&mut self) -> Option<RelayEvent> {
        self.events.pop_front()
    }

    /// The earliest pending deadline: call [`Relay::handle_timeout`] after it.
    pub fn poll_timeout(&self) -> Option<u64> {
        self.deadlines.iter().flatten().map(|d| d.due_ms).min()
    }

    /// Starts waiting for `side` to send `expectation` from `now_ms`.
    pub fn expect(&mut self, side: Side, expectation: Expectation, now_ms: u64) {
        let now = self.tick(now_ms);
        let allowance = match expectation {
            Expectation::Move => self.remaining_ms[side.index()],
            Expectation::Reveal => self.terms.terms.time_control.reveal_ms,
        };
        self.deadlines[side.index()] =
            Some(Deadline { expectation, since_ms: now, due_ms: now.saturating_add(allowance) });
    }

    /// Expires every deadline before `now_ms` (see the module docs).
    pub fn handle_timeout(&mut self, now_ms: u64) {
        let now = self.tick(now_ms);
        for side in Side::BOTH {
            let Some(d) = self.deadlines[side.index()] else { continue };
            if now <= d.due_ms {
                continue;
            }
            self.deadlines[side.index()] = None;
            self.timed_out[side.index()] = true;
            if d.expectation == Expectation::Move {
                self.remaining_ms[side.index()] = 0;
            }
            let payload =
                Payload::Timeout { side, expectation: d.expectation, deadline_ms: d.due_ms };
            let notice = self.write_own(payload, now);
            self.events.push_back(RelayEvent::TimedOut {
                side,
                expectation: d.expectation,
                deadline_ms: d.due_ms,
                notice,
            });
        }
    }

    /// Accepts one message (its bytes as received) at `now_ms`, or says why not. Deadlines
    /// before `now_ms` expire first, so a late move is refused.
    pub fn accept(&mut self, bytes: &[u8], now_ms: u64) -> Result<Accepted, RelayError> {
        self.handle_timeout(now_ms);
        let now = self.now_ms;
        let message = SignedMessage::from_canonical(bytes).map_err(MessageError::from)?;
        let body = message.verify_for(&self.terms.match_id)?;
        let hash = message.hash();
        let side = self.check_author(&body)?;
        self.check_chain(&body, hash)?;
        let contribution = self.check_payload(&body)?;
        let player = self.terms.terms.players.iter().position(|p| p.key == body.author);
        let max = self.terms.terms.limits.max_messages_per_side;
        if let Some(i) = player
            && self.sent[i] >= max
        {
            return Err(RelayError::TooManyMessages { author: body.author, max });
        }
        if let Some(i) = player {
            self.sent[i] += 1;
        }

        // All checks passed: from here on the state changes.
        if let Payload::Commit { purpose, commitment } = &body.payload {
            self.commitments.push(Committed {
                author: body.author,
                purpose: purpose.clone(),
                commitment: *commitment,
            });
        }
        if let Some(c) = contribution {
            self.contributions.insert(body.author, c);
            self.maybe_draw_colours();
        }
        if let Some(side) = side {
            self.settle_deadline(side, &body.payload, now);
        }
        let entry = self.append(message, &body, hash, now);
        Ok(Accepted { entry, body, hash })
    }

    fn tick(&mut self, now_ms: u64) -> u64 {
        self.now_ms = self.now_ms.max(now_ms);
        self.now_ms
    }

    /// The author's side, if it is a player; refuses authors who may not write here.
    fn check_author(&self, body: &MessageBody) -> Result<Option<Side>, RelayError> {
        let t = &self.terms.terms;
        let author = body.author;
        let channel = body.channel;
        let not_allowed = RelayError::NotAllowed { author, channel };
        let is_umpire = t.umpire.as_ref().is_some_and(|u| u.key == author);
        let side = self.colours.and_then(|c| c.side_of(&author));
        let is_player = t.player(&author).is_some();
        match channel {
            Channel::Public => {
                if !is_player && !is_umpire {
                    return Err(not_allowed);
                }
            }
            Channel::WhiteUmpire | Channel::BlackUmpire => {
                let colours_known = self.colours.is_some();
                if t.umpire.is_none() || !colours_known {
                    return Err(RelayError::ChannelClosed { channel });
                }
                if !is_umpire && side != channel.side() {
                    return Err(not_allowed);
                }
                if !matches!(body.payload, Payload::Sealed(_)) {
                    return Err(RelayError::Unsealed { kind: body.payload.kind(), channel });
                }
            }
        }
        if let Some(s) = side {
            let moves = matches!(body.payload, Payload::Action(_) | Payload::Sealed(_));
            if self.timed_out[s.index()] && moves {
                return Err(RelayError::TimedOut { side: s });
            }
        }
        Ok(side)
    }

    fn check_chain(&self, body: &MessageBody, hash: MessageHash) -> Result<(), RelayError> {
        let channel = body.channel;
        let empty = ChannelLog::default();
        let log = self.logs.get(&channel).unwrap_or(&empty);
        if log.positions.contains_key(&hash) {
            return Err(RelayError::Duplicate { hash, channel });
        }
        let state = log.authors.get(&body.author).copied().unwrap_or_default();
        let expected = state.next_seq;
        if body.seq < expected {
            return Err(RelayError::Replayed { seq: body.seq, expected, channel });
        }
        if body.seq > expected {
            return Err(RelayError::OutOfOrder { seq: body.seq, expected, channel });
        }
        match (body.prev, state.last_position) {
            (None, None) => Ok(()),
            (None, Some(_)) => Err(RelayError::StalePrev { channel }),
            (Some(prev), last) => {
                let at =
                    *log.positions.get(&prev).ok_or(RelayError::UnknownPrev { prev, channel })?;
                if last.is_some_and(|l| at < l) {
                    Err(RelayError::StalePrev { channel })
                } else {
                    Ok(())
                }
            }
        }
    }

    /// Public-channel payload rules; returns a newly revealed public contribution.
    fn check_payload(&self, body: &MessageBody) -> Result<Option<[u8; 32]>, RelayError> {
        let (author, channel) = (body.author, body.channel);
        match &body.payload {
            Payload::Sealed(_) if channel == Channel::Public => {
                Err(RelayError::PayloadNotAllowed { kind: "sealed", channel })
            }
            Payload::Timeout { .. } => {
                Err(RelayError::PayloadNotAllowed { kind: "timeout", channel })
            }
            Payload::Commit { purpose, commitment } => {
                if self.commitments.iter().any(|c| c.author == author && c.purpose == *purpose) {
                    return Err(RelayError::Recommitted { author, purpose: purpose.clone() });
                }
                let mut all = self.commitments.clone();
                all.push(Committed { author, purpose: purpose.clone(), commitment: *commitment });
                commitment::check_distinct(&all)?;
                Ok(None)
            }
            Payload::Reveal { purpose, opening } | Payload::Open { purpose, opening } => {
                let committed = self
                    .commitments
                    .iter()
                    .find(|c| c.author == author && c.purpose == *purpose)
                    .ok_or_else(|| RelayError::NotCommitted { author, purpose: purpose.clone() })?;
                commitment::check_opening(
                    &committed.commitment,
                    purpose,
                    &self.terms.match_id,
                    &author,
                    opening,
                )?;
                let public = purpose == commitment::PUBLIC_CONTRIBUTION;
                if public && self.terms.terms.player(&author).is_some() {
                    let c: [u8; 32] = opening.value.as_slice().try_into().map_err(|_| {
                        RelayError::ContributionLength { author, len: opening.value.len() }
                    })?;
                    return Ok(Some(c));
                }
                Ok(None)
            }
            _ => Ok(None),
        }
    }

    fn maybe_draw_colours(&mut self) {
        if self.colours.is_some() {
            return;
        }
        let t = &self.terms.terms;
        let c0 = self.contributions.get(&t.players[0].key);
        let c1 = self.contributions.get(&t.players[1].key);
        if let (Some(c0), Some(c1)) = (c0, c1) {
            let colours = draw_colours(t, &self.terms.match_id, &[*c0, *c1]);
            self.colours = Some(colours);
            self.events.push_back(RelayEvent::Colours(colours));
        }
    }

    fn settle_deadline(&mut self, side: Side, payload: &Payload, now: u64) {
        let i = side.index();
        let Some(d) = self.deadlines[i] else { return };
        let satisfied = match d.expectation {
            Expectation::Move => {
                matches!(payload, Payload::Action(_) | Payload::Sealed(_) | Payload::Claim(_))
            }
            Expectation::Reveal => {
                matches!(
                    payload,
                    Payload::Reveal { .. } | Payload::Open { .. } | Payload::Sealed(_)
                )
            }
        };
        if !satisfied {
            return;
        }
        if d.expectation == Expectation::Move {
            let used = now - d.since_ms;
            self.remaining_ms[i] = self.remaining_ms[i].saturating_sub(used)
                + self.terms.terms.time_control.increment_ms;
        }
        self.deadlines[i] = None;
    }

    fn append(
        &mut self,
        message: SignedMessage,
        body: &MessageBody,
        hash: MessageHash,
        now: u64,
    ) -> Entry {
        let seq = self.entries.len() as u64;
        let log = self.logs.entry(body.channel).or_default();
        log.positions.insert(hash, seq);
        log.len += 1;
        log.last = Some(hash);
        let state = log.authors.entry(body.author).or_default();
        state.next_seq += 1;
        state.last_position = Some(seq);
        let signed = message.signed_hash();
        self.head = next_head(&self.head, seq, now, &signed);
        let receipt = Receipt {
            version: codec::VERSION,
            match_id: self.terms.match_id,
            seq,
            time_ms: now,
            message: signed,
            head: self.head,
        };
        let entry = Entry { message, receipt: SignedReceipt::sign(&receipt, &self.identity) };
        self.entries.push(entry.clone());
        entry
    }

    /// Writes and appends a relay-authored message on the public channel.
    fn write_own(&mut self, payload: Payload, now: u64) -> Entry {
        let log = self.logs.get(&Channel::Public);
        let me = self.identity.public();
        let seq = log.and_then(|l| l.authors.get(&me)).map_or(0, |s| s.next_seq);
        let body = MessageBody {
            version: codec::VERSION,
            match_id: self.terms.match_id,
            channel: Channel::Public,
            author: me,
            seq,
            prev: log.and_then(|l| l.last),
            payload,
        };
        let message = SignedMessage::sign(&body, &self.identity);
        let hash = message.hash();
        self.append(message, &body, hash, now)
    }
}

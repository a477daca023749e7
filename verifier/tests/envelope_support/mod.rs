//! A small match harness for envelope tests: real identities, real `protocol::message::Author`s
//! and the real `protocol::relay::Relay`, driven message by message, plus the tools of a
//! cheating relay (re-receipting messages in an order of its choosing).
//!
//! The game content is opaque to layer 1, so actions and observations are short byte strings.
#![allow(dead_code, reason = "each test binary uses a different part of the harness")]

use protocol::codec::{Canonical, VERSION};
use protocol::commitment::{self, Opening};
use protocol::keys::Identity;
use protocol::message::{Claim, Outcome, Payload, Receipt, SignedMessage, SignedReceipt};
use protocol::record::MatchRecord;
use protocol::relay::{Entry, Relay};
use protocol::seal::{SealDisclosure, SealSecret};
use protocol::terms::{
    AgreedTerms, ColorAssignment, Limits, MatchTerms, PlayerTerms, SignedTerms, TimeControl,
    UmpireTerms,
};
use protocol::{Channel, Color, MatchId, PublicKey};
use std::collections::BTreeMap;

/// Who writes a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Who {
    /// `players[0]`.
    P0,
    /// `players[1]`.
    P1,
    /// The umpire.
    Umpire,
}

/// One match in progress.
pub struct Harness {
    pub p0: Identity,
    pub p1: Identity,
    pub relay_id: Identity,
    pub umpire: Identity,
    pub signed: SignedTerms,
    pub terms: AgreedTerms,
    pub relay: Relay,
    pub authors: BTreeMap<PublicKey, protocol::message::Author>,
    /// Disclosures each author owes (of the sealed messages it sent), sent by
    /// [`Harness::disclose`].
    pub disclosures: BTreeMap<PublicKey, Vec<SealDisclosure>>,
    pub now: u64,
    seeds: u8,
    /// The last player action (what the umpire's next answer names).
    pub last_action: Option<protocol::MessageHash>,
}

fn id(byte: u8) -> Identity {
    Identity::from_seed(&[byte; 32])
}

impl Harness {
    /// A match of `variant` (its umpire present exactly when the game has one), drawn colors;
    /// `nonce` makes the match id (another nonce, another match).
    pub fn new(variant: &str, nonce: u8) -> Harness {
        Harness::with_limits(variant, nonce, Limits::DEFAULT)
    }

    /// [`Harness::new`] under other limits.
    pub fn with_limits(variant: &str, nonce: u8, limits: Limits) -> Harness {
        let (p0, p1, relay_id, umpire) = (id(0xa1), id(0xb0), id(0x7e), id(0x55));
        let v: rules::Variant = variant.parse().expect("a known variant");
        let umpired = matches!(
            v,
            rules::Variant::Kriegspiel | rules::Variant::Sic | rules::Variant::SecretChess6
        );
        let player = |i: &Identity, n: u8| PlayerTerms {
            key: i.public(),
            seal_key: SealSecret::for_match(i, &[n; 32]).public(),
            nonce: [n; 32],
        };
        let terms = MatchTerms {
            version: VERSION,
            game: rules::GameOptions::default_for(v),
            players: [player(&p0, nonce), player(&p1, nonce.wrapping_add(1))],
            colors: ColorAssignment::Drawn,
            rated: true,
            relay: relay_id.public(),
            umpire: umpired.then(|| UmpireTerms {
                key: umpire.public(),
                seal_key: SealSecret::for_match(&umpire, &[0x5a; 32]).public(),
                nonce: [0x5a; 32],
            }),
            time_control: TimeControl {
                initial_ms: 60_000,
                increment_ms: 0,
                reveal_ms: 1_000,
                answer_ms: 1_000,
            },
            limits,
        };
        let signed = SignedTerms::sign_all(&terms, &[&p0, &p1, &relay_id, &umpire])
            .expect("every signer is in the cast");
        let agreed = signed.verify().expect("terms verify");
        let relay = Relay::new(relay_id.clone(), agreed.clone(), 0).expect("the terms' relay");
        let mut authors = BTreeMap::new();
        for i in [&p0, &p1, &umpire] {
            authors.insert(i.public(), protocol::message::Author::new(i.clone(), agreed.match_id));
        }
        let start = relay.entries()[0].clone();
        let mut h = Harness {
            p0,
            p1,
            relay_id,
            umpire,
            signed,
            terms: agreed,
            relay,
            authors,
            disclosures: BTreeMap::new(),
            now: 0,
            seeds: 0,
            last_action: None,
        };
        h.deliver(&start);
        h
    }

    pub fn match_id(&self) -> MatchId {
        self.terms.match_id
    }

    pub fn identity(&self, who: Who) -> &Identity {
        match who {
            Who::P0 => &self.p0,
            Who::P1 => &self.p1,
            Who::Umpire => &self.umpire,
        }
    }

    pub fn key(&self, who: Who) -> PublicKey {
        self.identity(who).public()
    }

    /// The player of a side, once colors are drawn.
    pub fn side(&self, side: Color) -> Who {
        let colors = self.relay.colors().expect("colors drawn");
        if colors[side] == self.p0.public() { Who::P0 } else { Who::P1 }
    }

    /// Tells every author who can see `entry`'s channel about it (its `seen` moves on).
    pub fn deliver(&mut self, entry: &Entry) {
        let body = entry.message.verify().expect("accepted messages verify");
        let receipt = entry.receipt.open(&self.relay_id.public()).expect("the relay's receipt");
        let readers: Vec<PublicKey> = match body.channel.side() {
            None => self.authors.keys().copied().collect(),
            Some(side) => {
                let c = self.relay.colors().expect("private channels need colors");
                vec![c[side], self.umpire.public()]
            }
        };
        for k in readers {
            if let Some(a) = self.authors.get_mut(&k) {
                a.saw(&receipt);
            }
        }
    }

    /// Writes `payload` as `who` and hands it to the real relay.
    pub fn send(&mut self, who: Who, channel: Channel, payload: Payload) -> Entry {
        let m = self.write(who, channel, payload);
        self.submit(&m)
    }

    /// Writes a message (counted by its author) without sending it.
    pub fn write(&mut self, who: Who, channel: Channel, payload: Payload) -> SignedMessage {
        self.write_re(who, channel, None, payload)
    }

    /// Writes a message answering `re` (counted by its author) without sending it.
    pub fn write_re(
        &mut self,
        who: Who,
        channel: Channel,
        re: Option<protocol::MessageHash>,
        payload: Payload,
    ) -> SignedMessage {
        let key = self.key(who);
        self.authors.get_mut(&key).expect("an author").write(channel, re, payload)
    }

    /// Hands a message to the real relay and delivers it.
    pub fn submit(&mut self, m: &SignedMessage) -> Entry {
        self.now += 10;
        let accepted = match self.relay.accept(&m.canonical_bytes(), self.now) {
            Ok(a) => a,
            Err(e) => panic!("the relay refuses {:?}: {e}", m.verify().map(|b| b.payload.kind())),
        };
        self.deliver(&accepted.entry);
        accepted.entry
    }

    /// Seals `inner` on `who`'s side of a private channel (a player to the umpire, the umpire to
    /// the channel's player) and sends it; keeps the disclosure.
    pub fn send_sealed(&mut self, who: Who, side: Color, inner: Payload) -> Entry {
        let re = if who == Who::Umpire { self.last_action } else { None };
        self.send_sealed_re(who, side, re, inner)
    }

    /// [`Harness::send_sealed`] answering `re`.
    pub fn send_sealed_re(
        &mut self,
        who: Who,
        side: Color,
        re: Option<protocol::MessageHash>,
        inner: Payload,
    ) -> Entry {
        let colors = self.relay.colors().expect("colors drawn");
        let recipient = match who {
            Who::Umpire => {
                let k = colors[side];
                self.terms.terms.player(&k).expect("a player").seal_key
            }
            _ => self.terms.terms.umpire.as_ref().expect("an umpire").seal_key,
        };
        self.seeds += 1;
        let seed = [self.seeds; 32];
        let key = self.key(who);
        let padded_len = self.padded_len(who);
        let (m, d) = self
            .authors
            .get_mut(&key)
            .expect("an author")
            .write_sealed(Channel::private(side), re, &inner, &recipient, &seed, padded_len)
            .expect("sealing works");
        // One disclosure per channel (its context's seal seed), however many messages.
        let owed = self.disclosures.entry(key).or_default();
        if !owed.contains(&d) {
            owed.push(d);
        }
        self.submit(&m)
    }

    fn opening(&self, who: Who, purpose: commitment::Purpose) -> Opening {
        let tag = if purpose == commitment::PRIVATE_SEED { 1 } else { 2 };
        let owner = if who == Who::P0 { 0x10 } else { 0x20 };
        Opening { value: vec![owner + tag; 32], nonce: [owner + tag + 0x40; 32] }
    }

    /// The opening of `who`'s `purpose` commitment.
    pub fn open_payload_opening(&self, who: Who, purpose: commitment::Purpose) -> Opening {
        self.opening(who, purpose)
    }

    pub fn commit_payload(&self, who: Who, purpose: commitment::Purpose) -> Payload {
        let o = self.opening(who, purpose);
        let c = commitment::commit(purpose, &self.match_id(), &self.key(who), &o.value, &o.nonce);
        Payload::Commit { purpose, commitment: c }
    }

    pub fn open_payload(&self, who: Who, purpose: commitment::Purpose) -> Payload {
        Payload::Open { purpose, opening: self.opening(who, purpose) }
    }

    /// The game of the terms.
    /// The size `who`'s sealed payloads are padded to in this match's variant.
    pub fn padded_len(&self, who: Who) -> usize {
        let direction = match who {
            Who::Umpire => protocol::game::SealDirection::FromUmpire,
            _ => protocol::game::SealDirection::ToUmpire,
        };
        protocol::game::sealed_plaintext_bytes(self.variant(), direction)
    }

    pub fn variant(&self) -> rules::Variant {
        self.terms.terms.variant()
    }

    /// Steps 1 to 3: both players commit to their early secrets (a public contribution, and a
    /// private seed in SIC), then reveal the contribution; colors are drawn. In SIC each player
    /// then seals its private seed's opening to the umpire, which acknowledges it; in umpired
    /// games the umpire then starts White's clock with a public Turn.
    pub fn setup(&mut self) {
        let early = protocol::flow::early_commitments(self.variant());
        for who in [Who::P0, Who::P1] {
            for purpose in early {
                let p = self.commit_payload(who, *purpose);
                self.send(who, Channel::Public, p);
            }
        }
        for who in [Who::P0, Who::P1] {
            let opening = self.opening(who, commitment::PUBLIC_CONTRIBUTION);
            let p = Payload::Reveal { purpose: commitment::PUBLIC_CONTRIBUTION, opening };
            self.send(who, Channel::Public, p);
        }
        assert!(self.relay.colors().is_some(), "colors drawn");
        if self.variant() == rules::Variant::Sic {
            for side in Color::ALL {
                let who = self.side(side);
                let open = self.open_payload(who, commitment::PRIVATE_SEED);
                let sent = self.send_sealed(who, side, open);
                let hash = sent.message.hash();
                self.send_sealed_re(Who::Umpire, side, Some(hash), Payload::Ack { message: hash });
            }
        }
        if self.terms.terms.umpire.is_some() {
            self.turn(None, protocol::message::Owed::Side(Color::White));
        }
    }

    /// The umpire's public Turn answering `re`.
    pub fn turn(
        &mut self,
        re: Option<protocol::MessageHash>,
        next: protocol::message::Owed,
    ) -> Entry {
        let m = self.write_re(Who::Umpire, Channel::Public, re, Payload::Turn { next });
        self.submit(&m)
    }

    /// A few moves: public actions in open games, sealed actions answered by sealed
    /// observations in umpired ones.
    pub fn play(&mut self, plies: usize) {
        let umpired = self.terms.terms.umpire.is_some();
        for ply in 0..plies {
            let side = if ply % 2 == 0 { Color::White } else { Color::Black };
            let who = self.side(side);
            let action = Payload::Action(format!("move {ply}").into_bytes());
            if umpired {
                let a = self.send_sealed(who, side, action);
                self.last_action = Some(a.message.hash());
                self.turn(self.last_action, protocol::message::Owed::Side(side.other()));
                for s in Color::ALL {
                    // Short enough for Kriegspiel's padded size (16 bytes, PROTOCOL.md padding).
                    let told = Payload::Observation(format!("{s} {ply}").into_bytes());
                    self.send_sealed(Who::Umpire, s, told);
                }
            } else {
                self.send(who, Channel::Public, action);
            }
        }
    }

    /// Step 5: a claim by white (a resignation), then both players open their private seeds
    /// (SIC).
    pub fn finish(&mut self) {
        if self.relay.coordinator().is_closed() {
            return;
        }
        let white = self.side(Color::White);
        let claim = Payload::Claim(Claim {
            outcome: Outcome::BlackWins,
            reason: rules::EndReason::Resignation.into(),
        });
        if !self.relay.coordinator().is_over() {
            self.send(white, Channel::Public, claim);
        }
        if self.variant() == rules::Variant::Sic {
            for who in [Who::P0, Who::P1] {
                let p = self.open_payload(who, commitment::PRIVATE_SEED);
                self.send(who, Channel::Public, p);
            }
        }
        for who in [Who::P0, Who::P1, Who::Umpire] {
            self.disclose(who);
        }
    }

    /// `who` sends one `Disclose` message with every disclosure it owes (nothing if it owes
    /// none).
    pub fn disclose(&mut self, who: Who) -> Option<Entry> {
        let items = self.disclosures.remove(&self.key(who))?;
        Some(self.send(who, Channel::Public, Payload::Disclose(items)))
    }

    /// A whole honest match.
    pub fn honest(variant: &str) -> Harness {
        let mut h = Harness::new(variant, 1);
        h.setup();
        h.play(4);
        h.finish();
        h
    }

    /// Time passes until the relay's next deadline is missed; the relay times that party out.
    pub fn next_timeout(&mut self) -> Entry {
        let due = self.relay.poll_timeout().expect("somebody owes something");
        self.now = self.now.max(due + 1);
        let before = self.relay.entries().len();
        self.relay.handle_timeout(self.now);
        let entries = self.relay.entries()[before..].to_vec();
        for e in &entries {
            self.deliver(e);
        }
        entries.first().expect("a timeout notice").clone()
    }

    pub fn record(&self) -> MatchRecord {
        MatchRecord {
            version: VERSION,
            terms: self.signed.clone(),
            entries: self.relay.entries().to_vec(),
        }
    }

    pub fn bytes(&self) -> Vec<u8> {
        self.record().to_canonical()
    }

    /// A cheating relay's receipt: any message, any position of its channel, any time, its
    /// channel head chained from `prev` (the head of the channel's receipt before it, or its
    /// genesis head), placed after order head `after`.
    pub fn receipt(
        &self,
        m: &SignedMessage,
        position: u64,
        time_ms: u64,
        prev: &protocol::LogHead,
        after: &protocol::LogHead,
    ) -> SignedReceipt {
        let message = m.signed_hash();
        let channel = protocol::message::MessageBody::from_canonical(&m.body)
            .map_or(Channel::Public, |b| b.channel);
        let r = Receipt {
            version: VERSION,
            match_id: self.match_id(),
            channel,
            position,
            time_ms,
            message,
            head: protocol::message::next_head(prev, position, time_ms, &message),
            after: *after,
        };
        SignedReceipt::sign(&r, &self.relay_id)
    }

    /// The receipts of the harness's record.
    fn receipts(&self) -> Vec<Receipt> {
        let relay = self.relay_id.public();
        self.relay.entries().iter().map(|e| e.receipt.open(&relay).expect("receipt")).collect()
    }

    /// The head of entry `index`'s channel before it (its genesis head if it is the first).
    pub fn head_before(&self, index: usize) -> protocol::LogHead {
        let receipts = self.receipts();
        let channel = receipts[index].channel;
        receipts[..index]
            .iter()
            .rfind(|r| r.channel == channel)
            .map_or_else(|| protocol::message::genesis_head(&self.match_id(), channel), |r| r.head)
    }

    /// The order head before entry `index` of the harness's record (after entry `index - 1`;
    /// the genesis order head for 0).
    pub fn order_before(&self, index: usize) -> protocol::LogHead {
        match index.checked_sub(1) {
            None => protocol::message::genesis_order(&self.match_id()),
            Some(i) => self.receipts()[i].order(),
        }
    }
}

/// A cheating relay's log: the messages in the order it chooses, each channel numbered 0, 1,
/// 2, ... in that order with consistent chains of channel and order heads, every receipt signed
/// with the real relay key. A message the harness's relay accepted keeps its receipt time (so a
/// log that keeps the honest order keeps the honest heads, which the authors' `seen` name); a
/// new one comes 10 ms after the one before.
pub fn relog(h: &Harness, messages: &[SignedMessage]) -> Vec<Entry> {
    let relay = h.relay_id.public();
    let times: BTreeMap<protocol::SignedHash, u64> = h
        .relay
        .entries()
        .iter()
        .map(|e| (e.message.signed_hash(), e.receipt.open(&relay).expect("receipt").time_ms))
        .collect();
    let id = h.match_id();
    let mut heads = Channel::ALL.map(|c| protocol::message::genesis_head(&id, c));
    let mut lengths = [0u64; 3];
    let mut order = protocol::message::genesis_order(&id);
    let mut last = 0;
    messages
        .iter()
        .map(|m| {
            let time = times.get(&m.signed_hash()).copied().unwrap_or(last + 10).max(last);
            last = time;
            let channel = protocol::message::MessageBody::from_canonical(&m.body)
                .map_or(Channel::Public, |b| b.channel);
            let c = usize::from(channel.byte());
            let receipt = h.receipt(m, lengths[c], time, &heads[c], &order);
            let opened = receipt.open(&relay).expect("just signed");
            heads[c] = opened.head;
            lengths[c] += 1;
            order = opened.order();
            Entry { message: m.clone(), receipt }
        })
        .collect()
}

/// The messages of a record's entries.
pub fn messages(record: &MatchRecord) -> Vec<SignedMessage> {
    record.entries.iter().map(|e| e.message.clone()).collect()
}

/// Encodes a record with `entries` in place of the harness's.
pub fn with_entries(h: &Harness, entries: Vec<Entry>) -> Vec<u8> {
    MatchRecord { entries, ..h.record() }.to_canonical()
}

/// The one fault of a verdict, checked for kind, culprit and role.
pub fn only_fault(
    faults: &[verifier::Fault],
    kind: verifier::FaultKind,
    culprit: Option<PublicKey>,
    role: verifier::MatchRole,
) -> verifier::Fault {
    assert_eq!(faults.len(), 1, "exactly one fault expected: {faults:#?}");
    let f = faults[0].clone();
    assert_eq!((f.kind, f.culprit, f.role), (kind, culprit, role), "{f:#?}");
    assert!(!f.evidence.is_empty() && f.explanation.ends_with('.'), "{f:#?}");
    f
}

/// A helper trait: the canonical bytes of a signed message.
pub trait CanonicalBytes {
    fn canonical_bytes(&self) -> Vec<u8>;
}

impl CanonicalBytes for SignedMessage {
    fn canonical_bytes(&self) -> Vec<u8> {
        self.to_canonical()
    }
}

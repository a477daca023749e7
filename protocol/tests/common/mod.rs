//! Shared fixtures: deterministic identities and terms for the protocol tests.
#![allow(dead_code, reason = "each test binary uses a different part of the fixtures")]

use protocol::codec::{Canonical, VERSION};
use protocol::commitment::{self, Opening, PRIVATE_SEED, PUBLIC_CONTRIBUTION};
use protocol::game::SealDirection;
use protocol::keys::{ByColor, Identity};
use protocol::message::{Author, Expectation, MessageBody, Payload, Receipt, SignedMessage};
use protocol::relay::{Accepted, Relay, RelayError, RelayEvent, reads};
use protocol::seal::{SealPublicKey, SealSecret};
use protocol::terms::{
    AgreedTerms, ColorAssignment, Limits, MatchTerms, PlayerTerms, SignedTerms, TimeControl,
    UmpireTerms,
};
use protocol::{Channel, Color, MessageHash, Party, PublicKey};

/// The cast of a match, from fixed seeds.
pub struct Cast {
    pub alice: Identity,
    pub bob: Identity,
    pub relay: Identity,
    pub umpire: Identity,
    pub outsider: Identity,
}

/// The umpire's nonce in the fixture terms.
pub const UMPIRE_NONCE: [u8; 32] = [0x5a; 32];

pub fn cast() -> Cast {
    Cast {
        alice: Identity::from_seed(&[0xa1; 32]),
        bob: Identity::from_seed(&[0xb0; 32]),
        relay: Identity::from_seed(&[0x7e; 32]),
        umpire: Identity::from_seed(&[0x55; 32]),
        outsider: Identity::from_seed(&[0x99; 32]),
    }
}

pub fn terms(cast: &Cast, colors: ColorAssignment, umpired: bool, nonce_byte: u8) -> MatchTerms {
    let player = |id: &Identity, n: u8| PlayerTerms {
        key: id.public(),
        seal_key: SealSecret::for_match(id, &[n; 32]).public(),
        nonce: [n; 32],
    };
    // Kriegspiel (with an option) when umpired, chess otherwise: the terms gate wants an
    // umpire exactly in umpired games.
    let game = if umpired {
        rules::GameOptions::Kriegspiel(rules::kriegspiel::Options { touch_move: true })
    } else {
        rules::GameOptions::Chess
    };
    MatchTerms {
        version: VERSION,
        game,
        players: [player(&cast.alice, nonce_byte), player(&cast.bob, nonce_byte.wrapping_add(1))],
        colors,
        rated: true,
        relay: cast.relay.public(),
        umpire: umpired.then(|| UmpireTerms {
            key: cast.umpire.public(),
            seal_key: SealSecret::for_match(&cast.umpire, &UMPIRE_NONCE).public(),
            nonce: UMPIRE_NONCE,
        }),
        time_control: TimeControl {
            initial_ms: 1000,
            increment_ms: 100,
            reveal_ms: 500,
            answer_ms: 500,
        },
        limits: Limits::DEFAULT,
    }
}

pub fn sign(cast: &Cast, terms: &MatchTerms) -> SignedTerms {
    SignedTerms::sign_all(terms, &[&cast.alice, &cast.bob, &cast.relay, &cast.umpire])
        .expect("the cast holds every signer")
}

pub fn agreed(cast: &Cast, colors: ColorAssignment, umpired: bool) -> (SignedTerms, AgreedTerms) {
    let signed = sign(cast, &terms(cast, colors, umpired, 1));
    let agreed = signed.verify().expect("fixture terms verify");
    (signed, agreed)
}

/// Terms for `variant` (its default ruleset), otherwise as [`terms`].
pub fn terms_for(cast: &Cast, variant: rules::Variant, colors: ColorAssignment) -> MatchTerms {
    let umpired = variant.mode() == rules::Mode::Umpire;
    MatchTerms { game: rules::GameOptions::default_for(variant), ..terms(cast, colors, umpired, 1) }
}

/// Index of alice (`players[0]`) in a [`Table`].
pub const ALICE: usize = 0;
/// Index of bob (`players[1]`).
pub const BOB: usize = 1;
/// Index of the umpire.
pub const UMPIRE: usize = 2;

/// A relay with real authors around it: messages are written, signed, sealed and submitted
/// for real; entries reach an author only when [`Table::deliver`] hands them over (and only
/// those on channels it reads), so a test decides exactly what each author had seen.
pub struct Table {
    pub relay: Relay,
    pub agreed: AgreedTerms,
    pub authors: [Author; 3],
    pub delivered: [usize; 3],
    pub seals: [SealPublicKey; 3],
    /// The author of the last sealed message written, as it is once that message is sent
    /// (its sealing context set up): taken by [`Table::submit`] if that message is accepted.
    sealed_by: Option<(usize, protocol::SignedHash, Author)>,
}

/// Alice's and bob's public contributions and their commitment nonces.
pub const CONTRIBUTIONS: [([u8; 32], [u8; 32]); 2] =
    [([0x11; 32], [0x1a; 32]), ([0x22; 32], [0x2b; 32])];
/// Alice's and bob's private seeds (SIC) and their commitment nonces.
pub const PRIVATE_SEEDS: [([u8; 32], [u8; 32]); 2] =
    [([0x33; 32], [0x3c; 32]), ([0x44; 32], [0x4d; 32])];

impl Table {
    /// Signs `terms` by the whole cast and starts a relay at `start_ms`; the Start notice is
    /// delivered to everyone.
    pub fn new(cast: &Cast, terms: MatchTerms, start_ms: u64) -> Table {
        let agreed = sign(cast, &terms).verify().expect("fixture terms verify");
        let relay = Relay::new(cast.relay.clone(), agreed.clone(), start_ms).expect("relay starts");
        let id = agreed.match_id;
        let mut t = Table {
            relay,
            authors: [
                Author::new(cast.alice.clone(), id),
                Author::new(cast.bob.clone(), id),
                Author::new(cast.umpire.clone(), id),
            ],
            agreed,
            delivered: [0; 3],
            seals: [
                terms.players[0].seal_key,
                terms.players[1].seal_key,
                terms.umpire.as_ref().map_or(terms.players[0].seal_key, |u| u.seal_key),
            ],
            sealed_by: None,
        };
        t.deliver_all();
        t
    }

    /// The colors, or the players' order before they are known.
    pub fn colors(&self) -> ByColor<PublicKey> {
        let p = &self.agreed.terms.players;
        self.relay.colors().unwrap_or(ByColor { white: p[0].key, black: p[1].key })
    }

    /// The author index playing `side`.
    pub fn of(&self, side: Color) -> usize {
        if self.colors()[side] == self.authors[ALICE].key() { ALICE } else { BOB }
    }

    /// The next message of `who`, without counting it as sent.
    pub fn write(
        &self,
        who: usize,
        channel: Channel,
        re: Option<MessageHash>,
        p: Payload,
    ) -> SignedMessage {
        self.authors[who].clone().write(channel, re, p)
    }

    /// Submits `m` (written by `who` with [`Table::write`]) at `now`; counts it as sent if it
    /// is accepted. Delivers nothing.
    pub fn submit(
        &mut self,
        who: usize,
        m: &SignedMessage,
        now: u64,
    ) -> Result<Accepted, RelayError> {
        let a = self.relay.accept(&m.to_canonical(), now)?;
        match self.sealed_by.take() {
            Some((by, hash, author)) if by == who && hash == m.signed_hash() => {
                self.authors[who] = author;
            }
            _ => {
                let mut next = self.authors[who].clone();
                let _ = next.write(a.body.channel, None, Payload::Start);
                self.authors[who] = next;
            }
        }
        Ok(a)
    }

    /// Writes, submits and, if accepted, delivers everything to everyone.
    pub fn send(
        &mut self,
        who: usize,
        channel: Channel,
        re: Option<MessageHash>,
        p: Payload,
        now: u64,
    ) -> Result<Accepted, RelayError> {
        let m = self.write(who, channel, re, p);
        let a = self.submit(who, &m, now)?;
        self.deliver_all();
        Ok(a)
    }

    /// The next sealed message of `who` on `channel` (to the umpire, or the umpire's to the
    /// channel's player), without counting it as sent.
    pub fn write_sealed(
        &mut self,
        who: usize,
        channel: Channel,
        re: Option<MessageHash>,
        inner: &Payload,
    ) -> SignedMessage {
        let recipient = if who == UMPIRE {
            let side = channel.side().expect("a private channel");
            self.seals[self.of(side)]
        } else {
            self.seals[UMPIRE]
        };
        // One seal seed per author and channel (one sealing context each): a message written
        // again, or by a copy of the author, carries the very same setup.
        let seed = [0x40 + 4 * who as u8 + channel.byte(); 32];
        let mut author = self.authors[who].clone();
        let (m, _) = author
            .write_sealed(channel, re, inner, &recipient, &seed, self.padded_len(who))
            .expect("seals");
        self.sealed_by = Some((who, m.signed_hash(), author));
        m
    }

    /// The padded size of `who`'s sealed payloads in this match's variant; in a variant that
    /// seals nothing, 64 (the relay refuses those messages whatever their size).
    pub fn padded_len(&self, who: usize) -> usize {
        let variant = self.agreed.terms.variant();
        let direction =
            if who == UMPIRE { SealDirection::FromUmpire } else { SealDirection::ToUmpire };
        match protocol::game::sealed_plaintext_bytes(variant, direction) {
            0 => 64,
            n => n,
        }
    }

    /// [`Table::write_sealed`], submitted and delivered.
    pub fn send_sealed(
        &mut self,
        who: usize,
        channel: Channel,
        re: Option<MessageHash>,
        inner: &Payload,
        now: u64,
    ) -> Result<Accepted, RelayError> {
        let m = self.write_sealed(who, channel, re, inner);
        let a = self.submit(who, &m, now)?;
        self.deliver_all();
        Ok(a)
    }

    /// Hands `who` every entry so far on a channel it reads.
    pub fn deliver(&mut self, who: usize) {
        let relay_key = self.agreed.terms.relay;
        let colors = self.colors();
        let key = self.authors[who].key();
        for e in &self.relay.entries()[self.delivered[who]..] {
            let body = e.message.verify().expect("entries verify");
            if reads(&self.agreed, &colors, &key, body.channel) {
                self.authors[who].saw(&e.receipt.open(&relay_key).expect("receipts verify"));
            }
        }
        self.delivered[who] = self.relay.entries().len();
    }

    /// [`Table::deliver`] to all three.
    pub fn deliver_all(&mut self) {
        for who in [ALICE, BOB, UMPIRE] {
            self.deliver(who);
        }
    }

    /// The receipt of entry `i`.
    pub fn receipt(&self, i: usize) -> Receipt {
        self.relay.entries()[i].receipt.open(&self.agreed.terms.relay).expect("receipt verifies")
    }

    /// The body of entry `i`.
    pub fn body(&self, i: usize) -> MessageBody {
        self.relay.entries()[i].message.verify().expect("entry verifies")
    }

    /// Runs the relay's timeouts at `now` and returns the notices' `(party, expectation,
    /// deadline, receipt time)`, delivered to everyone.
    pub fn expire(&mut self, now: u64) -> Vec<(Party, Expectation, u64, u64)> {
        self.relay.handle_timeout(now);
        let mut out = Vec::new();
        while let Some(e) = self.relay.poll_event() {
            if let RelayEvent::TimedOut { party, expectation, deadline_ms, notice } = e {
                let r = notice.receipt.open(&self.agreed.terms.relay).expect("notice receipt");
                out.push((party, expectation, deadline_ms, r.time_ms));
            }
        }
        self.deliver_all();
        out
    }

    /// Player `who`'s commitment to its public contribution (and, in SIC, its private seed).
    pub fn commit(&mut self, who: usize, now: u64) {
        let key = self.authors[who].key();
        let id = self.agreed.match_id;
        let (value, nonce) = CONTRIBUTIONS[who];
        let commitment = commitment::commit(PUBLIC_CONTRIBUTION, &id, &key, &value, &nonce);
        let p = Payload::Commit { purpose: PUBLIC_CONTRIBUTION, commitment };
        self.send(who, Channel::Public, None, p, now).expect("contribution commitment");
        if self.agreed.terms.variant() == rules::Variant::Sic {
            let (value, nonce) = PRIVATE_SEEDS[who];
            let commitment = commitment::commit(PRIVATE_SEED, &id, &key, &value, &nonce);
            let p = Payload::Commit { purpose: PRIVATE_SEED, commitment };
            self.send(who, Channel::Public, None, p, now).expect("private seed commitment");
        }
    }

    /// Player `who`'s reveal of its public contribution.
    pub fn reveal_payload(who: usize) -> Payload {
        let (value, nonce) = CONTRIBUTIONS[who];
        Payload::Reveal {
            purpose: PUBLIC_CONTRIBUTION,
            opening: Opening { value: value.to_vec(), nonce },
        }
    }

    /// Both commit (alice at `t[0]`, bob at `t[1]`) and reveal (at `t[2]`, `t[3]`).
    pub fn open_match(&mut self, t: [u64; 4]) {
        self.commit(ALICE, t[0]);
        self.commit(BOB, t[1]);
        self.send(ALICE, Channel::Public, None, Self::reveal_payload(ALICE), t[2]).expect("reveal");
        self.send(BOB, Channel::Public, None, Self::reveal_payload(BOB), t[3]).expect("reveal");
    }
}

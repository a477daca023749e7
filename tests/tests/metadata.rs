//! Issue 13, point 3: the opponent learns nothing the rules hide (R-K1, docs/PROTOCOL.md 11 and
//! 20). Each umpired variant is self-played twice through the real machines (player and umpire
//! roles, the sans-IO relay) from the same seeds, once as is and once with what the rules hide
//! changed on White's side: `k` illegal Kriegspiel attempts inserted in one turn, or in SIC and
//! 6x6 another legal move chosen at one turn. Every frame Black's agent would receive (the
//! server's `ServerFrame::Entry` of each entry on a channel Black reads, `relay::reads`) must
//! have the same kind, channel, author, numbers (the author's `seq`, the receipt's position),
//! whether it names a `seen` and an `re`, and byte length in both runs: only hashes, signatures,
//! ciphertexts and times may differ. With v2's one global sequence and one counter per author,
//! the positions of Black's receipts and the umpire's numbers counted the attempts exactly.

use client::selfplay::derive;
use client::{RandomBot, SelfplayConfig, selfplay_with};
use protocol::codec::Canonical;
use protocol::keys::ByColour;
use protocol::message::{MessageBody, Payload, Receipt};
use protocol::record::MatchRecord;
use protocol::relay::reads;
use protocol::roles::{Ask, Policy};
use protocol::terms::Colours;
use protocol::wire::ServerFrame;
use protocol::{Channel, PublicKey};
use rules::{Color, Variant};

/// What may differ between two runs is left out: hashes (`seen`, `re`, heads), signatures,
/// ciphertexts and times. Payloads in the clear are kept whole: they are public, and the same
/// in both runs until the game's public course differs.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Shape {
    kind: &'static str,
    channel: Channel,
    author: PublicKey,
    /// The author's number on the channel.
    seq: u64,
    /// The receipt's position in the channel.
    position: u64,
    seen: bool,
    re: bool,
    /// The frame's bytes less its time varint.
    frame_len: usize,
    /// The payload, where it is in the clear.
    clear: Option<Vec<u8>>,
}

fn varint_len(mut n: u64) -> usize {
    let mut len = 1;
    while n >= 0x80 {
        n >>= 7;
        len += 1;
    }
    len
}

/// The frames Black's agent receives during play (up to the first disclosure: after the end
/// the record is public and every sealed message is disclosed anyway), with the index in the
/// record of each.
fn black_frames(record: &MatchRecord) -> Vec<(usize, Shape)> {
    let agreed = record.terms.verify().expect("terms");
    let colours = colours(record);
    let black = colours.black;
    let mut out = Vec::new();
    for (i, e) in record.entries.iter().enumerate() {
        let body = MessageBody::from_canonical(&e.message.body).expect("a body");
        if !reads(&agreed, &colours, &black, body.channel) {
            continue;
        }
        if matches!(body.payload, Payload::Disclose(_)) {
            break;
        }
        let receipt = Receipt::from_canonical(&e.receipt.receipt).expect("a receipt");
        assert_eq!(receipt.channel, body.channel);
        let frame = ServerFrame::Entry(e.clone()).to_canonical();
        let clear = match &body.payload {
            Payload::Sealed(_) => None,
            p => Some(p.to_canonical()),
        };
        out.push((
            i,
            Shape {
                kind: body.payload.kind(),
                channel: body.channel,
                author: body.author,
                seq: body.seq,
                position: receipt.position,
                seen: body.seen.is_some(),
                re: body.re.is_some(),
                frame_len: frame.len() - varint_len(receipt.time_ms),
                clear,
            },
        ));
    }
    out
}

fn colours(record: &MatchRecord) -> ByColour {
    let agreed = record.terms.verify().expect("terms");
    // Colours::FirstIsWhite in every run here.
    ByColour { white: agreed.terms.players[0].key, black: agreed.terms.players[1].key }
}

/// White's policy: the self-play's own default bot for player 0 (same seed, so the same
/// choices), with the hidden part changed at its `at`-th choice: `k` attempts that are never
/// legal first (Kriegspiel), or another of the offered moves (`other`).
struct Changed {
    inner: RandomBot,
    at: usize,
    asked: usize,
    attempts: usize,
    other: bool,
    inserted: usize,
}

impl Changed {
    fn new(seed: u64, at: usize, attempts: usize, other: bool) -> Changed {
        Changed {
            inner: RandomBot::new(derive(seed, "bot-0")),
            at,
            asked: 0,
            attempts,
            other,
            inserted: 0,
        }
    }
}

/// A Kriegspiel attempt no position allows: a promotion from the third rank to the fourth.
fn never_legal(i: usize) -> Vec<u8> {
    let file = char::from(b'a' + u8::try_from(i % 8).expect("a file"));
    rules::kriegspiel::parse_attempt(&format!("{file}3{file}4q")).expect("UCI text").to_canonical()
}

impl Policy for Changed {
    fn decide(&mut self, variant: Variant, side: Color, ask: &Ask) -> Vec<u8> {
        let choice = matches!(ask, Ask::Choose(options) if options.len() > 1);
        if choice && self.asked == self.at && self.inserted < self.attempts {
            self.inserted += 1;
            return never_legal(self.inserted);
        }
        let picked = self.inner.decide(variant, side, ask);
        if !choice {
            return picked;
        }
        self.asked += 1;
        match ask {
            Ask::Choose(options) if self.other && self.asked == self.at + 1 => {
                let i = options.iter().position(|o| *o == picked).unwrap_or(0);
                options[(i + 1) % options.len()].clone()
            }
            _ => picked,
        }
    }
}

fn run(variant: Variant, seed: u64, white: Option<Changed>) -> MatchRecord {
    let mut config = SelfplayConfig::new(variant, seed);
    config.colours = Colours::FirstIsWhite;
    config.policies[0] = Some(Box::new(white.unwrap_or_else(|| Changed::new(seed, 0, 0, false))));
    let s = selfplay_with(config).unwrap_or_else(|e| panic!("{variant}/{seed}: {e}"));
    assert!(s.refused.is_empty(), "{variant}/{seed}: relay refused {:?}", s.refused);
    assert!(s.faults.is_empty(), "{variant}/{seed}: faults {:?}", s.faults);
    assert!(s.summary.result.is_some(), "{variant}/{seed}: no result");
    let verdict = verifier::verify(&s.bytes);
    assert!(verdict.is_valid(), "{variant}/{seed}: {verdict:?}");
    s.record
}

/// Entries on White's private channel before the first disclosure.
fn white_channel(record: &MatchRecord) -> usize {
    record
        .entries
        .iter()
        .map(|e| MessageBody::from_canonical(&e.message.body).expect("a body"))
        .take_while(|b| !matches!(b.payload, Payload::Disclose(_)))
        .filter(|b| b.channel == Channel::WhiteUmpire)
        .count()
}

#[test]
fn kriegspiel_illegal_attempts_leave_no_trace_in_what_the_opponent_receives() {
    for (seed, at, k) in [(1, 3, 3), (4, 0, 1), (4, 6, 5)] {
        let plain = run(Variant::Kriegspiel, seed, None);
        let tried = run(Variant::Kriegspiel, seed, Some(Changed::new(seed, at, k, false)));
        // The attempts happened: k more attempts on White's channel, each answered there.
        assert_eq!(
            white_channel(&tried),
            white_channel(&plain) + 2 * k,
            "seed {seed}: {k} attempts and their answers"
        );
        let (a, b) = (black_frames(&plain), black_frames(&tried));
        assert!(a.len() > 10, "seed {seed}: a game to compare");
        assert_eq!(a.len(), b.len(), "seed {seed}: as many frames");
        for ((i, x), (j, y)) in a.iter().zip(&b) {
            assert_eq!(x, y, "seed {seed}: Black's frames {i} and {j} differ in shape");
        }
        // And the runs do differ where the attempts were: the record, not Black's view.
        assert_ne!(plain.entries.len(), tried.entries.len());
    }
}

/// SIC and 6x6 hide the moves themselves: White plays another legal move at one turn, and
/// Black's frames keep their shape until the game's public course differs (a payload in the
/// clear: a `Turn`, a claim), with the turn changed included.
#[test]
fn sic_and_6x6_hidden_moves_leave_no_trace_in_what_the_opponent_receives() {
    for (variant, seed, at) in
        [(Variant::Sic, 4, 2), (Variant::Sic, 5, 5), (Variant::SecretChess6, 1, 3)]
    {
        let plain = run(variant, seed, None);
        let other = run(variant, seed, Some(Changed::new(seed, at, 0, true)));
        // Where the records part: White's changed move, on her channel.
        let split = plain
            .entries
            .iter()
            .zip(&other.entries)
            .position(|(x, y)| x.message != y.message)
            .expect("another move was played");
        let body = MessageBody::from_canonical(&plain.entries[split].message.body).expect("body");
        assert_eq!(body.channel, Channel::WhiteUmpire, "{variant}/{seed}: the change is hidden");
        let (a, b) = (black_frames(&plain), black_frames(&other));
        let mut compared_after = 0;
        for ((i, x), (_, y)) in a.iter().zip(&b) {
            if (x.clear.is_some() || y.clear.is_some()) && x.clear != y.clear {
                break; // the public course parted: from here on the games differ openly
            }
            assert_eq!(x, y, "{variant}/{seed}: Black's frame {i} differs in shape");
            if *i > split {
                compared_after += 1;
            }
        }
        assert!(
            compared_after >= 2,
            "{variant}/{seed}: the answers to the changed move were compared ({compared_after})"
        );
    }
}

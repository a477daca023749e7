//! The sans-IO relay: chaining, replays, commitments, colours, sealed channels, clocks.
mod common;

use common::{Cast, agreed, cast, sign, terms};
use protocol::codec::{Canonical, VERSION};
use protocol::commitment::{self, Opening, PRIVATE_SEED, PUBLIC_CONTRIBUTION};
use protocol::message::{
    Author, Expectation, MessageBody, MessageError, Payload, SignedMessage, seal_context,
};
use protocol::record::{MatchRecord, RecordError};
use protocol::relay::{Relay, RelayError, RelayEvent};
use protocol::seal::{self, SealSecret};
use protocol::terms::{AgreedTerms, Colours};
use protocol::{Channel, Side, seed};

fn relay(c: &Cast, colours: Colours) -> (Relay, AgreedTerms) {
    let (_, agreed) = agreed(c, colours, true);
    let mut r = Relay::new(c.relay.clone(), agreed.clone()).expect("the fixture relay");
    // Drain the colour event of fixed colours.
    while r.poll_event().is_some() {}
    (r, agreed)
}

fn action(bytes: &[u8]) -> Payload {
    Payload::Action(bytes.to_vec())
}

fn send(
    r: &mut Relay,
    m: &SignedMessage,
    now: u64,
) -> Result<protocol::relay::Accepted, RelayError> {
    r.accept(&m.to_canonical(), now)
}

#[test]
fn accepted_messages_get_receipts_that_verify() {
    let c = cast();
    let (mut r, agreed) = relay(&c, Colours::FirstIsWhite);
    let mut alice = Author::new(c.alice.clone(), agreed.match_id);
    let mut bob = Author::new(c.bob.clone(), agreed.match_id);
    let m0 = alice.write(Channel::Public, action(b"e2e4"));
    let a0 = send(&mut r, &m0, 10).unwrap();
    bob.saw(Channel::Public, a0.hash);
    let m1 = bob.write(Channel::Public, action(b"e7e5"));
    let a1 = send(&mut r, &m1, 20).unwrap();
    for (a, seq, time) in [(&a0, 0, 10), (&a1, 1, 20)] {
        let receipt =
            a.entry.receipt.verify(&c.relay.public(), &agreed.match_id, &a.entry.message).unwrap();
        assert_eq!(
            (receipt.seq, receipt.time_ms, receipt.message),
            (seq, time, a.entry.message.signed_hash())
        );
    }
    assert_eq!(r.entries().len(), 2);
    // The heads chain: the second receipt's head is the hash of the first's and its entry.
    let heads: Vec<_> =
        r.entries().iter().map(|e| e.receipt.open(&c.relay.public()).unwrap()).collect();
    let h0 = protocol::message::genesis_head(&agreed.match_id);
    let h1 = protocol::message::next_head(&h0, 0, 10, &m0.signed_hash());
    let h2 = protocol::message::next_head(&h1, 1, 20, &m1.signed_hash());
    assert_eq!((heads[0].head, heads[1].head, r.head()), (h1, h2, h2));
}

#[test]
fn forged_message_is_refused() {
    let c = cast();
    let (mut r, agreed) = relay(&c, Colours::FirstIsWhite);
    let mut m = Author::new(c.alice.clone(), agreed.match_id).write(Channel::Public, action(b"x"));
    m.signature.r[3] ^= 0x10;
    assert!(matches!(send(&mut r, &m, 0), Err(RelayError::Message(MessageError::Signature(_)))));
    // Someone else signing a body that names alice as author.
    let body =
        Author::new(c.alice.clone(), agreed.match_id).next_body(Channel::Public, action(b"x"));
    let forged = SignedMessage::sign(&body, &c.bob);
    assert!(matches!(send(&mut r, &forged, 0), Err(RelayError::Message(_))));
    assert!(r.entries().is_empty());
}

#[test]
fn replay_from_another_match_is_refused() {
    let c = cast();
    let (mut r, _) = relay(&c, Colours::FirstIsWhite);
    // Same players, terms with another nonce: another match id.
    let other = sign(&c, &terms(&c, Colours::FirstIsWhite, true, 9)).verify().unwrap();
    let m = Author::new(c.alice.clone(), other.match_id).write(Channel::Public, action(b"e2e4"));
    assert!(matches!(
        send(&mut r, &m, 0),
        Err(RelayError::Message(MessageError::WrongMatch { .. }))
    ));
}

#[test]
fn duplicates_replays_and_reorders_are_refused() {
    let c = cast();
    let (mut r, agreed) = relay(&c, Colours::FirstIsWhite);
    let mut alice = Author::new(c.alice.clone(), agreed.match_id);
    let m0 = alice.write(Channel::Public, action(b"e2e4"));
    let m1 = alice.write(Channel::Public, action(b"d2d4"));
    let m2 = alice.write(Channel::Public, action(b"c2c4"));
    // Reordered: seq 1 before seq 0.
    assert!(matches!(
        send(&mut r, &m1, 0),
        Err(RelayError::OutOfOrder { seq: 1, expected: 0, .. })
    ));
    send(&mut r, &m0, 0).unwrap();
    // The same bytes again.
    assert!(matches!(send(&mut r, &m0, 1), Err(RelayError::Duplicate { .. })));
    send(&mut r, &m1, 2).unwrap();
    // A different message reusing seq 1 (replay of a sequence number).
    let mut again = Author::new(c.alice.clone(), agreed.match_id);
    let _ = again.write(Channel::Public, action(b"e2e4"));
    let other1 = again.write(Channel::Public, action(b"g1f3"));
    assert!(matches!(
        send(&mut r, &other1, 3),
        Err(RelayError::Replayed { seq: 1, expected: 2, .. })
    ));
    // The refusals changed nothing: the right next message still goes through.
    assert_eq!(send(&mut r, &m2, 4).map(|a| a.body.seq), Ok(2));
}

#[test]
fn prev_must_name_an_accepted_message_not_older_than_the_authors_own() {
    let c = cast();
    let (mut r, agreed) = relay(&c, Colours::FirstIsWhite);
    let mut alice = Author::new(c.alice.clone(), agreed.match_id);
    let mut bob = Author::new(c.bob.clone(), agreed.match_id);
    let a0 = send(&mut r, &alice.write(Channel::Public, action(b"e2e4")), 0).unwrap();
    // Bob names a message the relay never accepted.
    bob.saw(Channel::Public, protocol::MessageHash([0xee; 32]));
    let bad = bob.write(Channel::Public, action(b"e7e5"));
    assert!(matches!(send(&mut r, &bad, 1), Err(RelayError::UnknownPrev { .. })));
    let mut bob = Author::new(c.bob.clone(), agreed.match_id);
    bob.saw(Channel::Public, a0.hash);
    let b0 = send(&mut r, &bob.write(Channel::Public, action(b"e7e5")), 2).unwrap();
    alice.saw(Channel::Public, b0.hash);
    send(&mut r, &alice.write(Channel::Public, action(b"g1f3")), 3).unwrap();
    // Bob's second message pointing back before his own first: stale.
    let body = MessageBody {
        version: VERSION,
        match_id: agreed.match_id,
        channel: Channel::Public,
        author: c.bob.public(),
        seq: 1,
        prev: Some(a0.hash),
        payload: action(b"b8c6"),
    };
    let stale = SignedMessage::sign(&body, &c.bob);
    assert!(matches!(send(&mut r, &stale, 4), Err(RelayError::StalePrev { .. })));
    let none = SignedMessage::sign(&MessageBody { prev: None, ..body }, &c.bob);
    assert!(matches!(send(&mut r, &none, 4), Err(RelayError::StalePrev { .. })));
}

#[test]
fn who_may_write_where() {
    let c = cast();
    let (mut r, agreed) = relay(&c, Colours::FirstIsWhite);
    let umpire_key = SealSecret::of(&c.umpire).public();
    let out = Author::new(c.outsider.clone(), agreed.match_id).write(Channel::Public, action(b"x"));
    assert!(matches!(send(&mut r, &out, 0), Err(RelayError::NotAllowed { .. })));
    // The relay's own key cannot be used from outside.
    let fake = Author::new(c.relay.clone(), agreed.match_id).write(Channel::Public, action(b"x"));
    assert!(matches!(send(&mut r, &fake, 0), Err(RelayError::NotAllowed { .. })));
    // Alice (white) may not write on black's private channel.
    let (m, _) = Author::new(c.alice.clone(), agreed.match_id)
        .write_sealed(Channel::BlackUmpire, &action(b"x"), &umpire_key, &[1; 32])
        .unwrap();
    assert!(matches!(send(&mut r, &m, 0), Err(RelayError::NotAllowed { .. })));
    // Plaintext on a private channel.
    let m = Author::new(c.alice.clone(), agreed.match_id).write(Channel::WhiteUmpire, action(b"x"));
    assert!(matches!(send(&mut r, &m, 0), Err(RelayError::Unsealed { kind: "action", .. })));
    // A timeout notice is the relay's alone.
    let m = Author::new(c.alice.clone(), agreed.match_id).write(
        Channel::Public,
        Payload::Timeout { side: Side::Black, expectation: Expectation::Move, deadline_ms: 0 },
    );
    assert!(matches!(send(&mut r, &m, 0), Err(RelayError::PayloadNotAllowed { .. })));
    // No private channels without an umpire.
    let (_, open_game) = agreed_unumpired(&c);
    let mut r2 = Relay::new(c.relay.clone(), open_game.clone()).unwrap();
    let (m, _) = Author::new(c.alice.clone(), open_game.match_id)
        .write_sealed(Channel::WhiteUmpire, &action(b"x"), &umpire_key, &[1; 32])
        .unwrap();
    assert!(matches!(send(&mut r2, &m, 0), Err(RelayError::ChannelClosed { .. })));
}

fn agreed_unumpired(c: &Cast) -> (protocol::terms::SignedTerms, AgreedTerms) {
    common::agreed(c, Colours::FirstIsWhite, false)
}

/// ARCHITECTURE.md steps 2-5 with drawn colours: commitments, public reveal, colours, setup
/// seeds, sealed setup to the umpire, an umpire acknowledgement and a sealed move.
#[test]
fn commit_reveal_draw_and_sealed_play() {
    let c = cast();
    let (signed, agreed) = common::agreed(&c, Colours::Drawn, true);
    let mut r = Relay::new(c.relay.clone(), agreed.clone()).unwrap();
    let id = agreed.match_id;
    let umpire_seal = SealSecret::of(&c.umpire);
    let players = [(&c.alice, [0x11u8; 32], [0x12u8; 32]), (&c.bob, [0x21; 32], [0x22; 32])];
    let mut authors: Vec<Author> =
        players.iter().map(|(who, _, _)| Author::new((*who).clone(), id)).collect();
    let mut now = 0;
    // Step 2: both commit to a private seed and a public contribution.
    for (i, (who, private, public)) in players.iter().enumerate() {
        for (purpose, value, nonce) in [
            (PRIVATE_SEED, private, [i as u8; 32]),
            (PUBLIC_CONTRIBUTION, public, [9 + i as u8; 32]),
        ] {
            let commitment = commitment::commit(purpose, &id, &who.public(), value, &nonce);
            let m = authors[i]
                .write(Channel::Public, Payload::Commit { purpose: purpose.into(), commitment });
            now += 1;
            let a = send(&mut r, &m, now).unwrap();
            for other in authors.iter_mut() {
                other.saw(Channel::Public, a.hash);
            }
        }
    }
    // Private channels stay closed until the colours are drawn.
    let (early, _) = authors[0]
        .clone()
        .write_sealed(Channel::WhiteUmpire, &action(b"x"), &umpire_seal.public(), &[0; 32])
        .unwrap();
    assert!(matches!(send(&mut r, &early, now), Err(RelayError::ChannelClosed { .. })));
    assert_eq!(r.poll_event(), None);
    // A reveal that does not open its commitment is refused.
    let bad = authors[0].clone().write(
        Channel::Public,
        Payload::Reveal {
            purpose: PUBLIC_CONTRIBUTION.into(),
            opening: Opening { value: players[0].2.to_vec(), nonce: [0xff; 32] },
        },
    );
    assert!(matches!(send(&mut r, &bad, now), Err(RelayError::BadOpening(_))));
    // Step 3: both open their public contributions.
    for (i, (_, _, public)) in players.iter().enumerate() {
        let opening = Opening { value: public.to_vec(), nonce: [9 + i as u8; 32] };
        let m = authors[i].write(
            Channel::Public,
            Payload::Reveal { purpose: PUBLIC_CONTRIBUTION.into(), opening },
        );
        now += 1;
        let a = send(&mut r, &m, now).unwrap();
        for other in authors.iter_mut() {
            other.saw(Channel::Public, a.hash);
        }
    }
    let expected = seed::draw_colours(&agreed.terms, &id, &[players[0].2, players[1].2]);
    assert_eq!(r.poll_event(), Some(RelayEvent::Colours(expected)));
    assert_eq!(r.colours(), Some(expected));
    // Each side's setup seed: own private seed, opponent's public contribution.
    let white = if expected.white == c.alice.public() { 0 } else { 1 };
    let white_seed = seed::setup_seed(&players[white].1, &players[1 - white].2, &id, Side::White);
    assert_ne!(
        white_seed,
        seed::setup_seed(&players[white].1, &players[1 - white].2, &id, Side::Black)
    );
    // Step 4: white seals its private seed opening to the umpire; the umpire acknowledges.
    let inner = Payload::Open {
        purpose: PRIVATE_SEED.into(),
        opening: Opening { value: players[white].1.to_vec(), nonce: [white as u8; 32] },
    };
    let (sealed_msg, disclosure) = authors[white]
        .write_sealed(Channel::WhiteUmpire, &inner, &umpire_seal.public(), &[0x33; 32])
        .unwrap();
    now += 1;
    let a = send(&mut r, &sealed_msg, now).unwrap();
    let Payload::Sealed(sealed) = &a.body.payload else { panic!("sealed payload expected") };
    let plain = seal::open(&umpire_seal, &seal_context(&a.body), sealed).unwrap();
    assert_eq!(Payload::from_canonical(&plain), Ok(inner));
    let mut umpire = Author::new(c.umpire.clone(), id);
    umpire.saw(Channel::WhiteUmpire, a.hash);
    let white_seal = SealSecret::of(players[white].0).public();
    let (ack, _) = umpire
        .write_sealed(
            Channel::WhiteUmpire,
            &Payload::Ack { message: a.hash },
            &white_seal,
            &[0x44; 32],
        )
        .unwrap();
    now += 1;
    send(&mut r, &ack, now).unwrap();
    // The record of all this passes the envelope check, and its disclosure re-seals.
    let record = MatchRecord {
        version: VERSION,
        terms: signed,
        entries: r.entries().to_vec(),
        disclosures: vec![disclosure.clone()],
    };
    let back = MatchRecord::from_canonical(&record.to_canonical()).unwrap();
    assert_eq!(back.check_envelope().map(|t| t.0.match_id), Ok(id));
    assert_eq!(
        seal::check_disclosure_deep(
            &umpire_seal.public(),
            &seal_context(&a.body),
            sealed,
            &disclosure.plaintext,
            &disclosure.seal_seed
        ),
        Ok(())
    );
    // The record's disclosures check against the sealed messages, and a false one does not.
    let disclosed = back.check_disclosures(&agreed, &expected).unwrap();
    assert_eq!(disclosed.get(&a.hash), Some(&Payload::from_canonical(&plain).unwrap()));
    let mut lie = record.clone();
    lie.disclosures[0].plaintext = action(b"resign").to_canonical();
    assert!(matches!(
        lie.check_disclosures(&agreed, &expected),
        Err(RecordError::Disclosure { .. })
    ));
    // A record whose entries were reordered is refused.
    let mut swapped = record.clone();
    swapped.entries.swap(0, 1);
    assert!(matches!(swapped.check_envelope(), Err(RecordError::ReceiptOrder { .. })));
}

#[test]
fn copied_commitment_and_double_commit_are_refused() {
    let c = cast();
    let (mut r, agreed) = relay(&c, Colours::Drawn);
    let id = agreed.match_id;
    let commitment = commitment::commit(PRIVATE_SEED, &id, &c.alice.public(), &[1; 32], &[2; 32]);
    let payload = Payload::Commit { purpose: PRIVATE_SEED.into(), commitment };
    let mut alice = Author::new(c.alice.clone(), id);
    send(&mut r, &alice.write(Channel::Public, payload.clone()), 0).unwrap();
    // Bob copies alice's commitment (under another purpose so only the copy is at fault).
    let copy = Payload::Commit { purpose: PUBLIC_CONTRIBUTION.into(), commitment };
    let m = Author::new(c.bob.clone(), id).write(Channel::Public, copy);
    let Err(RelayError::DuplicateCommitment(e)) = send(&mut r, &m, 1) else {
        panic!("copy accepted")
    };
    assert_eq!((e.first.author, e.second.author), (c.alice.public(), c.bob.public()));
    // Alice commits to her private seed a second time.
    let again = commitment::commit(PRIVATE_SEED, &id, &c.alice.public(), &[3; 32], &[2; 32]);
    let m = alice.write(
        Channel::Public,
        Payload::Commit { purpose: PRIVATE_SEED.into(), commitment: again },
    );
    assert!(matches!(send(&mut r, &m, 2), Err(RelayError::Recommitted { .. })));
    // Revealing what was never committed.
    let mut bob = Author::new(c.bob.clone(), id);
    let m = bob.write(
        Channel::Public,
        Payload::Reveal {
            purpose: PUBLIC_CONTRIBUTION.into(),
            opening: Opening { value: vec![], nonce: [0; 32] },
        },
    );
    assert!(matches!(send(&mut r, &m, 3), Err(RelayError::NotCommitted { .. })));
}

#[test]
fn only_the_terms_relay_key_runs_the_relay() {
    let c = cast();
    let (_, agreed) = common::agreed(&c, Colours::FirstIsWhite, true);
    assert!(matches!(Relay::new(c.outsider.clone(), agreed), Err(RelayError::NotTheRelay { .. })));
}

#[test]
fn a_move_runs_the_clock_with_increment() {
    let c = cast();
    let (mut r, agreed) = relay(&c, Colours::FirstIsWhite);
    r.expect(Side::White, Expectation::Move, 100);
    assert_eq!(r.poll_timeout(), Some(1100));
    let m = Author::new(c.alice.clone(), agreed.match_id).write(Channel::Public, action(b"e2e4"));
    send(&mut r, &m, 400).unwrap();
    // 1000 - 300 used + 100 increment.
    assert_eq!(r.remaining_ms(Side::White), 800);
    assert_eq!(r.poll_timeout(), None);
    r.handle_timeout(10_000);
    assert_eq!(r.poll_event(), None);
}

#[test]
fn deadline_expiry_is_reported_signed_and_ends_that_sides_moves() {
    let c = cast();
    let (mut r, agreed) = relay(&c, Colours::FirstIsWhite);
    r.expect(Side::Black, Expectation::Move, 0);
    r.handle_timeout(1000); // exactly at the deadline: still in time
    assert_eq!(r.poll_event(), None);
    r.handle_timeout(1001);
    let Some(RelayEvent::TimedOut { side, expectation, deadline_ms, notice }) = r.poll_event()
    else {
        panic!("no timeout event");
    };
    assert_eq!((side, expectation, deadline_ms), (Side::Black, Expectation::Move, 1000));
    let body = notice.message.verify_for(&agreed.match_id).unwrap();
    assert_eq!(body.author, c.relay.public());
    assert_eq!(
        body.payload,
        Payload::Timeout { side: Side::Black, expectation, deadline_ms: 1000 }
    );
    let receipt =
        notice.receipt.verify(&c.relay.public(), &agreed.match_id, &notice.message).unwrap();
    assert_eq!(receipt.time_ms, 1001);
    assert!(r.has_timed_out(Side::Black));
    let m = Author::new(c.bob.clone(), agreed.match_id).write(Channel::Public, action(b"e7e5"));
    assert!(matches!(send(&mut r, &m, 1002), Err(RelayError::TimedOut { side: Side::Black })));
}

#[test]
fn a_late_move_is_refused_and_a_missed_reveal_reported() {
    let c = cast();
    let (mut r, agreed) = relay(&c, Colours::FirstIsWhite);
    r.expect(Side::White, Expectation::Move, 0);
    r.expect(Side::Black, Expectation::Reveal, 0);
    let mut alice = Author::new(c.alice.clone(), agreed.match_id);
    // The move arrives after white's deadline: accept() expires deadlines first.
    let m = alice.write(Channel::Public, action(b"e2e4"));
    assert!(matches!(send(&mut r, &m, 1500), Err(RelayError::TimedOut { side: Side::White })));
    let mut sides = Vec::new();
    while let Some(e) = r.poll_event() {
        if let RelayEvent::TimedOut { side, expectation, .. } = e {
            sides.push((side, expectation));
        }
    }
    assert_eq!(sides, vec![(Side::White, Expectation::Move), (Side::Black, Expectation::Reveal)]);
    // The two timeout notices are chained on the public channel and numbered 0 and 1.
    let entries = r.entries();
    assert_eq!(entries.len(), 2);
    let second = entries[1].message.verify().unwrap();
    assert_eq!((second.seq, second.prev), (1, Some(entries[0].message.hash())));
}

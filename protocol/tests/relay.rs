//! The sans-IO relay and its coordinator, driven with real signed messages: receipts and the
//! log head, numbering and `seen`, who may say what (docs/PROTOCOL.md), commitments and colors,
//! clocks and deadlines, the race rule, limits, and resuming from stored entries.
mod common;

use common::{ALICE, BOB, Cast, PRIVATE_SEEDS, Table, UMPIRE, cast, sign, terms, terms_for};
use protocol::codec::Canonical;
use protocol::commitment::{self, Opening, PRIVATE_SEED, PUBLIC_CONTRIBUTION};
use protocol::coordinator::{Admission, NotEntitled};
use protocol::message::{
    self, Expectation, MessageBody, MessageError, Owed, Payload, Seen, SignedMessage, seal_context,
};
use protocol::relay::{ChainError, Relay, RelayError, RelayEvent, ResumeError, SenderError};
use protocol::seal::{self, SealSecret};
use protocol::terms::{ColorAssignment, Limits, MatchTerms};
use protocol::{Channel, Color, Party, flow, seed};
use rules::Variant;

fn chess(c: &Cast) -> MatchTerms {
    terms_for(c, Variant::Chess, ColorAssignment::FirstIsWhite)
}

fn action(bytes: &[u8]) -> Payload {
    Payload::Action(bytes.to_vec())
}

fn resign(side: Color) -> Payload {
    Payload::Claim(flow::loss_of(side, rules::EndReason::Resignation.into()))
}

/// A chess match through commit and reveal: play starts at `t = 40`, White (alice) to move.
fn chess_in_play(c: &Cast) -> Table {
    let mut t = Table::new(c, chess(c), 0);
    t.open_match([10, 20, 30, 40]);
    t
}

/// The message `who` would write next, with its `seen` replaced.
fn with_seen(t: &Table, who: usize, seen: Option<Seen>, p: Payload) -> SignedMessage {
    let c = cast();
    let identity = [&c.alice, &c.bob, &c.umpire][who];
    let body = MessageBody { seen, ..t.authors[who].next_body(Channel::Public, None, p) };
    SignedMessage::sign(&body, identity)
}

#[test]
fn receipts_number_every_entry_and_chain_the_heads() {
    let c = cast();
    let mut t = Table::new(&c, chess(&c), 5);
    t.commit(ALICE, 10);
    t.commit(BOB, 20);
    let id = t.agreed.match_id;
    // Entry 0 is the relay's own Start notice, then the two commitments.
    assert_eq!(t.relay.entries().len(), 3);
    let start = t.body(0);
    assert_eq!((start.author, start.seq, start.payload), (c.relay.public(), 0, Payload::Start));
    let mut head = message::genesis_head(&id, Channel::Public);
    let mut order = message::genesis_order(&id);
    for (i, time) in [5, 10, 20].into_iter().enumerate() {
        let e = &t.relay.entries()[i];
        let r = e.receipt.verify(&c.relay.public(), &id, &e.message).expect("receipt verifies");
        head = message::next_head(&head, i as u64, time, &e.message.signed_hash());
        assert_eq!(
            (r.channel, r.position, r.time_ms, r.head, r.after),
            (Channel::Public, i as u64, time, head, order)
        );
        order = message::next_order(&order, Channel::Public, &head);
        assert_eq!(r.order(), order);
    }
    assert_eq!(t.relay.head(), order);
    // Bob's commitment names alice's as the last entry he had seen, by its order head.
    let bob = t.body(2);
    assert_eq!(bob.seen, Some(Seen { order: t.receipt(1).order() }));
    // A receipt does not verify for another message.
    let e = &t.relay.entries()[1];
    assert!(e.receipt.verify(&c.relay.public(), &id, &t.relay.entries()[2].message).is_err());
}

#[test]
fn forged_messages_are_refused_and_change_nothing() {
    let c = cast();
    let mut t = Table::new(&c, chess(&c), 0);
    let before = (t.relay.entries().len(), t.relay.head());
    let mut m = t.write(ALICE, Channel::Public, None, action(b"x"));
    m.signature.r[3] ^= 0x10;
    assert!(matches!(
        t.relay.accept(&m.to_canonical(), 1),
        Err(RelayError::Message(MessageError::Signature(_)))
    ));
    // Bob signing a body that names alice as its author.
    let body = t.authors[ALICE].next_body(Channel::Public, None, action(b"x"));
    let forged = SignedMessage::sign(&body, &c.bob);
    assert!(matches!(t.relay.accept(&forged.to_canonical(), 1), Err(RelayError::Message(_))));
    // Garbage and a truncated message.
    assert!(matches!(t.relay.accept(&[0xff; 7], 1), Err(RelayError::Message(_))));
    let good = t.write(ALICE, Channel::Public, None, action(b"x")).to_canonical();
    assert!(matches!(t.relay.accept(&good[..good.len() - 1], 1), Err(RelayError::Message(_))));
    assert_eq!((t.relay.entries().len(), t.relay.head()), before);
}

#[test]
fn accept_by_refuses_another_authors_message_before_anything_else() {
    let c = cast();
    let mut t = chess_in_play(&c);
    let before = (t.relay.entries().len(), t.relay.head());
    // Alice's genuine, validly signed move, sent from Bob's socket after White's deadline
    // (1040): refused as an impostor's, and no deadline expires for it.
    let m = t.write(ALICE, Channel::Public, None, action(b"e2e4")).to_canonical();
    assert_eq!(
        t.relay.accept_by(&c.bob.public(), &m, 2000),
        Err(SenderError::Impostor { author: c.alice.public() })
    );
    assert_eq!((t.relay.entries().len(), t.relay.head()), before);
    assert_eq!(t.relay.poll_timeout(), Some(1040), "no deadline expired");
    // From its author's socket, in time: accepted, its index is where the log holds it.
    let accepted = t.relay.accept_by(&c.alice.public(), &m, 340).expect("alice's own move");
    assert_eq!(t.relay.entries()[accepted.index], accepted.entry);
    assert_eq!(accepted.hash, accepted.entry.message.hash());
    // A forged signature from the author's own socket is still refused by the relay.
    let mut forged = t.write(BOB, Channel::Public, None, action(b"e7e5"));
    forged.signature.s[0] ^= 1;
    assert!(matches!(
        t.relay.accept_by(&c.bob.public(), &forged.to_canonical(), 400),
        Err(SenderError::Refused(RelayError::Message(MessageError::Signature(_))))
    ));
    // Late from its author's socket: the deadline expires first, as with `accept`.
    let late = t.write(BOB, Channel::Public, None, action(b"e7e5")).to_canonical();
    assert!(matches!(
        t.relay.accept_by(&c.bob.public(), &late, 5000),
        Err(SenderError::Refused(RelayError::NotEntitled(NotEntitled::TimedOut { .. })))
    ));
}

#[test]
fn a_message_for_another_match_is_refused() {
    let c = cast();
    let mut t = Table::new(&c, chess(&c), 0);
    let other = sign(
        &c,
        &MatchTerms { players: terms(&c, ColorAssignment::Drawn, false, 9).players, ..chess(&c) },
    )
    .verify()
    .expect("other terms");
    assert_ne!(other.match_id, t.agreed.match_id);
    let m = protocol::message::Author::new(c.alice.clone(), other.match_id).write(
        Channel::Public,
        None,
        action(b"e2e4"),
    );
    assert!(matches!(
        t.relay.accept(&m.to_canonical(), 1),
        Err(RelayError::Message(MessageError::WrongMatch { .. }))
    ));
}

#[test]
fn numbering_allows_gaps_and_refuses_replays_and_reordering() {
    let c = cast();
    let mut t = Table::new(&c, chess(&c), 0);
    let (value, nonce) = common::CONTRIBUTIONS[ALICE];
    let id = t.agreed.match_id;
    let commitment =
        commitment::commit(PUBLIC_CONTRIBUTION, &id, &c.alice.public(), &value, &nonce);
    // Alice's message 0 was refused (here: never sent); her message 1 is accepted, leaving a
    // gap: a refusal does not block what its author writes after it.
    let mut ahead = t.authors[ALICE].clone();
    let m0 = ahead.write(Channel::Public, None, action(b"a"));
    let m1 = ahead.write(
        Channel::Public,
        None,
        Payload::Commit { purpose: PUBLIC_CONTRIBUTION, commitment },
    );
    assert_eq!(m1.verify().expect("signed").seq, 1);
    t.submit(ALICE, &m1, 1).expect("alice's commitment after a gap");
    // Her message 0 after her message 1: out of the order she signed them in.
    assert_eq!(
        t.relay.accept(&m0.to_canonical(), 2).err(),
        Some(RelayError::Chain(ChainError::OutOfOrder {
            channel: Channel::Public,
            seq: 0,
            last: 1
        }))
    );
    // The same bytes again, and another message with the same number.
    assert_eq!(
        t.relay.accept(&m1.to_canonical(), 3).err(),
        Some(RelayError::Chain(ChainError::Replayed { channel: Channel::Public, seq: 1 }))
    );
    let body =
        MessageBody { seq: 1, ..t.authors[ALICE].next_body(Channel::Public, None, action(b"c")) };
    let again = SignedMessage::sign(&body, &c.alice);
    assert_eq!(
        t.relay.accept(&again.to_canonical(), 3).err(),
        Some(RelayError::Chain(ChainError::Replayed { channel: Channel::Public, seq: 1 }))
    );
    assert_eq!(t.relay.entries().len(), 2);
    // Numbers count per channel: the same number on another channel is no replay (refused
    // here only by who may say what, not by numbering).
    let private = MessageBody {
        seq: 1,
        ..t.authors[ALICE].next_body(Channel::WhiteUmpire, None, action(b"d"))
    };
    let other = SignedMessage::sign(&private, &c.alice);
    assert!(matches!(t.relay.accept(&other.to_canonical(), 4), Err(RelayError::NotEntitled(_))));
}

#[test]
fn seen_must_name_an_entry_its_author_could_have_received() {
    let c = cast();
    let mut t =
        Table::new(&c, terms_for(&c, Variant::Kriegspiel, ColorAssignment::FirstIsWhite), 0);
    t.open_match([1, 2, 3, 4]);
    t.send(UMPIRE, Channel::Public, None, Payload::Turn { next: Owed::Side(Color::White) }, 5)
        .expect("the umpire starts play");
    let len = t.relay.entries().len() as u64;
    let order_of = |t: &Table, i: u64| t.receipt(i as usize).order();
    // An order head the log does not have: a channel head instead (a forked or invented view).
    let last = t.receipt(len as usize - 1);
    let m = with_seen(&t, BOB, Some(Seen { order: last.head }), resign(Color::Black));
    assert_eq!(
        t.relay.accept(&m.to_canonical(), 6).err(),
        Some(RelayError::Chain(ChainError::SeenUnknown { seen: last.head }))
    );
    // The order head the next entry would have if it were another one (a forked view).
    let forked = message::next_order(&last.order(), Channel::Public, &last.head);
    let m = with_seen(&t, BOB, Some(Seen { order: forked }), resign(Color::Black));
    assert_eq!(
        t.relay.accept(&m.to_canonical(), 6).err(),
        Some(RelayError::Chain(ChainError::SeenUnknown { seen: forked }))
    );
    // White's sealed attempt, then Black claiming to have seen it.
    let attempt = t.write_sealed(ALICE, Channel::WhiteUmpire, None, &action(b"e2e4"));
    t.submit(ALICE, &attempt, 7).expect("white's attempt");
    t.deliver(ALICE);
    t.deliver(UMPIRE);
    let at = t.relay.entries().len() as u64 - 1;
    let m = with_seen(&t, BOB, Some(Seen { order: order_of(&t, at) }), resign(Color::Black));
    assert_eq!(
        t.relay.accept(&m.to_canonical(), 8).err(),
        Some(RelayError::Chain(ChainError::SeenInvisible { seen: at }))
    );
    // Going back from what the author's previous message had seen.
    let back = Some(Seen { order: order_of(&t, 1) });
    let m = with_seen(&t, BOB, back, resign(Color::Black));
    assert!(matches!(
        t.relay.accept(&m.to_canonical(), 8),
        Err(RelayError::Chain(ChainError::SeenBackwards { .. }))
    ));
}

#[test]
fn who_may_say_what() {
    let c = cast();
    let mut t =
        Table::new(&c, terms_for(&c, Variant::Kriegspiel, ColorAssignment::FirstIsWhite), 0);
    let stranger = protocol::message::Author::new(c.outsider.clone(), t.agreed.match_id).write(
        Channel::Public,
        None,
        action(b"x"),
    );
    assert!(matches!(
        t.relay.accept(&stranger.to_canonical(), 1),
        Err(RelayError::NotEntitled(NotEntitled::Stranger { .. }))
    ));
    // The relay's key from outside, a player's Timeout, Start or Turn: never.
    let fake = protocol::message::Author::new(c.relay.clone(), t.agreed.match_id).write(
        Channel::Public,
        None,
        action(b"x"),
    );
    assert!(t.relay.accept(&fake.to_canonical(), 1).is_err());
    for p in [
        Payload::Timeout { party: Party::Black, expectation: Expectation::Move, deadline_ms: 0 },
        Payload::Start,
        Payload::Turn { next: Owed::Side(Color::White) },
    ] {
        let m = t.write(ALICE, Channel::Public, None, p);
        assert!(
            matches!(
                t.relay.accept(&m.to_canonical(), 1),
                Err(RelayError::NotEntitled(NotEntitled::Never { who: "White", .. }))
            ),
            "{:?}",
            m.verify().map(|b| b.payload.kind())
        );
    }
    // Private channels before colors are known.
    let m = t.write_sealed(ALICE, Channel::WhiteUmpire, None, &action(b"e2e4"));
    assert!(matches!(
        t.relay.accept(&m.to_canonical(), 1),
        Err(RelayError::NotEntitled(NotEntitled::NotNow { .. }))
    ));
    t.open_match([2, 3, 4, 5]);
    // Alice (white) on black's channel; plaintext on her own; sealed on the public one.
    let m = t.write_sealed(ALICE, Channel::BlackUmpire, None, &action(b"e2e4"));
    assert!(matches!(
        t.relay.accept(&m.to_canonical(), 6),
        Err(RelayError::NotEntitled(NotEntitled::Never { .. }))
    ));
    let m = t.write(ALICE, Channel::WhiteUmpire, None, action(b"e2e4"));
    assert!(matches!(
        t.relay.accept(&m.to_canonical(), 6),
        Err(RelayError::NotEntitled(NotEntitled::Never { .. }))
    ));
    // The umpire publishing an observation in clear (a leak of one side's view): never.
    let m = t.write(UMPIRE, Channel::Public, None, Payload::Observation(b"a2 a3 b2".to_vec()));
    assert!(matches!(
        t.relay.accept(&m.to_canonical(), 6),
        Err(RelayError::NotEntitled(NotEntitled::Never { who: "the umpire", .. }))
    ));
    // A player's action in clear in an umpired game: never.
    let m = t.write(ALICE, Channel::Public, None, action(b"e2e4"));
    assert!(matches!(
        t.relay.accept(&m.to_canonical(), 6),
        Err(RelayError::NotEntitled(NotEntitled::Never { .. }))
    ));
    // White acting before the umpire's Turn started play: not now.
    let m = t.write_sealed(ALICE, Channel::WhiteUmpire, None, &action(b"e2e4"));
    assert!(matches!(
        t.relay.accept(&m.to_canonical(), 6),
        Err(RelayError::NotEntitled(NotEntitled::NotNow { .. }))
    ));
    // Nothing refused was recorded: Start plus two commitments and two reveals.
    assert_eq!(t.relay.entries().len(), 5);
    // Without an umpire there are no private channels at all.
    let mut open = Table::new(&c, chess(&c), 0);
    open.open_match([1, 2, 3, 4]);
    let m = open.write_sealed(ALICE, Channel::WhiteUmpire, None, &action(b"e2e4"));
    assert!(matches!(
        open.relay.accept(&m.to_canonical(), 5),
        Err(RelayError::NotEntitled(NotEntitled::Never { .. }))
    ));
}

#[test]
fn commit_reveal_draws_colors_and_the_umpire_opens_sealed_setups() {
    let c = cast();
    let mut t = Table::new(&c, terms_for(&c, Variant::Sic, ColorAssignment::Drawn), 0);
    t.commit(ALICE, 1);
    // A reveal before both have committed is not due yet; a reveal that does not open its
    // commitment is refused.
    let early = t.write(ALICE, Channel::Public, None, Table::reveal_payload(ALICE));
    assert!(matches!(
        t.relay.accept(&early.to_canonical(), 2),
        Err(RelayError::NotEntitled(NotEntitled::NotNow { .. }))
    ));
    t.commit(BOB, 2);
    let mut bad = Table::reveal_payload(ALICE);
    if let Payload::Reveal { opening, .. } = &mut bad {
        opening.nonce = [0xff; 32];
    }
    let m = t.write(ALICE, Channel::Public, None, bad);
    assert!(matches!(
        t.relay.accept(&m.to_canonical(), 3),
        Err(RelayError::NotEntitled(NotEntitled::BadOpening(_)))
    ));
    t.send(ALICE, Channel::Public, None, Table::reveal_payload(ALICE), 3).expect("reveal");
    // A second reveal of the same contribution.
    let m = t.write(ALICE, Channel::Public, None, Table::reveal_payload(ALICE));
    assert!(matches!(
        t.relay.accept(&m.to_canonical(), 3),
        Err(RelayError::NotEntitled(NotEntitled::NothingToOpen { .. }))
    ));
    assert_eq!(t.relay.colors(), None);
    t.send(BOB, Channel::Public, None, Table::reveal_payload(BOB), 4).expect("reveal");
    let contributions = [common::CONTRIBUTIONS[ALICE].0, common::CONTRIBUTIONS[BOB].0];
    let expected = seed::draw_colors(&t.agreed.terms, &t.agreed.match_id, &contributions);
    assert_eq!(t.relay.poll_event(), Some(RelayEvent::Colors(expected)));
    assert_eq!(t.relay.colors(), Some(expected));
    // White seals its private-seed opening to the umpire, who can open it.
    let white = t.of(Color::White);
    let (value, nonce) = PRIVATE_SEEDS[white];
    let inner =
        Payload::Open { purpose: PRIVATE_SEED, opening: Opening { value: value.to_vec(), nonce } };
    let a = t.send_sealed(white, Channel::WhiteUmpire, None, &inner, 5).expect("sealed setup");
    let Payload::Sealed(sealed) = &a.body.payload else { panic!("sealed payload expected") };
    let padded = t.padded_len(white);
    let plain = seal::Inbox::new(SealSecret::for_match(&c.umpire, &common::UMPIRE_NONCE))
        .open(&seal_context(&a.body), sealed, padded)
        .expect("the umpire opens it");
    assert_eq!(Payload::from_canonical(&plain), Ok(inner));
    // A second sealed setup from the same side is not owed.
    let m = t.write_sealed(white, Channel::WhiteUmpire, None, &action(b"again"));
    assert!(matches!(
        t.relay.accept(&m.to_canonical(), 6),
        Err(RelayError::NotEntitled(NotEntitled::NotNow { .. }))
    ));
}

#[test]
fn copied_repeated_and_late_commitments_are_refused() {
    let c = cast();
    let mut t = Table::new(&c, terms_for(&c, Variant::Sic, ColorAssignment::Drawn), 0);
    let id = t.agreed.match_id;
    let commitment = commitment::commit(PRIVATE_SEED, &id, &c.alice.public(), &[1; 32], &[2; 32]);
    t.send(ALICE, Channel::Public, None, Payload::Commit { purpose: PRIVATE_SEED, commitment }, 1)
        .expect("alice commits");
    // Bob copies alice's commitment (under another purpose, so only the copy is at fault).
    let copy = Payload::Commit { purpose: PUBLIC_CONTRIBUTION, commitment };
    let m = t.write(BOB, Channel::Public, None, copy);
    let Err(RelayError::NotEntitled(NotEntitled::DuplicateCommitment(e))) =
        t.relay.accept(&m.to_canonical(), 2)
    else {
        panic!("a copied commitment was accepted")
    };
    assert_eq!((e.first.author, e.second.author), (c.alice.public(), c.bob.public()));
    // Alice commits to her private seed a second time (grinding).
    let again = commitment::commit(PRIVATE_SEED, &id, &c.alice.public(), &[3; 32], &[2; 32]);
    let m = t.write(
        ALICE,
        Channel::Public,
        None,
        Payload::Commit { purpose: PRIVATE_SEED, commitment: again },
    );
    assert!(matches!(
        t.relay.accept(&m.to_canonical(), 3),
        Err(RelayError::NotEntitled(NotEntitled::Recommitted { .. }))
    ));
    // Revealing what was never committed.
    let m = t.write(BOB, Channel::Public, None, Table::reveal_payload(BOB));
    assert!(t.relay.accept(&m.to_canonical(), 3).is_err());
}

#[test]
fn a_private_seed_committed_after_the_opponents_contribution_is_refused() {
    let c = cast();
    let mut t = Table::new(&c, terms_for(&c, Variant::Sic, ColorAssignment::Drawn), 0);
    let id = t.agreed.match_id;
    t.commit(ALICE, 1);
    // Bob commits only to his contribution; alice's reveal is refused until he is done, so
    // he cannot learn hers first and then choose his seed.
    let (value, nonce) = common::CONTRIBUTIONS[BOB];
    let commitment = commitment::commit(PUBLIC_CONTRIBUTION, &id, &c.bob.public(), &value, &nonce);
    t.send(
        BOB,
        Channel::Public,
        None,
        Payload::Commit { purpose: PUBLIC_CONTRIBUTION, commitment },
        2,
    )
    .expect("bob's contribution");
    let m = t.write(ALICE, Channel::Public, None, Table::reveal_payload(ALICE));
    assert!(matches!(
        t.relay.accept(&m.to_canonical(), 3),
        Err(RelayError::NotEntitled(NotEntitled::NotNow { .. }))
    ));
}

#[test]
fn only_the_terms_relay_key_runs_the_relay() {
    let c = cast();
    let agreed = sign(&c, &chess(&c)).verify().expect("terms");
    assert!(matches!(
        Relay::new(c.outsider.clone(), agreed, 0),
        Err(RelayError::NotTheRelay { .. })
    ));
}

#[test]
fn open_moves_run_the_clocks_with_increment() {
    let c = cast();
    let mut t = chess_in_play(&c);
    // White's clock started at the second reveal (t = 40): 1000 ms.
    assert_eq!(t.relay.poll_timeout(), Some(1040));
    t.send(ALICE, Channel::Public, None, action(b"e2e4"), 340).expect("white moves");
    // 1000 - 300 used + 100 increment; Black's clock runs from 340.
    assert_eq!(t.relay.remaining_ms(Color::White), 800);
    assert_eq!(t.relay.poll_timeout(), Some(1340));
    t.send(BOB, Channel::Public, None, action(b"e7e5"), 1340).expect("black moves at the deadline");
    assert_eq!(t.relay.remaining_ms(Color::Black), 100);
    assert_eq!(t.relay.poll_timeout(), Some(1340 + 800));
    // Nothing expires before a deadline.
    assert!(t.expire(2140).is_empty());
}

#[test]
fn a_missed_move_is_timed_out_signed_and_ends_that_sides_play() {
    let c = cast();
    let mut t = chess_in_play(&c);
    t.send(ALICE, Channel::Public, None, action(b"e2e4"), 100).expect("white moves");
    assert!(t.expire(1100).is_empty(), "exactly at the deadline is still in time");
    let out = t.expire(1101);
    assert_eq!(out, vec![(Party::Black, Expectation::Move, 1100, 1101)]);
    // The timeout ends the game with nothing owed: the relay's close follows its notice.
    let n = t.relay.entries().len();
    assert!(matches!(t.body(n - 1).payload, Payload::Close { .. }));
    let notice = t.body(n - 2);
    assert_eq!(notice.author, c.relay.public());
    assert_eq!(
        notice.payload,
        Payload::Timeout { party: Party::Black, expectation: Expectation::Move, deadline_ms: 1100 }
    );
    assert!(t.relay.has_timed_out(Party::Black));
    assert!(!t.relay.has_timed_out(Party::White));
    let m = t.write(BOB, Channel::Public, None, action(b"e7e5"));
    assert!(matches!(
        t.relay.accept(&m.to_canonical(), 1102),
        Err(RelayError::NotEntitled(NotEntitled::TimedOut { party: Party::Black }))
    ));
}

#[test]
fn a_late_move_is_refused_because_its_deadline_expires_first() {
    let c = cast();
    let mut t = chess_in_play(&c);
    let m = t.write(ALICE, Channel::Public, None, action(b"e2e4"));
    assert!(matches!(
        t.relay.accept(&m.to_canonical(), 2000),
        Err(RelayError::NotEntitled(NotEntitled::TimedOut { party: Party::White }))
    ));
    let mut timed = Vec::new();
    while let Some(e) = t.relay.poll_event() {
        if let RelayEvent::TimedOut { party, deadline_ms, .. } = e {
            timed.push((party, deadline_ms));
        }
    }
    assert!(timed.contains(&(Party::White, 1040)), "{timed:?}");
}

#[test]
fn only_the_side_that_owes_a_reveal_is_timed_out() {
    let c = cast();
    let mut t = Table::new(&c, chess(&c), 0);
    t.commit(ALICE, 10);
    // Bob never commits: at reveal_ms (500) after the start, he alone is timed out.
    assert!(t.expire(500).is_empty());
    assert_eq!(t.expire(501), vec![(Party::Black, Expectation::Reveal, 500, 501)]);
    assert!(!t.relay.has_timed_out(Party::White));
    // Both committed, alice revealed: bob, the last revealer, who would know the colors
    // first, is the one owing.
    let mut t = Table::new(&c, terms_for(&c, Variant::Chess, ColorAssignment::Drawn), 0);
    t.commit(ALICE, 10);
    t.commit(BOB, 20);
    t.send(ALICE, Channel::Public, None, Table::reveal_payload(ALICE), 30).expect("reveal");
    assert_eq!(t.expire(600), vec![(Party::Black, Expectation::Reveal, 520, 600)]);
}

fn kriegspiel_in_play(c: &Cast) -> Table {
    let mut t = Table::new(c, terms_for(c, Variant::Kriegspiel, ColorAssignment::FirstIsWhite), 0);
    t.open_match([1, 2, 3, 4]);
    t
}

#[test]
fn a_silent_umpire_is_timed_out_and_no_player_clock_runs_meanwhile() {
    let c = cast();
    let mut t = kriegspiel_in_play(&c);
    // After the reveals the umpire owes the Turn that starts play, within answer_ms.
    assert!(t.expire(504).is_empty());
    assert_eq!(t.expire(505), vec![(Party::Umpire, Expectation::Answer, 504, 505)]);
    // Once play is under way: an attempt stops White's clock until the umpire answers.
    let mut t = kriegspiel_in_play(&c);
    t.send(UMPIRE, Channel::Public, None, Payload::Turn { next: Owed::Side(Color::White) }, 10)
        .expect("umpire starts play");
    let a = t
        .send_sealed(ALICE, Channel::WhiteUmpire, None, &action(b"e2e4"), 110)
        .expect("white's attempt");
    // White had 1000 from t = 10 and used 100; the umpire's wait is not White's.
    assert_eq!(t.relay.remaining_ms(Color::White), 900);
    let out = t.expire(5000);
    assert_eq!(out, vec![(Party::Umpire, Expectation::Answer, 610, 5000)]);
    assert!(!t.relay.has_timed_out(Party::White));
    // An answer naming the attempt hands the turn over, with White's increment.
    let mut t = kriegspiel_in_play(&c);
    t.send(UMPIRE, Channel::Public, None, Payload::Turn { next: Owed::Side(Color::White) }, 10)
        .expect("umpire starts play");
    let a2 = t
        .send_sealed(ALICE, Channel::WhiteUmpire, None, &action(b"e2e4"), 110)
        .expect("white's attempt");
    assert_eq!(a.body.payload.kind(), a2.body.payload.kind());
    t.send(
        UMPIRE,
        Channel::Public,
        Some(a2.hash),
        Payload::Turn { next: Owed::Side(Color::Black) },
        200,
    )
    .expect("umpire hands the turn to black");
    assert_eq!(t.relay.remaining_ms(Color::White), 1000);
    // v3: Black's clock waits for its announcement, which the umpire owes under answer_ms.
    assert_eq!(t.relay.poll_timeout(), Some(700));
    t.send_sealed(UMPIRE, Channel::BlackUmpire, Some(a2.hash), &action(b"announce"), 250)
        .expect("black's announcement");
    assert_eq!(t.relay.poll_timeout(), Some(1250));
}

#[test]
fn a_sealed_payload_of_another_size_than_agreed_is_refused() {
    // Docs/PROTOCOL.md, padding: every sealed payload of a direction has one ciphertext size,
    // so the relay (which sees only sizes) refuses any other, whoever sends it.
    let c = cast();
    let mut t = kriegspiel_in_play(&c);
    t.send(UMPIRE, Channel::Public, None, Payload::Turn { next: Owed::Side(Color::White) }, 10)
        .expect("umpire starts play");
    let umpire_seal = t.agreed.terms.umpire.as_ref().expect("an umpire").seal_key;
    let agreed = t.padded_len(ALICE);
    for padded_len in [agreed - 1, agreed + 1, 64] {
        let (m, _) = t.authors[ALICE]
            .clone()
            .write_sealed(
                Channel::WhiteUmpire,
                None,
                &action(b"e2e4"),
                &umpire_seal,
                &[9; 32],
                padded_len,
            )
            .expect("seals");
        let refused = t.relay.accept(&m.to_canonical(), 20);
        let Err(RelayError::NotEntitled(NotEntitled::SealedSize { who: "White", error, .. })) =
            refused
        else {
            panic!("a {padded_len}-byte pad is accepted or refused otherwise: {refused:?}");
        };
        assert_eq!(
            error,
            seal::SealError::WrongSize {
                channel: Channel::WhiteUmpire,
                seq: m.verify().expect("signed").seq,
                found: seal::ciphertext_bytes(padded_len),
                expected: seal::ciphertext_bytes(agreed),
            }
        );
    }
    let a = t
        .send_sealed(ALICE, Channel::WhiteUmpire, None, &action(b"e2e4"), 20)
        .expect("the agreed size is accepted");
    // The umpire's answers have their own size, the same for "illegal" and an announcement.
    let (m, _) = t.authors[UMPIRE]
        .clone()
        .write_sealed(
            Channel::WhiteUmpire,
            Some(a.hash),
            &Payload::Observation(b"no".to_vec()),
            &t.agreed.terms.player(&c.alice.public()).expect("alice plays").seal_key,
            &[9; 32],
            t.padded_len(UMPIRE) + 16,
        )
        .expect("seals");
    assert!(matches!(
        t.relay.accept(&m.to_canonical(), 30),
        Err(RelayError::NotEntitled(NotEntitled::SealedSize { who: "the umpire", .. }))
    ));
}

#[test]
fn kriegspiel_attempts_per_turn_are_limited() {
    let c = cast();
    // The least cap the terms gate allows (protocol::terms::bounds::ATTEMPTS_PER_TURN).
    let max = 256u32;
    let limits = Limits { max_attempts_per_turn: max, ..Limits::DEFAULT };
    let mut t = Table::new(
        &c,
        MatchTerms { limits, ..terms_for(&c, Variant::Kriegspiel, ColorAssignment::FirstIsWhite) },
        0,
    );
    t.open_match([1, 2, 3, 4]);
    t.send(UMPIRE, Channel::Public, None, Payload::Turn { next: Owed::Side(Color::White) }, 10)
        .expect("umpire starts play");
    for i in 0..u64::from(max) {
        let a = t
            .send_sealed(ALICE, Channel::WhiteUmpire, None, &action(b"e2e5"), 20 + 2 * i)
            .expect("an attempt");
        // "Illegal": a sealed answer naming it gives White the turn back.
        t.send_sealed(
            UMPIRE,
            Channel::WhiteUmpire,
            Some(a.hash),
            &Payload::Observation(b"no".to_vec()),
            21 + 2 * i,
        )
        .expect("the umpire's answer");
    }
    let m = t.write_sealed(ALICE, Channel::WhiteUmpire, None, &action(b"e2e6"));
    assert!(matches!(
        t.relay.accept(&m.to_canonical(), 20 + 2 * u64::from(max)),
        Err(RelayError::NotEntitled(NotEntitled::TooManyAttempts { side: Color::White, max: 256 }))
    ));
}

#[test]
fn messages_per_side_are_limited() {
    let c = cast();
    // The least cap the terms gate allows (protocol::terms::bounds::MESSAGES_PER_SIDE).
    let max = 1_000u64;
    let limits = Limits { max_messages_per_side: 1_000, ..Limits::DEFAULT };
    let mut t = Table::new(&c, MatchTerms { limits, ..chess(&c) }, 0);
    t.open_match([1, 2, 3, 4]);
    // Each side has sent two messages (its commitment and its opening); the relay does not
    // judge moves, so the two sides alternate until White has sent its last allowed one.
    for i in 2..max {
        t.send(ALICE, Channel::Public, None, action(b"e2e4"), 3 + 2 * i).expect("white's move");
        t.send(BOB, Channel::Public, None, action(b"e7e5"), 4 + 2 * i).expect("black's move");
    }
    let m = t.write(ALICE, Channel::Public, None, action(b"g1f3"));
    assert!(matches!(
        t.relay.accept(&m.to_canonical(), 3 + 2 * max),
        Err(RelayError::TooManyMessages { max: 1_000, .. })
    ));
}

#[test]
fn a_move_racing_a_resignation_is_void_and_one_sent_after_seeing_it_is_refused() {
    let c = cast();
    let mut t = chess_in_play(&c);
    // White writes its move, having seen everything so far; Black's resignation reaches the
    // relay first.
    let racing = t.write(ALICE, Channel::Public, None, action(b"e2e4"));
    t.send(BOB, Channel::Public, None, resign(Color::Black), 50).expect("black resigns");
    let a = t.submit(ALICE, &racing, 51).expect("the racing move is recorded");
    assert_eq!(a.admission, Admission::Void);
    assert!(t.relay.coordinator().is_over());
    // A move sent after seeing the resignation is not a race.
    t.deliver_all();
    let m = t.write(ALICE, Channel::Public, None, action(b"d2d4"));
    assert!(matches!(
        t.relay.accept(&m.to_canonical(), 52),
        Err(RelayError::NotEntitled(NotEntitled::NotNow { .. }))
    ));
    // And a move out of turn by what its author had seen is refused, not void.
    let mut t = chess_in_play(&c);
    let m = t.write(BOB, Channel::Public, None, action(b"e7e5"));
    assert!(matches!(
        t.relay.accept(&m.to_canonical(), 50),
        Err(RelayError::NotEntitled(NotEntitled::NotNow { .. }))
    ));
    assert_eq!(t.relay.entries().len(), 5);
}

#[test]
fn a_draw_offer_lapses_with_the_offerers_move_and_two_offers_agree() {
    let c = cast();
    let draw = || {
        Payload::Claim(message::Claim {
            outcome: message::Outcome::Draw,
            reason: rules::EndReason::Agreement.into(),
        })
    };
    let mut t = chess_in_play(&c);
    t.send(ALICE, Channel::Public, None, draw(), 50).expect("white offers");
    assert_eq!(t.relay.coordinator().draw_offer(), Some(Color::White));
    t.send(ALICE, Channel::Public, None, action(b"e2e4"), 60).expect("white moves");
    assert_eq!(t.relay.coordinator().draw_offer(), None);
    t.send(BOB, Channel::Public, None, draw(), 70).expect("black offers");
    assert!(!t.relay.coordinator().is_over());
    t.send(ALICE, Channel::Public, None, draw(), 80).expect("white accepts");
    assert!(t.relay.coordinator().is_over());
}

#[test]
fn resume_rebuilds_the_same_relay_from_its_entries() {
    let c = cast();
    let mut t = chess_in_play(&c);
    t.send(ALICE, Channel::Public, None, action(b"e2e4"), 300).expect("white moves");
    let entries = t.relay.entries().to_vec();
    let mut resumed = Relay::resume(c.relay.clone(), t.agreed.clone(), &entries).expect("resumes");
    assert_eq!(resumed.head(), t.relay.head());
    assert_eq!(resumed.poll_timeout(), t.relay.poll_timeout());
    assert_eq!(resumed.remaining_ms(Color::White), t.relay.remaining_ms(Color::White));
    assert_eq!(resumed.colors(), t.relay.colors());
    // Both accept the next message with byte-identical receipts.
    let m = t.write(BOB, Channel::Public, None, action(b"e7e5"));
    let a = t.relay.accept(&m.to_canonical(), 400).expect("original accepts");
    let b = resumed.accept(&m.to_canonical(), 400).expect("resumed accepts");
    assert_eq!(a.entry, b.entry);
    // A stored receipt that is not the relay's, and a store missing an entry, are refused.
    let mut forged = entries.clone();
    forged[3].receipt = forged[2].receipt.clone();
    assert!(matches!(
        Relay::resume(c.relay.clone(), t.agreed.clone(), &forged),
        Err(ResumeError::Receipt { index: 3 })
    ));
    let mut gap = entries.clone();
    gap.remove(2);
    assert!(matches!(
        Relay::resume(c.relay.clone(), t.agreed.clone(), &gap),
        Err(ResumeError::Refused { index: 2, .. } | ResumeError::Receipt { index: 2 })
    ));
}

#[test]
fn the_relay_closes_a_complete_match_and_the_parties_countersign_its_final_head() {
    let c = cast();
    let mut t = chess_in_play(&c);
    t.send(ALICE, Channel::Public, None, action(b"e2e4"), 50).expect("white moves");
    // A move written before Black's resignation reached the relay: a race, then the close.
    let racing = t.write(ALICE, Channel::Public, None, action(b"d2d4"));
    t.send(BOB, Channel::Public, None, resign(Color::Black), 60).expect("black resigns");
    let n = t.relay.entries().len();
    assert!(
        matches!(t.body(n - 1).payload, Payload::Close { .. }),
        "nothing is owed: the relay closes"
    );
    assert!(t.relay.coordinator().is_closed());
    let mut closed = false;
    while let Some(e) = t.relay.poll_event() {
        closed |= matches!(e, RelayEvent::Closed { .. });
    }
    assert!(closed);
    assert_eq!(t.submit(ALICE, &racing, 61).map(|a| a.admission), Ok(Admission::Void));
    // Alice saw the close: her countersignature names it.
    t.deliver_all();
    let sign_off = t.write(ALICE, Channel::Public, None, Payload::Countersign);
    assert!(t.submit(ALICE, &sign_off, 62).is_ok());
    // Again, or a move after the close she saw: refused.
    for p in [Payload::Countersign, action(b"g1f3")] {
        let m = t.write(ALICE, Channel::Public, None, p);
        assert!(matches!(
            t.relay.accept(&m.to_canonical(), 63),
            Err(RelayError::NotEntitled(NotEntitled::NotNow { .. }))
        ));
    }
    // Bob's countersignature must come after he saw the close.
    let before =
        with_seen(&t, BOB, Some(Seen { order: t.receipt(5).order() }), Payload::Countersign);
    assert!(matches!(
        t.relay.accept(&before.to_canonical(), 64),
        Err(RelayError::NotEntitled(NotEntitled::NotNow { .. }))
    ));
    t.deliver_all();
    let sign_off = t.write(BOB, Channel::Public, None, Payload::Countersign);
    assert!(t.submit(BOB, &sign_off, 64).is_ok());
    assert_eq!(t.relay.coordinator().countersigned().len(), 2);
    // Nobody but the relay closes.
    let m = t.write(BOB, Channel::Public, None, Payload::Close { wall_ms: 0 });
    assert!(matches!(
        t.relay.accept(&m.to_canonical(), 65),
        Err(RelayError::NotEntitled(NotEntitled::Never { .. }))
    ));
    // A relay rebuilt from these entries does not close again.
    let resumed = Relay::resume(c.relay.clone(), t.agreed.clone(), t.relay.entries()).unwrap();
    assert_eq!(resumed.entries().len(), t.relay.entries().len());
}

#[test]
fn no_close_while_something_is_owed() {
    let c = cast();
    let mut t = Table::new(&c, terms_for(&c, Variant::Sic, ColorAssignment::Drawn), 0);
    t.commit(ALICE, 1);
    t.commit(BOB, 2);
    t.send(ALICE, Channel::Public, None, Table::reveal_payload(ALICE), 3).expect("reveal");
    t.send(BOB, Channel::Public, None, Table::reveal_payload(BOB), 4).expect("reveal");
    // Black resigns at once: both still owe their private seeds' openings.
    let black = t.of(Color::Black);
    t.send(black, Channel::Public, None, resign(Color::Black), 5).expect("resigns");
    let last = t.body(t.relay.entries().len() - 1);
    assert!(!matches!(last.payload, Payload::Close { .. }));
    let white = t.of(Color::White);
    for who in [white, black] {
        let (value, nonce) = common::PRIVATE_SEEDS[who];
        let open = Payload::Open {
            purpose: PRIVATE_SEED,
            opening: Opening { value: value.to_vec(), nonce },
        };
        t.send(who, Channel::Public, None, open, 6).expect("opens");
    }
    assert!(matches!(t.body(t.relay.entries().len() - 1).payload, Payload::Close { .. }));
}

#[test]
fn a_sealed_move_racing_a_resignation_is_void_and_its_disclosure_is_taken() {
    // Found by the load test: Black seals its Kriegspiel move, having seen everything; White's
    // resignation reaches the relay first. Black's move is a race (void, nobody's fault), the
    // umpire owes it no answer, and Black still discloses it with its other sealed messages:
    // were it refused, Black's machine would hold a disclosure nobody takes and could never
    // send the batch that holds it.
    let c = cast();
    let mut t =
        Table::new(&c, terms_for(&c, Variant::Kriegspiel, ColorAssignment::FirstIsWhite), 0);
    t.open_match([1, 2, 3, 4]);
    t.send(UMPIRE, Channel::Public, None, Payload::Turn { next: Owed::Side(Color::White) }, 10)
        .expect("umpire starts play");
    let a = t.send_sealed(ALICE, Channel::WhiteUmpire, None, &action(b"e2e4"), 20).expect("white");
    t.send(
        UMPIRE,
        Channel::Public,
        Some(a.hash),
        Payload::Turn { next: Owed::Side(Color::Black) },
        21,
    )
    .expect("the umpire's answer: black to move");
    let (racing, disclosure) = t.authors[BOB]
        .clone()
        .write_sealed(
            Channel::BlackUmpire,
            None,
            &action(b"e7e5"),
            &t.seals[UMPIRE],
            &[77; 32],
            t.padded_len(BOB),
        )
        .expect("seals");
    t.send(ALICE, Channel::Public, None, resign(Color::White), 30).expect("white resigns");
    let r = t.submit(BOB, &racing, 31).expect("the racing move is recorded");
    assert_eq!(r.admission, Admission::Void);
    assert!(
        !t.relay.coordinator().deadlines().iter().any(|d| d.expectation == Expectation::Answer),
        "the umpire owes a void move no answer"
    );
    t.deliver_all();
    let d = t.send(BOB, Channel::Public, None, Payload::Disclose(vec![disclosure]), 40);
    assert_eq!(d.map(|a| a.admission), Ok(Admission::Counts), "black discloses its void move");
}

/// The numbers used are kept as an increasing list (a push per checked entry). An entry placed
/// without the check, below the last number, still keeps the list in order: a replay of it is
/// named as one, a number in a gap below the last is out of order, and the next number is one
/// past the highest.
#[test]
fn numbers_placed_out_of_order_without_the_check_keep_replays_and_order_exact() {
    use protocol::relay::Sequence;
    let c = cast();
    let t = Table::new(&c, chess(&c), 0);
    let id = t.agreed.match_id;
    let body = |seq: u64| MessageBody {
        seq,
        seen: None,
        ..t.authors[ALICE].next_body(Channel::Public, None, action(b"n"))
    };
    let signed = |seq: u64| SignedMessage::sign(&body(seq), &c.alice).signed_hash();
    let mut s = Sequence::new(&id);
    for (seq, time) in [(5, 1), (2, 2), (2, 3)] {
        s.push(&body(seq), &signed(seq), time);
    }
    let reads = |_| true;
    for replay in [2, 5] {
        assert_eq!(
            s.check(&body(replay), reads).err(),
            Some(ChainError::Replayed { channel: Channel::Public, seq: replay })
        );
    }
    for gap in [0, 3, 4] {
        assert_eq!(
            s.check(&body(gap), reads).err(),
            Some(ChainError::OutOfOrder { channel: Channel::Public, seq: gap, last: 5 })
        );
    }
    assert_eq!(s.check(&body(6), reads), Ok(None));
    assert_eq!(s.next_seq(&c.alice.public(), Channel::Public), 6);
    assert_eq!(s.len(), 3);
}

//! Evidence of relay equivocation: which pairs of receipts convict the relay, and which prove
//! nothing (consistent receipts, another relay's signature, another match, bad bytes).
mod common;

use common::{ALICE, BOB, Table, UMPIRE, cast, sign, terms_for};
use protocol::Channel;
use protocol::Color;
use protocol::codec::{Canonical, VERSION};
use protocol::evidence::{At, Contradiction, Evidence, EvidenceError};
use protocol::message::{Owed, Payload, Receipt, SignedReceipt, next_head};
use protocol::relay::Relay;
use protocol::terms::ColorAssignment;
use rules::Variant;

fn evidence(t: &Table, a: SignedReceipt, b: SignedReceipt) -> Evidence {
    let c = cast();
    let signed = sign(&c, &t.agreed.terms);
    assert_eq!(signed.verify().unwrap().match_id, t.agreed.match_id);
    Evidence { version: VERSION, terms: signed, receipts: [a, b] }
}

fn chess_table() -> Table {
    let c = cast();
    let mut t = Table::new(&c, terms_for(&c, Variant::Chess, ColorAssignment::FirstIsWhite), 0);
    t.open_match([1, 2, 3, 4]);
    t
}

/// A Kriegspiel match in play, White (alice) to move.
fn kriegspiel_table() -> Table {
    let c = cast();
    let mut t =
        Table::new(&c, terms_for(&c, Variant::Kriegspiel, ColorAssignment::FirstIsWhite), 0);
    t.open_match([1, 2, 3, 4]);
    t.send(UMPIRE, Channel::Public, None, Payload::Turn { next: Owed::Side(Color::White) }, 5)
        .expect("the umpire starts play");
    t
}

fn resign(side: Color) -> Payload {
    Payload::Claim(protocol::flow::loss_of(side, rules::EndReason::Resignation.into()))
}

fn public(position: u64) -> At {
    At { channel: Channel::Public, position }
}

#[test]
fn two_entries_at_one_position_are_a_fork() {
    let c = cast();
    let mut t = chess_table();
    // A second relay process with the same key, fed the same history, then a different move.
    let mut twin = Relay::resume(c.relay.clone(), t.agreed.clone(), t.relay.entries()).unwrap();
    let m1 = t.write(ALICE, Channel::Public, None, Payload::Action(b"e2e4".to_vec()));
    let m2 = t.write(ALICE, Channel::Public, None, Payload::Action(b"d2d4".to_vec()));
    let a = t.relay.accept(&m1.to_canonical(), 10).unwrap().entry.receipt;
    let b = twin.accept(&m2.to_canonical(), 10).unwrap().entry.receipt;
    let at = public(t.relay.entries().len() as u64 - 1);
    let e = evidence(&t, a.clone(), b.clone());
    assert_eq!(e.check().map(|x| x.1), Ok(Contradiction::Fork { at }));
    // In either order, and through the canonical bytes.
    let e = evidence(&t, b, a);
    let back = Evidence::from_canonical(&e.to_canonical()).unwrap();
    assert_eq!(back.check().map(|x| x.1), Ok(Contradiction::Fork { at }));
}

#[test]
fn two_entries_of_different_channels_after_one_order_head_are_an_order_fork() {
    let c = cast();
    let mut t = kriegspiel_table();
    let mut twin = Relay::resume(c.relay.clone(), t.agreed.clone(), t.relay.entries()).unwrap();
    let after = t.relay.head();
    // One log: White's sealed attempt on her channel. The other: Black resigning in public.
    let attempt =
        t.write_sealed(ALICE, Channel::WhiteUmpire, None, &Payload::Action(b"e2e4".to_vec()));
    let resign = t.write(BOB, Channel::Public, None, resign(Color::Black));
    let a = t.relay.accept(&attempt.to_canonical(), 10).unwrap().entry.receipt;
    let b = twin.accept(&resign.to_canonical(), 10).unwrap().entry.receipt;
    let e = evidence(&t, a, b);
    assert_eq!(e.check().map(|x| x.1), Ok(Contradiction::OrderFork { after }));
}

#[test]
fn consistent_receipts_prove_nothing() {
    let t = chess_table();
    let r = |i: usize| t.relay.entries()[i].receipt.clone();
    assert_eq!(evidence(&t, r(1), r(2)).check().err(), Some(EvidenceError::Consistent));
    assert_eq!(evidence(&t, r(3), r(3)).check().err(), Some(EvidenceError::Consistent));
    assert_eq!(evidence(&t, r(0), r(4)).check().err(), Some(EvidenceError::Consistent));
    // Receipts of two channels, neither placed right after the other: nothing to compare (the
    // order head counts nothing), even with the later one's time before the earlier's.
    let mut k = kriegspiel_table();
    k.send_sealed(ALICE, Channel::WhiteUmpire, None, &Payload::Action(b"e2e4".to_vec()), 10)
        .expect("an attempt");
    let white = k.relay.entries().len() - 1;
    let start = k.receipt(0);
    let private = k.relay.entries()[white].receipt.clone();
    assert_eq!(
        evidence(&k, k.relay.entries()[0].receipt.clone(), private.clone()).check().err(),
        Some(EvidenceError::Consistent)
    );
    // A start re-signed later than the private entry: the two receipts alone do not order
    // them, so they prove nothing (the whole record does: PROTOCOL.md 20).
    let late_start = Receipt { time_ms: 1000, ..start };
    assert_eq!(
        evidence(&k, SignedReceipt::sign(&late_start, &cast().relay), private).check().err(),
        Some(EvidenceError::Consistent)
    );
}

#[test]
fn a_head_that_does_not_chain_duplicates_and_time_going_back_are_contradictions() {
    let c = cast();
    let t = chess_table();
    let open = |i: usize| t.receipt(i);
    let (r1, r2) = (open(1), open(2));
    // Position 2 re-signed with a head not built on position 1's.
    let bad = Receipt { head: protocol::LogHead([7; 32]), ..r2.clone() };
    let e = evidence(&t, t.relay.entries()[1].receipt.clone(), SignedReceipt::sign(&bad, &c.relay));
    assert_eq!(
        e.check().map(|x| x.1),
        Ok(Contradiction::BrokenChain { first: public(1), second: public(2) })
    );
    // Position 1's message signed again at position 3.
    let dup = Receipt { position: 3, time_ms: r2.time_ms + 5, ..r1.clone() };
    let e = evidence(&t, t.relay.entries()[1].receipt.clone(), SignedReceipt::sign(&dup, &c.relay));
    assert_eq!(
        e.check().map(|x| x.1),
        Ok(Contradiction::Duplicate { first: public(1), second: public(3) })
    );
    // Position 3 signed with a time before position 1's.
    let r3 = open(3);
    let early = Receipt { time_ms: 0, head: next_head(&r2.head, 3, 0, &r3.message), ..r3.clone() };
    let e =
        evidence(&t, t.relay.entries()[1].receipt.clone(), SignedReceipt::sign(&early, &c.relay));
    assert_eq!(
        e.check().map(|x| x.1),
        Ok(Contradiction::TimeReversed { first: public(1), second: public(3) })
    );
    // An entry placed right after position 1 that claims position 3 of the same channel.
    let skipped = Receipt { after: r1.order(), ..r3 };
    let e =
        evidence(&t, t.relay.entries()[1].receipt.clone(), SignedReceipt::sign(&skipped, &c.relay));
    assert_eq!(
        e.check().map(|x| x.1),
        Ok(Contradiction::BrokenChain { first: public(1), second: public(3) })
    );
}

#[test]
fn across_channels_the_order_head_orders_neighbours() {
    let c = cast();
    let mut t = kriegspiel_table();
    t.send_sealed(ALICE, Channel::WhiteUmpire, None, &Payload::Action(b"e2e4".to_vec()), 10)
        .expect("an attempt");
    let i = t.relay.entries().len() - 1;
    let (turn, attempt) = (t.receipt(i - 1), t.receipt(i));
    assert_eq!((turn.channel, attempt.channel), (Channel::Public, Channel::WhiteUmpire));
    assert_eq!(attempt.after, turn.order(), "placed right after the umpire's turn");
    // The private entry re-signed with a time before the public one it follows.
    let early = Receipt {
        time_ms: turn.time_ms - 1,
        head: next_head(
            &protocol::message::genesis_head(&t.agreed.match_id, Channel::WhiteUmpire),
            0,
            turn.time_ms - 1,
            &attempt.message,
        ),
        ..attempt.clone()
    };
    let e = evidence(
        &t,
        SignedReceipt::sign(&early, &c.relay),
        t.relay.entries()[i - 1].receipt.clone(),
    );
    assert_eq!(
        e.check().map(|x| x.1),
        Ok(Contradiction::TimeReversed {
            first: public(turn.position),
            second: At { channel: Channel::WhiteUmpire, position: 0 }
        })
    );
    // The genuine pair is consistent.
    let e = evidence(
        &t,
        t.relay.entries()[i].receipt.clone(),
        t.relay.entries()[i - 1].receipt.clone(),
    );
    assert_eq!(e.check().err(), Some(EvidenceError::Consistent));
}

#[test]
fn receipts_not_signed_by_the_terms_relay_or_for_another_match_prove_nothing() {
    let c = cast();
    let t = chess_table();
    let r1 = t.receipt(1);
    let forged = SignedReceipt::sign(
        &Receipt { head: protocol::LogHead([7; 32]), ..r1.clone() },
        &c.outsider,
    );
    let e = evidence(&t, t.relay.entries()[1].receipt.clone(), forged);
    assert!(matches!(e.check(), Err(EvidenceError::Receipt { index: 1, .. })));
    let elsewhere = Receipt { match_id: protocol::MatchId([5; 32]), ..r1 };
    let e = evidence(
        &t,
        SignedReceipt::sign(&elsewhere, &c.relay),
        t.relay.entries()[1].receipt.clone(),
    );
    assert!(matches!(e.check(), Err(EvidenceError::Receipt { index: 0, .. })));
    // Terms whose signatures do not verify.
    let mut e =
        evidence(&t, t.relay.entries()[1].receipt.clone(), t.relay.entries()[2].receipt.clone());
    e.terms.terms[5] ^= 1;
    assert!(matches!(e.check(), Err(EvidenceError::Terms(_))));
    // Bad bytes.
    assert!(Evidence::from_canonical(&[2, 0, 1]).is_err());
}

//! Protocol v3 (issue 13), the coordinator as the relay runs it, with real signed messages:
//! the announcement a Turn owes and the clock that waits for it, the `re` the rules fix, draw
//! offers only in play, and both players timed out when neither commits
//! (docs/PROTOCOL.md 13, 14).
mod common;

use common::{ALICE, BOB, Cast, Table, UMPIRE, cast, terms_for};
use protocol::coordinator::NotEntitled;
use protocol::message::{Claim, Expectation, Outcome, Owed, Payload};
use protocol::relay::RelayError;
use protocol::terms::ColorAssignment;
use protocol::{Channel, Color, MessageHash, Party};
use rules::Variant;

fn action(bytes: &[u8]) -> Payload {
    Payload::Action(bytes.to_vec())
}

fn observation(bytes: &[u8]) -> Payload {
    Payload::Observation(bytes.to_vec())
}

fn draw_offer() -> Payload {
    Payload::Claim(Claim { outcome: Outcome::Draw, reason: rules::EndReason::Agreement.into() })
}

fn bad_reference<T: std::fmt::Debug>(r: Result<T, RelayError>) -> bool {
    matches!(r, Err(RelayError::NotEntitled(NotEntitled::BadReference { .. })))
}

/// Kriegspiel in play (White to move from `t = 10`; clocks of 1000 ms, answer_ms 500).
fn kriegspiel(c: &Cast) -> Table {
    let mut t = Table::new(c, terms_for(c, Variant::Kriegspiel, ColorAssignment::FirstIsWhite), 0);
    t.open_match([1, 2, 3, 4]);
    t.send(UMPIRE, Channel::Public, None, Payload::Turn { next: Owed::Side(Color::White) }, 10)
        .expect("umpire starts play");
    t
}

#[test]
fn the_side_a_turn_names_has_no_clock_until_its_announcement() {
    let c = cast();
    let mut t = kriegspiel(&c);
    let a = t.send_sealed(ALICE, Channel::WhiteUmpire, None, &action(b"e2e4"), 110).expect("e2e4");
    t.send(
        UMPIRE,
        Channel::Public,
        Some(a.hash),
        Payload::Turn { next: Owed::Side(Color::Black) },
        200,
    )
    .expect("black to move");
    // The umpire owes Black its announcement by 700; Black's clock does not run meanwhile.
    assert_eq!(t.relay.poll_timeout(), Some(700));
    assert_eq!(t.expire(5000), vec![(Party::Umpire, Expectation::Answer, 700, 5000)]);
    assert!(!t.relay.has_timed_out(Party::Black));

    // Announced at 300: Black's clock runs from then.
    let mut t = kriegspiel(&c);
    let a = t.send_sealed(ALICE, Channel::WhiteUmpire, None, &action(b"e2e4"), 110).expect("e2e4");
    t.send(
        UMPIRE,
        Channel::Public,
        Some(a.hash),
        Payload::Turn { next: Owed::Side(Color::Black) },
        200,
    )
    .expect("black to move");
    t.send_sealed(UMPIRE, Channel::WhiteUmpire, Some(a.hash), &observation(b"legal"), 250)
        .expect("white's answer");
    assert_eq!(
        t.relay.poll_timeout(),
        Some(700),
        "the answer to White is not Black's announcement"
    );
    t.send_sealed(UMPIRE, Channel::BlackUmpire, Some(a.hash), &observation(b"legal"), 300)
        .expect("black's announcement");
    assert_eq!(t.relay.poll_timeout(), Some(1300));
    assert_eq!(t.expire(1301), vec![(Party::Black, Expectation::Move, 1300, 1301)]);
}

#[test]
fn the_side_named_may_move_before_its_announcement() {
    // A race, not a fault: its clock had not started, so it is charged nothing.
    let c = cast();
    let mut t = kriegspiel(&c);
    let a = t.send_sealed(ALICE, Channel::WhiteUmpire, None, &action(b"e2e4"), 110).expect("e2e4");
    t.send(
        UMPIRE,
        Channel::Public,
        Some(a.hash),
        Payload::Turn { next: Owed::Side(Color::Black) },
        200,
    )
    .expect("black to move");
    t.send_sealed(BOB, Channel::BlackUmpire, None, &action(b"e7e5"), 220).expect("black moves");
    assert_eq!(t.relay.remaining_ms(Color::Black), 1000);
    assert_eq!(t.relay.poll_timeout(), Some(720), "the umpire owes Black's answer");
}

#[test]
fn a_turn_names_exactly_what_it_adjudicates() {
    let c = cast();
    let mut t = kriegspiel(&c);
    let a = t.send_sealed(ALICE, Channel::WhiteUmpire, None, &action(b"e2e4"), 110).expect("e2e4");
    let turn = Payload::Turn { next: Owed::Side(Color::Black) };
    for re in [None, Some(MessageHash([0x5e; 32]))] {
        let m = t.write(UMPIRE, Channel::Public, re, turn.clone());
        assert!(bad_reference(t.submit(UMPIRE, &m, 150)), "re {re:?}");
    }
    t.send(UMPIRE, Channel::Public, Some(a.hash), turn, 150).expect("names the action");
    // Kriegspiel's first Turn names nothing.
    let mut t =
        Table::new(&c, terms_for(&c, Variant::Kriegspiel, ColorAssignment::FirstIsWhite), 0);
    t.open_match([1, 2, 3, 4]);
    let first = Payload::Turn { next: Owed::Side(Color::White) };
    let m = t.write(UMPIRE, Channel::Public, Some(MessageHash([1; 32])), first);
    assert!(bad_reference(t.submit(UMPIRE, &m, 10)));
}

#[test]
fn every_other_re_is_fixed() {
    let c = cast();
    let mut t = kriegspiel(&c);
    let a = t.send_sealed(ALICE, Channel::WhiteUmpire, None, &action(b"e2e4"), 110).expect("e2e4");
    let stray = Some(MessageHash([0x77; 32]));
    // An umpire answer naming what is not a player's sealed message.
    let m = t.write_sealed(UMPIRE, Channel::WhiteUmpire, stray, &observation(b"illegal"));
    assert!(bad_reference(t.submit(UMPIRE, &m, 120)));
    // A player's sealed action or claim naming anything.
    let m = t.write(
        BOB,
        Channel::Public,
        stray,
        Payload::Claim(protocol::flow::loss_of(Color::Black, rules::EndReason::Resignation.into())),
    );
    assert!(bad_reference(t.submit(BOB, &m, 120)));
    // The umpire's complaint names the player's sealed message: accepted.
    let complaint = Payload::Claim(protocol::flow::loss_of(Color::White, protocol::flow::FORFEIT));
    t.send(UMPIRE, Channel::Public, Some(a.hash), complaint, 130).expect("a complaint names it");
}

#[test]
fn a_draw_offer_stands_only_in_play() {
    let c = cast();
    // Chess: after one reveal, the last revealer offers a draw instead of revealing.
    let mut t = Table::new(&c, terms_for(&c, Variant::Chess, ColorAssignment::Drawn), 0);
    t.commit(ALICE, 1);
    t.commit(BOB, 2);
    t.send(ALICE, Channel::Public, None, Table::reveal_payload(ALICE), 3).expect("reveal");
    let m = t.write(BOB, Channel::Public, None, draw_offer());
    assert!(matches!(
        t.submit(BOB, &m, 4),
        Err(RelayError::NotEntitled(NotEntitled::NotNow { .. }))
    ));
    // It still owes its reveal, and is timed out for it.
    let out = t.expire(100_000);
    assert_eq!(out.first().map(|o| (o.0, o.1)), Some((Party::Black, Expectation::Reveal)));
    // In play, two offers are a draw.
    let mut t = Table::new(&c, terms_for(&c, Variant::Chess, ColorAssignment::FirstIsWhite), 0);
    t.open_match([1, 2, 3, 4]);
    t.send(ALICE, Channel::Public, None, draw_offer(), 5).expect("white offers");
    assert!(!t.relay.coordinator().is_over());
    t.send(BOB, Channel::Public, None, draw_offer(), 6).expect("black accepts");
    assert!(t.relay.coordinator().is_over());
}

#[test]
fn neither_player_committing_times_out_both() {
    let c = cast();
    let mut t = Table::new(&c, terms_for(&c, Variant::Chess, ColorAssignment::FirstIsWhite), 0);
    let out = t.expire(1_000_000);
    let parties: Vec<_> = out.iter().map(|o| (o.0, o.1)).collect();
    assert_eq!(
        parties,
        vec![(Party::White, Expectation::Reveal), (Party::Black, Expectation::Reveal)]
    );
    assert!(t.relay.coordinator().is_over());
    // One committed: only the other is timed out.
    let mut t = Table::new(&c, terms_for(&c, Variant::Chess, ColorAssignment::FirstIsWhite), 0);
    t.commit(ALICE, 1);
    let out = t.expire(1_000_000);
    let parties: Vec<_> = out.iter().map(|o| (o.0, o.1)).collect();
    assert_eq!(parties, vec![(Party::Black, Expectation::Reveal)], "only the silent one");
    assert!(t.relay.has_timed_out(Party::Black) && !t.relay.has_timed_out(Party::White));
}

#[test]
fn a_player_seals_only_where_a_sealed_message_is_owed() {
    // The relay cannot read what is sealed: it takes a player's sealed message exactly where
    // one is owed (the setup, a move) and counts it as the action the umpire must answer
    // (which the honest umpire does with its complaint when it is junk, PROTOCOL.md 14.3).
    // Anywhere else (before colors, during commitments, after the end) it refuses it, so
    // sealed junk there never reaches the record, and its author owes what it owed before.
    let c = cast();
    let junk = observation(b"junk");
    // Commitments: no private channel before the colors are drawn.
    let mut t = Table::new(&c, terms_for(&c, Variant::Kriegspiel, ColorAssignment::Drawn), 0);
    t.commit(ALICE, 1);
    let m = t.write_sealed(ALICE, Channel::WhiteUmpire, None, &junk);
    assert!(t.submit(ALICE, &m, 2).is_err(), "sealed during the commitments");
    let out = t.expire(100_000);
    assert_eq!(out.first().map(|o| (o.0, o.1)), Some((Party::Black, Expectation::Reveal)));

    // Play: the sealed junk is taken as the mover's action; the umpire owes its answer.
    let mut t = kriegspiel(&c);
    let j = t.send_sealed(ALICE, Channel::WhiteUmpire, None, &junk, 110).expect("taken");
    assert_eq!(t.relay.poll_timeout(), Some(610), "the umpire owes an answer by answer_ms");
    // The honest umpire's complaint names it and ends the game...
    let complaint = Payload::Claim(protocol::flow::loss_of(Color::White, protocol::flow::FORFEIT));
    t.send(UMPIRE, Channel::Public, Some(j.hash), complaint, 120).expect("the complaint");
    assert!(!t.relay.has_timed_out(Party::Umpire));
    // ...after which a player's sealed message, written having seen the end, is refused.
    let m = t.write_sealed(BOB, Channel::BlackUmpire, None, &junk);
    assert!(
        matches!(t.submit(BOB, &m, 130), Err(RelayError::NotEntitled(NotEntitled::NotNow { .. }))),
        "sealed after the end"
    );
    // A player may not seal on the other side's channel at all.
    let mut t = kriegspiel(&c);
    let m = t.write_sealed(BOB, Channel::WhiteUmpire, None, &junk);
    assert!(
        matches!(t.submit(BOB, &m, 120), Err(RelayError::NotEntitled(NotEntitled::Never { .. }))),
        "sealed on the opponent's channel"
    );
}

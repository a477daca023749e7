//! Delivery notices (docs/PROTOCOL.md, delivery notices) against a relay that drops White's
//! messages, with the real player machines and the real relay (self-play, simulated time): the
//! notice of a message offered in time makes the verdict the relay's dropped message, never
//! White's loss; a late notice, a forged one (untrusted key, other match, other message, a
//! message the rules would refuse, the other player's) changes nothing.

use protocol::codec::Canonical;
use protocol::delivery::{CLOCK_TOLERANCE_MS, Delivered};
use protocol::message::{Payload, SignedMessage};
use protocol::terms::ColorAssignment;
use protocol::{Identity, PublicKey};
use rules::{Color, Variant};
use sim::{Selfplay, SelfplayConfig, selfplay::Fate, selfplay::Who};
use std::sync::{Arc, Mutex};
use verifier::{FaultKind, MatchRole, NoticeFinding, Verdict};

/// Messages the relay never got: (bytes, the simulated time they were sent).
type Dropped = Arc<Mutex<Vec<(SignedMessage, u64)>>>;

/// A chess match from `seed` (White is `players[0]`) whose relay drops every message of White's
/// from the first one `from` picks.
fn dropping_white(seed: u64, from: fn(&Payload) -> bool) -> (Selfplay, Vec<(SignedMessage, u64)>) {
    let mut config = SelfplayConfig::new(Variant::Chess, seed);
    config.colors = ColorAssignment::FirstIsWhite;
    let dropped: Dropped = Arc::default();
    let log = dropped.clone();
    let mut dropping = false;
    config.wire = Some(Box::new(move |w| {
        if w.from != Who::Player(0) {
            return Fate::Send;
        }
        let m = w.message().expect("an honest message");
        let body = m.verify().expect("signed");
        dropping |= from(&body.payload);
        if dropping {
            log.lock().unwrap().push((m, w.now_ms));
            Fate::Drop
        } else {
            Fate::Send
        }
    }));
    let played = sim::selfplay_with(config).expect("the match runs");
    let dropped = dropped.lock().unwrap().clone();
    assert!(!dropped.is_empty(), "the relay dropped nothing");
    (played, dropped)
}

fn witness() -> Identity {
    Identity::from_seed(&[0x57; 32])
}

/// The relay's timeouts in the record: (party, deadline).
fn timeouts(played: &Selfplay) -> Vec<(protocol::Party, u64)> {
    played
        .record
        .entries
        .iter()
        .filter_map(|e| match e.message.verify().ok()?.payload {
            Payload::Timeout { party, deadline_ms, .. } => Some((party, deadline_ms)),
            _ => None,
        })
        .collect()
}

fn white(played: &Selfplay) -> PublicKey {
    played.cast.players[0].public()
}

fn notice(played: &Selfplay, by: &Identity, m: &SignedMessage, at: u64) -> Delivered {
    let id = played.record.terms.terms.as_slice();
    Delivered::notarize(by, protocol::terms::match_id(id), m.clone(), at)
}

/// The record alone convicts White (the attack works without notices).
fn assert_white_loses(verdict: &Verdict) {
    let result = verdict.sanctioned_result().expect("a result, not a void game");
    assert_eq!(result.winner, Some(Color::Black), "{verdict:#?}");
}

fn assert_relay_dropped(played: &Selfplay, verdict: &Verdict) {
    let Verdict::Faults(faults) = verdict else {
        panic!("expected the relay's fault: {verdict:#?}")
    };
    let first = &faults[0];
    assert_eq!(
        (first.kind, first.role),
        (FaultKind::DroppedMessage, MatchRole::Relay),
        "{first:#?}"
    );
    assert_eq!(first.culprit, Some(played.cast.relay.public()));
    assert!(first.explanation.starts_with("Relay fault: dropped message"), "{first:#?}");
    assert_eq!(verdict.sanctioned_result(), None, "void, never White's loss");
    for f in faults {
        assert_ne!(f.culprit, Some(white(played)), "White is never named: {f:#?}");
    }
}

#[test]
fn a_dropped_move_offered_in_time_names_the_relay_not_white() {
    let (played, dropped) = dropping_white(3, |p| matches!(p, Payload::Action(_)));
    let base = verifier::verify(&played.bytes);
    assert_white_loses(&base);
    let (m, at) = &dropped[0];
    let n = notice(&played, &witness(), m, *at);
    // The notice file round-trips through its canonical bytes, as a file on disk does.
    let n = Delivered::from_canonical(&n.to_canonical()).expect("a notice file");
    let judged = verifier::verify_with_notices(&played.bytes, &[n], &[witness().public()]);
    assert_relay_dropped(&played, &judged.verdict);
    assert!(matches!(judged.findings[0], NoticeFinding::ProvesDrop { .. }), "{judged:#?}");
}

#[test]
fn a_dropped_reveal_offered_in_time_names_the_relay_not_white() {
    let (played, dropped) = dropping_white(4, |p| matches!(p, Payload::Reveal { .. }));
    let base = verifier::verify(&played.bytes);
    assert_white_loses(&base);
    assert!(
        base.faults().iter().any(|f| f.culprit == Some(white(&played))),
        "without notices White is convicted: {base:#?}"
    );
    let (m, at) = &dropped[0];
    let judged = verifier::verify_with_notices(
        &played.bytes,
        &[notice(&played, &witness(), m, *at)],
        &[witness().public()],
    );
    assert_relay_dropped(&played, &judged.verdict);
}

#[test]
fn a_late_notice_changes_nothing() {
    let (played, dropped) = dropping_white(3, |p| matches!(p, Payload::Action(_)));
    let base = verifier::verify(&played.bytes);
    let (party, deadline) = timeouts(&played)[0];
    assert_eq!(party, protocol::Party::White);
    let (m, _) = &dropped[0];
    // Offered after the deadline, at it, and within the clocks' tolerance before it.
    for at in [deadline + 5_000, deadline, deadline + 1 - CLOCK_TOLERANCE_MS] {
        let judged = verifier::verify_with_notices(
            &played.bytes,
            &[notice(&played, &witness(), m, at)],
            &[witness().public()],
        );
        assert_eq!(judged.verdict, base, "a notice at {at} (deadline {deadline})");
        assert_white_loses(&judged.verdict);
        let NoticeFinding::ProvesNothing(why) = &judged.findings[0] else { panic!() };
        assert!(why.contains("late is late"), "{why}");
    }
    // Exactly the tolerance before the deadline is in time.
    let judged = verifier::verify_with_notices(
        &played.bytes,
        &[notice(&played, &witness(), m, deadline - CLOCK_TOLERANCE_MS)],
        &[witness().public()],
    );
    assert_relay_dropped(&played, &judged.verdict);
}

#[test]
fn forged_or_irrelevant_notices_prove_nothing() {
    let (played, dropped) = dropping_white(3, |p| matches!(p, Payload::Action(_)));
    let base = verifier::verify(&played.bytes);
    let (m, at) = &dropped[0];
    let trusted = [witness().public()];
    let check = |n: Delivered, expect: &str| {
        let judged = verifier::verify_with_notices(&played.bytes, &[n], &trusted);
        assert_eq!(judged.verdict, base, "{expect}");
        let NoticeFinding::ProvesNothing(why) = &judged.findings[0] else {
            panic!("{expect}: {judged:#?}")
        };
        assert!(why.contains(expect), "{expect}: {why}");
    };
    // Signed by a key the verifier does not trust (the relay's own, say).
    check(notice(&played, &played.cast.relay, m, *at), "not a trusted witness");
    // A notice for another match (another game's record, the same players).
    let (other, other_dropped) = dropping_white(5, |p| matches!(p, Payload::Action(_)));
    assert_ne!(other.record.terms, played.record.terms);
    check(notice(&other, &witness(), &other_dropped[0].0, *at), "for match");
    // A notice naming one message with another beside it.
    let mut swapped = notice(&played, &witness(), m, *at);
    swapped.message = dropped.get(1).expect("a second dropped message").0.clone();
    check(swapped, "names signed message");
    // A message the rules would have refused there: White's second dropped message, without the
    // first (it skips White's numbering).
    check(notice(&played, &witness(), &dropped[1].0, *at), "would have refused");
    // A message of the player who was not timed out.
    let black = played
        .record
        .entries
        .iter()
        .find(|e| e.message.verify().is_ok_and(|b| b.author == played.cast.players[1].public()))
        .expect("a message of Black's")
        .message
        .clone();
    check(notice(&played, &witness(), &black, *at), "not by White");
    // A message the relay did receipt (White's first message) is no dropped message.
    let receipted = played
        .record
        .entries
        .iter()
        .find(|e| e.message.verify().is_ok_and(|b| b.author == white(&played)))
        .expect("a message of White's")
        .message
        .clone();
    check(notice(&played, &witness(), &receipted, *at), "receipted before the timeout");
    // A notice whose signature was made over other bytes.
    let mut bad = notice(&played, &witness(), m, *at);
    bad.notice.signature = witness().sign(protocol::tags::MESSAGE, &bad.notice.notice);
    check(bad, "signature");
}

#[test]
fn an_honest_record_with_a_notice_keeps_its_verdict() {
    let mut config = SelfplayConfig::new(Variant::Chess, 6);
    config.colors = ColorAssignment::FirstIsWhite;
    let played = sim::selfplay_with(config).expect("the match runs");
    let base = verifier::verify(&played.bytes);
    assert!(base.is_valid(), "{base:#?}");
    let m = played.record.entries[1].message.clone();
    let judged = verifier::verify_with_notices(
        &played.bytes,
        &[notice(&played, &witness(), &m, 0)],
        &[witness().public()],
    );
    assert_eq!(judged.verdict, base);
}

//! Property: honest participants over a network that interleaves (messages reach the relay in
//! a random order across authors, entries reach each participant after random delays) play
//! matches whose verdict names nobody and whose result is what every participant claimed; and
//! when a player resigns at a random moment, whatever was in flight is a void race, never a
//! fault, and the resignation is the result.

use rules::Variant;
use sim::selfplay::{SelfplayConfig, selfplay_with};
use verifier::Verdict;

/// Matches per variant; `FOGPROOF_INTERLEAVINGS` runs more.
fn runs() -> u64 {
    std::env::var("FOGPROOF_INTERLEAVINGS").ok().and_then(|s| s.parse().ok()).unwrap_or(4)
}

fn check(variant: Variant) {
    let mut stale = 0;
    for seed in 1..=runs() {
        let mut config = SelfplayConfig::new(variant, seed);
        config.interleave = Some(seed * 7919);
        let s = selfplay_with(config).expect("self-play starts");
        let verdict = verifier::verify(&s.bytes);
        let context =
            format!("{variant} seed {seed}: refused {:?}, faults {:?}", s.refused, s.faults);
        let Verdict::Valid { result } = &verdict else {
            panic!("{context}: honest parties, verdict {verdict:#?}");
        };
        // Everyone claimed one result, and it is the verdict's.
        let claims: std::collections::BTreeSet<_> =
            s.finished.values().map(|c| (format!("{:?}", c.outcome), c.reason)).collect();
        assert_eq!(claims.len(), 1, "{context}: claims {:?}", s.finished);
        let claim = s.finished.values().next().expect("a claim");
        assert_eq!(claim.reason, result.reason.into(), "{context}");
        assert!(s.faults.is_empty(), "{context}");
        stale += stale_messages(&s.record);
    }
    // The network did interleave: some messages were written without their author having
    // seen the entry the relay placed just before them.
    assert!(stale > 0, "{variant}: no message was ever in flight");
    // Resignations at random moments, with messages in flight.
    let mut raced = 0;
    for seed in 1..=runs() * 2 {
        let mut config = SelfplayConfig::new(variant, 100 + seed);
        config.interleave = Some(seed * 104_729);
        config.max_actions = u32::try_from(seed * 7 % 23 + 2).expect("small");
        let s = selfplay_with(config).expect("self-play starts");
        let verdict = verifier::verify(&s.bytes);
        let context =
            format!("{variant} resign seed {seed}: refused {:?}, faults {:?}", s.refused, s.faults);
        let Verdict::Valid { result } = &verdict else {
            panic!("{context}: honest parties, verdict {verdict:#?}");
        };
        if result.reason != rules::EndReason::Resignation {
            continue; // the game ended by the rules before the resignation
        }
        assert!(s.faults.is_empty(), "{context}");
        assert!(s.refused.is_empty(), "{context}: an honest race is void, never refused");
        raced += verifier::envelope::check(&s.bytes)
            .map(|c| c.entries.iter().filter(|e| e.void).count())
            .unwrap_or(0);
    }
    assert!(raced > 0, "{variant}: no resignation ever raced a message");
}

/// Messages whose author had not seen the public entry just before them in the log.
fn stale_messages(record: &protocol::record::MatchRecord) -> usize {
    let relay = protocol::codec::Canonical::from_canonical(&record.terms.terms)
        .map(|t: protocol::terms::MatchTerms| t.relay)
        .expect("terms");
    // What a `seen` names, by its order head: the index of the entry whose receipt ends it.
    let orders: std::collections::BTreeMap<protocol::LogHead, usize> = record
        .entries
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let r: protocol::message::Receipt =
                protocol::codec::Canonical::from_canonical(&e.receipt.receipt).expect("receipt");
            (r.order(), i)
        })
        .collect();
    record
        .entries
        .iter()
        .enumerate()
        .skip(1)
        .filter(|(i, e)| {
            let b = e.message.verify().expect("signed");
            let before = record.entries[i - 1].message.verify().expect("signed");
            before.channel == protocol::Channel::Public
                && b.author != relay
                && b.seen.and_then(|s| orders.get(&s.order)).is_none_or(|s| s + 1 < *i)
        })
        .count()
}

#[test]
fn chess() {
    check(Variant::Chess);
}

#[test]
fn espionage() {
    check(Variant::Espionage);
}

#[test]
fn intrigue() {
    check(Variant::Intrigue);
}

#[test]
fn kriegspiel() {
    check(Variant::Kriegspiel);
}

#[test]
fn sic() {
    check(Variant::Sic);
}

#[test]
fn secretchess6() {
    check(Variant::SecretChess6);
}

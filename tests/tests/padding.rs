//! Sizes leak nothing (docs/PROTOCOL.md, "Padding"): self-plays games of every variant and
//! measures every sealed payload the relay saw. In each (variant, direction) every ciphertext
//! has one and the same length, the one `game::sealed_plaintext_bytes` fixes, although the
//! plaintexts inside (read from the records' disclosures) vary: Kriegspiel's "illegal" and
//! full announcements, SIC's legal-move lists of every length, 6x6 boards with different
//! numbers of red squares. The games that seal nothing seal nothing.

use protocol::codec::Canonical;
use protocol::game::{SealDirection, sealed_plaintext_bytes};
use protocol::message::Payload;
use protocol::record::MatchRecord;
use protocol::seal::ciphertext_bytes;
use rules::Variant;
use rules::secretchess6 as sc6;
use sim::{SelfplayConfig, selfplay_with};
use std::collections::{BTreeMap, BTreeSet};

/// What one (variant, direction) showed across all the games measured.
#[derive(Debug, Default)]
struct Measured {
    /// Ciphertext lengths the relay saw.
    ciphertexts: BTreeSet<usize>,
    /// Whole sealed payloads (`enc`, commitment, ciphertext with its length), as encoded.
    payloads: BTreeSet<usize>,
    /// Unpadded plaintext lengths, from the disclosures.
    plaintexts: BTreeSet<usize>,
    /// Sealed messages counted.
    count: usize,
}

/// Hidden facts seen in the disclosed plaintexts, to show the games covered what must not leak.
#[derive(Debug, Default)]
struct Seen {
    /// Kriegspiel answers: illegal, legal.
    illegal: usize,
    legal: usize,
    /// SIC legal-move list lengths told.
    sic_legal: BTreeSet<usize>,
    /// 6x6 red-square counts shown in board updates.
    red: BTreeSet<usize>,
    /// 6x6 tie-break submissions sealed.
    tie_breaks: usize,
}

fn direction(umpire: Option<protocol::PublicKey>, author: protocol::PublicKey) -> SealDirection {
    if umpire == Some(author) { SealDirection::FromUmpire } else { SealDirection::ToUmpire }
}

/// Adds one record's sealed messages to `measured` and what their plaintexts say to `seen`.
fn measure(
    record: &MatchRecord,
    measured: &mut BTreeMap<(Variant, SealDirection), Measured>,
    seen: &mut Seen,
) {
    let (agreed, _) = record.check_envelope().expect("an honest record's envelope checks");
    let variant = agreed.terms.variant();
    let umpire = agreed.terms.umpire.as_ref().map(|u| u.key);
    let disclosures = record.disclosures();
    for entry in &record.entries {
        let body = entry.message.verify().expect("signed");
        let Payload::Sealed(sealed) = &body.payload else { continue };
        let dir = direction(umpire, body.author);
        let m = measured.entry((variant, dir)).or_default();
        m.count += 1;
        m.ciphertexts.insert(sealed.ciphertext.len());
        // A context's first sealed message also carries its setup (`enc` and key commitment,
        // docs/PROTOCOL.md 12): it is always the author's first sealed message on the channel,
        // at a point of the match the rules fix, so its larger size tells nothing hidden. The
        // others must all be one size.
        if sealed.setup.is_none() {
            m.payloads.insert(body.payload.to_canonical().len());
        }
        let (_, d) =
            disclosures.get(&entry.message.hash()).expect("every sealed message is disclosed");
        m.plaintexts.insert(d.plaintext.len());
        let inner = Payload::from_canonical(&d.plaintext).expect("a payload");
        match (variant, inner) {
            (Variant::Kriegspiel, Payload::Observation(bytes)) => {
                match rules::kriegspiel::Answer::from_canonical(&bytes).expect("an answer") {
                    rules::kriegspiel::Answer::Illegal => seen.illegal += 1,
                    rules::kriegspiel::Answer::Legal(_) => seen.legal += 1,
                }
            }
            (Variant::Sic, Payload::Observation(bytes)) => {
                if let Ok(view) = rules::sic::View::from_canonical(&bytes) {
                    seen.sic_legal.insert(view.legal.len());
                } else if let Ok(rules::sic::Observation::OpponentMoved(r)) =
                    rules::sic::Observation::from_canonical(&bytes)
                {
                    seen.sic_legal.insert(r.legal.len());
                }
            }
            (Variant::SecretChess6, Payload::Observation(bytes)) => {
                let o = sc6::Observation::from_canonical(&bytes).expect("a 6x6 observation");
                for e in o.events {
                    if let sc6::Event::Board { red, .. } = e {
                        seen.red.insert(red.len());
                    }
                }
            }
            (Variant::SecretChess6, Payload::Action(bytes)) => {
                if let Ok(sc6::Action::TieBreak { .. }) = sc6::Action::from_canonical(&bytes) {
                    seen.tie_breaks += 1;
                }
            }
            _ => {}
        }
    }
}

fn play(
    config: SelfplayConfig,
    measured: &mut BTreeMap<(Variant, SealDirection), Measured>,
    seen: &mut Seen,
) {
    let (variant, seed) = (config.variant(), config.seed);
    let s = selfplay_with(config).unwrap_or_else(|e| panic!("{variant}/{seed}: {e}"));
    assert!(s.refused.is_empty(), "{variant}/{seed}: relay refused {:?}", s.refused);
    assert!(s.faults.is_empty(), "{variant}/{seed}: faults {:?}", s.faults);
    assert!(s.summary.result.is_some(), "{variant}/{seed}: no result");
    // The verifier accepts the padded record, re-sealing every disclosure at the agreed size.
    let verdict = verifier::verify(&s.bytes);
    assert!(verdict.is_valid(), "{variant}/{seed}: {verdict:?}");
    measure(&s.record, measured, seen);
}

/// Seeds per variant: enough games for both Kriegspiel answers, many SIC list lengths, 6x6 with
/// and without items, a 6x6 tie-break (seed 32), and the three games that seal nothing.
#[test]
fn every_sealed_payload_of_a_variant_and_direction_has_one_size() {
    let mut measured = BTreeMap::new();
    let mut seen = Seen::default();
    let games: [(Variant, &[u64]); 6] = [
        (Variant::Kriegspiel, &[1, 4]),
        (Variant::Sic, &[4, 5]),
        (Variant::SecretChess6, &[32, 1, 2]),
        (Variant::Chess, &[0]),
        (Variant::Espionage, &[0]),
        (Variant::Intrigue, &[0]),
    ];
    for (variant, seeds) in games {
        for &seed in seeds {
            play(SelfplayConfig::new(variant, seed), &mut measured, &mut seen);
        }
    }
    for seed in [0, 1] {
        let mut c = SelfplayConfig::new(Variant::SecretChess6, seed);
        c.game = rules::GameOptions::SecretChess6(rules::secretchess6::Options {
            life_freezes: rules::ByColor { white: 2, black: 2 },
            false_square: rules::ByColor { white: true, black: true },
            hidden_scores: true,
        });
        play(c, &mut measured, &mut seen);
    }
    for ((variant, dir), m) in &measured {
        eprintln!(
            "{variant} {dir:?}: {} sealed, ciphertexts {:?}, payloads {:?}, plaintexts {}..={} ({} lengths)",
            m.count,
            m.ciphertexts,
            m.payloads,
            m.plaintexts.first().unwrap_or(&0),
            m.plaintexts.last().unwrap_or(&0),
            m.plaintexts.len()
        );
    }
    eprintln!("{seen:?}");
    // Only the umpired games seal, in both directions.
    let umpired = [Variant::Kriegspiel, Variant::Sic, Variant::SecretChess6];
    let expected: BTreeSet<_> = umpired
        .iter()
        .flat_map(|v| [(*v, SealDirection::ToUmpire), (*v, SealDirection::FromUmpire)])
        .collect();
    assert_eq!(
        measured.keys().copied().collect::<BTreeSet<_>>(),
        expected,
        "sealed messages in exactly the umpired games, both ways"
    );
    for (variant, dir) in expected {
        let m = &measured[&(variant, dir)];
        let agreed = ciphertext_bytes(sealed_plaintext_bytes(variant, dir));
        assert_eq!(
            m.ciphertexts,
            BTreeSet::from([agreed]),
            "{variant} {dir:?}: every ciphertext must be {agreed} bytes"
        );
        assert_eq!(m.payloads.len(), 1, "{variant} {dir:?}: sealed payload sizes {:?}", m.payloads);
        // The measurement is of something real: what is inside does vary.
        assert!(
            m.plaintexts.len() > 1,
            "{variant} {dir:?}: the plaintexts all had one length, {:?}: nothing was measured",
            m.plaintexts
        );
    }
    // And the hidden facts that used to show in the sizes did occur.
    assert!(seen.illegal > 0 && seen.legal > 0, "both Kriegspiel answers: {seen:?}");
    assert!(seen.sic_legal.len() > 10, "many SIC legal-move list lengths: {:?}", seen.sic_legal);
    assert!(seen.red.len() > 2, "several 6x6 red-square counts: {:?}", seen.red);
    assert!(seen.tie_breaks > 0, "a 6x6 tie-break was sealed: {seen:?}");
}

/// A payload too long for the agreed size is never sent, neither longer nor in clear: the
/// player whose (hooked) attempt does not fit stays silent and loses on time.
#[test]
fn a_payload_that_does_not_fit_is_not_sent() {
    let mut config = SelfplayConfig::new(Variant::Kriegspiel, 1);
    config.colors = protocol::terms::ColorAssignment::FirstIsWhite;
    let mut hooked = false;
    config.player_hooks[0] = Some(Box::new(move |channel, p| {
        if channel != protocol::Channel::Public && matches!(p, Payload::Action(_)) && !hooked {
            hooked = true;
            *p = Payload::Action(vec![0; 64]);
        }
        true
    }));
    let s = selfplay_with(config).expect("the match runs");
    let white = s.cast.players[0].public();
    let mut private = 0;
    for e in &s.record.entries {
        let body = e.message.verify().expect("signed");
        if body.author == white && body.channel != protocol::Channel::Public {
            let Payload::Sealed(sealed) = &body.payload else {
                panic!("white sent {} in clear on its private channel", body.payload.kind())
            };
            let agreed = sealed_plaintext_bytes(Variant::Kriegspiel, SealDirection::ToUmpire);
            assert_eq!(sealed.ciphertext.len(), ciphertext_bytes(agreed));
            private += 1;
        }
    }
    assert_eq!(private, 0, "white's first attempt did not fit: it sent nothing after it");
    assert!(s.refused.is_empty(), "nothing reached the relay to refuse: {:?}", s.refused);
    let verdict = verifier::verify(&s.bytes);
    let [fault] = verdict.faults() else { panic!("one fault expected: {verdict:?}") };
    assert_eq!((fault.kind, fault.culprit), (verifier::FaultKind::Timeout, Some(white)));
    for (who, claim) in &s.finished {
        assert_eq!(claim.reason.name(), "timeout", "{who:?}");
    }
}

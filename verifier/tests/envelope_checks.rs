//! Layer 1 on honest records (everything decoded and handed over) and on each fault the
//! adversarial suite does not cover: terms, receipts, authors and payloads not allowed,
//! disclosures, duplicate commitments, time going back, record order.

mod envelope_support;

use envelope_support::{Harness, Who, messages, only_fault, relog, with_entries};
use protocol::codec::Canonical;
use protocol::commitment;
use protocol::coordinator::NotEntitled;
use protocol::message::{Expectation, Payload, SignedMessage};
use protocol::record::MatchRecord;
use protocol::relay::{Entry, RelayError};
use protocol::seal;
use protocol::{Channel, Color};
use verifier::envelope::{self, Checked};
use verifier::{FaultKind, MatchRole};

fn checked(h: &Harness) -> Checked {
    match envelope::check(&h.bytes()) {
        Ok(c) => c,
        Err(f) => panic!("honest record refused: {f:#?}"),
    }
}

fn faults(bytes: &[u8]) -> Vec<verifier::Fault> {
    match envelope::check(bytes) {
        Ok(_) => panic!("a faulty record passed"),
        Err(f) => f,
    }
}

#[test]
fn honest_open_game_hands_over_everything() {
    let h = Harness::honest("chess");
    let c = checked(&h);
    assert_eq!(c.variant, rules::Variant::Chess);
    assert_eq!(c.match_id(), h.match_id());
    assert_eq!(Some(c.colors), h.relay.colors());
    assert_eq!(c.entries.len(), h.relay.entries().len());
    let white = c.colors.white;
    assert_eq!(c.role_of(&white), Some(MatchRole::White));
    assert_eq!(c.key_of(MatchRole::Relay), Some(h.relay_id.public()));
    // One commitment each (the public contribution), revealed at setup.
    assert_eq!(c.commitments.len(), 2);
    assert!(c.commitments.iter().all(|x| x.opening.is_some()));
    let actions = c.entries.iter().filter(|e| matches!(e.payload, Payload::Action(_))).count();
    assert_eq!(actions, 4);
    assert!(c.entries.iter().all(|e| !e.sealed && !e.void));
}

#[test]
fn honest_sic_game_hands_over_the_seeds() {
    let h = Harness::honest("sic");
    let c = checked(&h);
    // Two commitments each, all opened: the contributions at setup, the seeds at the end.
    assert_eq!(c.commitments.len(), 4);
    assert!(c.commitments.iter().all(|x| x.opening.is_some()));
    let seed = c.private_seed(Color::White).expect("white's seed opened");
    let theirs = c.contribution(Color::Black).expect("black's contribution");
    assert_eq!(
        c.setup_seed(Color::White),
        Some(protocol::seed::setup_seed(&seed, &theirs, &h.match_id(), Color::White))
    );
    let sealed_actions =
        c.entries.iter().filter(|e| e.sealed && matches!(e.payload, Payload::Action(_))).count();
    assert_eq!(sealed_actions, 4);
}

#[test]
fn honest_umpired_game_shows_disclosed_plaintexts() {
    let h = Harness::honest("kriegspiel");
    let c = checked(&h);
    let sealed: Vec<_> = c.entries.iter().filter(|e| e.sealed).collect();
    assert_eq!(sealed.len(), 4 * 3, "each ply: one action and two observations");
    assert!(sealed.iter().all(|e| !matches!(e.payload, Payload::Sealed(_))));
    let first = sealed[0];
    assert_eq!(first.payload, Payload::Action(b"move 0".to_vec()));
    assert_eq!(first.role, MatchRole::White);
    assert_eq!(first.channel(), Channel::WhiteUmpire);
    assert_eq!(sealed[1].role, MatchRole::Umpire);
    assert_eq!(sealed[1].payload, Payload::Observation(b"white 0".to_vec()));
}

#[test]
fn terms_not_signed_by_a_player_void_everything() {
    let h = Harness::honest("chess");
    let mut r = h.record();
    r.terms.signatures[1].s[3] ^= 1;
    let f = only_fault(&faults(&r.to_canonical()), FaultKind::BadTerms, None, MatchRole::Record);
    assert!(f.explanation.contains("signer 1"), "{f:?}");
}

#[test]
fn terms_of_an_unknown_game_or_without_their_umpire_are_refused() {
    let h = Harness::honest("chess");
    // (the game's id, its option fields): an unknown game; Kriegspiel with its option byte but
    // no umpire (it decodes, and the gate refuses it); Kriegspiel without its option byte and
    // chess with one (neither decodes).
    let cases: [(&str, &[u8]); 4] =
        [("go", &[]), ("kriegspiel", &[0]), ("kriegspiel", &[]), ("chess", &[1])];
    for (variant, options) in cases {
        let terms = h.terms.terms.clone();
        // The game travels as its id (a postcard string after the version byte) and then its
        // option fields (none for chess): write them into the bytes by hand, since an unknown
        // game has no typed value to encode.
        let known = terms.to_canonical();
        let id_len = usize::from(known[1]);
        let mut bytes = vec![known[0], u8::try_from(variant.len()).unwrap()];
        bytes.extend(variant.as_bytes());
        bytes.extend(options);
        bytes.extend(&known[2 + id_len..]);
        let signers = [&h.p0, &h.p1, &h.relay_id, &h.umpire];
        let signatures = terms
            .signers()
            .iter()
            .map(|k| {
                let id = signers.iter().find(|i| i.public() == *k).expect("a signer");
                id.sign(protocol::tags::TERMS, &bytes)
            })
            .collect();
        let signed = protocol::terms::SignedTerms { terms: bytes, signatures };
        let r = MatchRecord { terms: signed, ..h.record() };
        only_fault(&faults(&r.to_canonical()), FaultKind::BadTerms, None, MatchRole::Record);
    }
}

#[test]
fn receipt_not_signed_by_the_relay_is_the_records_fault() {
    let h = Harness::honest("chess");
    let mut r = h.record();
    r.entries[3].receipt.signature.s[0] ^= 1;
    let f = only_fault(&faults(&r.to_canonical()), FaultKind::BadReceipt, None, MatchRole::Record);
    assert_eq!(f.entry, Some(3));
}

#[test]
fn receipt_of_another_message_is_the_records_fault() {
    let h = Harness::honest("chess");
    let mut r = h.record();
    let other = r.entries[4].receipt.clone();
    r.entries[3].receipt = other;
    let f = only_fault(&faults(&r.to_canonical()), FaultKind::BadReceipt, None, MatchRole::Record);
    assert_eq!(f.entry, Some(3));
}

#[test]
fn a_flipped_message_signature_bit_is_the_records_fault_not_the_relays() {
    // Issue: receipts used to cover the body only, so one flipped signature bit in an honest
    // record named the relay. The receipt now covers the whole signed message: the relay
    // signed nothing about these bytes, so nobody is named.
    let h = Harness::honest("chess");
    for bit in [0u8, 7] {
        let mut r = h.record();
        r.entries[2].message.signature.s[3] ^= 1 << bit;
        let f =
            only_fault(&faults(&r.to_canonical()), FaultKind::BadReceipt, None, MatchRole::Record);
        assert_eq!(f.entry, Some(2));
    }
}

#[test]
fn a_relay_head_that_does_not_chain_is_equivocation() {
    let h = Harness::honest("chess");
    let mut r = h.record();
    let m = r.entries[4].message.clone();
    // A receipt for the right message and position whose head chains from another history.
    let position = r.entries[4].receipt.open(&h.relay_id.public()).unwrap().position;
    r.entries[4].receipt =
        h.receipt(&m, position, 50, &protocol::LogHead([9; 32]), &h.order_before(4));
    let f = only_fault(
        &faults(&r.to_canonical()),
        FaultKind::Equivocation,
        Some(h.relay_id.public()),
        MatchRole::Relay,
    );
    assert_eq!(f.entry, Some(4));
}

#[test]
fn relay_receipts_going_back_in_time_are_the_relays_fault() {
    let h = Harness::honest("chess");
    let mut r = h.record();
    let m = r.entries[5].message.clone();
    let position = r.entries[5].receipt.open(&h.relay_id.public()).unwrap().position;
    r.entries[5].receipt = h.receipt(&m, position, 1, &h.head_before(5), &h.order_before(5));
    let f = only_fault(
        &faults(&r.to_canonical()),
        FaultKind::BadReceipt,
        Some(h.relay_id.public()),
        MatchRole::Relay,
    );
    assert_eq!(f.entry, Some(5));
}

#[test]
fn entries_swapped_in_the_record_are_the_records_fault() {
    // The receipts are honest; only the unsigned order of the record is wrong.
    let h = Harness::honest("chess");
    let mut r = h.record();
    r.entries.swap(2, 3);
    only_fault(&faults(&r.to_canonical()), FaultKind::MalformedRecord, None, MatchRole::Record);
}

#[test]
fn a_stranger_on_the_public_channel_is_not_allowed() {
    let mut h = Harness::new("chess", 1);
    h.setup();
    let stranger = protocol::keys::Identity::from_seed(&[0x99; 32]);
    let mut author = protocol::message::Author::new(stranger, h.match_id());
    let m = author.write(Channel::Public, None, Payload::Action(b"hello".to_vec()));
    let mut all = messages(&h.record());
    all.push(m);
    let f = only_fault(
        &faults(&with_entries(&h, relog(&h, &all))),
        FaultKind::NotAllowed,
        Some(h.relay_id.public()),
        MatchRole::Relay,
    );
    assert_eq!(f.entry, Some(all.len() - 1));
}

#[test]
fn unsealed_private_payload_and_sealed_public_payload_are_their_authors_fault() {
    // Outside the table of who may say what (PROTOCOL.md): the author signed it, so the author
    // is named (the relay should have refused it too, but only the author's bytes prove intent).
    let mut h = Harness::new("kriegspiel", 1);
    h.setup();
    let white = h.side(Color::White);
    let plain = h.write(white, Channel::WhiteUmpire, Payload::Action(b"e2e4".to_vec()));
    let mut all = messages(&h.record());
    all.push(plain);
    only_fault(
        &faults(&with_entries(&h, relog(&h, &all))),
        FaultKind::NotAllowed,
        Some(h.key(white)),
        MatchRole::White,
    );

    // Black writing on white's private channel.
    let mut h = Harness::new("kriegspiel", 1);
    h.setup();
    let black = h.side(Color::Black);
    let sealed = Payload::Sealed(protocol::seal::Sealed {
        setup: Some(seal::SealSetup { enc: [9; 32], key_commitment: [7; 32] }),
        commitment: [8; 32],
        ciphertext: vec![1; 20],
    });
    let m = h.write(black, Channel::WhiteUmpire, sealed.clone());
    let mut all = messages(&h.record());
    all.push(m);
    only_fault(
        &faults(&with_entries(&h, relog(&h, &all))),
        FaultKind::NotAllowed,
        Some(h.key(black)),
        MatchRole::Black,
    );

    // A sealed payload in the open.
    let mut h = Harness::new("kriegspiel", 1);
    h.setup();
    let m = h.write(black, Channel::Public, sealed);
    let mut all = messages(&h.record());
    all.push(m);
    only_fault(
        &faults(&with_entries(&h, relog(&h, &all))),
        FaultKind::NotAllowed,
        Some(h.key(black)),
        MatchRole::Black,
    );
}

#[test]
fn a_timeout_before_its_deadline_is_the_relays_fault() {
    let mut h = Harness::new("chess", 1);
    h.setup();
    // White is to move: a relay timing out Black (who owes nothing), or White 10 ms into its
    // hour, is contradicted by the clocks the verifier rebuilds from the terms and receipts.
    for (party, deadline_ms) in [(protocol::Party::Black, 10_000), (protocol::Party::White, 100)] {
        let mut h = Harness::new("chess", 1);
        h.setup();
        let body = protocol::message::MessageBody {
            version: protocol::codec::VERSION,
            match_id: h.match_id(),
            channel: Channel::Public,
            author: h.relay_id.public(),
            seq: 1,
            seen: None,
            re: None,
            payload: Payload::Timeout { party, expectation: Expectation::Move, deadline_ms },
        };
        let m = protocol::message::SignedMessage::sign(&body, &h.relay_id);
        let mut all = messages(&h.record());
        all.push(m);
        let f = only_fault(
            &faults(&with_entries(&h, relog(&h, &all))),
            FaultKind::Timeout,
            Some(h.relay_id.public()),
            MatchRole::Relay,
        );
        assert!(f.explanation.contains(&party.to_string()), "{f:?}");
    }
}

#[test]
fn a_copied_commitment_is_the_copiers_fault() {
    let mut h = Harness::new("chess", 1);
    let c = h.commit_payload(Who::P0, commitment::PUBLIC_CONTRIBUTION);
    h.send(Who::P0, Channel::Public, c.clone());
    let Payload::Commit { commitment, .. } = c else { unreachable!() };
    let copy = Payload::Commit { purpose: commitment::PUBLIC_CONTRIBUTION, commitment };
    let m = h.write(Who::P1, Channel::Public, copy);
    let mut all = messages(&h.record());
    all.push(m);
    let f = only_fault(
        &faults(&with_entries(&h, relog(&h, &all))),
        FaultKind::DuplicateCommitment,
        Some(h.p1.public()),
        MatchRole::Black, // colors never drawn: players[1] is reported as black
    );
    assert!(f.explanation.contains("copy"), "{f:?}");
}

/// An honest Kriegspiel record in which `who`'s `Disclose` message is replaced by one it signs
/// with its items changed by `change`, logged by a relay that accepts anything.
fn with_changed_disclosure(
    who: Who,
    change: impl Fn(&Harness, &mut Vec<seal::SealDisclosure>),
) -> (Harness, Vec<u8>, protocol::MessageHash) {
    let h = Harness::honest("kriegspiel");
    let key = h.key(who);
    let mut all = messages(&h.record());
    let at = all
        .iter()
        .position(|m| {
            let b = m.verify().unwrap();
            b.author == key && matches!(b.payload, Payload::Disclose(_))
        })
        .expect("an honest record holds every party's disclosures");
    let mut body = all[at].verify().unwrap();
    let Payload::Disclose(items) = &mut body.payload else { unreachable!() };
    change(&h, items);
    all[at] = SignedMessage::sign(&body, h.identity(who));
    let hash = all[at].hash();
    let bytes = with_entries(&h, relog(&h, &all));
    (h, bytes, hash)
}

/// `all` logged by the relay with a countersignature of each of `signers` after its close, each
/// naming the close as the last entry its signer saw.
fn with_countersigns(h: &Harness, all: &[SignedMessage], signers: &[Who]) -> Vec<u8> {
    let entries = relog(h, all);
    let close = entries
        .iter()
        .find(|e| matches!(e.message.verify().unwrap().payload, Payload::Close { .. }))
        .expect("the relay closed the match");
    let receipt = close.receipt.open(&h.relay_id.public()).expect("the relay's receipt");
    let mut more = all.to_vec();
    for who in signers {
        let mut author = h.authors[&h.key(*who)].clone();
        author.saw(&receipt);
        more.push(author.write(Channel::Public, None, Payload::Countersign));
    }
    with_entries(h, relog(h, &more))
}

/// Docs/PROTOCOL.md 14.2: a disclosure is checked by its key (the one the signed setup commits
/// to, one hash) and, unless the channel's recipient countersigned, by its seed too (the setup
/// re-derived, one key agreement). An honest recipient countersigns only when every setup sent
/// to it gave it the committed key, so its countersignature makes the key agreement
/// unnecessary; without it the seed must still reproduce the setup. A seed that reproduces
/// nothing, beside the true key, shows which check ran: unchecked where every recipient
/// countersigned, the umpire's fault where White (the recipient on White's channel) did not.
#[test]
fn a_recipients_countersignature_spares_the_key_agreement_and_nothing_else_does() {
    let h = Harness::honest("kriegspiel");
    let umpire = h.key(Who::Umpire);
    let honest = messages(&h.record());
    let at = honest
        .iter()
        .position(|m| {
            let b = m.verify().unwrap();
            b.author == umpire && matches!(b.payload, Payload::Disclose(_))
        })
        .expect("the umpire's disclosure");
    // The umpire's messages with its disclosure changed by `change`, re-signed.
    let lie = |change: &dyn Fn(&mut seal::SealDisclosure)| {
        let mut all = honest.clone();
        let mut body = all[at].verify().unwrap();
        let Payload::Disclose(items) = &mut body.payload else { unreachable!() };
        items.iter_mut().for_each(change);
        all[at] = SignedMessage::sign(&body, h.identity(Who::Umpire));
        all
    };
    let junk_seed = lie(&|d| d.seal_seed = [0xab; 32]);
    let everyone = [Who::P0, Who::P1, Who::Umpire];
    // (The envelope's checks: this harness's moves are not a game the rules replay.)
    let checked = envelope::check(&with_countersigns(&h, &junk_seed, &everyone))
        .unwrap_or_else(|f| panic!("every recipient countersigned: {f:#?}"));
    assert_eq!(checked.entries.last().map(|e| &e.payload), Some(&Payload::Countersign));
    // White did not countersign: the umpire's disclosure on White's channel is checked by its
    // seed, which reproduces nothing.
    let white = h.side(Color::White);
    let others: Vec<Who> = everyone.into_iter().filter(|w| *w != white).collect();
    let f = only_fault(
        &faults(&with_countersigns(&h, &junk_seed, &others)),
        FaultKind::BadDisclosure,
        Some(umpire),
        MatchRole::Umpire,
    );
    assert!(f.evidence.contains("does not reproduce the signed setup"), "{f:?}");
    // A countersignature covers the key agreement only: a key the setup does not commit to is
    // refused whoever countersigned.
    let wrong_key = lie(&|d| d.key[0] ^= 1);
    let f = only_fault(
        &faults(&with_countersigns(&h, &wrong_key, &everyone)),
        FaultKind::BadDisclosure,
        Some(umpire),
        MatchRole::Umpire,
    );
    assert!(f.evidence.contains("is not the key the signed setup commits to"), "{f:?}");
}

#[test]
fn an_honest_record_discloses_every_sealed_message_in_signed_messages() {
    let h = Harness::honest("kriegspiel");
    let r = h.record();
    let sealed: Vec<_> = r
        .entries
        .iter()
        .filter(|e| matches!(e.message.verify().unwrap().payload, Payload::Sealed(_)))
        .map(|e| e.message.hash())
        .collect();
    let disclosed = r.disclosures();
    assert!(!sealed.is_empty());
    assert_eq!(sealed.len(), disclosed.len());
    assert!(sealed.iter().all(|m| disclosed.contains_key(m)));
    // Each disclosure comes in a message signed by the sealed message's author.
    for (m, (entry, _)) in &disclosed {
        let sealed_author =
            r.entries.iter().find(|e| e.message.hash() == *m).unwrap().message.verify().unwrap();
        let carrier = r.entries[*entry].message.verify().unwrap();
        assert_eq!(sealed_author.author, carrier.author);
    }
    let c = checked(&h);
    assert!(
        c.entries.iter().filter(|e| e.sealed).all(|e| !matches!(e.payload, Payload::Sealed(_)))
    );
}

#[test]
fn a_false_disclosure_is_its_signers_fault() {
    let white = |h: &Harness| h.side(Color::White);
    // A seed that is not the one it set its context up with, under its own signature.
    let (h, bytes, m) = with_changed_disclosure(Who::P0, |_, items| items[0].seal_seed[0] ^= 1);
    let key = h.key(Who::P0);
    let role = if white(&h) == Who::P0 { MatchRole::White } else { MatchRole::Black };
    let f = only_fault(&faults(&bytes), FaultKind::BadDisclosure, Some(key), role);
    assert_eq!(f.message, Some(m));
    assert!(f.evidence.contains("does not reproduce the signed setup"), "{f:?}");
    // The umpire disclosing, for a player's channel, that player's seed (it can read the
    // player's messages there, but sealed its own with another context).
    let (h, bytes, _) = with_changed_disclosure(Who::Umpire, |h, items| {
        let p0 = h.key(Who::P0);
        let theirs = h
            .record()
            .entries
            .iter()
            .map(|e| e.message.verify().unwrap())
            .find_map(|b| match b.payload {
                Payload::Disclose(d) if b.author == p0 => Some(d[0]),
                _ => None,
            })
            .expect("the player's disclosure");
        let mine = items.iter_mut().find(|d| d.channel == theirs.channel).expect("the channel");
        mine.seal_seed = theirs.seal_seed;
    });
    only_fault(
        &faults(&bytes),
        FaultKind::BadDisclosure,
        Some(h.key(Who::Umpire)),
        MatchRole::Umpire,
    );
    // A player disclosing the other player's channel, on which it sealed nothing.
    let (h, bytes, _) = with_changed_disclosure(Who::P0, |_, items| {
        let other = Channel::private(items[0].channel.side().unwrap().other());
        items.push(seal::SealDisclosure { channel: other, ..items[0] });
    });
    let f = only_fault(&faults(&bytes), FaultKind::BadDisclosure, Some(h.key(Who::P0)), role);
    assert!(f.evidence.contains("awaits"), "{f:?}");
    // The same channel twice in one message.
    let (_, bytes, _) = with_changed_disclosure(Who::P0, |_, items| items.push(items[0]));
    only_fault(&faults(&bytes), FaultKind::BadDisclosure, Some(key), role);
}

#[test]
fn the_relay_refuses_a_false_disclosure() {
    let mut h = Harness::new("kriegspiel", 1);
    h.setup();
    h.play(2);
    let claim = Payload::Claim(protocol::message::Claim {
        outcome: protocol::message::Outcome::BlackWins,
        reason: rules::EndReason::Resignation.into(),
    });
    h.send(h.side(Color::White), Channel::Public, claim);
    let mut items = h.disclosures[&h.key(Who::Umpire)].clone();
    assert_eq!(items.len(), 2, "one disclosure per channel, however many messages");
    items[0].seal_seed[0] ^= 1;
    let m = h.write(Who::Umpire, Channel::Public, Payload::Disclose(items));
    assert!(matches!(
        h.relay.accept(&m.to_canonical(), h.now),
        Err(RelayError::NotEntitled(NotEntitled::BadDisclosure { .. }))
    ));
    // Before the end, even a true disclosure is not in order (it would leak hidden state).
    let mut h = Harness::new("kriegspiel", 1);
    h.setup();
    h.play(2);
    let items = h.disclosures[&h.key(Who::Umpire)].clone();
    let m = h.write(Who::Umpire, Channel::Public, Payload::Disclose(items));
    assert!(matches!(
        h.relay.accept(&m.to_canonical(), h.now),
        Err(RelayError::NotEntitled(NotEntitled::NotNow { .. }))
    ));
}

/// White's context on its channel, to the umpire, for its next message, from `seed`.
fn white_sealer(h: &mut Harness, seed: [u8; 32]) -> (seal::Sealer, seal::SealContext) {
    let white = h.side(Color::White);
    let recipient = h.terms.terms.umpire.as_ref().unwrap().seal_key;
    let key = h.key(white);
    let match_id = h.match_id();
    let author = h.authors.get_mut(&key).unwrap();
    let seq = author.next_body(Channel::WhiteUmpire, None, Payload::Action(vec![])).seq;
    let ctx =
        protocol::seal::SealContext { match_id, channel: Channel::WhiteUmpire, author: key, seq };
    (seal::Sealer::new(&recipient, &ctx, &seed).unwrap(), ctx)
}

/// White seals `sealed_bytes` (its first sealed message, with its setup) but signs a
/// commitment to `claimed`; then Black resigns and every other disclosure goes in.
fn white_seals_one_thing_and_commits_to_another(
    sealed_bytes: &[u8],
    claimed: Vec<u8>,
) -> (Harness, SignedMessage, seal::SealDisclosure) {
    let mut h = Harness::new("kriegspiel", 1);
    h.setup();
    let white = h.side(Color::White);
    let seed = [3; 32];
    let padded_len = h.padded_len(white);
    let (mut sealer, ctx) = white_sealer(&mut h, seed);
    let mut sealed = sealer.seal(&ctx, sealed_bytes, padded_len, true).unwrap();
    sealed.commitment = seal::plaintext_commitment(&seal::seal_salt(&seed, ctx.seq), &claimed);
    let m = h.write(white, Channel::WhiteUmpire, Payload::Sealed(sealed));
    h.submit(&m);
    let claim = Payload::Claim(protocol::message::Claim {
        outcome: protocol::message::Outcome::WhiteWins,
        reason: rules::EndReason::Resignation.into(),
    });
    h.send(h.side(Color::Black), Channel::Public, claim);
    for who in [Who::P0, Who::P1, Who::Umpire] {
        if who != white {
            h.disclose(who);
        }
    }
    let d = sealer.disclosure();
    (h, m, d)
}

#[test]
fn a_ciphertext_that_does_not_carry_its_committed_plaintext_cannot_be_disclosed_and_forfeits() {
    // White seals garbage but signs a commitment to a plain action (so the nonce, which the
    // commitment feeds, is another one too). Under its true, disclosed key the message does
    // not open: the relay refuses the disclosure, White times out owing it, and forfeits the
    // game even though Black had resigned.
    let claimed = Payload::Action(b"anything".to_vec()).to_canonical();
    let (mut h, m, d) = white_seals_one_thing_and_commits_to_another(&[0xff, 0xff], claimed);
    let white = h.side(Color::White);
    let lie = h.write(white, Channel::Public, Payload::Disclose(vec![d]));
    let refused = h.relay.accept(&lie.to_canonical(), h.now);
    assert!(
        matches!(refused, Err(RelayError::NotEntitled(NotEntitled::BadDisclosure { .. }))),
        "{refused:?}"
    );
    let notice = h.next_timeout();
    assert!(matches!(
        notice.message.verify().unwrap().payload,
        Payload::Timeout { party: protocol::Party::White, expectation: Expectation::Reveal, .. }
    ));
    let f = only_fault(
        &faults(&h.bytes()),
        FaultKind::MissingReveal,
        Some(h.key(white)),
        MatchRole::White,
    );
    assert_eq!(f.message, Some(m.hash()));
    assert_eq!(
        verifier::verify(&h.bytes()).sanctioned_result(),
        Some(rules::GameResult::win(rules::Color::Black, rules::EndReason::Forfeit))
    );
    // A relay that accepted the false disclosure anyway: the disclosure is White's fault.
    let mut all = messages(&h.record());
    all.truncate(all.len() - 1);
    all.push(lie);
    let f = only_fault(
        &faults(&with_entries(&h, relog(&h, &all))),
        FaultKind::BadDisclosure,
        Some(h.key(white)),
        MatchRole::White,
    );
    assert!(f.evidence.contains(&m.hash().to_string()), "{f:?}");
    assert!(f.evidence.contains("does not open"), "{f:?}");
}

#[test]
fn a_sealed_message_without_its_contexts_setup_or_with_another_is_its_authors_fault() {
    // White's first sealed message on its channel carries no setup (nothing to decapsulate:
    // nobody could open it), then, in another match, a later one carries another setup than
    // its first did (a second key on one channel). The relay refuses both; logged anyway, each
    // is White's fault.
    let e2e4 = Payload::Action(b"e2e4".to_vec()).to_canonical();
    for case in ["missing", "changed"] {
        let mut h = Harness::new("kriegspiel", 1);
        h.setup();
        if case == "changed" {
            h.play(2);
        }
        let white = h.side(Color::White);
        let padded = h.padded_len(white);
        let (mut sealer, ctx) = white_sealer(&mut h, [0x5e; 32]);
        let sealed = sealer.seal(&ctx, &e2e4, padded, case == "changed").unwrap();
        let m = h.write(white, Channel::WhiteUmpire, Payload::Sealed(sealed));
        let refused = h.relay.accept(&m.to_canonical(), h.now);
        assert!(
            matches!(refused, Err(RelayError::NotEntitled(NotEntitled::SealSetup { .. }))),
            "{case}: {refused:?}"
        );
        let mut all = messages(&h.record());
        all.push(m.clone());
        let f = only_fault(
            &faults(&with_entries(&h, relog(&h, &all))),
            FaultKind::NotAllowed,
            Some(h.key(white)),
            MatchRole::White,
        );
        assert_eq!(f.message, Some(m.hash()), "{case}");
        let why = if case == "missing" { "carries its setup" } else { "another setup" };
        assert!(f.evidence.contains(why), "{case}: {f:?}");
    }
}

#[test]
fn a_setup_committing_to_another_key_than_its_enc_gives_convicts_its_author() {
    // White wants its first attempt to say one thing to the umpire and another to the
    // verifier: its setup carries the enc of one context and the key commitment of another,
    // under whose key it sealed the ciphertext. The umpire's check of the commitment against
    // the key it decapsulates fails at once, so it complains (a forfeit claim naming the
    // message); no seed reproduces that setup, so White cannot disclose and forfeits; a
    // relay that logs either of White's seeds as its disclosure has logged White's fault.
    let mut h = Harness::new("kriegspiel", 1);
    h.setup();
    let white = h.side(Color::White);
    let padded = h.padded_len(white);
    let (honest, ctx) = white_sealer(&mut h, [1; 32]);
    let (mut other, _) = white_sealer(&mut h, [2; 32]);
    let mut sealed =
        other.seal(&ctx, &Payload::Action(b"e2e4".to_vec()).to_canonical(), padded, true).unwrap();
    sealed.setup = Some(seal::SealSetup { enc: honest.setup().enc, ..other.setup() });
    let u = h.terms.terms.umpire.as_ref().unwrap();
    let mut inbox = seal::Inbox::new(seal::SealSecret::for_match(&h.umpire, &u.nonce));
    assert_eq!(
        inbox.open(&ctx, &sealed, padded),
        Err(seal::SealError::KeyCommitmentMismatch { channel: Channel::WhiteUmpire, seq: ctx.seq })
    );
    let m = h.write(white, Channel::WhiteUmpire, Payload::Sealed(sealed));
    h.submit(&m);
    let complaint = Payload::Claim(protocol::flow::loss_of(Color::White, protocol::flow::FORFEIT));
    let c = h.write_re(Who::Umpire, Channel::Public, Some(m.hash()), complaint);
    h.submit(&c);
    for who in [Who::P0, Who::P1, Who::Umpire] {
        if who != white {
            h.disclose(who);
        }
    }
    let mut lies = Vec::new();
    // Either context's disclosure: the first's key is not the committed one; the second's is,
    // but its seed does not reproduce the setup's enc (nobody countersigned, so the verifier
    // re-derives the setup, as the relay does).
    for d in [honest.disclosure(), other.disclosure()] {
        let lie = h.authors[&h.key(white)].clone().write(
            Channel::Public,
            None,
            Payload::Disclose(vec![d]),
        );
        let refused = h.relay.accept(&lie.to_canonical(), h.now);
        assert!(
            matches!(refused, Err(RelayError::NotEntitled(NotEntitled::BadDisclosure { .. }))),
            "{refused:?}"
        );
        lies.push(lie);
    }
    let notice = h.next_timeout();
    assert!(matches!(
        notice.message.verify().unwrap().payload,
        Payload::Timeout { party: protocol::Party::White, expectation: Expectation::Reveal, .. }
    ));
    only_fault(&faults(&h.bytes()), FaultKind::MissingReveal, Some(h.key(white)), MatchRole::White);
    assert_eq!(
        verifier::verify(&h.bytes()).sanctioned_result(),
        Some(rules::GameResult::win(rules::Color::Black, rules::EndReason::Forfeit))
    );
    for lie in lies {
        let mut all = messages(&h.record());
        all.truncate(all.len() - 1);
        all.push(lie);
        let f = only_fault(
            &faults(&with_entries(&h, relog(&h, &all))),
            FaultKind::BadDisclosure,
            Some(h.key(white)),
            MatchRole::White,
        );
        assert!(
            f.evidence.contains("does not reproduce the signed setup")
                || f.evidence.contains("is not the key the signed setup commits to"),
            "{f:?}"
        );
    }
}

#[test]
fn a_ciphertext_moved_to_another_channel_or_position_convicts_its_author() {
    // The umpire re-signs one of its sealed answers to White on Black's channel, or on
    // White's again at a later position (a replayed nonce). The relay cannot tell; neither
    // opens under the key of the context it now sits in, so the umpire's true disclosure is
    // refused, and a relay that logs it anyway has logged the umpire's fault.
    for channel in [Channel::BlackUmpire, Channel::WhiteUmpire] {
        let mut h = Harness::new("kriegspiel", 1);
        h.setup();
        h.play(2);
        let umpire = h.key(Who::Umpire);
        let to_white = h
            .record()
            .entries
            .iter()
            .rev()
            .map(|e| e.message.verify().unwrap())
            .find_map(|b| match b.payload {
                Payload::Sealed(s) if b.author == umpire && b.channel == Channel::WhiteUmpire => {
                    Some(s)
                }
                _ => None,
            })
            .expect("an answer to White");
        let moved = h.write(Who::Umpire, channel, Payload::Sealed(to_white));
        h.submit(&moved);
        let claim = Payload::Claim(protocol::message::Claim {
            outcome: protocol::message::Outcome::WhiteWins,
            reason: rules::EndReason::Resignation.into(),
        });
        h.send(h.side(Color::Black), Channel::Public, claim);
        h.disclose(Who::P0);
        h.disclose(Who::P1);
        let items = h.disclosures.remove(&umpire).expect("the umpire's disclosures");
        let d = h.write(Who::Umpire, Channel::Public, Payload::Disclose(items));
        let refused = h.relay.accept(&d.to_canonical(), h.now);
        assert!(
            matches!(refused, Err(RelayError::NotEntitled(NotEntitled::BadDisclosure { .. }))),
            "{channel}: {refused:?}"
        );
        let mut all = messages(&h.record());
        all.push(d);
        let f = only_fault(
            &faults(&with_entries(&h, relog(&h, &all))),
            FaultKind::BadDisclosure,
            Some(umpire),
            MatchRole::Umpire,
        );
        assert!(f.evidence.contains(&moved.hash().to_string()), "{channel}: {f:?}");
        assert!(f.evidence.contains("does not open"), "{channel}: {f:?}");
    }
}

#[test]
fn a_sealed_payload_of_another_size_than_agreed_is_its_authors_fault() {
    // White pads its attempt to one byte more than Kriegspiel's agreed size: the relay refuses
    // it; a relay that logs it anyway has logged White's fault, which the verifier names.
    let mut h = Harness::new("kriegspiel", 1);
    h.setup();
    let white = h.side(Color::White);
    let recipient = h.terms.terms.umpire.as_ref().unwrap().seal_key;
    let padded_len = h.padded_len(white) + 1;
    let key = h.key(white);
    let sq = |name| rules::Square::parse(name, rules::BoardSize::Eight).unwrap();
    let e2e4 = rules::Move::new(sq("e2"), sq("e4"));
    let inner = Payload::Action(protocol::codec::Canonical::to_canonical(&e2e4));
    let (m, _) = h
        .authors
        .get_mut(&key)
        .unwrap()
        .write_sealed(Channel::WhiteUmpire, None, &inner, &recipient, &[3; 32], padded_len)
        .unwrap();
    let refused = h.relay.accept(&m.to_canonical(), h.now);
    assert!(
        matches!(refused, Err(RelayError::NotEntitled(NotEntitled::SealedSize { .. }))),
        "{refused:?}"
    );
    let mut all = messages(&h.record());
    all.push(m.clone());
    let f = only_fault(
        &faults(&with_entries(&h, relog(&h, &all))),
        FaultKind::NotAllowed,
        Some(key),
        MatchRole::White,
    );
    assert_eq!(f.message, Some(m.hash()));
    assert!(f.evidence.contains("ciphertext bytes, not the agreed"), "{f:?}");
    assert!(f.explanation.contains("another size"), "{f:?}");
}

#[test]
fn sealing_bytes_that_are_no_payload_is_the_authors_fault() {
    // The author sealed garbage and committed to it: its disclosure reproduces its setup and
    // the message opens, but the plaintext is no payload. The relay refuses it; logged anyway,
    // it is White's fault.
    let garbage = vec![0xff, 0xff, 0xff];
    let (mut h, m, d) = white_seals_one_thing_and_commits_to_another(&garbage, garbage.clone());
    let white = h.side(Color::White);
    let lie = h.write(white, Channel::Public, Payload::Disclose(vec![d]));
    assert!(matches!(
        h.relay.accept(&lie.to_canonical(), h.now),
        Err(RelayError::NotEntitled(NotEntitled::BadDisclosure { .. }))
    ));
    let mut all = messages(&h.record());
    all.push(lie);
    let f = only_fault(
        &faults(&with_entries(&h, relog(&h, &all))),
        FaultKind::BadDisclosure,
        Some(h.key(white)),
        MatchRole::White,
    );
    assert!(f.evidence.contains(&m.hash().to_string()), "{f:?}");
}

#[test]
fn a_party_that_withholds_its_disclosures_is_timed_out_and_named() {
    // The loser keeps its seal seeds hoping to void the game: it forfeits instead.
    let mut h = Harness::new("kriegspiel", 1);
    h.setup();
    h.play(4);
    let white = h.side(Color::White);
    let claim = Payload::Claim(protocol::message::Claim {
        outcome: protocol::message::Outcome::BlackWins,
        reason: rules::EndReason::Resignation.into(),
    });
    h.send(white, Channel::Public, claim);
    let black = h.side(Color::Black);
    h.disclose(black);
    h.disclose(Who::Umpire);
    let notice = h.next_timeout();
    assert!(matches!(
        notice.message.verify().unwrap().payload,
        Payload::Timeout { party: protocol::Party::White, expectation: Expectation::Reveal, .. }
    ));
    let f = faults(&h.bytes());
    assert!(!f.is_empty());
    for f in &f {
        assert_eq!(
            (f.kind, f.culprit, f.role),
            (FaultKind::MissingReveal, Some(h.key(white)), MatchRole::White)
        );
    }
    assert_eq!(
        verifier::verify(&h.bytes()).sanctioned_result(),
        Some(rules::GameResult::win(rules::Color::Black, rules::EndReason::Forfeit))
    );
    // The umpire withholding its own: the umpire is named and nobody wins by it.
    let mut h = Harness::new("kriegspiel", 1);
    h.setup();
    h.play(4);
    h.send(
        white,
        Channel::Public,
        Payload::Claim(protocol::message::Claim {
            outcome: protocol::message::Outcome::BlackWins,
            reason: rules::EndReason::Resignation.into(),
        }),
    );
    h.disclose(Who::P0);
    h.disclose(Who::P1);
    let notice = h.next_timeout();
    assert!(matches!(
        notice.message.verify().unwrap().payload,
        Payload::Timeout { party: protocol::Party::Umpire, expectation: Expectation::Reveal, .. }
    ));
    let f = faults(&h.bytes());
    assert!(
        f.iter().all(|f| (f.kind, f.culprit, f.role)
            == (FaultKind::MissingReveal, Some(h.key(Who::Umpire)), MatchRole::Umpire)),
        "{f:#?}"
    );
    assert_eq!(verifier::verify(&h.bytes()).sanctioned_result(), None);
}

#[test]
fn an_undisclosed_sealed_message_without_a_timeout_means_an_incomplete_record() {
    let h = Harness::honest("kriegspiel");
    let mut r = h.record();
    // Cut the record before the last disclosure message (the umpire's): nobody timed out, so
    // nobody is named.
    let last = r
        .entries
        .iter()
        .rposition(|e| matches!(e.message.verify().unwrap().payload, Payload::Disclose(_)))
        .expect("disclosures");
    r.entries.truncate(last);
    let f = faults(&r.to_canonical());
    assert!(!f.is_empty());
    assert!(
        f.iter().all(|f| f.kind == FaultKind::TruncatedRecord && f.role == MatchRole::Record),
        "{f:#?}"
    );
}

#[test]
fn a_record_cut_before_the_reveals_is_truncated() {
    // The record stops after both commitments: without a relay timeout nobody is to blame.
    let mut h = Harness::new("chess", 1);
    h.setup();
    let mut r = h.record();
    r.entries.truncate(3);
    let f = faults(&r.to_canonical());
    assert_eq!(f.len(), 2, "both contributions unopened: {f:#?}");
    assert!(f.iter().all(|f| f.kind == FaultKind::TruncatedRecord && f.role == MatchRole::Record));
}

#[test]
fn the_last_revealer_who_aborts_forfeits_instead_of_voiding_the_game() {
    // Issue: the last player to reveal its contribution already knows the colors and could
    // abort to void (and grind) the game. Its reveal is owed under the reveal deadline: the
    // relay times it out, and the verifier names it.
    let mut h = Harness::new("chess", 1);
    for who in [Who::P0, Who::P1] {
        let p = h.commit_payload(who, commitment::PUBLIC_CONTRIBUTION);
        h.send(who, Channel::Public, p);
    }
    let opening = Payload::Reveal {
        purpose: commitment::PUBLIC_CONTRIBUTION,
        opening: h.open_payload_opening(Who::P0, commitment::PUBLIC_CONTRIBUTION),
    };
    h.send(Who::P0, Channel::Public, opening);
    let notice = h.next_timeout();
    let body = notice.message.verify().unwrap();
    assert!(matches!(
        body.payload,
        Payload::Timeout { party: protocol::Party::Black, expectation: Expectation::Reveal, .. }
    ));
    // Colors were never drawn: players[1] is reported as Black, and forfeits.
    let f = only_fault(
        &faults(&h.bytes()),
        FaultKind::MissingReveal,
        Some(h.p1.public()),
        MatchRole::Black,
    );
    assert!(f.explanation.contains("timeout"), "{f:?}");
    let verdict = verifier::verify(&h.bytes());
    assert_eq!(
        verdict.sanctioned_result(),
        Some(rules::GameResult::win(rules::Color::White, rules::EndReason::Forfeit))
    );
}

#[test]
fn a_relay_timeout_for_a_move_is_handed_to_layer_two() {
    let mut h = Harness::new("chess", 1);
    h.setup();
    h.play(2);
    // White is to move and stays silent past its hour.
    let notice = h.next_timeout();
    h.finish();
    let c = checked(&h);
    let t: Vec<_> = c.timeouts().collect();
    assert_eq!(t.len(), 1);
    assert_eq!((t[0].1, t[0].2), (protocol::Party::White, Expectation::Move));
    let r = notice.receipt.open(&h.relay_id.public()).unwrap();
    assert_eq!(t[0].3 + 1, r.time_ms, "timed out 1 ms after its deadline");
}

#[test]
fn signature_items_cover_terms_messages_and_receipts() {
    let h = Harness::honest("kriegspiel");
    let r = h.record();
    let items = envelope::signature_items(&r);
    // Four terms signers (players, relay, umpire), then a message and a receipt per entry.
    assert_eq!(items.len(), 4 + 2 * r.entries.len());
    assert!(protocol::batch::verify_batch(&items).is_ok());
    let _: &[Entry] = &r.entries;
}

#[test]
fn a_version_one_record_is_refused_with_a_clear_error() {
    // Version 1 was never published: its records are refused by their first byte, not read
    // under version 2's rules.
    let h = Harness::honest("chess");
    let mut bytes = h.bytes();
    bytes[0] = 1;
    let f = only_fault(&faults(&bytes), FaultKind::MalformedRecord, None, MatchRole::Record);
    assert!(f.evidence.contains("version 1 record"), "{f:?}");
}

#[test]
fn a_version_two_record_is_refused_with_a_clear_error() {
    // Version 3 reads no version 2 record (different sealing and record rules): refused by its
    // first byte, with the reason, never read under version 3's rules.
    let h = Harness::honest("chess");
    let mut bytes = h.bytes();
    bytes[0] = 2;
    let f = only_fault(&faults(&bytes), FaultKind::MalformedRecord, None, MatchRole::Record);
    assert!(f.evidence.contains("version 2 record"), "{f:?}");
    assert!(f.evidence.contains("version 3 records only"), "{f:?}");
}

#[test]
fn a_relay_closing_an_unfinished_match_is_named() {
    // The relay slips a Close into a match in play: it may only close a complete one.
    let mut h = Harness::new("chess", 1);
    h.setup();
    h.play(2);
    let relay = h.relay_id.clone();
    let mut all = messages(&h.record());
    let last_relay_seq = all
        .iter()
        .filter_map(|m| m.verify().ok())
        .filter(|b| b.author == relay.public())
        .map(|b| b.seq)
        .max()
        .expect("the start notice");
    let n = all.len();
    let seen = protocol::message::Seen { order: h.order_before(n) };
    let body = protocol::message::MessageBody {
        version: protocol::codec::VERSION,
        match_id: h.match_id(),
        channel: Channel::Public,
        author: relay.public(),
        seq: last_relay_seq + 1,
        seen: Some(seen),
        re: None,
        payload: Payload::Close { wall_ms: 0 },
    };
    all.push(SignedMessage::sign(&body, &relay));
    let f = only_fault(
        &faults(&with_entries(&h, relog(&h, &all))),
        FaultKind::NotAllowed,
        Some(relay.public()),
        MatchRole::Relay,
    );
    assert!(f.evidence.contains("close notice"), "{f:?}");
    // The honest end of the same match is closed by the relay and countersigned by both.
    h.finish();
    let r = h.record();
    let closes = r
        .entries
        .iter()
        .filter(|e| e.message.verify().is_ok_and(|b| matches!(b.payload, Payload::Close { .. })))
        .count();
    assert_eq!(closes, 1);
    assert!(envelope::check(&h.bytes()).is_ok());
}

#[test]
fn a_commitment_sealed_to_the_umpire_is_its_authors_fault() {
    // A commitment the relay cannot see would get no deadline: commitments are public only.
    // (SIC: a commitment does not fit Kriegspiel's 16-byte padded size, PROTOCOL.md 19.)
    let mut h = Harness::new("sic", 1);
    h.setup();
    let white = h.side(Color::White);
    let c = h.commit_payload(white, commitment::PRIVATE_SEED);
    let e = h.send_sealed(white, Color::White, c);
    h.finish();
    let role = MatchRole::White;
    let f = only_fault(&faults(&h.bytes()), FaultKind::NotAllowed, Some(h.key(white)), role);
    assert_eq!(f.message, Some(e.message.hash()));
    assert!(f.explanation.contains("public only"), "{f:?}");
}

/// Issue 13's red-team class: after any refusal of an honest party's message (a race, a cap its
/// machine did not know, a full budget) its later messages were all refused as out of order, so
/// it could never disclose and forfeited. In v3 a number is used once, refused or not, and the
/// relay allows gaps: the author's later messages, on that channel and others, go through, and
/// the record with the gaps checks without a fault.
#[test]
fn a_refused_message_does_not_block_its_authors_later_ones() {
    let mut h = Harness::new("kriegspiel", 1);
    h.setup();
    h.play(2);
    let white = h.side(Color::White);
    let colors = h.relay.colors().expect("colors");
    // A public message refused (a countersignature before the close: refused as not now, like
    // a draw offer that lost a race).
    let public = h.write(white, Channel::Public, Payload::Countersign);
    assert!(matches!(
        h.relay.accept(&public.to_canonical(), h.now + 1),
        Err(RelayError::NotEntitled(NotEntitled::NotNow { .. }))
    ));
    // A sealed message refused on White's channel (here padded to another size than the
    // variant's, refused before anything else is looked at).
    let umpire_seal = h.terms.terms.umpire.as_ref().expect("umpire").seal_key;
    let key = h.key(white);
    let padded = h.padded_len(white) + 16;
    let (refused, _) = h
        .authors
        .get_mut(&key)
        .expect("white's author")
        .write_sealed(
            Channel::WhiteUmpire,
            None,
            &Payload::Action(b"try".to_vec()),
            &umpire_seal,
            &[0xee; 32],
            padded,
        )
        .expect("seals");
    assert!(matches!(
        h.relay.accept(&refused.to_canonical(), h.now + 1),
        Err(RelayError::NotEntitled(NotEntitled::SealedSize { .. }))
    ));
    let first = h.send_sealed(white, Color::White, Payload::Action(b"move 2".to_vec()));
    h.last_action = Some(first.message.hash());
    // The umpire answers White's move, then White resigns and everyone discloses: every later
    // message of White's is accepted despite the two unused numbers.
    h.turn(h.last_action, protocol::message::Owed::Side(Color::Black));
    for s in Color::ALL {
        h.send_sealed(Who::Umpire, s, Payload::Observation(b"ok".to_vec()));
    }
    h.finish();
    let c = checked(&h);
    assert!(h.relay.coordinator().is_over());
    // White's numbers on both channels have a gap where a refused message was.
    let numbers = |channel: Channel| -> Vec<u64> {
        c.entries
            .iter()
            .filter(|e| e.author() == colors.white && e.channel() == channel)
            .map(|e| e.body.seq)
            .collect()
    };
    for channel in [Channel::Public, Channel::WhiteUmpire] {
        let n = numbers(channel);
        assert!(n.windows(2).all(|w| w[0] < w[1]), "{channel}: {n:?}");
        assert!(n.windows(2).any(|w| w[1] > w[0] + 1), "{channel}: no gap in {n:?}");
    }
    assert!(
        c.entries
            .iter()
            .any(|e| e.author() == colors.white && matches!(e.payload, Payload::Disclose(_))),
        "White disclosed after the refusals"
    );
}

//! Envelope-level cheats, each by one cheating participant, each caught by `verifier::verify`
//! with its exact fault kind, culprit key and role.
//!
//! The honest parts of every match run through the real `protocol::relay::Relay` and real
//! `protocol::message::Author`s. A cheating relay is the real relay key signing receipts the
//! real machine would refuse (`relog`), or two real relay machines kept side by side
//! (equivocation); a cheating player signs with its real key what an honest `Author` never
//! writes.

#[path = "../../verifier/tests/envelope_support/mod.rs"]
mod envelope_support;

use envelope_support::{Harness, Who, messages, only_fault, relog, with_entries};
use protocol::codec::Canonical;
use protocol::commitment;
use protocol::message::{MessageBody, Payload, SignedMessage};
use protocol::relay::Relay;
use protocol::{Channel, Color, tags};
use verifier::{Fault, FaultKind, MatchRole};

fn faults(bytes: &[u8]) -> Vec<Fault> {
    let verdict = verifier::verify(bytes);
    assert!(!verdict.is_valid(), "a cheat passed");
    verdict.faults().to_vec()
}

/// A match after setup and two moves, and all its messages so far.
fn midgame(variant: &str) -> (Harness, Vec<SignedMessage>) {
    let mut h = Harness::new(variant, 1);
    h.setup();
    h.play(2);
    let all = messages(&h.record());
    (h, all)
}

#[test]
fn forged_signature() {
    // Black writes a move in White's name (White's key as author, Black's signature); the relay
    // receipts it although it does not verify.
    let (h, mut all) = midgame("chess");
    let white = h.side(Color::White);
    let black = h.side(Color::Black);
    let body = h.authors[&h.key(white)].next_body(
        Channel::Public,
        None,
        Payload::Action(b"Qxf7".to_vec()),
    );
    let forged = SignedMessage {
        signature: h.identity(black).sign(tags::MESSAGE, &body.to_canonical()),
        body: body.to_canonical(),
    };
    all.push(forged.clone());
    let f = only_fault(
        &faults(&with_entries(&h, relog(&h, &all))),
        FaultKind::BadSignature,
        Some(h.relay_id.public()),
        MatchRole::Relay,
    );
    assert_eq!((f.entry, f.message), (Some(all.len() - 1), Some(forged.hash())));
}

#[test]
fn message_replayed_from_another_match() {
    // The same two players' earlier match (another nonce, another match id): the relay
    // receipts one of White's moves from it in this match.
    let (h, mut all) = midgame("chess");
    let (other, other_all) = {
        let mut o = Harness::new("chess", 9);
        o.setup();
        o.play(3);
        let m = messages(&o.record());
        (o, m)
    };
    assert_ne!(other.match_id(), h.match_id());
    let replayed = other_all.last().expect("a move").clone();
    all.push(replayed.clone());
    let f = only_fault(
        &faults(&with_entries(&h, relog(&h, &all))),
        FaultKind::WrongMatch,
        Some(h.relay_id.public()),
        MatchRole::Relay,
    );
    assert_eq!(f.message, Some(replayed.hash()));
}

#[test]
fn reordered_messages() {
    // The relay logs player 0's reveal (its second message) before its commitment (its first).
    // Version 3 allows gaps in an author's numbers (a refused message's number is not reused),
    // so the reveal's number alone proves nothing there; but the reveal says what its author
    // had seen, by the order head of the honest log, which the reordered log does not have:
    // the relay is named at the first entry it moved. (The commitment after it, numbered below
    // the reveal, would name it too: `OutOfOrder`, PROTOCOL.md 11.)
    let (h, mut all) = midgame("chess");
    all.swap(1, 3);
    let f = only_fault(
        &faults(&with_entries(&h, relog(&h, &all))),
        FaultKind::Equivocation,
        Some(h.relay_id.public()),
        MatchRole::Relay,
    );
    assert_eq!(f.entry, Some(1));
    assert!(f.evidence.contains("which the log does not have"), "{f:?}");
}

#[test]
fn dropped_message() {
    // The relay drops player 0's commitment from the record. Player 1 had seen it (its signed
    // `seen` names the order head after it in the honest log): the relay's record is not the
    // history it showed.
    let (h, mut all) = midgame("chess");
    all.remove(1);
    let f = faults(&with_entries(&h, relog(&h, &all)));
    let f = only_fault(&f, FaultKind::Equivocation, Some(h.relay_id.public()), MatchRole::Relay);
    assert!(f.evidence.contains("which the log does not have"), "{f:?}");
    assert_eq!(f.entry, Some(1));
}

#[test]
fn duplicated_message() {
    // The relay accepts Black's move a second time: the same bytes twice are not Black's
    // contradiction but the relay's acceptance of a replay.
    let (h, mut all) = midgame("chess");
    let again = all.last().expect("a move").clone();
    all.push(again.clone());
    let f = only_fault(
        &faults(&with_entries(&h, relog(&h, &all))),
        FaultKind::BrokenChain,
        Some(h.relay_id.public()),
        MatchRole::Relay,
    );
    assert_eq!(f.message, Some(again.hash()));
}

#[test]
fn player_signing_two_messages_with_one_sequence_number() {
    // White forks its own chain: a second, different message under a used seq (a lax relay
    // takes it). White's two signatures contradict each other.
    let (h, mut all) = midgame("chess");
    let white = h.side(Color::White);
    let mut body: MessageBody =
        h.authors[&h.key(white)].next_body(Channel::Public, None, Payload::Action(b"e4".to_vec()));
    body.seq -= 1;
    let fork = SignedMessage::sign(&body, h.identity(white));
    all.push(fork);
    only_fault(
        &faults(&with_entries(&h, relog(&h, &all))),
        FaultKind::BrokenChain,
        Some(h.key(white)),
        MatchRole::White,
    );
}

#[test]
fn relay_showing_the_two_players_different_histories() {
    // The relay runs two logs after setup: White's move goes only into the log White sees,
    // Black's resignation only into the log Black sees; both get the same position.
    let mut h = Harness::new("chess", 1);
    h.setup();
    let mut fork = Relay::new(h.relay_id.clone(), h.terms.clone(), 0).expect("relay");
    for e in &h.relay.entries()[1..] {
        let time = protocol::message::Receipt::from_canonical(&e.receipt.receipt)
            .expect("receipt")
            .time_ms;
        fork.accept(&e.message.to_canonical(), time).expect("same prefix");
    }
    assert_eq!(fork.head(), h.relay.head(), "the same history so far");
    let white = h.side(Color::White);
    let black = h.side(Color::Black);
    // Black never sees White's move: its author state is from before it.
    let mut black_author = h.authors[&h.key(black)].clone();
    let w = h.write(white, Channel::Public, Payload::Action(b"e4".to_vec()));
    let on_main = h.submit(&w);
    let resign = protocol::message::Claim {
        outcome: protocol::message::Outcome::WhiteWins,
        reason: rules::EndReason::Resignation.into(),
    };
    let b = black_author.write(Channel::Public, None, Payload::Claim(resign));
    let on_fork = fork.accept(&b.to_canonical(), h.now + 5).expect("fork accepts").entry;
    // Both histories end up in the record: two receipts for one position.
    let mut r = h.record();
    r.entries.push(on_fork.clone());
    let f = only_fault(
        &faults(&r.to_canonical()),
        FaultKind::Equivocation,
        Some(h.relay_id.public()),
        MatchRole::Relay,
    );
    assert_eq!(f.message, Some(b.hash()));

    // The relay shows Black White's move, Black answers it, and the relay leaves White's move
    // out of the record: Black's signed `seen` names an order head the record's log never
    // had.
    let mut h2 = Harness::new("chess", 1);
    h2.setup();
    let prefix = messages(&h2.record());
    let mut black_saw = h2.authors[&h2.key(black)].clone();
    black_saw.saw(&on_main.receipt.open(&h.relay_id.public()).expect("receipt"));
    let reply = black_saw.write(Channel::Public, None, Payload::Action(b"e5".to_vec()));
    let mut all = prefix;
    all.push(reply.clone());
    let f = only_fault(
        &faults(&with_entries(&h2, relog(&h2, &all))),
        FaultKind::Equivocation,
        Some(h.relay_id.public()),
        MatchRole::Relay,
    );
    assert_eq!(f.message, Some(reply.hash()));
    assert!(f.evidence.contains("which the log does not have"), "{f:?}");
}

/// Re-encodes the varint at `at` with one redundant byte (`0x80` continuation, then `0x00`).
fn overlong(bytes: &[u8], at: usize) -> Vec<u8> {
    let mut end = at;
    while bytes[end] & 0x80 != 0 {
        end += 1;
    }
    let mut out = bytes[..end].to_vec();
    out.push(bytes[end] | 0x80);
    out.push(0x00);
    out.extend_from_slice(&bytes[end + 1..]);
    out
}

#[test]
fn non_canonical_encoding() {
    // The record: the length of the terms frame (the varint after the version byte), overlong.
    let h = Harness::honest("chess");
    let bytes = h.bytes();
    let (len, _) = postcard::take_from_bytes::<u64>(&overlong(&bytes, 1)[1..]).unwrap();
    let (canonical, _) = postcard::take_from_bytes::<u64>(&bytes[1..]).unwrap();
    assert_eq!(len, canonical, "postcard alone reads the same length");
    only_fault(&faults(&overlong(&bytes, 1)), FaultKind::NonCanonical, None, MatchRole::Record);

    // A message body White signed with an overlong seq (a lax relay receipts it): White's fault.
    let (h, mut all) = midgame("chess");
    let white = h.side(Color::White);
    let body =
        h.authors[&h.key(white)].next_body(Channel::Public, None, Payload::Action(b"e4".to_vec()));
    let canonical = body.to_canonical();
    let seq_at = 1 + 32 + 1 + 32; // version, match id, channel, author: then seq
    let body_bytes = overlong(&canonical, seq_at);
    let m = SignedMessage {
        signature: h.identity(white).sign(tags::MESSAGE, &body_bytes),
        body: body_bytes,
    };
    all.push(m);
    only_fault(
        &faults(&with_entries(&h, relog(&h, &all))),
        FaultKind::NonCanonical,
        Some(h.key(white)),
        MatchRole::White,
    );
}

#[test]
fn trailing_bytes() {
    // After the last frame, a byte is the start of another frame: an empty one is malformed, a
    // longer one cut short is a truncated record (a crash in the middle of an append).
    let h = Harness::honest("chess");
    let mut bytes = h.bytes();
    bytes.push(0);
    let f = only_fault(&faults(&bytes), FaultKind::MalformedRecord, None, MatchRole::Record);
    assert!(f.evidence.contains("empty frame"), "{f:?}");
    let mut bytes = h.bytes();
    bytes.push(5);
    only_fault(&faults(&bytes), FaultKind::TruncatedRecord, None, MatchRole::Record);
}

#[test]
fn opening_that_does_not_match_its_commitment() {
    // SIC step 3: White seals to the umpire an opening of its private seed with another value.
    // The relay cannot see it; White's own disclosure at the end shows it.
    let mut h = Harness::new("sic", 1);
    h.setup();
    let white = h.side(Color::White);
    let Payload::Open { purpose, mut opening } = h.open_payload(white, commitment::PRIVATE_SEED)
    else {
        unreachable!()
    };
    opening.value[0] ^= 1;
    let e = h.send_sealed(white, Color::White, Payload::Open { purpose, opening });
    // The game ends; everyone discloses what it sealed, which shows the false opening.
    h.finish();
    let f = only_fault(
        &faults(&h.bytes()),
        FaultKind::BadOpening,
        Some(h.key(white)),
        MatchRole::White,
    );
    assert_eq!(f.message, Some(e.message.hash()));
}

#[test]
fn missing_reveal() {
    // Black claims a win; White opens its seed; Black, which committed to its private seed,
    // never opens it and the relay's reveal deadline passes: the signed timeout (which the
    // coordinator confirms) and the unopened commitment convict Black.
    let mut h = Harness::new("sic", 1);
    for who in [Who::P0, Who::P1] {
        for purpose in [commitment::PUBLIC_CONTRIBUTION, commitment::PRIVATE_SEED] {
            let p = h.commit_payload(who, purpose);
            h.send(who, Channel::Public, p);
        }
    }
    for who in [Who::P0, Who::P1] {
        let p = Payload::Reveal {
            purpose: commitment::PUBLIC_CONTRIBUTION,
            opening: h.open_payload_opening(who, commitment::PUBLIC_CONTRIBUTION),
        };
        h.send(who, Channel::Public, p);
    }
    let white = h.side(Color::White);
    let black = h.side(Color::Black);
    let claim = Payload::Claim(protocol::message::Claim {
        outcome: protocol::message::Outcome::WhiteWins,
        reason: rules::EndReason::Resignation.into(),
    });
    h.send(black, Channel::Public, claim);
    let p = h.open_payload(white, commitment::PRIVATE_SEED);
    h.send(white, Channel::Public, p);
    let timeout = h.next_timeout();
    let f = only_fault(
        &faults(&h.bytes()),
        FaultKind::MissingReveal,
        Some(h.key(black)),
        MatchRole::Black,
    );
    assert!(f.evidence.contains("private-seed"), "{f:?}");
    let t = h.relay.entries().iter().position(|e| *e == timeout).expect("in the log");
    assert!(f.explanation.contains(&format!("entry {t}")), "{f:?}");
}

#[test]
fn truncated_record() {
    let h = Harness::honest("kriegspiel");
    let bytes = h.bytes();
    for cut in [1, 100, bytes.len() / 2, bytes.len() - 1] {
        let f =
            only_fault(&faults(&bytes[..cut]), FaultKind::TruncatedRecord, None, MatchRole::Record);
        assert!(f.evidence.contains("match record"), "{f:?}");
    }
    // Not a record at all: nothing, or text.
    only_fault(&faults(&[]), FaultKind::MalformedRecord, None, MatchRole::Record);
    only_fault(&faults(b"hello"), FaultKind::MalformedRecord, None, MatchRole::Record);
    let _ = Who::Umpire;
}

// The same cheats by participants of a whole self-played match (`sim::selfplay` hooks on the
// real player, umpire and relay machines).

fn selfplay_cheat(
    variant: rules::Variant,
    cheater: usize,
    hook: protocol::roles::Hook,
) -> (sim::selfplay::Selfplay, Vec<Fault>) {
    let mut config = sim::selfplay::SelfplayConfig::new(variant, 3);
    config.player_hooks[cheater] = Some(hook);
    let s = sim::selfplay::selfplay_with(config).expect("self-play");
    let f = faults(&s.bytes);
    (s, f)
}

fn role_of(s: &sim::selfplay::Selfplay, player: usize) -> MatchRole {
    let key = s.cast.players[player].public();
    if s.colors.expect("colors drawn").white == key { MatchRole::White } else { MatchRole::Black }
}

#[test]
fn selfplay_player_withholding_its_openings_misses_the_reveal() {
    // Player 1 never sends its end-of-game `Open`s; the relay times its reveal out.
    let hook: protocol::roles::Hook = Box::new(|_, p| !matches!(p, Payload::Open { .. }));
    let (s, f) = selfplay_cheat(rules::Variant::Intrigue, 1, hook);
    let key = s.cast.players[1].public();
    let f = only_fault(&f, FaultKind::MissingReveal, Some(key), role_of(&s, 1));
    assert!(f.evidence.contains("intrigue-setup"), "{f:?}");
}

#[test]
fn selfplay_player_sealing_a_false_opening_of_its_seed() {
    // SIC: player 0 seals to the umpire an opening of its private seed with another value.
    let hook: protocol::roles::Hook = Box::new(|channel, p| {
        if channel != Channel::Public
            && let Payload::Open { opening, .. } = p
        {
            opening.value[0] ^= 1;
        }
        true
    });
    let (s, f) = selfplay_cheat(rules::Variant::Sic, 0, hook);
    let key = s.cast.players[0].public();
    let f = only_fault(&f, FaultKind::BadOpening, Some(key), role_of(&s, 0));
    assert!(f.evidence.contains("private-seed"), "{f:?}");
}

#[test]
fn selfplay_loser_withholding_its_disclosures_forfeits_instead_of_voiding() {
    // Kriegspiel: player 1 keeps its seal seeds at the end (never sends `Disclose`), hoping
    // its sealed messages stay unproven and the game void. They are owed under the reveal
    // deadline: the relay times it out and the verifier names it, and only it.
    let hook: protocol::roles::Hook = Box::new(|_, p| !matches!(p, Payload::Disclose(_)));
    let (s, f) = selfplay_cheat(rules::Variant::Kriegspiel, 1, hook);
    let key = s.cast.players[1].public();
    assert!(!f.is_empty());
    for f in &f {
        assert_eq!(
            (f.kind, f.culprit, f.role),
            (FaultKind::MissingReveal, Some(key), role_of(&s, 1))
        );
    }
    let loser =
        if role_of(&s, 1) == MatchRole::White { rules::Color::White } else { rules::Color::Black };
    assert_eq!(
        verifier::verify(&s.bytes).sanctioned_result(),
        Some(rules::GameResult::win(!loser, rules::EndReason::Forfeit))
    );
}

#[test]
fn selfplay_player_gone_for_good_loses_on_time_and_is_named_for_what_it_never_disclosed() {
    // Kriegspiel, fixed colors: Black sends two attempts, then nothing at all.
    let mut config = sim::selfplay::SelfplayConfig::new(rules::Variant::Kriegspiel, 1);
    config.colors = protocol::terms::ColorAssignment::FirstIsWhite;
    let mut actions = 0;
    config.player_hooks[1] = Some(Box::new(move |_, p| {
        if matches!(p, Payload::Action(_)) {
            actions += 1;
        }
        actions < 3
    }));
    let s = sim::selfplay::selfplay_with(config).expect("self-play");
    let timeouts: Vec<_> = s
        .record
        .entries
        .iter()
        .filter_map(|e| match e.message.verify().ok()?.payload {
            Payload::Timeout { party, expectation, .. } => Some((party, expectation)),
            _ => None,
        })
        .collect();
    use protocol::Party;
    use protocol::message::Expectation;
    assert_eq!(
        timeouts,
        vec![(Party::Black, Expectation::Move), (Party::Black, Expectation::Reveal)]
    );
    let black = s.cast.players[1].public();
    let f = faults(&s.bytes);
    assert!(
        f.iter().all(|f| f.kind == FaultKind::MissingReveal && f.culprit == Some(black)),
        "{f:#?}"
    );
    assert_eq!(
        verifier::verify(&s.bytes).sanctioned_result(),
        Some(rules::GameResult::win(rules::Color::White, rules::EndReason::Forfeit))
    );
}

#[test]
fn selfplay_player_sealing_garbage_gets_a_complaint_and_forfeits() {
    // Kriegspiel: player 1 sends, as its first attempt, bytes nobody can open: a setup whose
    // key commitment is not the key its enc gives (the umpire's live check of the commitment
    // fails) and garbage. The umpire cannot answer it, so it complains (a forfeit claim naming
    // the message). Player 1 owes its channel's disclosure like any other and has no seed that
    // reproduces that setup: the relay times it out and the verifier names it, never the
    // umpire that waited for a readable attempt.
    let mut sent = false;
    let hook: protocol::roles::Hook = Box::new(move |channel, p| {
        if channel != Channel::Public && matches!(p, Payload::Action(_)) && !sent {
            sent = true;
            *p = Payload::Sealed(protocol::seal::Sealed {
                setup: Some(protocol::seal::SealSetup { enc: [9; 32], key_commitment: [8; 32] }),
                commitment: [7; 32],
                // The agreed size (the relay refuses any other, PROTOCOL.md 19), but garbage.
                ciphertext: vec![
                    1;
                    protocol::seal::ciphertext_bytes(
                        protocol::game::sealed_plaintext_bytes(
                            rules::Variant::Kriegspiel,
                            protocol::game::SealDirection::ToUmpire,
                        )
                    )
                ],
            });
        }
        true
    });
    let (s, f) = selfplay_cheat(rules::Variant::Kriegspiel, 1, hook);
    let key = s.cast.players[1].public();
    let f = only_fault(&f, FaultKind::MissingReveal, Some(key), role_of(&s, 1));
    assert!(f.evidence.contains("disclosure"), "{f:?}");
    // The umpire's complaint names the message.
    let complaint = s
        .record
        .entries
        .iter()
        .filter_map(|e| e.message.verify().ok())
        .find(|b| b.author == s.cast.umpire.public() && matches!(b.payload, Payload::Claim(_)))
        .expect("the umpire's complaint");
    assert_eq!(complaint.re, f.message);
    let loser =
        if role_of(&s, 1) == MatchRole::White { rules::Color::White } else { rules::Color::Black };
    assert_eq!(
        verifier::verify(&s.bytes).sanctioned_result(),
        Some(rules::GameResult::win(!loser, rules::EndReason::Forfeit))
    );
}

#[test]
fn selfplay_umpire_falsely_claiming_a_forfeit_is_named() {
    // The umpire turns one of its Turn statements into a claim that Black forfeited: Black's
    // attempts all disclose and replay legally, so the claim is the umpire's, and only its, fault.
    let mut config = sim::selfplay::SelfplayConfig::new(rules::Variant::Kriegspiel, 3);
    let mut turns = 0;
    config.umpire_hook = Some(Box::new(move |_, p| {
        if matches!(p, Payload::Turn { .. }) {
            turns += 1;
            if turns == 4 {
                *p = Payload::Claim(protocol::flow::loss_of(Color::Black, protocol::flow::FORFEIT));
            }
        }
        true
    }));
    let s = sim::selfplay::selfplay_with(config).expect("self-play");
    let verdict = verifier::verify(&s.bytes);
    let verifier::Verdict::Faults(f) = &verdict else { panic!("{verdict:?}") };
    let umpire = s.cast.umpire.public();
    assert!(f.iter().all(|f| f.culprit == Some(umpire) || f.culprit.is_none()), "{f:#?}");
    assert!(f.iter().any(|f| f.culprit == Some(umpire)), "{f:#?}");
}

#[test]
fn intrigue_owner_withholding_its_informer_answer_never_gets_the_capturer_named() {
    // Regression (found when the players' randomness was bound to the match id): the owner of
    // a captured pawn that never answers (its informer opening suppressed) was timed out, and
    // the honest capturer, still waiting for that answer, never finished and was timed out too.
    let mut waited = 0;
    for seed in 1..=8 {
        let mut config = sim::selfplay::SelfplayConfig::new(rules::Variant::Intrigue, seed);
        config.player_hooks[1] = Some(Box::new(|_, p| !matches!(p, Payload::Open { .. })));
        let s = sim::selfplay::selfplay_with(config).expect("self-play");
        let cheater = s.cast.players[1].public();
        let f = faults(&s.bytes);
        assert!(!f.is_empty(), "seed {seed}");
        assert!(f.iter().all(|f| f.culprit == Some(cheater)), "seed {seed}: {f:#?}");
        let answer_timed_out = s.record.entries.iter().any(|e| {
            matches!(
                e.message.verify().map(|b| b.payload),
                Ok(Payload::Timeout { expectation: protocol::message::Expectation::Move, .. })
            )
        });
        waited += usize::from(answer_timed_out);
    }
    assert!(waited > 0, "no seed had the capturer wait for an answer");
}

#[test]
fn an_umpire_that_falls_silent_voids_the_game_and_only_it_is_named() {
    // Regression (found over the network, the umpire's connection cut for good): the relay
    // times a silent umpire out on its answer, after which it owes nothing more; its sealed
    // answers are then never disclosed. The verifier read that as an incomplete record (nobody
    // named). It is the umpire's silence, proven by the relay's signed timeout: the umpire is
    // named, the game is void, and neither player is named.
    for variant in [rules::Variant::Kriegspiel, rules::Variant::Sic, rules::Variant::SecretChess6] {
        let mut config = sim::selfplay::SelfplayConfig::new(variant, 5);
        // Silent from its fourth Turn on: it owes an answer to a player's action and never
        // gives it.
        let mut turns = 0;
        config.umpire_hook = Some(Box::new(move |_, p| {
            if matches!(p, Payload::Turn { .. }) {
                turns += 1;
            }
            turns < 4
        }));
        let s = sim::selfplay::selfplay_with(config).expect("self-play");
        let umpire = s.cast.umpire.public();
        let timed_out = s.record.entries.iter().any(|e| {
            matches!(
                e.message.verify().map(|b| b.payload),
                Ok(Payload::Timeout {
                    party: protocol::Party::Umpire,
                    expectation: protocol::message::Expectation::Answer,
                    ..
                })
            )
        });
        assert!(timed_out, "{variant}: the relay times the umpire out on its answer");
        let verdict = verifier::verify(&s.bytes);
        let verifier::Verdict::Faults(f) = &verdict else { panic!("{variant}: {verdict:?}") };
        assert!(f.iter().all(|f| f.culprit == Some(umpire)), "{variant}: {f:#?}");
        assert_eq!(verdict.sanctioned_result(), None, "{variant}: void");
    }
}

/// A host that publishes a record other than the entries it delivered to a seat is caught by
/// the seat's last check (`client::seat::published_holds`, run on the record it fetches at the
/// end): a delivered entry changed (one byte of its signature) or left out is named by its
/// channel and position. An entry the seat was never sent (the other side's private channel)
/// is not the seat's to check, and a record holding more than it received passes.
#[test]
fn the_seat_refuses_a_published_record_that_changes_or_drops_an_entry_it_received() {
    use client::seat::published_holds;
    use protocol::message::Receipt;
    use protocol::record::{Entry, MatchRecord};
    let (bytes, _) = sim::selfplay(rules::Variant::Kriegspiel, 3).expect("self-play");
    let record = MatchRecord::from_canonical(&bytes).expect("the record decodes");
    let placed = |e: &Entry| {
        let r = Receipt::from_canonical(&e.receipt.receipt).expect("a receipt");
        (r.channel, r.position)
    };
    // What White's seat receives: the public channel and its own.
    let received: Vec<_> = record
        .entries
        .iter()
        .filter(|e| placed(e).0 != Channel::BlackUmpire)
        .map(|e| (placed(e), e.clone()))
        .collect();
    assert!(received.len() > 10 && received.len() < record.entries.len());
    assert_eq!(published_holds(&received, &record), Ok(()));
    assert_eq!(published_holds(&received[..received.len() / 2], &record), Ok(()));
    let mine = record.entries.iter().rposition(|e| placed(e).0 == Channel::WhiteUmpire).unwrap();
    let (channel, position) = placed(&record.entries[mine]);
    let named = format!(
        "the entry at position {position} of the {channel} channel is not the one received"
    );
    let mut changed = record.clone();
    changed.entries[mine].message.signature.s[0] ^= 1;
    assert_eq!(published_holds(&received, &changed), Err(named.clone()));
    let mut dropped = record.clone();
    dropped.entries.remove(mine);
    assert_eq!(published_holds(&received, &dropped), Err(named));
    let theirs = record.entries.iter().position(|e| placed(e).0 == Channel::BlackUmpire).unwrap();
    let mut other = record.clone();
    other.entries[theirs].message.signature.s[0] ^= 1;
    assert_eq!(published_holds(&received, &other), Ok(()));
}

//! Match terms: both signatures, validation, the match id.
mod common;

use common::{agreed, cast, sign, terms, terms_for};
use protocol::PublicKey;
use protocol::codec::{Canonical, DecodeError};
use protocol::keys::SignatureError;
use protocol::relay::{Relay, RelayError};
use protocol::seal::{SealContext, SealError, SealPublicKey, SealSecret, seal};
use protocol::tags;
use protocol::terms::{
    AgreedTerms, ColorAssignment, KeyProblem, Limits, MatchTerms, SignedTerms, TermsError, bounds,
    check_seal_key, check_signing_key, match_id,
};

#[test]
fn agreed_terms_have_the_hash_of_their_bytes_as_id() {
    let c = cast();
    let (signed, agreed) = agreed(&c, ColorAssignment::Drawn, true);
    assert_eq!(agreed.match_id, match_id(&signed.terms));
    assert_eq!(agreed.bytes, signed.terms);
    // Signed terms survive their own encoding.
    assert_eq!(SignedTerms::from_canonical(&signed.to_canonical()), Ok(signed));
}

#[test]
fn a_fresh_nonce_gives_a_fresh_match_id() {
    let c = cast();
    let a = sign(&c, &terms(&c, ColorAssignment::Drawn, true, 1)).verify().unwrap();
    let b = sign(&c, &terms(&c, ColorAssignment::Drawn, true, 2)).verify().unwrap();
    assert_ne!(a.match_id, b.match_id);
}

#[test]
fn forged_terms_signature_is_refused() {
    let c = cast();
    let t = terms(&c, ColorAssignment::Drawn, true, 1);
    let mut signed = sign(&c, &t);
    // Bob's signature replaced by one of Mallory over the same bytes.
    signed.signatures[1] = c.outsider.sign(tags::TERMS, &signed.terms);
    assert!(matches!(
        signed.verify(),
        Err(TermsError::Signature { index: 1, source: SignatureError::Invalid { .. } })
    ));
    // Signatures made under another domain tag do not count.
    let mut signed = sign(&c, &t);
    signed.signatures[0] = c.alice.sign(tags::MESSAGE, &signed.terms);
    assert!(matches!(signed.verify(), Err(TermsError::Signature { index: 0, .. })));
}

#[test]
fn altered_terms_bytes_are_refused() {
    let c = cast();
    let mut signed = sign(&c, &terms(&c, ColorAssignment::Drawn, true, 1));
    signed.terms.push(0);
    assert!(matches!(
        signed.verify(),
        Err(TermsError::Decode(DecodeError::TrailingBytes { count: 1, .. }))
    ));
}

#[test]
fn only_a_named_party_may_sign_and_every_party_must() {
    let c = cast();
    let t = terms(&c, ColorAssignment::Drawn, true, 1);
    assert!(matches!(SignedTerms::sign(&t, &c.outsider), Err(TermsError::NotAParty { .. })));
    assert!(SignedTerms::sign(&t, &c.relay).is_ok());
    // The relay and the umpire sign too: terms without the umpire's signature bind no umpire.
    let mut signed = sign(&c, &t);
    signed.signatures.pop();
    assert_eq!(signed.verify(), Err(TermsError::SignatureCount { expected: 4, found: 3 }));
    // A relay signature replaced by an outsider's is refused at its place (2).
    let mut signed = sign(&c, &t);
    signed.signatures[2] = c.outsider.sign(tags::TERMS, &signed.terms);
    assert!(matches!(signed.verify(), Err(TermsError::Signature { index: 2, .. })));
    // Without an umpire, three signers.
    let open = terms(&c, ColorAssignment::Drawn, false, 1);
    assert_eq!(open.signers().len(), 3);
    assert!(sign(&c, &open).verify().is_ok());
}

#[test]
fn one_key_in_two_roles_is_refused() {
    let c = cast();
    let mut t = terms(&c, ColorAssignment::Drawn, true, 1);
    t.players[1].key = t.players[0].key;
    assert!(matches!(t.validate(), Err(TermsError::KeyInTwoRoles { .. })));
    let mut t = terms(&c, ColorAssignment::Drawn, true, 1);
    t.relay = c.alice.public();
    assert!(matches!(t.validate(), Err(TermsError::KeyInTwoRoles { .. })));
    // The relay as the umpire (accepted by v1's terms and relay, refused by its verifier).
    let mut t = terms(&c, ColorAssignment::Drawn, true, 1);
    t.relay = c.umpire.public();
    assert_eq!(t.validate(), Err(TermsError::KeyInTwoRoles { key: c.umpire.public() }));
    let mut t = terms(&c, ColorAssignment::Drawn, true, 1);
    t.players[1].seal_key = t.players[0].seal_key;
    assert_eq!(t.validate(), Err(TermsError::SealKeyInTwoRoles));
    let mut t = terms(&c, ColorAssignment::Drawn, true, 1);
    t.limits.max_messages_per_side = 0;
    assert!(matches!(
        t.validate(),
        Err(TermsError::OutOfRange { field: "limits.max_messages_per_side", value: 0, .. })
    ));
}

#[test]
fn version_one_terms_are_refused() {
    let c = cast();
    let mut t = terms(&c, ColorAssignment::Drawn, true, 1);
    t.version = 1;
    let signed = sign(&c, &t);
    assert!(matches!(
        signed.verify(),
        Err(TermsError::Decode(DecodeError::UnsupportedVersion { found: 1, .. }))
    ));
}

/// Parse, don't validate: the terms carry the game as typed options, the variant travelling
/// as its id and then its option fields, so an unknown id, a value the game does not have, and
/// every other spelling of a game do not decode (no party, relay or verifier ever holds terms
/// of an unknown game, and one game has one byte string).
#[test]
fn terms_name_a_known_game_with_options_it_has() {
    let c = cast();
    let t = terms(&c, ColorAssignment::Drawn, true, 1);
    let bytes = t.to_canonical();
    // `version`, the variant as a postcard string, then Kriegspiel's one option (touch-move).
    assert_eq!((bytes[0], &bytes[1..12]), (protocol::codec::VERSION, &b"\x0akriegspiel"[..]));
    assert_eq!(bytes[12], 1, "touch-move");
    assert_eq!(MatchTerms::from_canonical(&bytes), Ok(t.clone()));
    let with = |at: usize, put: &[u8], cut: usize| {
        let mut b = bytes[..at].to_vec();
        b.extend(put);
        b.extend(&bytes[at + cut..]);
        MatchTerms::from_canonical(&b)
    };
    let e = with(1, b"\x04go!!", 11).unwrap_err();
    assert!(matches!(e, DecodeError::Malformed { .. }), "{e:?}");
    // A bool other than 0 or 1 is no spelling of touch-move; an option-less game with
    // Kriegspiel's option byte left in is not chess.
    assert!(with(12, &[2], 1).is_err());
    assert!(with(1, b"\x05chess", 11).is_err());
    // Every variant, default and otherwise, reads back as itself.
    let mut six = rules::secretchess6::Options::default();
    six.life_freezes.white = 2;
    six.false_square.black = true;
    six.hidden_scores = true;
    let games = rules::Variant::ALL.into_iter().map(rules::GameOptions::default_for).chain([
        rules::GameOptions::Sic(rules::sic::SpyRule::Original),
        rules::GameOptions::SecretChess6(six),
    ]);
    for game in games {
        let t = MatchTerms { game, ..terms_for(&c, game.variant(), ColorAssignment::Drawn) };
        assert_eq!(t.validate(), Ok(()), "{game:?}");
        let bytes = t.to_canonical();
        assert_eq!(MatchTerms::from_canonical(&bytes), Ok(t.clone()), "{game:?}");
        assert_eq!(t.variant(), game.variant());
        assert_eq!(t.ruleset(), game.variant().ruleset());
    }
}

/// The options' fields by hand: SIC's spy rule is an enum index (0 default, 1 original, none
/// else); 6x6's five fields follow its id, and a Life Freeze count the game does not have is
/// refused by the decoder and, for terms built in memory, by the gate.
#[test]
fn option_fields_outside_the_game_are_refused() {
    let c = cast();
    let sic = terms_for(&c, rules::Variant::Sic, ColorAssignment::Drawn);
    let bytes = sic.to_canonical();
    assert_eq!(&bytes[1..5], b"\x03sic");
    assert_eq!(bytes[5], 0, "spy: default");
    let mut original = bytes.clone();
    original[5] = 1;
    let decoded = MatchTerms::from_canonical(&original).expect("spy: original");
    assert_eq!(decoded.game, rules::GameOptions::Sic(rules::sic::SpyRule::Original));
    original[5] = 2;
    assert!(matches!(MatchTerms::from_canonical(&original), Err(DecodeError::Malformed { .. })));

    let six = terms_for(&c, rules::Variant::SecretChess6, ColorAssignment::Drawn);
    let bytes = six.to_canonical();
    assert_eq!(&bytes[1..14], b"\x0csecretchess6");
    assert_eq!(&bytes[14..19], &[0, 0, 0, 0, 0], "freezes w/b, false square w/b, hidden scores");
    let mut eight = bytes.clone();
    eight[15] = 8;
    let decoded = MatchTerms::from_canonical(&eight).expect("eight Life Freezes");
    let rules::GameOptions::SecretChess6(o) = decoded.game else { panic!("{:?}", decoded.game) };
    assert_eq!(o.life_freezes.black, 8);
    let mut nine = bytes.clone();
    nine[15] = 9;
    assert!(matches!(MatchTerms::from_canonical(&nine), Err(DecodeError::Malformed { .. })));
    let mut o = rules::secretchess6::Options::default();
    o.life_freezes.black = 9;
    let bad = MatchTerms { game: rules::GameOptions::SecretChess6(o), ..six };
    assert!(
        matches!(bad.validate(), Err(TermsError::Options(ref e)) if e.name == "life-freezes-black")
    );
}

/// The X25519 u-coordinates of Curve25519's eight torsion points (dalek's `EIGHT_TORSION`,
/// mapped to Montgomery form): 0, 1 and the two of order 8, the keys a player could put in
/// its seat to make every seal to it fail.
fn small_order_seal_keys() -> Vec<SealPublicKey> {
    let mut keys: Vec<SealPublicKey> = curve25519_dalek::constants::EIGHT_TORSION
        .iter()
        .map(|p| SealPublicKey(p.to_montgomery().to_bytes()))
        .collect();
    keys.sort_by_key(|k| k.0);
    keys.dedup();
    keys
}

/// `p = 2^255 - 19`, little-endian, plus `add` (a small number).
fn p_plus(add: u8) -> [u8; 32] {
    let mut b = [0xff; 32];
    b[31] = 0x7f;
    b[0] = 0xed + add;
    b
}

fn seal_context() -> SealContext {
    SealContext {
        match_id: protocol::MatchId([7; 32]),
        channel: protocol::Channel::WhiteUmpire,
        author: cast().alice.public(),
        seq: 0,
    }
}

/// Issue 13: a player who puts a small-order seal key in its seat could void any umpired game
/// and have the umpire blamed (nothing can be sealed to it). The gate refuses every such key,
/// in every seat, naming the seat and the key; the relay will not start on such terms; and the
/// refused keys are exactly ones HPKE cannot seal to, while an honest key is sealed to.
#[test]
fn a_seal_key_nothing_can_be_sealed_to_is_refused_at_the_terms() {
    let c = cast();
    let low = small_order_seal_keys();
    assert_eq!(low.len(), 4, "0, 1 and two points of order 8: {low:?}");
    assert!(low.contains(&SealPublicKey([0; 32])));
    for key in &low {
        assert!(
            matches!(
                seal(key, &seal_context(), b"x", &[1; 32], 64),
                Err(SealError::BadRecipient { .. })
            ),
            "HPKE cannot seal to {key}"
        );
        assert_eq!(check_seal_key(key), Err(KeyProblem::SmallOrder), "{key}");
        for seat in 0..3 {
            let mut t = terms(&c, ColorAssignment::Drawn, true, 1);
            let role = match seat {
                0 | 1 => {
                    t.players[seat].seal_key = *key;
                    ["players[0]", "players[1]"][seat]
                }
                _ => {
                    t.umpire.as_mut().expect("umpired").seal_key = *key;
                    "the umpire"
                }
            };
            let e = t.validate().expect_err("refused");
            assert_eq!(e, TermsError::SealKey { role, key: *key, problem: KeyProblem::SmallOrder });
            assert!(e.to_string().contains(&key.to_string()), "{e}");
            // The relay refuses to run such terms, signed by everyone or not.
            let signed = sign(&c, &t);
            assert_eq!(signed.verify().map(drop), t.validate());
            let agreed = AgreedTerms {
                match_id: match_id(&signed.terms),
                bytes: signed.terms.clone(),
                terms: t.clone(),
            };
            match Relay::new(c.relay.clone(), agreed, 0) {
                Err(RelayError::Terms(refused)) => assert_eq!(refused, e),
                other => panic!("the relay ran terms with {key} in {role}: {other:?}"),
            }
        }
    }
    // Non-canonical encodings (the top bit set, u at or above p) and points of the twist.
    let honest = SealSecret::for_match(&c.alice, &[1; 32]).public();
    assert_eq!(check_seal_key(&honest), Ok(()));
    assert!(seal(&honest, &seal_context(), b"x", &[1; 32], 64).is_ok());
    let mut high = honest.0;
    high[31] |= 0x80;
    assert_eq!(check_seal_key(&SealPublicKey(high)), Err(KeyProblem::NonCanonical));
    // p + 1 is 1 again (order 4), p + 9 the base point: both only aliases.
    assert_eq!(check_seal_key(&SealPublicKey(p_plus(1))), Err(KeyProblem::NonCanonical));
    assert_eq!(check_seal_key(&SealPublicKey(p_plus(9))), Err(KeyProblem::NonCanonical));
    let mut nine = [0u8; 32];
    nine[0] = 9;
    assert_eq!(check_seal_key(&SealPublicKey(nine)), Ok(()), "the base point");
    // u = -1 = p - 1 is on the twist (of order 4 there).
    let mut minus_one = p_plus(0);
    minus_one[0] -= 1;
    assert_eq!(check_seal_key(&SealPublicKey(minus_one)), Err(KeyProblem::NotOnCurve));
}

/// Every signing key in the terms is a strict ed25519 key: a canonical encoding of a point of
/// the prime-order subgroup, whatever its role.
#[test]
fn every_signing_key_is_checked_strictly() {
    use curve25519_dalek::constants::EIGHT_TORSION;
    use curve25519_dalek::edwards::CompressedEdwardsY;
    let c = cast();
    let honest = c.bob.public();
    assert_eq!(check_signing_key(&honest), Ok(()));
    let point = CompressedEdwardsY(honest.0).decompress().expect("a point");
    let mixed = PublicKey((point + EIGHT_TORSION[1]).compress().0);
    let small = PublicKey(EIGHT_TORSION[3].compress().0);
    // y = p + 1 is y = 1 (the identity), written at or above p.
    let non_canonical = PublicKey(p_plus(1));
    let not_a_point = (2u8..)
        .map(|n| {
            let mut b = [0u8; 32];
            b[0] = n;
            b
        })
        .find(|b| CompressedEdwardsY(*b).decompress().is_none())
        .map(PublicKey)
        .expect("some y has no x");
    for (key, problem) in [
        (mixed, KeyProblem::MixedOrder),
        (small, KeyProblem::SmallOrder),
        (non_canonical, KeyProblem::NonCanonical),
        (not_a_point, KeyProblem::NotOnCurve),
    ] {
        assert_eq!(check_signing_key(&key), Err(problem), "{key}");
        for role in ["players[0]", "players[1]", "the relay", "the umpire"] {
            let mut t = terms(&c, ColorAssignment::Drawn, true, 1);
            match role {
                "players[0]" => t.players[0].key = key,
                "players[1]" => t.players[1].key = key,
                "the relay" => t.relay = key,
                _ => t.umpire.as_mut().expect("umpired").key = key,
            }
            assert_eq!(t.validate(), Err(TermsError::Key { role, key, problem }));
        }
    }
}

/// An umpire is named exactly when the variant's mode needs one: a rule the verifier alone
/// used to hold, now in the one gate. (The ruleset derives from the variant, so it cannot
/// disagree with it.)
#[test]
fn the_umpire_follows_the_variant() {
    let c = cast();
    for variant in rules::Variant::ALL {
        let umpired = variant.mode() == rules::Mode::Umpire;
        let good = terms_for(&c, variant, ColorAssignment::Drawn);
        assert_eq!(good.validate(), Ok(()), "{variant}");
        let other = terms(&c, ColorAssignment::Drawn, !umpired, 1).umpire;
        let t = MatchTerms { umpire: other, ..good };
        assert_eq!(t.validate(), Err(TermsError::Umpire { variant, named: !umpired }));
    }
}

/// Every deadline, cap and budget has a range, and the gate holds each field to it: the ends
/// are accepted, one past either end refused, naming the field. Among the refused, the terms
/// the issue found an agent would sign: `reveal_ms = 0`, `answer_ms = 2^62`, a 3-message cap,
/// a 1-attempt cap, a 20 kB record budget.
#[test]
fn every_deadline_cap_and_budget_is_bounded() {
    let c = cast();
    let base = terms(&c, ColorAssignment::Drawn, true, 1);
    type Set = fn(&mut MatchTerms, u64);
    let fields: [(&str, std::ops::RangeInclusive<u64>, Set); 7] = [
        ("time_control.initial_ms", bounds::INITIAL_MS, |t, v| t.time_control.initial_ms = v),
        ("time_control.increment_ms", bounds::INCREMENT_MS, |t, v| t.time_control.increment_ms = v),
        ("time_control.reveal_ms", bounds::REVEAL_MS, |t, v| t.time_control.reveal_ms = v),
        ("time_control.answer_ms", bounds::ANSWER_MS, |t, v| t.time_control.answer_ms = v),
        ("limits.max_messages_per_side", bounds::MESSAGES_PER_SIDE, |t, v| {
            t.limits.max_messages_per_side = u32::try_from(v).unwrap_or(u32::MAX)
        }),
        ("limits.max_attempts_per_turn", bounds::ATTEMPTS_PER_TURN, |t, v| {
            t.limits.max_attempts_per_turn = u32::try_from(v).unwrap_or(u32::MAX)
        }),
        ("limits.max_record_bytes", bounds::RECORD_BYTES, |t, v| t.limits.max_record_bytes = v),
    ];
    for (field, range, set) in fields {
        let (min, max) = (*range.start(), *range.end());
        for ok in [min, max] {
            let mut t = base.clone();
            set(&mut t, ok);
            assert_eq!(t.validate(), Ok(()), "{field} = {ok}");
        }
        let mut outside = vec![max + 1];
        if min > 0 {
            outside.push(min - 1);
        }
        for bad in outside {
            let mut t = base.clone();
            set(&mut t, bad);
            // A u32 field cannot hold max + 1: the setter saturates to max, which is allowed.
            let held = match field {
                "limits.max_messages_per_side" => u64::from(t.limits.max_messages_per_side),
                "limits.max_attempts_per_turn" => u64::from(t.limits.max_attempts_per_turn),
                _ => bad,
            };
            if range.contains(&held) {
                continue;
            }
            assert_eq!(
                t.validate(),
                Err(TermsError::OutOfRange { field, value: held, min, max }),
                "{field} = {bad}"
            );
        }
    }
    let issue: [(&str, Set); 5] = [
        ("time_control.reveal_ms", |t, _| t.time_control.reveal_ms = 0),
        ("time_control.answer_ms", |t, _| t.time_control.answer_ms = 1 << 62),
        ("limits.max_messages_per_side", |t, _| t.limits.max_messages_per_side = 3),
        ("limits.max_attempts_per_turn", |t, _| t.limits.max_attempts_per_turn = 1),
        ("limits.max_record_bytes", |t, _| t.limits.max_record_bytes = 20_000),
    ];
    for (field, set) in issue {
        let mut t = base.clone();
        set(&mut t, 0);
        assert!(
            matches!(t.validate(), Err(TermsError::OutOfRange { field: f, .. }) if f == field),
            "{field}: {:?}",
            t.validate()
        );
    }
    // What the server proposes and self-play plays are inside every range.
    assert_eq!(base.validate(), Ok(()));
    assert_eq!(Limits::DEFAULT.max_record_bytes, *bounds::RECORD_BYTES.end());
}

//! Match terms: both signatures, validation, the match id.
mod common;

use common::{agreed, cast, sign, terms};
use protocol::codec::{Canonical, DecodeError};
use protocol::keys::SignatureError;
use protocol::tags;
use protocol::terms::{Colours, SignedTerms, TermsError, match_id};

#[test]
fn agreed_terms_have_the_hash_of_their_bytes_as_id() {
    let c = cast();
    let (signed, agreed) = agreed(&c, Colours::Drawn, true);
    assert_eq!(agreed.match_id, match_id(&signed.terms));
    assert_eq!(agreed.bytes, signed.terms);
    // Signed terms survive their own encoding.
    assert_eq!(SignedTerms::from_canonical(&signed.to_canonical()), Ok(signed));
}

#[test]
fn a_fresh_nonce_gives_a_fresh_match_id() {
    let c = cast();
    let a = sign(&c, &terms(&c, Colours::Drawn, true, 1)).verify().unwrap();
    let b = sign(&c, &terms(&c, Colours::Drawn, true, 2)).verify().unwrap();
    assert_ne!(a.match_id, b.match_id);
}

#[test]
fn forged_terms_signature_is_refused() {
    let c = cast();
    let t = terms(&c, Colours::Drawn, true, 1);
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
    let mut signed = sign(&c, &terms(&c, Colours::Drawn, true, 1));
    signed.terms.push(0);
    assert!(matches!(
        signed.verify(),
        Err(TermsError::Decode(DecodeError::TrailingBytes { count: 1, .. }))
    ));
}

#[test]
fn only_a_named_party_may_sign_and_every_party_must() {
    let c = cast();
    let t = terms(&c, Colours::Drawn, true, 1);
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
    let open = terms(&c, Colours::Drawn, false, 1);
    assert_eq!(open.signers().len(), 3);
    assert!(sign(&c, &open).verify().is_ok());
}

#[test]
fn one_key_in_two_roles_is_refused() {
    let c = cast();
    let mut t = terms(&c, Colours::Drawn, true, 1);
    t.players[1].key = t.players[0].key;
    assert!(matches!(t.validate(), Err(TermsError::KeyInTwoRoles { .. })));
    let mut t = terms(&c, Colours::Drawn, true, 1);
    t.relay = c.alice.public();
    assert!(matches!(t.validate(), Err(TermsError::KeyInTwoRoles { .. })));
    // The relay as the umpire (accepted by v1's terms and relay, refused by its verifier).
    let mut t = terms(&c, Colours::Drawn, true, 1);
    t.relay = c.umpire.public();
    assert_eq!(t.validate(), Err(TermsError::KeyInTwoRoles { key: c.umpire.public() }));
    let mut t = terms(&c, Colours::Drawn, true, 1);
    t.players[1].seal_key = t.players[0].seal_key;
    assert_eq!(t.validate(), Err(TermsError::SealKeyInTwoRoles));
    let mut t = terms(&c, Colours::Drawn, true, 1);
    t.limits.max_messages_per_side = 0;
    assert!(matches!(t.validate(), Err(TermsError::Limits(_))));
}

#[test]
fn version_one_terms_are_refused() {
    let c = cast();
    let mut t = terms(&c, Colours::Drawn, true, 1);
    t.version = 1;
    let signed = sign(&c, &t);
    assert!(matches!(
        signed.verify(),
        Err(TermsError::Decode(DecodeError::UnsupportedVersion { found: 1, .. }))
    ));
}

/// Parse, don't validate: the terms' variant travels as its id and an unknown id does not
/// decode (so no party, relay or verifier ever holds terms of an unknown game); the options
/// are read by the one parser every party shares, which refuses unknown names, bad values and
/// defaults written out.
#[test]
fn terms_name_a_known_game_with_options_it_has() {
    let c = cast();
    let t = terms(&c, Colours::Drawn, true, 1);
    let bytes = t.to_canonical();
    // `version`, then the variant as a postcard string.
    assert_eq!(&bytes[..12], b"\x02\x0akriegspiel");
    let mut unknown = vec![2, 4];
    unknown.extend(b"go!!");
    unknown.extend(&bytes[12..]);
    let e = protocol::terms::MatchTerms::from_canonical(&unknown).unwrap_err();
    assert!(matches!(e, DecodeError::Malformed { .. }), "{e:?}");
    assert_eq!(t.game_options().map(|o| o.to_map()), Ok(t.options.clone()));
    for (name, value) in [("touch-move", "yes"), ("touch-move", "false"), ("spy", "original")] {
        let mut bad = t.clone();
        bad.options.clear();
        bad.options.insert(name.into(), value.into());
        assert!(
            matches!(sign(&c, &bad).verify(), Err(TermsError::Options(ref e)) if e.name == name),
            "{name}={value}"
        );
    }
}

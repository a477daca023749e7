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
fn only_the_named_player_may_sign() {
    let c = cast();
    let t = terms(&c, Colours::Drawn, true, 1);
    assert!(matches!(
        SignedTerms::sign(&t, 0, &c.bob),
        Err(TermsError::NotThePlayer { index: 0, .. })
    ));
    assert!(SignedTerms::sign(&t, 2, &c.alice).is_err());
}

#[test]
fn nonsense_terms_are_refused() {
    let c = cast();
    let mut t = terms(&c, Colours::Drawn, true, 1);
    t.players[1].key = t.players[0].key;
    assert!(matches!(t.validate(), Err(TermsError::SamePlayerTwice { .. })));
    let mut t = terms(&c, Colours::Drawn, true, 1);
    t.relay = c.alice.public();
    assert!(matches!(t.validate(), Err(TermsError::PlayerAlsoOfficial { .. })));
    let mut t = terms(&c, Colours::Drawn, true, 1);
    t.version = 2;
    let signed = sign(&c, &t);
    assert!(matches!(
        signed.verify(),
        Err(TermsError::Decode(DecodeError::UnsupportedVersion { found: 2, .. }))
    ));
}

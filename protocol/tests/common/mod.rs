//! Shared fixtures: deterministic identities and terms for the protocol tests.
#![allow(dead_code, reason = "each test binary uses a different part of the fixtures")]

use protocol::codec::VERSION;
use protocol::keys::Identity;
use protocol::seal::SealSecret;
use protocol::terms::{
    AgreedTerms, Colours, Limits, MatchTerms, PlayerTerms, SignedTerms, TimeControl, UmpireTerms,
};
use std::collections::BTreeMap;

/// The cast of a match, from fixed seeds.
pub struct Cast {
    pub alice: Identity,
    pub bob: Identity,
    pub relay: Identity,
    pub umpire: Identity,
    pub outsider: Identity,
}

pub fn cast() -> Cast {
    Cast {
        alice: Identity::from_seed(&[0xa1; 32]),
        bob: Identity::from_seed(&[0xb0; 32]),
        relay: Identity::from_seed(&[0x7e; 32]),
        umpire: Identity::from_seed(&[0x55; 32]),
        outsider: Identity::from_seed(&[0x99; 32]),
    }
}

pub fn terms(cast: &Cast, colours: Colours, umpired: bool, nonce_byte: u8) -> MatchTerms {
    let player = |id: &Identity, n: u8| PlayerTerms {
        key: id.public(),
        seal_key: SealSecret::of(id).public(),
        nonce: [n; 32],
    };
    MatchTerms {
        version: VERSION,
        variant: "kriegspiel".into(),
        ruleset: "kriegspiel/1".into(),
        options: BTreeMap::from([("announce-pawn-tries".into(), "yes".into())]),
        players: [player(&cast.alice, nonce_byte), player(&cast.bob, nonce_byte.wrapping_add(1))],
        colours,
        relay: cast.relay.public(),
        umpire: umpired.then(|| UmpireTerms {
            key: cast.umpire.public(),
            seal_key: SealSecret::of(&cast.umpire).public(),
        }),
        time_control: TimeControl {
            initial_ms: 1000,
            increment_ms: 100,
            reveal_ms: 500,
            answer_ms: 500,
        },
        limits: Limits::DEFAULT,
    }
}

pub fn sign(cast: &Cast, terms: &MatchTerms) -> SignedTerms {
    SignedTerms::sign_all(terms, &[&cast.alice, &cast.bob, &cast.relay, &cast.umpire])
        .expect("the cast holds every signer")
}

pub fn agreed(cast: &Cast, colours: Colours, umpired: bool) -> (SignedTerms, AgreedTerms) {
    let signed = sign(cast, &terms(cast, colours, umpired, 1));
    let agreed = signed.verify().expect("fixture terms verify");
    (signed, agreed)
}

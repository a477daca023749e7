//! Tournament definitions: canonical bytes with a version byte, organiser signatures with a
//! domain tag, validation errors that say what is wrong.

use ed25519_dalek::SigningKey;
use ledger::tournament::definition::{
    DefinitionError, Entrant, SignedDefinition, System, TieBreak, TournamentDefinition,
};
use ledger::tournament::{Pairings, pair_next_round};
use protocol::PublicKey;
use rules::Variant;
use std::collections::BTreeSet;

fn def(n: u8, system: System) -> TournamentDefinition {
    TournamentDefinition {
        name: "Test Open".into(),
        variant: Variant::Kriegspiel,
        ruleset: Variant::Kriegspiel.ruleset().into(),
        system,
        players: (0..n)
            .map(|i| Entrant {
                key: PublicKey([i + 1; 32]),
                name: format!("Player {i}"),
                rating: if i == 2 { None } else { Some(1500 + 10 * u16::from(i)) },
            })
            .collect(),
        tie_breaks: vec![TieBreak::Buchholz, TieBreak::SonnebornBerger],
        time_control: "5+3".into(),
    }
}

#[test]
fn bytes_round_trip_and_start_with_the_version() {
    let d = def(6, System::Swiss { rounds: 3 });
    let bytes = d.to_bytes().expect("encodes");
    assert_eq!(bytes[0], 1);
    assert_eq!(TournamentDefinition::from_bytes(&bytes).expect("decodes"), d);
    let mut wrong = bytes.clone();
    wrong[0] = 2;
    assert!(matches!(TournamentDefinition::from_bytes(&wrong), Err(DefinitionError::Version(2))));
    let mut trailing = bytes.clone();
    trailing.push(0);
    assert!(TournamentDefinition::from_bytes(&trailing).is_err());
    assert!(matches!(TournamentDefinition::from_bytes(&[]), Err(DefinitionError::Empty)));
}

#[test]
fn signature_verifies_and_binds_bytes_and_key() {
    let organiser = SigningKey::from_bytes(&[9; 32]);
    let d = def(4, System::RoundRobin { double: true });
    let signed = d.sign(&organiser).expect("signs");
    assert_eq!(signed.verify().expect("verifies"), d);

    let mut tampered = signed.clone();
    let last = tampered.bytes.len() - 1;
    tampered.bytes[last] ^= 1;
    assert!(tampered.verify().is_err());

    let other = SigningKey::from_bytes(&[10; 32]);
    let forged = SignedDefinition {
        organiser: PublicKey(other.verifying_key().to_bytes()),
        ..signed.clone()
    };
    assert!(matches!(forged.verify(), Err(DefinitionError::BadSignature)));

    // Domain separation: a signature over the bare bytes is not a definition signature.
    use ed25519_dalek::Signer;
    let bare = organiser.sign(&signed.bytes);
    let wrong_domain = SignedDefinition {
        signature: protocol::Signature { r: *bare.r_bytes(), s: *bare.s_bytes() },
        ..signed
    };
    assert!(matches!(wrong_domain.verify(), Err(DefinitionError::BadSignature)));
}

#[test]
fn validation_names_the_problem() {
    let mut d = def(4, System::Swiss { rounds: 4 });
    assert!(matches!(d.validate(), Err(DefinitionError::BadRounds { rounds: 4, players: 4 })));
    d.system = System::Swiss { rounds: 3 };
    d.players[3].key = d.players[1].key;
    let err = d.validate().expect_err("duplicate");
    assert!(matches!(err, DefinitionError::DuplicateKey { first: 1, second: 3, .. }));
    assert!(err.to_string().contains("same key"));
    let mut d = def(4, System::Swiss { rounds: 3 });
    d.tie_breaks.push(TieBreak::Buchholz);
    assert!(matches!(d.validate(), Err(DefinitionError::DuplicateTieBreak(TieBreak::Buchholz))));
    assert!(matches!(
        def(1, System::Swiss { rounds: 1 }).validate(),
        Err(DefinitionError::TooFewPlayers(1))
    ));
}

#[test]
fn initial_ranking_is_by_rating_then_order_unrated_last() {
    let d = def(4, System::Swiss { rounds: 3 });
    // Ratings: 1500, 1510, none, 1530.
    assert_eq!(d.initial_ranking(), vec![3, 1, 0, 2]);
}

#[test]
fn round_robin_rounds_follow_the_berger_table_through_the_ranking() {
    let d = def(4, System::RoundRobin { double: false });
    assert_eq!(d.rounds(), 3);
    let p = pair_next_round(&d, &[], &BTreeSet::new()).expect("pairs");
    // Pairing numbers 1..4 are players 3, 1, 0, 2; round 1 is 1-4, 2-3.
    assert_eq!(p, Pairings { games: vec![(3, 2), (1, 0)], bye: None });
    let d5 = def(5, System::RoundRobin { double: true });
    assert_eq!(d5.rounds(), 10);
}

//! The bounds `fogproof loadtest` compares a process's CPU with do the work they name.

use protocol::message::Payload;
use protocol::{Channel, codec::Canonical};
use sim::measure::{UmpireCrypto, UmpirePhases};

/// The umpire bound (issue 14: the umpire's answer cost against its open, check, seal and
/// sign) checks every entry, opens every message a player sealed to the umpire, and seals and
/// signs every message the umpire wrote sealed, counted against the record itself.
#[test]
fn the_umpire_bound_opens_seals_and_signs_what_the_record_holds() {
    let c = UmpireCrypto::new().expect("the self-played match");
    let umpire = c.umpire.public();
    let (mut opens, mut seals) = (0, 0);
    for e in &c.entries {
        let body = e.message.verify().expect("a self-played message");
        if let Payload::Sealed(_) = body.payload {
            assert_ne!(body.channel, Channel::Public, "sealed on a private channel");
            if body.author == umpire {
                seals += 1;
            } else {
                opens += 1;
            }
        }
    }
    assert!(opens > 0 && seals > 0, "a Kriegspiel match seals both ways");
    let mut phases = UmpirePhases::default();
    c.pass(Some(&mut phases)).expect("one pass");
    assert_eq!(phases.entries, c.entries.len());
    assert_eq!(phases.opened, opens);
    assert_eq!(phases.sealed, seals);
    assert_eq!(phases.signed, c.written.len());
    assert!(phases.check > 0 && phases.open > 0 && phases.seal > 0 && phases.sign > 0);
    // Its messages are the record's, each one the umpire's.
    for m in &c.written {
        let m = protocol::message::SignedMessage::from_canonical(m).expect("decodes");
        assert_eq!(m.verify().expect("verifies").author, umpire);
    }
    // A pass without phases does the same work without reading the clock around each step.
    c.pass(None).expect("a pass without phases");
    assert!(c.median(0.0).expect("one pass timed") > 0.0);
}

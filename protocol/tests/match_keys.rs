//! Seal keys are per match: derived from the identity and the party's nonce in the terms, and a
//! machine refuses terms that carry another seal key for it (or do not name it at all).
mod common;

use common::{cast, sign, terms};
use protocol::game::GameError;
use protocol::roles::{Player, Umpire};
use protocol::seal::SealSecret;
use protocol::terms::ColorAssignment;

struct Pass;
impl protocol::roles::Policy for Pass {
    fn decide(
        &mut self,
        _: rules::Variant,
        _: rules::Color,
        _: &protocol::roles::Ask,
    ) -> rules::AnyAction {
        rules::AnyAction::SecretChess6(rules::secretchess6::Action::EndTurn)
    }
}

#[test]
fn seal_keys_differ_between_matches_and_must_match_the_terms() {
    let c = cast();
    assert_ne!(
        SealSecret::for_match(&c.alice, &[1; 32]).public(),
        SealSecret::for_match(&c.alice, &[2; 32]).public()
    );
    let good = sign(&c, &terms(&c, ColorAssignment::Drawn, true, 1)).verify().unwrap();
    assert!(Player::new(c.alice.clone(), good.clone(), [0; 32], Box::new(Pass)).is_ok());
    assert!(Umpire::new(c.umpire.clone(), good.clone(), [0; 32]).is_ok());
    // Terms with alice's seal key for another nonce.
    let mut t = terms(&c, ColorAssignment::Drawn, true, 1);
    t.players[0].seal_key = SealSecret::for_match(&c.alice, &[9; 32]).public();
    let bad = sign(&c, &t).verify().unwrap();
    assert!(matches!(
        Player::new(c.alice.clone(), bad, [0; 32], Box::new(Pass)),
        Err(GameError::Keys(_))
    ));
    // An umpire whose nonce does not give the key the terms carry; a stranger as umpire.
    let mut t = terms(&c, ColorAssignment::Drawn, true, 1);
    if let Some(u) = &mut t.umpire {
        u.nonce = [0x11; 32];
        assert_ne!(u.seal_key, SealSecret::for_match(&c.umpire, &u.nonce).public());
    }
    let bad = sign(&c, &t).verify().unwrap();
    assert!(matches!(Umpire::new(c.umpire.clone(), bad, [0; 32]), Err(GameError::Keys(_))));
    assert!(matches!(Umpire::new(c.outsider.clone(), good, [0; 32]), Err(GameError::Keys(_))));
}

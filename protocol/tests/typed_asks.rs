//! The player asks with typed actions and is answered with a typed action (issue 17): an asking
//! player's `Ask::Choose` lists its seat's own actions, typed, and the action it is answered
//! with is encoded once, where the player signs it: the bytes of its `Payload::Action` are the
//! game's canonical action bytes.
mod common;

use common::{cast, sign, terms};
use protocol::codec::Canonical;
use protocol::message::{MessageBody, Payload};
use protocol::relay::Relay;
use protocol::roles::{Ask, Input, Output, Participant, Player};
use protocol::terms::ColorAssignment;
use rules::{AnyAction, AnyGame, GameOptions};

/// Runs the relay and both asking players until one asks; returns who asked (0: alice, 1: bob)
/// and the question.
fn until_asked(
    relay: &mut Relay,
    players: &mut [Player; 2],
    delivered: &mut usize,
    now: &mut u64,
) -> (usize, Ask) {
    for _round in 0..100 {
        let entries = relay.entries()[*delivered..].to_vec();
        *delivered += entries.len();
        for entry in &entries {
            for p in players.iter_mut() {
                p.handle(Input::Delivered(entry.clone())).expect("an honest entry");
            }
        }
        let mut wrote = Vec::new();
        for (i, p) in players.iter_mut().enumerate() {
            while let Some(out) = p.poll_output() {
                match out {
                    Output::Send(m) => wrote.push(m),
                    Output::Decide(ask) => {
                        for m in wrote {
                            *now += 1;
                            relay.accept(&m.to_canonical(), *now).expect("accepted");
                        }
                        return (i, ask);
                    }
                    Output::Finished(c) => panic!("finished early: {c:?}"),
                }
            }
        }
        assert!(!wrote.is_empty() || *delivered < relay.entries().len(), "the match stalled");
        for m in wrote {
            *now += 1;
            relay.accept(&m.to_canonical(), *now).expect("accepted");
        }
    }
    panic!("nobody was asked");
}

#[test]
fn the_player_asks_with_typed_actions_and_signs_the_typed_answer_encoded_once() {
    let c = cast();
    let agreed = sign(&c, &terms(&c, ColorAssignment::FirstIsWhite, false, 1))
        .verify()
        .expect("fixture terms verify");
    assert_eq!(agreed.terms.game, GameOptions::Chess);
    let mut relay = Relay::new(c.relay.clone(), agreed.clone(), 0).expect("the relay starts");
    let mut players = [
        Player::asking(c.alice.clone(), agreed.clone(), [1; 32]).expect("alice"),
        Player::asking(c.bob.clone(), agreed.clone(), [2; 32]).expect("bob"),
    ];
    let (mut delivered, mut now) = (0, 0);
    let (who, ask) = until_asked(&mut relay, &mut players, &mut delivered, &mut now);
    // Alice is White (`players[0]`): asked first, with chess's twenty first moves, typed.
    assert_eq!(who, 0);
    let start = AnyGame::start(&GameOptions::Chess, None).expect("chess starts");
    let Ask::Choose(offered) = ask else { panic!("a move is asked: {ask:?}") };
    assert_eq!(offered, start.legal_actions());
    assert_eq!(offered.len(), 20);
    let e2e4 = offered
        .iter()
        .find(|a| a.as_move().is_some_and(|m| m.uci(rules::Alphabet::ORTHODOX) == "e2e4"))
        .expect("e2e4 is offered")
        .clone();
    players[0].handle(Input::Decision(e2e4.clone())).expect("the answer is taken");
    // What alice signs: the action's canonical bytes, in public (an open game).
    let mut actions = Vec::new();
    while let Some(out) = players[0].poll_output() {
        if let Output::Send(m) = out {
            let body = MessageBody::from_canonical(&m.body).expect("a body");
            if let Payload::Action(bytes) = body.payload {
                actions.push(bytes);
            }
            now += 1;
            relay.accept(&m.to_canonical(), now).expect("accepted");
        }
    }
    let AnyAction::Chess(m) = &e2e4 else { panic!("a chess move: {e2e4:?}") };
    assert_eq!(actions, vec![m.to_canonical()]);
    assert_eq!(protocol::game::decode_action(rules::Variant::Chess, &actions[0]), Ok(e2e4));
    // Bob is asked next, with Black's twenty answers to 1. e4, typed.
    let (who, ask) = until_asked(&mut relay, &mut players, &mut delivered, &mut now);
    assert_eq!(who, 1);
    let Ask::Choose(offered) = ask else { panic!("a move is asked: {ask:?}") };
    assert_eq!(offered.len(), 20);
    assert!(offered.iter().all(|a| matches!(a, AnyAction::Chess(m) if m.from.rank() >= 6)));
    // A decision nobody asked for is refused (alice has no question outstanding).
    assert!(players[0].handle(Input::Decision(offered[0].clone())).is_err());
}

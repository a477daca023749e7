//! The plain serde forms of the rules' vocabulary in a human-readable format (JSON): squares,
//! sets and moves by name, variants by id, 6x6 formations as text. (The binary forms are
//! tested where the binary codec lives, `protocol::game`.)

use rules::secretchess6::{Action, Event, Formation, TurnMove};
use rules::{Bitboard, BoardSize, Move, Role, Square, Variant};
use serde_json::json;

fn sq(name: &str) -> Square {
    Square::parse(name, BoardSize::Eight).expect("a square")
}

#[test]
fn squares_sets_and_moves_read_as_names() {
    assert_eq!(serde_json::to_value(sq("e4")).unwrap(), json!("e4"));
    assert_eq!(serde_json::from_value::<Square>(json!("h8")).unwrap(), sq("h8"));
    for bad in [json!("i1"), json!("e9"), json!(28), json!("e")] {
        assert!(serde_json::from_value::<Square>(bad.clone()).is_err(), "{bad}");
    }
    let set: Bitboard = [sq("c5"), sq("a4")].into_iter().collect();
    assert_eq!(serde_json::to_value(set).unwrap(), json!(["a4", "c5"]), "sorted by index");
    assert_eq!(serde_json::from_value::<Bitboard>(json!(["c5", "a4"])).unwrap(), set);
    let m = Move { from: sq("e7"), to: sq("e8"), promotion: Some(Role::Queen) };
    assert_eq!(
        serde_json::to_value(m).unwrap(),
        json!({ "from": "e7", "to": "e8", "promotion": "queen" })
    );
}

#[test]
fn variants_travel_as_their_ids_and_unknown_ids_do_not_read() {
    for v in Variant::ALL {
        assert_eq!(serde_json::to_value(v).unwrap(), json!(v.id()));
        assert_eq!(serde_json::from_value::<Variant>(json!(v.id())).unwrap(), v);
    }
    let e = serde_json::from_value::<Variant>(json!("shogi")).unwrap_err();
    assert!(e.to_string().contains("unknown variant 'shogi'"), "{e}");
}

#[test]
fn secretchess6_actions_and_events_are_plain_and_named() {
    let six = |n: &str| Square::parse(n, BoardSize::Six).expect("a 6x6 square");
    let setup = Action::Setup {
        formation: Formation::parse("nbkq.r").expect("a formation"),
        false_squares: [six("c4"), six("a4")].into_iter().collect(),
    };
    let value = serde_json::to_value(&setup).unwrap();
    assert_eq!(value, json!({ "setup": { "formation": "NBKQ1R", "false_squares": ["a4", "c4"] } }));
    assert_eq!(serde_json::from_value::<Action>(value).unwrap(), setup);
    let mv = Action::Move { mv: TurnMove::parse("b1c4+").expect("a move") };
    assert_eq!(serde_json::to_value(&mv).unwrap(), json!({ "move": { "mv": "b1c4+" } }));
    assert_eq!(serde_json::to_value(Action::EndTurn).unwrap(), json!("end-turn"));
    assert_eq!(serde_json::to_value(Event::SetupAccepted).unwrap(), json!("setup-accepted"));
    let frozen = Event::Frozen { piece: six("d3") };
    assert_eq!(serde_json::to_value(frozen).unwrap(), json!({ "frozen": { "piece": "d3" } }));
    // A formation that breaks R-G1 does not read.
    let bad = json!({ "tie-break": { "formation": "KKQRB1", "moves": [] } });
    assert!(serde_json::from_value::<Action>(bad).is_err());
}

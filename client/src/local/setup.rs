//! The secret setups and tie-breaks asked as free-form JSON (Intrigue's, 6x6's), checked by
//! the rules before anything is signed ([`setup_action`]). Depends on nothing else in `local`.

use protocol::roles::Ask;
use rules::setup_ask::{Field, Form};
use rules::{Color, GameOptions};
use serde_json::Value;

/// The form of a JSON answer: each field of an object, as [`rules::setup_ask::Field`]s
/// (`null` as missing; anything but an object has no fields).
pub fn json_form(body: &Value) -> Form {
    fn field(v: &Value) -> Field {
        match v {
            Value::Null => Field::Missing,
            Value::String(t) => Field::Text(t.clone()),
            Value::Bool(b) => Field::Flag(*b),
            Value::Array(v) => Field::List(v.iter().map(field).collect()),
            Value::Number(_) | Value::Object(_) => Field::Other,
        }
    }
    let mut form = Form::new();
    if let Value::Object(fields) = body {
        for (name, v) in fields {
            form.insert(name, field(v));
        }
    }
    form
}

/// The JSON of a form (the inverse of [`json_form`]; [`Field::Other`] as `null`): how the
/// terminal's words reach [`setup_action`].
pub fn form_json(form: &Form) -> Value {
    fn value(f: &Field) -> Value {
        match f {
            Field::Missing | Field::Other => Value::Null,
            Field::Text(t) => Value::String(t.clone()),
            Field::Flag(b) => Value::Bool(*b),
            Field::List(v) => Value::Array(v.iter().map(value).collect()),
        }
    }
    Value::Object(form.iter().map(|(name, f)| (name.to_string(), value(f))).collect())
}

/// The action answering a free-form question, from JSON, checked by the rules
/// ([`rules::setup_ask::SetupAsk::parse_answer`] names each question's fields), e.g.:
/// - Intrigue setup (R-I1): `{"king": "e4", "informer": "d2", "queen_on_king_square": false}`;
/// - 6x6 setup (R-G1): `{"formation": "NBKQ1R", "false_squares": ["b5", "e6"]}` (files a to f,
///   `1` for the empty file; at most the number asked);
/// - 6x6 tie-break (R-G8): `{"formation": "RNBQ1K", "moves": ["b6d4", "0000"]}`, the guess of
///   the opponent's formation and of its turns in order (as many as it had at most).
pub fn setup_action(
    options: &GameOptions,
    side: Color,
    ask: &Ask,
    body: &Value,
) -> Result<rules::AnyAction, String> {
    match ask {
        Ask::Setup(setup) => setup.parse_answer(options, side, &json_form(body)),
        Ask::Choose(_) => Err("a move is asked: POST /api/bot/game/{id}/move/{text}".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rules::Variant;
    use rules::setup_ask::SetupAsk;
    use serde_json::json;

    #[test]
    fn setups_are_checked_by_the_rules_before_anything_is_signed() {
        let intrigue = GameOptions::Intrigue;
        let ok = json!({ "king": "e4", "informer": "d2", "queen_on_king_square": true });
        let decoded = setup_action(&intrigue, Color::White, &Ask::Setup(SetupAsk::Intrigue), &ok)
            .expect("valid");
        assert!(matches!(
            decoded,
            rules::AnyAction::Intrigue(rules::intrigue::Action::Setup(s))
                if s.queen_on_king_square && s.informer.to_string() == "d2"
        ));
        // Black's informer must be one of its own pawns (rank 7).
        let bad = json!({ "king": "e4", "informer": "d2" });
        assert!(
            setup_action(&intrigue, Color::Black, &Ask::Setup(SetupAsk::Intrigue), &bad).is_err()
        );
        assert!(
            setup_action(&intrigue, Color::White, &Ask::Setup(SetupAsk::Intrigue), &json!({}))
                .is_err()
        );

        let six = GameOptions::default_for(Variant::SecretChess6);
        let ask = Ask::Setup(SetupAsk::SecretChess6 { max_false_squares: 2 });
        let good = json!({ "formation": "NBKQ1R", "false_squares": ["b5", "e6"] });
        assert!(setup_action(&six, Color::White, &ask, &good).is_ok());
        for bad in [
            json!({ "formation": "NBKQ1R", "false_squares": ["b5", "e6", "a4"] }),
            json!({ "formation": "NBKQ1R", "false_squares": ["b2"] }),
            json!({ "formation": "NBKQRR", "false_squares": [] }),
            json!({ "formation": "NBKQ1R", "false_squares": ["b5", "b5"] }),
        ] {
            assert!(setup_action(&six, Color::White, &ask, &bad).is_err(), "{bad}");
        }
        let tie = Ask::Setup(SetupAsk::SecretChess6TieBreak { opponent_turns: 2 });
        let guess = json!({ "formation": "RNBQ1K", "moves": ["b6d4", "0000"] });
        assert!(setup_action(&six, Color::White, &tie, &guess).is_ok());
        let long = json!({ "formation": "RNBQ1K", "moves": ["b6d4", "0000", "0000"] });
        assert!(setup_action(&six, Color::White, &tie, &long).is_err());
        assert!(setup_action(&six, Color::White, &Ask::Choose(vec![]), &guess).is_err());
    }

    #[test]
    fn json_answers_keep_their_error_texts_and_the_terminals_forms_round_trip() {
        let six = GameOptions::default_for(Variant::SecretChess6);
        let ask = Ask::Setup(SetupAsk::SecretChess6 { max_false_squares: 2 });
        let cases = [
            (
                json!({ "formation": "NBKQ1R", "false_squares": "b5" }),
                "'false_squares': a list of square names",
            ),
            (
                json!({ "formation": "NBKQ1R", "false_squares": [5] }),
                "'false_squares': a list of square names",
            ),
            (json!({ "formation": 7 }), "'formation': six files, like NBKQ1R"),
            (json!(["NBKQ1R"]), "'formation': six files, like NBKQ1R"),
            (json!({ "formation": "NBKQ1R", "false_squares": null }), ""),
        ];
        for (body, error) in cases {
            let got = setup_action(&six, Color::White, &ask, &body);
            if error.is_empty() {
                assert!(got.is_ok(), "{body}: {got:?}");
            } else {
                assert_eq!(got, Err(error.to_string()), "{body}");
            }
        }
        let intrigue = Ask::Setup(SetupAsk::Intrigue);
        let body = json!({ "king": "e4", "informer": "d2", "queen_on_king_square": 1 });
        assert_eq!(
            setup_action(&GameOptions::Intrigue, Color::White, &intrigue, &body),
            Err("'queen_on_king_square': true or false".to_string())
        );
        assert_eq!(
            setup_action(&GameOptions::Intrigue, Color::White, &ask, &body),
            Err("this question does not take that answer".to_string())
        );
        // The terminal's words become the JSON the page would send, and back.
        let words = SetupAsk::Intrigue.form_from_words(&["c6", "f2", "queen"]).expect("words");
        let sent = form_json(&words);
        assert_eq!(sent, json!({ "king": "c6", "informer": "f2", "queen_on_king_square": true }));
        assert_eq!(json_form(&sent), words);
    }
}

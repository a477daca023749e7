//! The secret setups and tie-breaks asked as free-form JSON (Intrigue's, 6x6's), checked by
//! the rules before anything is signed ([`setup_action`]). Depends on nothing else in `local`.

use protocol::roles::Ask;
use rules::{Color, GameOptions, Square};
use serde_json::Value;

fn square_field(body: &Value, field: &str, size: rules::BoardSize) -> Result<Square, String> {
    let text = body[field].as_str().ok_or_else(|| format!("'{field}': a square name"))?;
    Square::parse(text, size).ok_or_else(|| format!("'{field}': '{text}' is not a square"))
}

/// The action answering a free-form question, from JSON, checked by the rules:
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
    use rules::Game as _;
    use rules::secretchess6::{Action as SixAction, Formation, TurnMove};
    let formation = |field: &str| -> Result<Formation, String> {
        let text =
            body[field].as_str().ok_or_else(|| format!("'{field}': six files, like NBKQ1R"))?;
        Formation::parse(text).map_err(|e| format!("'{field}': {e}"))
    };
    let action = match (ask, options) {
        (Ask::IntrigueSetup, GameOptions::Intrigue) => {
            let setup = rules::intrigue::Setup {
                king: square_field(body, "king", rules::BoardSize::Eight)?,
                informer: square_field(body, "informer", rules::BoardSize::Eight)?,
                queen_on_king_square: match &body["queen_on_king_square"] {
                    Value::Null => false,
                    v => v.as_bool().ok_or("'queen_on_king_square': true or false")?,
                },
            };
            let a = rules::intrigue::Action::Setup(setup);
            rules::intrigue::State::new().apply(side, &a).map_err(|e| e.to_string())?;
            rules::AnyAction::Intrigue(a)
        }
        (Ask::Sc6Setup { max_false_squares }, GameOptions::SecretChess6(o)) => {
            let mut false_squares = rules::Bitboard::EMPTY;
            let list = match &body["false_squares"] {
                Value::Null => Vec::new(),
                Value::Array(v) => v.clone(),
                _ => return Err("'false_squares': a list of square names".into()),
            };
            for v in &list {
                let text = v.as_str().ok_or("'false_squares': a list of square names")?;
                let sq = Square::parse(text, rules::BoardSize::Six)
                    .ok_or_else(|| format!("'false_squares': '{text}' is not a 6x6 square"))?;
                if false_squares.contains(sq) {
                    return Err(format!("'false_squares': {sq} is given twice"));
                }
                false_squares.insert(sq);
            }
            if list.len() > *max_false_squares {
                return Err(format!("at most {max_false_squares} false squares"));
            }
            let a = SixAction::Setup { formation: formation("formation")?, false_squares };
            rules::secretchess6::State::new(*o).apply(side, &a).map_err(|e| e.to_string())?;
            rules::AnyAction::SecretChess6(a)
        }
        (Ask::Sc6TieBreak { opponent_turns }, GameOptions::SecretChess6(_)) => {
            let moves = match &body["moves"] {
                Value::Null => Vec::new(),
                Value::Array(v) => v
                    .iter()
                    .map(|m| {
                        let t = m.as_str().ok_or("'moves': a list of moves like b6d4 or 0000")?;
                        TurnMove::parse(t).map_err(|e| format!("'moves': {e}"))
                    })
                    .collect::<Result<Vec<_>, String>>()?,
                _ => return Err("'moves': a list of moves like b6d4 or 0000".into()),
            };
            if moves.len() > *opponent_turns as usize {
                return Err(format!(
                    "'moves': {} given, the opponent had {opponent_turns} turns",
                    moves.len()
                ));
            }
            rules::AnyAction::SecretChess6(SixAction::TieBreak {
                formation: formation("formation")?,
                moves,
            })
        }
        (Ask::Choose(_), _) => {
            return Err("a move is asked: POST /api/bot/game/{id}/move/{text}".into());
        }
        _ => return Err("this question does not take that answer".into()),
    };
    Ok(action)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rules::Variant;
    use serde_json::json;

    #[test]
    fn setups_are_checked_by_the_rules_before_anything_is_signed() {
        let intrigue = GameOptions::Intrigue;
        let ok = json!({ "king": "e4", "informer": "d2", "queen_on_king_square": true });
        let decoded =
            setup_action(&intrigue, Color::White, &Ask::IntrigueSetup, &ok).expect("valid");
        assert!(matches!(
            decoded,
            rules::AnyAction::Intrigue(rules::intrigue::Action::Setup(s))
                if s.queen_on_king_square && s.informer.to_string() == "d2"
        ));
        // Black's informer must be one of its own pawns (rank 7).
        let bad = json!({ "king": "e4", "informer": "d2" });
        assert!(setup_action(&intrigue, Color::Black, &Ask::IntrigueSetup, &bad).is_err());
        assert!(setup_action(&intrigue, Color::White, &Ask::IntrigueSetup, &json!({})).is_err());

        let six = GameOptions::default_for(Variant::SecretChess6);
        let ask = Ask::Sc6Setup { max_false_squares: 2 };
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
        let tie = Ask::Sc6TieBreak { opponent_turns: 2 };
        let guess = json!({ "formation": "RNBQ1K", "moves": ["b6d4", "0000"] });
        assert!(setup_action(&six, Color::White, &tie, &guess).is_ok());
        let long = json!({ "formation": "RNBQ1K", "moves": ["b6d4", "0000", "0000"] });
        assert!(setup_action(&six, Color::White, &tie, &long).is_err());
        assert!(setup_action(&six, Color::White, &Ask::Choose(vec![]), &guess).is_err());
    }
}

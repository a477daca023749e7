//! 6x6 Secret Chess's free-form questions: the secret setup (R-G1: a formation and false
//! squares) and the tie-break guess (R-G8: the opponent's formation and turns).

use super::{Field, Form, list_field, shuffle, text_field, word_list};
use crate::secretchess6::{Action, Formation, Options, State, TurnMove, territory};
use crate::{AnyAction, Bitboard, BoardSize, Color, Game as _, Role, Square};

/// A shuffled formation of K Q R B N and one empty file.
fn random_formation(below: &mut dyn FnMut(usize) -> usize) -> Formation {
    let mut f = [
        Some(Role::King),
        Some(Role::Queen),
        Some(Role::Rook),
        Some(Role::Bishop),
        Some(Role::Knight),
        None,
    ];
    shuffle(&mut f, below);
    Formation::new(f).expect("a shuffle of K Q R B N and one empty file is a formation")
}

/// A shuffled formation and 0 to `max_false_squares` distinct false squares in the enemy
/// territory.
pub(super) fn random_setup(
    side: Color,
    max_false_squares: usize,
    below: &mut dyn FnMut(usize) -> usize,
) -> AnyAction {
    let formation = random_formation(below);
    let mut squares: Vec<Square> =
        territory(!side).filter(|s| BoardSize::Six.contains(*s)).collect();
    shuffle(&mut squares, below);
    let n = below(max_false_squares + 1);
    let false_squares = squares.iter().take(n).copied().collect();
    AnyAction::SecretChess6(Action::Setup { formation, false_squares })
}

/// A shuffled formation and a pass for each of the opponent's turns.
pub(super) fn random_tie_break(
    opponent_turns: u32,
    below: &mut dyn FnMut(usize) -> usize,
) -> AnyAction {
    let formation = random_formation(below);
    let moves = vec![TurnMove::Pass; opponent_turns as usize];
    AnyAction::SecretChess6(Action::TieBreak { formation, moves })
}

fn formation_field(form: &Form, field: &str) -> Result<Formation, String> {
    let text = text_field(form, field, || format!("'{field}': six files, like NBKQ1R"))?;
    Formation::parse(text).map_err(|e| format!("'{field}': {e}"))
}

/// `formation` and `false_squares`, checked by the rules of `options` for `side`.
pub(super) fn parse_setup(
    options: Options,
    side: Color,
    max_false_squares: usize,
    form: &Form,
) -> Result<AnyAction, String> {
    const LIST: &str = "'false_squares': a list of square names";
    let list = list_field(form, "false_squares", LIST)?;
    let mut false_squares = Bitboard::EMPTY;
    for v in list {
        let text = v.text().ok_or(LIST)?;
        let sq = Square::parse(text, BoardSize::Six)
            .ok_or_else(|| format!("'false_squares': '{text}' is not a 6x6 square"))?;
        if false_squares.contains(sq) {
            return Err(format!("'false_squares': {sq} is given twice"));
        }
        false_squares.insert(sq);
    }
    if list.len() > max_false_squares {
        return Err(format!("at most {max_false_squares} false squares"));
    }
    let a = Action::Setup { formation: formation_field(form, "formation")?, false_squares };
    State::new(options).apply(side, &a).map_err(|e| e.to_string())?;
    Ok(AnyAction::SecretChess6(a))
}

/// `formation` and `moves`, the guess of the opponent's (at most `opponent_turns` moves).
pub(super) fn parse_tie_break(opponent_turns: u32, form: &Form) -> Result<AnyAction, String> {
    const LIST: &str = "'moves': a list of moves like b6d4 or 0000";
    let moves = list_field(form, "moves", LIST)?
        .iter()
        .map(|m| {
            let t = m.text().ok_or(LIST)?;
            TurnMove::parse(t).map_err(|e| format!("'moves': {e}"))
        })
        .collect::<Result<Vec<_>, String>>()?;
    if moves.len() > opponent_turns as usize {
        return Err(format!(
            "'moves': {} given, the opponent had {opponent_turns} turns",
            moves.len()
        ));
    }
    Ok(AnyAction::SecretChess6(Action::TieBreak {
        formation: formation_field(form, "formation")?,
        moves,
    }))
}

/// `FORMATION [FALSE-SQUARE…]`.
pub(super) fn setup_form_from_words(words: &[&str]) -> Result<Form, String> {
    formation_then(words, "false_squares", "expected a formation like NBKQ1R, then false squares")
}

/// `FORMATION [MOVE…]`.
pub(super) fn tie_break_form_from_words(words: &[&str]) -> Result<Form, String> {
    formation_then(words, "moves", "expected a formation like RNBQ1K, then moves")
}

/// `FORMATION [WORD…]`: the formation, then the words as the list field `list`; `expected`
/// when no word is given.
fn formation_then(words: &[&str], list: &str, expected: &str) -> Result<Form, String> {
    let [formation, rest @ ..] = words else {
        return Err(expected.into());
    };
    let mut form = Form::new();
    form.insert("formation", Field::Text((*formation).to_string()));
    form.insert(list, word_list(rest));
    Ok(form)
}

pub(super) fn setup_prompt(max_false_squares: usize) -> String {
    format!(
        "setup: secretchess6 {max_false_squares}\nYour formation (files a to f: K Q R B N \
         once each and 1 for the empty file) and up to {max_false_squares} false squares in \
         the enemy territory (e.g. 'NBKQ1R b5 e6'):"
    )
}

pub(super) fn tie_break_prompt(opponent_turns: u32) -> String {
    format!(
        "tiebreak: secretchess6 {opponent_turns}\nScores are level. Guess the opponent's \
         formation, then optionally its {opponent_turns} turns in order, 0000 for a pass \
         (e.g. 'RNBQ1K b6d4 0000'):"
    )
}

//! Intrigue's secret setup asked (R-I1): the king's hiding square, the informer pawn and the
//! queen's public choice.

use super::{Field, Form, text_field};
use crate::intrigue::{Action, Setup, State};
use crate::{AnyAction, BoardSize, Color, Game as _, Square};

/// A hiding square among all 64, an informer among `side`'s eight pawns, the queen on either
/// square.
pub(super) fn random(side: Color, below: &mut dyn FnMut(usize) -> usize) -> AnyAction {
    let king = Square::from_index(below(64) as u8).expect("below 64");
    let file = below(8) as u8;
    let informer = Square::new(file, side.fold(1, 6)).expect("a pawn square");
    let queen_on_king_square = below(2) == 1;
    AnyAction::Intrigue(Action::Setup(Setup { king, informer, queen_on_king_square }))
}

fn square_field(form: &Form, field: &str) -> Result<Square, String> {
    let text = text_field(form, field, || format!("'{field}': a square name"))?;
    Square::parse(text, BoardSize::Eight)
        .ok_or_else(|| format!("'{field}': '{text}' is not a square"))
}

/// `king`, `informer`, `queen_on_king_square`, checked by the rules for `side`.
pub(super) fn parse(side: Color, form: &Form) -> Result<AnyAction, String> {
    let setup = Setup {
        king: square_field(form, "king")?,
        informer: square_field(form, "informer")?,
        queen_on_king_square: match form.get("queen_on_king_square") {
            Field::Missing => false,
            Field::Flag(b) => *b,
            _ => return Err("'queen_on_king_square': true or false".into()),
        },
    };
    let a = Action::Setup(setup);
    State::new().apply(side, &a).map_err(|e| e.to_string())?;
    Ok(AnyAction::Intrigue(a))
}

/// `KING INFORMER [queen]`.
pub(super) fn form_from_words(words: &[&str]) -> Result<Form, String> {
    let [king, informer, rest @ ..] = words else {
        return Err("expected the king's square and the informer's square, like 'e1 d2'".into());
    };
    let queen = match rest {
        [] => false,
        ["queen" | "yes" | "q"] => true,
        _ => return Err("after the two squares only 'queen' may follow".into()),
    };
    let mut form = Form::new();
    form.insert("king", Field::Text((*king).to_string()));
    form.insert("informer", Field::Text((*informer).to_string()));
    form.insert("queen_on_king_square", Field::Flag(queen));
    Ok(form)
}

/// The example is the asker's own: an informer among its own pawns (R-I1).
pub(super) fn prompt(side: Color) -> String {
    let (rank, example) = match side {
        Color::Black => (7, "'e8 d7' or 'c3 f7 queen'"),
        Color::White => (2, "'e1 d2' or 'c6 f2 queen'"),
    };
    format!(
        "setup: intrigue\nYour secret setup: the king's hiding square (any square), your \
         informer pawn's square (on rank {rank}), and 'queen' to start the queen on the \
         king's square (e.g. {example}):"
    )
}

//! The free-form questions a player answers with a secret of its own rather than by picking one
//! of the legal actions: a game's secret setup (Intrigue's R-I1, 6x6's R-G1) and 6x6's tie-break
//! guess (R-G8). [`SetupAsk`] holds the question with its parameters and knows, for every game
//! that has one, everything about it outside the wire and the match flow:
//! - when it is asked: [`GameOptions::setup_ask`] (once a side knows its color) and
//!   [`Seat::free_form_ask`] (later, in play);
//! - a random answer the rules accept ([`SetupAsk::random_answer`], the random bot's);
//! - the answer from a form of named fields ([`SetupAsk::parse_answer`]: the pages' JSON, the
//!   terminal's words through [`SetupAsk::form_from_words`]), checked by the rules, with the
//!   errors a person reads;
//! - its names: [`SetupAsk::kind_name`] (the pages' ask kind) and [`SetupAsk::prompt`] (the
//!   terminal's question).
//!
//! So the player machine, the bots, the local API and the terminal ask and answer generically;
//! a new game with a secret setup adds an arm here and its own file in this folder.

mod intrigue;
mod secretchess6;

use crate::seat::Seat;
use crate::{AnyAction, Color, GameOptions};
use rand_chacha::ChaCha20Rng;
use rand_chacha::rand_core::Rng;
use std::collections::BTreeMap;

/// A free-form question: a secret setup or a tie-break guess, with what its game needs to know.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetupAsk {
    /// Intrigue's secret setup (R-I1): answered by an `AnyAction::Intrigue` holding an
    /// `intrigue::Action::Setup`.
    Intrigue,
    /// 6x6's secret setup (R-G1): answered by an `AnyAction::SecretChess6` holding a
    /// `secretchess6::Action::Setup` with at most `max_false_squares` false squares.
    SecretChess6 {
        /// 2, or 3 with the False Square item (R-G9).
        max_false_squares: usize,
    },
    /// 6x6's tie-break (R-G8): answered by an `AnyAction::SecretChess6` holding a
    /// `secretchess6::Action::TieBreak` guessing at most `opponent_turns` turns.
    SecretChess6TieBreak {
        /// How many turns the opponent had.
        opponent_turns: u32,
    },
}

/// One field of an answer's form, as typed: the pages' JSON values, the terminal's words.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Field {
    /// Not given (or JSON `null`).
    #[default]
    Missing,
    /// A text (a square, a formation, a move).
    Text(String),
    /// Yes or no.
    Flag(bool),
    /// A list of fields.
    List(Vec<Field>),
    /// Anything else (a number, an object): wrong wherever it is given.
    Other,
}

impl Field {
    fn text(&self) -> Option<&str> {
        match self {
            Field::Text(t) => Some(t),
            _ => None,
        }
    }
}

/// An answer's named fields ([`SetupAsk::parse_answer`] documents each question's).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Form {
    fields: BTreeMap<String, Field>,
}

impl Form {
    /// An empty form.
    #[must_use]
    pub fn new() -> Form {
        Form::default()
    }

    /// Sets `name` to `value`.
    pub fn insert(&mut self, name: &str, value: Field) {
        self.fields.insert(name.to_string(), value);
    }

    /// The field `name` ([`Field::Missing`] if not given).
    #[must_use]
    pub fn get(&self, name: &str) -> &Field {
        self.fields.get(name).unwrap_or(&Field::Missing)
    }

    /// Every field given, by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Field)> {
        self.fields.iter().map(|(k, v)| (k.as_str(), v))
    }
}

impl SetupAsk {
    /// What the pages call the question (their ask's `kind`): `intrigue-setup`,
    /// `secretchess6-setup`, `secretchess6-tiebreak`.
    #[must_use]
    pub fn kind_name(&self) -> &'static str {
        match self {
            SetupAsk::Intrigue => "intrigue-setup",
            SetupAsk::SecretChess6 { .. } => "secretchess6-setup",
            SetupAsk::SecretChess6TieBreak { .. } => "secretchess6-tiebreak",
        }
    }

    /// The most false squares a 6x6 setup may name (`None` for other questions).
    #[must_use]
    pub fn max_false_squares(&self) -> Option<usize> {
        match self {
            SetupAsk::SecretChess6 { max_false_squares } => Some(*max_false_squares),
            _ => None,
        }
    }

    /// How many turns the opponent had, for a 6x6 tie-break (`None` for other questions).
    #[must_use]
    pub fn opponent_turns(&self) -> Option<u32> {
        match self {
            SetupAsk::SecretChess6TieBreak { opponent_turns } => Some(*opponent_turns),
            _ => None,
        }
    }

    /// A random answer that `side`'s rules accept, drawn from `rng` only (the same stream
    /// gives the same answer), as the random bot plays:
    /// - Intrigue (R-I1): a hiding square among all 64, an informer among its eight pawns, the
    ///   queen on either square;
    /// - 6x6 setup (R-G1): a shuffled formation of K Q R B N and one empty square, and 0 to
    ///   `max_false_squares` distinct false squares in the enemy territory;
    /// - 6x6 tie-break (R-G8): a shuffled formation and a pass (`0000`) for each opponent turn.
    pub fn random_answer(&self, side: Color, rng: &mut ChaCha20Rng) -> AnyAction {
        let mut below = |n: usize| below(rng, n);
        match *self {
            SetupAsk::Intrigue => intrigue::random(side, &mut below),
            SetupAsk::SecretChess6 { max_false_squares } => {
                secretchess6::random_setup(side, max_false_squares, &mut below)
            }
            SetupAsk::SecretChess6TieBreak { opponent_turns } => {
                secretchess6::random_tie_break(opponent_turns, &mut below)
            }
        }
    }

    /// The answer in `form`, checked by the rules of `options` for `side` before anything is
    /// signed; the error is a line for a person. The fields:
    /// - Intrigue setup (R-I1): `king` and `informer` squares, `queen_on_king_square` (a flag,
    ///   no by default);
    /// - 6x6 setup (R-G1): `formation` (files a to f, `1` for the empty file, like `NBKQ1R`)
    ///   and `false_squares`, a list of squares (at most the number asked);
    /// - 6x6 tie-break (R-G8): `formation`, the guess of the opponent's formation, and `moves`,
    ///   of its turns in order (`b6d4`, `0000` for a pass; as many as it had at most).
    pub fn parse_answer(
        &self,
        options: &GameOptions,
        side: Color,
        form: &Form,
    ) -> Result<AnyAction, String> {
        match (*self, options) {
            (SetupAsk::Intrigue, GameOptions::Intrigue) => intrigue::parse(side, form),
            (SetupAsk::SecretChess6 { max_false_squares }, GameOptions::SecretChess6(o)) => {
                secretchess6::parse_setup(*o, side, max_false_squares, form)
            }
            (SetupAsk::SecretChess6TieBreak { opponent_turns }, GameOptions::SecretChess6(_)) => {
                secretchess6::parse_tie_break(opponent_turns, form)
            }
            _ => Err("this question does not take that answer".into()),
        }
    }

    /// The form of a line of words the terminal reads (the order [`SetupAsk::prompt`] shows),
    /// for [`SetupAsk::parse_answer`]; the error says what was expected.
    pub fn form_from_words(&self, words: &[&str]) -> Result<Form, String> {
        match self {
            SetupAsk::Intrigue => intrigue::form_from_words(words),
            SetupAsk::SecretChess6 { .. } => secretchess6::setup_form_from_words(words),
            SetupAsk::SecretChess6TieBreak { .. } => secretchess6::tie_break_form_from_words(words),
        }
    }

    /// The terminal's question to `side`: one line a script can read (`setup: intrigue`,
    /// `setup: secretchess6 N`, `tiebreak: secretchess6 N`), then the prompt.
    #[must_use]
    pub fn prompt(&self, side: Color) -> String {
        match *self {
            SetupAsk::Intrigue => intrigue::prompt(side),
            SetupAsk::SecretChess6 { max_false_squares } => {
                secretchess6::setup_prompt(max_false_squares)
            }
            SetupAsk::SecretChess6TieBreak { opponent_turns } => {
                secretchess6::tie_break_prompt(opponent_turns)
            }
        }
    }
}

impl GameOptions {
    /// The secret setup `side` is asked once it knows its color, for a game whose players
    /// choose one (Intrigue, 6x6); `None` otherwise (SIC's secret armies are drawn, not
    /// chosen, though `Variant::has_secret_setup` counts them).
    #[must_use]
    pub fn setup_ask(&self, side: Color) -> Option<SetupAsk> {
        match self {
            GameOptions::Intrigue => Some(SetupAsk::Intrigue),
            GameOptions::SecretChess6(o) => Some(SetupAsk::SecretChess6 {
                max_false_squares: 2 + usize::from(o.false_square[side]),
            }),
            GameOptions::Chess
            | GameOptions::Kriegspiel(_)
            | GameOptions::Sic(_)
            | GameOptions::Espionage => None,
        }
    }
}

impl Seat {
    /// The free-form question this seat must answer now instead of picking an action (6x6's
    /// tie-break, R-G8), if any.
    #[must_use]
    pub fn free_form_ask(&self) -> Option<SetupAsk> {
        self.tie_break_turns()
            .map(|opponent_turns| SetupAsk::SecretChess6TieBreak { opponent_turns })
    }
}

/// A number in `0..n` (`n > 0`) from `rng`; the tiny modulo bias does not matter to a bot.
fn below(rng: &mut ChaCha20Rng, n: usize) -> usize {
    (rng.next_u64() % n as u64) as usize
}

/// Shuffles `v` in place (Fisher-Yates), drawing from `below`.
fn shuffle<T>(v: &mut [T], below: &mut dyn FnMut(usize) -> usize) {
    for i in (1..v.len()).rev() {
        let j = below(i + 1);
        v.swap(i, j);
    }
}

/// A field that must be a text: its text, else `error`.
fn text_field<'a>(
    form: &'a Form,
    name: &str,
    error: impl FnOnce() -> String,
) -> Result<&'a str, String> {
    form.get(name).text().ok_or_else(error)
}

/// The fields of a list field (none when missing), else `error`.
fn list_field<'a>(form: &'a Form, name: &str, error: &str) -> Result<&'a [Field], String> {
    match form.get(name) {
        Field::Missing => Ok(&[]),
        Field::List(v) => Ok(v),
        _ => Err(error.to_string()),
    }
}

/// A list field of `words`, as texts.
fn word_list(words: &[&str]) -> Field {
    Field::List(words.iter().map(|w| Field::Text((*w).to_string())).collect())
}

#[cfg(test)]
mod tests;

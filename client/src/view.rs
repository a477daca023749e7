//! What a player is shown, as text: each offered action's UCI-style text, what a question asks,
//! and a plain-text drawing of a seat's view ([`SeatView`]) for the terminal.
//!
//! Only the seat's own knowledge is drawn (its board string with `*` fog and `?` enemy men of
//! unknown kind, what it was told): nothing here can show hidden truth, since nothing here is
//! given any.
//!
//! Action texts: a move is its UCI text (`e2e4`, `e7e8q`, the game's promotion letters); a 6x6
//! move is its turn-move text (`b1d3`, a powering knight move `b1c4+`); a 6x6 Life Freeze is
//! `freeze-c2` (R-G9) and ending the turn without one `end-turn`.

use protocol::roles::Ask;
use rules::seat::SeatView;
use rules::{AnyAction, Color, Variant};
use std::fmt::Write as _;

/// The texts of the actions a question offers, with the actions, in the order offered (empty
/// for the free-form questions). An action without a text (a setup, never offered in a list)
/// is left out.
pub fn offered(ask: &Ask) -> Vec<(String, AnyAction)> {
    let Ask::Choose(options) = ask else { return Vec::new() };
    options.iter().filter_map(|a| Some((a.text()?, a.clone()))).collect()
}

/// What a question asks, as a short name: `move` (the legal moves), `attempt` (Kriegspiel: the
/// attempts its own men allow), or a free-form question's
/// ([`rules::setup_ask::SetupAsk::kind_name`]).
pub fn ask_kind(variant: Variant, ask: &Ask) -> &'static str {
    match ask {
        Ask::Choose(_) if variant == Variant::Kriegspiel => "attempt",
        Ask::Choose(_) => "move",
        Ask::Setup(setup) => setup.kind_name(),
    }
}

fn side_name(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// Intrigue before the setups: the seat has no position yet (its board string is `-`), but all
/// of it is public except each king's hiding square, its informer and where its queen starts
/// (R-I1): both armies without kings, each queen drawn on its own square.
const INTRIGUE_BEFORE_SETUP: &str = "rnbq1bnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1BNR";

/// The board of a seat's view, from its side: `.` known empty, `*` fog (nothing known), `?` an
/// enemy man of unknown kind, letters for men (upper case White), files and ranks labelled.
pub fn board_text(view: &SeatView) -> String {
    let size = view.variant.board_size();
    let w = usize::from(size.width());
    let mut field = view.board.split_whitespace().next().unwrap_or("");
    if field == "-" && view.variant == Variant::Intrigue {
        field = INTRIGUE_BEFORE_SETUP;
    }
    // Rows from the top rank down, as the string has them.
    let mut rows: Vec<Vec<char>> = Vec::new();
    for rank in field.split('/') {
        let mut row = Vec::new();
        for c in rank.chars() {
            match c.to_digit(10) {
                Some(d) => row.extend(std::iter::repeat_n('.', d as usize)),
                None => row.push(c),
            }
        }
        row.resize(w, ' ');
        rows.push(row);
    }
    rows.resize(w, vec![' '; w]);
    let files: Vec<char> = (0..w).map(|f| char::from(b'a' + f as u8)).collect();
    let (rank_order, file_order): (Vec<usize>, Vec<usize>) = match view.side {
        Color::White => ((0..w).collect(), (0..w).collect()),
        Color::Black => ((0..w).rev().collect(), (0..w).rev().collect()),
    };
    let mut out = String::new();
    for r in rank_order {
        let _ = write!(out, "{} ", w - r);
        for f in &file_order {
            let _ = write!(out, " {}", rows[r][*f]);
        }
        out.push('\n');
    }
    out.push_str("  ");
    for f in &file_order {
        let _ = write!(out, " {}", files[*f]);
    }
    out.push('\n');
    out
}

/// Everything the seat knows, drawn as plain text: the board, then what the game tells it.
pub fn render(view: &SeatView) -> String {
    let mut out = board_text(view);
    let me = view.side;
    let _ = writeln!(out, "You are {} ({}).", side_name(me), view.variant);
    out.push_str(&view.knows_text());
    if let Some(r) = &view.result {
        let who = r.winner.map_or("draw".to_owned(), |c| format!("{} wins", side_name(c)));
        let _ = writeln!(out, "Game over: {} ({who}, {}).", r.score(), r.reason.name());
    } else if view.to_act.contains(&me) {
        let _ = writeln!(out, "Your turn.");
    } else if !view.to_act.is_empty() {
        let _ = writeln!(out, "Waiting for {}.", side_name(!me));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use rules::GameOptions;
    use rules::Square;
    use rules::seat::Seat;
    use rules::secretchess6::Action as SixAction;

    #[test]
    fn an_intrigue_view_before_the_setups_draws_both_armies_without_kings_and_no_dash() {
        for side in [Color::White, Color::Black] {
            let view = Seat::new(&GameOptions::default_for(Variant::Intrigue), side).view();
            assert_eq!(view.board, "-", "no position before the setups");
            let text = render(&view);
            let lines: Vec<&str> = text.lines().collect();
            assert!(!lines.iter().take(9).any(|l| l.contains('-')), "{text}");
            let (top, bottom, files) = match side {
                Color::White => ("8  r n b q . b n r", "1  R N B Q . B N R", "   a b c d e f g h"),
                Color::Black => ("1  R N B . Q B N R", "8  r n b . q b n r", "   h g f e d c b a"),
            };
            assert_eq!((lines[0], lines[7], lines[8]), (top, bottom, files), "{text}");
            assert!(text.contains("Before the setups: both kings hide off the board"), "{text}");
        }
    }

    #[test]
    fn a_kriegspiel_view_draws_own_men_and_fog_only_from_its_side() {
        let seat = Seat::new(&GameOptions::default_for(Variant::Kriegspiel), Color::Black);
        let text = render(&seat.view());
        let lines: Vec<&str> = text.lines().collect();
        // Black sees its own back rank at the top (rank 1 is drawn last), from h to a.
        assert_eq!(lines[0], "1  * * * * * * * *");
        assert_eq!(lines[7], "8  r n b k q b n r");
        assert_eq!(lines[8], "   h g f e d c b a");
        assert!(!text.contains('P'), "no White man is ever shown to Black: {text}");
        assert!(text.contains("You are Black (kriegspiel)."));
    }

    #[test]
    fn offered_actions_have_texts_and_kinds() {
        let seat = Seat::new(&GameOptions::Chess, Color::White);
        let ask = Ask::Choose(seat.legal_actions());
        let texts: Vec<String> = offered(&ask).into_iter().map(|(t, _)| t).collect();
        assert_eq!(texts.len(), 20);
        assert!(texts.contains(&"e2e4".to_owned()) && texts.contains(&"g1f3".to_owned()));
        assert_eq!(ask_kind(Variant::Kriegspiel, &ask), "attempt");
        assert_eq!(ask_kind(Variant::Chess, &ask), "move");
        let freeze = AnyAction::SecretChess6(SixAction::LifeFreeze {
            piece: Square::parse("c2", rules::BoardSize::Six).expect("a square"),
        });
        assert_eq!(freeze.text().as_deref(), Some("freeze-c2"));
        assert_eq!(AnyAction::SecretChess6(SixAction::EndTurn).text().as_deref(), Some("end-turn"));
    }
}

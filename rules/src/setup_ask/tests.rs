//! Tests of [`SetupAsk`]: which games ask, random answers the rules accept, forms read with
//! the same error texts, the terminal's words and prompts.

use super::*;
use crate::secretchess6::{self, Action as SixAction, TurnMove};
use crate::{ByColor, Game as _, Variant};
use rand_chacha::rand_core::SeedableRng;

fn six(false_square: ByColor<bool>) -> GameOptions {
    GameOptions::SecretChess6(secretchess6::Options { false_square, ..Default::default() })
}

fn form(fields: &[(&str, Field)]) -> Form {
    let mut f = Form::new();
    for (name, value) in fields {
        f.insert(name, value.clone());
    }
    f
}

fn text(t: &str) -> Field {
    Field::Text(t.into())
}

fn texts(ts: &[&str]) -> Field {
    word_list(ts)
}

#[test]
fn a_game_with_a_chosen_secret_setup_asks_one_and_no_other_does() {
    let mut asked = Vec::new();
    for v in Variant::ALL {
        let asks = Color::ALL.map(|side| GameOptions::default_for(v).setup_ask(side));
        assert_eq!(asks[0].is_some(), asks[1].is_some(), "{v}: both sides or neither");
        if asks[0].is_some() {
            assert!(v.has_secret_setup(), "{v} is asked a setup without having one");
            asked.push(v);
        }
    }
    // SIC's secret armies are drawn from the players' seeds (R-S2), never chosen: no question.
    assert_eq!(asked, [Variant::Intrigue, Variant::SecretChess6]);
    // The False Square item allows one more, to its holder only (R-G9).
    let o = six(ByColor { white: false, black: true });
    assert_eq!(o.setup_ask(Color::White), Some(SetupAsk::SecretChess6 { max_false_squares: 2 }));
    assert_eq!(o.setup_ask(Color::Black), Some(SetupAsk::SecretChess6 { max_false_squares: 3 }));
    assert_eq!(GameOptions::Intrigue.setup_ask(Color::Black), Some(SetupAsk::Intrigue));
}

#[test]
fn the_pages_names_and_parameters() {
    let setup = SetupAsk::SecretChess6 { max_false_squares: 3 };
    let tie = SetupAsk::SecretChess6TieBreak { opponent_turns: 4 };
    assert_eq!(SetupAsk::Intrigue.kind_name(), "intrigue-setup");
    assert_eq!(setup.kind_name(), "secretchess6-setup");
    assert_eq!(tie.kind_name(), "secretchess6-tiebreak");
    assert_eq!((setup.max_false_squares(), setup.opponent_turns()), (Some(3), None));
    assert_eq!((tie.max_false_squares(), tie.opponent_turns()), (None, Some(4)));
    assert_eq!(SetupAsk::Intrigue.max_false_squares(), None);
    assert_eq!(SetupAsk::Intrigue.opponent_turns(), None);
}

#[test]
fn random_setups_are_accepted_by_the_rules_for_every_side_and_allowance() {
    let mut rng = ChaCha20Rng::from_seed([7; 32]);
    let mut false_counts = std::collections::BTreeSet::new();
    for _ in 0..200 {
        for side in Color::ALL {
            let a = SetupAsk::Intrigue.random_answer(side, &mut rng);
            let AnyAction::Intrigue(action) = &a else { panic!("not Intrigue's: {a:?}") };
            crate::intrigue::State::new().apply(side, action).expect("Intrigue accepts it");
            for item in [false, true] {
                let options = six(ByColor { white: item, black: item });
                let ask = options.setup_ask(side).expect("6x6 has a setup");
                let a = ask.random_answer(side, &mut rng);
                let AnyAction::SecretChess6(action) = &a else { panic!("not 6x6's: {a:?}") };
                let GameOptions::SecretChess6(o) = options else { unreachable!() };
                secretchess6::State::new(o).apply(side, action).expect("6x6 accepts it");
                if let SixAction::Setup { false_squares, .. } = action {
                    false_counts.insert((item, false_squares.count()));
                }
            }
        }
    }
    // Every allowance is drawn, up to the most allowed and no further.
    let expected = [0, 1, 2].map(|n| (false, n)).into_iter().chain([0, 1, 2, 3].map(|n| (true, n)));
    assert_eq!(false_counts, expected.collect());
}

#[test]
fn random_tie_breaks_guess_a_formation_and_a_pass_per_turn_and_parse_back() {
    let mut rng = ChaCha20Rng::from_seed([9; 32]);
    for turns in [0, 1, 5] {
        let ask = SetupAsk::SecretChess6TieBreak { opponent_turns: turns };
        let a = ask.random_answer(Color::Black, &mut rng);
        let AnyAction::SecretChess6(SixAction::TieBreak { formation, moves }) = &a else {
            panic!("not a tie-break: {a:?}")
        };
        assert_eq!(moves, &vec![TurnMove::Pass; turns as usize]);
        // What the bot plays, a person could type.
        let line = std::iter::once(formation.to_string())
            .chain(moves.iter().map(ToString::to_string))
            .collect::<Vec<_>>();
        let words: Vec<&str> = line.iter().map(String::as_str).collect();
        let f = ask.form_from_words(&words).expect("a formation and moves");
        let parsed = ask.parse_answer(&six(ByColor::default()), Color::Black, &f);
        assert_eq!(parsed, Ok(a));
    }
}

#[test]
fn random_answers_follow_the_stream_only() {
    let asks = [
        SetupAsk::Intrigue,
        SetupAsk::SecretChess6 { max_false_squares: 3 },
        SetupAsk::SecretChess6TieBreak { opponent_turns: 2 },
    ];
    for ask in asks {
        let draw = |seed| ask.random_answer(Color::White, &mut ChaCha20Rng::from_seed([seed; 32]));
        assert_eq!(draw(1), draw(1), "{ask:?}");
        assert!((2..20).any(|s| draw(s) != draw(1)), "{ask:?} never varies");
    }
}

#[test]
fn intrigue_answers_are_checked_with_the_same_texts() {
    let ask = SetupAsk::Intrigue;
    let o = GameOptions::Intrigue;
    let ok = form(&[
        ("king", text("e4")),
        ("informer", text("d2")),
        ("queen_on_king_square", Field::Flag(true)),
    ]);
    let a = ask.parse_answer(&o, Color::White, &ok).expect("valid");
    assert!(matches!(
        a,
        AnyAction::Intrigue(crate::intrigue::Action::Setup(s))
            if s.queen_on_king_square && s.informer.to_string() == "d2" && s.king.to_string() == "e4"
    ));
    let cases = [
        (form(&[]), "'king': a square name"),
        (form(&[("king", text("z9"))]), "'king': 'z9' is not a square"),
        (form(&[("king", Field::Other), ("informer", text("d2"))]), "'king': a square name"),
        (form(&[("king", text("e4"))]), "'informer': a square name"),
        (
            form(&[
                ("king", text("e4")),
                ("informer", text("d2")),
                ("queen_on_king_square", text("yes")),
            ]),
            "'queen_on_king_square': true or false",
        ),
    ];
    for (f, error) in cases {
        assert_eq!(ask.parse_answer(&o, Color::White, &f), Err(error.to_string()), "{f:?}");
    }
    // Black's informer must be one of its own pawns (rank 7): the rules say so.
    let black = form(&[("king", text("e4")), ("informer", text("d2"))]);
    assert!(ask.parse_answer(&o, Color::Black, &black).is_err());
    // A question of another game.
    assert_eq!(
        ask.parse_answer(&six(ByColor::default()), Color::White, &ok),
        Err("this question does not take that answer".to_string())
    );
}

#[test]
fn six_by_six_answers_are_checked_with_the_same_texts() {
    let o = six(ByColor::default());
    let ask = SetupAsk::SecretChess6 { max_false_squares: 2 };
    let good = form(&[("formation", text("NBKQ1R")), ("false_squares", texts(&["b5", "e6"]))]);
    assert!(ask.parse_answer(&o, Color::White, &good).is_ok());
    let none = form(&[("formation", text("NBKQ1R"))]);
    assert!(ask.parse_answer(&o, Color::White, &none).is_ok(), "no false squares is fine");
    let setup = |squares: Field, formation: &str| {
        form(&[("formation", text(formation)), ("false_squares", squares)])
    };
    let cases = [
        (setup(texts(&["b5", "e6", "a4"]), "NBKQ1R"), "at most 2 false squares"),
        (setup(texts(&["b5", "b5"]), "NBKQ1R"), "'false_squares': b5 is given twice"),
        (setup(texts(&["g7"]), "NBKQ1R"), "'false_squares': 'g7' is not a 6x6 square"),
        (setup(text("b5"), "NBKQ1R"), "'false_squares': a list of square names"),
        (
            setup(Field::List(vec![Field::Flag(true)]), "NBKQ1R"),
            "'false_squares': a list of square names",
        ),
        (form(&[]), "'formation': six files, like NBKQ1R"),
    ];
    for (f, error) in cases {
        assert_eq!(ask.parse_answer(&o, Color::White, &f), Err(error.to_string()), "{f:?}");
    }
    // The rules refuse what the form allows: a false square in one's own territory, a bad
    // formation.
    for bad in [setup(texts(&["b2"]), "NBKQ1R"), setup(texts(&[]), "NBKQRR")] {
        assert!(ask.parse_answer(&o, Color::White, &bad).is_err(), "{bad:?}");
    }

    let tie = SetupAsk::SecretChess6TieBreak { opponent_turns: 2 };
    let guess = form(&[("formation", text("RNBQ1K")), ("moves", texts(&["b6d4", "0000"]))]);
    assert!(tie.parse_answer(&o, Color::White, &guess).is_ok());
    let long = form(&[("formation", text("RNBQ1K")), ("moves", texts(&["b6d4", "0000", "0000"]))]);
    assert_eq!(
        tie.parse_answer(&o, Color::White, &long),
        Err("'moves': 3 given, the opponent had 2 turns".to_string())
    );
    let odd = form(&[("formation", text("RNBQ1K")), ("moves", Field::Other)]);
    assert_eq!(
        tie.parse_answer(&o, Color::White, &odd),
        Err("'moves': a list of moves like b6d4 or 0000".to_string())
    );
    assert_eq!(
        tie.parse_answer(&GameOptions::Intrigue, Color::White, &guess),
        Err("this question does not take that answer".to_string())
    );
}

#[test]
fn the_terminals_words_and_prompts() {
    let intrigue = SetupAsk::Intrigue;
    let f = intrigue.form_from_words(&["c6", "f2", "queen"]).expect("three words");
    assert_eq!(f.get("queen_on_king_square"), &Field::Flag(true));
    assert_eq!(f.get("king"), &text("c6"));
    assert_eq!(
        intrigue.form_from_words(&["e1"]),
        Err("expected the king's square and the informer's square, like 'e1 d2'".to_string())
    );
    assert_eq!(
        intrigue.form_from_words(&["e1", "d2", "king"]),
        Err("after the two squares only 'queen' may follow".to_string())
    );
    let setup = SetupAsk::SecretChess6 { max_false_squares: 3 };
    assert_eq!(
        setup.form_from_words(&[]),
        Err("expected a formation like NBKQ1R, then false squares".to_string())
    );
    assert_eq!(
        setup.form_from_words(&["NBKQ1R"]).expect("a formation").get("false_squares"),
        &Field::List(vec![])
    );
    let tie = SetupAsk::SecretChess6TieBreak { opponent_turns: 1 };
    assert_eq!(
        tie.form_from_words(&[]),
        Err("expected a formation like RNBQ1K, then moves".to_string())
    );

    assert_eq!(
        intrigue.prompt(Color::Black),
        "setup: intrigue\nYour secret setup: the king's hiding square (any square), your informer \
         pawn's square (on rank 7), and 'queen' to start the queen on the king's square (e.g. \
         'e8 d7' or 'c3 f7 queen'):"
    );
    assert!(intrigue.prompt(Color::White).contains("(on rank 2)"));
    assert_eq!(
        setup.prompt(Color::White),
        "setup: secretchess6 3\nYour formation (files a to f: K Q R B N once each and 1 for the \
         empty file) and up to 3 false squares in the enemy territory (e.g. 'NBKQ1R b5 e6'):"
    );
    assert_eq!(
        tie.prompt(Color::White),
        "tiebreak: secretchess6 1\nScores are level. Guess the opponent's formation, then \
         optionally its 1 turns in order, 0000 for a pass (e.g. 'RNBQ1K b6d4 0000'):"
    );
}

//! Seats (`rules::seat`) against the full state, over seeded random games of every variant.
//!
//! Each side's seat is fed only what that side is told (its own actions, its observations, the
//! public moves and, in Intrigue, the owners' answers and openings), exactly as the player
//! machine feeds it. After every step, the seat's view is checked against the full game:
//! - its board string never shows what the side was not told: every man it shows is one the
//!   full state has there, `?` is always an enemy man, a square shown empty is empty, its own
//!   men are all shown exactly; a Kriegspiel seat shows no enemy man at all (R-K1), a 6x6 seat
//!   nothing of the enemy territory (R-G6), an Intrigue seat exactly the side's view (R-I6);
//! - whose turn it is and the result agree with the full game;
//! - the legal actions it offers are the full game's (Kriegspiel: a superset of them, R-K1).

use rules::seat::{Knows, Seat};
use rules::{
    AnyAction, AnyGame, AnyObservation, BoardSize, ByColor, Color, GameOptions, Piece, Role,
    Square, Variant,
};

/// SplitMix64: every run plays the same games.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<T: Clone>(&mut self, v: &[T]) -> T {
        v[self.below(v.len())].clone()
    }
}

/// The full board of a game in play.
fn full_board(game: &AnyGame) -> Option<rules::Board> {
    Some(match game {
        AnyGame::Chess(s) => s.position().board().clone(),
        AnyGame::Kriegspiel(s) => s.position().board().clone(),
        AnyGame::Sic(s) => s.position().board().clone(),
        AnyGame::Intrigue(s) => s.position()?.board().clone(),
        AnyGame::SecretChess6(s) => s.position()?.board().clone(),
        AnyGame::Espionage(s) => s.position().board().clone(),
    })
}

/// The board field of a seat's board string, square by square (`None`: known empty).
fn cells(board: &str, size: BoardSize) -> Vec<(Square, char)> {
    let field = board.split(' ').next().expect("a board field");
    let w = size.width();
    let mut out = Vec::new();
    for (i, rank_text) in field.split('/').enumerate() {
        let rank = w - 1 - u8::try_from(i).expect("few ranks");
        let mut file = 0u8;
        for c in rank_text.chars() {
            if let Some(n) = c.to_digit(10) {
                for _ in 0..n {
                    out.push((Square::new(file, rank).expect("on the board"), '.'));
                    file += 1;
                }
            } else {
                out.push((Square::new(file, rank).expect("on the board"), c));
                file += 1;
            }
        }
        assert_eq!(file, w, "rank {} of {board}", rank + 1);
    }
    assert_eq!(out.len(), usize::from(w) * usize::from(w), "{board}");
    out
}

/// Checks one seat against the full game (see the module docs).
fn check(seat: &Seat, game: &AnyGame, variant: Variant, context: &str) {
    let me = seat.side();
    let view = seat.view();
    let ctx = format!("{variant} {me} {context}: seat {}", view.board);
    if let (AnyGame::Intrigue(s), Knows::Intrigue(k)) = (game, &view.knows) {
        if k.setup.is_some() && k.opponent_queen_on_king_square.is_some() {
            let truth = s.view(me).expect("play has begun").fen;
            assert_eq!(view.board, truth, "{ctx}");
        }
    } else if let Some(board) = full_board(game) {
        // A 6x6 position is taken after the side to move's lifespan reduction (R-G3), which
        // that side is shown only with its board update: until then its men about to die are
        // still its men.
        let unshown_turn = match (game, &view.knows) {
            (AnyGame::SecretChess6(s), Knows::SecretChess6(k)) => {
                s.position().is_some_and(|p| p.side() == me && p.turn() > k.turn)
            }
            _ => false,
        };
        let size = variant.board_size();
        let alphabet = variant.alphabet();
        for (sq, c) in cells(&view.board, size) {
            let truth = board.piece_at(sq);
            let own = truth.is_some_and(|p| p.color == me);
            if unshown_turn && (own || truth.is_none()) {
                continue;
            }
            match c {
                '.' => assert_eq!(truth, None, "{ctx}: {sq} shown empty"),
                '*' => assert!(!own, "{ctx}: own man on {sq} hidden"),
                '?' => assert!(truth.is_some_and(|p| p.color != me), "{ctx}: {sq} is no enemy"),
                letter => {
                    let shown: Option<Piece> = alphabet.piece(letter);
                    assert_eq!(shown, truth, "{ctx}: {sq}");
                }
            }
            match variant {
                Variant::Kriegspiel => assert!(c == '*' || own, "{ctx}: {sq} {c}: R-K1"),
                Variant::SecretChess6 if rules::secretchess6::territory(!me).contains(sq) => {
                    assert_eq!(c, '*', "{ctx}: {sq} in the enemy territory (R-G6)");
                }
                _ => {}
            }
        }
    }
    let started = match (game, &view.knows) {
        (AnyGame::SecretChess6(s), _) => s.position().is_some(),
        (AnyGame::Intrigue(s), _) => s.position().is_some(),
        _ => true,
    };
    if started {
        assert_eq!(seat.result(), game.result(), "{ctx}: result");
        assert_eq!(seat.my_turn(), game.to_act().contains(&me), "{ctx}: turn");
    }
    if seat.my_turn() && game.to_act() == vec![me] {
        let ours = seat.legal_actions();
        let theirs = game.legal_actions();
        for a in &theirs {
            assert!(ours.contains(a), "{ctx}: legal {a:?} not offered");
        }
        // Kriegspiel offers attempts beyond the legal moves (R-K1); the others offer exactly
        // the legal actions (6x6 Life Freeze choices in the order of its last board update).
        if variant != Variant::Kriegspiel {
            assert_eq!(ours.len(), theirs.len(), "{ctx}: legal actions {ours:?}");
        }
    }
}

/// A random secret setup or tie-break for `side`, or a random legal action from its seat.
fn choose(rng: &mut Rng, game: &AnyGame, seat: &Seat, side: Color) -> Option<AnyAction> {
    use rules::secretchess6::{Action as Six, Formation, TurnMove, territory};
    let shuffled_formation = |rng: &mut Rng| {
        let mut files = [
            Some(Role::King),
            Some(Role::Queen),
            Some(Role::Rook),
            Some(Role::Bishop),
            Some(Role::Knight),
            None,
        ];
        for i in (1..6).rev() {
            files.swap(i, rng.below(i + 1));
        }
        Formation::new(files).expect("a shuffle is a formation")
    };
    match game {
        AnyGame::Intrigue(s) if s.position().is_none() => {
            let setup = rules::intrigue::Setup {
                king: Square::from_index(u8::try_from(rng.below(64)).ok()?)?,
                informer: Square::new(u8::try_from(rng.below(8)).ok()?, side.fold(1, 6))?,
                queen_on_king_square: rng.below(2) == 1,
            };
            return Some(AnyAction::Intrigue(rules::intrigue::Action::Setup(setup)));
        }
        AnyGame::SecretChess6(s) if s.position().is_none() => {
            let mut squares: Vec<Square> = territory(!side).collect();
            let n = rng.below(3);
            let mut falses = rules::Bitboard::EMPTY;
            for _ in 0..n {
                falses.insert(squares.swap_remove(rng.below(squares.len())));
            }
            let formation = shuffled_formation(rng);
            return Some(AnyAction::SecretChess6(Six::Setup { formation, false_squares: falses }));
        }
        _ => {}
    }
    if let Some(turns) = seat.tie_break_turns() {
        let moves = vec![TurnMove::Pass; turns as usize];
        let formation = shuffled_formation(rng);
        return Some(AnyAction::SecretChess6(Six::TieBreak { formation, moves }));
    }
    let legal = seat.legal_actions();
    (!legal.is_empty()).then(|| rng.pick(&legal))
}

/// Plays one game; returns the number of steps checked.
fn play(variant: Variant, options: GameOptions, seed: u64, max_steps: usize) -> usize {
    let mut rng = Rng(seed);
    let seeds = (variant == Variant::Sic).then(|| {
        let mut s = [[0u8; 32]; 2];
        for b in s.iter_mut().flatten() {
            *b = rng.next() as u8;
        }
        ByColor { white: s[0], black: s[1] }
    });
    let mut game = AnyGame::start(&options, seeds.as_ref()).expect("a game");
    let mut seats = rules::seat::Seats::new(&options, &game.start_observations());
    for step in 0..max_steps {
        for c in Color::ALL {
            check(&seats.seats[c], &game, variant, &format!("seed {seed} step {step}"));
        }
        let Some(&actor) = game.to_act().first() else { return step };
        let Some(action) = choose(&mut rng, &game, &seats.seats[actor], actor) else {
            panic!("{variant} seed {seed} step {step}: {actor} has nothing to do")
        };
        let t = game.apply(actor, &action).unwrap_or_else(|e| {
            panic!("{variant} seed {seed} step {step}: {actor} {action:?}: {e}")
        });
        let computed = seats.follow(actor, &action, &t.told).expect("a legal move");
        if matches!(variant.mode(), rules::Mode::Open | rules::Mode::Owner) {
            for c in Color::ALL {
                let Some(computed) = &computed[c] else { continue };
                let truth = t.told[c].clone().expect("both are told");
                let owner = match &truth {
                    AnyObservation::Intrigue(rules::intrigue::Observation::Move(r)) => {
                        r.inspection.map(|i| i.owner)
                    }
                    _ => None,
                };
                if owner.is_none_or(|o| o == c) {
                    assert_eq!(*computed, truth, "{variant} seed {seed} step {step}: {c}");
                }
            }
        }
        game = t.state;
    }
    max_steps
}

#[test]
fn seats_know_only_what_they_were_told_in_random_games() {
    let six_items = GameOptions::SecretChess6(rules::secretchess6::Options {
        life_freezes: ByColor { white: 2, black: 1 },
        false_square: ByColor { white: true, black: false },
        hidden_scores: false,
    });
    for (variant, options, games, steps) in [
        (Variant::Chess, GameOptions::Chess, 6, 120),
        (Variant::Espionage, GameOptions::Espionage, 6, 120),
        (Variant::Kriegspiel, GameOptions::default_for(Variant::Kriegspiel), 6, 600),
        (Variant::Sic, GameOptions::default_for(Variant::Sic), 6, 150),
        (Variant::Intrigue, GameOptions::Intrigue, 12, 200),
        (Variant::SecretChess6, GameOptions::default_for(Variant::SecretChess6), 40, 200),
        (Variant::SecretChess6, six_items, 40, 200),
    ] {
        let checked: usize =
            (0..games).map(|seed| play(variant, options, 0x5ea7_0000 + seed, steps)).sum();
        // Enough of every game to reach its middle and, mostly, its end.
        assert!(checked > 10 * games as usize, "{variant}: {checked} steps");
        eprintln!("{variant}: {checked} steps checked");
    }
}

#[test]
fn a_seat_view_round_trips_through_json_with_squares_by_name() {
    let options = GameOptions::default_for(Variant::Kriegspiel);
    let mut game = AnyGame::start(&options, None).expect("a game");
    let mut seat = Seat::new(&options, Color::White);
    for uci in ["e2e4", "e7e5"] {
        let m = rules::Move::parse_uci(uci, BoardSize::Eight, rules::Alphabet::ORTHODOX).unwrap();
        let actor = game.to_act()[0];
        if actor == Color::White {
            seat.acted(&AnyAction::Kriegspiel(m));
        }
        let t = game.apply(actor, &AnyAction::Kriegspiel(m)).expect("legal");
        if let Some(o) = &t.told.white {
            seat.told(o);
        }
        game = t.state;
    }
    let view = seat.view();
    assert_eq!(
        view.board,
        "********/********/********/********/****P***/********/PPPP1PPP/RNBQKBNR w"
            .replace("1", "*")
    );
    let json = serde_json::to_value(&view).expect("serialises");
    assert_eq!(
        json["legal"][0],
        serde_json::json!({ "kriegspiel": { "from": "b1", "to": "a3", "promotion": null } })
    );
    assert_eq!(serde_json::from_value::<rules::seat::SeatView>(json).expect("reads"), view);
}

/// Plays an Intrigue game from the setups and `moves` while White's seat follows it as the
/// player machine feeds it, and returns White's board string after each step: after the
/// public move itself (before Black's answer about a pawn White took), after the answer, and
/// after the opening; and the full game's White view at the end.
fn intrigue_white_boards(black: rules::intrigue::Setup, moves: &[&str]) -> (Vec<String>, String) {
    use rules::intrigue::{Action as I, Observation as O, Setup};
    let sq = |s: &str| Square::parse(s, BoardSize::Eight).expect("a square");
    let white = Setup { king: sq("e1"), informer: sq("d2"), queen_on_king_square: false };
    let options = GameOptions::Intrigue;
    let mut game = AnyGame::start(&options, None).expect("a game");
    let mut seat = Seat::new(&options, Color::White);
    for (c, setup) in [(Color::White, white), (Color::Black, black)] {
        let action = AnyAction::Intrigue(I::Setup(setup));
        let t = game.apply(c, &action).expect("a setup");
        if c == Color::White {
            seat.acted(&action);
        }
        if let Some(o) = &t.told.white {
            seat.told(o);
        }
        game = t.state;
    }
    let mut boards = Vec::new();
    for uci in moves {
        let m = rules::Move::parse_uci(uci, BoardSize::Eight, rules::Alphabet::ORTHODOX).unwrap();
        let actor = game.to_act()[0];
        let action = AnyAction::Intrigue(I::Move(m));
        let t = game.apply(actor, &action).expect("legal");
        seat.played(actor, &action).expect("the seat follows");
        boards.push(seat.view().board);
        if let Some(AnyObservation::Intrigue(O::Move(r))) = &t.told[actor]
            && let Some(i) = r.inspection
            && i.owner == Color::Black
        {
            seat.told(&AnyObservation::Intrigue(O::Move(r.clone())));
            boards.push(seat.view().board);
            if i.informer {
                seat.revealed(&black);
                boards.push(seat.view().board);
            }
        }
        game = t.state;
    }
    let AnyGame::Intrigue(s) = &game else { unreachable!() };
    (boards, s.view(Color::White).expect("in play").fen)
}

#[test]
fn an_intrigue_seat_never_draws_a_king_nobody_said_appeared() {
    use rules::intrigue::Setup;
    let sq = |s: &str| Square::parse(s, BoardSize::Eight).expect("a square");
    let men = |b: &str| b.split(' ').next().unwrap_or_default().to_owned();
    // Black's informer is the h-pawn: White takes the a-pawn, the first pawn a seat's model
    // would guess. Before Black answers, and after it says "not the informer", no black king.
    let black = Setup { king: sq("g6"), informer: sq("h7"), queen_on_king_square: false };
    let (boards, truth) = intrigue_white_boards(black, &["b2b4", "a7a5", "b4a5"]);
    assert_eq!(boards.len(), 4, "{boards:?}");
    for b in &boards {
        assert!(!men(b).contains('k'), "a black king drawn nobody told of: {b}");
    }
    assert_eq!(boards.last(), Some(&truth));
    // Black's informer is the a-pawn: no king before the answer, then the king on the square
    // the answer names (g6), never on a guessed one.
    let black = Setup { king: sq("g6"), informer: sq("a7"), queen_on_king_square: false };
    let (boards, truth) = intrigue_white_boards(black, &["b2b4", "a7a5", "b4a5"]);
    assert_eq!(boards.len(), 5, "{boards:?}");
    assert!(!men(&boards[2]).contains('k'), "a king drawn before the answer: {}", boards[2]);
    assert!(men(&truth).contains('k'), "the king appeared: {truth}");
    assert_eq!(men(&boards[3]), men(&truth), "after the answer, before the opening");
    assert_eq!(boards[4], truth, "after the opening");
}

#[test]
fn an_intrigue_seat_knows_every_public_move_and_its_informer_square() {
    let options = GameOptions::Intrigue;
    let setup = rules::intrigue::Setup {
        king: Square::parse("e1", BoardSize::Eight).expect("a square"),
        informer: Square::parse("d2", BoardSize::Eight).expect("a square"),
        queen_on_king_square: false,
    };
    let black = rules::intrigue::Setup {
        king: Square::parse("e8", BoardSize::Eight).expect("a square"),
        informer: Square::parse("d7", BoardSize::Eight).expect("a square"),
        queen_on_king_square: false,
    };
    let mut game = AnyGame::start(&options, None).expect("a game");
    let mut seats = rules::seat::Seats::new(&options, &game.start_observations());
    let mut play = |actor: Color, action: AnyAction| {
        let t = game.apply(actor, &action).expect("legal");
        seats.follow(actor, &action, &t.told).expect("followed");
        game = t.state.clone();
    };
    play(Color::White, AnyAction::Intrigue(rules::intrigue::Action::Setup(setup)));
    play(Color::Black, AnyAction::Intrigue(rules::intrigue::Action::Setup(black)));
    for uci in ["d2d4", "e7e5"] {
        let m = rules::Move::parse_uci(uci, BoardSize::Eight, rules::Alphabet::ORTHODOX).unwrap();
        let actor = if uci == "d2d4" { Color::White } else { Color::Black };
        play(actor, AnyAction::Intrigue(rules::intrigue::Action::Move(m)));
    }
    let Knows::Intrigue(k) = seats.seats.white.view().knows else { panic!("an Intrigue seat") };
    let names: Vec<String> =
        k.moves.iter().map(|m| format!("{}{}", m.from.name(), m.to.name())).collect();
    assert_eq!(names, ["d2d4", "e7e5"]);
    // The informer moved with its pawn: the marker follows it.
    assert_eq!(k.informer_square.map(Square::name).as_deref(), Some("d4"));
}

//! Observation perft for 6x6 Secret Chess (`data/secretchess6.obsperft`): from a few setups,
//! every line of play to a small depth, and an FNV digest per side of the JSON of everything
//! that side is told along the way (setup answers included). Pinned per side; regenerate with
//! `FOGPROOF_BLESS=1`. Actions are visited in a canonical order (side, then the action's JSON),
//! so the digests do not depend on the engine's enumeration order.
//!
//! The pinned lines and digests are checked independently: an oracle built on the slow model
//! of `secretchess6_slow` (written from RULES.md R-G1..R-G9 and the seed, sharing no code with
//! the engine) plays the same trees with its own threats, red squares, scoring, aging, passes
//! and Life Freezes, says what each side is told (the event table of
//! docs/referee/secretchess6.md), compares with the engine at every action, and counts and
//! digests its own values, which must equal the file's.

mod common;
mod secretchess6_slow;

use common::Fnv;
use rules::secretchess6::{Action, Event, Formation, Options, State, TurnMove};
use rules::{Bitboard, ByColor, Color, Game, Square};
use secretchess6_slow::game::{Game6, Told, observation, sorted};

fn told_json(o: &Option<rules::secretchess6::Observation>) -> String {
    serde_json::to_string(o).expect("observations serialise")
}

fn walk(s: &State, depth: u32, digests: &mut ByColor<Fnv>, lines: &mut u64) {
    let actions = sorted(s.legal_actions());
    if depth == 0 || actions.is_empty() {
        *lines += 1;
        return;
    }
    for (c, a) in actions {
        let t = s.apply(c, &a).expect("legal_actions are accepted");
        for side in Color::ALL {
            digests[side].str(&told_json(&t.told[side]));
        }
        walk(&t.state, depth - 1, digests, lines);
        for side in Color::ALL {
            // Close the subtree so that different tree shapes cannot share a digest.
            digests[side].str("^");
        }
    }
}

fn squares(field: &str) -> rules::Bitboard {
    if field == "-" {
        return rules::Bitboard::EMPTY;
    }
    let sq = |t: &str| rules::Square::parse(t, rules::BoardSize::Six).expect("a 6x6 square");
    field.split(',').map(sq).collect()
}

/// Returns the digests and the number of lines for one line of the data file.
fn run(fields: &[String]) -> (ByColor<String>, u64) {
    let options: Options = serde_json::from_str(&fields[1]).expect("options JSON");
    let mut s = State::new(options);
    let mut digests = ByColor::<Fnv>::default();
    for (c, formation, falses) in
        [(Color::White, &fields[2], &fields[3]), (Color::Black, &fields[4], &fields[5])]
    {
        let formation = rules::secretchess6::Formation::parse(formation).expect("a formation");
        let a = Action::Setup { formation, false_squares: squares(falses) };
        let t = s.apply(c, &a).expect("valid setup");
        for side in Color::ALL {
            digests[side].str(&told_json(&t.told[side]));
        }
        s = t.state;
    }
    let depth: u32 = fields[6].parse().expect("depth");
    let mut lines = 0;
    walk(&s, depth, &mut digests, &mut lines);
    (digests.map(|d| d.hex()), lines)
}

#[test]
fn secretchess6_observation_perft() {
    let bless = std::env::var_os("FOGPROOF_BLESS").is_some();
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/secretchess6.obsperft");
    let text = std::fs::read_to_string(&path).expect("data file");
    let mut out = String::new();
    let mut failures = Vec::new();
    for raw in text.lines() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            out.push_str(raw);
            out.push('\n');
            continue;
        }
        let fields: Vec<String> = line.split(';').map(|f| f.trim().to_string()).collect();
        let (got, lines) = run(&fields);
        let want = (fields.get(7).cloned(), fields.get(8).cloned(), fields.get(9).cloned());
        let got_fields =
            (Some(lines.to_string()), Some(got.white.clone()), Some(got.black.clone()));
        if want != got_fields {
            failures.push(format!("{}: want {want:?}, got {got_fields:?}", fields[0]));
        }
        out.push_str(&format!(
            "{} ; {lines} ; {} ; {}\n",
            fields[..7].join(" ; "),
            got.white,
            got.black
        ));
    }
    if bless {
        std::fs::write(&path, out).expect("rewrite the data file");
    } else {
        assert!(failures.is_empty(), "observation digests changed:\n{}", failures.join("\n"));
    }
}

// ---- The independent oracle ----

/// The oracle's walk, shaped as the engine walk above; `ours` is the engine's state on the
/// same line and must tell each side exactly what the oracle tells.
fn oracle_walk(g: &Game6, ours: &State, depth: u32, digests: &mut ByColor<Fnv>, lines: &mut u64) {
    let actions = g.actions();
    let engine: Vec<(Color, Action)> = sorted(ours.legal_actions());
    assert_eq!(engine, actions, "the actions the engine accepts");
    if depth == 0 || actions.is_empty() {
        *lines += 1;
        return;
    }
    for (c, a) in actions {
        let (next, told) = g.apply(&a);
        let t = ours.apply(c, &a).unwrap_or_else(|e| panic!("the engine refuses {a:?}: {e}"));
        for side in Color::ALL {
            let want = observation(told[side.index()].clone());
            assert_eq!(t.told[side], want, "{a:?} by {c} (turn {}): told to {side}", g.turn);
            digests[side].str(&told_json(&want));
        }
        oracle_walk(&next, &t.state, depth - 1, digests, lines);
        for side in Color::ALL {
            digests[side].str("^");
        }
    }
}

#[test]
fn secretchess6_pinned_file_is_the_oracles() {
    let lines = common::data_lines("secretchess6.obsperft");
    assert!(lines.len() >= 4, "the data file lists the setups");
    for fields in lines {
        let options: Options = serde_json::from_str(&fields[1]).expect("options JSON");
        let formations = [&fields[2], &fields[4]].map(|f| Formation::parse(f).expect("formation"));
        let falses = [squares(&fields[3]), squares(&fields[5])];
        // The engine on the same line, from the same setups (the oracle tells what they say).
        let mut ours = State::new(options);
        let mut digests = ByColor::<Fnv>::default();
        for (i, c) in Color::ALL.into_iter().enumerate() {
            let a = Action::Setup { formation: formations[i], false_squares: falses[i] };
            let t = ours.apply(c, &a).expect("valid setup");
            let mut told: Told = [Vec::new(), Vec::new()];
            told[i].push(Event::SetupAccepted);
            told[1 - i].push(Event::OpponentReady);
            if i == 1 {
                let mut g = Game6::new(&options, [&formations[0], &formations[1]], falses);
                // Play starts (R-G6): Black is shown its board; White's first turn starts.
                told[1].push(g.board(false));
                g.start_turn(&mut told);
            }
            for side in Color::ALL {
                let want = observation(told[side.index()].clone());
                assert_eq!(t.told[side], want, "{}: setup by {c}, told to {side}", fields[0]);
                digests[side].str(&told_json(&want));
            }
            ours = t.state;
        }
        let mut g = Game6::new(&options, [&formations[0], &formations[1]], falses);
        g.start_turn(&mut [Vec::new(), Vec::new()]);
        let depth: u32 = fields[6].parse().expect("depth");
        let mut count = 0;
        oracle_walk(&g, &ours, depth, &mut digests, &mut count);
        let got = [count.to_string(), digests.white.hex(), digests.black.hex()];
        assert_eq!(fields[7..10], got, "{}: lines and digests", fields[0]);
    }
}

/// Hand-worked cases from the seed and RULES.md, so that the oracle is not the only judge of
/// itself.
#[test]
fn secretchess6_oracle_tells_hand_worked_cases() {
    let sq = |n: &str| Square::parse(n, rules::BoardSize::Six).expect("a 6x6 square");
    let mv = |t: &str| Action::Move { mv: TurnMove::parse(t).expect("a move") };
    let start = |options: &Options| {
        let f = [Formation::parse("NBKQ1R").unwrap(), Formation::parse("n1qkrb").unwrap()];
        let mut g = Game6::new(options, [&f[0], &f[1]], [Bitboard::EMPTY, Bitboard::EMPTY]);
        g.start_turn(&mut [Vec::new(), Vec::new()]);
        g
    };
    // The seed's scoring example: after the upper player's bishop move (here White's b1d3) it
    // scores 2 (the bishop on a6's knight, the rook on f6's bishop) and the other side 3 (its
    // queen on the king, 2; its bishop on the knight, 1). The bishop on d3 blocks the queen on
    // d1, which would otherwise threaten the king.
    let (g, told) = start(&Options::default()).apply(&mv("b1d3"));
    let scores = Event::Scores { turn: 1, scores: ByColor { white: 2, black: 3 } };
    assert_eq!(
        told[0][..2],
        [Event::Moved { mv: TurnMove::parse("b1d3").unwrap() }, scores.clone()]
    );
    // Black: the scores, then its board (R-G6): the squares the bishop (c4 b5 a6, e4 f5), the
    // queen (a4, over c2 b3) and the rook (f4 f5 f6) reach in Black's territory.
    let Event::Board { turn, your_turn, red, .. } = &told[1][1] else { panic!("{:?}", told[1]) };
    assert_eq!((told[1][0].clone(), *turn, *your_turn), (scores, 2, true));
    let want: Bitboard =
        ["a4", "b5", "c4", "e4", "f4", "f5", "a6", "f6"].map(sq).into_iter().collect();
    assert_eq!(*red, want);
    assert_eq!(g.turn, 2);
    // R-G3, R-G9: White's queen (lifespan 1) moves and is frozen: it skips White's next aging,
    // so it stands at White's next turn (turn 3) and is gone at the one after (turn 5).
    let options = Options { life_freezes: ByColor { white: 1, black: 0 }, ..Options::default() };
    let (g, _) = start(&options).apply(&mv("d1e2"));
    assert_eq!(g.actions()[0], (Color::White, Action::EndTurn), "White may freeze or end");
    let (g, told) = g.apply(&Action::LifeFreeze { piece: sq("e2") });
    assert_eq!(told[0], [Event::Frozen { piece: sq("e2") }]);
    let (g, _) = g.apply(&mv("a6b4"));
    assert_eq!(g.man(4, 1).map(|m| (m.life, m.frozen)), Some((1, false)), "turn 3: still there");
    let (g, _) = g.apply(&mv("e2e3"));
    let (g, _) = g.apply(&mv("b4a6"));
    assert_eq!(g.turn, 5);
    assert_eq!(g.man(4, 2), None, "turn 5: the queen's lifespan ran out");
}

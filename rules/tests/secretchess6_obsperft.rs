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
use rules::secretchess6::{
    Action, Event, Formation, Observation, Options, OwnPiece, PassReason, State, TurnMove,
};
use rules::{Alphabet, Bitboard, ByColor, Color, Game, Square};
use secretchess6_slow as slow;

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

/// The canonical visiting order: side, then the action's JSON.
fn sorted(mut actions: Vec<(Color, Action)>) -> Vec<(Color, Action)> {
    actions.sort_by_cached_key(|(c, a)| (c.index(), serde_json::to_string(a).expect("JSON")));
    actions
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

/// Whether rank `r` (0-based) is in `white`'s territory (R-G1: its three home ranks).
fn own_rank(white: bool, r: i32) -> bool {
    if white { r <= 2 } else { r >= 3 }
}

fn square(f: i32, r: i32) -> Square {
    Square::new(f as u8, r as u8).expect("on the 6x6 board")
}

fn inside(f: i32, r: i32) -> bool {
    (0..6).contains(&f) && (0..6).contains(&r)
}

/// The phase of play the oracle is in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// The side to move moves (or the umpire passes for it).
    Play,
    /// R-G9: the side that just moved, with Life Freeze copies left, freezes or ends its turn.
    AfterMove,
}

/// A 6x6 game as the oracle holds it.
#[derive(Clone)]
struct Game6 {
    /// The men and the side whose turn it is.
    pos: slow::Pos,
    /// `[white, black]`: the false squares each side placed (in the enemy territory).
    falses: [Vec<(i32, i32)>; 2],
    scores: [u32; 2],
    /// The current turn, both sides counted, from 1.
    turn: u32,
    freezes: [u8; 2],
    hidden_scores: bool,
    phase: Phase,
}

type Told = [Vec<Event>; 2];

fn ix(white: bool) -> usize {
    usize::from(!white)
}

impl Game6 {
    /// Both setups in (R-G1): the formations on the first ranks, White to move.
    fn new(options: &Options, formations: [&Formation; 2], falses: [Bitboard; 2]) -> Game6 {
        let mut cells = [[None; 6]; 6];
        for (side, rank) in [(0, 0), (1, 5)] {
            for (file, role) in formations[side].files().iter().enumerate() {
                if let Some(role) = role {
                    let c = Alphabet::SECRET_CHESS.char(*role).expect("K Q R B N");
                    let letter = if side == 0 { c.to_ascii_uppercase() } else { c };
                    let life = match c {
                        'q' => 1,
                        'b' => 2,
                        'r' => 3,
                        'n' => 4,
                        _ => 0,
                    };
                    let man =
                        slow::Man { letter, moved: false, life, powered: false, frozen: false };
                    cells[rank][file] = Some(man);
                }
            }
        }
        let list = |b: Bitboard| b.map(|s| (i32::from(s.file()), i32::from(s.rank()))).collect();
        Game6 {
            pos: slow::Pos { cells, white_to_move: true },
            falses: [list(falses[0]), list(falses[1])],
            scores: [0, 0],
            turn: 1,
            freezes: [options.life_freezes.white, options.life_freezes.black],
            hidden_scores: options.hidden_scores,
            phase: Phase::Play,
        }
    }

    fn man(&self, f: i32, r: i32) -> Option<slow::Man> {
        self.pos.cells[r as usize][f as usize]
    }

    /// R-G5: the squares of the enemy territory the man on (f, r) threatens: where it could
    /// move in chess, sliders stopping at (and including) the first occupied square of either
    /// side, knights leaping ((3,1) once powered, R-G4). The king never moves, so it threatens
    /// nothing.
    fn threats(&self, f: i32, r: i32) -> Vec<(i32, i32)> {
        let m = self.man(f, r).expect("a man");
        let white = m.letter.is_ascii_uppercase();
        let mut out = Vec::new();
        let mut ray = |dirs: &[(i32, i32)]| {
            for &(df, dr) in dirs {
                let (mut g, mut s) = (f + df, r + dr);
                while inside(g, s) {
                    if !own_rank(white, s) {
                        out.push((g, s));
                    }
                    if self.man(g, s).is_some() {
                        break;
                    }
                    g += df;
                    s += dr;
                }
            }
        };
        let orth = [(1, 0), (-1, 0), (0, 1), (0, -1)];
        let diag = [(1, 1), (1, -1), (-1, 1), (-1, -1)];
        match m.letter.to_ascii_lowercase() {
            'r' => ray(&orth),
            'b' => ray(&diag),
            'q' => {
                ray(&orth);
                ray(&diag);
            }
            'n' => {
                let (a, b) = if m.powered { (3, 1) } else { (2, 1) };
                for (x, y) in [(a, b), (b, a)] {
                    for (sx, sy) in [(1, 1), (1, -1), (-1, 1), (-1, -1)] {
                        let (g, s) = (f + sx * x, r + sy * y);
                        if inside(g, s) && !own_rank(white, s) {
                            out.push((g, s));
                        }
                    }
                }
            }
            _ => {}
        }
        out
    }

    /// The men of `white` as (file, rank, man), in square order.
    fn men(&self, white: bool) -> Vec<(i32, i32, slow::Man)> {
        let mut v = Vec::new();
        for r in 0..6 {
            for f in 0..6 {
                if let Some(m) = self.man(f, r).filter(|m| m.letter.is_ascii_uppercase() == white) {
                    v.push((f, r, m));
                }
            }
        }
        v
    }

    fn only_king(&self, white: bool) -> bool {
        self.men(white).iter().all(|(_, _, m)| m.letter.eq_ignore_ascii_case(&'k'))
    }

    /// R-G6: the red squares of `white`'s territory: those an enemy man threatens, and the
    /// enemy's false squares, in one set.
    fn red(&self, white: bool) -> Bitboard {
        let mut red: Vec<(i32, i32)> = self.falses[ix(!white)].clone();
        for (f, r, _) in self.men(!white) {
            red.extend(self.threats(f, r));
        }
        red.into_iter().map(|(f, r)| square(f, r)).collect()
    }

    /// R-G7: one point per (own man, threatened enemy man) pair, two for the king; false
    /// squares never score.
    fn score_of(&self, white: bool) -> u32 {
        let mut n = 0;
        for (f, r, _) in self.men(white) {
            for (g, s) in self.threats(f, r) {
                if let Some(x) = self.man(g, s) {
                    n += if x.letter.eq_ignore_ascii_case(&'k') { 2 } else { 1 };
                }
            }
        }
        n
    }

    /// R-G6's board update for `white`: its men (lifespans once moved) and its red squares.
    fn board(&self, white: bool) -> Event {
        let pieces = self
            .men(white)
            .into_iter()
            .map(|(f, r, m)| OwnPiece {
                square: square(f, r),
                role: Alphabet::SECRET_CHESS.role(m.letter.to_ascii_lowercase()).expect("a role"),
                lifespan: m.moved.then_some(m.life),
                powered: m.powered,
                frozen: m.frozen,
            })
            .collect();
        Event::Board {
            turn: self.turn,
            your_turn: self.pos.white_to_move == white,
            pieces,
            red: self.red(white),
        }
    }

    /// Step 4 (R-G7): both sides score; both are told unless `hidden-scores`.
    fn score_turn(&mut self, told: &mut Told) {
        self.scores[0] += self.score_of(true);
        self.scores[1] += self.score_of(false);
        if !self.hidden_scores {
            let scores = ByColor { white: self.scores[0], black: self.scores[1] };
            for t in told.iter_mut() {
                t.push(Event::Scores { turn: self.turn, scores });
            }
        }
    }

    /// Steps 1-3 of the side whose turn starts: aging (R-G3; a frozen man skips it once,
    /// R-G9), the board update (R-G6), then either the move is awaited or the umpire passes
    /// (only a king, or no man that can move) and scores, and the next turn starts.
    fn start_turn(&mut self, told: &mut Told) {
        let white = self.pos.white_to_move;
        for (f, r, m) in self.men(white) {
            let cell = &mut self.pos.cells[r as usize][f as usize];
            if m.frozen {
                *cell = Some(slow::Man { frozen: false, ..m });
            } else if m.moved {
                *cell = (m.life > 1).then_some(slow::Man { life: m.life - 1, ..m });
            }
        }
        assert!(
            !(self.only_king(true) && self.only_king(false)),
            "R-G8's end is not reached in these trees (the oracle does not model it)"
        );
        told[ix(white)].push(self.board(white));
        let reason = if self.only_king(white) {
            Some(PassReason::OnlyKing)
        } else if self.moves().is_empty() {
            Some(PassReason::NoLegalMove)
        } else {
            None
        };
        self.phase = Phase::Play;
        if let Some(reason) = reason {
            told[ix(white)].push(Event::Passed { reason });
            self.score_turn(told);
            self.next_turn(told);
        }
    }

    fn next_turn(&mut self, told: &mut Told) {
        self.pos.white_to_move = !self.pos.white_to_move;
        self.turn += 1;
        self.start_turn(told);
    }

    /// The moves of the side to move (R-G2, R-G4), from the slow model.
    fn moves(&self) -> Vec<TurnMove> {
        slow::moves(&self.pos)
            .into_iter()
            .filter(|((f, _), _, _)| *f != 9)
            .map(|((ff, fr), (tf, tr), power)| TurnMove::Move {
                from: square(ff as i32, fr as i32),
                to: square(tf as i32, tr as i32),
                power,
            })
            .collect()
    }

    /// The actions the rules accept now, in the walk's canonical order.
    fn actions(&self) -> Vec<(Color, Action)> {
        let white = self.pos.white_to_move;
        let side = if white { Color::White } else { Color::Black };
        let v = match self.phase {
            Phase::Play => self.moves().into_iter().map(|mv| (side, Action::Move { mv })).collect(),
            Phase::AfterMove => {
                let mut v = vec![(side, Action::EndTurn)];
                for (f, r, m) in self.men(white) {
                    if !m.letter.eq_ignore_ascii_case(&'k') {
                        v.push((side, Action::LifeFreeze { piece: square(f, r) }));
                    }
                }
                v
            }
        };
        sorted(v)
    }

    /// Applies an action of the side to move: the new game and what each side is told.
    fn apply(&self, action: &Action) -> (Game6, Told) {
        let mut g = self.clone();
        let mut told: Told = [Vec::new(), Vec::new()];
        let white = g.pos.white_to_move;
        match *action {
            Action::Move { mv: TurnMove::Move { from, to, power } } => {
                let (ff, fr) = (from.file() as usize, from.rank() as usize);
                let mut m = g.pos.cells[fr][ff].take().expect("a man to move");
                // R-G3: a man that moved ages from now on; R-G4: powering up caps it at 3.
                m.moved = true;
                if power {
                    m.powered = true;
                    m.life = m.life.min(3);
                }
                g.pos.cells[to.rank() as usize][to.file() as usize] = Some(m);
                told[ix(white)].push(Event::Moved { mv: TurnMove::Move { from, to, power } });
                g.score_turn(&mut told);
                if g.freezes[ix(white)] > 0 {
                    g.phase = Phase::AfterMove;
                } else {
                    g.next_turn(&mut told);
                }
            }
            Action::LifeFreeze { piece } => {
                let cell = &mut g.pos.cells[piece.rank() as usize][piece.file() as usize];
                let m = cell.expect("an own man");
                *cell = Some(slow::Man { frozen: true, ..m });
                g.freezes[ix(white)] -= 1;
                told[ix(white)].push(Event::Frozen { piece });
                g.next_turn(&mut told);
            }
            Action::EndTurn => g.next_turn(&mut told),
            ref other => panic!("not an action of play: {other:?}"),
        }
        (g, told)
    }
}

fn observation(events: Vec<Event>) -> Option<Observation> {
    (!events.is_empty()).then_some(Observation { events })
}

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

//! The circuit against the ordinary umpire (`rules::kriegspiel`), attempt by attempt, on
//! every position of random Kriegspiel games (deterministic seeds): every legal move of each
//! position where there are few, a sample of them otherwise (always every capture, castling,
//! en passant and promotion), and illegal attempts of every kind (into check, pinned men,
//! blocked and impossible moves, missing or wrong promotions, empty or enemy squares).
//! Counts of each situation are asserted, so a corpus that stopped covering one fails.

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};
use rules::chess::Position;
use rules::kriegspiel::{Answer, End, Options, State};
use rules::{Analysis, Bitboard, Game, Move, Role, Square, attacks};
use std::sync::OnceLock;
use twoparty::circuit::{Circuit, Split};
use twoparty::encode::{answer, inputs_from_position};
use twoparty::umpire::{Part, circuit_part, out};

fn circuit() -> &'static Circuit {
    static C: OnceLock<Circuit> = OnceLock::new();
    C.get_or_init(twoparty::umpire::circuit)
}

/// The split computation's two circuits, legality (every attempt) and announcement (legal
/// ones), each as each party's local part and the joint part.
fn split() -> &'static (Split, Split) {
    static C: OnceLock<(Split, Split)> = OnceLock::new();
    C.get_or_init(|| {
        let part = |p| circuit_part(p, false).split_local();
        (part(Part::Legality), part(Part::Announcement))
    })
}

/// One attempt to check: the position, the attempt, the 50-move counters and the answer the
/// ordinary umpire gave, with the expected circuit answer (repetition is not the circuit's).
struct Case {
    pos: Position,
    attempt: Move,
    fifty: (u32, u32),
    expected: Answer,
}

#[derive(Default, Debug)]
struct Coverage {
    attempts: u64,
    legal: u64,
    illegal: u64,
    castling: u64,
    en_passant: u64,
    two_capturers: u64,
    promotion: u64,
    under_promotion: u64,
    double_check: u64,
    check_kinds: [u64; 5],
    pinned_illegal: u64,
    into_check: u64,
    tries: u64,
    mate: u64,
    stalemate: u64,
    insufficient: u64,
    fifty: u64,
    repetition: u64,
    wrong_promotion: u64,
    split_announced: u64,
}

struct Checker {
    batch: Vec<Case>,
    cov: Coverage,
}

impl Checker {
    fn push(&mut self, case: Case) {
        self.batch.push(case);
        if self.batch.len() == 64 {
            self.flush();
        }
    }

    fn flush(&mut self) {
        if self.batch.is_empty() {
            return;
        }
        let c = circuit();
        let mut words = vec![vec![0u64; c.inputs[0] as usize], vec![0u64; c.inputs[1] as usize]];
        for (i, case) in self.batch.iter().enumerate() {
            let (m, o) = inputs_from_position(&case.pos, case.attempt, case.fifty);
            for (p, bits) in [m.bits(), o.bits()].into_iter().enumerate() {
                for (k, b) in bits.into_iter().enumerate() {
                    words[p][k] |= u64::from(b) << i;
                }
            }
        }
        let outs = c.eval_words(&words);
        let (legality, announcement) = split();
        let legal_words = legality.eval_words(&words);
        let ann_words = announcement.eval_words(&words);
        for (i, case) in self.batch.iter().enumerate() {
            let bits: Vec<bool> = outs.iter().map(|w| w >> i & 1 == 1).collect();
            let got = answer(&bits, case.pos.turn());
            // The split computation: the legality circuit agrees on every attempt, and on a
            // legal one the announcement circuit gives the whole circuit's outputs.
            assert_eq!(legal_words[0] >> i & 1 == 1, bits[out::LEGAL], "legality circuit");
            if bits[out::LEGAL] {
                let ann: Vec<bool> = ann_words.iter().map(|w| w >> i & 1 == 1).collect();
                assert_eq!(ann, bits, "announcement circuit on {}", case.pos.to_fen());
                self.cov.split_announced += 1;
            }
            assert_eq!(
                got,
                case.expected,
                "position {} attempt {} counters {:?}",
                case.pos.to_fen(),
                case.attempt.uci(rules::Alphabet::ORTHODOX),
                case.fifty
            );
            // Spot-check the gate-by-gate evaluator against the bit-sliced one.
            if self.cov.attempts.is_multiple_of(997) {
                let (m, o) = inputs_from_position(&case.pos, case.attempt, case.fifty);
                assert_eq!(c.eval(&[m.bits(), o.bits()]), bits);
            }
            self.cov.attempts += 1;
        }
        self.batch.clear();
    }
}

fn pseudo_targets(pos: &Position, from: Square) -> Bitboard {
    let b = pos.board();
    let occ = b.occupied();
    let own = b.by_color(pos.turn());
    let Some(p) = b.piece_at(from) else { return Bitboard::EMPTY };
    let t = match p.role {
        Role::Knight => attacks::knight(from),
        Role::Bishop => attacks::bishop(from, occ),
        Role::Rook => attacks::rook(from, occ),
        Role::Queen => attacks::queen(from, occ),
        _ => Bitboard::EMPTY,
    };
    Bitboard(t.0 & !own.0)
}

/// The answer the circuit must give: the ordinary umpire's, with a repetition draw (which
/// needs the game's history, not the boards) read as what the circuit can know.
fn expected(state: &State, attempt: &Move) -> (Answer, Option<State>) {
    let actor = state.position().turn();
    let t = state.apply(actor, attempt).expect("the game is not over and it is actor's turn");
    let mut answer = t.told[actor].clone().expect("the mover is always told");
    if let Answer::Legal(a) = &mut answer {
        let mut checks = a.checks.clone();
        checks.dedup();
        assert_eq!(checks, a.checks, "two checks of one kind: {:?}", a.checks);
        if a.end == Some(End::Repetition) {
            a.end = (t.state.position().halfmoves() >= 100).then_some(End::FiftyMove);
        }
        return (answer, Some(t.state));
    }
    (answer, None)
}

fn illegal_attempts(pos: &Position, rng: &mut ChaCha8Rng, legal: &[Move]) -> Vec<Move> {
    let b = pos.board();
    let own: Vec<Square> = b.by_color(pos.turn()).collect();
    let mut v = Vec::new();
    let sq = |i: u32| Square::from_index(u8::try_from(i % 64).unwrap()).unwrap();
    for _ in 0..4 {
        // Own man to a random square.
        let from = own[rng.next_u32() as usize % own.len()];
        v.push(Move::new(from, sq(rng.next_u32())));
    }
    // Geometrically possible moves (pinned men and moves that leave the king in check).
    for &from in &own {
        for to in pseudo_targets(pos, from) {
            let m = Move::new(from, to);
            if !legal.contains(&m) {
                v.push(m);
            }
        }
    }
    // King steps into attacked squares.
    let k = pos.king(pos.turn());
    for to in attacks::king(k) {
        let m = Move::new(k, to);
        if !legal.contains(&m) {
            v.push(m);
        }
    }
    // A random square entirely, and promotion errors on legal moves.
    v.push(Move::new(sq(rng.next_u32()), sq(rng.next_u32())));
    if let Some(m) = legal.get(rng.next_u32() as usize % legal.len().max(1)) {
        let role = [Role::Queen, Role::King, Role::Pawn][rng.next_u32() as usize % 3];
        let mut wrong = *m;
        wrong.promotion = match m.promotion {
            None => Some(role),
            Some(_) => None,
        };
        v.push(wrong);
        if m.promotion.is_some() {
            v.push(Move { promotion: Some(Role::King), ..*m });
        }
    }
    v
}

fn weight(pos: &Position, m: &Move) -> u32 {
    let b = pos.board();
    let piece = b.piece_at(m.from).expect("a legal move starts on a man");
    if m.promotion.is_some()
        || (piece.role == Role::King && m.from.file().abs_diff(m.to.file()) == 2)
    {
        return 40;
    }
    if piece.role == Role::Pawn && m.from.file() != m.to.file() && b.piece_at(m.to).is_none() {
        return 60;
    }
    if b.piece_at(m.to).is_some() {
        return 8;
    }
    if piece.role == Role::Pawn {
        return 3;
    }
    2
}

fn record(cov: &mut Coverage, pos: &Position, m: &Move, ans: &Answer, legal: &[Move]) {
    match ans {
        Answer::Illegal => {
            cov.illegal += 1;
            if m.promotion.is_some() || legal.iter().any(|l| l.from == m.from && l.to == m.to) {
                cov.wrong_promotion += 1;
            }
            let piece = pos.board().piece_at(m.from);
            if piece.is_some_and(|p| p.color == pos.turn()) {
                if piece.unwrap().role == Role::King {
                    cov.into_check += 1;
                } else if !pos.is_check() && pseudo_targets(pos, m.from).contains(m.to) {
                    cov.pinned_illegal += 1;
                }
            }
        }
        Answer::Legal(a) => {
            cov.legal += 1;
            let piece = pos.board().piece_at(m.from).expect("legal moves start on a man");
            if piece.role == Role::King && m.from.file().abs_diff(m.to.file()) == 2 {
                cov.castling += 1;
            }
            if a.capture.is_some_and(|c| c.en_passant) {
                cov.en_passant += 1;
            }
            if piece.role == Role::Pawn && m.from.rank().abs_diff(m.to.rank()) == 2 {
                // A double step with an enemy pawn on both sides: two en passant candidates.
                let enemy_pawn = |df: i32| {
                    let f = i32::from(m.to.file()) + df;
                    u8::try_from(f).ok().and_then(|f| Square::new(f, m.to.rank())).is_some_and(
                        |sq| {
                            pos.board()
                                .piece_at(sq)
                                .is_some_and(|p| p.role == Role::Pawn && p.color != pos.turn())
                        },
                    )
                };
                if enemy_pawn(-1) && enemy_pawn(1) {
                    cov.two_capturers += 1;
                }
            }
            match m.promotion {
                Some(Role::Queen) => cov.promotion += 1,
                Some(_) => cov.under_promotion += 1,
                None => {}
            }
            if a.checks.len() >= 2 {
                cov.double_check += 1;
            }
            for k in &a.checks {
                cov.check_kinds[*k as usize] += 1;
            }
            if a.pawn_tries > 0 {
                cov.tries += 1;
            }
            match a.end {
                Some(End::Checkmate) => cov.mate += 1,
                Some(End::Stalemate) => cov.stalemate += 1,
                Some(End::InsufficientMaterial) => cov.insufficient += 1,
                Some(End::FiftyMove) => cov.fifty += 1,
                Some(End::Repetition) => cov.repetition += 1,
                None => {}
            }
        }
    }
}

/// Random games from `fen` (deterministic seed), each attempt checked.
fn games(checker: &mut Checker, fen: &str, seed: u64, n_games: u32, max_plies: u32) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for _ in 0..n_games {
        let start = Position::from_fen(fen).expect("a valid position");
        let h = start.halfmoves();
        let mut state = State::from_position(start, Options::default());
        // Plies since each side's own last pawn move or the last capture.
        let mut since = [h, h];
        for _ in 0..max_plies {
            if state.result().is_some() {
                break;
            }
            let pos = state.position().clone();
            let us = pos.turn();
            assert_eq!(since[0].min(since[1]), pos.halfmoves(), "the counters' split");
            let fifty = (since[us.index()], since[us.other().index()]);
            let legal: Vec<Move> = pos.legal_moves().to_vec();
            let mut attempts: Vec<Move> = illegal_attempts(&pos, &mut rng, &legal);
            if legal.len() <= 12 {
                attempts.extend(&legal);
            } else {
                for m in &legal {
                    let double_step =
                        pos.board().piece_at(m.from).is_some_and(|p| p.role == Role::Pawn)
                            && m.from.rank().abs_diff(m.to.rank()) == 2;
                    if weight(&pos, m) >= 8 || double_step || rng.next_u32() % 4 == 0 {
                        attempts.push(*m);
                    }
                }
            }
            for m in &attempts {
                let (ans, _) = expected(&state, m);
                record(&mut checker.cov, &pos, m, &ans, &legal);
                checker.push(Case { pos: pos.clone(), attempt: *m, fifty, expected: ans });
            }
            // Play a weighted random legal move.
            let total: u32 = legal.iter().map(|m| weight(&pos, m)).sum();
            let mut pick = rng.next_u32() % total;
            let m = *legal
                .iter()
                .find(|m| {
                    let w = weight(&pos, m);
                    if pick < w {
                        true
                    } else {
                        pick -= w;
                        false
                    }
                })
                .expect("the weights sum to total");
            let capture = pos.capture_of(&m).is_some();
            let pawn = pos.board().piece_at(m.from).is_some_and(|p| p.role == Role::Pawn);
            let (_, next) = expected(&state, &m);
            state = next.expect("a legal move");
            if capture {
                since = [0, 0];
            } else {
                since[0] += 1;
                since[1] += 1;
                if pawn {
                    since[us.index()] = 0;
                }
            }
        }
    }
}

const STARTS: [&str; 10] = [
    rules::chess::START_FEN,
    // "Kiwipete": castling both ways, pins, en passant.
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    // En passant that would expose the king along the rank; rook endings.
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    // Promotions and under-promotions with captures, checks.
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    // En passant available at once (f6), and more after.
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    // Thin material: stalemates, insufficient material, the 50-move rule near.
    "4k3/8/8/8/8/8/4P3/4K2N b - - 90 80",
    "7k/5Q2/8/8/8/8/8/K7 w - - 0 1",
    // En passant with two capturers, where the other one still blocks after the capture: on
    // the rank (a4 rook, d4 and f4 pawns, h4 king) and on a diagonal (h2 bishop, f4, b8 king).
    "8/8/8/8/R2p1p1k/8/4P3/4K3 w - - 0 1",
    "1k6/8/8/8/3p1p2/8/4P2B/4K3 w - - 0 1",
];

#[test]
fn the_circuit_answers_every_attempt_as_the_ordinary_umpire() {
    let mut checker = Checker { batch: Vec::new(), cov: Coverage::default() };
    for (i, fen) in STARTS.iter().enumerate() {
        let n = if i == 0 { 32 } else { 16 };
        games(&mut checker, fen, 19 + i as u64, n, 160);
    }
    checker.flush();
    let c = &checker.cov;
    eprintln!("{c:?}");
    assert!(c.attempts >= 20_000, "{c:?}");
    for (what, n, min) in [
        ("legal", c.legal, 5000),
        ("illegal", c.illegal, 5000),
        ("castling", c.castling, 50),
        ("en passant", c.en_passant, 30),
        ("double step beside two enemy pawns", c.two_capturers, 10),
        ("promotion", c.promotion, 30),
        ("under-promotion", c.under_promotion, 30),
        ("double check", c.double_check, 5),
        ("pinned men", c.pinned_illegal, 200),
        ("king into check", c.into_check, 500),
        ("pawn tries", c.tries, 500),
        ("checkmate", c.mate, 5),
        ("stalemate", c.stalemate, 1),
        ("insufficient material", c.insufficient, 5),
        ("50-move rule", c.fifty, 1),
        ("wrong promotion", c.wrong_promotion, 50),
        ("the split computation's announcements", c.split_announced, 5000),
    ] {
        assert!(n >= min, "only {n} attempts with {what} (want {min}): {c:?}");
    }
    for (k, &n) in c.check_kinds.iter().enumerate() {
        assert!(n >= 20, "check kind {k}: only {n}");
    }
}

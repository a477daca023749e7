//! The house bot: a [`Policy`] better than random in every game, reading only what its player
//! knows (its `rules::seat::Seat`, never hidden truth), deterministic given its seed.
//!
//! Each move is scored and the best taken, ties drawn from a seeded ChaCha20 stream:
//! - **chess, Espionage** (open): the whole position is known, so each legal move is played on
//!   it and scored one ply deep: material taken, a promotion, mate (taken at once), check, the
//!   worst capture the opponent is then offered (a lost piece, less what recapturing wins back),
//!   the opponent's mobility (so a won game is pushed towards mate), a pawn's progress, and a
//!   draw avoided when ahead;
//! - **Intrigue** (owner-answered): mate taken and stalemate avoided when ahead, as the seat's
//!   own model of the game tells (a hypothesis agreeing with everything told, never the
//!   opponent's secret), otherwise material on the public board of R-I6 less the man left to
//!   the known enemy men, the opponent's secret men (`?`) counted as pawns;
//! - **Kriegspiel** (R-K1..R-K5): pawn captures are tried first when the umpire announced pawn
//!   tries, never otherwise (they would be illegal); a recapture on the square where the
//!   opponent just took; king moves when in check; then short moves, which unseen men are less
//!   likely to block, pawn pushes a little before others;
//! - **SIC** (R-S10): from the umpire's list of legal moves, captures first (an enemy man that
//!   moved `?`, or a square where an unmoved one may stand), the most valuable target by the
//!   least valuable man, then moves whose man then attacks the most possible enemy men;
//! - **6x6** (R-G1..R-G9): the move after which its men threaten the most of the enemy
//!   territory (the first rank, where unmoved men and the king stand, counted thrice), not onto
//!   a red square, not starting a new man's lifespan without need; a Life Freeze on the moved
//!   man closest to dying.
//!
//! Secret setups and the 6x6 tie-break are random but valid ([`RandomBot`]), as is every choice
//! the bot cannot read (no seat yet, or bytes it cannot decode).

use crate::RandomBot;
use protocol::roles::{Ask, Policy};
use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};
use rules::seat::{Knows, Seat, SeatView};
use rules::{
    Alphabet, AnyAction, Bitboard, Board, BoardSize, Color, Move, Piece, Role, Square, Variant,
    attacks,
};
use sha2::{Digest, Sha256};

/// A score that beats every material count: a mate in one.
const MATE: i64 = 1_000_000;

/// The house bot (see the module docs).
#[derive(Clone, Debug)]
pub struct HouseBot {
    rng: ChaCha20Rng,
    random: RandomBot,
}

impl HouseBot {
    /// A bot whose every choice derives from `seed`.
    pub fn new(seed: [u8; 32]) -> HouseBot {
        // Two unrelated streams: tie-breaks here, setups and fallbacks in the random bot.
        let mut h = Sha256::new();
        h.update(b"fogproof house bot ties");
        h.update(seed);
        let ties: [u8; 32] = h.finalize().into();
        HouseBot { rng: ChaCha20Rng::from_seed(ties), random: RandomBot::new(seed) }
    }

    /// The index of a best score, ties drawn at random.
    fn best(&mut self, scores: &[i64]) -> Option<usize> {
        let top = *scores.iter().max()?;
        let tied: Vec<usize> = (0..scores.len()).filter(|i| scores[*i] == top).collect();
        let pick = (self.rng.next_u64() % tied.len() as u64) as usize;
        tied.get(pick).copied()
    }

    /// A little noise (`0..n`) so that equal-looking moves vary from game to game.
    fn noise(&mut self, n: u64) -> i64 {
        (self.rng.next_u64() % n.max(1)) as i64
    }

    /// Scores for each offered action, or `None` where the bot cannot read the position.
    fn scores(&mut self, seat: &Seat, side: Color, actions: &[AnyAction]) -> Option<Vec<i64>> {
        let view = seat.view();
        if view.side != side {
            return None;
        }
        let fen = view.board.as_str();
        match view.variant {
            Variant::Chess => {
                let pos = <rules::chess::Position as rules::Analysis>::from_fen(fen).ok()?;
                open_scores(&pos, side, actions)
            }
            Variant::Espionage => {
                let pos = <rules::espionage::Position as rules::Analysis>::from_fen(fen).ok()?;
                open_scores(&pos, side, actions)
            }
            Variant::Intrigue => {
                let sight = Sight::parse(fen, view.variant)?;
                let material = balance(Variant::Intrigue, &sight.board(side), side);
                let scores = actions.iter().map(|a| {
                    // The seat's own model of the game says whether the move ends it (a mate,
                    // or a stalemate to avoid when ahead).
                    let mut after = seat.clone();
                    match after.played(side, a).ok().and(after.result()) {
                        Some(r) if r.winner == Some(side) => MATE,
                        Some(r) if r.winner.is_none() => {
                            if material > 0 {
                                -material - 1_000
                            } else {
                                200
                            }
                        }
                        _ => intrigue_score(&sight, side, a),
                    }
                });
                Some(scores.collect())
            }
            Variant::Kriegspiel => {
                let sight = Sight::parse(fen, view.variant)?;
                let scores = actions.iter().map(|a| kriegspiel_score(&sight, &view, side, a));
                Some(scores.collect::<Vec<_>>().into_iter().map(|s| s + self.noise(8)).collect())
            }
            Variant::Sic => {
                let sight = Sight::parse(fen, view.variant)?;
                let unknown = match &view.knows {
                    Knows::Sic(k) => k.unknown,
                    _ => Bitboard::EMPTY,
                };
                Some(actions.iter().map(|a| sic_score(&sight, unknown, side, a)).collect())
            }
            Variant::SecretChess6 => Some(sc6_scores(&view, side, actions)),
        }
    }
}

impl Policy for HouseBot {
    fn decide(&mut self, variant: Variant, side: Color, ask: &Ask) -> AnyAction {
        self.random.decide(variant, side, ask)
    }

    fn decide_seeing(
        &mut self,
        seat: Option<&Seat>,
        variant: Variant,
        side: Color,
        ask: &Ask,
    ) -> AnyAction {
        if let (Ask::Choose(options), Some(seat)) = (ask, seat)
            && let Some(i) = self.scores(seat, side, options).and_then(|scores| self.best(&scores))
            && let Some(action) = options.get(i)
        {
            return action.clone();
        }
        self.random.decide(variant, side, ask)
    }
}

/// How far forward a man stands for its side (0 on its first rank).
fn advance(side: Color, sq: Square, size: BoardSize) -> i64 {
    let r = i64::from(sq.rank());
    match side {
        Color::White => r,
        Color::Black => i64::from(size.width()) - 1 - r,
    }
}

// ------------------------------------------------------------------ open games

/// An open game's position, as the scoring needs it (chess and Espionage).
trait OpenPosition: Sized {
    const VARIANT: Variant;
    fn board(&self) -> &Board;
    fn turn(&self) -> Color;
    fn legal(&self) -> Vec<Move>;
    fn is_check(&self) -> bool;
    /// The position after `m` and the kind it captured, if `m` is legal.
    fn after(&self, m: &Move) -> Option<(Self, Option<Role>)>;
    /// The kind `m` captures (assumed legal).
    fn captures(&self, m: &Move) -> Option<Role>;
    /// `by`'s men attacking `sq`.
    fn attackers(&self, sq: Square, by: Color) -> Bitboard;
}

impl OpenPosition for rules::chess::Position {
    const VARIANT: Variant = Variant::Chess;
    fn board(&self) -> &Board {
        rules::chess::Position::board(self)
    }
    fn turn(&self) -> Color {
        rules::chess::Position::turn(self)
    }
    fn legal(&self) -> Vec<Move> {
        self.legal_moves().iter().copied().collect()
    }
    fn is_check(&self) -> bool {
        rules::chess::Position::is_check(self)
    }
    fn after(&self, m: &Move) -> Option<(Self, Option<Role>)> {
        let taken = self.captures(m);
        self.clone().play(m).ok().map(|p| (p, taken))
    }
    fn captures(&self, m: &Move) -> Option<Role> {
        self.capture_of(m).map(|(_, role, _)| role)
    }
    fn attackers(&self, sq: Square, by: Color) -> Bitboard {
        let board = rules::chess::Position::board(self);
        attacks::standard_attackers(board, sq, by, board.occupied())
    }
}

impl OpenPosition for rules::espionage::Position {
    const VARIANT: Variant = Variant::Espionage;
    fn board(&self) -> &Board {
        rules::espionage::Position::board(self)
    }
    fn turn(&self) -> Color {
        rules::espionage::Position::turn(self)
    }
    fn legal(&self) -> Vec<Move> {
        self.legal_moves()
    }
    fn is_check(&self) -> bool {
        rules::espionage::Position::is_check(self)
    }
    fn after(&self, m: &Move) -> Option<(Self, Option<Role>)> {
        self.play(m).ok().map(|(p, played)| (p, played.captured.map(|c| c.role)))
    }
    fn captures(&self, m: &Move) -> Option<Role> {
        // No en passant in Espionage (R-E4): a capture lands on its victim.
        let board = rules::espionage::Position::board(self);
        board
            .piece_at(m.to)
            .filter(|p| Some(p.color) != board.piece_at(m.from).map(|q| q.color))
            .map(|p| p.role)
    }
    fn attackers(&self, sq: Square, by: Color) -> Bitboard {
        rules::espionage::attackers(rules::espionage::Position::board(self), sq, by)
    }
}

/// Material of `side` minus its opponent's.
fn balance(variant: Variant, board: &Board, side: Color) -> i64 {
    board
        .pieces()
        .map(|(_, p)| if p.color == side { 1 } else { -1 } * variant.piece_value(p.role))
        .sum()
}

fn open_scores<P: OpenPosition>(pos: &P, side: Color, actions: &[AnyAction]) -> Option<Vec<i64>> {
    if pos.turn() != side {
        return None;
    }
    actions.iter().map(|a| a.as_move().and_then(|m| open_score(pos, side, m))).collect()
}

/// One move scored one ply deep (module docs).
fn open_score<P: OpenPosition>(pos: &P, side: Color, m: &Move) -> Option<i64> {
    let v = |r: Role| P::VARIANT.piece_value(r);
    let mover = pos.board().piece_at(m.from)?.role;
    let (next, taken) = pos.after(m)?;
    let replies = next.legal();
    if replies.is_empty() {
        if next.is_check() {
            return Some(MATE);
        }
        return Some(draw_score(P::VARIANT, next.board(), side));
    }
    if next.board().insufficient_material() {
        return Some(draw_score(P::VARIANT, next.board(), side));
    }
    let mut s = taken.map_or(0, v);
    if let Some(p) = m.promotion {
        s += v(p) - v(Role::Pawn);
    }
    if next.is_check() {
        s += 60;
    }
    // The worst capture the opponent is then offered: what it takes, less what we take back.
    let threat = replies
        .iter()
        .filter_map(|r| {
            let victim = next.captures(r)?;
            let attacker = next.board().piece_at(r.from)?.role;
            let (after, _) = next.after(r)?;
            let defended = after.attackers(r.to, side).any();
            Some(if defended { (v(victim) - v(attacker)).max(0) } else { v(victim) })
        })
        .max()
        .unwrap_or(0);
    s -= threat * 9 / 10;
    s -= 4 * replies.len() as i64;
    if mover == Role::Pawn {
        s += 6 * advance(side, m.to, pos.board().size());
    }
    Some(s)
}

/// A draw: to be avoided when ahead, welcome when behind.
fn draw_score(variant: Variant, board: &Board, side: Color) -> i64 {
    let b = balance(variant, board, side);
    if b > 0 { -b - 1_000 } else { 200 }
}

// ------------------------------------------------------------------ seen boards

/// How a seat's board string shows one square.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Cell {
    Empty,
    Man(Piece),
    /// `?`: an enemy man of unknown kind.
    Unknown,
    /// `*`: nothing known.
    Fog,
}

/// A seat's board string read back (the first field of [`SeatView::board`]).
struct Sight {
    variant: Variant,
    cells: [Cell; 64],
}

impl Sight {
    fn parse(fen: &str, variant: Variant) -> Option<Sight> {
        let size = variant.board_size();
        let alphabet: Alphabet = variant.alphabet();
        let field = fen.split_whitespace().next()?;
        let mut cells = [Cell::Fog; 64];
        let w = size.width();
        let ranks: Vec<&str> = field.split('/').collect();
        if ranks.len() != usize::from(w) {
            return None;
        }
        for (i, text) in ranks.iter().enumerate() {
            let rank = w - 1 - u8::try_from(i).ok()?;
            let mut file = 0u8;
            for c in text.chars() {
                if let Some(d) = c.to_digit(10) {
                    for _ in 0..d {
                        cells[Square::new(file, rank)?.index()] = Cell::Empty;
                        file += 1;
                    }
                    continue;
                }
                let cell = match c {
                    '?' => Cell::Unknown,
                    '*' => Cell::Fog,
                    c => Cell::Man(alphabet.piece(c)?),
                };
                cells[Square::new(file, rank)?.index()] = cell;
                file += 1;
            }
            if file != w {
                return None;
            }
        }
        Some(Sight { variant, cells })
    }

    fn at(&self, sq: Square) -> Cell {
        self.cells[sq.index()]
    }

    /// A board of the men shown, an unknown enemy man standing in as a pawn (a blocker).
    fn board(&self, side: Color) -> Board {
        let size = self.variant.board_size();
        let mut b = Board::empty(size);
        for sq in size.squares() {
            match self.at(sq) {
                Cell::Man(p) => {
                    b.put(sq, p);
                }
                Cell::Unknown => {
                    b.put(sq, Role::Pawn.of(!side));
                }
                Cell::Empty | Cell::Fog => {}
            }
        }
        b
    }

    /// What taking on `sq` is worth, as far as the seat can tell.
    fn victim(&self, sq: Square, side: Color) -> i64 {
        match self.at(sq) {
            Cell::Man(p) if p.color != side => self.variant.piece_value(p.role),
            Cell::Unknown => 250,
            _ => 0,
        }
    }
}

/// Intrigue: material on the public board, less the man lost if the known enemy men take it.
fn intrigue_score(sight: &Sight, side: Color, a: &AnyAction) -> i64 {
    let Some(m) = a.as_move() else { return 0 };
    let v = |r: Role| Variant::Intrigue.piece_value(r);
    let mut board = sight.board(side);
    let Some(mover) = board.piece_at(m.from) else { return 0 };
    let mut s = sight.victim(m.to, side);
    board.remove(m.to);
    board.remove(m.from);
    let moved = m.promotion.map_or(mover, |r| r.of(side));
    board.put(m.to, moved);
    if let Some(p) = m.promotion {
        s += v(p) - v(Role::Pawn);
    }
    let occ = board.occupied();
    let attackers = attacks::standard_attackers(&board, m.to, !side, occ);
    if attackers.any() {
        let cheapest =
            attackers.filter_map(|sq| board.piece_at(sq)).map(|p| v(p.role)).min().unwrap_or(0);
        let defended = attacks::standard_attackers(&board, m.to, side, occ).any();
        s -= if defended { (v(moved.role) - cheapest).max(0) } else { v(moved.role) };
    }
    if mover.role == Role::Pawn {
        s += 6 * advance(side, m.to, BoardSize::Eight);
    }
    s
}

/// Kriegspiel: what the umpire said decides which attempts come first (module docs).
fn kriegspiel_score(sight: &Sight, view: &SeatView, side: Color, a: &AnyAction) -> i64 {
    let Some(m) = a.as_move() else { return 0 };
    let Knows::Kriegspiel(k) = &view.knows else { return 0 };
    let Some(mover) = (match sight.at(m.from) {
        Cell::Man(p) => Some(p),
        _ => None,
    }) else {
        return 0;
    };
    // The announcement after the opponent's move, if it was the last move played.
    let last = k.announcements.last().filter(|_| k.to_move == side);
    let pawn_capture = mover.role == Role::Pawn && m.from.file() != m.to.file();
    let mut s = 0;
    if pawn_capture {
        // R-K2: the pawn tries are exactly the legal pawn captures, so with none announced a
        // pawn capture attempt is certainly illegal.
        return if last.is_some_and(|a| a.pawn_tries > 0) { 1_000 } else { -1_000 };
    }
    if let Some(c) = last.and_then(|a| a.capture)
        && c.square == m.to
    {
        s += 400 - Variant::Kriegspiel.piece_value(mover.role) / 10;
    }
    let in_check = last.is_some_and(|a| !a.checks.is_empty());
    if mover.role == Role::King {
        s += if in_check { 200 } else { -40 };
    }
    // Unseen men block long moves more often.
    let between = attacks::between(m.from, m.to).count();
    s -= 12 * i64::from(between);
    if mover.role == Role::Pawn {
        s += 20;
    }
    s
}

/// SIC: captures first (the most valuable target by the least valuable man), then reach.
fn sic_score(sight: &Sight, unknown: Bitboard, side: Color, a: &AnyAction) -> i64 {
    let Some(m) = a.as_move() else { return 0 };
    let v = |r: Role| Variant::Sic.piece_value(r);
    let Some(mover) = (match sight.at(m.from) {
        Cell::Man(p) => Some(p),
        _ => None,
    }) else {
        return 0;
    };
    let target = match sight.at(m.to) {
        Cell::Unknown => 300,
        // A legal move onto a square where an unmoved enemy man may stand may take it.
        Cell::Fog if unknown.contains(m.to) => 150,
        _ => sight.victim(m.to, side),
    };
    if target > 0 {
        return 10_000 + 10 * target - v(mover.role) / 10;
    }
    // Reach: how many possible enemy men the man attacks from its new square.
    let mut board = sight.board(side);
    board.remove(m.from);
    board.put(m.to, mover);
    let occ = board.occupied();
    let reach = attacks::standard(mover, m.to, occ, BoardSize::Eight).unwrap_or(Bitboard::EMPTY);
    let targets = BoardSize::Eight
        .squares()
        .filter(|sq| reach.contains(*sq))
        .filter(|sq| matches!(sight.at(*sq), Cell::Unknown) || unknown.contains(*sq));
    10 * targets.count() as i64 + if mover.role == Role::King { -30 } else { 0 }
}

// ------------------------------------------------------------------ 6x6

/// 6x6: each move by the threat its men then make on the enemy territory; a Life Freeze on the
/// moved man closest to dying.
fn sc6_scores(view: &SeatView, side: Color, actions: &[AnyAction]) -> Vec<i64> {
    use rules::secretchess6::{Action, TurnMove, territory};
    let Knows::SecretChess6(k) = &view.knows else { return vec![0; actions.len()] };
    let size = BoardSize::Six;
    let enemy = territory(!side) & size.mask();
    let back = size.rank_bb(size.last_rank(side));
    let mut board = Board::empty(size);
    for p in &k.pieces {
        board.put(p.square, p.role.of(side));
    }
    let powered: Bitboard = k.pieces.iter().filter(|p| p.powered).map(|p| p.square).collect();
    let threat = |board: &Board, powered: Bitboard| -> i64 {
        let occ = board.occupied();
        let mut all = Bitboard::EMPTY;
        for (sq, p) in board.pieces() {
            let reach = match p.role {
                Role::Queen => size.queen_attacks(sq, occ),
                Role::Rook => size.rook_attacks(sq, occ),
                Role::Bishop => size.bishop_attacks(sq, occ),
                Role::Knight if powered.contains(sq) => attacks::leaper_3_1(sq) & size.mask(),
                Role::Knight => size.knight_attacks(sq),
                _ => Bitboard::EMPTY,
            };
            all |= reach;
        }
        let on = all & enemy;
        i64::from(on.count()) + 2 * i64::from((on & back).count())
    };
    actions
        .iter()
        .map(|a| match a {
            AnyAction::SecretChess6(Action::Move { mv: TurnMove::Move { from, to, power } }) => {
                let mut b = board.clone();
                let Some(p) = b.remove(*from) else { return 0 };
                b.put(*to, p);
                let mut pw = powered;
                let was_powered = pw.contains(*from);
                pw.remove(*from);
                if *power || was_powered {
                    pw.insert(*to);
                }
                let fresh = k.pieces.iter().any(|q| q.square == *from && q.lifespan.is_none());
                10 * threat(&b, pw)
                    - if k.red.contains(*to) { 25 } else { 0 }
                    - if fresh { 15 } else { 0 }
            }
            AnyAction::SecretChess6(Action::LifeFreeze { piece }) => {
                let life = k.pieces.iter().find(|p| p.square == *piece).and_then(|p| p.lifespan);
                match life {
                    Some(l) => 100 - 10 * i64::from(l),
                    None => -10,
                }
            }
            AnyAction::SecretChess6(Action::EndTurn) => 0,
            _ => 0,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rules::kriegspiel::{Announcement, Answer};
    use rules::{AnyObservation, GameOptions};

    fn ask(seat: &Seat) -> Ask {
        Ask::Choose(seat.legal_actions())
    }

    fn decide(seat: &Seat, seed: u8) -> String {
        let mut bot = HouseBot::new([seed; 32]);
        let action = bot.decide_seeing(Some(seat), seat.variant(), seat.side(), &ask(seat));
        crate::view::action_text(seat.variant(), &action).expect("a move")
    }

    fn play(seat: &mut Seat, moves: &str) {
        let mut side = Color::White;
        for text in moves.split_whitespace() {
            let m = Move::parse_uci(text, BoardSize::Eight, Alphabet::ORTHODOX).expect("uci");
            seat.played(side, &AnyAction::Chess(m)).expect("legal");
            side = !side;
        }
    }

    #[test]
    fn in_chess_it_mates_in_one_and_takes_a_free_queen() {
        let mut seat = Seat::new(&GameOptions::Chess, Color::White);
        play(&mut seat, "e2e4 e7e5 f1c4 b8c6 d1h5 g8f6");
        for seed in 0..8 {
            assert_eq!(decide(&seat, seed), "h5f7", "scholar's mate, seed {seed}");
        }
        let mut seat = Seat::new(&GameOptions::Chess, Color::White);
        // Black's queen stands en prise on h4 to the knight on f3.
        play(&mut seat, "g1f3 e7e5 b1c3 d8h4");
        for seed in 0..8 {
            assert_eq!(decide(&seat, seed), "f3h4", "seed {seed}");
        }
    }

    #[test]
    fn in_kriegspiel_it_tries_pawn_captures_exactly_when_pawn_tries_are_announced() {
        let told = |tries: u32| {
            let mut seat = Seat::new(&GameOptions::default_for(Variant::Kriegspiel), Color::White);
            // Black's (first) move as announced to White: nothing, or pawn tries for White.
            let a =
                Announcement { capture: None, checks: Vec::new(), pawn_tries: tries, end: None };
            seat.told(&AnyObservation::Kriegspiel(Answer::Legal(a)));
            seat
        };
        let diagonal = |t: &str| {
            let b = t.as_bytes();
            b[1] == b'2' && b[0] != b[2] && b[3] == b'3'
        };
        for seed in 0..16 {
            let with = decide(&told(1), seed);
            assert!(diagonal(&with), "pawn tries announced, seed {seed}: {with}");
            let without = decide(&told(0), seed);
            assert!(!diagonal(&without), "no pawn tries, seed {seed}: {without}");
        }
    }
}

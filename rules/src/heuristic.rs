//! The house bot's scoring (issue 17: the per-game heuristics with the games, so the client's
//! bot has no per-game arm): each offered action of a seat scored from what the seat knows
//! only (its view and its own model of the game, never hidden truth). Deterministic; the
//! caller supplies the noise (Kriegspiel's) and breaks ties. The heuristics per game are
//! described in `client/src/housebot.rs`'s module docs.

use crate::seat::{Knows, Seat, SeatView};
use crate::{
    Alphabet, AnyAction, Bitboard, Board, BoardSize, Color, Move, Piece, Role, Square, Variant,
    attacks,
};

/// A score that beats every material count: a mate in one.
pub const MATE: i64 = 1_000_000;

/// Scores for each of `actions` offered to `side` at `seat`, or `None` where the seat's view
/// cannot be read (not its side, a board string it cannot parse, an open game not its turn).
/// `noise(n)` is asked for `0..n` once per action, in order, where a game adds noise to equal
/// looking moves (Kriegspiel).
pub fn scores(
    seat: &Seat,
    side: Color,
    actions: &[AnyAction],
    noise: &mut dyn FnMut(u64) -> i64,
) -> Option<Vec<i64>> {
    let view = seat.view();
    if view.side != side {
        return None;
    }
    let fen = view.board.as_str();
    match view.variant {
        Variant::Chess => {
            let pos = <crate::chess::Position as crate::Analysis>::from_fen(fen).ok()?;
            open_scores(&pos, side, actions)
        }
        Variant::Espionage => {
            let pos = <crate::espionage::Position as crate::Analysis>::from_fen(fen).ok()?;
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
            Some(scores.collect::<Vec<_>>().into_iter().map(|s| s + noise(8)).collect())
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

impl OpenPosition for crate::chess::Position {
    const VARIANT: Variant = Variant::Chess;
    fn board(&self) -> &Board {
        crate::chess::Position::board(self)
    }
    fn turn(&self) -> Color {
        crate::chess::Position::turn(self)
    }
    fn legal(&self) -> Vec<Move> {
        self.legal_moves().iter().copied().collect()
    }
    fn is_check(&self) -> bool {
        crate::chess::Position::is_check(self)
    }
    fn after(&self, m: &Move) -> Option<(Self, Option<Role>)> {
        let taken = self.captures(m);
        self.clone().play(m).ok().map(|p| (p, taken))
    }
    fn captures(&self, m: &Move) -> Option<Role> {
        self.capture_of(m).map(|(_, role, _)| role)
    }
    fn attackers(&self, sq: Square, by: Color) -> Bitboard {
        let board = crate::chess::Position::board(self);
        attacks::standard_attackers(board, sq, by, board.occupied())
    }
}

impl OpenPosition for crate::espionage::Position {
    const VARIANT: Variant = Variant::Espionage;
    fn board(&self) -> &Board {
        crate::espionage::Position::board(self)
    }
    fn turn(&self) -> Color {
        crate::espionage::Position::turn(self)
    }
    fn legal(&self) -> Vec<Move> {
        self.legal_moves()
    }
    fn is_check(&self) -> bool {
        crate::espionage::Position::is_check(self)
    }
    fn after(&self, m: &Move) -> Option<(Self, Option<Role>)> {
        self.play(m).ok().map(|(p, played)| (p, played.captured.map(|c| c.role)))
    }
    fn captures(&self, m: &Move) -> Option<Role> {
        // No en passant in Espionage (R-E4): a capture lands on its victim.
        let board = crate::espionage::Position::board(self);
        board
            .piece_at(m.to)
            .filter(|p| Some(p.color) != board.piece_at(m.from).map(|q| q.color))
            .map(|p| p.role)
    }
    fn attackers(&self, sq: Square, by: Color) -> Bitboard {
        crate::espionage::attackers(crate::espionage::Position::board(self), sq, by)
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
    use crate::secretchess6::{Action, TurnMove, territory};
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
    use crate::GameOptions;

    /// A mate in one scores [`MATE`], above every other move; a seat of the other side, or an
    /// open game's seat not to move, gets no scores.
    #[test]
    fn a_mate_in_one_scores_mate_and_only_the_side_to_move_is_scored() {
        let mut seat = Seat::new(&GameOptions::Chess, Color::White);
        let mut side = Color::White;
        for text in "e2e4 e7e5 f1c4 b8c6 d1h5 g8f6".split_whitespace() {
            let m = Move::parse_uci(text, BoardSize::Eight, Alphabet::ORTHODOX).expect("uci");
            seat.played(side, &AnyAction::Chess(m)).expect("legal");
            side = !side;
        }
        let legal = seat.legal_actions();
        let got = scores(&seat, Color::White, &legal, &mut |_| 0).expect("scored");
        let mates: Vec<String> = legal
            .iter()
            .zip(&got)
            .filter(|(_, s)| **s == MATE)
            .filter_map(|(a, _)| a.text())
            .collect();
        assert_eq!(mates, ["h5f7"]);
        assert_eq!(got.iter().filter(|s| **s >= MATE).count(), 1);
        assert_eq!(scores(&seat, Color::Black, &legal, &mut |_| 0), None);
    }
}

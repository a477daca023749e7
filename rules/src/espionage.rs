//! Espionage Chess (seed `004_…`, ruleset `espionage/sirotkin`): a 7x7 open game with Spies
//! and Cannons. Move generation, legality, position strings and the [`Game`] state.
//!
//! Everything is public (R-E5), so both sides are told the same [`Observation`] after every
//! move. The rules are RULES.md R-E1..R-E6 and the common rules R-C1..R-C4; where the seed is
//! loose, RULES.md wins. The decisions this module makes on top of RULES.md are listed here and
//! cited in the code by their letter.
//!
//! # Spy (R-E2)
//! The seed's answer to question 4 calls the Spy "a neutral wall, while itself does not
//! attack"; RULES.md R-E2 overrides it: the Spy attacks like a queen and can give check.
//! - **R-E2(a) attack is not capturability.** A Spy's attack set is always the queen's,
//!   whether or not the Spy itself may be captured. An immune Spy still blocks lines, screens
//!   for Cannons, defends its own pieces and attacks enemy squares.
//! - **R-E2(b) check.** A king attacked by an enemy Spy is in check, immune Spy or not. A king
//!   may not move onto, or stay on, a square an enemy Spy attacks. So a king can never step next
//!   to an enemy Spy, and a king cannot capture a piece defended by an enemy Spy. This holds
//!   for a capturable Spy too: the king may take it (when nothing defends it), not stand
//!   next to it. A Spy pins like a queen.
//! - **R-E2(c) only the Spy on the spy-square is capturable.** Every other Spy is not a legal
//!   capture target for any piece, the king included. A king in check from an immune Spy must
//!   block the line or move away; when the Spy stands next to the king, only a king move helps.
//! - **R-E2(d) when a Spy becomes capturable.** After a move that captures and leaves a Spy on
//!   the destination square, that square is the spy-square (R-E6) for exactly the opponent's
//!   next move. This includes a pawn that captures and promotes to a Spy: the piece that now
//!   stands there got there by a capture. A Spy's quiet move, a quiet promotion to a Spy, or any
//!   other move leaves every Spy immune. If the opponent does not capture the exposed Spy on
//!   that move, it is immune again.
//! - **R-E2(e) Spy against Spy.** A Spy may capture an enemy Spy only when that Spy stands on
//!   the spy-square, like any other piece.
//!
//! # Cannon (R-E3)
//! - **R-E3(a) quiet moves** go 1 to 4 squares along a rank or file over empty squares only.
//! - **R-E3(b) captures** go along a rank or file over exactly one piece (either side, any kind,
//!   an immune Spy or a king included) onto the first piece beyond it, which must be a capturable
//!   enemy piece at most 4 squares from the Cannon's square (so the screen stands 1 to 3 squares
//!   away). A Cannon never captures without a screen.
//! - **R-E3(c) attack set** (for check and for king safety): the squares it could capture on
//!   with the same geometry, that is the first occupied square beyond exactly one screen, within
//!   4 squares.
//!
//! # Pawns (R-E4)
//! One step forward, diagonal captures, no double step, no en passant, no castling for anyone.
//! A pawn reaching rank 6 (White) or rank 2 (Black) must promote, to Q, R, B, N, C or S, as
//! many as the player likes. **R-E4(a)** A White pawn therefore never stands on rank 6 or 7 and a
//! Black pawn never on rank 2 or 1: a position string with such a pawn is refused with an error
//! naming the pawn. White pawns on ranks 1-2 and Black pawns on ranks 6-7 cannot be reached
//! either, but they can move, so analysis positions (R-A1) may contain them; they step forward
//! one square as usual.
//!
//! # Position strings (R-E6)
//! `board side spy-square halfmove fullmove`, for example [`START_FEN`]. **R-E6(a)** A
//! position is accepted when it has exactly one king per side, no pawn on or beyond its
//! promotion rank, a spy-square that is `-` or holds a Spy of the side that just moved, and the
//! side not to move is not in check (its king could be taken: not a position of chess).
//!
//! # Game end (R-C1, R-C2)
//! After every move, in this order: no legal move and in check is checkmate; no legal move
//! otherwise is stalemate (a draw); then insufficient material (exactly R-C2's list, Spies and
//! Cannons are mating material); then threefold repetition, comparing board, side to move and
//! spy-square (not the move counters); then the 50-move rule (100 plies without a capture or
//! pawn move). All of these draws are automatic.

use crate::attacks;
use crate::{
    ActionError, Alphabet, Analysis, Bitboard, Board, BoardSize, ByColor, Color, EndReason,
    FenError, Game, GameResult, Move, Piece, Role, Square, Transition, Variant,
};
use serde::{Deserialize, Serialize};

/// The board size (R-E1).
pub const SIZE: BoardSize = BoardSize::Seven;

/// The piece letters (R-C3): orthodox plus S (Spy) and C (Cannon).
pub const ALPHABET: Alphabet = Alphabet::ESPIONAGE;

/// The start position of R-E1 as an R-E6 position string.
pub const START_FEN: &str = "1k1cbc1/rnsqbnr/1pppppp/7/PPPPPP1/RNBQSNR/1CBC1K1 w - 0 1";

/// How far a Cannon reaches, for moving and for capturing (R-E3).
pub const CANNON_RANGE: u8 = 4;

/// The pieces a pawn may promote to, always (R-E4), in the order moves are generated.
pub const PROMOTION_ROLES: [Role; 6] =
    [Role::Queen, Role::Rook, Role::Bishop, Role::Knight, Role::Cannon, Role::Spy];

/// The four orthogonal directions, for the Cannon.
const ORTHOGONAL: [(i8, i8); 4] = [(0, 1), (1, 0), (0, -1), (-1, 0)];

/// The rank (0-based) on which `color`'s pawns promote (R-E4): rank 6 for White, 2 for Black.
#[must_use]
pub const fn promotion_rank(color: Color) -> u8 {
    match color {
        Color::White => 5,
        Color::Black => 1,
    }
}

/// The rank direction in which `color`'s pawns move.
const fn forward(color: Color) -> i8 {
    match color {
        Color::White => 1,
        Color::Black => -1,
    }
}

/// The square `n` steps from `sq` in direction `(df, dr)`, if it is on the 7x7 board.
fn step(sq: Square, df: i8, dr: i8, n: u8) -> Option<Square> {
    let n = n as i8;
    sq.offset(df * n, dr * n).filter(|s| SIZE.contains(*s))
}

/// R-E3(a): the empty squares a Cannon on `sq` can move to without capturing.
#[must_use]
pub fn cannon_quiet(sq: Square, occ: Bitboard) -> Bitboard {
    let mut out = Bitboard::EMPTY;
    for (df, dr) in ORTHOGONAL {
        for n in 1..=CANNON_RANGE {
            match step(sq, df, dr, n) {
                Some(to) if !occ.contains(to) => out.insert(to),
                _ => break,
            }
        }
    }
    out
}

/// R-E3(b, c): the squares a Cannon on `sq` attacks: along each rank and file, the first
/// occupied square beyond exactly one screen, at most [`CANNON_RANGE`] squares away. The
/// relation is symmetric (the squares between are the same both ways), so the same function
/// finds the Cannons that attack a square.
#[must_use]
pub fn cannon_attacks(sq: Square, occ: Bitboard) -> Bitboard {
    let mut out = Bitboard::EMPTY;
    for (df, dr) in ORTHOGONAL {
        let mut screened = false;
        for n in 1..=CANNON_RANGE {
            let Some(to) = step(sq, df, dr, n) else { break };
            if occ.contains(to) {
                if screened {
                    out.insert(to);
                    break;
                }
                screened = true;
            }
        }
    }
    out
}

/// The squares a `piece` on `sq` attacks with occupancy `occ` (R-E2(a), R-E3(c)).
#[must_use]
pub fn attacks_from(piece: Piece, sq: Square, occ: Bitboard) -> Bitboard {
    match piece.role {
        Role::Spy => SIZE.queen_attacks(sq, occ),
        Role::Cannon => cannon_attacks(sq, occ),
        _ => attacks::standard(piece, sq, occ, SIZE).unwrap_or(Bitboard::EMPTY),
    }
}

/// The pieces of `by` that attack `sq` on `board` (R-E2(b): Spies attack like queens whether
/// or not they may be captured; R-E3(c): Cannons attack through one screen).
#[must_use]
pub fn attackers(board: &Board, sq: Square, by: Color) -> Bitboard {
    let occ = board.occupied();
    let them = board.by_color(by);
    attacks::standard_attackers(board, sq, by, occ)
        | (SIZE.queen_attacks(sq, occ) & board.by_role(Role::Spy) & them)
        | (cannon_attacks(sq, occ) & board.by_role(Role::Cannon) & them)
}

/// What a move did, besides the new position.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Played {
    /// The piece taken, if any (always on the move's destination: there is no en passant).
    pub captured: Option<Piece>,
}

/// An Espionage Chess position: board, side to move, capturable Spy and move counters (R-E6).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    board: Board,
    turn: Color,
    spy_square: Option<Square>,
    halfmove: u32,
    fullmove: u32,
}

impl Position {
    /// The start position (R-E1).
    ///
    /// # Panics
    /// Never: [`START_FEN`] is a constant checked by the tests.
    #[must_use]
    pub fn start() -> Position {
        Position::from_fen(START_FEN).expect("START_FEN is a valid position")
    }

    /// Where the pieces stand.
    #[must_use]
    pub const fn board(&self) -> &Board {
        &self.board
    }

    /// The side to move.
    #[must_use]
    pub const fn turn(&self) -> Color {
        self.turn
    }

    /// The square of the enemy Spy that may be captured on this move (R-E2(d), R-E6).
    #[must_use]
    pub const fn spy_square(&self) -> Option<Square> {
        self.spy_square
    }

    /// Plies since the last capture or pawn move (R-C2).
    #[must_use]
    pub const fn halfmove(&self) -> u32 {
        self.halfmove
    }

    /// The move number, starting at 1 and counting up after each Black move.
    #[must_use]
    pub const fn fullmove(&self) -> u32 {
        self.fullmove
    }

    /// Whether the side to move is in check (R-E2(b), R-E3(c)).
    #[must_use]
    pub fn is_check(&self) -> bool {
        self.king_attacked(self.turn)
    }

    fn king_attacked(&self, color: Color) -> bool {
        self.board.king_of(color).is_some_and(|k| attackers(&self.board, k, color.other()).any())
    }

    /// The enemy pieces the side to move may capture: not the king (kings are never taken),
    /// and no Spy but the one on the spy-square (R-E2(c)).
    fn capture_targets(&self) -> Bitboard {
        let them = self.board.by_color(self.turn.other());
        let mut immune = self.board.by_role(Role::King) | self.board.by_role(Role::Spy);
        if let Some(sq) = self.spy_square {
            immune.remove(sq);
        }
        them & !immune
    }

    /// Every move that obeys the pieces' movement, before the own-king test.
    fn pseudo_legal(&self, out: &mut Vec<Move>) {
        let us = self.turn;
        let occ = self.board.occupied();
        let empty = SIZE.mask() & !occ;
        let targets = self.capture_targets();
        for from in self.board.by_color(us) {
            let piece = self.board.piece_at(from).expect("a square of our color holds a piece");
            let dests = match piece.role {
                Role::Pawn => {
                    // R-E4: one step forward onto an empty square, or a diagonal capture.
                    let push = from.offset(0, forward(us)).map_or(Bitboard::EMPTY, Square::bb);
                    let caps = attacks::pawn(us, from) & targets;
                    for to in (push & empty) | caps {
                        if to.rank() == promotion_rank(us) {
                            for role in PROMOTION_ROLES {
                                out.push(Move { from, to, promotion: Some(role) });
                            }
                        } else {
                            out.push(Move::new(from, to));
                        }
                    }
                    continue;
                }
                Role::Cannon => cannon_quiet(from, occ) | (cannon_attacks(from, occ) & targets),
                _ => attacks_from(piece, from, occ) & (empty | targets),
            };
            out.extend(dests.map(|to| Move::new(from, to)));
        }
    }

    /// The legal moves, in generation order.
    #[must_use]
    pub fn legal_moves(&self) -> Vec<Move> {
        // A hint, not a bound: the start position has 21 moves, busy middlegames rarely 100.
        let mut moves = Vec::with_capacity(64);
        self.pseudo_legal(&mut moves);
        let us = self.turn;
        moves.retain(|m| !self.play_unchecked(*m).0.king_attacked(us));
        moves
    }

    /// Whether `m` is legal here: one of [`Self::legal_moves`] (generated, and not leaving the
    /// king attacked), testing only `m` for the king.
    #[must_use]
    pub fn is_legal(&self, m: &Move) -> bool {
        self.play_legal(m).is_some()
    }

    /// Whether the side to move has a legal move (`!legal_moves().is_empty()`, stopping at the
    /// first one found).
    #[must_use]
    pub fn has_legal_move(&self) -> bool {
        let mut moves = Vec::with_capacity(64);
        self.pseudo_legal(&mut moves);
        moves.iter().any(|m| !self.play_unchecked(*m).0.king_attacked(self.turn))
    }

    /// The position after `m` if `m` is legal ([`Self::legal_moves`] contains it).
    fn play_legal(&self, m: &Move) -> Option<(Position, Played)> {
        let mut moves = Vec::with_capacity(64);
        self.pseudo_legal(&mut moves);
        if !moves.contains(m) {
            return None;
        }
        let (next, played) = self.play_unchecked(*m);
        (!next.king_attacked(self.turn)).then_some((next, played))
    }

    /// Plays a legal move; refuses any other with [`ActionError::IllegalMove`].
    pub fn play(&self, m: &Move) -> Result<(Position, Played), ActionError> {
        self.play_legal(m).ok_or_else(|| ActionError::IllegalMove(m.uci(ALPHABET)))
    }

    /// Plays a move generated by [`Self::pseudo_legal`].
    fn play_unchecked(&self, m: Move) -> (Position, Played) {
        let mut board = self.board.clone();
        let piece = board.remove(m.from).expect("a generated move starts on a piece");
        let captured = board.remove(m.to);
        let placed = m.promotion.map_or(piece, |role| role.of(piece.color));
        board.put(m.to, placed);
        // R-E2(d): a capture that leaves a Spy on its destination exposes it for one ply.
        let spy_square = (captured.is_some() && placed.role == Role::Spy).then_some(m.to);
        let halfmove = if captured.is_some() || piece.role == Role::Pawn {
            0
        } else {
            self.halfmove.saturating_add(1)
        };
        let fullmove = match self.turn {
            Color::White => self.fullmove,
            Color::Black => self.fullmove.saturating_add(1),
        };
        let next = Position { board, turn: self.turn.other(), spy_square, halfmove, fullmove };
        (next, Played { captured })
    }

    fn perft_inner(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let moves = self.legal_moves();
        if depth == 1 {
            return moves.len() as u64;
        }
        moves.iter().map(|m| self.play_unchecked(*m).0.perft_inner(depth - 1)).sum()
    }
}

fn parse_u32(field: &'static str, s: &str) -> Result<u32, FenError> {
    s.parse::<u32>()
        .map_err(|_| FenError::new(field, format!("'{s}' is not a non-negative whole number")))
}

impl Analysis for Position {
    fn from_fen(fen: &str) -> Result<Position, FenError> {
        let fields: Vec<&str> = fen.split_whitespace().collect();
        let [board, side, spy, halfmove, fullmove] = fields[..] else {
            return Err(FenError::new(
                "position",
                format!(
                    "expected 5 fields (board side spy-square halfmove fullmove), found {}",
                    fields.len()
                ),
            ));
        };
        let board = Board::from_board_fen(board, SIZE, ALPHABET)?;
        let turn = match side {
            "w" => Color::White,
            "b" => Color::Black,
            _ => return Err(FenError::new("side", format!("'{side}' is not w or b"))),
        };
        for color in Color::ALL {
            let kings = board.by_piece(Role::King.of(color)).count();
            if kings != 1 {
                return Err(FenError::new(
                    "board",
                    format!("{color} has {kings} kings, exactly one is required (R-A1)"),
                ));
            }
            // R-E4(a): a pawn on or beyond its promotion rank would already have promoted.
            let pawns = board.by_piece(Role::Pawn.of(color));
            let mut bad = pawns.filter(|sq| match color {
                Color::White => sq.rank() >= promotion_rank(color),
                Color::Black => sq.rank() <= promotion_rank(color),
            });
            if let Some(sq) = bad.next() {
                return Err(FenError::new(
                    "board",
                    format!(
                        "{color} pawn on {sq}: {color} pawns promote on rank {} (R-E4)",
                        promotion_rank(color) + 1
                    ),
                ));
            }
        }
        let spy_square = match spy {
            "-" => None,
            _ => {
                let sq = Square::parse(spy, SIZE).ok_or_else(|| {
                    FenError::new("spy-square", format!("'{spy}' is not '-' or a square a1-g7"))
                })?;
                let mover = turn.other();
                if board.piece_at(sq) != Some(Role::Spy.of(mover)) {
                    return Err(FenError::new(
                        "spy-square",
                        format!("{sq} does not hold a spy of the side that just moved ({mover})"),
                    ));
                }
                Some(sq)
            }
        };
        let halfmove = parse_u32("halfmove", halfmove)?;
        let fullmove = parse_u32("fullmove", fullmove)?;
        if fullmove == 0 {
            return Err(FenError::new("fullmove", "the move number starts at 1"));
        }
        let pos = Position { board, turn, spy_square, halfmove, fullmove };
        if pos.king_attacked(turn.other()) {
            return Err(FenError::new(
                "board",
                format!("{} is in check but it is {turn}'s move (R-E6(a))", turn.other()),
            ));
        }
        Ok(pos)
    }

    fn to_fen(&self) -> String {
        let spy = self.spy_square.map_or_else(|| "-".to_string(), |sq| sq.to_string());
        format!(
            "{} {} {spy} {} {}",
            self.board.board_fen(ALPHABET),
            self.turn.char(),
            self.halfmove,
            self.fullmove
        )
    }

    fn legal_uci(&self) -> Vec<String> {
        let mut moves: Vec<String> = self.legal_moves().iter().map(|m| m.uci(ALPHABET)).collect();
        moves.sort();
        moves
    }

    fn perft(&self, depth: u32) -> u64 {
        self.perft_inner(depth)
    }

    fn divide(&self, depth: u32) -> Vec<(String, u64)> {
        if depth == 0 {
            return Vec::new();
        }
        let mut out: Vec<(String, u64)> = self
            .legal_moves()
            .iter()
            .map(|m| (m.uci(ALPHABET), self.play_unchecked(*m).0.perft_inner(depth - 1)))
            .collect();
        out.sort();
        out
    }
}

/// What both sides are told after a move (R-E5: everything is public, so the two are equal).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "EspionageObservation"))]
pub struct Observation {
    /// Who moved.
    pub mover: Color,
    /// The move played, UCI-style (`d2d3`, `a5a6s`).
    #[serde(rename = "move")]
    pub uci: String,
    /// The kind of piece captured on the destination square, if any.
    pub capture: Option<Role>,
    /// Whether the side now to move is in check.
    pub check: bool,
    /// The result, if this move ended the game.
    pub end: Option<GameResult>,
}

/// What R-C2's repetition rule compares: the full position without the move counters.
#[derive(Clone, Debug, PartialEq, Eq)]
struct RepetitionKey {
    board: Board,
    turn: Color,
    spy_square: Option<Square>,
}

impl RepetitionKey {
    fn of(pos: &Position) -> RepetitionKey {
        RepetitionKey { board: pos.board.clone(), turn: pos.turn, spy_square: pos.spy_square }
    }
}

/// A game of Espionage Chess in progress: the position, the positions since the last capture
/// or pawn move (for repetition), and the result once over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    position: Position,
    /// Positions since the last irreversible move, the current one last. Earlier positions
    /// cannot recur: captures and pawn moves cannot be undone.
    history: Vec<RepetitionKey>,
    result: Option<GameResult>,
}

impl Default for State {
    fn default() -> State {
        State::new()
    }
}

impl State {
    /// A new game from the start position (R-E1).
    #[must_use]
    pub fn new() -> State {
        State::from_position(Position::start())
    }

    /// A game from any accepted position (R-A1). It may already be over (no legal move,
    /// insufficient material, or 100 plies without capture or pawn move).
    #[must_use]
    pub fn from_position(position: Position) -> State {
        let history = vec![RepetitionKey::of(&position)];
        let mut state = State { position, history, result: None };
        state.result = state.judge();
        state
    }

    /// A game from a position string (R-E6).
    pub fn from_fen(fen: &str) -> Result<State, FenError> {
        Position::from_fen(fen).map(State::from_position)
    }

    /// The current position.
    #[must_use]
    pub const fn position(&self) -> &Position {
        &self.position
    }

    /// The legal moves of the side to move (none once the game is over).
    #[must_use]
    pub fn legal_moves(&self) -> Vec<Move> {
        if self.result.is_some() { Vec::new() } else { self.position.legal_moves() }
    }

    /// R-C1/R-C2: the result of the current position, in the order of the module docs.
    fn judge(&self) -> Option<GameResult> {
        let pos = &self.position;
        if !pos.has_legal_move() {
            return Some(if pos.is_check() {
                GameResult::win(pos.turn.other(), EndReason::Checkmate)
            } else {
                GameResult::draw(EndReason::Stalemate)
            });
        }
        if pos.board.insufficient_material() {
            return Some(GameResult::draw(EndReason::InsufficientMaterial));
        }
        let current = self.history.last().expect("the history holds the current position");
        if self.history.iter().filter(|k| *k == current).count() >= 3 {
            return Some(GameResult::draw(EndReason::Repetition));
        }
        if pos.halfmove >= 100 {
            return Some(GameResult::draw(EndReason::FiftyMove));
        }
        None
    }
}

impl Game for State {
    type Action = Move;
    type Observation = Observation;

    fn variant(&self) -> Variant {
        Variant::Espionage
    }

    fn to_act(&self) -> Vec<Color> {
        if self.result.is_some() { Vec::new() } else { vec![self.position.turn] }
    }

    fn apply(
        &self,
        actor: Color,
        action: &Move,
    ) -> Result<Transition<State, Observation>, ActionError> {
        if self.result.is_some() {
            return Err(ActionError::GameOver);
        }
        if actor != self.position.turn {
            return Err(ActionError::NotYourTurn(actor));
        }
        let (position, played) = self.position.play(action)?;
        let mut history = if position.halfmove == 0 { Vec::new() } else { self.history.clone() };
        history.push(RepetitionKey::of(&position));
        let mut state = State { position, history, result: None };
        state.result = state.judge();
        let told = Observation {
            mover: actor,
            uci: action.uci(ALPHABET),
            capture: played.captured.map(|p| p.role),
            check: state.position.is_check(),
            end: state.result,
        };
        Ok(Transition { state, told: ByColor { white: Some(told.clone()), black: Some(told) } })
    }

    fn result(&self) -> Option<GameResult> {
        self.result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(s: &str) -> Square {
        Square::parse(s, SIZE).expect("test square")
    }

    #[test]
    fn cannon_geometry_counts_from_the_cannon() {
        // Screen on a2, pieces on a4 and a6: only a4 is within range beyond the screen.
        let occ = sq("a2").bb() | sq("a4").bb() | sq("a6").bb();
        let a = cannon_attacks(sq("a1"), occ);
        assert_eq!(a, sq("a4").bb());
        assert_eq!(
            cannon_quiet(sq("a1"), occ),
            sq("b1").bb() | sq("c1").bb() | sq("d1").bb() | sq("e1").bb()
        );
    }

    #[test]
    fn start_round_trips() {
        assert_eq!(Position::start().to_fen(), START_FEN);
    }
}

//! Intrigue positions: the full position with its hidden parts, its position string (R-I6),
//! legal moves (orthodox pieces, R-I3 hidden kings, R-I5 distance castling) and what a move
//! does (R-I2 inspection and appearance, R-I4 king captures).

use crate::attacks::{self, standard_attackers};
use crate::{
    Alphabet, Analysis, Bitboard, Board, BoardSize, ByColor, Color, EndReason, FenError,
    GameResult, Move, Piece, Role, Square,
};
use serde::{Deserialize, Serialize};

const SIZE: BoardSize = BoardSize::Eight;
const ALPHABET: Alphabet = Alphabet::ORTHODOX;
const PROMOTIONS: [Role; 4] = [Role::Queen, Role::Rook, Role::Bishop, Role::Knight];

/// The castling letters in print order with the rook's corner (see the module docs).
const CASTLING: [(char, Color, u8, u8); 4] = [
    ('K', Color::White, 7, 0),
    ('Q', Color::White, 0, 0),
    ('k', Color::Black, 7, 7),
    ('q', Color::Black, 0, 7),
];

/// A full Intrigue position: the board (visible kings only), the side to move, castling rights,
/// en passant, clocks, and the hidden parts: where each hidden king hides and where each
/// informer pawn stands.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    board: Board,
    turn: Color,
    /// Squares of rooks (of the color standing there) that may still castle (R-I5).
    castling: Bitboard,
    ep: Option<Square>,
    halfmove: u32,
    fullmove: u32,
    /// The square where each side's king hides; `None` once it is on the board (or absent).
    hidden: ByColor<Option<Square>>,
    /// The current square of each side's informer pawn; `None` once gone or promoted (R-I2).
    informer: ByColor<Option<Square>>,
}

/// A captured man, as announced to both sides.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "IntrigueCapture"))]
pub struct Capture {
    /// Where the captured man stood (for en passant, the captured pawn's square).
    pub square: Square,
    /// What it was.
    pub piece: Piece,
    /// Whether the capture was en passant.
    pub en_passant: bool,
}

/// R-I2: the owner's answer after one of its pawns was captured.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Inspection {
    /// The side whose pawn was captured and who answers.
    pub owner: Color,
    /// Whether the pawn was the informer.
    pub informer: bool,
    /// If it was: where the owner's king appeared.
    pub appeared: Option<Appearance>,
}

/// A king appearing on the board (R-I2).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Appearance {
    /// The king's hiding square, where it now stands.
    pub square: Square,
    /// The piece that stood there and was removed, whoever owned it.
    pub removed: Option<Piece>,
}

/// What a move did, besides moving its piece. Everything here is public in Intrigue.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Effects {
    /// The man captured by the move itself.
    pub capture: Option<Capture>,
    /// The answer about a captured pawn (R-I2).
    pub inspection: Option<Inspection>,
    /// An end decided by the move itself: R-I4 king captures. Checkmate, stalemate and R-C2
    /// draws are decided by the caller from the new position.
    pub end: Option<GameResult>,
}

fn sq(file: u8, rank: u8) -> Square {
    Square::new(file, rank).expect("file and rank are below 8")
}

/// Whether any piece of `by` attacks `target` on `board` (hidden kings are not on the board,
/// so they neither attack nor can be attacked, R-I3).
fn attacked(board: &Board, target: Square, by: Color) -> bool {
    standard_attackers(board, target, by, board.occupied()).any()
}

impl Position {
    /// The board (hidden kings are not on it).
    #[must_use]
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The side to move.
    #[must_use]
    pub fn turn(&self) -> Color {
        self.turn
    }

    /// Where `color`'s king hides, if it is hidden.
    #[must_use]
    pub fn hidden_king(&self, color: Color) -> Option<Square> {
        self.hidden[color]
    }

    /// The square of `color`'s informer pawn, if it still has one.
    #[must_use]
    pub fn informer(&self, color: Color) -> Option<Square> {
        self.informer[color]
    }

    /// The halfmove clock (plies since the last capture or pawn move, R-C2).
    #[must_use]
    pub fn halfmove(&self) -> u32 {
        self.halfmove
    }

    /// Whether `color`'s king is on the board and attacked (a hidden king never is, R-I3).
    #[must_use]
    pub fn in_check(&self, color: Color) -> bool {
        self.board.king_of(color).is_some_and(|k| attacked(&self.board, k, color.other()))
    }

    /// The start position after both secret setups (R-I1): orthodox armies without kings, each
    /// queen on its own square or on the king's home square, both castling rights of each side.
    #[must_use]
    pub fn start(
        hidden: ByColor<Square>,
        informer: ByColor<Square>,
        queen_on_king_square: ByColor<bool>,
    ) -> Position {
        let mut board = Board::empty(SIZE);
        for color in Color::ALL {
            let (back, pawns) = color.fold((0, 1), (7, 6));
            let queen_file = if queen_on_king_square[color] { 4 } else { 3 };
            for (file, role) in [
                (0, Role::Rook),
                (1, Role::Knight),
                (2, Role::Bishop),
                (queen_file, Role::Queen),
                (5, Role::Bishop),
                (6, Role::Knight),
                (7, Role::Rook),
            ] {
                board.put(sq(file, back), role.of(color));
            }
            for file in 0..8 {
                board.put(sq(file, pawns), Role::Pawn.of(color));
            }
        }
        Position {
            board,
            turn: Color::White,
            castling: [sq(0, 0), sq(7, 0), sq(0, 7), sq(7, 7)].into_iter().collect(),
            ep: None,
            halfmove: 0,
            fullmove: 1,
            hidden: hidden.map(Some),
            informer: informer.map(Some),
        }
    }

    /// The castling field.
    fn castling_fen(&self) -> String {
        let s: String = CASTLING
            .iter()
            .filter(|&&(_, _, file, rank)| self.castling.contains(sq(file, rank)))
            .map(|&(c, ..)| c)
            .collect();
        if s.is_empty() { "-".to_string() } else { s }
    }

    /// The first four fields (board, side, castling, ep): with the hidden fields, what R-C2
    /// repetition compares.
    fn fen_placement(&self) -> String {
        format!(
            "{} {} {} {}",
            self.board.board_fen(ALPHABET),
            self.turn.char(),
            self.castling_fen(),
            self.ep.map_or_else(|| "-".to_string(), |s| s.to_string()),
        )
    }

    /// The two hidden fields as `viewer` may see them (`None`: the full position). The
    /// opponent's entries are `?` while its king is hidden: whether its informer still exists
    /// is not public either (R-I2, a promotion is not announced).
    fn hidden_fields(&self, viewer: Option<Color>) -> String {
        let entry = |color: Color, value: Option<Square>| {
            if viewer.is_some_and(|v| v != color) && self.hidden[color].is_some() {
                "?".to_string()
            } else {
                value.map_or_else(|| "-".to_string(), |s| s.to_string())
            }
        };
        format!(
            "{},{} {},{}",
            entry(Color::White, self.hidden.white),
            entry(Color::Black, self.hidden.black),
            entry(Color::White, self.informer.white),
            entry(Color::Black, self.informer.black),
        )
    }

    /// The position string as `side` may see it (R-I6), with `?` for the opponent's secrets.
    #[must_use]
    pub fn view_fen(&self, side: Color) -> String {
        format!(
            "{} {} {} {}",
            self.fen_placement(),
            self.halfmove,
            self.fullmove,
            self.hidden_fields(Some(side))
        )
    }

    /// The full position without the clocks: what R-C2 repetition compares (hidden parts and
    /// the side to move included).
    #[must_use]
    pub fn repetition_key(&self) -> String {
        format!("{} {}", self.fen_placement(), self.hidden_fields(None))
    }

    /// Pseudo-legal moves of the side to move: orthodox moves that never capture a king, plus
    /// R-I5 castling.
    fn pseudo_moves(&self) -> Vec<Move> {
        let us = self.turn;
        let them = us.other();
        let occ = self.board.occupied();
        let own = self.board.by_color(us);
        let enemy = self.board.by_color(them) & !self.board.by_piece(Role::King.of(them));
        let targets = !own & !self.board.by_piece(Role::King.of(them));
        let forward: i8 = us.fold(1, -1);
        let last_rank = SIZE.last_rank(us);
        let start_rank = us.fold(1, 6);
        // Up to 218 moves in orthodox chess; a small reserve avoids most regrowth.
        let mut moves = Vec::with_capacity(64);
        let pawn_to = |moves: &mut Vec<Move>, from: Square, to: Square| {
            if to.rank() == last_rank {
                for role in PROMOTIONS {
                    moves.push(Move { from, to, promotion: Some(role) });
                }
            } else {
                moves.push(Move::new(from, to));
            }
        };
        for from in own {
            let piece = self.board.piece_at(from).expect("own square is occupied");
            match piece.role {
                Role::Pawn => {
                    if let Some(one) = from.offset(0, forward).filter(|s| !occ.contains(*s)) {
                        pawn_to(&mut moves, from, one);
                        if from.rank() == start_rank
                            && let Some(two) = one.offset(0, forward).filter(|s| !occ.contains(*s))
                        {
                            moves.push(Move::new(from, two));
                        }
                    }
                    for to in attacks::pawn(us, from) & enemy {
                        pawn_to(&mut moves, from, to);
                    }
                    if let Some(ep) = self.ep
                        && attacks::pawn(us, from).contains(ep)
                    {
                        moves.push(Move::new(from, ep));
                    }
                }
                _ => {
                    let reach = attacks::standard(piece, from, occ, SIZE)
                        .expect("orthodox roles have standard attacks");
                    for to in reach & targets {
                        moves.push(Move::new(from, to));
                    }
                    if piece.role == Role::King {
                        self.castling_moves(from, &mut moves);
                    }
                }
            }
        }
        moves
    }

    /// R-I5: the king on `king` castles with an unmoved rook on its rank or file from any
    /// distance: all squares between them empty, the king not in check and not crossing an
    /// attacked square (the square the rook goes to). Landing on an attacked square is left to
    /// the legality filter. Written as the king's from and to squares.
    fn castling_moves(&self, king: Square, moves: &mut Vec<Move>) {
        let us = self.turn;
        let them = us.other();
        let rooks = self.castling & self.board.by_piece(Role::Rook.of(us));
        if rooks.is_empty() || attacked(&self.board, king, them) {
            return;
        }
        let occ = self.board.occupied();
        for rook in rooks {
            let (df, dr) = (
                (rook.file() as i8 - king.file() as i8).signum(),
                (rook.rank() as i8 - king.rank() as i8).signum(),
            );
            // Castling rights are kept only for rooks on the king's rank or file.
            if df != 0 && dr != 0 {
                continue;
            }
            let (Some(rook_to), Some(king_to)) = (king.offset(df, dr), king.offset(2 * df, 2 * dr))
            else {
                continue;
            };
            if rook == rook_to
                || attacks::between(king, rook).intersects(occ)
                || attacked(&self.board, rook_to, them)
            {
                continue;
            }
            moves.push(Move::new(king, king_to));
        }
    }

    /// Moves the pieces for `m` (assumed pseudo-legal) and updates castling, en passant,
    /// clocks and the informer's square; no inspection, no appearance. Returns the capture.
    fn make(&self, m: Move) -> (Position, Option<Capture>) {
        let us = self.turn;
        let them = us.other();
        let mut next = self.clone();
        let piece = self.board.piece_at(m.from).expect("a move starts on its piece");
        let df = m.to.file() as i8 - m.from.file() as i8;
        let dr = m.to.rank() as i8 - m.from.rank() as i8;
        let mut capture = None;
        if piece.role == Role::King && (df.abs() == 2 || dr.abs() == 2) {
            // R-I5 castling: the rook is the first piece beyond the king's landing direction.
            let (sf, sr) = (df.signum(), dr.signum());
            let rook_to = m.from.offset(sf, sr).expect("castling passes this square");
            let mut rook = rook_to;
            while !self.board.occupied().contains(rook) {
                rook = rook.offset(sf, sr).expect("a castling rook lies on this ray");
            }
            next.board.remove(m.from);
            let rook_piece = next.board.remove(rook).expect("the castling rook");
            next.board.put(rook_to, rook_piece);
            next.board.put(m.to, piece);
        } else {
            if piece.role == Role::Pawn && Some(m.to) == self.ep {
                let victim = sq(m.to.file(), m.from.rank());
                let p = next.board.remove(victim).expect("en passant captures a pawn");
                capture = Some(Capture { square: victim, piece: p, en_passant: true });
            }
            if let Some(p) = next.board.shift(m.from, m.to) {
                capture = Some(Capture { square: m.to, piece: p, en_passant: false });
            }
            if let Some(role) = m.promotion {
                next.board.put(m.to, role.of(us));
            }
        }
        next.castling.remove(m.from);
        next.castling.remove(m.to);
        if piece.role == Role::King {
            next.castling &= !self.board.by_color(us);
        }
        if self.informer[us] == Some(m.from) {
            // R-I2: a promoted informer can no longer be inspected.
            next.informer[us] = if m.promotion.is_some() { None } else { Some(m.to) };
        }
        next.ep = None;
        if piece.role == Role::Pawn && dr.abs() == 2 {
            let beside = attacks::king(m.to) & SIZE.rank_bb(m.to.rank());
            if (beside & self.board.by_piece(Role::Pawn.of(them))).any() {
                next.ep = m.from.offset(0, dr / 2);
            }
        }
        next.halfmove =
            if piece.role == Role::Pawn || capture.is_some() { 0 } else { self.halfmove + 1 };
        if us == Color::Black {
            next.fullmove += 1;
        }
        next.turn = them;
        (next, capture)
    }

    /// The legal moves of the side to move. With its king on the board, a move may not leave
    /// it attacked; with the king hidden (or absent) every pseudo-legal move is legal (R-I3).
    #[must_use]
    pub fn legal_moves(&self) -> Vec<Move> {
        let mut moves = self.pseudo_moves();
        let us = self.turn;
        if self.board.king_of(us).is_some() {
            moves.retain(|&m| {
                let (next, _) = self.make(m);
                let king = next.board.king_of(us).expect("a move keeps its own king");
                !attacked(&next.board, king, us.other())
            });
        }
        moves
    }

    /// Whether `m` is legal here: one of [`Position::legal_moves`], testing only `m` for the
    /// king.
    #[must_use]
    pub fn is_legal(&self, m: Move) -> bool {
        self.pseudo_moves().contains(&m) && self.keeps_king_safe(m)
    }

    /// Whether the side to move has a legal move (`!legal_moves().is_empty()`, stopping at the
    /// first one found).
    #[must_use]
    pub fn has_legal_move(&self) -> bool {
        self.pseudo_moves().into_iter().any(|m| self.keeps_king_safe(m))
    }

    /// Whether the pseudo-legal `m` leaves the mover's king, if on the board, unattacked (the
    /// filter of [`Position::legal_moves`]).
    fn keeps_king_safe(&self, m: Move) -> bool {
        let us = self.turn;
        if self.board.king_of(us).is_none() {
            return true;
        }
        let (next, _) = self.make(m);
        let king = next.board.king_of(us).expect("a move keeps its own king");
        !attacked(&next.board, king, us.other())
    }

    /// Plays a move taken from [`Position::legal_moves`]: moves the pieces, then, if a pawn was
    /// captured, its owner's answer (R-I2) and the king's appearance with R-I4's consequences.
    #[must_use]
    pub fn play(&self, m: Move) -> (Position, Effects) {
        let us = self.turn;
        let them = us.other();
        let (mut next, capture) = self.make(m);
        let mut effects = Effects { capture, inspection: None, end: None };
        let Some(cap) = capture.filter(|c| c.piece.role == Role::Pawn) else {
            return (next, effects);
        };
        // R-I2: the captured pawn's owner (`them`) says whether it was the informer.
        if next.informer[them] != Some(cap.square) {
            effects.inspection = Some(Inspection { owner: them, informer: false, appeared: None });
            return (next, effects);
        }
        next.informer[them] = None;
        let square =
            next.hidden[them].take().expect("only a side with a hidden king has an informer");
        let removed = next.board.remove(square);
        next.castling.remove(square);
        if removed == Some(Role::Pawn.of(us)) && next.informer[us] == Some(square) {
            // A removed pawn is not captured: not inspected, its king stays hidden (module docs).
            next.informer[us] = None;
        }
        next.board.put(square, Role::King.of(them));
        // R-I5: the appearing king keeps castling rights only with rooks on its rank or file.
        let line = SIZE.rank_bb(square.rank()) | SIZE.file_bb(square.file());
        next.castling &= line | !next.board.by_color(them);
        effects.inspection = Some(Inspection {
            owner: them,
            informer: true,
            appeared: Some(Appearance { square, removed }),
        });
        effects.end = next.appearance_end(square, removed == Some(Role::King.of(us)));
        (next, effects)
    }

    /// R-I4 after `them` (the side to move) had its king appear on `square`.
    fn appearance_end(&self, square: Square, captured_king: bool) -> Option<GameResult> {
        let appearing = self.turn;
        let other = appearing.other();
        if captured_king {
            let mated = self.in_check(appearing) && !self.has_legal_move();
            return Some(if mated {
                GameResult::draw(EndReason::Checkmate)
            } else {
                GameResult::win(appearing, EndReason::KingCaptured)
            });
        }
        let target = self.board.king_of(other)?;
        if !attacks::king(square).contains(target) {
            return None;
        }
        let mut after = self.board.clone();
        after.remove(target);
        after.shift(square, target);
        (!attacked(&after, target, other))
            .then_some(GameResult::win(appearing, EndReason::KingCaptured))
    }

    fn perft_inner(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let moves = self.legal_moves();
        if depth == 1 {
            return moves.len() as u64;
        }
        moves
            .into_iter()
            .map(|m| {
                let (next, effects) = self.play(m);
                // A game ended by R-I4 has no further moves.
                if effects.end.is_some() { 0 } else { next.perft_inner(depth - 1) }
            })
            .sum()
    }
}

fn parse_square(field: &'static str, s: &str) -> Result<Square, FenError> {
    Square::parse(s, SIZE).ok_or_else(|| FenError::new(field, format!("'{s}' is not a square")))
}

/// Parses a `white,black` pair of `square` or `-` entries.
fn parse_pair(field: &'static str, s: &str) -> Result<ByColor<Option<Square>>, FenError> {
    let Some((w, b)) = s.split_once(',') else {
        return Err(FenError::new(field, format!("'{s}' is not two entries separated by ','")));
    };
    let entry = |e: &str| match e {
        "-" => Ok(None),
        "?" => Err(FenError::new(
            field,
            "'?' is a player's view; analysis needs the full position (R-I6)",
        )),
        _ => parse_square(field, e).map(Some),
    };
    Ok(ByColor { white: entry(w)?, black: entry(b)? })
}

fn parse_number(field: &'static str, s: &str) -> Result<u32, FenError> {
    s.parse().map_err(|_| FenError::new(field, format!("'{s}' is not a number")))
}

impl Analysis for Position {
    fn from_fen(fen: &str) -> Result<Position, FenError> {
        let fields: Vec<&str> = fen.split_whitespace().collect();
        if fields.len() != 6 && fields.len() != 8 {
            return Err(FenError::new(
                "position",
                format!(
                    "expected 8 fields (board side castling ep halfmove fullmove hidden-kings \
                     informers) or the first 6, found {}",
                    fields.len()
                ),
            ));
        }
        let board = Board::from_board_fen(fields[0], SIZE, ALPHABET)?;
        for color in Color::ALL {
            if board.by_piece(Role::King.of(color)).more_than_one() {
                return Err(FenError::new("board", format!("{color} has more than one king")));
            }
        }
        let back_ranks = SIZE.rank_bb(0) | SIZE.rank_bb(7);
        if let Some(s) = (board.by_role(Role::Pawn) & back_ranks).first() {
            return Err(FenError::new("board", format!("pawn on {s}, a first or last rank")));
        }
        let turn = Color::parse(fields[1])
            .ok_or_else(|| FenError::new("side", format!("'{}' is not w or b", fields[1])))?;

        let mut castling = Bitboard::EMPTY;
        if fields[2] != "-" {
            let mut rest = fields[2];
            for &(c, color, file, rank) in &CASTLING {
                if let Some(r) = rest.strip_prefix(c) {
                    rest = r;
                    let rook = sq(file, rank);
                    if board.piece_at(rook) != Some(Role::Rook.of(color)) {
                        return Err(FenError::new(
                            "castling",
                            format!("'{c}' needs {color}'s rook on {rook}"),
                        ));
                    }
                    if let Some(k) = board.king_of(color)
                        && k.file() != rook.file()
                        && k.rank() != rook.rank()
                    {
                        return Err(FenError::new(
                            "castling",
                            format!(
                                "'{c}': {color}'s king on {k} shares no rank or file with {rook} (R-I5)"
                            ),
                        ));
                    }
                    castling.insert(rook);
                }
            }
            if !rest.is_empty() {
                return Err(FenError::new(
                    "castling",
                    format!("'{}' is not '-' or a subset of KQkq in that order", fields[2]),
                ));
            }
        }

        let ep = match fields[3] {
            "-" => None,
            s => {
                let ep = parse_square("ep", s)?;
                let forward: i8 = turn.fold(1, -1);
                let pawn = ep.offset(0, -forward);
                let origin = ep.offset(0, forward);
                let ok = ep.rank() == turn.fold(5, 2)
                    && !board.occupied().contains(ep)
                    && origin.is_some_and(|o| !board.occupied().contains(o))
                    && pawn.and_then(|p| board.piece_at(p)) == Some(Role::Pawn.of(turn.other()));
                if !ok {
                    return Err(FenError::new(
                        "ep",
                        format!("{ep} is not the square a {} pawn just passed", turn.other()),
                    ));
                }
                Some(ep)
            }
        };
        let halfmove = parse_number("halfmove", fields[4])?;
        let fullmove = parse_number("fullmove", fields[5])?;
        if fullmove == 0 {
            return Err(FenError::new("fullmove", "must be at least 1"));
        }
        let (hidden, informer) = if fields.len() == 8 {
            (parse_pair("hidden-kings", fields[6])?, parse_pair("informers", fields[7])?)
        } else {
            (ByColor::default(), ByColor::default())
        };
        for color in Color::ALL {
            if let (Some(h), Some(k)) = (hidden[color], board.king_of(color)) {
                return Err(FenError::new(
                    "hidden-kings",
                    format!("{color}'s king hides on {h} but stands on {k}"),
                ));
            }
            if let Some(i) = informer[color] {
                if hidden[color].is_none() {
                    return Err(FenError::new(
                        "informers",
                        format!("{color} names an informer on {i} but has no hidden king"),
                    ));
                }
                if board.piece_at(i) != Some(Role::Pawn.of(color)) {
                    return Err(FenError::new(
                        "informers",
                        format!("{color}'s informer must be a {color} pawn, {i} holds none"),
                    ));
                }
            }
        }
        Ok(Position { board, turn, castling, ep, halfmove, fullmove, hidden, informer })
    }

    fn to_fen(&self) -> String {
        format!(
            "{} {} {} {}",
            self.fen_placement(),
            self.halfmove,
            self.fullmove,
            self.hidden_fields(None)
        )
    }

    fn legal_uci(&self) -> Vec<String> {
        let mut v: Vec<String> = self.legal_moves().iter().map(|m| m.uci(ALPHABET)).collect();
        v.sort();
        v
    }

    fn perft(&self, depth: u32) -> u64 {
        self.perft_inner(depth)
    }

    fn divide(&self, depth: u32) -> Vec<(String, u64)> {
        let mut v: Vec<(String, u64)> = self
            .legal_moves()
            .into_iter()
            .map(|m| {
                let (next, effects) = self.play(m);
                let n = if depth <= 1 {
                    1
                } else if effects.end.is_some() {
                    0
                } else {
                    next.perft_inner(depth - 1)
                };
                (m.uci(ALPHABET), n)
            })
            .collect();
        v.sort();
        v
    }
}

//! Move generation for Secret Intelligence Chess (R-S3..R-S9) and the one predicate every rule
//! about attacks uses: "E could capture X" (see [`can_capture`] and [`attacked`]).
//!
//! What each role can capture (R-S3, R-S6, R-S7), ignoring pins and the safety of its own king:
//! - K Q R B N M A C H D and pawns: their standard capturing moves ([`attacks::standard`]);
//!   pawns diagonally forward. En passant is a pawn move, not an attack, as in chess.
//! - Decoy (R-S7): one step in any direction onto anything; a knight leap onto anything but a
//!   King, Decoy or Spy.
//! - Spy, default (R-S6 b): a knight leap, rook slide or bishop slide onto an enemy Spy, or onto
//!   any other enemy piece X unless X could capture an enemy Spy on the Spy's square from where
//!   X stands (so never a king or decoy from an adjacent square, never a rook along its line,
//!   never a pawn from the square that pawn attacks). This is what "attacked by a Spy" means,
//!   so a Spy checks a king only from a knight's leap or from two or more squares away.
//! - Spy, option `spy-original`: one step in any direction onto anything (R-S6).
//!
//! A king is in check when it is attacked, that is, when some enemy piece could capture it.

use super::{Position, SpyRule};
use crate::attacks::{self, bishop, king, knight, rook, standard_attackers};
use crate::{Bitboard, Board, BoardSize, Color, Move, Piece, Role, Square};

/// The squares a Spy on `sq` reaches by a knight leap or a rook or bishop slide (R-S6), each
/// slide up to and including its first occupied square.
pub(super) fn spy_reach(sq: Square, occ: Bitboard) -> Bitboard {
    knight(sq) | rook(sq, occ) | bishop(sq, occ)
}

/// The squares onto which piece `x` on `sq` could capture an enemy Spy (R-S6 b asks whether
/// the Spy's victim "could capture it"). Not used for a Spy: Spies are exempt from R-S6.
fn could_take_spy_from(x: Piece, sq: Square, occ: Bitboard) -> Bitboard {
    match x.role {
        // R-S7: the Decoy never uses its knight leap to capture a Spy.
        Role::Decoy => king(sq),
        Role::Spy => Bitboard::EMPTY,
        _ => attacks::standard(x, sq, occ, BoardSize::Eight).unwrap_or_default(),
    }
}

/// Whether `attacker` on `from` could capture `target` on `to` (pins ignored), on `board`'s
/// occupancy. The definitions are listed in the module documentation.
pub(super) fn can_capture(
    board: &Board,
    spy: SpyRule,
    from: Square,
    attacker: Piece,
    to: Square,
    target: Piece,
) -> bool {
    let occ = board.occupied();
    match attacker.role {
        Role::Decoy => {
            king(from).contains(to)
                || (knight(from).contains(to)
                    && !matches!(target.role, Role::King | Role::Decoy | Role::Spy))
        }
        Role::Spy => match spy {
            SpyRule::Original => king(from).contains(to),
            SpyRule::Default => {
                spy_reach(from, occ).contains(to)
                    && (target.role == Role::Spy
                        || !could_take_spy_from(target, to, occ).contains(from))
            }
        },
        _ => {
            attacks::standard(attacker, from, occ, BoardSize::Eight).is_some_and(|a| a.contains(to))
        }
    }
}

/// Whether `target`, standing on `sq` of `board`, is attacked: some enemy piece could capture
/// it (pinned pieces count). With `ignore_spies`, enemy Spies are left out (R-S6 a).
pub(super) fn attacked(
    board: &Board,
    spy: SpyRule,
    sq: Square,
    target: Piece,
    ignore_spies: bool,
) -> bool {
    let by = !target.color;
    let occ = board.occupied();
    if standard_attackers(board, sq, by, occ).any() {
        return true;
    }
    let decoys = board.by_piece(Role::Decoy.of(by));
    if (king(sq) & decoys).any() {
        return true;
    }
    if !matches!(target.role, Role::King | Role::Decoy | Role::Spy) && (knight(sq) & decoys).any() {
        return true;
    }
    let spies = board.by_piece(Role::Spy.of(by));
    if ignore_spies || spies.is_empty() {
        return false;
    }
    match spy {
        SpyRule::Original => (king(sq) & spies).any(),
        SpyRule::Default => {
            // Knight leaps and slides are symmetric, so look outwards from `sq`.
            let reach = spy_reach(sq, occ) & spies;
            if target.role == Role::Spy {
                reach.any()
            } else {
                (reach & !could_take_spy_from(target, sq, occ)).any()
            }
        }
    }
}

/// Whether `color`'s king is attacked (in check). A board without that king is never in check.
pub(super) fn king_attacked(board: &Board, spy: SpyRule, color: Color) -> bool {
    board.king_of(color).is_some_and(|k| attacked(board, spy, k, Role::King.of(color), false))
}

/// Whether `color` has a Decoy that is attacked (R-S8).
pub(super) fn attacked_decoys(board: &Board, spy: SpyRule, color: Color) -> Bitboard {
    let decoy = Role::Decoy.of(color);
    board.by_piece(decoy).filter(|&sq| attacked(board, spy, sq, decoy, false)).collect()
}

/// The squares `piece` on `sq` could move to by its own movement for a swap (R-S9): as a
/// non-capturing move if the square were empty, or as a capture if it held an enemy piece.
fn swap_reach(piece: Piece, sq: Square, occ: Bitboard) -> Bitboard {
    match piece.role {
        Role::Pawn => {
            let fwd = piece.color.fold(1, -1);
            let mut r = attacks::pawn(piece.color, sq);
            if let Some(one) = sq.offset(0, fwd) {
                r.insert(one);
                if !occ.contains(one)
                    && let Some(two) = sq.offset(0, 2 * fwd)
                {
                    r.insert(two);
                }
            }
            r
        }
        Role::Spy => spy_reach(sq, occ),
        Role::Decoy => king(sq) | knight(sq),
        _ => attacks::standard(piece, sq, occ, BoardSize::Eight).unwrap_or_default(),
    }
}

/// R-S5: the roles a SIC pawn may always promote to.
pub(crate) const ALWAYS_PROMOTE: [Role; 3] = [Role::Rook, Role::Bishop, Role::Knight];

/// R-S5: the roles a SIC pawn may promote to only while its side has no such piece.
pub(crate) const SCARCE_PROMOTE: [Role; 8] = [
    Role::Queen,
    Role::Marshall,
    Role::Archbishop,
    Role::DragonKing,
    Role::DragonHorse,
    Role::Centaur,
    Role::Spy,
    Role::Decoy,
];

/// R-S5: the roles a pawn of `us` may promote to here: R, B, N always; Q, M, A, D, H, C, S, Y
/// only if `us` has no piece of that type on the board (R-A1: the pieces actually there).
fn promotion_roles(board: &Board, us: Color) -> Vec<Role> {
    let mut roles = ALWAYS_PROMOTE.to_vec();
    for r in SCARCE_PROMOTE {
        if board.by_piece(r.of(us)).is_empty() {
            roles.push(r);
        }
    }
    roles
}

/// Every legal move of the side to move, unsorted.
pub(super) fn legal_moves(pos: &Position) -> Vec<Move> {
    let board = &pos.board;
    let us = pos.turn;
    let them = !us;
    let occ = board.occupied();
    let own = board.by_color(us);
    let enemy = board.by_color(them);
    let in_check = king_attacked(board, pos.spy, us);
    let last = BoardSize::Eight.rank_bb(BoardSize::Eight.last_rank(us));
    let promos = promotion_roles(board, us);
    // Typical SIC positions have under 100 legal moves; the Vec grows if needed.
    let mut out = Vec::with_capacity(96);

    // The position after `m`, if it does not leave our king attacked.
    let after = |m: &Move| -> Option<Position> {
        let next = play_unchecked(pos, m).0;
        (!king_attacked(&next.board, pos.spy, us)).then_some(next)
    };

    for (from, piece) in board.pieces().filter(|(_, p)| p.color == us) {
        match piece.role {
            Role::Pawn => {
                let fwd = us.fold(1, -1);
                let mut targets = Bitboard::EMPTY;
                if let Some(one) = from.offset(0, fwd).filter(|s| !occ.contains(*s)) {
                    targets.insert(one);
                    // R-S4: quick pawns double-step whenever both squares are empty.
                    if let Some(two) = one.offset(0, fwd).filter(|s| !occ.contains(*s)) {
                        targets.insert(two);
                    }
                }
                targets |= attacks::pawn(us, from) & enemy;
                if let Some(ep) = pos.ep
                    && attacks::pawn(us, from).contains(ep)
                {
                    targets.insert(ep);
                }
                for to in targets {
                    let m = Move::new(from, to);
                    if after(&m).is_none() {
                        continue;
                    }
                    if last.contains(to) {
                        // The promoted piece's type never changes whether our king is attacked.
                        out.extend(promos.iter().map(|&r| Move { promotion: Some(r), ..m }));
                    } else {
                        out.push(m);
                    }
                }
            }
            Role::Spy if pos.spy == SpyRule::Default => {
                for to in spy_reach(from, occ) & !own {
                    let m = Move::new(from, to);
                    if let Some(target) = board.piece_at(to) {
                        // R-S6 b.
                        if !can_capture(board, pos.spy, from, piece, to, target) {
                            continue;
                        }
                        if after(&m).is_some() {
                            out.push(m);
                        }
                    } else if let Some(next) = after(&m) {
                        // R-S6 a: not onto an empty square where a non-Spy could capture it,
                        // unless the move blocks a check (we were in check and no longer are).
                        if in_check || !attacked(&next.board, pos.spy, to, piece, true) {
                            out.push(m);
                        }
                    }
                }
            }
            Role::Spy => {
                // R-S6 option spy-original: slides and leaps without capturing, steps to capture.
                let targets = (spy_reach(from, occ) & !occ) | (king(from) & enemy);
                out.extend(targets.map(|to| Move::new(from, to)).filter(|m| after(m).is_some()));
            }
            Role::Decoy => {
                for to in (king(from) | knight(from)) & !own {
                    if let Some(target) = board.piece_at(to)
                        && !can_capture(board, pos.spy, from, piece, to, target)
                    {
                        continue;
                    }
                    let m = Move::new(from, to);
                    let Some(next) = after(&m) else { continue };
                    // R-S7: not onto an attacked square, unless the move takes our king out of
                    // check or the square is next to our king.
                    let next_to_king = board.king_of(us).is_some_and(|k| king(k).contains(to));
                    if in_check || next_to_king || !attacked(&next.board, pos.spy, to, piece, false)
                    {
                        out.push(m);
                    }
                }
            }
            _ => {
                let targets = attacks::standard(piece, from, occ, BoardSize::Eight)
                    .expect("standard role")
                    & !own;
                out.extend(targets.map(|to| Move::new(from, to)).filter(|m| after(m).is_some()));
            }
        }

        // R-S9 swaps: both unmoved, different types, neither attacked; the mover could move to
        // the partner's square; no pawn lands on its last rank (it could not promote there).
        if pos.unmoved.contains(from) && !attacked(board, pos.spy, from, piece, false) {
            for to in swap_reach(piece, from, occ) & own & pos.unmoved {
                let partner = board.piece_at(to).expect("own square is occupied");
                if partner.role == piece.role
                    || attacked(board, pos.spy, to, partner, false)
                    || (piece.role == Role::Pawn && last.contains(to))
                    || (partner.role == Role::Pawn && last.contains(from))
                {
                    continue;
                }
                let m = Move::new(from, to);
                if after(&m).is_some() {
                    out.push(m);
                }
            }
        }
    }
    out
}

/// Plays `m`, assumed legal, returning the new position and the captured piece with the square
/// it stood on (for en passant, the passed pawn's square).
pub(super) fn play_unchecked(pos: &Position, m: &Move) -> (Position, Option<(Square, Piece)>) {
    let us = pos.turn;
    let mut next = pos.clone();
    let piece = pos.board.piece_at(m.from).expect("a move starts on a piece of the side to move");
    let target = pos.board.piece_at(m.to);
    let fwd = us.fold(1, -1);
    let mut captured = None;
    next.ep = None;
    match target {
        Some(partner) if partner.color == us => {
            // R-S9: the pieces exchange squares; the mover now counts as moved, the passive
            // piece keeps its unmoved flag (its square is `from`, already in the set).
            next.board.put(m.to, piece);
            next.board.put(m.from, partner);
            next.unmoved.remove(m.to);
            next.halfmove = if piece.role == Role::Pawn { 0 } else { pos.halfmove + 1 };
        }
        _ => {
            let is_ep = piece.role == Role::Pawn
                && target.is_none()
                && Some(m.to) == pos.ep
                && m.from.file() != m.to.file();
            let cap_sq =
                if is_ep { m.to.offset(0, -fwd).expect("ep square has a pawn") } else { m.to };
            if let Some(c) = next.board.remove(cap_sq) {
                captured = Some((cap_sq, c));
            }
            next.board.remove(m.from);
            next.board.put(m.to, m.promotion.map_or(piece, |r| r.of(us)));
            next.unmoved.remove(m.from);
            next.unmoved.remove(m.to);
            next.unmoved.remove(cap_sq);
            next.halfmove =
                if piece.role == Role::Pawn || captured.is_some() { 0 } else { pos.halfmove + 1 };
            // R-S4: after a double step, record the passed square if an enemy pawn attacks it.
            // A double step that promotes leaves no pawn to take, so it records nothing.
            if piece.role == Role::Pawn
                && m.promotion.is_none()
                && m.from.file() == m.to.file()
                && m.from.rank().abs_diff(m.to.rank()) == 2
            {
                let mid = m.from.offset(0, fwd).expect("between two squares of a file");
                if (attacks::pawn(us, mid) & next.board.by_piece(Role::Pawn.of(!us))).any() {
                    next.ep = Some(mid);
                }
            }
        }
    }
    if us == Color::Black {
        next.fullmove += 1;
    }
    next.turn = !us;
    (next, captured)
}

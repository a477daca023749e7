//! What a participant tracks from what it is delivered: the public commitments, contributions
//! and colours; a Kriegspiel player's own men; an Intrigue player's model of the game; a 6x6
//! player's legal moves from its board update.

use crate::codec::Canonical;
use crate::commitment::{Committed, Opening};
use crate::game::AnyGame;
use crate::keys::ByColour;
use crate::message::{MessageBody, Payload};
use crate::seed::draw_colours;
use crate::terms::AgreedTerms;
use crate::{Commitment, PublicKey};
use rules::intrigue::{Action as IAction, Inspection, Observation as IObs, Setup};
use rules::{Alphabet, Analysis, Board, BoardSize, ByColor, Color, Move, Role, Square, attacks};
use std::collections::BTreeMap;

/// The public channel as far as setup goes: commitments, revealed contributions, colours.
#[derive(Clone, Debug, Default)]
pub(crate) struct PublicLog {
    pub commitments: Vec<Committed>,
    pub contributions: BTreeMap<PublicKey, [u8; 32]>,
    pub colours: Option<ByColour>,
}

impl PublicLog {
    /// Colours become known here once both public contributions are revealed, even when the
    /// terms fix them: the setup phase begins only then (PROTOCOL.md, the coordinator).
    pub fn new(_terms: &AgreedTerms) -> PublicLog {
        PublicLog::default()
    }

    /// Records a delivered public message (the relay already checked openings).
    pub fn observe(&mut self, terms: &AgreedTerms, body: &MessageBody) {
        match &body.payload {
            Payload::Commit { purpose, commitment } => self.commitments.push(Committed {
                author: body.author,
                purpose: *purpose,
                commitment: *commitment,
            }),
            Payload::Reveal { purpose, opening }
                if *purpose == crate::flow::PUBLIC_CONTRIBUTION =>
            {
                if let (Ok(c), Some(_)) = (
                    <[u8; 32]>::try_from(opening.value.as_slice()),
                    terms.terms.player(&body.author),
                ) {
                    self.contributions.insert(body.author, c);
                }
                let t = &terms.terms;
                let pair = (
                    self.contributions.get(&t.players[0].key),
                    self.contributions.get(&t.players[1].key),
                );
                if let (None, (Some(c0), Some(c1))) = (self.colours, pair) {
                    let drawn = || draw_colours(t, &terms.match_id, &[*c0, *c1]);
                    self.colours = Some(t.fixed_colours().unwrap_or_else(drawn));
                }
            }
            _ => {}
        }
    }

    /// `author`'s commitment for `purpose`, if published.
    pub fn commitment(
        &self,
        author: &PublicKey,
        purpose: crate::commitment::Purpose,
    ) -> Option<Commitment> {
        self.commitments
            .iter()
            .find(|c| c.author == *author && c.purpose == purpose)
            .map(|c| c.commitment)
    }
}

/// The attempts a Kriegspiel player's own view allows: every move of its men on a board
/// holding only them (enemy men unknown, so treated as absent), pawn diagonals included
/// (captures and en passant are possible there), promotions to Q R B N, castling when king
/// and rook stand on their squares. The legal moves are a subset (R-K1).
pub(crate) fn kriegspiel_candidates(own: &Board, side: Color) -> Vec<Move> {
    let occ = own.occupied();
    let mut out = Vec::new();
    let last = side.fold(7, 0);
    let push_pawn = |out: &mut Vec<Move>, from: Square, to: Square| {
        if to.rank() == last {
            for r in [Role::Queen, Role::Rook, Role::Bishop, Role::Knight] {
                out.push(Move { from, to, promotion: Some(r) });
            }
        } else {
            out.push(Move::new(from, to));
        }
    };
    for (from, piece) in own.pieces() {
        if piece.color != side {
            continue;
        }
        let targets = match piece.role {
            Role::Pawn => {
                let dr = side.fold(1, -1);
                if let Some(one) = from.offset(0, dr).filter(|s| !occ.contains(*s)) {
                    push_pawn(&mut out, from, one);
                    let start = side.fold(1, 6);
                    if let Some(two) = one.offset(0, dr).filter(|s| !occ.contains(*s))
                        && from.rank() == start
                    {
                        out.push(Move::new(from, two));
                    }
                }
                for df in [-1, 1] {
                    if let Some(to) = from.offset(df, dr).filter(|s| !occ.contains(*s)) {
                        push_pawn(&mut out, from, to);
                    }
                }
                continue;
            }
            Role::Knight => attacks::knight(from),
            Role::Bishop => attacks::bishop(from, occ),
            Role::Rook => attacks::rook(from, occ),
            Role::Queen => attacks::queen(from, occ),
            Role::King => {
                let home = Square::new(4, side.fold(0, 7)).expect("e1/e8");
                if from == home {
                    for (rook_file, to_file, between) in
                        [(7u8, 6u8, &[5u8, 6][..]), (0, 2, &[1, 2, 3])]
                    {
                        let rank = home.rank();
                        let rook = Square::new(rook_file, rank).expect("on the board");
                        let clear = between
                            .iter()
                            .all(|f| !occ.contains(Square::new(*f, rank).expect("on the board")));
                        if own.piece_at(rook) == Some(Role::Rook.of(side)) && clear {
                            out.push(Move::new(
                                from,
                                Square::new(to_file, rank).expect("on board"),
                            ));
                        }
                    }
                }
                attacks::king(from)
            }
            _ => rules::Bitboard::EMPTY,
        };
        for to in targets {
            if !occ.contains(to) {
                out.push(Move::new(from, to));
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Plays one's own legal Kriegspiel move on a board of one's own men.
pub(crate) fn kriegspiel_play_own(own: &mut Board, m: &Move) {
    let Some(piece) = own.remove(m.from) else { return };
    if piece.role == Role::King && m.from.file().abs_diff(m.to.file()) == 2 {
        let rank = m.from.rank();
        let (rook_from, rook_to) = if m.to.file() == 6 { (7, 5) } else { (0, 3) };
        let from = Square::new(rook_from, rank).expect("on the board");
        if let Some(rook) = own.remove(from) {
            own.put(Square::new(rook_to, rank).expect("on the board"), rook);
        }
    }
    let placed = m.promotion.map_or(piece, |r| r.of(piece.color));
    own.put(m.to, placed);
}

/// A 6x6 player's legal moves from its board update (R-G2, R-G4): its pieces on a board with
/// only the enemy king added (enemy pieces never enter one's territory, so they cannot block
/// or be blocked), run through the rules' own move generator.
pub(crate) fn sc6_legal_moves(
    side: Color,
    pieces: &[rules::secretchess6::OwnPiece],
) -> Vec<String> {
    let mut board = Board::empty(BoardSize::Six);
    let mut moved = Vec::new();
    for p in pieces {
        let Some(sq) = Square::parse(&p.square, BoardSize::Six) else { continue };
        board.put(sq, p.role.of(side));
        if let Some(l) = p.lifespan {
            moved.push(format!("{}={l}{}", p.square, if p.powered { "+" } else { "" }));
        }
    }
    let enemy_king = Square::new(0, side.fold(5, 0)).expect("a corner");
    board.put(enemy_king, Role::King.of(!side));
    let moved = if moved.is_empty() { "-".to_owned() } else { moved.join(",") };
    let fen = format!("{} {} {moved}", board.board_fen(Alphabet::SECRET_CHESS), side.char());
    match rules::secretchess6::Position::from_fen(&fen) {
        Ok(pos) => pos
            .legal_moves()
            .into_iter()
            .filter(|m| *m != rules::secretchess6::TurnMove::Pass)
            .map(|m| m.to_string())
            .collect(),
        Err(_) => Vec::new(),
    }
}

/// An Intrigue player's model of the game: its own true setup, and for the opponent the truth
/// once opened, else a hypothesis consistent with every answer so far (the informer is a pawn
/// the opponent never said "not the informer" about; the hiding square does not matter until
/// the king appears, which comes with the opening). Legality of one's own moves and every
/// public effect before an appearance do not depend on the opponent's secrets.
#[derive(Clone, Debug)]
pub(crate) struct IntrigueModel {
    pub me: Color,
    pub own: Setup,
    pub opponent_queen: Option<bool>,
    pub opponent_truth: Option<Setup>,
    excluded: Vec<Square>,
    /// Every move played, as action bytes, by side.
    moves: Vec<(Color, Vec<u8>)>,
    /// The opponent's answers, by move index.
    answers: BTreeMap<usize, Inspection>,
    pub game: Option<AnyGame>,
    /// The rules' observation of the last move in the model (for one's own answers).
    pub last: Option<IObs>,
}

impl IntrigueModel {
    pub fn new(me: Color, own: Setup) -> IntrigueModel {
        IntrigueModel {
            me,
            own,
            opponent_queen: None,
            opponent_truth: None,
            excluded: Vec::new(),
            moves: Vec::new(),
            answers: BTreeMap::new(),
            game: None,
            last: None,
        }
    }

    fn hypothesis(&self) -> Option<Setup> {
        if let Some(t) = self.opponent_truth {
            return Some(t);
        }
        let them = !self.me;
        let rank = them.fold(1, 6);
        let informer = (0..8)
            .map(|f| Square::new(f, rank).expect("on the board"))
            .find(|s| !self.excluded.contains(s))?;
        Some(Setup {
            king: Square::new(0, them.fold(2, 5)).expect("on the board"),
            informer,
            queen_on_king_square: self.opponent_queen?,
        })
    }

    /// Rebuilds the model from the start until it agrees with every answer.
    pub fn rebuild(&mut self) {
        'outer: loop {
            let Some(hyp) = self.hypothesis() else {
                self.game = None;
                return;
            };
            let setups = ByColor::new_with(|c| if c == self.me { self.own } else { hyp });
            let mut g = AnyGame::start("intrigue", &BTreeMap::new(), None).expect("intrigue");
            for c in Color::ALL {
                // A setup the rules refuse (a cheater's, opened) leaves no model to play on.
                match g.apply(c, &IAction::Setup(setups[c]).to_canonical()) {
                    Ok((next, _)) => g = next,
                    Err(_) => {
                        self.game = None;
                        return;
                    }
                }
            }
            self.last = None;
            for (i, (actor, bytes)) in self.moves.iter().enumerate() {
                let Ok((next, told)) = g.apply(*actor, bytes) else {
                    self.game = None;
                    return;
                };
                let obs = told.white.and_then(|b| IObs::from_canonical(&b).ok());
                if let (Some(IObs::Move(r)), Some(actual)) = (&obs, self.answers.get(&i)) {
                    let mine = r.inspection;
                    let wrong = !actual.informer
                        && mine.is_some_and(|m| m.informer)
                        && self.opponent_truth.is_none();
                    if wrong {
                        self.excluded.push(hyp.informer);
                        continue 'outer;
                    }
                }
                self.last = obs;
                g = next;
            }
            self.game = Some(g);
            return;
        }
    }

    /// A move was played (public): apply it to the model.
    pub fn played(&mut self, actor: Color, bytes: Vec<u8>) {
        self.moves.push((actor, bytes.clone()));
        let Some(g) = &self.game else { return };
        match g.apply(actor, &bytes) {
            Ok((next, told)) => {
                self.last = told.white.and_then(|b| IObs::from_canonical(&b).ok());
                self.game = Some(next);
            }
            Err(_) => self.game = None,
        }
    }

    /// The opponent answered about the last move.
    pub fn answered(&mut self, inspection: Inspection) {
        if let Some(i) = self.moves.len().checked_sub(1) {
            self.answers.insert(i, inspection);
        }
        self.rebuild();
    }

    /// The opponent opened its setup.
    pub fn opened(&mut self, opening: &Opening) {
        if let Ok(IAction::Setup(s)) = IAction::from_canonical(&opening.value) {
            self.opponent_truth = Some(s);
            self.rebuild();
        }
    }

    /// The inspection the model's last move produced, if the last move took a pawn.
    pub fn last_inspection(&self) -> Option<Inspection> {
        match &self.last {
            Some(IObs::Move(r)) => r.inspection,
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rules::Game as _;

    #[test]
    fn r_k1_candidates_cover_every_legal_move_from_the_start() {
        let state = rules::kriegspiel::State::start(Default::default());
        for side in Color::ALL {
            let mut own = Board::empty(BoardSize::Eight);
            for (sq, role) in state.view(side).men {
                own.put(sq, role.of(side));
            }
            let cands = kriegspiel_candidates(&own, side);
            if side == Color::White {
                for m in state.position().legal_moves() {
                    assert!(cands.contains(&m), "{m:?} missing");
                }
                assert_eq!(state.to_act(), vec![Color::White]);
            }
            // 16 pawn pushes + 14 pawn diagonals + 4 knight moves.
            assert_eq!(cands.len(), 34, "{side}");
        }
    }

    #[test]
    fn own_castling_moves_the_rook() {
        let mut own =
            Board::from_board_fen("8/8/8/8/8/8/8/4K2R", BoardSize::Eight, Alphabet::ORTHODOX)
                .expect("a board");
        let m = Move::new(Square::new(4, 0).expect("e1"), Square::new(6, 0).expect("g1"));
        assert!(kriegspiel_candidates(&own, Color::White).contains(&m));
        kriegspiel_play_own(&mut own, &m);
        assert_eq!(own.board_fen(Alphabet::ORTHODOX), "8/8/8/8/8/8/8/5RK1");
    }
}

//! Piece placement: bitboards by color and by role, plus a mailbox for O(1) lookups.

use crate::{Alphabet, Bitboard, BoardSize, ByColor, Color, FenError, Piece, Role, Square};

/// Where the pieces stand. It knows nothing of whose turn it is or of any game's rules.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Board {
    size: BoardSize,
    by_color: ByColor<Bitboard>,
    by_role: [Bitboard; Role::COUNT],
    mailbox: [Option<Piece>; 64],
}

impl Board {
    /// An empty board of `size`.
    #[must_use]
    pub fn empty(size: BoardSize) -> Board {
        Board {
            size,
            by_color: ByColor::default(),
            by_role: [Bitboard::EMPTY; Role::COUNT],
            mailbox: [None; 64],
        }
    }

    /// The board size.
    #[must_use]
    pub const fn size(&self) -> BoardSize {
        self.size
    }

    /// The piece on `sq`.
    #[must_use]
    #[inline]
    pub const fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.mailbox[sq.index()]
    }

    /// Every occupied square.
    #[must_use]
    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.by_color.white | self.by_color.black
    }

    /// The squares of `color`'s pieces.
    #[must_use]
    #[inline]
    pub const fn by_color(&self, color: Color) -> Bitboard {
        *self.by_color.get(color)
    }

    /// The squares of pieces of `role`, both sides.
    #[must_use]
    #[inline]
    pub const fn by_role(&self, role: Role) -> Bitboard {
        self.by_role[role.index()]
    }

    /// The squares of `piece`.
    #[must_use]
    #[inline]
    pub fn by_piece(&self, piece: Piece) -> Bitboard {
        self.by_role(piece.role) & self.by_color(piece.color)
    }

    /// The square of `color`'s king, if it has exactly one on the board.
    #[must_use]
    pub fn king_of(&self, color: Color) -> Option<Square> {
        self.by_piece(Role::King.of(color)).single()
    }

    /// Puts `piece` on `sq`, returning what stood there.
    ///
    /// # Panics
    /// If `sq` is off this board: callers only pass squares they checked or generated.
    pub fn put(&mut self, sq: Square, piece: Piece) -> Option<Piece> {
        assert!(self.size.contains(sq), "square {sq} is off a {:?} board", self.size);
        let old = self.remove(sq);
        self.by_color[piece.color].insert(sq);
        self.by_role[piece.role.index()].insert(sq);
        self.mailbox[sq.index()] = Some(piece);
        old
    }

    /// Removes and returns the piece on `sq`.
    pub fn remove(&mut self, sq: Square) -> Option<Piece> {
        let old = self.mailbox[sq.index()].take()?;
        self.by_color[old.color].remove(sq);
        self.by_role[old.role.index()].remove(sq);
        Some(old)
    }

    /// Moves whatever stands on `from` to `to` (capturing what stood on `to`), returning the
    /// captured piece.
    pub fn shift(&mut self, from: Square, to: Square) -> Option<Piece> {
        match self.remove(from) {
            Some(p) => self.put(to, p),
            None => None,
        }
    }

    /// Every piece with its square, in square order.
    pub fn pieces(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        self.occupied().map(move |sq| (sq, self.mailbox[sq.index()].expect("occupied")))
    }

    /// Parses the board field of a position string: ranks from the last to the first separated
    /// by `/`, digits for runs of empty squares, letters of `alphabet`.
    pub fn from_board_fen(s: &str, size: BoardSize, alphabet: Alphabet) -> Result<Board, FenError> {
        let w = size.width();
        let ranks: Vec<&str> = s.split('/').collect();
        if ranks.len() != w as usize {
            return Err(FenError::new(
                "board",
                format!("expected {w} ranks separated by '/', found {}", ranks.len()),
            ));
        }
        let mut board = Board::empty(size);
        for (i, rank_str) in ranks.iter().enumerate() {
            let rank = w - 1 - i as u8;
            let mut file: u8 = 0;
            for c in rank_str.chars() {
                if let Some(d) = c.to_digit(10) {
                    if d == 0 {
                        return Err(FenError::new("board", format!("rank {} has a 0", rank + 1)));
                    }
                    file = file.saturating_add(d as u8);
                } else {
                    let piece = alphabet.piece(c).ok_or_else(|| {
                        FenError::new("board", format!("unknown piece letter '{c}'"))
                    })?;
                    if file >= w {
                        return Err(FenError::new(
                            "board",
                            format!("rank {} has more than {w} files", rank + 1),
                        ));
                    }
                    board.put(Square::new(file, rank).expect("file and rank below 8"), piece);
                    file += 1;
                }
                if file > w {
                    return Err(FenError::new(
                        "board",
                        format!("rank {} has more than {w} files", rank + 1),
                    ));
                }
            }
            if file != w {
                return Err(FenError::new(
                    "board",
                    format!("rank {} has {file} files, expected {w}", rank + 1),
                ));
            }
        }
        Ok(board)
    }

    /// The board field of a position string. Pieces outside `alphabet` print as `?`, which
    /// does not happen for boards built by a game with its own alphabet.
    #[must_use]
    pub fn board_fen(&self, alphabet: Alphabet) -> String {
        let w = self.size.width();
        let mut out = String::new();
        for rank in (0..w).rev() {
            let mut empty = 0;
            for file in 0..w {
                let sq = Square::new(file, rank).expect("on board");
                match self.piece_at(sq) {
                    None => empty += 1,
                    Some(p) => {
                        if empty > 0 {
                            out.push(char::from(b'0' + empty));
                            empty = 0;
                        }
                        out.push(alphabet.piece_char(p).unwrap_or('?'));
                    }
                }
            }
            if empty > 0 {
                out.push(char::from(b'0' + empty));
            }
            if rank > 0 {
                out.push('/');
            }
        }
        out
    }

    /// R-C2's insufficient material: exactly K v K; K+N v K; or only kings and bishops with
    /// every bishop on squares of one color. Every other piece counts as mating material.
    #[must_use]
    pub fn insufficient_material(&self) -> bool {
        let occ = self.occupied();
        let kings = self.by_role(Role::King);
        let others = occ & !kings;
        if others.is_empty() {
            return true;
        }
        let knights = self.by_role(Role::Knight);
        if others == knights && knights.count() == 1 {
            return true;
        }
        let bishops = self.by_role(Role::Bishop);
        if others == bishops {
            let dark = bishops.filter(|s| s.is_dark()).count();
            return dark == 0 || dark == bishops.count() as usize;
        }
        false
    }
}

impl std::fmt::Debug for Board {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let alphabet =
            if self.by_role(Role::Cannon).any() { Alphabet::ESPIONAGE } else { Alphabet::SIC };
        write!(f, "Board({})", self.board_fen(alphabet))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn board_fen_round_trips_on_all_sizes() {
        for (fen, size, alpha) in [
            ("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR", BoardSize::Eight, Alphabet::ORTHODOX),
            ("1k6/8/8/8/8/8/8/6K1", BoardSize::Eight, Alphabet::ORTHODOX),
            (
                "1k1c1c1/r1sbb1r/1n1q1n1/1ppppp1/PPPPPP1/1NSB1N1/1CBC1K1",
                BoardSize::Seven,
                Alphabet::ESPIONAGE,
            ),
            ("qrb1kn/6/6/6/6/NKR1BQ", BoardSize::Six, Alphabet::SECRET_CHESS),
        ] {
            let b = Board::from_board_fen(fen, size, alpha).unwrap();
            assert_eq!(b.board_fen(alpha), fen);
        }
    }

    #[test]
    fn bad_boards_name_the_problem() {
        let e = Board::from_board_fen("8/8/8", BoardSize::Eight, Alphabet::ORTHODOX).unwrap_err();
        assert!(e.to_string().contains("expected 8 ranks"), "{e}");
        let e = Board::from_board_fen("9/8/8/8/8/8/8/8", BoardSize::Eight, Alphabet::ORTHODOX)
            .unwrap_err();
        assert!(e.to_string().contains("more than 8 files"), "{e}");
        let e = Board::from_board_fen("7x/8/8/8/8/8/8/8", BoardSize::Eight, Alphabet::ORTHODOX)
            .unwrap_err();
        assert!(e.to_string().contains("unknown piece letter 'x'"), "{e}");
        let e = Board::from_board_fen("5/6/6/6/6/6", BoardSize::Six, Alphabet::SECRET_CHESS)
            .unwrap_err();
        assert!(e.to_string().contains("rank 6 has 5 files"), "{e}");
    }

    #[test]
    fn insufficient_material_is_exactly_r_c2() {
        let cases = [
            ("4k3/8/8/8/8/8/8/4K3", true),
            ("4k3/8/8/8/8/8/8/4KN2", true),
            ("4k3/8/8/8/8/8/8/3NKN2", false),
            // c1 (file 2, rank 0) and f8 (file 5, rank 7) are both dark: same color.
            ("4kb2/8/8/8/8/8/8/2B1K3", true),
            ("4k3/8/8/8/8/8/8/2B1KB2", false),
            ("4k3/8/8/8/8/8/8/4KP2", false),
        ];
        for (fen, want) in cases {
            let b = Board::from_board_fen(fen, BoardSize::Eight, Alphabet::ORTHODOX).unwrap();
            assert_eq!(b.insufficient_material(), want, "{fen}");
        }
    }
}

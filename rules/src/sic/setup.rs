//! The frozen random setup of Secret Intelligence Chess (R-S1, R-S2): one side's army and
//! placement from a 32-byte seed. The procedure is part of the `sic/2024` ruleset and is
//! written out step by step in `docs/sic-setup.md`; changing anything here changes every
//! game ever played, so `rules/tests/sic_setup.rs` pins it with golden vectors.

use crate::{Bitboard, Board, Color, Role, Square};
use rand_chacha::ChaCha20Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

/// The randomly chosen pair of extra pieces (R-S1), numbered 1..4 as in the seed text.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum Pair {
    /// 1: Queen and Centaur.
    QueenCentaur,
    /// 2: Marshall and Dragon Horse.
    MarshallDragonHorse,
    /// 3: Archbishop and Dragon King.
    ArchbishopDragonKing,
    /// 4: Decoy and Spy.
    DecoySpy,
}

impl Pair {
    /// The four pairs, in the order of their numbers 1..4.
    pub const ALL: [Pair; 4] =
        [Pair::QueenCentaur, Pair::MarshallDragonHorse, Pair::ArchbishopDragonKing, Pair::DecoySpy];

    /// The pair's number 1..4 (R-S1).
    #[must_use]
    pub const fn number(self) -> u8 {
        self as u8 + 1
    }

    /// The two pieces, in the order they are placed (R-S2 last step).
    #[must_use]
    pub const fn roles(self) -> [Role; 2] {
        match self {
            Pair::QueenCentaur => [Role::Queen, Role::Centaur],
            Pair::MarshallDragonHorse => [Role::Marshall, Role::DragonHorse],
            Pair::ArchbishopDragonKing => [Role::Archbishop, Role::DragonKing],
            Pair::DecoySpy => [Role::Decoy, Role::Spy],
        }
    }
}

/// One side's setup: the pair drawn and the 17 pieces placed, in placement order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SideSetup {
    /// Whose setup this is.
    pub side: Color,
    /// The pair drawn in step 1.
    pub pair: Pair,
    /// Every piece with its square, in the order the procedure placed them.
    pub placed: Vec<(Square, Role)>,
}

impl SideSetup {
    /// The pieces on an otherwise empty board.
    #[must_use]
    pub fn board(&self) -> Board {
        let mut board = Board::empty(crate::BoardSize::Eight);
        self.put_on(&mut board);
        board
    }

    /// Adds this side's pieces to `board` (used to combine the two sides).
    pub fn put_on(&self, board: &mut Board) {
        for &(sq, role) in &self.placed {
            board.put(sq, role.of(self.side));
        }
    }

    /// The squares of all placed pieces.
    #[must_use]
    pub fn squares(&self) -> Bitboard {
        self.placed.iter().map(|&(sq, _)| sq).collect()
    }
}

/// The sampler of `docs/sic-setup.md`: a ChaCha20 stream (RFC 8439 block function as
/// implemented by `rand_chacha` 0.10, seeded with the 32 bytes as the key) read as 32-bit words.
struct Sampler(ChaCha20Rng);

impl Sampler {
    /// A uniform integer in `[0, n)` for `n >= 2` by rejection: draw words `x` until
    /// `x < n * floor(2^32 / n)`, return `x % n`. A choice among a single option (`n == 1`,
    /// only the forced pawn of step 3) returns 0 and draws nothing.
    fn below(&mut self, n: u32) -> u32 {
        assert!(n >= 1, "the setup never chooses from an empty set");
        if n == 1 {
            return 0;
        }
        let limit = (1u64 << 32) / u64::from(n) * u64::from(n);
        loop {
            let x = u64::from(self.0.next_u32());
            if x < limit {
                return (x % u64::from(n)) as u32;
            }
        }
    }

    /// A uniform square of `set`, indexing its squares in increasing square index (a1 = 0).
    fn pick(&mut self, set: Bitboard) -> Square {
        let i = self.below(set.count());
        set.into_iter().nth(i as usize).expect("index below the set's size")
    }
}

/// The squares of `side`'s relative ranks `ranks` (0 = its first rank), in absolute coordinates.
fn ranks(side: Color, rel: &[u8]) -> Bitboard {
    rel.iter()
        .map(|&r| crate::BoardSize::Eight.rank_bb(side.fold(r, 7 - r)))
        .fold(Bitboard::EMPTY, |a, b| a | b)
}

fn square(side: Color, file: u8, rel_rank: u8) -> Square {
    Square::new(file, side.fold(rel_rank, 7 - rel_rank)).expect("file and rank below 8")
}

/// Files a-d (`low`) or e-h.
fn half(low: bool) -> Bitboard {
    let a_to_d = Bitboard(0x0f0f_0f0f_0f0f_0f0f);
    if low { a_to_d } else { !a_to_d }
}

/// The dark squares (a1 is dark: file + rank even).
fn dark() -> Bitboard {
    crate::BoardSize::Eight.squares().filter(|s| s.is_dark()).collect()
}

/// R-S2: `side`'s setup from `seed`, exactly as `docs/sic-setup.md` describes.
#[must_use]
pub fn setup(seed: &[u8; 32], side: Color) -> SideSetup {
    let mut rng = Sampler(ChaCha20Rng::from_seed(*seed));
    let zone = ranks(side, &[0, 1, 2]);
    let mut occ = Bitboard::EMPTY;
    let mut placed = Vec::with_capacity(17);
    let mut place = |sq: Square, role: Role, occ: &mut Bitboard| {
        debug_assert!(!occ.contains(sq));
        occ.insert(sq);
        placed.push((sq, role));
    };

    // Step 1: the pair, n = 4.
    let pair = Pair::ALL[rng.below(4) as usize];
    // Step 2: the king on ranks 1-2, n = 16.
    let king = rng.pick(ranks(side, &[0, 1]));
    place(king, Role::King, &mut occ);
    // Step 3: one pawn per file a..h on x2 or x3 (n = 2), forced to x3 if the king is on x2.
    for file in 0..8 {
        let options = (square(side, file, 1).bb() | square(side, file, 2).bb()) & !occ;
        let sq = rng.pick(options);
        place(sq, Role::Pawn, &mut occ);
    }
    // Steps 4-5: a bishop on a free dark square, then one on a free light square.
    let sq = rng.pick(zone & dark() & !occ);
    place(sq, Role::Bishop, &mut occ);
    let sq = rng.pick(zone & !dark() & !occ);
    place(sq, Role::Bishop, &mut occ);
    // Steps 6-9: rook a-d, knight a-d, rook e-h, knight e-h.
    for (low, role) in
        [(true, Role::Rook), (true, Role::Knight), (false, Role::Rook), (false, Role::Knight)]
    {
        let sq = rng.pick(zone & half(low) & !occ);
        place(sq, role, &mut occ);
    }
    // Steps 10-11: the pair's pieces in their listed order, anywhere free on the three ranks.
    for role in pair.roles() {
        let sq = rng.pick(zone & !occ);
        place(sq, role, &mut occ);
    }
    SideSetup { side, pair, placed }
}

/// R-S2 as a position string (R-S12) holding only `side`'s pieces: `side` is written as the
/// side to move (it is the only side on the board), every piece is unmoved, no en passant
/// square, clocks `0 1`. Example: `setup_fen(&[0; 32], Color::White)`.
#[must_use]
pub fn setup_fen(seed: &[u8; 32], side: Color) -> String {
    let s = setup(seed, side);
    let board = s.board();
    format!(
        "{} {} {} - 0 1",
        board.board_fen(crate::Alphabet::SIC),
        side.char(),
        super::squares_field(s.squares())
    )
}

/// Both sides' setups combined into the starting position: White to move, every piece
/// unmoved (R-S12).
#[must_use]
pub fn start_position(white_seed: &[u8; 32], black_seed: &[u8; 32]) -> super::Position {
    let mut board = Board::empty(crate::BoardSize::Eight);
    let w = setup(white_seed, Color::White);
    let b = setup(black_seed, Color::Black);
    w.put_on(&mut board);
    b.put_on(&mut board);
    super::Position::from_parts(board, Color::White, w.squares() | b.squares())
}

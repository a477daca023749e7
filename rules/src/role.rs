//! Piece kinds (`Role`), pieces (`Piece` = color + role) and the per-game letter alphabets.

use crate::Color;
use serde::{Deserialize, Serialize};

/// A kind of piece, across all games (RULES.md R-C3).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    /// P
    Pawn,
    /// N
    Knight,
    /// B
    Bishop,
    /// R
    Rook,
    /// Q
    Queen,
    /// K
    King,
    /// M: rook + knight (Secret Intelligence Chess).
    Marshall,
    /// A: bishop + knight (Secret Intelligence Chess).
    Archbishop,
    /// C in SIC: knight + non-royal king.
    Centaur,
    /// H: bishop + one orthogonal step (SIC).
    DragonHorse,
    /// D: rook + one diagonal step (SIC).
    DragonKing,
    /// S: the Spy; moves differ between SIC (R-S6) and Espionage Chess (R-E2).
    Spy,
    /// Y: the Decoy (SIC, R-S7).
    Decoy,
    /// C in Espionage Chess: the 4-square Cannon (R-E3).
    Cannon,
}

impl Role {
    /// How many roles there are (array sizes).
    pub const COUNT: usize = 14;

    /// Every role, in declaration order.
    pub const ALL: [Role; Role::COUNT] = [
        Role::Pawn,
        Role::Knight,
        Role::Bishop,
        Role::Rook,
        Role::Queen,
        Role::King,
        Role::Marshall,
        Role::Archbishop,
        Role::Centaur,
        Role::DragonHorse,
        Role::DragonKing,
        Role::Spy,
        Role::Decoy,
        Role::Cannon,
    ];

    /// Index 0..COUNT.
    #[must_use]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The piece of this role for `color`.
    #[must_use]
    pub const fn of(self, color: Color) -> Piece {
        Piece { color, role: self }
    }
}

/// A piece: a role and its owner.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Piece {
    /// Owner.
    pub color: Color,
    /// Kind.
    pub role: Role,
}

/// The letters of one game's pieces (R-C3): `C` is a Centaur in SIC but a Cannon in Espionage.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Alphabet(&'static [(char, Role)]);

impl Alphabet {
    /// Orthodox chess, Kriegspiel and Intrigue: K Q R B N P.
    pub const ORTHODOX: Alphabet = Alphabet(&[
        ('p', Role::Pawn),
        ('n', Role::Knight),
        ('b', Role::Bishop),
        ('r', Role::Rook),
        ('q', Role::Queen),
        ('k', Role::King),
    ]);
    /// Secret Intelligence Chess: orthodox plus M A C H D S Y.
    pub const SIC: Alphabet = Alphabet(&[
        ('p', Role::Pawn),
        ('n', Role::Knight),
        ('b', Role::Bishop),
        ('r', Role::Rook),
        ('q', Role::Queen),
        ('k', Role::King),
        ('m', Role::Marshall),
        ('a', Role::Archbishop),
        ('c', Role::Centaur),
        ('h', Role::DragonHorse),
        ('d', Role::DragonKing),
        ('s', Role::Spy),
        ('y', Role::Decoy),
    ]);
    /// Espionage Chess: orthodox plus S (spy) and C (cannon).
    pub const ESPIONAGE: Alphabet = Alphabet(&[
        ('p', Role::Pawn),
        ('n', Role::Knight),
        ('b', Role::Bishop),
        ('r', Role::Rook),
        ('q', Role::Queen),
        ('k', Role::King),
        ('s', Role::Spy),
        ('c', Role::Cannon),
    ]);
    /// 6x6 Secret Chess: K Q R B N, no pawns.
    pub const SECRET_CHESS: Alphabet = Alphabet(&[
        ('n', Role::Knight),
        ('b', Role::Bishop),
        ('r', Role::Rook),
        ('q', Role::Queen),
        ('k', Role::King),
    ]);

    /// The role of a lower-case letter, if this game has it.
    #[must_use]
    pub fn role(self, lower: char) -> Option<Role> {
        self.0.iter().find(|(c, _)| *c == lower).map(|&(_, r)| r)
    }

    /// The lower-case letter of a role, if this game has it.
    #[must_use]
    pub fn char(self, role: Role) -> Option<char> {
        self.0.iter().find(|(_, r)| *r == role).map(|&(c, _)| c)
    }

    /// The piece of a letter: upper case White, lower case Black.
    #[must_use]
    pub fn piece(self, c: char) -> Option<Piece> {
        let color = if c.is_ascii_uppercase() { Color::White } else { Color::Black };
        self.role(c.to_ascii_lowercase()).map(|role| Piece { color, role })
    }

    /// The letter of a piece: upper case White, lower case Black.
    #[must_use]
    pub fn piece_char(self, p: Piece) -> Option<char> {
        self.char(p.role).map(|c| match p.color {
            Color::White => c.to_ascii_uppercase(),
            Color::Black => c,
        })
    }
}

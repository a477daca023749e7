//! Small vocabulary: sides, channels, and the 32-byte hashes that name things.

use crate::hex;
use serde::{Deserialize, Serialize};

macro_rules! hash32 {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        pub struct $name(pub [u8; 32]);

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}({})", stringify!($name), hex::encode(&self.0))
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&hex::encode(&self.0))
            }
        }
    };
}

hash32!(
    /// `H(fogproof/v2/match-id; ("terms", canonical terms bytes))`: names a match.
    MatchId
);
hash32!(
    /// `H(fogproof/v2/message-hash; ("body", canonical message body bytes))`.
    MessageHash
);
hash32!(
    /// A commitment (see [`crate::commitment`]).
    Commitment
);
hash32!(
    /// `H(fogproof/v2/signed-message; ("body", body bytes), ("signature", signature))`: names
    /// one signed message exactly as received, signature included. Receipts cover this hash, so
    /// a changed signature no longer matches its receipt.
    SignedHash
);
hash32!(
    /// The relay's running log head after an entry (see [`crate::message::next_head`]): a hash
    /// chain over the match's whole sequence, as a Certificate Transparency tree head commits to
    /// its log.
    LogHead
);

/// A side of the board. On the wire: 0 = white, 1 = black (postcard enum index, and the one
/// byte used in hash inputs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Side {
    /// White.
    White,
    /// Black.
    Black,
}

impl Side {
    /// Both sides, white first.
    pub const BOTH: [Side; 2] = [Side::White, Side::Black];

    /// The byte used for this side in hash inputs.
    pub fn byte(self) -> u8 {
        match self {
            Side::White => 0,
            Side::Black => 1,
        }
    }

    /// The other side.
    pub fn other(self) -> Side {
        match self {
            Side::White => Side::Black,
            Side::Black => Side::White,
        }
    }

    /// 0 for white, 1 for black: an index into per-side arrays.
    pub fn index(self) -> usize {
        usize::from(self.byte())
    }
}

impl std::fmt::Display for Side {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Side::White => "white",
            Side::Black => "black",
        })
    }
}

/// A party that owes things under deadlines: a player by its side, or the umpire.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Party {
    /// The white player.
    White,
    /// The black player.
    Black,
    /// The umpire.
    Umpire,
}

impl Party {
    /// Every party, in index order.
    pub const ALL: [Party; 3] = [Party::White, Party::Black, Party::Umpire];

    /// The party of a side.
    pub fn of(side: Side) -> Party {
        match side {
            Side::White => Party::White,
            Side::Black => Party::Black,
        }
    }

    /// The side of a player party.
    pub fn side(self) -> Option<Side> {
        match self {
            Party::White => Some(Side::White),
            Party::Black => Some(Side::Black),
            Party::Umpire => None,
        }
    }

    /// 0, 1, 2: an index into per-party arrays.
    pub fn index(self) -> usize {
        match self {
            Party::White => 0,
            Party::Black => 1,
            Party::Umpire => 2,
        }
    }
}

impl std::fmt::Display for Party {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Party::White => "white",
            Party::Black => "black",
            Party::Umpire => "the umpire",
        })
    }
}

/// A message channel of a match. On the wire: 0 public, 1 white↔umpire, 2 black↔umpire.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Channel {
    /// Seen by everyone: terms-level messages, commitments, reveals, open moves, claims.
    Public,
    /// White and the umpire, sealed to the recipient.
    WhiteUmpire,
    /// Black and the umpire, sealed to the recipient.
    BlackUmpire,
}

impl Channel {
    /// All channels.
    pub const ALL: [Channel; 3] = [Channel::Public, Channel::WhiteUmpire, Channel::BlackUmpire];

    /// The byte used for this channel in hash and HPKE inputs.
    pub fn byte(self) -> u8 {
        match self {
            Channel::Public => 0,
            Channel::WhiteUmpire => 1,
            Channel::BlackUmpire => 2,
        }
    }

    /// The private channel of `side`.
    pub fn private(side: Side) -> Channel {
        match side {
            Side::White => Channel::WhiteUmpire,
            Side::Black => Channel::BlackUmpire,
        }
    }

    /// The player side of a private channel (`None` for the public channel).
    pub fn side(self) -> Option<Side> {
        match self {
            Channel::Public => None,
            Channel::WhiteUmpire => Some(Side::White),
            Channel::BlackUmpire => Some(Side::Black),
        }
    }
}

impl std::fmt::Display for Channel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Channel::Public => "public",
            Channel::WhiteUmpire => "white-umpire",
            Channel::BlackUmpire => "black-umpire",
        })
    }
}

//! Small vocabulary: sides (the rules' `Color`), parties, channels, and the 32-byte hashes that name things.

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

/// A side of the board: the rules' [`Color`], re-exported. On the wire: 0 = white, 1 = black
/// (postcard enum index, and the one byte, `side as u8`, used in hash inputs); in JSON `white` /
/// `black`.
pub use rules::Color;

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
    pub fn of(side: Color) -> Party {
        match side {
            Color::White => Party::White,
            Color::Black => Party::Black,
        }
    }

    /// The side of a player party.
    pub fn side(self) -> Option<Color> {
        match self {
            Party::White => Some(Color::White),
            Party::Black => Some(Color::Black),
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
    pub fn private(side: Color) -> Channel {
        match side {
            Color::White => Channel::WhiteUmpire,
            Color::Black => Channel::BlackUmpire,
        }
    }

    /// The player side of a private channel (`None` for the public channel).
    pub fn side(self) -> Option<Color> {
        match self {
            Channel::Public => None,
            Channel::WhiteUmpire => Some(Color::White),
            Channel::BlackUmpire => Some(Color::Black),
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The side's wire form did not change when `Color` became the rules' `Color`: postcard's
    /// variant index 0 = white, 1 = black (the byte in hash inputs too), and one JSON spelling.
    #[test]
    fn a_side_keeps_its_wire_byte_and_has_one_json_spelling() {
        for (side, byte, json) in [(Color::White, 0u8, "\"white\""), (Color::Black, 1, "\"black\"")]
        {
            assert_eq!(postcard::to_allocvec(&side).unwrap(), vec![byte]);
            assert_eq!(side as u8, byte);
            assert_eq!(serde_json::to_string(&side).unwrap(), json);
            assert_eq!(serde_json::from_str::<Color>(json).unwrap(), side);
        }
        assert_eq!(postcard::from_bytes::<Color>(&[2]).ok(), None, "no third side");
        let keys = crate::ByColor { white: 1u8, black: 2 };
        assert_eq!(postcard::to_allocvec(&keys).unwrap(), vec![1, 2], "white's first");
        assert_eq!((keys.color_of(&2), keys.color_of(&3)), (Some(Color::Black), None));
    }
}

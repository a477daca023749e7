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

/// Positions by log head (an entry's order head, say), for looking heads up as they come:
/// the relay's [`crate::relay::Sequence`] and every party's machine map a message's `seen`
/// to the entry it names through one.
///
/// Keyed by a head's first eight bytes: a head is a SHA-256 output, and a search compares one
/// `u64` at each step instead of 32 bytes (in the profile of a loaded umpire, the map keyed by
/// whole heads cost 1.6% of its CPU, mostly comparing keys; docs/LOADTEST.md, stop 26). The
/// whole head is kept beside its position and compared on every lookup, and a head whose
/// first eight bytes an earlier head already has (by chance, about 2^-64 a pair, or because
/// someone ground messages for it) is kept in a second map keyed by the whole head, so a
/// lookup is exact whatever the heads are.
#[derive(Clone, Debug, Default)]
pub struct LogHeadIndex {
    by_prefix: std::collections::BTreeMap<u64, (LogHead, u64)>,
    collided: std::collections::BTreeMap<LogHead, u64>,
}

impl LogHeadIndex {
    /// An empty index.
    pub fn new() -> LogHeadIndex {
        LogHeadIndex::default()
    }

    fn prefix(head: &LogHead) -> u64 {
        let [a, b, c, d, e, f, g, h, ..] = head.0;
        u64::from_le_bytes([a, b, c, d, e, f, g, h])
    }

    /// The position recorded for `head`, if any.
    pub fn get(&self, head: &LogHead) -> Option<u64> {
        match self.by_prefix.get(&Self::prefix(head)) {
            Some((known, at)) if known == head => Some(*at),
            Some(_) => self.collided.get(head).copied(),
            None => None,
        }
    }

    /// Records `head` at `position` unless `head` is recorded already (the first position
    /// stays); whether it was new.
    pub fn insert_new(&mut self, head: LogHead, position: u64) -> bool {
        use std::collections::btree_map::Entry;
        match self.by_prefix.entry(Self::prefix(&head)) {
            Entry::Vacant(v) => {
                v.insert((head, position));
                true
            }
            Entry::Occupied(o) if o.get().0 == head => false,
            Entry::Occupied(_) => match self.collided.entry(head) {
                Entry::Vacant(v) => {
                    v.insert(position);
                    true
                }
                Entry::Occupied(_) => false,
            },
        }
    }

    /// How many distinct heads are recorded.
    pub fn len(&self) -> usize {
        self.by_prefix.len() + self.collided.len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.by_prefix.is_empty()
    }
}

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

    /// The index answers exactly as a map keyed by whole heads, heads sharing their first
    /// eight bytes included (made here on purpose; someone grinding messages could make them).
    #[test]
    fn the_head_index_answers_as_a_map_of_whole_heads_even_where_prefixes_collide() {
        use rand_core::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(26);
        let mut index = LogHeadIndex::new();
        let mut model = std::collections::BTreeMap::new();
        let mut heads: Vec<LogHead> = Vec::new();
        for position in 0..2000u64 {
            let mut head = [0u8; 32];
            rng.fill_bytes(&mut head);
            // Every third head takes an earlier head's first eight bytes; every seventh is an
            // earlier head again (its first position stays).
            if position % 3 == 0 && !heads.is_empty() {
                let earlier = heads[(rng.next_u64() % heads.len() as u64) as usize];
                head[..8].copy_from_slice(&earlier.0[..8]);
            }
            if position % 7 == 0 && !heads.is_empty() {
                head = heads[(rng.next_u64() % heads.len() as u64) as usize].0;
            }
            let head = LogHead(head);
            let new = !model.contains_key(&head);
            assert_eq!(index.insert_new(head, position), new, "head {position}");
            model.entry(head).or_insert(position);
            heads.push(head);
            assert_eq!(index.len(), model.len());
        }
        assert!(index.collided.len() > 100, "prefixes collided: {}", index.collided.len());
        for head in &heads {
            assert_eq!(index.get(head), model.get(head).copied());
        }
        // Heads never recorded, with and without a recorded head's first eight bytes.
        for head in heads.iter().take(300) {
            let mut other = head.0;
            other[31] ^= 0x80;
            assert_eq!(index.get(&LogHead(other)), model.get(&LogHead(other)).copied());
            let mut fresh = [0u8; 32];
            rng.fill_bytes(&mut fresh);
            assert_eq!(index.get(&LogHead(fresh)), None);
        }
        assert!(LogHeadIndex::new().is_empty() && !index.is_empty());
    }

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

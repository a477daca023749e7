//! The games, as a closed enum, with their stable ids, ruleset names and adjudication modes.

use crate::{Alphabet, BoardSize};
use serde::{Deserialize, Deserializer, Serialize, Serializer, de::Error as _};

/// A game fogproof plays. A closed enum rather than trait objects: every caller matches on it.
///
/// Serde form: the id string ([`Variant::id`]) in every format, so match terms carry the name
/// and an unknown id does not decode.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "lowercase"))]
pub enum Variant {
    /// Orthodox FIDE chess, the open baseline.
    Chess,
    /// Kriegspiel (`003_…`), umpired.
    Kriegspiel,
    /// Secret Intelligence Chess (`000_…`), umpired.
    Sic,
    /// Intrigue (`002_…`), owner-answered.
    Intrigue,
    /// 6x6 Secret Chess (`001_…`), umpired.
    SecretChess6,
    /// Espionage Chess (`004_…`), open.
    Espionage,
}

/// How a game is adjudicated (`../shared/design/ARCHITECTURE.md`, "Adjudication modes").
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Mode {
    /// Everything is public; both sides and the verifier check every move (chess, espionage).
    Open,
    /// Moves are public; the owner of a captured pawn answers "informer or not" (intrigue).
    Owner,
    /// Actions go sealed to an umpire, which answers each side (kriegspiel, sic, secretchess6).
    Umpire,
}

/// An unknown variant id.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown variant '{0}' (known: chess, kriegspiel, sic, intrigue, secretchess6, espionage)")]
pub struct UnknownVariant(pub String);

impl Variant {
    /// Every variant.
    pub const ALL: [Variant; 6] = [
        Variant::Chess,
        Variant::Kriegspiel,
        Variant::Sic,
        Variant::Intrigue,
        Variant::SecretChess6,
        Variant::Espionage,
    ];

    /// The id used on the command line and in match terms.
    #[must_use]
    pub const fn id(self) -> &'static str {
        match self {
            Variant::Chess => "chess",
            Variant::Kriegspiel => "kriegspiel",
            Variant::Sic => "sic",
            Variant::Intrigue => "intrigue",
            Variant::SecretChess6 => "secretchess6",
            Variant::Espionage => "espionage",
        }
    }

    /// The readable name (README's table; what the pages and the lichess API show).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Variant::Chess => "Chess",
            Variant::Kriegspiel => "Kriegspiel",
            Variant::Sic => "Secret Intelligence Chess",
            Variant::Intrigue => "Intrigue",
            Variant::SecretChess6 => "6x6 Secret Chess",
            Variant::Espionage => "Espionage Chess",
        }
    }

    /// The default ruleset's stable name and version (RULES.md headings).
    #[must_use]
    pub const fn ruleset(self) -> &'static str {
        match self {
            Variant::Chess => "chess/fide",
            Variant::Kriegspiel => "kriegspiel/1899-icc",
            Variant::Sic => "sic/2024",
            Variant::Intrigue => "intrigue/2000",
            Variant::SecretChess6 => "secretchess/6x6",
            Variant::Espionage => "espionage/sirotkin",
        }
    }

    /// How this game is adjudicated.
    #[must_use]
    pub const fn mode(self) -> Mode {
        match self {
            Variant::Chess | Variant::Espionage => Mode::Open,
            Variant::Intrigue => Mode::Owner,
            Variant::Kriegspiel | Variant::Sic | Variant::SecretChess6 => Mode::Umpire,
        }
    }

    /// The board size.
    #[must_use]
    pub const fn board_size(self) -> BoardSize {
        match self {
            Variant::SecretChess6 => BoardSize::Six,
            Variant::Espionage => BoardSize::Seven,
            _ => BoardSize::Eight,
        }
    }

    /// The piece letters of this game (R-C3).
    #[must_use]
    pub const fn alphabet(self) -> Alphabet {
        match self {
            Variant::Sic => Alphabet::SIC,
            Variant::Espionage => Alphabet::ESPIONAGE,
            Variant::SecretChess6 => Alphabet::SECRET_CHESS,
            _ => Alphabet::ORTHODOX,
        }
    }
}

impl std::str::FromStr for Variant {
    type Err = UnknownVariant;
    fn from_str(s: &str) -> Result<Variant, UnknownVariant> {
        Variant::ALL.into_iter().find(|v| v.id() == s).ok_or_else(|| UnknownVariant(s.to_string()))
    }
}

impl std::fmt::Display for Variant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}

impl Serialize for Variant {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.id())
    }
}

impl<'de> Deserialize<'de> for Variant {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Variant, D::Error> {
        String::deserialize(d)?.parse().map_err(D::Error::custom)
    }
}

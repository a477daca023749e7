//! The games, as a closed enum, with their stable ids, ruleset names and adjudication modes.

use crate::{Alphabet, BoardSize, Role};
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

    /// The short name (lichess's `short` in its variant objects: the agent API and the pages).
    #[must_use]
    pub const fn short_name(self) -> &'static str {
        match self {
            Variant::Chess => "Std",
            Variant::Kriegspiel => "Krieg",
            Variant::Sic => "SIC",
            Variant::Intrigue => "Intr",
            Variant::SecretChess6 => "6x6",
            Variant::Espionage => "Esp",
        }
    }

    /// Whether a game starts from positions the players choose or draw in secret (SIC's drawn
    /// armies, Intrigue's hidden informers, 6x6's formations), not from a known start position.
    #[must_use]
    pub const fn has_secret_setup(self) -> bool {
        match self {
            Variant::Sic | Variant::Intrigue | Variant::SecretChess6 => true,
            Variant::Chess | Variant::Kriegspiel | Variant::Espionage => false,
        }
    }

    /// What a man of this game is worth, roughly, in centipawns (the house bot's evaluation);
    /// 0 for the king, which is never traded.
    #[must_use]
    pub const fn piece_value(self, role: Role) -> i64 {
        match role {
            Role::Pawn => 100,
            Role::Knight => 300,
            Role::Bishop => 320,
            Role::Rook => 500,
            Role::Queen => 900,
            Role::King => 0,
            Role::Marshall => 850,
            Role::Archbishop => 800,
            Role::Centaur => 450,
            Role::DragonHorse => 650,
            Role::DragonKing => 700,
            // Espionage's Spy attacks like a queen and is mostly immune (R-E2); SIC's is a
            // short-range piece (R-S6).
            Role::Spy if matches!(self, Variant::Espionage) => 700,
            Role::Spy => 250,
            Role::Decoy => 150,
            Role::Cannon => 450,
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

#[cfg(test)]
mod tests {
    use super::Variant;
    use crate::{AnyGame, GameOptions, Role};

    #[test]
    fn short_names_are_distinct_and_short() {
        let mut seen = std::collections::BTreeSet::new();
        for v in Variant::ALL {
            let s = v.short_name();
            assert!(!s.is_empty() && s.len() <= 5 && s.is_ascii(), "{v}: '{s}'");
            assert!(seen.insert(s), "{v}: '{s}' is another game's short name");
        }
    }

    /// Every man of a game's alphabet has a worth, the king none.
    #[test]
    fn piece_values_cover_every_role_of_the_alphabet() {
        for v in Variant::ALL {
            let roles: Vec<Role> = ('a'..='z').filter_map(|c| v.alphabet().role(c)).collect();
            assert!(roles.contains(&Role::King), "{v}");
            for r in roles {
                let value = v.piece_value(r);
                assert!(if r == Role::King { value == 0 } else { value > 0 }, "{v} {r:?}: {value}");
            }
        }
    }

    /// A game has a secret setup exactly when its start position is not known without one:
    /// it does not start without seeds (SIC), or it starts in a setup phase with no position yet
    /// (Intrigue, 6x6).
    #[test]
    fn secret_setups_are_the_games_without_a_known_start() {
        for v in Variant::ALL {
            let start = AnyGame::start(&GameOptions::default_for(v), None);
            let known = start.ok().and_then(|g| g.fen()).is_some();
            assert_eq!(v.has_secret_setup(), !known, "{v}");
        }
    }
}

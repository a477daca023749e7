//! One place for game knowledge: the closed enum over the six games ([`AnyGame`]), their
//! actions ([`AnyAction`]) and observations ([`AnyObservation`]) as typed values, and their
//! options ([`GameOptions`]), typed in the match terms and read from their text form
//! ([`GameOptions::parse`]) only at the edges (HTTP JSON, command-line flags, the pages).
//!
//! Like shakmaty's `VariantPosition`, a closed enum rather than trait objects: every caller
//! matches on it, and a new game fails to compile wherever it is not handled. Encodings (bytes
//! on the wire, JSON shapes) belong to the callers; this module only knows typed values.

use crate::{
    ActionError, ByColor, Color, GameResult, Move, Transition, Variant, chess, espionage, intrigue,
    kriegspiel, secretchess6, sic,
};
use crate::{Analysis as _, Game as _};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The options of a game, typed per variant (RULES.md: the alternatives a seed offers are named
/// options in the match terms; the first one named is the default). The enum names the game,
/// so a value is the game and its options together.
///
/// Serde forms (see the `Serialize` impl): in binary formats (the postcard of the match terms)
/// the variant's id, then the variant's option fields in declaration order (nothing for a
/// game without options); in human-readable formats (JSON) `{"variant": id, "options": map}`
/// with the options' text form ([`GameOptions::to_map`]), which is what the HTTP API and the
/// stored challenges show. Both refuse what [`GameOptions::check`] refuses, so a decoded value
/// is always one the game has.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum GameOptions {
    /// Orthodox chess has no options.
    Chess,
    /// Kriegspiel: `touch-move` (R-K4).
    Kriegspiel(kriegspiel::Options),
    /// SIC: `spy` = `original` (R-S6).
    Sic(sic::SpyRule),
    /// Intrigue has no options.
    Intrigue,
    /// 6x6: the items and `hidden-scores` (R-G7, R-G9).
    SecretChess6(secretchess6::Options),
    /// Espionage has no options.
    Espionage,
}

/// An option the terms may not carry: unknown to the game, a bad value, or a default written
/// out (a default is spelled by leaving the option out, so the terms have one spelling).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("option '{name}': {problem}")]
pub struct OptionError {
    /// The option's name.
    pub name: String,
    /// What is wrong.
    pub problem: String,
}

fn option_error(name: &str, problem: String) -> OptionError {
    OptionError { name: name.to_owned(), problem }
}

/// A `true` flag; `false` is the default, spelled by leaving the option out.
fn flag(name: &str, value: &str) -> Result<bool, OptionError> {
    match value {
        "true" => Ok(true),
        "false" => Err(option_error(name, "'false' is the default: leave the option out".into())),
        other => Err(option_error(name, format!("'{other}' is not true"))),
    }
}

/// A Life Freeze count 1..=8 (R-G9); 0 is the default.
fn count(name: &str, value: &str) -> Result<u8, OptionError> {
    let max = secretchess6::MAX_LIFE_FREEZES;
    let n = value.parse::<u8>().ok().filter(|n| (1..=max).contains(n));
    n.ok_or_else(|| {
        let problem = if value == "0" {
            "'0' is the default: leave the option out".to_owned()
        } else {
            format!("'{value}' is not a number from 1 to {max}")
        };
        option_error(name, problem)
    })
}

impl GameOptions {
    /// The options' names per variant, for error messages and docs.
    #[must_use]
    pub const fn names(variant: Variant) -> &'static str {
        match variant {
            Variant::Chess | Variant::Intrigue | Variant::Espionage => "none",
            Variant::Kriegspiel => "touch-move",
            Variant::Sic => "spy",
            Variant::SecretChess6 => {
                "life-freezes-white, life-freezes-black, false-square-white, \
                 false-square-black, hidden-scores"
            }
        }
    }

    /// Every option at its default.
    #[must_use]
    pub fn default_for(variant: Variant) -> GameOptions {
        match variant {
            Variant::Chess => GameOptions::Chess,
            Variant::Kriegspiel => GameOptions::Kriegspiel(kriegspiel::Options::default()),
            Variant::Sic => GameOptions::Sic(sic::SpyRule::default()),
            Variant::Intrigue => GameOptions::Intrigue,
            Variant::SecretChess6 => GameOptions::SecretChess6(secretchess6::Options::default()),
            Variant::Espionage => GameOptions::Espionage,
        }
    }

    /// The game these options are for.
    #[must_use]
    pub const fn variant(&self) -> Variant {
        match self {
            GameOptions::Chess => Variant::Chess,
            GameOptions::Kriegspiel(_) => Variant::Kriegspiel,
            GameOptions::Sic(_) => Variant::Sic,
            GameOptions::Intrigue => Variant::Intrigue,
            GameOptions::SecretChess6(_) => Variant::SecretChess6,
            GameOptions::Espionage => Variant::Espionage,
        }
    }

    /// The game's id (`Variant::id`).
    #[must_use]
    pub const fn id(&self) -> &'static str {
        self.variant().id()
    }

    /// Checks what the types alone allow but the game does not: a Life Freeze count above
    /// [`secretchess6::MAX_LIFE_FREEZES`] (R-G9). Every other typed value is a set of options
    /// the game has.
    pub fn check(&self) -> Result<(), OptionError> {
        if let GameOptions::SecretChess6(o) = self {
            let max = secretchess6::MAX_LIFE_FREEZES;
            for c in Color::ALL {
                let n = o.life_freezes[c];
                if n > max {
                    let name = format!("life-freezes-{c}");
                    return Err(option_error(
                        &name,
                        format!("'{n}' is not a number from 1 to {max}"),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Reads the options of `variant` from their text form (the edges: HTTP JSON, flags): kriegspiel `touch-move`
    /// (`true`); sic `spy` (`original`); secretchess6 `life-freezes-white`,
    /// `life-freezes-black` (1 to 8), `false-square-white`, `false-square-black`,
    /// `hidden-scores` (`true`). Anything else is refused, defaults written out included, so
    /// that every set of options has exactly one text form ([`GameOptions::to_map`]).
    pub fn parse(
        variant: Variant,
        options: &BTreeMap<String, String>,
    ) -> Result<GameOptions, OptionError> {
        let mut out = GameOptions::default_for(variant);
        for (name, value) in options {
            let unknown = || {
                let known = GameOptions::names(variant);
                option_error(name, format!("{variant} has no such option (known: {known})"))
            };
            match &mut out {
                GameOptions::Kriegspiel(o) => match name.as_str() {
                    "touch-move" => o.touch_move = flag(name, value)?,
                    _ => return Err(unknown()),
                },
                GameOptions::Sic(spy) => match (name.as_str(), value.as_str()) {
                    ("spy", "original") => *spy = sic::SpyRule::Original,
                    ("spy", other) => {
                        let problem = if other == "default" {
                            "'default' is the default: leave the option out".to_owned()
                        } else {
                            format!("'{other}' is not original")
                        };
                        return Err(option_error(name, problem));
                    }
                    _ => return Err(unknown()),
                },
                GameOptions::SecretChess6(o) => match name.as_str() {
                    "life-freezes-white" => o.life_freezes.white = count(name, value)?,
                    "life-freezes-black" => o.life_freezes.black = count(name, value)?,
                    "false-square-white" => o.false_square.white = flag(name, value)?,
                    "false-square-black" => o.false_square.black = flag(name, value)?,
                    "hidden-scores" => o.hidden_scores = flag(name, value)?,
                    _ => return Err(unknown()),
                },
                GameOptions::Chess | GameOptions::Intrigue | GameOptions::Espionage => {
                    return Err(unknown());
                }
            }
        }
        Ok(out)
    }

    /// The text form [`GameOptions::parse`] reads back: only what differs from the defaults.
    #[must_use]
    pub fn to_map(&self) -> BTreeMap<String, String> {
        let mut out = BTreeMap::new();
        let mut put = |name: &str, value: String| {
            out.insert(name.to_owned(), value);
        };
        match self {
            GameOptions::Kriegspiel(o) if o.touch_move => put("touch-move", "true".into()),
            GameOptions::Sic(sic::SpyRule::Original) => put("spy", "original".into()),
            GameOptions::SecretChess6(o) => {
                for c in Color::ALL {
                    if o.life_freezes[c] > 0 {
                        put(&format!("life-freezes-{c}"), o.life_freezes[c].to_string());
                    }
                    if o.false_square[c] {
                        put(&format!("false-square-{c}"), "true".into());
                    }
                }
                if o.hidden_scores {
                    put("hidden-scores", "true".into());
                }
            }
            _ => {}
        }
        out
    }
}

impl Serialize for GameOptions {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeStruct as _, SerializeTuple as _};
        if s.is_human_readable() {
            let mut out = s.serialize_struct("GameOptions", 2)?;
            out.serialize_field("variant", &self.variant())?;
            out.serialize_field("options", &self.to_map())?;
            return out.end();
        }
        let mut out = s.serialize_tuple(2)?;
        out.serialize_element(&self.variant())?;
        match self {
            GameOptions::Chess | GameOptions::Intrigue | GameOptions::Espionage => {
                out.serialize_element(&())?;
            }
            GameOptions::Kriegspiel(o) => out.serialize_element(o)?,
            GameOptions::Sic(spy) => out.serialize_element(spy)?,
            GameOptions::SecretChess6(o) => out.serialize_element(o)?,
        }
        out.end()
    }
}

impl<'de> Deserialize<'de> for GameOptions {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<GameOptions, D::Error> {
        if d.is_human_readable() {
            d.deserialize_struct("GameOptions", &["variant", "options"], TextVisitor)
        } else {
            d.deserialize_tuple(2, TypedVisitor)
        }
    }
}

/// The binary form: the variant id, then its option fields.
struct TypedVisitor;

impl<'de> serde::de::Visitor<'de> for TypedVisitor {
    type Value = GameOptions;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a variant id and its options")
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<GameOptions, A::Error> {
        use serde::de::Error as _;
        let missing = || A::Error::invalid_length(1, &self);
        let variant: Variant =
            seq.next_element()?.ok_or_else(|| A::Error::invalid_length(0, &self))?;
        let out = match variant {
            Variant::Chess | Variant::Intrigue | Variant::Espionage => {
                seq.next_element::<()>()?.ok_or_else(missing)?;
                GameOptions::default_for(variant)
            }
            Variant::Kriegspiel => {
                GameOptions::Kriegspiel(seq.next_element()?.ok_or_else(missing)?)
            }
            Variant::Sic => GameOptions::Sic(seq.next_element()?.ok_or_else(missing)?),
            Variant::SecretChess6 => {
                GameOptions::SecretChess6(seq.next_element()?.ok_or_else(missing)?)
            }
        };
        out.check().map_err(A::Error::custom)?;
        Ok(out)
    }
}

/// The text form: `{"variant": id, "options": {name: value}}` (options may be left out).
struct TextVisitor;

impl<'de> serde::de::Visitor<'de> for TextVisitor {
    type Value = GameOptions;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a variant and its options by name")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<GameOptions, A::Error> {
        use serde::de::Error as _;
        let mut variant: Option<Variant> = None;
        let mut options: Option<BTreeMap<String, String>> = None;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "variant" if variant.is_none() => variant = Some(map.next_value()?),
                "options" if options.is_none() => options = Some(map.next_value()?),
                "variant" | "options" => {
                    return Err(A::Error::custom(format!("{key} given twice")));
                }
                other => return Err(A::Error::unknown_field(other, &["variant", "options"])),
            }
        }
        let variant = variant.ok_or_else(|| A::Error::missing_field("variant"))?;
        GameOptions::parse(variant, &options.unwrap_or_default())
            .map_err(|e| A::Error::custom(format!("options: {e}")))
    }
}

/// A side's action in any game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum AnyAction {
    /// A chess move.
    Chess(Move),
    /// A Kriegspiel attempt.
    Kriegspiel(Move),
    /// A SIC move.
    Sic(Move),
    /// An Intrigue setup or move.
    Intrigue(intrigue::Action),
    /// A 6x6 setup, move, Life Freeze choice or tie-break.
    #[serde(rename = "secretchess6")]
    SecretChess6(secretchess6::Action),
    /// An Espionage move.
    Espionage(Move),
}

impl AnyAction {
    /// The game this action is for.
    #[must_use]
    pub const fn variant(&self) -> Variant {
        match self {
            AnyAction::Chess(_) => Variant::Chess,
            AnyAction::Kriegspiel(_) => Variant::Kriegspiel,
            AnyAction::Sic(_) => Variant::Sic,
            AnyAction::Intrigue(_) => Variant::Intrigue,
            AnyAction::SecretChess6(_) => Variant::SecretChess6,
            AnyAction::Espionage(_) => Variant::Espionage,
        }
    }

    /// The plain move of `variant`, for the games whose actions are moves.
    #[must_use]
    pub fn of_move(variant: Variant, m: Move) -> Option<AnyAction> {
        Some(match variant {
            Variant::Chess => AnyAction::Chess(m),
            Variant::Kriegspiel => AnyAction::Kriegspiel(m),
            Variant::Sic => AnyAction::Sic(m),
            Variant::Intrigue => AnyAction::Intrigue(intrigue::Action::Move(m)),
            Variant::Espionage => AnyAction::Espionage(m),
            Variant::SecretChess6 => return None,
        })
    }

    /// The move this action makes, where it is one (an Intrigue move included).
    #[must_use]
    pub const fn as_move(&self) -> Option<&Move> {
        match self {
            AnyAction::Chess(m)
            | AnyAction::Kriegspiel(m)
            | AnyAction::Sic(m)
            | AnyAction::Espionage(m)
            | AnyAction::Intrigue(intrigue::Action::Move(m)) => Some(m),
            AnyAction::Intrigue(intrigue::Action::Setup(_)) | AnyAction::SecretChess6(_) => None,
        }
    }
}

/// What one side is told, in any game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum AnyObservation {
    /// A chess move and the end, if any.
    Chess(chess::Played),
    /// The Kriegspiel umpire's answer.
    Kriegspiel(kriegspiel::Answer),
    /// A SIC report after a move.
    Sic(sic::Observation),
    /// A SIC side's view at the start of play (its army and, for White, its first legal moves).
    SicStart(Box<sic::View>),
    /// An Intrigue report (setup or move).
    Intrigue(intrigue::Observation),
    /// 6x6 events.
    #[serde(rename = "secretchess6")]
    SecretChess6(secretchess6::Observation),
    /// An Espionage report.
    Espionage(espionage::Observation),
}

impl AnyObservation {
    /// The game's own observation in its plain serde form, without this enum's tag (what
    /// evidence and `fogproof record show` print).
    ///
    /// # Errors
    /// The serializer's.
    pub fn serialize_untagged<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            AnyObservation::Chess(o) => o.serialize(s),
            AnyObservation::Kriegspiel(o) => o.serialize(s),
            AnyObservation::Sic(o) => o.serialize(s),
            AnyObservation::SicStart(o) => o.serialize(s),
            AnyObservation::Intrigue(o) => o.serialize(s),
            AnyObservation::SecretChess6(o) => o.serialize(s),
            AnyObservation::Espionage(o) => o.serialize(s),
        }
    }

    /// The game this observation is of.
    #[must_use]
    pub const fn variant(&self) -> Variant {
        match self {
            AnyObservation::Chess(_) => Variant::Chess,
            AnyObservation::Kriegspiel(_) => Variant::Kriegspiel,
            AnyObservation::Sic(_) | AnyObservation::SicStart(_) => Variant::Sic,
            AnyObservation::Intrigue(_) => Variant::Intrigue,
            AnyObservation::SecretChess6(_) => Variant::SecretChess6,
            AnyObservation::Espionage(_) => Variant::Espionage,
        }
    }
}

/// Why a game could not start.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{variant}: {problem}")]
pub struct StartError {
    /// The game.
    pub variant: Variant,
    /// What is missing or extra.
    pub problem: &'static str,
}

/// One of the six games, as an umpire (or a verifier) holds it: the full state.
#[derive(Clone, Debug)]
pub enum AnyGame {
    /// Orthodox chess (open).
    Chess(chess::State),
    /// Kriegspiel (umpired).
    Kriegspiel(kriegspiel::State),
    /// Secret Intelligence Chess (umpired).
    Sic(Box<sic::State>),
    /// Intrigue (owner-answered).
    Intrigue(intrigue::State),
    /// 6x6 Secret Chess (umpired).
    SecretChess6(Box<secretchess6::State>),
    /// Espionage Chess (open).
    Espionage(espionage::State),
}

type AnyTransition = Transition<AnyGame, AnyObservation>;

/// Wraps a game's transition into the closed enums.
fn wrap<S, O>(
    t: Transition<S, O>,
    state: impl FnOnce(S) -> AnyGame,
    obs: impl Fn(O) -> AnyObservation,
) -> AnyTransition {
    Transition { state: state(t.state), told: t.told.map(|o| o.map(&obs)) }
}

impl AnyGame {
    /// The start of a game. `seeds` are SIC's two setup seeds (R-S2; the protocol derives them
    /// from the coin toss) and must be `None` for the other games. Intrigue and 6x6 start in
    /// their setup phase: the secret setups are applied as actions.
    pub fn start(
        options: &GameOptions,
        seeds: Option<&ByColor<[u8; 32]>>,
    ) -> Result<AnyGame, StartError> {
        let variant = options.variant();
        let error = |problem| StartError { variant, problem };
        if variant != Variant::Sic && seeds.is_some() {
            return Err(error("takes no setup seeds"));
        }
        Ok(match *options {
            GameOptions::Chess => AnyGame::Chess(chess::State::start()),
            GameOptions::Kriegspiel(o) => AnyGame::Kriegspiel(kriegspiel::State::start(o)),
            GameOptions::Sic(spy) => {
                let s = seeds.ok_or_else(|| error("needs both sides' setup seeds"))?;
                AnyGame::Sic(Box::new(sic::State::new(&s.white, &s.black, spy)))
            }
            GameOptions::Intrigue => AnyGame::Intrigue(intrigue::State::new()),
            GameOptions::SecretChess6(o) => {
                AnyGame::SecretChess6(Box::new(secretchess6::State::new(o)))
            }
            GameOptions::Espionage => AnyGame::Espionage(espionage::State::new()),
        })
    }

    /// Which game this is.
    #[must_use]
    pub const fn variant(&self) -> Variant {
        match self {
            AnyGame::Chess(_) => Variant::Chess,
            AnyGame::Kriegspiel(_) => Variant::Kriegspiel,
            AnyGame::Sic(_) => Variant::Sic,
            AnyGame::Intrigue(_) => Variant::Intrigue,
            AnyGame::SecretChess6(_) => Variant::SecretChess6,
            AnyGame::Espionage(_) => Variant::Espionage,
        }
    }

    /// What each side is told when play can begin, before any action: in SIC each side's
    /// [`sic::View`] (its army and, for White, its first legal moves); nothing in the other
    /// games (a Kriegspiel player knows the standard start; 6x6 boards come with the setup
    /// observations).
    #[must_use]
    pub fn start_observations(&self) -> ByColor<Option<AnyObservation>> {
        match self {
            AnyGame::Sic(s) => {
                ByColor::new_with(|c| Some(AnyObservation::SicStart(Box::new(s.view(c)))))
            }
            _ => ByColor::default(),
        }
    }

    /// Applies `action` by `actor`: the new game and what each side is told. `self` is
    /// unchanged on error; an action of another game is refused ([`ActionError::WrongGame`]).
    pub fn apply(&self, actor: Color, action: &AnyAction) -> Result<AnyTransition, ActionError> {
        use AnyObservation as O;
        Ok(match (self, action) {
            (AnyGame::Chess(s), AnyAction::Chess(m)) => {
                wrap(s.apply(actor, m)?, AnyGame::Chess, O::Chess)
            }
            (AnyGame::Kriegspiel(s), AnyAction::Kriegspiel(m)) => {
                wrap(s.apply(actor, m)?, AnyGame::Kriegspiel, O::Kriegspiel)
            }
            (AnyGame::Sic(s), AnyAction::Sic(m)) => {
                wrap(s.apply(actor, m)?, |s| AnyGame::Sic(Box::new(s)), O::Sic)
            }
            (AnyGame::Intrigue(s), AnyAction::Intrigue(a)) => {
                wrap(s.apply(actor, a)?, AnyGame::Intrigue, O::Intrigue)
            }
            (AnyGame::SecretChess6(s), AnyAction::SecretChess6(a)) => {
                wrap(s.apply(actor, a)?, |s| AnyGame::SecretChess6(Box::new(s)), O::SecretChess6)
            }
            (AnyGame::Espionage(s), AnyAction::Espionage(m)) => {
                wrap(s.apply(actor, m)?, AnyGame::Espionage, O::Espionage)
            }
            _ => return Err(ActionError::WrongGame(action.variant())),
        })
    }

    /// The legal actions of the side to act, as the full state knows them: moves (Kriegspiel:
    /// the legal moves, not the attempts), 6x6 moves, Life Freeze and end-turn choices. Empty
    /// during free-form phases (setups, tie-break) and once over.
    #[must_use]
    pub fn legal_actions(&self) -> Vec<AnyAction> {
        if self.result().is_some() {
            return Vec::new();
        }
        match self {
            AnyGame::Chess(s) => {
                s.position().legal_moves().iter().map(|m| AnyAction::Chess(*m)).collect()
            }
            AnyGame::Kriegspiel(s) => {
                s.position().legal_moves().iter().map(|m| AnyAction::Kriegspiel(*m)).collect()
            }
            AnyGame::Sic(s) => {
                s.legal_moves_of(s.position().turn()).into_iter().map(AnyAction::Sic).collect()
            }
            AnyGame::Intrigue(s) => s.position().map_or_else(Vec::new, |p| {
                p.legal_moves()
                    .into_iter()
                    .map(|m| AnyAction::Intrigue(intrigue::Action::Move(m)))
                    .collect()
            }),
            AnyGame::SecretChess6(s) => {
                s.legal_actions().into_iter().map(|(_, a)| AnyAction::SecretChess6(a)).collect()
            }
            AnyGame::Espionage(s) => {
                s.legal_moves().into_iter().map(AnyAction::Espionage).collect()
            }
        }
    }

    /// The sides that may act now (both during a simultaneous setup; none once over).
    #[must_use]
    pub fn to_act(&self) -> Vec<Color> {
        match self {
            AnyGame::Chess(s) => s.to_act(),
            AnyGame::Kriegspiel(s) => s.to_act(),
            AnyGame::Sic(s) => s.to_act(),
            AnyGame::Intrigue(s) => s.to_act(),
            AnyGame::SecretChess6(s) => s.to_act(),
            AnyGame::Espionage(s) => s.to_act(),
        }
    }

    /// The result, once the game is over.
    #[must_use]
    pub fn result(&self) -> Option<GameResult> {
        match self {
            AnyGame::Chess(s) => s.result(),
            AnyGame::Kriegspiel(s) => s.result(),
            AnyGame::Sic(s) => s.result(),
            AnyGame::Intrigue(s) => s.result(),
            AnyGame::SecretChess6(s) => s.result(),
            AnyGame::Espionage(s) => s.result(),
        }
    }

    /// The full position string (R-C4, with each game's fields), once there is a position:
    /// not during an Intrigue or 6x6 setup.
    #[must_use]
    pub fn fen(&self) -> Option<String> {
        Some(match self {
            AnyGame::Chess(s) => s.position().to_fen(),
            AnyGame::Kriegspiel(s) => s.position().to_fen(),
            AnyGame::Sic(s) => s.position().to_fen(),
            AnyGame::Intrigue(s) => s.position()?.to_fen(),
            AnyGame::SecretChess6(s) => s.position()?.to_fen(),
            AnyGame::Espionage(s) => s.position().to_fen(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The untagged form is exactly the value under the enum's tag in the tagged form.
    #[test]
    fn untagged_observations_are_the_tagged_forms_values() {
        struct Untagged<'a>(&'a AnyObservation);
        impl Serialize for Untagged<'_> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                self.0.serialize_untagged(s)
            }
        }
        let mut seen = 0;
        for v in [Variant::Chess, Variant::Kriegspiel, Variant::Espionage] {
            let game = AnyGame::start(&GameOptions::default_for(v), None).expect("starts");
            let actor = game.to_act()[0];
            let action = game.legal_actions().into_iter().next().expect("a legal action");
            let t = game.apply(actor, &action).expect("legal");
            for o in [t.told.white, t.told.black].into_iter().flatten() {
                let tagged = serde_json::to_value(&o).expect("plain data");
                let untagged = serde_json::to_value(Untagged(&o)).expect("plain data");
                let object = tagged.as_object().expect("externally tagged");
                assert_eq!(object.len(), 1, "{tagged}");
                assert_eq!(object.values().next(), Some(&untagged), "{v}");
                seen += 1;
            }
        }
        assert!(seen >= 3, "observations compared: {seen}");
    }

    fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    }

    #[test]
    fn options_have_one_text_form() {
        let all = map(&[
            ("false-square-black", "true"),
            ("hidden-scores", "true"),
            ("life-freezes-white", "2"),
        ]);
        let o = GameOptions::parse(Variant::SecretChess6, &all).expect("valid options");
        assert_eq!(o.to_map(), all);
        let GameOptions::SecretChess6(six) = o else { panic!("{o:?}") };
        assert_eq!(six.life_freezes, ByColor { white: 2, black: 0 });
        for v in Variant::ALL {
            assert_eq!(GameOptions::parse(v, &BTreeMap::new()), Ok(GameOptions::default_for(v)));
            assert!(GameOptions::default_for(v).to_map().is_empty());
        }
        let touch = GameOptions::parse(Variant::Kriegspiel, &map(&[("touch-move", "true")]));
        assert_eq!(touch.map(|o| o.to_map()), Ok(map(&[("touch-move", "true")])));
        let spy = GameOptions::parse(Variant::Sic, &map(&[("spy", "original")]));
        assert_eq!(spy, Ok(GameOptions::Sic(sic::SpyRule::Original)));
        // Refused: unknown names, bad values, and defaults written out.
        for (v, pairs) in [
            (Variant::Kriegspiel, [("touch-move", "yes")]),
            (Variant::Kriegspiel, [("touch-move", "false")]),
            (Variant::Chess, [("touch-move", "true")]),
            (Variant::Sic, [("spy", "default")]),
            (Variant::Sic, [("spy", "sneaky")]),
            (Variant::SecretChess6, [("life-freezes-white", "9")]),
            (Variant::SecretChess6, [("life-freezes-white", "0")]),
            (Variant::SecretChess6, [("hidden-scores", "false")]),
        ] {
            assert!(GameOptions::parse(v, &map(&pairs)).is_err(), "{v}: {pairs:?}");
        }
    }

    #[test]
    fn options_json_is_their_text_form_and_refuses_what_the_game_lacks() {
        use serde_json::json;
        let touch = GameOptions::Kriegspiel(kriegspiel::Options { touch_move: true });
        let v = serde_json::to_value(touch).expect("serializes");
        assert_eq!(v, json!({ "variant": "kriegspiel", "options": { "touch-move": "true" } }));
        assert_eq!(serde_json::from_value::<GameOptions>(v).expect("reads back"), touch);
        let sic = serde_json::from_value::<GameOptions>(json!({ "variant": "sic" }));
        assert_eq!(sic.expect("options may be left out"), GameOptions::default_for(Variant::Sic));
        let refused = |v: serde_json::Value| {
            serde_json::from_value::<GameOptions>(v).expect_err("refused").to_string()
        };
        let bad = json!({ "variant": "kriegspiel", "options": { "touch-move": "maybe" } });
        assert!(refused(bad).contains("option 'touch-move'"));
        let default = json!({ "variant": "kriegspiel", "options": { "touch-move": "false" } });
        assert!(refused(default).contains("the default"));
        assert!(refused(json!({ "variant": "chess", "colour": "white" })).contains("colour"));
        assert!(refused(json!({ "options": {} })).contains("variant"));
        assert!(refused(json!({ "variant": "xiangqi" })).contains("xiangqi"));
        // The typed form allows counts the game does not: check refuses them.
        let mut six = secretchess6::Options::default();
        six.life_freezes.black = secretchess6::MAX_LIFE_FREEZES;
        assert_eq!(GameOptions::SecretChess6(six).check(), Ok(()));
        six.life_freezes.black += 1;
        let e = GameOptions::SecretChess6(six).check().expect_err("nine is too many");
        assert_eq!(e.name, "life-freezes-black");
    }

    #[test]
    fn a_game_refuses_another_games_action_and_sic_needs_seeds() {
        let chess = AnyGame::start(&GameOptions::Chess, None).expect("chess starts");
        let e2e4 = chess.legal_actions().into_iter().find(|a| {
            a.as_move().is_some_and(|m| m.from.to_string() == "e2" && m.to.to_string() == "e4")
        });
        let e2e4 = e2e4.expect("e2e4 is legal");
        let m = *e2e4.as_move().expect("a move");
        assert_eq!(
            chess.apply(Color::White, &AnyAction::Kriegspiel(m)).unwrap_err(),
            ActionError::WrongGame(Variant::Kriegspiel)
        );
        let t = chess.apply(Color::White, &e2e4).expect("legal");
        assert_eq!(t.told.white, t.told.black);
        assert!(AnyGame::start(&GameOptions::default_for(Variant::Sic), None).is_err());
        let seeds = ByColor { white: [0; 32], black: [1; 32] };
        assert!(AnyGame::start(&GameOptions::Chess, Some(&seeds)).is_err());
        let sic = AnyGame::start(&GameOptions::default_for(Variant::Sic), Some(&seeds));
        let start = sic.expect("sic starts").start_observations();
        assert!(matches!(&start.white, Some(AnyObservation::SicStart(v)) if !v.legal.is_empty()));
    }
}

//! The games' actions and observations on a byte codec: which value of which game a variant's
//! bytes hold (issue 17: the per-variant dispatch lives with the games, not in every caller).
//!
//! `rules` has no byte format of its own: the caller supplies one ([`ValueCodec`]; the
//! protocol's is its strict canonical postcard, `protocol::game`). On the wire an action or an
//! observation is the game's own serde value without [`AnyAction`]'s or [`AnyObservation`]'s
//! tag (the match terms name the game), so decoding needs the variant:
//!
//! | variant | action | observation after an action | start observation |
//! |---|---|---|---|
//! | chess | [`Move`] | [`chess::Played`] | none |
//! | kriegspiel | [`Move`] (an attempt) | [`kriegspiel::Answer`] | none |
//! | sic | [`Move`] | [`sic::Observation`] | [`sic::View`] of each side |
//! | intrigue | [`intrigue::Action`] | [`intrigue::Observation`] | none |
//! | secretchess6 | [`secretchess6::Action`] | [`secretchess6::Observation`] | none |
//! | espionage | [`Move`] | [`espionage::Observation`] | none |

use crate::{AnyAction, AnyObservation, Move, Variant, chess, espionage, intrigue, kriegspiel};
use crate::{secretchess6, sic};
use serde::Serialize;
use serde::de::DeserializeOwned;

/// A game's own value that travels on its own as bytes (an action, an observation), with the
/// name a codec's errors give it.
pub trait WireValue: Serialize + DeserializeOwned {
    /// The value's name in errors (`"move"`, `"kriegspiel answer"`, …).
    const NAME: &'static str;
}

macro_rules! wire_values {
    ($($ty:ty => $name:literal),* $(,)?) => {
        $(impl WireValue for $ty {
            const NAME: &'static str = $name;
        })*
    };
}

wire_values! {
    Move => "move",
    chess::Played => "chess observation",
    kriegspiel::Answer => "kriegspiel answer",
    sic::Observation => "sic observation",
    sic::View => "sic view",
    intrigue::Action => "intrigue action",
    intrigue::Observation => "intrigue observation",
    secretchess6::Action => "secretchess6 action",
    secretchess6::Observation => "secretchess6 observation",
    espionage::Observation => "espionage observation",
}

/// A byte codec for [`WireValue`]s, supplied by the caller. `decode` must refuse every byte
/// string that `encode` does not produce for the value it returns (the verifier compares
/// observations by their bytes).
pub trait ValueCodec {
    /// Why bytes were refused.
    type Error;
    /// The value's bytes.
    fn encode<T: WireValue>(&self, value: &T) -> Vec<u8>;
    /// The value these bytes encode, strictly.
    ///
    /// # Errors
    /// The codec's, for bytes that are not a value's one encoding.
    fn decode<T: WireValue>(&self, bytes: &[u8]) -> Result<T, Self::Error>;
}

impl AnyAction {
    /// The bytes of the game's own action value (no tag: the game is known from elsewhere).
    pub fn encode_with<C: ValueCodec>(&self, codec: &C) -> Vec<u8> {
        match self {
            AnyAction::Chess(m)
            | AnyAction::Kriegspiel(m)
            | AnyAction::Sic(m)
            | AnyAction::Espionage(m) => codec.encode(m),
            AnyAction::Intrigue(a) => codec.encode(a),
            AnyAction::SecretChess6(a) => codec.encode(a),
        }
    }

    /// The action of `variant` these bytes encode ([`AnyAction::encode_with`]'s inverse).
    ///
    /// # Errors
    /// The codec's, for bytes that are not one of the game's actions.
    pub fn decode_with<C: ValueCodec>(
        variant: Variant,
        codec: &C,
        bytes: &[u8],
    ) -> Result<AnyAction, C::Error> {
        Ok(match variant {
            Variant::Chess => AnyAction::Chess(codec.decode(bytes)?),
            Variant::Kriegspiel => AnyAction::Kriegspiel(codec.decode(bytes)?),
            Variant::Sic => AnyAction::Sic(codec.decode(bytes)?),
            Variant::Intrigue => AnyAction::Intrigue(codec.decode(bytes)?),
            Variant::SecretChess6 => AnyAction::SecretChess6(codec.decode(bytes)?),
            Variant::Espionage => AnyAction::Espionage(codec.decode(bytes)?),
        })
    }
}

impl AnyObservation {
    /// The bytes of the game's own observation value (no tag).
    pub fn encode_with<C: ValueCodec>(&self, codec: &C) -> Vec<u8> {
        match self {
            AnyObservation::Chess(o) => codec.encode(o),
            AnyObservation::Kriegspiel(o) => codec.encode(o),
            AnyObservation::Sic(o) => codec.encode(o),
            AnyObservation::SicStart(o) => codec.encode(o.as_ref()),
            AnyObservation::Intrigue(o) => codec.encode(o),
            AnyObservation::SecretChess6(o) => codec.encode(o),
            AnyObservation::Espionage(o) => codec.encode(o),
        }
    }

    /// The observation of `variant` after an action that these bytes encode (not a start
    /// view: see [`AnyObservation::decode_start_with`]).
    ///
    /// # Errors
    /// The codec's, for bytes that are not one of the game's observations.
    pub fn decode_with<C: ValueCodec>(
        variant: Variant,
        codec: &C,
        bytes: &[u8],
    ) -> Result<AnyObservation, C::Error> {
        Ok(match variant {
            Variant::Chess => AnyObservation::Chess(codec.decode(bytes)?),
            Variant::Kriegspiel => AnyObservation::Kriegspiel(codec.decode(bytes)?),
            Variant::Sic => AnyObservation::Sic(codec.decode(bytes)?),
            Variant::Intrigue => AnyObservation::Intrigue(codec.decode(bytes)?),
            Variant::SecretChess6 => AnyObservation::SecretChess6(codec.decode(bytes)?),
            Variant::Espionage => AnyObservation::Espionage(codec.decode(bytes)?),
        })
    }

    /// What a side is told when play begins ([`crate::AnyGame::start_observations`]) that these
    /// bytes encode: SIC's start view, the one game that tells anything then.
    ///
    /// # Errors
    /// The codec's, for bytes that are not a start view.
    pub fn decode_start_with<C: ValueCodec>(
        codec: &C,
        bytes: &[u8],
    ) -> Result<AnyObservation, C::Error> {
        Ok(AnyObservation::SicStart(Box::new(codec.decode(bytes)?)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AnyGame, ByColor, GameOptions};

    /// A stand-in codec: JSON, strict by re-encoding (the property the trait asks for).
    struct Json;

    impl ValueCodec for Json {
        type Error = String;
        fn encode<T: WireValue>(&self, value: &T) -> Vec<u8> {
            serde_json::to_vec(value).expect("plain data")
        }
        fn decode<T: WireValue>(&self, bytes: &[u8]) -> Result<T, String> {
            let v: T = serde_json::from_slice(bytes).map_err(|e| format!("{}: {e}", T::NAME))?;
            if self.encode(&v) == bytes {
                Ok(v)
            } else {
                Err(format!("{}: not canonical", T::NAME))
            }
        }
    }

    /// Plays the first legal action (the setups the seats would make where there are none)
    /// for up to `plies` actions of every variant: every action and every observation decodes,
    /// under its variant, back to itself; under another variant whose value type differs it
    /// does not.
    #[test]
    fn every_variants_actions_and_observations_round_trip() {
        let seeds = ByColor { white: [3; 32], black: [4; 32] };
        let mut actions = 0;
        let mut observations = 0;
        for v in Variant::ALL {
            let seeds = (v == Variant::Sic).then_some(&seeds);
            let mut game = AnyGame::start(&GameOptions::default_for(v), seeds).expect("starts");
            for o in [game.start_observations().white, game.start_observations().black]
                .into_iter()
                .flatten()
            {
                let bytes = o.encode_with(&Json);
                assert_eq!(AnyObservation::decode_start_with(&Json, &bytes), Ok(o));
                observations += 1;
            }
            for _ in 0..12 {
                let Some(&actor) = game.to_act().first() else { break };
                let action = match game.legal_actions().into_iter().next() {
                    Some(a) => a,
                    None => match crate::secret::example_setup(v, actor) {
                        Some(a) => a,
                        None => break,
                    },
                };
                let bytes = action.encode_with(&Json);
                assert_eq!(AnyAction::decode_with(v, &Json, &bytes), Ok(action.clone()), "{v}");
                actions += 1;
                let t = game.apply(actor, &action).expect("a legal action");
                for o in [t.told.white, t.told.black].into_iter().flatten() {
                    let bytes = o.encode_with(&Json);
                    assert_eq!(AnyObservation::decode_with(v, &Json, &bytes), Ok(o), "{v}");
                    observations += 1;
                }
                game = t.state;
            }
        }
        assert!(actions >= 6 * 4, "actions checked: {actions}");
        assert!(observations >= 6 * 4, "observations checked: {observations}");
        // The variant picks the type: a 6x6 action is no chess move.
        let six = AnyAction::SecretChess6(secretchess6::Action::EndTurn).encode_with(&Json);
        assert!(AnyAction::decode_with(Variant::Chess, &Json, &six).is_err());
        let e = AnyAction::decode_with(Variant::Intrigue, &Json, b"0").expect_err("not an action");
        assert!(e.starts_with("intrigue action"), "{e}");
    }
}

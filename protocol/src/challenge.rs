//! The lobby's challenge request (`POST /api/challenge`, docs/SERVER.md, lobby): one typed
//! struct that the agent writes (`client::agent::Agent::challenge`) and the server's handler
//! reads, so neither builds nor picks apart JSON by hand.
//!
//! Its JSON is the wire's (the pages and other clients post it; docs/SERVER.md):
//!
//! ```text
//! { "variant": "kriegspiel", "options": {"touch-move": "true"}, "clock_limit": 300,
//!   "clock_increment": 2, "rated": false, "color": "white", "opponent": "ed25519:…",
//!   "umpire": "ed25519:…", "seat": {"seal_key": "x25519:…", "nonce": "<64 hex>"} }
//! ```
//!
//! `variant`, `clock_limit` and `clock_increment` are required; `options` (the text form,
//! [`rules::GameOptions::parse`]), `rated` (false), `color` (`random`), `opponent` (none: a
//! seek), `umpire` (the server's) and `seat` may be left out. Reading it parses every field
//! once, here at the edge, into its type: the variant and its options into one
//! [`GameOptions`], the color into [`ColorChoice`], the keys into [`PublicKey`]s. A field the
//! request does not have, or a bad value, is refused naming the field (the server answers 400).

use crate::PublicKey;
use crate::seal::SealPublicKey;
use rules::{GameOptions, Variant};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A challenge as its challenger asks for it (module docs: its JSON).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "RequestJson", into = "RequestJson")]
pub struct ChallengeRequest {
    /// The game and its options.
    pub game: GameOptions,
    /// Initial clock, seconds.
    pub clock_limit: u64,
    /// Increment, seconds.
    pub clock_increment: u64,
    /// Rated or casual.
    pub rated: bool,
    /// The challenger's color.
    pub color: ColorChoice,
    /// The opponent; none for an open challenge (a seek).
    pub opponent: Option<PublicKey>,
    /// The umpire named (umpired games; none: the server's umpire service).
    pub umpire: Option<PublicKey>,
    /// The challenger's seat for the terms: the agent fills it in with a fresh one
    /// ([`ChallengeRequest::seat`] may be left out by a caller of the agent, never by the
    /// request the server reads).
    pub seat: Option<Seat>,
}

impl ChallengeRequest {
    /// A casual challenge of `game` with this clock (seconds), the color drawn, open to
    /// anyone (a seek), the server's umpire, no seat yet.
    pub fn new(game: GameOptions, clock_limit: u64, clock_increment: u64) -> ChallengeRequest {
        ChallengeRequest {
            game,
            clock_limit,
            clock_increment,
            rated: false,
            color: ColorChoice::Random,
            opponent: None,
            umpire: None,
            seat: None,
        }
    }

    /// [`ChallengeRequest::new`] of `variant` with its default options, addressed to
    /// `opponent` (casual, the color drawn, the server's umpire).
    pub fn addressed(
        variant: Variant,
        clock_limit: u64,
        clock_increment: u64,
        opponent: PublicKey,
    ) -> ChallengeRequest {
        ChallengeRequest {
            opponent: Some(opponent),
            ..ChallengeRequest::new(GameOptions::default_for(variant), clock_limit, clock_increment)
        }
    }
}

/// The JSON of a [`ChallengeRequest`], field by field as on the wire.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RequestJson {
    variant: Variant,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    options: BTreeMap<String, String>,
    clock_limit: u64,
    clock_increment: u64,
    #[serde(default)]
    rated: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    color: Option<ColorChoice>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    opponent: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    umpire: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    seat: Option<Seat>,
}

impl TryFrom<RequestJson> for ChallengeRequest {
    type Error = String;

    fn try_from(j: RequestJson) -> Result<ChallengeRequest, String> {
        let game =
            GameOptions::parse(j.variant, &j.options).map_err(|e| format!("options: {e}"))?;
        let key = |what: &str, text: Option<String>| {
            text.map(|t| t.parse::<PublicKey>().map_err(|e| format!("{what}: {e}"))).transpose()
        };
        Ok(ChallengeRequest {
            game,
            clock_limit: j.clock_limit,
            clock_increment: j.clock_increment,
            rated: j.rated,
            color: j.color.unwrap_or(ColorChoice::Random),
            opponent: key("opponent", j.opponent)?,
            umpire: key("umpire", j.umpire)?,
            seat: j.seat,
        })
    }
}

impl From<ChallengeRequest> for RequestJson {
    fn from(c: ChallengeRequest) -> RequestJson {
        RequestJson {
            variant: c.game.variant(),
            options: c.game.to_map(),
            clock_limit: c.clock_limit,
            clock_increment: c.clock_increment,
            rated: c.rated,
            color: Some(c.color),
            opponent: c.opponent.map(|k| k.to_string()),
            umpire: c.umpire.map(|k| k.to_string()),
            seat: c.seat,
        }
    }
}

/// The challenger's color: drawn, or the one it asked for. Serde form: `random`, `white`,
/// `black` (the wire's and the stored challenge's).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum ColorChoice {
    /// Drawn when the terms are written (`ColorAssignment::Drawn`).
    Random,
    /// The challenger plays white.
    White,
    /// The challenger plays black.
    Black,
}

/// A player's (or the umpire's) part of the terms: its per-match seal key and nonce, in their
/// text forms (the server keeps them so; [`Seat::parse`] reads them).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seat {
    /// `x25519:<hex>`.
    pub seal_key: String,
    /// 64 hex digits.
    pub nonce: String,
}

/// Why a [`Seat`] was refused: the field and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct BadSeat(pub String);

impl Seat {
    /// A seat of this seal key and nonce.
    pub fn new(seal_key: &SealPublicKey, nonce: &[u8; 32]) -> Seat {
        Seat { seal_key: seal_key.to_string(), nonce: crate::hex::encode(nonce) }
    }

    /// Checks the seat's form (a seal key and a nonce), naming what is wrong.
    pub fn check(&self) -> Result<(), BadSeat> {
        self.parse().map(drop)
    }

    /// The seal key and nonce, checked: the key by the terms gate's own check
    /// ([`crate::terms::check_seal_key`]), so a seat nothing can be sealed to is refused where
    /// it enters, not discovered mid-game.
    pub fn parse(&self) -> Result<(SealPublicKey, [u8; 32]), BadSeat> {
        let seal = self
            .seal_key
            .strip_prefix("x25519:")
            .and_then(crate::hex::decode_array::<32>)
            .ok_or_else(|| {
            BadSeat(format!("seal_key {:?}: expected x25519:<64 hex digits>", cut(&self.seal_key)))
        })?;
        let nonce = crate::hex::decode_array::<32>(&self.nonce).ok_or_else(|| {
            BadSeat(format!("nonce {:?}: expected 64 hex digits", cut(&self.nonce)))
        })?;
        let seal = SealPublicKey(seal);
        crate::terms::check_seal_key(&seal).map_err(|problem| {
            BadSeat(format!("seal_key {seal} cannot be sealed to: {problem}"))
        })?;
        Ok((seal, nonce))
    }
}

/// At most 80 characters of what a peer sent, for an error message.
fn cut(s: &str) -> String {
    s.chars().take(80).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn seat() -> Seat {
        let id = crate::Identity::from_seed(&[4; 32]);
        Seat::new(&crate::seal::SealSecret::for_match(&id, &[5; 32]).public(), &[0xab; 32])
    }

    fn refused(v: serde_json::Value) -> String {
        serde_json::from_value::<ChallengeRequest>(v).expect_err("refused").to_string()
    }

    #[test]
    fn the_typed_request_keeps_the_wire_json() {
        let opponent = crate::Identity::from_seed(&[1; 32]).public();
        let wire = json!({
            "variant": "kriegspiel",
            "options": { "touch-move": "true" },
            "clock_limit": 300,
            "clock_increment": 2,
            "rated": true,
            "color": "black",
            "opponent": opponent.to_string(),
            "seat": seat(),
        });
        let c: ChallengeRequest = serde_json::from_value(wire.clone()).expect("a request");
        let touch = GameOptions::Kriegspiel(rules::kriegspiel::Options { touch_move: true });
        assert_eq!(c.game, touch);
        assert_eq!((c.clock_limit, c.clock_increment, c.rated), (300, 2, true));
        assert_eq!((c.color, c.opponent, c.umpire), (ColorChoice::Black, Some(opponent), None));
        assert_eq!(c.seat.as_ref().map(Seat::parse).map(|s| s.is_ok()), Some(true));
        assert_eq!(serde_json::to_value(&c).expect("serializes"), wire);
        // The defaults: casual, color drawn, a seek, no options.
        let c: ChallengeRequest = serde_json::from_value(
            json!({ "variant": "chess", "clock_limit": 60, "clock_increment": 0 }),
        )
        .expect("the least request");
        assert_eq!(c, ChallengeRequest::new(GameOptions::Chess, 60, 0));
    }

    #[test]
    fn a_bad_request_is_refused_naming_its_field() {
        let base = json!({ "variant": "kriegspiel", "clock_limit": 300, "clock_increment": 2 });
        let with = |k: &str, v: serde_json::Value| {
            let mut b = base.clone();
            b[k] = v;
            refused(b)
        };
        let e = with("options", json!({ "touch-move": "maybe" }));
        assert!(e.starts_with("options: option 'touch-move'"), "{e}");
        let e = with("options", json!({ "spy": "original" }));
        assert!(e.starts_with("options: option 'spy'"), "{e}");
        let e = with("colour", json!("white"));
        assert!(e.contains("unknown field `colour`"), "{e}");
        let e = with("color", json!("purple"));
        assert!(e.contains("purple"), "{e}");
        let e = with("opponent", json!("nope"));
        assert!(e.starts_with("opponent: "), "{e}");
        let e = with("umpire", json!("nope"));
        assert!(e.starts_with("umpire: "), "{e}");
        let e = with("variant", json!("xiangqi"));
        assert!(e.contains("xiangqi"), "{e}");
        assert!(
            refused(json!({ "variant": "chess", "clock_limit": 60 })).contains("clock_increment")
        );
    }

    #[test]
    fn a_seat_names_what_is_wrong() {
        assert_eq!(seat().check(), Ok(()));
        let bad = |f: &dyn Fn(&mut Seat)| {
            let mut s = seat();
            f(&mut s);
            s.check().expect_err("refused").0
        };
        assert!(bad(&|s| s.nonce = "00".into()).starts_with("nonce "));
        assert!(bad(&|s| s.seal_key = "x25519:00".into()).starts_with("seal_key "));
        let zero = format!("x25519:{}", "00".repeat(32));
        assert!(bad(&|s| s.seal_key = zero.clone()).contains("cannot be sealed to"));
    }
}

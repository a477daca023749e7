//! Challenges, seeks and terms, lichess-shaped (docs/SERVER.md, lobby).
//!
//! A challenge names a variant, options, a time control, rated or casual, a color choice and
//! an opponent key (or none: an open challenge, a seek). Each player brings its *seat* for the
//! terms: its per-match seal key and nonce. Once a challenge is accepted, the umpire of an
//! umpired game brings its seat too (it is asked on its event stream); the server then writes
//! the terms, every party signs them through the API, the relay signs last, and the match
//! starts. A party that does not sign within `max_terms_wait_ms` cancels it: nothing was
//! committed yet, so nobody loses anything.
//!
//! This module holds the lobby's data and rules (below `crate::state`, which keeps a
//! [`Lobby`]): challenges, pending terms, the terms a pending match gets ([`write_terms`], given
//! the configuration). What acts on the server's shared state (creating, accepting, signing,
//! sweeping) is `crate::services::lobby`.

use crate::admission::Busy;
use crate::config::Config;
use protocol::names::SignedName;
use protocol::terms::{
    ColorAssignment, Limits, MatchTerms, PlayerTerms, SignedTerms, TimeControl, UmpireTerms,
};
use protocol::{PublicKey, Signature};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::BTreeMap;

pub use protocol::challenge::{BadSeat, ChallengeRequest, ColorChoice, Seat};

impl From<BadSeat> for LobbyError {
    fn from(e: BadSeat) -> LobbyError {
        LobbyError::Bad(e.0)
    }
}

impl From<BadSeat> for crate::error::AppError {
    fn from(e: BadSeat) -> crate::error::AppError {
        LobbyError::from(e).into()
    }
}

pub(crate) fn cut(s: &str) -> String {
    s.chars().take(80).collect()
}

/// A challenge request (`protocol::challenge::ChallengeRequest`, parsed once at the HTTP
/// edge), its seat checked ([`NewChallenge::new`]): what `crate::services::lobby::create`
/// checks against the server's limits and state.
#[derive(Clone, Debug)]
pub struct NewChallenge {
    /// The request, its seat taken out (`None`: it is [`NewChallenge::seat`]).
    pub request: ChallengeRequest,
    /// The challenger's seat, its form checked.
    pub seat: Seat,
}

impl NewChallenge {
    /// The request with its seat, which it must have and whose form must be good (naming
    /// the field otherwise).
    pub fn new(mut request: ChallengeRequest) -> Result<NewChallenge, LobbyError> {
        let seat = request.seat.take().ok_or_else(|| LobbyError::Bad("seat: missing".into()))?;
        seat.check()?;
        Ok(NewChallenge { request, seat })
    }
}

/// Where a challenge stands. Serde form: the lower-case word (the wire's and the store's).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export_to = "host/"))]
#[serde(rename_all = "lowercase")]
pub enum ChallengeStatus {
    /// Waiting for its opponent (or anyone, a seek).
    Open,
    /// Accepted: its terms are being completed and signed.
    Accepted,
    /// Declined by its opponent.
    Declined,
    /// Canceled by its challenger, or because its terms were not signed in time.
    Canceled,
    /// Its match started.
    Started,
    /// A tournament game's invitation (never open in the lobby).
    Tournament,
}

impl ChallengeStatus {
    /// The word, as the store keeps it.
    pub fn as_str(self) -> &'static str {
        match self {
            ChallengeStatus::Open => "open",
            ChallengeStatus::Accepted => "accepted",
            ChallengeStatus::Declined => "declined",
            ChallengeStatus::Canceled => "canceled",
            ChallengeStatus::Started => "started",
            ChallengeStatus::Tournament => "tournament",
        }
    }
}

/// A challenge as the server keeps and shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Challenge {
    /// Its id (16 hex digits).
    pub id: String,
    /// Who made it.
    pub challenger: String,
    /// Its opponent, or none (open).
    pub dest: Option<String>,
    /// The game and its options (serde: the fields `variant`, its id, and `options`, their
    /// text form, as before they were typed).
    #[serde(flatten)]
    pub game: rules::GameOptions,
    /// Initial clock, ms.
    pub initial_ms: u64,
    /// Increment, ms.
    pub increment_ms: u64,
    /// Rated or casual.
    pub rated: bool,
    /// The challenger's color (serde: `random`, `white` or `black`).
    pub color: ColorChoice,
    /// The umpire (umpired games).
    pub umpire: Option<String>,
    /// The challenger's seat.
    pub seat: Seat,
    /// Where it stands (serde: `open`, `accepted`, `declined`, `canceled`, `started`,
    /// `tournament`).
    pub status: ChallengeStatus,
    /// When it was made (server ms).
    pub created_ms: u64,
    /// The challenger's display name as it signed it, when it was made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub challenger_name: Option<SignedName>,
    /// The opponent's, likewise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dest_name: Option<SignedName>,
}

/// A lichess-shaped player object of a key: `id` the key, and where the key signed a display
/// name, `name` and `signedName` (the statement with its signature, for anyone to check).
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export_to = "host/"))]
pub struct PlayerJson {
    /// The key.
    pub id: String,
    /// The display name the key signed, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub name: Option<String>,
    /// Its signed statement.
    #[serde(rename = "signedName", skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub signed_name: Option<SignedName>,
}

/// The player object of `key`, with `name` where it is the key's.
pub fn player(key: &str, name: Option<&SignedName>) -> PlayerJson {
    let name = name.filter(|n| n.key.to_string() == key);
    PlayerJson {
        id: key.to_owned(),
        name: name.map(|n| n.name.clone()),
        signed_name: name.cloned(),
    }
}

/// The lichess-shaped JSON of a challenge ([`Challenge::shown`]; its seat is not shown).
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export_to = "host/"))]
pub struct ChallengeJson {
    /// Its id.
    pub id: String,
    /// Where it stands.
    pub status: ChallengeStatus,
    /// Who made it.
    pub challenger: PlayerJson,
    /// Its opponent, or none (a seek).
    #[serde(rename = "destUser")]
    pub dest_user: Option<PlayerJson>,
    /// The variant (`key`: its id).
    pub variant: VariantKey,
    /// Rated or casual.
    pub rated: bool,
    /// The clock.
    #[serde(rename = "timeControl")]
    pub time_control: TimeControlJson,
    /// The challenger's color.
    pub color: ColorChoice,
    /// Options.
    pub options: BTreeMap<String, String>,
    /// The umpire (umpired games).
    pub umpire: Option<String>,
}

/// lichess's `variant` object of a challenge.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export_to = "host/"))]
pub struct VariantKey {
    /// The variant's id.
    pub key: rules::Variant,
}

/// lichess's `timeControl` object of a challenge.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export_to = "host/"))]
pub struct TimeControlJson {
    /// Always `clock`.
    #[serde(rename = "type")]
    #[cfg_attr(feature = "ts", ts(type = "\"clock\""))]
    pub kind: &'static str,
    /// Initial time, s.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub limit: u64,
    /// Increment, s.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub increment: u64,
    /// `minutes+seconds`.
    pub show: String,
}

impl Challenge {
    /// The lichess-shaped object of the challenge (its seat is not shown).
    pub fn shown(&self) -> ChallengeJson {
        ChallengeJson {
            id: self.id.clone(),
            status: self.status,
            challenger: player(&self.challenger, self.challenger_name.as_ref()),
            dest_user: self.dest.as_ref().map(|d| player(d, self.dest_name.as_ref())),
            variant: VariantKey { key: self.game.variant() },
            rated: self.rated,
            time_control: TimeControlJson {
                kind: "clock",
                limit: self.initial_ms / 1000,
                increment: self.increment_ms / 1000,
                show: format!("{}+{}", self.initial_ms / 60_000, self.increment_ms / 1000),
            },
            color: self.color,
            options: self.game.to_map(),
            umpire: self.umpire.clone(),
        }
    }

    /// [`Challenge::shown`] as JSON, for the events.
    pub fn json(&self) -> Value {
        serde_json::to_value(self.shown()).unwrap_or(Value::Null)
    }
}

/// Terms being completed and signed.
#[derive(Clone, Debug)]
pub struct Pending {
    /// The challenge it comes from.
    pub challenge: Challenge,
    /// Who accepted it, with its seat.
    pub acceptor: (PublicKey, Seat),
    /// The umpire (umpired games) and, once it answered, its seat.
    pub umpire: Option<(PublicKey, Option<Seat>)>,
    /// The terms once complete, with their bytes.
    pub terms: Option<(MatchTerms, Vec<u8>)>,
    /// Signatures so far.
    pub signatures: BTreeMap<PublicKey, Signature>,
    /// When it is canceled if not complete (server ms).
    pub deadline_ms: u64,
    /// The tournament and round, for a tournament game (its deadline is the tournament
    /// runner's: a player who does not sign loses by forfeit).
    pub tournament: Option<([u8; 32], u32)>,
}

impl Pending {
    /// Checks `signature` as `key`'s on the complete terms: the terms are complete, `key` is
    /// a party they name, and the signature is over their bytes.
    pub(crate) fn check_signature(
        &self,
        key: &PublicKey,
        signature: &Signature,
    ) -> Result<(), LobbyError> {
        let Some((_, bytes)) = &self.terms else {
            return Err(LobbyError::Bad("the terms are not complete yet".into()));
        };
        if !self.parties().contains(key) {
            return Err(LobbyError::Forbidden(format!("{key} is not named by these terms")));
        }
        key.verify(protocol::tags::TERMS, bytes, signature)
            .map_err(|e| LobbyError::Bad(format!("signature: {e}")))
    }

    /// Everyone the terms will name, but the relay.
    pub fn parties(&self) -> Vec<PublicKey> {
        let mut out = vec![self.challenger_key(), self.acceptor.0];
        out.extend(self.umpire.as_ref().map(|u| u.0));
        out
    }

    fn challenger_key(&self) -> PublicKey {
        self.challenge.challenger.parse().unwrap_or(PublicKey([0; 32]))
    }

    /// The `terms` event every party gets to sign.
    pub fn terms_event(&self) -> Option<Value> {
        let (_, bytes) = self.terms.as_ref()?;
        Some(json!({
            "type": "terms",
            "id": self.challenge.id,
            "matchId": protocol::hex::encode(&protocol::terms::match_id(bytes).0),
            "terms": protocol::hex::encode(bytes),
        }))
    }

    /// The `umpireRequest` event the umpire answers with its seat.
    pub fn umpire_event(&self) -> Value {
        json!({ "type": "umpireRequest", "id": self.challenge.id, "challenge": self.challenge.json() })
    }
}

/// [`Pending`] as a cluster stores it (`crate::store::pending`): any node loads it to take a
/// seat or a signature (a tournament game's too: any node takes its players' signatures).
#[derive(Serialize, Deserialize)]
struct StoredPending {
    challenge: Challenge,
    acceptor: PublicKey,
    acceptor_seat: Seat,
    umpire: Option<(PublicKey, Option<Seat>)>,
    /// The terms' canonical bytes (hex), once complete.
    terms: Option<String>,
    signatures: Vec<(PublicKey, Signature)>,
    deadline_ms: u64,
    /// The tournament (hex) and round of a tournament game.
    #[serde(default)]
    tournament: Option<(String, u32)>,
}

impl Pending {
    pub(crate) fn stored(&self) -> Result<String, LobbyError> {
        let row = StoredPending {
            challenge: self.challenge.clone(),
            acceptor: self.acceptor.0,
            acceptor_seat: self.acceptor.1.clone(),
            umpire: self.umpire.clone(),
            terms: self.terms.as_ref().map(|(_, b)| protocol::hex::encode(b)),
            signatures: self.signatures.iter().map(|(k, s)| (*k, *s)).collect(),
            deadline_ms: self.deadline_ms,
            tournament: self.tournament.map(|(t, r)| (protocol::hex::encode(&t), r)),
        };
        serde_json::to_string(&row).map_err(|e| LobbyError::Store(e.to_string()))
    }

    pub(crate) fn load(body: &str) -> Result<Pending, LobbyError> {
        let bad = |e: String| LobbyError::Store(format!("stored pending terms: {e}"));
        let row: StoredPending = serde_json::from_str(body).map_err(|e| bad(e.to_string()))?;
        let terms = match row.terms {
            None => None,
            Some(hex) => {
                let bytes = protocol::hex::decode(&hex).ok_or_else(|| bad("terms: hex".into()))?;
                let terms: MatchTerms =
                    protocol::codec::decode(&bytes).map_err(|e| bad(e.to_string()))?;
                Some((terms, bytes))
            }
        };
        Ok(Pending {
            challenge: row.challenge,
            acceptor: (row.acceptor, row.acceptor_seat),
            umpire: row.umpire,
            terms,
            signatures: row.signatures.into_iter().collect(),
            deadline_ms: row.deadline_ms,
            tournament: match row.tournament {
                None => None,
                Some((t, round)) => Some((
                    protocol::hex::decode_array::<32>(&t)
                        .ok_or_else(|| bad(format!("tournament id {t:?}")))?,
                    round,
                )),
            },
        })
    }
}

/// The most times a seat or a signature is tried again after another node wrote the same
/// pending terms between its read and its write.
pub const MAX_PENDING_RETRIES: usize = 8;

/// Challenges and pending terms.
#[derive(Debug, Default)]
pub struct Lobby {
    /// Open challenges, by id.
    pub open: BTreeMap<String, Challenge>,
    /// Terms being completed and signed, by challenge id.
    pub pending: BTreeMap<String, Pending>,
}

/// Why a lobby request was refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum LobbyError {
    /// A bad request, with what is wrong.
    #[error("{0}")]
    Bad(String),
    /// Not there.
    #[error("{0}")]
    NotFound(String),
    /// Not this key's to do.
    #[error("{0}")]
    Forbidden(String),
    /// A limit.
    #[error("{0}")]
    Limit(String),
    /// Storage failed.
    #[error("storage: {0}")]
    Store(String),
    /// The host admits no new match for now (a `503` with `Retry-After`).
    #[error("{}", .0.message)]
    Busy(Busy),
}

impl From<Busy> for LobbyError {
    fn from(b: Busy) -> LobbyError {
        LobbyError::Busy(b)
    }
}

impl From<LobbyError> for crate::error::AppError {
    fn from(e: LobbyError) -> crate::error::AppError {
        let status = match e {
            LobbyError::Bad(_) => axum::http::StatusCode::BAD_REQUEST,
            LobbyError::NotFound(_) => axum::http::StatusCode::NOT_FOUND,
            LobbyError::Forbidden(_) => axum::http::StatusCode::FORBIDDEN,
            LobbyError::Limit(_) => axum::http::StatusCode::TOO_MANY_REQUESTS,
            LobbyError::Store(_) => axum::http::StatusCode::INTERNAL_SERVER_ERROR,
            LobbyError::Busy(b) => return b.into(),
        };
        crate::error::AppError::new(status, e.to_string())
    }
}

impl Pending {
    /// Whether these terms count against `key`'s `max_live_matches_per_key`: always for the
    /// challenger (who asked for them); for anyone else only once the terms wait for that
    /// key's own signature. Terms that merely name a key (as opponent or umpire) and wait for
    /// someone else do not: nobody fills another key's quota on its behalf, and a party that
    /// never signs holds up its own quota, not the house bot's that accepted.
    pub fn counts_against(&self, key: &PublicKey) -> bool {
        if self.challenger_key() == *key {
            return true;
        }
        self.terms.is_some() && self.parties().contains(key) && !self.signatures.contains_key(key)
    }
}

/// Whether `variant` is umpired (its terms name an umpire).
pub(crate) fn umpired(variant: rules::Variant) -> bool {
    variant.mode() == rules::Mode::Umpire
}

pub(crate) fn challenge_body(c: &Challenge) -> Result<String, LobbyError> {
    serde_json::to_string(c).map_err(|e| LobbyError::Store(e.to_string()))
}

/// The terms of a pending match whose seats are all in.
pub fn write_terms(config: &Config, p: &Pending) -> Result<(MatchTerms, Vec<u8>), LobbyError> {
    use protocol::codec::Canonical;
    let c = &p.challenge;
    let challenger = PlayerTerms {
        key: p.challenger_key(),
        seal_key: c.seat.parse()?.0,
        nonce: c.seat.parse()?.1,
    };
    let (seal, nonce) = p.acceptor.1.parse()?;
    let acceptor = PlayerTerms { key: p.acceptor.0, seal_key: seal, nonce };
    let (players, colors) = match c.color {
        ColorChoice::White => ([challenger, acceptor], ColorAssignment::FirstIsWhite),
        ColorChoice::Black => ([acceptor, challenger], ColorAssignment::FirstIsWhite),
        ColorChoice::Random => ([challenger, acceptor], ColorAssignment::Drawn),
    };
    let umpire = match &p.umpire {
        None => None,
        Some((key, Some(seat))) => {
            let (seal_key, nonce) = seat.parse()?;
            Some(UmpireTerms { key: *key, seal_key, nonce })
        }
        Some((_, None)) => return Err(LobbyError::Bad("the umpire has not answered".into())),
    };
    let d = config.deadlines;
    let terms = MatchTerms {
        version: protocol::codec::VERSION,
        game: c.game,
        players,
        colors,
        rated: c.rated,
        relay: config.relay.public(),
        umpire,
        time_control: TimeControl {
            initial_ms: c.initial_ms,
            increment_ms: c.increment_ms,
            reveal_ms: d.reveal_ms,
            answer_ms: d.answer_ms,
        },
        limits: Limits::DEFAULT,
    };
    // The one terms gate every party calls (protocol::terms): terms it refuses are never sent.
    terms.validate().map_err(|e| LobbyError::Bad(format!("terms: {e}")))?;
    let bytes = terms.to_canonical();
    Ok((terms, bytes))
}

/// The signed terms, once every party's signature is in (the relay's added).
pub(crate) fn all_signed(
    config: &Config,
    terms: &MatchTerms,
    bytes: &[u8],
    signatures: &BTreeMap<PublicKey, Signature>,
) -> Option<SignedTerms> {
    let relay = config.relay.public();
    let signers = terms.signers();
    if !signers.iter().all(|k| *k == relay || signatures.contains_key(k)) {
        return None;
    }
    let relay_sig = config.relay.sign(protocol::tags::TERMS, bytes);
    let signatures =
        signers.iter().map(|k| if *k == relay { relay_sig } else { signatures[k] }).collect();
    Some(SignedTerms { terms: bytes.to_vec(), signatures })
}

/// The `gameStart` event: the match id, its variant and its signed terms (hex).
pub fn game_start(id: &str, variant: &str, signed: &SignedTerms) -> Value {
    json!({
        "type": "gameStart",
        "game": {
            "id": id,
            "variant": variant,
            "terms": protocol::hex::encode(&protocol::codec::Canonical::to_canonical(signed)),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seat() -> Seat {
        // A seal key the terms gate accepts: a real x25519 public key.
        let id = protocol::Identity::from_seed(&[4; 32]);
        let seal = protocol::seal::SealSecret::for_match(&id, &[5; 32]).public();
        Seat { seal_key: seal.to_string(), nonce: "ab".repeat(32) }
    }

    fn request() -> ChallengeRequest {
        serde_json::from_value(json!({
            "variant": "kriegspiel",
            "clock_limit": 300,
            "clock_increment": 2,
            "color": "black",
            "seat": seat(),
        }))
        .expect("a request")
    }

    #[test]
    fn a_request_needs_a_good_seat() {
        let c = NewChallenge::new(request()).expect("a good request");
        assert_eq!(c.request.game, rules::GameOptions::default_for(rules::Variant::Kriegspiel));
        assert_eq!(c.request.color, ColorChoice::Black);
        assert_eq!(c.request.seat, None, "the seat is taken out");
        assert_eq!(c.seat, seat());
        let bad =
            |seat: Option<Seat>| match NewChallenge::new(ChallengeRequest { seat, ..request() }) {
                Err(LobbyError::Bad(why)) => why,
                other => panic!("not a Bad: {other:?}"),
            };
        assert_eq!(bad(None), "seat: missing");
        assert!(bad(Some(Seat { nonce: "00".into(), ..seat() })).starts_with("nonce "));
    }

    #[test]
    fn the_typed_challenge_keeps_its_json_and_stored_form() {
        let c = Challenge {
            id: "0011223344556677".into(),
            challenger: protocol::Identity::from_seed(&[1; 32]).public().to_string(),
            dest: None,
            game: rules::GameOptions::Kriegspiel(rules::kriegspiel::Options { touch_move: true }),
            initial_ms: 300_000,
            increment_ms: 2000,
            rated: false,
            color: ColorChoice::Random,
            umpire: None,
            seat: seat(),
            status: ChallengeStatus::Open,
            created_ms: 7,
            challenger_name: None,
            dest_name: None,
        };
        // The words the strings held before, in the same places.
        let shown = c.json();
        assert_eq!(shown["variant"], json!({ "key": "kriegspiel" }));
        assert_eq!(shown["color"], json!("random"));
        assert_eq!(shown["status"], json!("open"));
        assert_eq!(shown["options"], json!({ "touch-move": "true" }));
        let stored = serde_json::to_value(&c).expect("serializes");
        assert_eq!(stored["variant"], json!("kriegspiel"));
        assert_eq!(stored["options"], json!({ "touch-move": "true" }));
        assert_eq!(stored["color"], json!("random"));
        assert_eq!(stored["status"], json!("open"));
        // A challenge stored by the string-typed server restores, and every status word reads.
        for (status, typed) in [
            ("open", ChallengeStatus::Open),
            ("accepted", ChallengeStatus::Accepted),
            ("declined", ChallengeStatus::Declined),
            ("canceled", ChallengeStatus::Canceled),
            ("started", ChallengeStatus::Started),
            ("tournament", ChallengeStatus::Tournament),
        ] {
            let mut old = stored.clone();
            old["status"] = json!(status);
            old["color"] = json!("white");
            let back: Challenge = serde_json::from_value(old).expect("an old body");
            assert_eq!((back.status, back.color), (typed, ColorChoice::White));
            assert_eq!(typed.as_str(), status);
        }
        let back: Challenge = serde_json::from_str(&serde_json::to_string(&c).unwrap()).unwrap();
        assert_eq!(back, c);
        // An unknown word does not decode (restore skips such a body).
        let mut odd = stored;
        odd["status"] = json!("lost");
        assert!(serde_json::from_value::<Challenge>(odd).is_err());
    }
}

//! Challenges, seeks and terms, lichess-shaped (docs/SERVER.md, lobby).
//!
//! A challenge names a variant, options, a time control, rated or casual, a colour choice and
//! an opponent key (or none: an open challenge, a seek). Each player brings its *seat* for the
//! terms: its per-match seal key and nonce. Once a challenge is accepted, the umpire of an
//! umpired game brings its seat too (it is asked on its event stream); the server then writes
//! the terms, every party signs them through the API, the relay signs last, and the match
//! starts. A party that does not sign within `max_terms_wait_ms` cancels it: nothing was
//! committed yet, so nobody loses anything.

use crate::admission::{Admit, Busy, Owed, lock};
use crate::live::MatchTask;
use crate::state::Shared;
use crate::store::{ChallengeRow, MatchRow, MatchStatus};
use protocol::names::SignedName;
use protocol::seal::SealPublicKey;
use protocol::terms::{
    Colours, Limits, MatchTerms, PlayerTerms, SignedTerms, TimeControl, UmpireTerms,
};
use protocol::{PublicKey, Signature};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// A player's (or the umpire's) part of the terms: its per-match seal key and nonce.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seat {
    /// `x25519:<hex>`.
    pub seal_key: String,
    /// 64 hex digits.
    pub nonce: String,
}

impl Seat {
    /// Checks the seat's form (a seal key and a nonce), naming what is wrong.
    pub fn check(&self) -> Result<(), LobbyError> {
        self.parse().map(drop)
    }

    fn parse(&self) -> Result<(SealPublicKey, [u8; 32]), LobbyError> {
        let seal = self
            .seal_key
            .strip_prefix("x25519:")
            .and_then(protocol::hex::decode_array::<32>)
            .ok_or_else(|| {
                LobbyError::Bad(format!(
                    "seal_key {:?}: expected x25519:<64 hex digits>",
                    cut(&self.seal_key)
                ))
            })?;
        let nonce = protocol::hex::decode_array::<32>(&self.nonce).ok_or_else(|| {
            LobbyError::Bad(format!("nonce {:?}: expected 64 hex digits", cut(&self.nonce)))
        })?;
        // Checked where it enters, by the terms gate's own key check: a seat nothing can be
        // sealed to is refused here, not discovered mid-game.
        let seal = SealPublicKey(seal);
        protocol::terms::check_seal_key(&seal).map_err(|problem| {
            LobbyError::Bad(format!("seal_key {seal} cannot be sealed to: {problem}"))
        })?;
        Ok((seal, nonce))
    }
}

fn cut(s: &str) -> String {
    s.chars().take(80).collect()
}

/// What a client asks for when it makes a challenge.
#[derive(Clone, Debug, Deserialize)]
pub struct ChallengeRequest {
    /// The variant id.
    pub variant: String,
    /// Options, by name (docs/PROTOCOL.md 18.1).
    #[serde(default)]
    pub options: BTreeMap<String, String>,
    /// Initial clock, seconds.
    pub clock_limit: u64,
    /// Increment, seconds.
    pub clock_increment: u64,
    /// Rated or casual.
    #[serde(default)]
    pub rated: bool,
    /// `random` (default), `white` or `black`: the challenger's colour.
    #[serde(default)]
    pub color: Option<String>,
    /// The opponent's key; none for an open challenge (a seek).
    #[serde(default)]
    pub opponent: Option<String>,
    /// The umpire's key for an umpired game (default: the server's umpire service).
    #[serde(default)]
    pub umpire: Option<String>,
    /// The challenger's seat.
    pub seat: Seat,
}

/// A challenge request, parsed once at the HTTP edge ([`ChallengeRequest::parse`]): what
/// [`create`] checks against the server's limits and state.
#[derive(Clone, Debug)]
pub struct NewChallenge {
    /// The variant.
    pub variant: rules::Variant,
    /// Options, by name, checked against the variant (`rules::GameOptions::parse`).
    pub options: BTreeMap<String, String>,
    /// Initial clock, seconds.
    pub clock_limit: u64,
    /// Increment, seconds.
    pub clock_increment: u64,
    /// Rated or casual.
    pub rated: bool,
    /// The challenger's colour.
    pub color: ColorChoice,
    /// The opponent; none for an open challenge (a seek).
    pub opponent: Option<PublicKey>,
    /// The umpire named (umpired games; default: the server's umpire service).
    pub umpire: Option<PublicKey>,
    /// The challenger's seat, its form checked.
    pub seat: Seat,
}

impl ChallengeRequest {
    /// Parses the request's fields into their types, naming the first bad field.
    pub fn parse(self) -> Result<NewChallenge, LobbyError> {
        let variant = check_game(&self.variant, &self.options)?;
        let color = match self.color.as_deref() {
            None => ColorChoice::Random,
            Some(text) => ColorChoice::parse(text)?,
        };
        self.seat.parse()?;
        Ok(NewChallenge {
            variant,
            options: self.options,
            clock_limit: self.clock_limit,
            clock_increment: self.clock_increment,
            rated: self.rated,
            color,
            opponent: self.opponent.as_deref().map(|d| parse_key("opponent", d)).transpose()?,
            umpire: self.umpire.as_deref().map(|u| parse_key("umpire", u)).transpose()?,
            seat: self.seat,
        })
    }
}

/// The challenger's colour: drawn, or the one it asked for. Serde form: `random`, `white`,
/// `black` (the wire's and the stored challenge's).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum ColorChoice {
    /// Drawn when the terms are written (`Colours::Drawn`).
    Random,
    /// The challenger plays white.
    White,
    /// The challenger plays black.
    Black,
}

impl ColorChoice {
    /// Parses `random`, `white` or `black`, naming the field otherwise.
    pub fn parse(text: &str) -> Result<ColorChoice, LobbyError> {
        match text {
            "random" => Ok(ColorChoice::Random),
            "white" => Ok(ColorChoice::White),
            "black" => Ok(ColorChoice::Black),
            _ => Err(LobbyError::Bad(format!("color {:?}: random, white or black", cut(text)))),
        }
    }
}

/// Where a challenge stands. Serde form: the lower-case word (the wire's and the store's).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
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
    /// The variant (serde: its id).
    pub variant: rules::Variant,
    /// Options.
    pub options: BTreeMap<String, String>,
    /// Initial clock, ms.
    pub initial_ms: u64,
    /// Increment, ms.
    pub increment_ms: u64,
    /// Rated or casual.
    pub rated: bool,
    /// The challenger's colour (serde: `random`, `white` or `black`).
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
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
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
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
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
    /// The challenger's colour.
    pub color: ColorChoice,
    /// Options.
    pub options: BTreeMap<String, String>,
    /// The umpire (umpired games).
    pub umpire: Option<String>,
}

/// lichess's `variant` object of a challenge.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct VariantKey {
    /// The variant's id.
    pub key: rules::Variant,
}

/// lichess's `timeControl` object of a challenge.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
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
            variant: VariantKey { key: self.variant },
            rated: self.rated,
            time_control: TimeControlJson {
                kind: "clock",
                limit: self.initial_ms / 1000,
                increment: self.increment_ms / 1000,
                show: format!("{}+{}", self.initial_ms / 60_000, self.increment_ms / 1000),
            },
            color: self.color,
            options: self.options.clone(),
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
    fn check_signature(&self, key: &PublicKey, signature: &Signature) -> Result<(), LobbyError> {
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
/// seat or a signature. Tournament terms are not stored (their runner's node keeps them).
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
}

impl Pending {
    fn stored(&self) -> Result<String, LobbyError> {
        let row = StoredPending {
            challenge: self.challenge.clone(),
            acceptor: self.acceptor.0,
            acceptor_seat: self.acceptor.1.clone(),
            umpire: self.umpire.clone(),
            terms: self.terms.as_ref().map(|(_, b)| protocol::hex::encode(b)),
            signatures: self.signatures.iter().map(|(k, s)| (*k, *s)).collect(),
            deadline_ms: self.deadline_ms,
        };
        serde_json::to_string(&row).map_err(|e| LobbyError::Store(e.to_string()))
    }

    fn load(body: &str) -> Result<Pending, LobbyError> {
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
            tournament: None,
        })
    }
}

/// The most times a seat or a signature is tried again after another node wrote the same
/// pending terms between its read and its write.
pub const MAX_PENDING_RETRIES: usize = 8;

/// The cluster's store, when `id`'s pending terms live in the database (a cluster node, and
/// not a tournament's terms, which its runner's node keeps).
fn shared_terms(shared: &Shared, id: &str) -> Option<Arc<crate::store::postgres::PostgresStore>> {
    let pg = shared.cluster.get()?.clone();
    let local = lock(&shared.lobby).pending.get(id).is_some_and(|p| p.tournament.is_some());
    (!local).then_some(pg)
}

/// Loads `id`'s pending terms from the cluster's database, with their version and whether
/// they are signed (their match being started).
async fn load_pending(
    pg: &crate::store::postgres::PostgresStore,
    id: &str,
    what: &str,
) -> Result<(Pending, i64, bool), LobbyError> {
    let row = pg.pending(id).await.map_err(|e| LobbyError::Store(e.to_string()))?;
    let Some(row) = row else {
        return Err(LobbyError::NotFound(format!("no terms being {what} for {}", cut(id))));
    };
    Ok((Pending::load(&row.body)?, row.version, row.signed))
}

fn contended(id: &str) -> LobbyError {
    LobbyError::Busy(Busy::new(
        format!(
            "the terms of {} were written by other nodes {MAX_PENDING_RETRIES} times meanwhile \
             (MAX_PENDING_RETRIES): try again",
            cut(id)
        ),
        1,
    ))
}

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

/// The matches `key` is in, as `max_live_matches_per_key` counts them: live ones, and terms
/// being signed that count against it ([`Pending::counts_against`]).
pub fn matches_of(shared: &Shared, key: &PublicKey) -> usize {
    shared.live_of(key).len()
        + lock(&shared.lobby).pending.values().filter(|p| p.counts_against(key)).count()
}

/// Whether `variant` is umpired (its terms name an umpire).
fn umpired(variant: rules::Variant) -> bool {
    variant.mode() == rules::Mode::Umpire
}

/// Checks variant and options with the parser the relay, the machines and the verifier use (an
/// unknown option is refused now, not when the game starts).
fn check_game(
    variant: &str,
    options: &BTreeMap<String, String>,
) -> Result<rules::Variant, LobbyError> {
    let v: rules::Variant =
        variant.parse().map_err(|e| LobbyError::Bad(format!("variant: {e}")))?;
    rules::GameOptions::parse(v, options).map_err(|e| LobbyError::Bad(format!("options: {e}")))?;
    Ok(v)
}

fn parse_key(what: &str, text: &str) -> Result<PublicKey, LobbyError> {
    text.parse().map_err(|e| LobbyError::Bad(format!("{what}: {e}")))
}

/// Creates a challenge of `key`'s.
pub async fn create(
    shared: &Arc<Shared>,
    key: PublicKey,
    req: NewChallenge,
) -> Result<Challenge, LobbyError> {
    let variant = req.variant;
    shared.admit(Admit::Match)?;
    let initial_ms = req.clock_limit.saturating_mul(1000);
    let increment_ms = req.clock_increment.saturating_mul(1000);
    let l = shared.config.limits;
    if !(l.min_initial_clock_ms..=l.max_initial_clock_ms).contains(&initial_ms)
        || increment_ms > l.max_increment_ms
    {
        return Err(LobbyError::Bad(format!(
            "time control {} s + {} s: the initial clock is {} s to {} s, the increment at most {} s",
            req.clock_limit,
            req.clock_increment,
            l.min_initial_clock_ms / 1000,
            l.max_initial_clock_ms / 1000,
            l.max_increment_ms / 1000
        )));
    }
    let dest = req.opponent;
    if dest == Some(key) {
        return Err(LobbyError::Bad("a challenge to oneself".into()));
    }
    let relay = shared.config.relay.public();
    let umpire = if umpired(variant) {
        let u = match req.umpire {
            Some(u) => u,
            None => shared.config.default_umpire.ok_or_else(|| {
                LobbyError::Bad(format!(
                    "{variant} needs an umpire and this server has none: name one"
                ))
            })?,
        };
        if u == key || Some(u) == dest || u == relay {
            return Err(LobbyError::Bad(
                "the umpire must be a party of its own (not a player, not the relay)".into(),
            ));
        }
        // An umpire that has fallen behind takes no new match (a 503: the host's capacity).
        shared.umpires.admit(&u, &l)?;
        Some(u.to_string())
    } else {
        None
    };
    let now = shared.clock.now_ms();
    let id = protocol::hex::encode(
        &protocol::keys::random_32().map_err(|e| LobbyError::Store(e.to_string()))?[..8],
    );
    let challenge = Challenge {
        id: id.clone(),
        challenger: key.to_string(),
        dest: dest.map(|d| d.to_string()),
        variant,
        options: req.options,
        initial_ms,
        increment_ms,
        rated: req.rated,
        color: req.color,
        umpire,
        seat: req.seat,
        status: ChallengeStatus::Open,
        created_ms: now,
        challenger_name: crate::auth::name_of(shared, &key).await,
        dest_name: match dest {
            Some(d) => crate::auth::name_of(shared, &d).await,
            None => None,
        },
    };
    let playing = matches_of(shared, &key);
    if playing >= l.max_live_matches_per_key {
        return Err(LobbyError::Limit(format!(
            "{key} is in {playing} matches (max_live_matches_per_key)"
        )));
    }
    {
        let mut lobby = lock(&shared.lobby);
        let mine = lobby.open.values().filter(|c| c.challenger == challenge.challenger).count();
        if mine >= l.max_open_challenges_per_key {
            return Err(LobbyError::Limit(format!(
                "{key} has {mine} open challenges (max_open_challenges_per_key)"
            )));
        }
        if challenge.dest.is_none() {
            let seeks = lobby.open.values().filter(|c| c.dest.is_none()).count();
            if seeks >= l.max_open_seeks {
                return Err(LobbyError::Busy(Busy::new(
                    format!("{seeks} seeks are open (max_open_seeks): try again later"),
                    l.retry_after_s,
                )));
            }
        }
        lobby.open.insert(id.clone(), challenge.clone());
    }
    store_challenge(shared, &challenge).await?;
    let event = json!({ "type": "challenge", "challenge": challenge.json() });
    shared.events.send(&key, &event);
    match dest {
        Some(d) => shared.events.send(&d, &event),
        None => {
            // A seek: the house bot (if any) hears of it like any listener of open games.
            if let Some(bot) = shared.config.house_bot {
                shared.events.send(&bot, &event);
            }
        }
    }
    Ok(challenge)
}

fn challenge_body(c: &Challenge) -> Result<String, LobbyError> {
    serde_json::to_string(c).map_err(|e| LobbyError::Store(e.to_string()))
}

async fn store_challenge(shared: &Arc<Shared>, c: &Challenge) -> Result<(), LobbyError> {
    let row = ChallengeRow {
        id: c.id.clone(),
        challenger: c.challenger.parse().map_err(|e| LobbyError::Store(format!("{e}")))?,
        status: c.status.as_str().to_owned(),
        body: challenge_body(c)?,
        created_ms: c.created_ms,
    };
    // In the next group commit (server::commit): one fsync for many challenges and starts.
    let write = crate::store::Write::Challenge(row);
    shared.committer.write(write).await.map_err(|e| LobbyError::Store(e.to_string()))
}

/// Reloads open challenges after a restart (terms being signed are gone: nothing was
/// committed, so their challenges are canceled).
pub async fn restore(shared: &Arc<Shared>) -> Result<(), LobbyError> {
    let rows =
        shared.store.open_challenges().await.map_err(|e| LobbyError::Store(e.to_string()))?;
    let mut lobby = lock(&shared.lobby);
    for row in rows {
        if let Ok(c) = serde_json::from_str::<Challenge>(&row.body) {
            lobby.open.insert(c.id.clone(), c);
        }
    }
    Ok(())
}

/// Declines (the opponent) or cancels (the challenger) an open challenge.
pub async fn close(
    shared: &Arc<Shared>,
    key: PublicKey,
    id: &str,
    decline: bool,
) -> Result<(), LobbyError> {
    let mut c = {
        let mut lobby = lock(&shared.lobby);
        let Some(c) = lobby.open.get(id) else {
            return Err(LobbyError::NotFound(format!("no open challenge {}", cut(id))));
        };
        let mine = c.challenger == key.to_string();
        let to_me = c.dest.as_deref() == Some(key.to_string().as_str());
        if (decline && !to_me) || (!decline && !mine) {
            return Err(LobbyError::Forbidden(if decline {
                "only the challenged player declines".into()
            } else {
                "only the challenger cancels".into()
            }));
        }
        match lobby.open.remove(id) {
            Some(c) => c,
            None => return Err(LobbyError::NotFound(format!("no open challenge {}", cut(id)))),
        }
    };
    c.status = if decline { ChallengeStatus::Declined } else { ChallengeStatus::Canceled };
    store_challenge(shared, &c).await?;
    let kind = if decline { "challengeDeclined" } else { "challengeCanceled" };
    let event = json!({ "type": kind, "challenge": c.json() });
    let mut keys = vec![key];
    keys.extend(c.challenger.parse::<PublicKey>().ok());
    keys.extend(c.dest.as_deref().and_then(|d| d.parse::<PublicKey>().ok()));
    shared.events.send_all(keys.iter(), &event);
    Ok(())
}

/// Accepts a challenge: the terms are written (once the umpire brought its seat) and sent to
/// every party to sign.
pub async fn accept(
    shared: &Arc<Shared>,
    key: PublicKey,
    id: &str,
    seat: Seat,
) -> Result<(), LobbyError> {
    seat.parse()?;
    shared.admit(Admit::Match)?;
    let live = matches_of(shared, &key);
    if live >= shared.config.limits.max_live_matches_per_key {
        return Err(LobbyError::Limit(format!(
            "{key} is in {live} matches (max_live_matches_per_key)"
        )));
    }
    let (challenge, pending, open) = {
        let mut lobby = lock(&shared.lobby);
        let Some(c) = lobby.open.get(id) else {
            return Err(LobbyError::NotFound(format!("no open challenge {}", cut(id))));
        };
        if c.challenger == key.to_string() {
            return Err(LobbyError::Bad("a challenge is accepted by someone else".into()));
        }
        if c.dest.as_ref().is_some_and(|d| *d != key.to_string()) {
            return Err(LobbyError::Forbidden("this challenge is for another player".into()));
        }
        let umpire =
            c.umpire.as_deref().and_then(|u| u.parse::<PublicKey>().ok()).map(|u| (u, None));
        if let Some((u, _)) = &umpire {
            shared.umpires.admit(u, &shared.config.limits)?;
        }
        let Some(open) = lobby.open.remove(id) else {
            return Err(LobbyError::NotFound(format!("no open challenge {}", cut(id))));
        };
        let mut c = open.clone();
        c.status = ChallengeStatus::Accepted;
        let mut p = Pending {
            challenge: c.clone(),
            acceptor: (key, seat),
            umpire,
            terms: None,
            signatures: BTreeMap::new(),
            deadline_ms: shared.clock.now_ms() + shared.config.limits.max_terms_wait_ms,
            tournament: None,
        };
        if p.umpire.is_none() {
            p.terms = match write_terms(shared, &p) {
                Ok(t) => Some(t),
                Err(e) => {
                    lobby.open.insert(id.to_owned(), open);
                    return Err(e);
                }
            };
        }
        (c, p, open)
    };
    if let Some(pg) = shared.cluster.get() {
        // A cluster: the database decides which node's acceptance wins (store::pending), and
        // keeps the terms, so a party may seat or sign on any node.
        let claimed = match pg.claim_challenge(id, &challenge_body(&challenge)?).await {
            Ok(claimed) => claimed,
            Err(e) => {
                lock(&shared.lobby).open.insert(id.to_owned(), open);
                return Err(LobbyError::Store(e.to_string()));
            }
        };
        if !claimed {
            return Err(LobbyError::NotFound(format!(
                "challenge {} is no longer open: it was accepted (or canceled) on another node",
                cut(id)
            )));
        }
        pg.put_pending(id, &pending.stored()?, pending.deadline_ms)
            .await
            .map_err(|e| LobbyError::Store(e.to_string()))?;
    }
    {
        let p = &pending;
        lock(&shared.lobby).pending.insert(id.to_owned(), p.clone());
        if let Some((u, None)) = &p.umpire
            && shared.config.default_umpire == Some(*u)
        {
            // The host's own umpire service owes its seat from now on (admission:
            // max_umpire_lag_ms): its seat backlog is the host's capacity. Any other umpire
            // owes nothing before it takes its seat: strangers naming a key as umpire in
            // challenges they accept between themselves must not count against that key.
            shared.umpires.owe(*u, Owed::Terms(id.to_owned()), tokio::time::Instant::now());
        }
    }
    if shared.cluster.get().is_none() {
        // (A cluster's claim wrote it already: written again here, it could land after
        // another node's start of the match.)
        store_challenge(shared, &challenge).await?;
    }
    match &pending.umpire {
        Some((u, None)) => shared.events.send(u, &pending.umpire_event()),
        _ => {
            if let Some(e) = pending.terms_event() {
                shared.events.send_all(pending.parties().iter(), &e);
            }
        }
    }
    Ok(())
}

/// The umpire brings its seat; the terms are then written and sent to every party.
pub async fn umpire_seat(
    shared: &Arc<Shared>,
    key: PublicKey,
    id: &str,
    seat: Seat,
) -> Result<(), LobbyError> {
    seat.parse()?;
    if let Some(pg) = shared_terms(shared, id) {
        for _ in 0..MAX_PENDING_RETRIES {
            let (mut p, version, _) = load_pending(&pg, id, "written").await?;
            match &mut p.umpire {
                Some((u, s @ None)) if *u == key => *s = Some(seat.clone()),
                _ => {
                    return Err(LobbyError::Forbidden(
                        "not the umpire these terms wait for".into(),
                    ));
                }
            }
            p.terms = Some(write_terms(shared, &p)?);
            let written = pg
                .update_pending(id, version, &p.stored()?)
                .await
                .map_err(|e| LobbyError::Store(e.to_string()))?;
            if written {
                lock(&shared.lobby).pending.insert(id.to_owned(), p.clone());
                shared.umpires.owe(key, Owed::Terms(id.to_owned()), tokio::time::Instant::now());
                if let Some(e) = p.terms_event() {
                    shared.events.send_all(p.parties().iter(), &e);
                }
                return Ok(());
            }
        }
        return Err(contended(id));
    }
    let event = {
        let mut lobby = lock(&shared.lobby);
        let Some(p) = lobby.pending.get_mut(id) else {
            return Err(LobbyError::NotFound(format!("no terms being written for {}", cut(id))));
        };
        match &mut p.umpire {
            Some((u, s @ None)) if *u == key => *s = Some(seat),
            _ => return Err(LobbyError::Forbidden("not the umpire these terms wait for".into())),
        }
        let terms = write_terms(shared, p)?;
        p.terms = Some(terms);
        // Its seat is in; its signature is owed from now on.
        shared.umpires.owe(key, Owed::Terms(id.to_owned()), tokio::time::Instant::now());
        (p.terms_event(), p.parties())
    };
    if let (Some(e), parties) = event {
        shared.events.send_all(parties.iter(), &e);
    }
    Ok(())
}

/// The terms of a pending match whose seats are all in.
pub(crate) fn write_terms(
    shared: &Shared,
    p: &Pending,
) -> Result<(MatchTerms, Vec<u8>), LobbyError> {
    use protocol::codec::Canonical;
    let c = &p.challenge;
    let challenger = PlayerTerms {
        key: p.challenger_key(),
        seal_key: c.seat.parse()?.0,
        nonce: c.seat.parse()?.1,
    };
    let (seal, nonce) = p.acceptor.1.parse()?;
    let acceptor = PlayerTerms { key: p.acceptor.0, seal_key: seal, nonce };
    let (players, colours) = match c.color {
        ColorChoice::White => ([challenger, acceptor], Colours::FirstIsWhite),
        ColorChoice::Black => ([acceptor, challenger], Colours::FirstIsWhite),
        ColorChoice::Random => ([challenger, acceptor], Colours::Drawn),
    };
    let umpire = match &p.umpire {
        None => None,
        Some((key, Some(seat))) => {
            let (seal_key, nonce) = seat.parse()?;
            Some(UmpireTerms { key: *key, seal_key, nonce })
        }
        Some((_, None)) => return Err(LobbyError::Bad("the umpire has not answered".into())),
    };
    let variant = c.variant;
    let d = shared.config.deadlines;
    let terms = MatchTerms {
        version: protocol::codec::VERSION,
        variant,
        ruleset: variant.ruleset().to_owned(),
        options: c.options.clone(),
        players,
        colours,
        rated: c.rated,
        relay: shared.config.relay.public(),
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

/// A party's signature on pending terms; the match starts when every party has signed.
pub async fn sign(
    shared: &Arc<Shared>,
    key: PublicKey,
    id: &str,
    signature: Signature,
) -> Result<Option<String>, LobbyError> {
    if let Some(pg) = shared_terms(shared, id) {
        return sign_shared(shared, &pg, key, id, signature).await;
    }
    let ready = {
        let mut lobby = lock(&shared.lobby);
        let Some(p) = lobby.pending.get_mut(id) else {
            return Err(LobbyError::NotFound(format!("no terms being signed for {}", cut(id))));
        };
        p.check_signature(&key, &signature)?;
        let Some((terms, bytes)) = &p.terms else {
            return Err(LobbyError::Bad("the terms are not complete yet".into()));
        };
        p.signatures.insert(key, signature);
        if p.umpire.as_ref().is_some_and(|(u, _)| *u == key) {
            shared.umpires.paid(&key, &Owed::Terms(id.to_owned()));
        }
        if let Some(signed) = all_signed(shared, terms, bytes, &p.signatures) {
            let p = lobby.pending.remove(id);
            p.map(|p| (p, signed))
        } else {
            None
        }
    };
    let Some((p, signed)) = ready else { return Ok(None) };
    start(shared, p, signed).await.map(Some)
}

/// The signed terms, once every party's signature is in (the relay's added).
fn all_signed(
    shared: &Shared,
    terms: &MatchTerms,
    bytes: &[u8],
    signatures: &BTreeMap<PublicKey, Signature>,
) -> Option<SignedTerms> {
    let relay = shared.config.relay.public();
    let signers = terms.signers();
    if !signers.iter().all(|k| *k == relay || signatures.contains_key(k)) {
        return None;
    }
    let relay_sig = shared.config.relay.sign(protocol::tags::TERMS, bytes);
    let signatures =
        signers.iter().map(|k| if *k == relay { relay_sig } else { signatures[k] }).collect();
    Some(SignedTerms { terms: bytes.to_vec(), signatures })
}

/// [`sign`] on a cluster: the terms are read from the database, the signature checked and
/// written back at the version read (read again and written again when another node wrote
/// meanwhile); the node whose write completes the signatures claims the row (marked signed,
/// kept) and starts the match, and deletes the row once the match is stored: a node dying in
/// between leaves the row to another node's sweep, which starts the match ([`sweep`]).
async fn sign_shared(
    shared: &Arc<Shared>,
    pg: &crate::store::postgres::PostgresStore,
    key: PublicKey,
    id: &str,
    signature: Signature,
) -> Result<Option<String>, LobbyError> {
    let store = |e: crate::store::StoreError| LobbyError::Store(e.to_string());
    for _ in 0..MAX_PENDING_RETRIES {
        let (mut p, version, claimed) = load_pending(pg, id, "signed").await?;
        p.check_signature(&key, &signature)?;
        if claimed {
            // Every signature is in (this one again, from another process of the key): the
            // match is being started.
            return Ok(None);
        }
        let Some((terms, bytes)) = &p.terms else {
            return Err(LobbyError::Bad("the terms are not complete yet".into()));
        };
        p.signatures.insert(key, signature);
        let umpire = p.umpire.as_ref().is_some_and(|(u, _)| *u == key);
        if let Some(signed) = all_signed(shared, terms, bytes, &p.signatures) {
            let hold = shared.clock.now_ms() + crate::store::pending::START_GRACE_MS;
            if pg.claim_signed(id, version, &p.stored()?, hold).await.map_err(store)? {
                crate::fault::point(crate::fault::TERMS_CLAIMED);
                lock(&shared.lobby).pending.remove(id);
                if umpire {
                    shared.umpires.paid(&key, &Owed::Terms(id.to_owned()));
                }
                let started = start(shared, p, signed).await?;
                // Stored: the terms are done with (a failed delete leaves them to a sweep,
                // which finds the match stored).
                if let Err(e) = pg.drop_pending(id).await {
                    tracing::warn!(error = %e, "deleting the started match's terms failed");
                }
                return Ok(Some(started));
            }
        } else if pg.update_pending(id, version, &p.stored()?).await.map_err(store)? {
            if umpire {
                shared.umpires.paid(&key, &Owed::Terms(id.to_owned()));
            }
            lock(&shared.lobby).pending.insert(id.to_owned(), p);
            return Ok(None);
        }
    }
    Err(contended(id))
}

/// Starts a match from fully signed terms.
async fn start(
    shared: &Arc<Shared>,
    p: Pending,
    signed: SignedTerms,
) -> Result<String, LobbyError> {
    let agreed = signed.verify().map_err(|e| LobbyError::Bad(format!("terms: {e}")))?;
    let id = agreed.match_id;
    let row = MatchRow {
        id,
        terms: protocol::codec::Canonical::to_canonical(&signed),
        variant: agreed.terms.variant.id().to_owned(),
        players: [agreed.terms.players[0].key, agreed.terms.players[1].key],
        rated: p.challenge.rated,
        challenge: Some(p.challenge.id.clone()),
        created_ms: shared.clock.now_ms(),
        status: MatchStatus::Live,
        finish: None,
    };
    if let Some(t) = p.tournament {
        record_game(shared, id, t).await.map_err(|e| LobbyError::Store(e.to_string()))?;
    }
    let (task, handle) =
        MatchTask::create(shared.clone(), shared.config.relay.clone(), row, signed.clone())
            .await
            .map_err(|e| LobbyError::Store(e.to_string()))?;
    lock(&shared.matches).insert(id, handle);
    tokio::spawn(task.run());
    let mut c = p.challenge.clone();
    c.status = ChallengeStatus::Started;
    store_challenge(shared, &c).await?;
    let id_text = protocol::hex::encode(&id.0);
    let mut event = game_start(&id_text, agreed.terms.variant.id(), &signed);
    event["game"]["names"] = crate::auth::names_for(
        shared,
        &json!(p.parties().iter().map(ToString::to_string).collect::<Vec<_>>()),
    )
    .await;
    shared.events.send_all(p.parties().iter(), &event);
    Ok(id_text)
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

/// Cancels pending terms past their deadline and challenges open longer than
/// `max_challenge_open_ms`; returns how many of both.
pub async fn sweep(shared: &Arc<Shared>) -> usize {
    let now = shared.clock.now_ms();
    let stale: Vec<Challenge> = {
        let max = shared.config.limits.max_challenge_open_ms;
        let mut lobby = lock(&shared.lobby);
        let ids: Vec<String> = lobby
            .open
            .iter()
            .filter(|(_, c)| c.created_ms.saturating_add(max) <= now)
            .map(|(k, _)| k.clone())
            .collect();
        ids.iter().filter_map(|id| lobby.open.remove(id)).collect()
    };
    for c in &stale {
        let mut c = c.clone();
        c.status = ChallengeStatus::Canceled;
        let _ = store_challenge(shared, &c).await;
        let event = json!({
            "type": "challengeCanceled",
            "challenge": c.json(),
            "reason": format!(
                "nobody answered it within {} s (max_challenge_open_ms)",
                shared.config.limits.max_challenge_open_ms / 1000
            ),
        });
        let mut keys: Vec<PublicKey> = c.challenger.parse().ok().into_iter().collect();
        keys.extend(c.dest.as_deref().and_then(|d| d.parse::<PublicKey>().ok()));
        shared.events.send_all(keys.iter(), &event);
    }
    let mut expired: Vec<Pending> = {
        let mut lobby = lock(&shared.lobby);
        let ids: Vec<String> = lobby
            .pending
            .iter()
            .filter(|(_, p)| p.deadline_ms <= now)
            .map(|(k, _)| k.clone())
            .collect();
        ids.iter().filter_map(|id| lobby.pending.remove(id)).collect()
    };
    if let Some(pg) = shared.cluster.get() {
        // A cluster: the terms this node knew of are dropped here, but canceled by the node
        // whose sweep takes their row (once, whichever node: a dead acceptor's too), and not
        // at all when another node started the match.
        expired.retain(|p| p.tournament.is_some());
        let hold = now + crate::store::pending::START_GRACE_MS;
        match pg.expire_pending(now, hold).await {
            Ok(rows) => {
                for row in rows {
                    match Pending::load(&row.body) {
                        Ok(p) if row.signed => start_claimed(shared, pg, p).await,
                        Ok(p) => expired.push(p),
                        Err(e) => tracing::warn!(error = %e, "expired pending terms unreadable"),
                    }
                }
            }
            Err(e) => tracing::warn!(error = %e, "sweeping the expired pending terms failed"),
        }
    }
    for p in &expired {
        if let Some((u, _)) = &p.umpire {
            shared.umpires.paid(u, &Owed::Terms(p.challenge.id.clone()));
        }
        let mut c = p.challenge.clone();
        c.status = ChallengeStatus::Canceled;
        let _ = store_challenge(shared, &c).await;
        let missing: Vec<String> = p
            .parties()
            .iter()
            .filter(|k| !p.signatures.contains_key(k))
            .map(ToString::to_string)
            .collect();
        let event = json!({
            "type": "challengeCanceled",
            "challenge": c.json(),
            "reason": format!("the terms were not signed in time by {}", missing.join(", ")),
        });
        shared.events.send_all(p.parties().iter(), &event);
    }
    // Terms that ended by another way (a tournament's runner) owe nothing any more.
    let pending: BTreeSet<String> = lock(&shared.lobby).pending.keys().cloned().collect();
    shared.umpires.retain_terms(|id| pending.contains(id));
    expired.len() + stale.len()
}

/// Starts the match of signed terms a node claimed and did not store within
/// [`crate::store::pending::START_GRACE_MS`] (it died, or its database connection did), which
/// this node's sweep has claimed again; or, when the match is stored after all, only deletes
/// the terms. Two nodes starting it at once store it once (the match id is the row's key).
async fn start_claimed(
    shared: &Arc<Shared>,
    pg: &crate::store::postgres::PostgresStore,
    p: Pending,
) {
    let id = p.challenge.id.clone();
    let Some((terms, bytes)) = &p.terms else { return };
    let Some(signed) = all_signed(shared, terms, bytes, &p.signatures) else {
        tracing::warn!(challenge = %cut(&id), "terms marked signed lack a signature");
        return;
    };
    let stored = match signed.verify() {
        Ok(agreed) => shared.store.get_match(&agreed.match_id).await.map(|m| m.is_some()),
        Err(e) => {
            tracing::warn!(challenge = %cut(&id), error = %e, "terms marked signed do not verify");
            return;
        }
    };
    match stored {
        Ok(true) => {}
        Ok(false) => match start(shared, p, signed).await {
            Ok(m) => {
                tracing::warn!(challenge = %cut(&id), match_id = %m, "started the match of terms another node claimed and did not store")
            }
            Err(e) => {
                tracing::warn!(challenge = %cut(&id), error = %e, "starting claimed terms failed; a later sweep tries again");
                return;
            }
        },
        Err(e) => {
            tracing::warn!(error = %e, "reading a claimed match failed; a later sweep tries again");
            return;
        }
    }
    if let Err(e) = pg.drop_pending(&id).await {
        tracing::warn!(error = %e, "deleting the started match's terms failed");
    }
}

/// Records a tournament game's match before the match is created (so its record is appended
/// with its round even after a crash).
pub async fn record_game(
    shared: &Shared,
    match_id: protocol::MatchId,
    (tournament, round): (ledger::entry::Sha256Digest, u32),
) -> Result<(), crate::store::StoreError> {
    shared
        .store
        .put_tournament_game(&crate::store::TournamentGameRow { match_id, tournament, round })
        .await
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
    fn a_request_parses_once_and_names_its_bad_field() {
        let c = request().parse().expect("a good request");
        assert_eq!(c.variant, rules::Variant::Kriegspiel);
        assert_eq!(c.color, ColorChoice::Black);
        let mut r = request();
        r.color = None;
        assert_eq!(r.parse().expect("default").color, ColorChoice::Random);
        let bad = |f: &dyn Fn(&mut ChallengeRequest)| {
            let mut r = request();
            f(&mut r);
            match r.parse() {
                Err(LobbyError::Bad(why)) => why,
                other => panic!("not a Bad: {other:?}"),
            }
        };
        assert!(bad(&|r| r.variant = "xiangqi".into()).starts_with("variant: "));
        assert!(bad(&|r| r.color = Some("purple".into())).starts_with("color \"purple\""));
        assert!(bad(&|r| r.opponent = Some("nope".into())).starts_with("opponent: "));
        assert!(bad(&|r| r.umpire = Some("nope".into())).starts_with("umpire: "));
        assert!(bad(&|r| r.seat.nonce = "00".into()).starts_with("nonce "));
        assert!(
            bad(&|r| {
                r.options.insert("no-such-option".into(), "1".into());
            })
            .starts_with("options: ")
        );
    }

    #[test]
    fn the_typed_challenge_keeps_its_json_and_stored_form() {
        let c = Challenge {
            id: "0011223344556677".into(),
            challenger: protocol::Identity::from_seed(&[1; 32]).public().to_string(),
            dest: None,
            variant: rules::Variant::Kriegspiel,
            options: BTreeMap::new(),
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
        let stored = serde_json::to_value(&c).expect("serializes");
        assert_eq!(stored["variant"], json!("kriegspiel"));
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

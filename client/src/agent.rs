//! The agent: one key's presence on a server. It follows the key's event stream, brings its
//! seats to challenges and terms, checks and signs the terms, and runs a [`Seat`] for every
//! match it plays or umpires; after a crash it resumes every match it has a journal of
//! (docs/SERVER.md, the agent).
//!
//! The same agent is the house bot (a policy decides), an arbiter's umpire, and the engine
//! behind a person's terminal, browser page or a local bot (a remote decider answers the
//! seat's questions).

use crate::journal::{self, Journal, Keeper, Record};
use crate::net::{NetError, Session, signature_hex};
use crate::promise::{PromiseBook, PromiseStatus, WitnessPolicy};
use crate::retry::{self, Retryable};
use crate::seat::{Decider, Machine, Seat, SeatEvent};
use protocol::challenge::{ChallengeRequest, Seat as ChallengeSeat};
use protocol::codec::Canonical;
use protocol::terms::{AgreedTerms, ColorAssignment, MatchTerms, SignedTerms};
use protocol::{Identity, MatchId, PublicKey};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use thiserror::Error;
use tokio::sync::mpsc;

/// Which challenges the agent accepts by itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Accept {
    /// None: the person decides ([`Agent::accept`]).
    Nothing,
    /// Every challenge addressed to this key (a house bot).
    Addressed,
    /// Every challenge addressed to this key, and every open challenge (seek).
    Everything,
}

/// What decides for the player in a new match: the decider and where the seat reports.
pub type DeciderFactory =
    Arc<dyn Fn(&AgreedTerms) -> (Decider, Option<mpsc::UnboundedSender<SeatEvent>>) + Send + Sync>;

/// How an agent runs.
#[derive(Clone)]
pub struct AgentConfig {
    /// The server, `http://host:port`.
    pub server: String,
    /// The server's relay key, if the player was given it (`--server-key`): the agent signs in
    /// only to a server presenting it. `None`: the agent pins the key it first sees for the
    /// server's origin ([`check_server_key`]).
    pub server_key: Option<PublicKey>,
    /// The key.
    pub identity: Identity,
    /// The display name to set at sign-in.
    pub name: Option<String>,
    /// Where journals and records go.
    pub dir: PathBuf,
    /// Umpire matches whose terms name this key.
    pub umpire: bool,
    /// Which challenges to accept.
    pub accept: Accept,
    /// Accept only these variants (empty: all).
    pub variants: Vec<rules::Variant>,
    /// Who decides in each new match.
    pub decider: DeciderFactory,
}

impl std::fmt::Debug for AgentConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentConfig")
            .field("server", &self.server)
            .field("key", &self.identity.public())
            .field("umpire", &self.umpire)
            .field("accept", &self.accept)
            .finish_non_exhaustive()
    }
}

/// Why the agent stopped.
#[derive(Debug, Error)]
pub enum AgentError {
    /// The server refused it for good.
    #[error(transparent)]
    Net(#[from] NetError),
    /// A journal could not be written.
    #[error(transparent)]
    Journal(#[from] journal::JournalError),
    /// Terms this agent will not sign.
    #[error("terms refused: {0}")]
    Terms(String),
}

/// How a seat ended: the final record, or why it stopped.
pub type SeatResult = Result<Vec<u8>, String>;

/// A running agent's state, shared with its tasks and its driver.
#[derive(Clone)]
pub struct Agent {
    config: Arc<AgentConfig>,
    session: Session,
    /// Challenges this agent made or accepted, by id, as the server showed them: terms are
    /// checked against them.
    expected: Arc<Mutex<BTreeMap<String, Value>>>,
    /// Matches with a seat running (or finished here).
    seated: Arc<Mutex<BTreeSet<MatchId>>>,
    /// Finished matches' records, by id.
    records: Arc<Mutex<BTreeMap<MatchId, SeatResult>>>,
    /// Every event of the key's stream, once the agent has handled it (for a local API or a
    /// UI that shows challenges and games: [`Agent::subscribe`]).
    observers: tokio::sync::broadcast::Sender<Value>,
    /// Tournaments this agent joined ([`Agent::join_tournament`]): it brings its seat to their
    /// games by itself.
    tournaments: Arc<Mutex<BTreeSet<String>>>,
    /// The umpires this key's player trusts ([`Agent::trusted_umpires`]): the server's umpire
    /// service by default. The agent accepts no challenge and signs no terms naming another.
    trusted: Arc<Mutex<Vec<PublicKey>>>,
    /// The witnesses this key's player trusts to check the log's checkpoints
    /// ([`Agent::set_witness_policy`]; default: the server's own, at least one).
    witnesses: Arc<Mutex<WitnessPolicy>>,
    /// What became of each finished match's inclusion promise ([`Agent::promise_status`]).
    promises: PromiseBook,
    /// The delivery witness late messages go to ([`Agent::use_delivery_witness`]).
    delivery: Arc<Mutex<Option<String>>>,
    /// The umpire seats running now (at most [`MAX_UMPIRE_SEATS`]).
    umpiring: Arc<Mutex<BTreeSet<MatchId>>>,
}

/// The most umpire seats one umpire process runs at once (`fogproof umpire`): past it the
/// process leaves new seats, and orphaned ones, to the other processes of its key (the
/// server's `max_live_matches` is 20,000 by default).
pub const MAX_UMPIRE_SEATS: usize = 20_000;

/// How long an umpire process waits, per umpire seat it holds, before it opens a new match's
/// seat (`gameStart`, `umpireSeatOpen`): every process of the key hears of the match and the
/// relay gives the seat to the first connection, so the least loaded process comes first and
/// the seats spread over the processes (docs/SERVER.md, several umpire processes).
pub const UMPIRE_CLAIM_STEP_MS: u64 = 50;

/// The most steps of [`UMPIRE_CLAIM_STEP_MS`] an umpire process waits (a process alone on its
/// key, however loaded, opens a new seat within this many steps and a jitter).
pub const UMPIRE_CLAIM_MAX_STEPS: u64 = 4;

/// How long an umpire process waits before it opens a new match's umpire seat: a step of
/// [`UMPIRE_CLAIM_STEP_MS`] per seat it holds (at most [`UMPIRE_CLAIM_MAX_STEPS`]), and a
/// random jitter below one step that breaks ties between processes holding as many (else the
/// process the event reaches first would win every tie).
pub fn umpire_claim_delay(held: usize, random: u64) -> Duration {
    let steps = (held as u64).min(UMPIRE_CLAIM_MAX_STEPS);
    Duration::from_millis(steps * UMPIRE_CLAIM_STEP_MS + random % UMPIRE_CLAIM_STEP_MS)
}

/// How many times, [`EXPECTATION_WAIT_MS`] apart, the agent looks again for the challenge a
/// terms event belongs to before refusing it (its own challenge is on record only once the
/// server has answered the request that made it).
const EXPECTATION_WAITS: u32 = 20;
/// See [`EXPECTATION_WAITS`].
const EXPECTATION_WAIT_MS: u64 = 100;
/// Tries of a seat or signature the agent owes pending terms ([`Agent::post_owed`]): on the
/// retry schedule about 16 s in all, within the server's `max_terms_wait_ms` (30 s).
const OWED_TRIES: usize = 8;

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Checks terms before signing. First the one terms gate every party calls
/// ([`MatchTerms::validate`]: strict keys, seal keys that can be sealed to, the umpire the
/// variant needs, options, every deadline, cap and budget in its range); then what is this
/// agent's to check: the server's relay, this key in the role expected with the seal key it
/// derives from its nonce, a player's umpire among `trusted_umpires` (the umpires its player
/// trusts), and, for a player, the challenge it made or accepted (`expected`, as the server
/// showed it), field by field ([`check_against_challenge`]).
pub fn check_terms(
    terms: &MatchTerms,
    me: &Identity,
    relay: &PublicKey,
    trusted_umpires: &[PublicKey],
    umpire: bool,
    expected: Option<&Value>,
) -> Result<(), String> {
    terms.validate().map_err(|e| e.to_string())?;
    if terms.relay != *relay {
        return Err(format!("the relay is {}, the server's is {relay}", terms.relay));
    }
    let key = me.public();
    let (nonce, seal) = if umpire {
        let u =
            terms.umpire.as_ref().filter(|u| u.key == key).ok_or("not this key's umpire seat")?;
        (u.nonce, u.seal_key)
    } else {
        let p = terms.player(&key).ok_or("this key is not a player of these terms")?;
        (p.nonce, p.seal_key)
    };
    if protocol::seal::SealSecret::for_match(me, &nonce).public() != seal {
        return Err(
            "the seal key in the terms is not the one this key derives from its nonce".into()
        );
    }
    if !umpire
        && let Some(u) = &terms.umpire
        && !trusted_umpires.contains(&u.key)
    {
        return Err(format!("the umpire {} is not one this player trusts", u.key));
    }
    if let Some(c) = expected {
        check_against_challenge(terms, c)?;
    }
    Ok(())
}

/// Whether `terms` are exactly what the challenge `c` asked for (its JSON as the server shows
/// it, [`Agent::challenge`]'s answer or a `challenge` event): the variant, the options, the
/// clock (seconds, to the millisecond), the colors (`white`/`black`: the challenger's,
/// `random`: drawn, the challenger first, as the server writes them), the opponent a challenge
/// names, the umpire (none where it names none), and rated or casual (`rated`, which a
/// challenge must state).
pub fn check_against_challenge(terms: &MatchTerms, c: &Value) -> Result<(), String> {
    let text = |path: &str| c.pointer(path).and_then(Value::as_str);
    if text("/variant/key") != Some(terms.variant().id()) {
        return Err(format!("variant {} is not the challenge's", terms.variant().id()));
    }
    match c.get("rated").and_then(Value::as_bool) {
        Some(rated) if rated == terms.rated => {}
        Some(rated) => {
            let says = |r: bool| if r { "rated" } else { "casual" };
            return Err(format!(
                "the terms say {}, the challenge {}",
                says(terms.rated),
                says(rated)
            ));
        }
        None => return Err("the challenge says neither rated nor casual".into()),
    }
    // The challenge's options are text (the server's JSON, an edge): read once, compared typed.
    let shown = c.get("options").ok_or("the challenge shows no options")?;
    let shown: BTreeMap<String, String> = serde_json::from_value(shown.clone())
        .map_err(|e| format!("the challenge's options: {e}"))?;
    let asked = rules::GameOptions::parse(terms.variant(), &shown)
        .map_err(|e| format!("the challenge's options: {e}"))?;
    if asked != terms.game {
        return Err("options are not the challenge's".into());
    }
    let tc = terms.time_control;
    let ms = |path: &str| c.pointer(path).and_then(Value::as_u64).and_then(|s| s.checked_mul(1000));
    if ms("/timeControl/limit") != Some(tc.initial_ms)
        || ms("/timeControl/increment") != Some(tc.increment_ms)
    {
        return Err("the clock is not the challenge's".into());
    }
    let key = |path: &str| text(path).and_then(|k| k.parse::<PublicKey>().ok());
    let challenger = key("/challenger/id").ok_or("the challenge names no challenger")?;
    let [first, second] = [terms.players[0].key, terms.players[1].key];
    let colors_ok = match text("/color").unwrap_or("random") {
        "white" => terms.colors == ColorAssignment::FirstIsWhite && first == challenger,
        "black" => terms.colors == ColorAssignment::FirstIsWhite && second == challenger,
        _ => terms.colors == ColorAssignment::Drawn && first == challenger,
    };
    if !colors_ok {
        return Err(format!(
            "the colours ({:?}, challenger {}) are not the challenge's {}",
            terms.colors,
            if first == challenger { "first" } else { "second" },
            text("/color").unwrap_or("random"),
        ));
    }
    let opponent = if first == challenger { second } else { first };
    if let Some(dest) = c.get("destUser").filter(|d| !d.is_null())
        && key("/destUser/id").is_none_or(|d| d != opponent)
    {
        return Err(format!("the opponent {opponent} is not the one the challenge names {dest}"));
    }
    let named = match c.get("umpire").filter(|u| !u.is_null()) {
        None => None,
        Some(u) => {
            Some(challenge_umpire(c).ok_or(format!("the challenge's umpire {u} is not a key"))?)
        }
    };
    let actual = terms.umpire.as_ref().map(|u| u.key);
    if named != actual {
        let show = |k: Option<PublicKey>| k.map_or("(none)".to_owned(), |k| k.to_string());
        return Err(format!("the umpire {} is not the challenge's {}", show(actual), show(named)));
    }
    Ok(())
}

/// The file, in the agent's directory, where it pins each server's relay key at first use:
/// one line per origin, `origin key`.
pub const SERVER_KEYS_FILE: &str = "server-keys";

/// Whether the server at `config.server` may be signed in to, presenting relay key `relay`:
/// the key configured (`config.server_key`), or else the key pinned for the server's origin in
/// [`SERVER_KEYS_FILE`] (pinned now, with a warning in the log, if none is). A server presenting
/// another key is refused with a warning that names both keys: a proxy or an impostor at that
/// address, or an operator who changed the key (then the player removes the line, or passes
/// `--server-key`).
pub fn check_server_key(config: &AgentConfig, relay: &PublicKey) -> Result<(), String> {
    let origin = protocol::wire::origin(&config.server)
        .ok_or_else(|| format!("{} is not an http(s)://host[:port] address", config.server))?;
    if let Some(key) = config.server_key {
        if key != *relay {
            return Err(format!(
                "WARNING: the server at {origin} presents relay key {relay}, not the one this \
                 agent was given ({key}): refusing to sign in (a proxy or an impostor at that \
                 address?)"
            ));
        }
        return Ok(());
    }
    let path = config.dir.join(SERVER_KEYS_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(format!("reading {}: {e}", path.display())),
    };
    let pinned = text.lines().find_map(|l| {
        let (o, k) = l.trim().split_once(' ')?;
        (o == origin).then(|| k.trim().to_owned())
    });
    match pinned {
        Some(k) if k == relay.to_string() => Ok(()),
        Some(k) => Err(format!(
            "WARNING: the server at {origin} presents relay key {relay}, but this agent pinned \
             {k} for it at first use: refusing to sign in (a proxy or an impostor at that \
             address?). If its operator really changed the key, remove the line for {origin} \
             from {} or pass --server-key.",
            path.display()
        )),
        None => {
            std::fs::create_dir_all(&config.dir)
                .map_err(|e| format!("creating {}: {e}", config.dir.display()))?;
            let mut f = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&path)
                .map_err(|e| format!("writing {}: {e}", path.display()))?;
            std::io::Write::write_all(&mut f, format!("{origin} {relay}\n").as_bytes())
                .map_err(|e| format!("writing {}: {e}", path.display()))?;
            tracing::warn!(
                %origin, %relay, file = %path.display(),
                "pinned the server's relay key at first use: check it against the operator's"
            );
            Ok(())
        }
    }
}

/// The file, in the agent's directory, of the tournaments it joined: one id a line.
pub const TOURNAMENTS_FILE: &str = "tournaments";

/// A tournament id: 64 hex digits, lower case.
fn tournament_id(id: &str) -> Result<String, AgentError> {
    let id = id.trim().to_ascii_lowercase();
    if protocol::hex::decode_array::<32>(&id).is_none() {
        return Err(AgentError::Terms(format!(
            "tournament {:?}: an id is 64 hex digits",
            id.chars().take(80).collect::<String>()
        )));
    }
    Ok(id)
}

/// The tournaments an agent joined before (its [`TOURNAMENTS_FILE`]); none if it has none.
fn saved_tournaments(dir: &std::path::Path) -> BTreeSet<String> {
    std::fs::read_to_string(dir.join(TOURNAMENTS_FILE))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| tournament_id(l).ok())
        .collect()
}

/// The umpire a challenge shows (`umpire`), if it names one.
pub fn challenge_umpire(c: &Value) -> Option<PublicKey> {
    c.get("umpire").and_then(Value::as_str).and_then(|k| k.parse().ok())
}

impl Agent {
    /// Signs in (retrying while the server is unreachable) and returns the agent.
    pub async fn connect(config: AgentConfig) -> Result<Agent, AgentError> {
        let check = {
            let config = config.clone();
            move |info: &crate::net::ServerInfo| check_server_key(&config, &info.relay)
        };
        let session = (|| {
            Session::sign_in_checked(
                &config.server,
                &config.identity,
                config.name.as_deref(),
                &check,
            )
        })
        .retry(retry::backoff())
        .when(NetError::is_transient)
        .await?;
        let tournaments = saved_tournaments(&config.dir);
        Ok(Agent {
            config: Arc::new(config),
            expected: Arc::new(Mutex::new(BTreeMap::new())),
            seated: Arc::new(Mutex::new(BTreeSet::new())),
            records: Arc::new(Mutex::new(BTreeMap::new())),
            observers: tokio::sync::broadcast::channel(256).0,
            tournaments: Arc::new(Mutex::new(tournaments)),
            trusted: Arc::new(Mutex::new(session.info.umpire.into_iter().collect())),
            witnesses: Arc::default(),
            promises: Arc::default(),
            delivery: Arc::new(Mutex::new(None)),
            umpiring: Arc::default(),
            session,
        })
    }

    /// The umpires this key's player trusts: the server's umpire service by default (what the
    /// server announces at sign-in), and any added by [`Agent::trust_umpire`].
    pub fn trusted_umpires(&self) -> Vec<PublicKey> {
        lock(&self.trusted).clone()
    }

    /// Offers every message of the seats started from now on that gets no receipt within
    /// `delivery::GRACE_MS` to the delivery witness at `url` (`fogproof witness serve --relay`),
    /// keeping its notices beside the journals (docs/PROTOCOL.md, delivery notices).
    pub fn use_delivery_witness(&self, url: &str) {
        *lock(&self.delivery) = Some(url.to_owned());
    }

    /// Adds an umpire this key's player trusts.
    pub fn trust_umpire(&self, key: PublicKey) {
        let mut trusted = lock(&self.trusted);
        if !trusted.contains(&key) {
            trusted.push(key);
        }
    }

    /// Sets the witnesses this player trusts to have seen the log it is shown: the inclusion
    /// proofs of its later matches are read through them, and a checkpoint with fewer
    /// cosignatures than `policy` wants is reported ([`PromiseStatus::Kept`]'s `witnessed`).
    pub fn set_witness_policy(&self, policy: WitnessPolicy) {
        *lock(&self.witnesses) = policy;
    }

    /// What became of a finished match's inclusion promise, if this agent finished it.
    pub fn promise_status(&self, id: &MatchId) -> Option<PromiseStatus> {
        lock(&self.promises).get(id).cloned()
    }

    /// Refuses a challenge whose umpire this player does not trust.
    fn check_umpire_trusted(&self, challenge: &Value) -> Result<(), AgentError> {
        match challenge.get("umpire").filter(|u| !u.is_null()) {
            None => Ok(()),
            Some(u) => match challenge_umpire(challenge) {
                Some(key) if lock(&self.trusted).contains(&key) => Ok(()),
                _ => {
                    Err(AgentError::Terms(format!("the umpire {u} is not one this player trusts")))
                }
            },
        }
    }

    /// Joins tournament `id` (64 hex digits) on the server, signed in as this key, and from
    /// then on brings this key's seat to each game the server pairs it in (the terms are then
    /// checked against the game's variant and clock and signed like any other). The agent
    /// remembers it ([`TOURNAMENTS_FILE`]): after a restart it plays on.
    pub async fn join_tournament(&self, id: &str) -> Result<(), AgentError> {
        let id = tournament_id(id)?;
        lock(&self.tournaments).insert(id.clone());
        if let Err(e) = self.session.post(&format!("/api/tournament/{id}/join"), &json!({})).await {
            lock(&self.tournaments).remove(&id);
            return Err(e.into());
        }
        self.save_tournaments()?;
        Ok(())
    }

    /// Withdraws from tournament `id`: the server counts this key absent from the rounds it
    /// starts from now on, and this agent brings no seat to its games any more.
    pub async fn withdraw_tournament(&self, id: &str) -> Result<(), AgentError> {
        let id = tournament_id(id)?;
        self.session.post(&format!("/api/tournament/{id}/withdraw"), &json!({})).await?;
        lock(&self.tournaments).remove(&id);
        self.save_tournaments()?;
        Ok(())
    }

    /// The tournaments this agent plays in (joined through it), by id.
    pub fn tournaments(&self) -> BTreeSet<String> {
        lock(&self.tournaments).clone()
    }

    fn save_tournaments(&self) -> Result<(), AgentError> {
        let text: String = lock(&self.tournaments).iter().map(|t| format!("{t}\n")).collect();
        let path = self.config.dir.join(TOURNAMENTS_FILE);
        std::fs::create_dir_all(&self.config.dir)
            .and_then(|()| std::fs::write(&path, text))
            .map_err(|e| AgentError::Terms(format!("writing {}: {e}", path.display())))
    }

    /// Brings this key's seat to a tournament game the server paired it in.
    async fn tournament_game(&self, e: &Value) -> Result<(), AgentError> {
        let id = e.get("id").and_then(Value::as_str).unwrap_or_default();
        let tournament = e.get("tournament").and_then(Value::as_str).unwrap_or_default();
        let joined = lock(&self.tournaments).contains(tournament);
        // A house bot (accepting everything) plays every game the server pairs it in; anyone
        // else only those of tournaments it joined through this agent.
        if !joined && self.config.accept != Accept::Everything {
            return Ok(());
        }
        let me = self.config.identity.public().to_string();
        let named = [e.get("white"), e.get("black")]
            .iter()
            .any(|k| k.and_then(|k| k.as_str()) == Some(me.as_str()));
        if !named {
            return Err(AgentError::Terms("a tournament game for other players".into()));
        }
        let challenge = e.get("challenge").cloned().unwrap_or(Value::Null);
        lock(&self.expected).insert(id.to_owned(), challenge);
        let (seal, nonce) = journal::fresh_seat(&self.config.identity)?;
        let seat = json!({ "seal_key": seal.to_string(), "nonce": protocol::hex::encode(&nonce) });
        self.session.post(&format!("/api/tournament/game/{id}/seat"), &seat).await?;
        Ok(())
    }

    /// The server's events as the agent handles them (challenges, terms, game starts and
    /// ends), each after the agent acted on it: a `gameStart` arrives once its seat runs.
    pub fn subscribe(&self) -> tokio::sync::broadcast::Receiver<Value> {
        self.observers.subscribe()
    }

    /// The signed-in session.
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// The record of a match this agent finished, once it is final.
    pub fn record(&self, id: &MatchId) -> Option<SeatResult> {
        lock(&self.records).get(id).cloned()
    }

    /// Every match this agent's seats ended, with the record or why the seat stopped.
    pub fn records(&self) -> BTreeMap<MatchId, SeatResult> {
        lock(&self.records).clone()
    }

    /// Makes a challenge (`POST /api/challenge`, [`ChallengeRequest`]: the server reads the
    /// same type) with a fresh seat of this agent's, and returns the challenge as the server
    /// shows it. The terms are later checked against what the server showed; an umpire the
    /// player does not trust is refused before anything is sent.
    pub async fn challenge(&self, request: &ChallengeRequest) -> Result<Value, AgentError> {
        if let Some(u) = request.umpire
            && !lock(&self.trusted).contains(&u)
        {
            return Err(AgentError::Terms(format!("the umpire {u} is not one this player trusts")));
        }
        let (seal, nonce) = journal::fresh_seat(&self.config.identity)?;
        let request =
            ChallengeRequest { seat: Some(ChallengeSeat::new(&seal, &nonce)), ..request.clone() };
        let body = serde_json::to_value(&request)
            .map_err(|e| AgentError::Terms(format!("the challenge as JSON: {e}")))?;
        self.post_challenge(body, request.rated).await
    }

    async fn post_challenge(&self, request: Value, asked: bool) -> Result<Value, AgentError> {
        let v = self.session.post("/api/challenge", &request).await?;
        let c = v.get("challenge").cloned().unwrap_or(Value::Null);
        // The terms are checked against the challenge as the server shows it: it must show
        // what was asked for, rated or casual (the server's default: casual).
        if c.get("rated").and_then(Value::as_bool) != Some(asked) {
            return Err(AgentError::Terms(format!(
                "asked for a {} game, the server's challenge says {}",
                if asked { "rated" } else { "casual" },
                c.get("rated").unwrap_or(&Value::Null)
            )));
        }
        if let Some(id) = c.get("id").and_then(Value::as_str) {
            lock(&self.expected).insert(id.to_owned(), c.clone());
        }
        Ok(c)
    }

    /// Accepts a challenge shown as `challenge` (JSON of the `challenge` event).
    pub async fn accept(&self, challenge: &Value) -> Result<(), AgentError> {
        let Some(id) = challenge.get("id").and_then(Value::as_str) else {
            return Err(AgentError::Terms("a challenge without an id".into()));
        };
        self.check_umpire_trusted(challenge)?;
        let (seal, nonce) = journal::fresh_seat(&self.config.identity)?;
        lock(&self.expected).insert(id.to_owned(), challenge.clone());
        let seat = json!({ "seal_key": seal.to_string(), "nonce": protocol::hex::encode(&nonce) });
        self.session.post(&format!("/api/challenge/{id}/accept"), &seat).await?;
        Ok(())
    }

    /// Runs the agent: resumes its journaled matches, then follows its event stream forever
    /// (reconnecting), answering what it is configured to answer.
    pub async fn run(&self) -> Result<(), AgentError> {
        self.resume()?;
        loop {
            // A fresh schedule for each reconnection: the waits start again once connected.
            let mut stream = (|| self.session.events())
                .retry(retry::backoff())
                .when(NetError::is_transient)
                .await?;
            while let Some(event) = stream.next().await {
                match event {
                    // Each event is answered in a task of its own: an umpire service takes part
                    // in every match the server starts, and answering one event at a time (an
                    // HTTP round trip each) would hold back every match behind the slowest.
                    Ok(e) => {
                        // Observers see events in stream order, except a game's start: they
                        // see that once the agent has registered the game's seat.
                        let started = e.get("type").and_then(Value::as_str) == Some("gameStart");
                        if !started {
                            let _ = self.observers.send(e.clone());
                        }
                        let agent = self.clone();
                        tokio::spawn(async move {
                            if let Err(err) = agent.on_event(&e).await {
                                tracing::warn!(error = %err, event = %e, "event not handled");
                            }
                            if started {
                                let _ = agent.observers.send(e);
                            }
                        });
                    }
                    Err(_) => break,
                }
            }
        }
    }

    async fn on_event(&self, e: &Value) -> Result<(), AgentError> {
        let me = self.config.identity.public().to_string();
        match e.get("type").and_then(Value::as_str).unwrap_or("") {
            "challenge" => {
                let c = e.get("challenge").cloned().unwrap_or(Value::Null);
                let mine = c.pointer("/challenger/id").and_then(Value::as_str) == Some(me.as_str());
                let to_me = c.pointer("/destUser/id").and_then(Value::as_str) == Some(me.as_str());
                let open = c.get("destUser").is_none_or(Value::is_null);
                let variant_ok = c
                    .pointer("/variant/key")
                    .and_then(Value::as_str)
                    .and_then(|v| v.parse::<rules::Variant>().ok())
                    .is_some_and(|v| {
                        self.config.variants.is_empty() || self.config.variants.contains(&v)
                    });
                let trusted = self.check_umpire_trusted(&c).is_ok();
                let take = !mine
                    && variant_ok
                    && trusted
                    && c.get("status").and_then(Value::as_str) == Some("open")
                    && match self.config.accept {
                        Accept::Nothing => false,
                        Accept::Addressed => to_me,
                        Accept::Everything => to_me || open,
                    };
                if take {
                    self.accept(&c).await?;
                }
            }
            "tournamentGame" => self.tournament_game(e).await?,
            "umpireRequest" if self.config.umpire => {
                let id = e.get("id").and_then(Value::as_str).unwrap_or_default();
                let (seal, nonce) = journal::fresh_seat(&self.config.identity)?;
                let seat =
                    json!({ "seal_key": seal.to_string(), "nonce": protocol::hex::encode(&nonce) });
                self.post_owed(&format!("/api/pending/{id}/umpire"), &seat).await?;
            }
            "terms" => {
                let id = e.get("id").and_then(Value::as_str).unwrap_or_default();
                let bytes = e
                    .get("terms")
                    .and_then(Value::as_str)
                    .and_then(protocol::hex::decode)
                    .ok_or_else(|| AgentError::Terms("no terms".into()))?;
                let terms = MatchTerms::from_canonical(&bytes)
                    .map_err(|e| AgentError::Terms(e.to_string()))?;
                let umpire =
                    terms.umpire.as_ref().is_some_and(|u| u.key == self.config.identity.public());
                if umpire && !self.config.umpire {
                    return Err(AgentError::Terms("this agent does not umpire".into()));
                }
                // A player signs only terms of a challenge it made or accepted. Its own
                // challenge is on record once the server answered; terms racing that answer
                // wait for it a little.
                let mut expected = lock(&self.expected).get(id).cloned();
                for _ in 0..EXPECTATION_WAITS {
                    if umpire || expected.is_some() {
                        break;
                    }
                    tokio::time::sleep(Duration::from_millis(EXPECTATION_WAIT_MS)).await;
                    expected = lock(&self.expected).get(id).cloned();
                }
                if !umpire && expected.is_none() {
                    return Err(AgentError::Terms(format!(
                        "terms {id} are of no challenge this agent made or accepted"
                    )));
                }
                check_terms(
                    &terms,
                    &self.config.identity,
                    &self.session.info.relay,
                    &self.trusted_umpires(),
                    umpire,
                    expected.as_ref(),
                )
                .map_err(AgentError::Terms)?;
                let sig = self.config.identity.sign(protocol::tags::TERMS, &bytes);
                self.post_owed(
                    &format!("/api/pending/{id}/sign"),
                    &json!({ "signature": signature_hex(&sig) }),
                )
                .await?;
            }
            // A match started, or (to an umpire service) one whose umpire seat has no
            // connection: every umpire process of the key hears it, and the relay gives the
            // seat to the first that opens the match, each process waiting first by the seats
            // it holds (docs/SERVER.md, several umpire processes).
            "gameStart" | "umpireSeatOpen" => {
                let signed = e
                    .pointer("/game/terms")
                    .and_then(Value::as_str)
                    .and_then(protocol::hex::decode)
                    .and_then(|b| SignedTerms::from_canonical(&b).ok())
                    .ok_or_else(|| AgentError::Terms("gameStart without terms".into()))?;
                self.wait_for_umpire_claim(&signed).await;
                // The journal's creation fsyncs its file and directory: on a thread for
                // blocking work, not on the runtime's, where an umpire service starting many
                // matches a second held back every other task of its process (the server's
                // own, when the service runs in it) for the fsyncs' time.
                let agent = self.clone();
                tokio::task::spawn_blocking(move || agent.start(signed))
                    .await
                    .map_err(|e| AgentError::Terms(format!("the seat did not start: {e}")))??;
            }
            _ => {}
        }
        Ok(())
    }

    /// An umpire process's wait before it opens a new match's umpire seat
    /// ([`umpire_claim_delay`]); none for a seat it holds already, or a player's seat.
    async fn wait_for_umpire_claim(&self, signed: &SignedTerms) {
        let me = self.config.identity.public();
        let Ok(agreed) = signed.verify() else { return };
        if agreed.terms.umpire.as_ref().is_none_or(|u| u.key != me)
            || lock(&self.seated).contains(&agreed.match_id)
        {
            return;
        }
        let held = lock(&self.umpiring).len();
        let random = protocol::keys::random_32()
            .map(|r| u64::from_le_bytes([r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]]))
            .unwrap_or(0);
        tokio::time::sleep(umpire_claim_delay(held, random)).await;
    }

    /// Posts what the agent owes pending terms (its seat, its signature), again after a
    /// transient refusal (a `429`, a `503`, a lost connection) on the retry schedule, at most
    /// [`OWED_TRIES`] times: an event is not sent twice, so a refusal not retried left the
    /// terms unsigned until they expired (an umpire service over its address's rate, in a
    /// load test).
    async fn post_owed(&self, path: &str, body: &Value) -> Result<Value, NetError> {
        self.session.post_retrying(path, body, OWED_TRIES).await
    }

    /// Starts the seat of a new match: the secret is drawn and journaled (fsynced) before the
    /// machine exists, so before its first commitment is sent. An umpire's secret is derived
    /// from its key and the match id ([`protocol::roles::Umpire::derived_secret`]): any
    /// process of the key rebuilds the same umpire from the match's entries, so a seat whose
    /// process died is taken over by another (docs/SERVER.md, several umpire processes).
    pub fn start(&self, signed: SignedTerms) -> Result<(), AgentError> {
        let agreed = signed.verify().map_err(|e| AgentError::Terms(e.to_string()))?;
        let id = agreed.match_id;
        if !lock(&self.seated).insert(id) {
            return Ok(());
        }
        let path = journal::path_for(&self.config.dir, &id);
        if path.exists() {
            // Already journaled (a gameStart seen again after a restart): resume it.
            let (journal, records) = Journal::open(&path)?;
            return self.spawn(signed, journal, records);
        }
        let key = self.config.identity.public();
        let role = if agreed.terms.umpire.as_ref().is_some_and(|u| u.key == key) {
            Keeper::Umpire
        } else if agreed.terms.player(&key).is_some() {
            Keeper::Player
        } else {
            return Ok(());
        };
        let secret = match role {
            Keeper::Umpire => {
                if lock(&self.umpiring).len() >= MAX_UMPIRE_SEATS {
                    // Left to another process of this key (a notice comes while the seat has
                    // no connection).
                    lock(&self.seated).remove(&id);
                    return Ok(());
                }
                protocol::roles::Umpire::derived_secret(&self.config.identity, &id)
            }
            Keeper::Player => journal::fresh_secret()?,
        };
        let journal = Journal::create(&self.config.dir, &id, role, &signed, secret)?;
        let records = journal::read(journal.path())?;
        self.spawn(signed, journal, records)
    }

    /// Resumes every unfinished journal.
    fn resume(&self) -> Result<(), AgentError> {
        for (path, records) in journal::unfinished(&self.config.dir) {
            let records = match records {
                Ok(r) => r,
                Err(e) => {
                    tracing::error!(error = %e, "journal not resumed");
                    continue;
                }
            };
            let Some(Record::Start { terms, .. }) = records.first() else { continue };
            let Ok(signed) = SignedTerms::from_canonical(terms) else { continue };
            let Ok(agreed) = signed.verify() else { continue };
            if !lock(&self.seated).insert(agreed.match_id) {
                continue;
            }
            let (journal, records) = Journal::open(&path)?;
            self.spawn(signed, journal, records)?;
        }
        Ok(())
    }

    fn spawn(
        &self,
        signed: SignedTerms,
        journal: Journal,
        records: Vec<Record>,
    ) -> Result<(), AgentError> {
        let agreed = signed.verify().map_err(|e| AgentError::Terms(e.to_string()))?;
        let Some(Record::Start { role, secret, .. }) = records.first().cloned() else {
            return Err(AgentError::Terms("journal without a start".into()));
        };
        let identity = self.config.identity.clone();
        let id = agreed.match_id;
        let (machine, decider, events) = match role {
            Keeper::Umpire => {
                let u = protocol::roles::Umpire::new(identity, agreed.clone(), secret)
                    .map_err(|e| AgentError::Terms(e.to_string()))?;
                (Machine::Umpire(Box::new(u)), Decider::None, None)
            }
            Keeper::Player => {
                let p = protocol::roles::Player::asking(identity, agreed.clone(), secret)
                    .map_err(|e| AgentError::Terms(e.to_string()))?;
                let (decider, events) = (self.config.decider)(&agreed);
                (Machine::Player(Box::new(p)), decider, events)
            }
        };
        if role == Keeper::Umpire {
            let mut umpiring = lock(&self.umpiring);
            if umpiring.contains(&id) {
                return Ok(());
            }
            if umpiring.len() >= MAX_UMPIRE_SEATS {
                drop(umpiring);
                tracing::warn!(match_id = %crate::net::hex_id(&id), "MAX_UMPIRE_SEATS reached: the seat is left to another umpire process");
                lock(&self.seated).remove(&id);
                return Ok(());
            }
            umpiring.insert(id);
        }
        let seat = Seat::new(
            self.session.clone(),
            agreed.clone(),
            machine,
            journal,
            records.into_iter().skip(1).collect(),
            decider,
            events,
        );
        let courier = lock(&self.delivery).clone();
        let seat = match courier {
            Some(url) => seat.with_courier(crate::delivery::Courier::new(
                url,
                signed.clone(),
                self.config.dir.clone(),
            )),
            None => seat,
        };
        let records = self.records.clone();
        let (session, dir) = (self.session.clone(), self.config.dir.clone());
        let witnesses = lock(&self.witnesses).clone();
        let promises = self.promises.clone();
        let (seated, umpiring) = (self.seated.clone(), self.umpiring.clone());
        tokio::spawn(async move {
            let result = seat.run().await;
            lock(&umpiring).remove(&id);
            if let Err(crate::seat::SeatError::Taken) = &result {
                // Another umpire process of this key serves the seat: this one leaves it, and
                // its journal (the umpire's state is derived from its key and the entries);
                // a notice brings it back should that process go.
                tracing::info!(match_id = %crate::net::hex_id(&id), "another umpire process serves this seat");
                let _ = std::fs::remove_file(journal::path_for(&dir, &id));
                lock(&seated).remove(&id);
                return;
            }
            let result = result.map_err(|e| e.to_string());
            if let Err(e) = &result {
                tracing::error!(error = %e, "seat stopped");
            }
            if let Ok(record) = &result {
                tokio::spawn(crate::promise::keep_promise(
                    session,
                    dir,
                    id,
                    record.clone(),
                    witnesses,
                    promises,
                ));
            }
            lock(&records).insert(id, result);
        });
        Ok(())
    }
}

pub use crate::promise::{PROMISE_MAX_POLL_MS, PROMISE_POLL_MS, PROMISE_TRIES, promise_path};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_umpire_process_waits_a_step_per_seat_it_holds_up_to_the_cap_with_a_jitter_below_a_step() {
        let ms = |held, random| umpire_claim_delay(held, random).as_millis() as u64;
        assert_eq!(ms(0, 0), 0, "a process holding nothing opens a new seat at once");
        assert_eq!(ms(1, 0), UMPIRE_CLAIM_STEP_MS);
        assert_eq!(ms(3, 0), 3 * UMPIRE_CLAIM_STEP_MS);
        let cap = UMPIRE_CLAIM_MAX_STEPS * UMPIRE_CLAIM_STEP_MS;
        assert_eq!(ms(1_000, 0), cap, "capped");
        // The jitter breaks ties and never reorders processes a seat apart.
        assert_eq!(ms(0, UMPIRE_CLAIM_STEP_MS + 7), 7);
        assert!(ms(0, u64::MAX) < ms(1, 0));
        assert!(ms(1_000, u64::MAX) < cap + UMPIRE_CLAIM_STEP_MS);
    }
}

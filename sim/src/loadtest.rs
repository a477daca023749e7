//! The load generator behind `fogproof loadtest` (docs/LOADTEST.md): many concurrent matches
//! against a running server, played by real [`Player`] machines over real match sockets, with
//! moves decided in advance so the generator spends its CPU on the protocol, not on choosing.
//!
//! Each of the `matches` slots signs in two keys (from the load's seed), and plays one match
//! after another until the load stops: a challenge with fixed colors, the acceptance, both
//! players sign the terms the server wrote (with its umpire service's seat), then each player
//! drives its machine over its socket. No journal is kept (nothing here needs to survive a
//! crash of the generator).
//!
//! - **Moves.** In Kriegspiel both players follow one legal game drawn at the match's start
//!   from its seed ([`script`]): every attempt is legal, so each move costs the same messages
//!   (the sealed attempt, the umpire's `Turn` and its two sealed answers). Other games, and a
//!   Kriegspiel game past its script, draw uniformly from what the machine offers
//!   ([`client::RandomBot`]).
//! - **Pacing.** A player answers each question `move_interval` after it is asked, so one match
//!   offers one move per `move_interval` (a steady offered load); zero answers at once (the
//!   saturation throughput).
//! - **Latency.** For every message a player sends, the time from the send to the moment its
//!   own entry (with the relay's receipt) comes back on its socket, sampled while a measurement
//!   window is open.
//! - **Addresses.** With `sources`, the players' connections start from those local addresses
//!   (the loopback range holds many), as real players come from many addresses; the server's
//!   per-address limits then bound each simulated player as they would a real one.
//!
//! When the load stops, White resigns in every match at its next turn, so the matches end as
//! matches do (claims, openings, disclosures, the close, the verdict) rather than by timeouts
//! minutes later, and White fetches the verdict. (On its own turn, so that no move of the
//! opponent's is in flight: the drain measures how matches end, not races.)

use client::RandomBot;
use client::net::{MatchSocket, NetError, Session, signature_hex};
use protocol::codec::Canonical;
use protocol::roles::{Ask, Input, Output, Participant, Player, Policy};
use protocol::terms::{MatchTerms, SignedTerms};
use protocol::wire::ServerFrame;
use protocol::{Identity, MessageHash};
use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};
use rules::{AnyAction, Color, Variant};
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use thiserror::Error;
use tokio::sync::watch;
use tokio::task::JoinSet;

/// The longest a move script runs, in plies; a game still going on after it is played on by
/// the random bot.
pub const MAX_SCRIPT_PLIES: usize = 600;

/// How long a match's setup (challenge, acceptance, terms signed by everyone, the start) may
/// take before the slot gives it up and starts another.
const SETUP_TIMEOUT: Duration = Duration::from_secs(120);

/// Errors kept verbatim for the report (the rest are only counted, by kind).
const MAX_KEPT_ERRORS: usize = 8;

/// Kinds of error counted apart ([`error_kind`]); past it, further kinds count as one.
const MAX_ERROR_KINDS: usize = 64;

/// Longest kind of error kept, in characters.
const MAX_KIND_CHARS: usize = 160;

/// The kind of an error, for counting errors by kind: its text with what varies from one
/// occurrence to the next taken out (the slot; ids, keys and hashes as `…`; numbers of more
/// than three digits, ports among them, as `N`), cut to [`MAX_KIND_CHARS`]. A refusal keeps
/// its URL's path, its HTTP status and the server's text
/// (`http://127.0.0.1:N/api/challenge: 503: ...`).
pub fn error_kind(text: &str) -> String {
    let text = match text.strip_prefix("slot ") {
        Some(rest) => rest.split_once(": ").map_or(text, |(_, after)| after),
        None => text,
    };
    let mut kind = String::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() && kind.chars().count() < MAX_KIND_CHARS {
        let run = chars[i..].iter().take_while(|c| c.is_ascii_hexdigit()).count();
        let digits = chars[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        let after_word = i > 0 && chars[i - 1].is_alphanumeric();
        if run >= 8 && !after_word {
            kind.push('…');
            i += run;
        } else if digits > 3 && !after_word {
            kind.push('N');
            i += digits;
        } else {
            kind.push(chars[i]);
            i += 1;
        }
    }
    kind
}

/// How a load runs.
#[derive(Clone, Debug)]
pub struct LoadConfig {
    /// The server, `http://host:port`.
    pub server: String,
    /// Several nodes of one host (`fogproof loadtest --nodes`): slot `i`'s two players use
    /// `nodes[i % len]` (a match's players on one node, as a sticky load balancer sends
    /// them); empty: everyone uses `server`.
    pub nodes: Vec<String>,
    /// Matches played at once.
    pub matches: usize,
    /// The game.
    pub variant: Variant,
    /// How long a player waits before answering each question.
    pub move_interval: Duration,
    /// The time control: initial clock and increment, seconds.
    pub clock_seconds: (u64, u64),
    /// Matches started per second while the load ramps up.
    pub ramp_per_second: u32,
    /// Every key and every script derives from this number.
    pub seed: u64,
    /// Local addresses the players' connections start from, in turn (empty: the system's
    /// choice).
    pub sources: Vec<IpAddr>,
    /// Whether the matches are rated (they count in the ledger's ratings).
    pub rated: bool,
    /// Matches one pair of keys plays at once (slots `k * n .. k * n + n` share pair `k`'s
    /// keys and sessions, so one multiplexed socket per key carries `n` matches, as a bot's
    /// agent or a player in a simul does); 1: every match its own two keys.
    pub matches_per_pair: usize,
}

/// Counters of a running load.
#[derive(Debug, Default)]
struct Counters {
    /// Matches whose two players are both on their sockets.
    playing: AtomicU64,
    /// Matches started (terms signed by everyone).
    started: AtomicU64,
    /// Matches that reached the end (the server said `Finished`).
    finished: AtomicU64,
    /// Matches given up (setup or socket failure).
    failed: AtomicU64,
    /// Starts the server told to come back later (a `503`: its admission control), not errors.
    busy: AtomicU64,
    /// Messages sent by the players.
    sent: AtomicU64,
    /// Messages the relay refused.
    refused: AtomicU64,
    /// Where starting a match spends its time.
    phases: Phases,
}

/// The phases of a match's start, as the challenger sees them ([`Progress::phases`]).
pub const PHASES: [&str; 7] = [
    "event streams",
    "challenge",
    "accept",
    "terms written",
    "own signature",
    "the others' signatures and the start",
    "socket welcome",
];

/// The time spent in each of [`PHASES`] by the matches that got past it: sums and counts.
#[derive(Debug, Default)]
struct Phases {
    micros: [AtomicU64; PHASES.len()],
    count: [AtomicU64; PHASES.len()],
}

impl Phases {
    fn add(&self, phase: usize, since: &mut Instant) {
        let now = Instant::now();
        let us = u64::try_from(now.duration_since(*since).as_micros()).unwrap_or(u64::MAX);
        self.micros[phase].fetch_add(us, Ordering::Relaxed);
        self.count[phase].fetch_add(1, Ordering::Relaxed);
        *since = now;
    }
}

/// What the players measure while a window is open.
#[derive(Debug, Default)]
struct Window {
    open: AtomicBool,
    /// Send-to-receipt latencies, microseconds.
    samples: Mutex<Vec<u32>>,
}

struct Shared {
    config: LoadConfig,
    counters: Counters,
    window: Window,
    errors: Mutex<Errors>,
    /// Finished matches by the reason White's machine claimed (`checkmate`, `resignation`,
    /// `umpire-timeout`, ...).
    ends: Mutex<BTreeMap<String, u64>>,
    stop: watch::Sender<bool>,
    /// One HTTP client per source address, shared by the players starting from it (one pool
    /// of idle connections per address, not one per player).
    clients: Mutex<BTreeMap<Option<IpAddr>, reqwest::Client>>,
    /// Each pair's two signed-in players ([`LoadConfig::matches_per_pair`]), signed in by the
    /// first of its slots.
    pairs: Mutex<BTreeMap<usize, Arc<tokio::sync::OnceCell<Players>>>>,
}

/// A pair's White and Black, signed in.
type Players = [(Identity, Session); 2];

/// The errors so far: counted, the first few kept verbatim, all counted by kind.
#[derive(Debug, Default)]
struct Errors {
    count: u64,
    first: Vec<String>,
    kinds: BTreeMap<String, u64>,
}

impl Shared {
    fn error(&self, what: String) {
        let mut e = self.errors.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        e.count += 1;
        let mut kind = error_kind(&what);
        if e.kinds.len() >= MAX_ERROR_KINDS && !e.kinds.contains_key(&kind) {
            kind = "(other kinds)".into();
        }
        *e.kinds.entry(kind).or_default() += 1;
        if e.first.len() < MAX_KEPT_ERRORS {
            e.first.push(what);
        }
    }

    fn stopping(&self) -> bool {
        *self.stop.borrow()
    }
}

/// A running load.
pub struct Load {
    shared: Arc<Shared>,
    slots: JoinSet<()>,
}

/// What the players measured in one window.
#[derive(Clone, Debug, Default)]
pub struct WindowReport {
    /// Send-to-receipt latencies, microseconds, sorted.
    pub latencies_us: Vec<u32>,
}

impl WindowReport {
    /// The `q` quantile (0..=1) in microseconds, by the nearest-rank method.
    pub fn quantile_us(&self, q: f64) -> Option<u32> {
        let n = self.latencies_us.len();
        if n == 0 {
            return None;
        }
        let rank = (q * n as f64).ceil().clamp(1.0, n as f64) as usize;
        Some(self.latencies_us[rank - 1])
    }
}

/// A snapshot of a load's counters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    /// Matches whose two players are on their sockets now.
    pub playing: u64,
    /// Matches started so far.
    pub started: u64,
    /// Matches finished so far.
    pub finished: u64,
    /// Matches given up so far.
    pub failed: u64,
    /// Starts refused with a `503` so far (the host's admission control: not errors; the slot
    /// tries again a second later).
    pub busy: u64,
    /// Messages the players sent so far.
    pub sent: u64,
    /// Messages the relay refused so far.
    pub refused: u64,
    /// Errors so far.
    pub errors: u64,
    /// The first few errors, verbatim.
    pub first_errors: Vec<String>,
    /// Every error so far by its kind ([`error_kind`]).
    pub error_kinds: BTreeMap<String, u64>,
    /// Finished matches by how they ended (White's claim).
    pub ends: BTreeMap<String, u64>,
    /// The mean time of each of [`PHASES`] so far, microseconds (`None`: none got past it).
    pub phases: Vec<Option<u64>>,
}

/// Why a match could not be played to its end.
#[derive(Debug, Error)]
pub enum MatchError {
    /// The server refused or could not be reached.
    #[error(transparent)]
    Net(#[from] NetError),
    /// The server's answers do not make a match.
    #[error("{0}")]
    Protocol(String),
}

impl Load {
    /// Starts the load: slots begin at `ramp_per_second`.
    pub fn start(config: LoadConfig) -> Load {
        let (stop, _) = watch::channel(false);
        let shared = Arc::new(Shared {
            config,
            counters: Counters::default(),
            window: Window::default(),
            errors: Mutex::new(Errors::default()),
            ends: Mutex::new(BTreeMap::new()),
            stop,
            clients: Mutex::new(BTreeMap::new()),
            pairs: Mutex::new(BTreeMap::new()),
        });
        let mut slots = JoinSet::new();
        let every = Duration::from_secs_f64(1.0 / f64::from(shared.config.ramp_per_second.max(1)));
        for slot in 0..shared.config.matches {
            let s = shared.clone();
            slots.spawn(async move {
                tokio::time::sleep(every.mul_f64(slot as f64)).await;
                run_slot(s, slot).await;
            });
        }
        Load { shared, slots }
    }

    /// The counters now.
    pub fn progress(&self) -> Progress {
        let c = &self.shared.counters;
        let e = self.shared.errors.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        Progress {
            playing: c.playing.load(Ordering::Relaxed),
            started: c.started.load(Ordering::Relaxed),
            finished: c.finished.load(Ordering::Relaxed),
            failed: c.failed.load(Ordering::Relaxed),
            busy: c.busy.load(Ordering::Relaxed),
            sent: c.sent.load(Ordering::Relaxed),
            refused: c.refused.load(Ordering::Relaxed),
            errors: e.count,
            first_errors: e.first.clone(),
            error_kinds: e.kinds.clone(),
            ends: self
                .shared
                .ends
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .clone(),
            phases: (0..PHASES.len())
                .map(|i| {
                    let n = c.phases.count[i].load(Ordering::Relaxed);
                    (n > 0).then(|| c.phases.micros[i].load(Ordering::Relaxed) / n)
                })
                .collect(),
        }
    }

    /// Opens the measurement window (latency samples are kept from now on).
    pub fn open_window(&self) {
        let w = &self.shared.window;
        w.samples.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clear();
        w.open.store(true, Ordering::Relaxed);
    }

    /// Closes the window and returns what was measured in it.
    pub fn close_window(&self) -> WindowReport {
        let w = &self.shared.window;
        w.open.store(false, Ordering::Relaxed);
        let mut latencies_us = std::mem::take(
            &mut *w.samples.lock().unwrap_or_else(std::sync::PoisonError::into_inner),
        );
        latencies_us.sort_unstable();
        WindowReport { latencies_us }
    }

    /// Stops: no new matches, White resigns in every match; waits up to `drain` for the
    /// matches to end, then drops what is left. Returns the counters at the end.
    pub async fn stop(mut self, drain: Duration) -> Progress {
        self.shared.stop.send_replace(true);
        let _ =
            tokio::time::timeout(drain, async { while self.slots.join_next().await.is_some() {} })
                .await;
        self.slots.abort_all();
        while self.slots.join_next().await.is_some() {}
        self.progress()
    }
}

/// One Kriegspiel game (or, in another game without a setup, one game) drawn from `seed`:
/// the action of every ply, each uniformly drawn among the legal actions of the full
/// position, until the rules end the game or `max_plies`. Empty for games whose start needs
/// setups or seeds (SIC, Intrigue, 6x6).
pub fn script(variant: Variant, seed: [u8; 32], max_plies: usize) -> Vec<AnyAction> {
    let mut line = Vec::new();
    if variant.has_secret_setup() {
        return line;
    }
    let options = rules::GameOptions::default_for(variant);
    let Ok(mut game) = rules::AnyGame::start(&options, None) else {
        return line;
    };
    let mut rng = ChaCha20Rng::from_seed(seed);
    while line.len() < max_plies && game.result().is_none() {
        let legal = game.legal_actions();
        let (Some(&actor), false) = (game.to_act().first(), legal.is_empty()) else { break };
        let pick = &legal[(rng.next_u64() % legal.len() as u64) as usize];
        match game.apply(actor, pick) {
            Ok(next) => game = next.state,
            Err(_) => break,
        }
        line.push(pick.clone());
    }
    line
}

/// A policy that plays its side's plies of a [`script`] while what it is offered contains
/// them, then (and for setups and tie-breaks) a [`RandomBot`].
pub struct Scripted {
    line: Arc<Vec<AnyAction>>,
    next: Option<usize>,
    off_script: bool,
    bot: RandomBot,
}

impl Scripted {
    /// A policy following `line`, with a bot drawing from `seed` for everything else.
    pub fn new(line: Arc<Vec<AnyAction>>, seed: [u8; 32]) -> Scripted {
        Scripted { line, next: None, off_script: false, bot: RandomBot::new(seed) }
    }
}

impl Policy for Scripted {
    fn decide(&mut self, variant: Variant, side: Color, ask: &Ask) -> AnyAction {
        if let (Ask::Choose(options), false) = (ask, self.off_script) {
            let ply = *self.next.get_or_insert(usize::from(side == Color::Black));
            if let Some(m) = self.line.get(ply).filter(|m| options.contains(m)) {
                self.next = Some(ply + 2);
                return m.clone();
            }
            self.off_script = true;
        }
        self.bot.decide(variant, side, ask)
    }
}

fn seat_json(identity: &Identity) -> Result<Value, MatchError> {
    let nonce = protocol::keys::random_32().map_err(|e| MatchError::Protocol(e.to_string()))?;
    let seal = protocol::seal::SealSecret::for_match(identity, &nonce).public();
    Ok(json!({ "seal_key": seal.to_string(), "nonce": protocol::hex::encode(&nonce) }))
}

/// One slot: two keys signed in once, then one match after another until the load stops.
async fn run_slot(shared: Arc<Shared>, slot: usize) {
    let pair = slot / shared.config.matches_per_pair.max(1);
    let cell = {
        let mut pairs = shared.pairs.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        pairs.entry(pair).or_default().clone()
    };
    let Some(sessions) = cell.get_or_try_init(|| sign_in_pair(&shared, pair)).await.ok() else {
        return;
    };
    let [white, black] = sessions;
    let config = &shared.config;
    let mut game = 0u64;
    while !shared.stopping() {
        let seed = crate::selfplay::derive(config.seed, &format!("loadtest/{slot}/{game}"));
        game += 1;
        match play_match(&shared, white, black, seed).await {
            Ok(()) => {}
            // The host's admission control (docs/SERVER.md, limits): told to come back, after
            // 1 to 4.5 s (spread over the slots, so they do not all come back at once).
            Err(MatchError::Net(NetError::Refused { status: 503, .. })) => {
                shared.counters.busy.fetch_add(1, Ordering::Relaxed);
                let wait = 1_000 + 500 * (slot as u64 % 8);
                tokio::time::sleep(Duration::from_millis(wait)).await;
            }
            Err(e) => {
                shared.counters.failed.fetch_add(1, Ordering::Relaxed);
                shared.error(format!("slot {slot}: {e}"));
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        }
    }
}

/// Signs in pair `pair`'s two players (White, Black), retrying until it works or the load
/// stops (`Err`).
async fn sign_in_pair(shared: &Shared, pair: usize) -> Result<Players, ()> {
    let config = &shared.config;
    let server = if config.nodes.is_empty() {
        &config.server
    } else {
        &config.nodes[pair % config.nodes.len()]
    };
    let source =
        |i: usize| (!config.sources.is_empty()).then(|| config.sources[i % config.sources.len()]);
    let identity = |color: &str| {
        Identity::from_seed(&crate::selfplay::derive(
            config.seed,
            &format!("loadtest/{pair}/{color}"),
        ))
    };
    let mut sessions = Vec::new();
    for (i, color) in ["white", "black"].into_iter().enumerate() {
        let id = identity(color);
        let name = format!("load-{pair}-{color}");
        loop {
            if shared.stopping() {
                return Err(());
            }
            let local = source(2 * pair + i);
            let client = {
                let mut clients =
                    shared.clients.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                match clients.get(&local) {
                    Some(c) => Ok(c.clone()),
                    None => Session::http_client(server, local).inspect(|c| {
                        clients.insert(local, c.clone());
                    }),
                }
            };
            let signed_in = match client {
                Ok(http) => Session::sign_in_with(http, server, &id, Some(&name), local).await,
                Err(e) => Err(e),
            };
            match signed_in {
                Ok(s) => break sessions.push((id, s)),
                Err(e) => {
                    shared.error(format!("pair {pair}: sign-in: {e}"));
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
            }
        }
    }
    let black = sessions.pop().ok_or(())?;
    let white = sessions.pop().ok_or(())?;
    Ok([white, black])
}

/// The signed terms of a new match between `white` (the challenger) and `black`.
async fn set_up(
    shared: &Shared,
    white: &(Identity, Session),
    black: &(Identity, Session),
) -> Result<SignedTerms, MatchError> {
    let config = &shared.config;
    let phases = &shared.counters.phases;
    let mut at = Instant::now();
    let request = json!({
        "variant": config.variant.id(),
        "clock_limit": config.clock_seconds.0,
        "clock_increment": config.clock_seconds.1,
        "color": "white",
        "rated": config.rated,
        "opponent": black.1.key.to_string(),
        "seat": seat_json(&white.0)?,
    });
    let made = white.1.post("/api/challenge", &request).await?;
    let id = made
        .pointer("/challenge/id")
        .and_then(Value::as_str)
        .ok_or_else(|| MatchError::Protocol(format!("a challenge without an id: {made}")))?
        .to_owned();
    phases.add(1, &mut at);
    // The streams open once the challenge is made (a challenge told to come back opens
    // none), before it is accepted (the terms come after the acceptance).
    let streams = async { Ok::<_, NetError>((white.1.events().await?, black.1.events().await?)) };
    let (mut w_events, mut b_events) = match streams.await {
        Ok(s) => s,
        Err(e) => {
            let _ = white.1.post(&format!("/api/challenge/{id}/cancel"), &json!({})).await;
            return Err(e.into());
        }
    };
    phases.add(0, &mut at);
    if let Err(e) =
        black.1.post(&format!("/api/challenge/{id}/accept"), &seat_json(&black.0)?).await
    {
        // Not accepted (a 503 of admission, or anything else): the challenge is withdrawn, so
        // the slot's open challenges never pile up to `max_open_challenges_per_key`.
        let _ = white.1.post(&format!("/api/challenge/{id}/cancel"), &json!({})).await;
        return Err(e.into());
    }
    phases.add(2, &mut at);
    let (w, b) = tokio::join!(
        sign_and_start(white, &mut w_events, &id, Some((phases, at))),
        sign_and_start(black, &mut b_events, &id, None)
    );
    let (w, _) = (w?, b?);
    Ok(w)
}

/// Follows `events` until the terms of challenge `id`, checks and signs them, then follows
/// on until their match starts; returns the signed terms.
async fn sign_and_start(
    (identity, session): &(Identity, Session),
    events: &mut client::net::EventStream,
    id: &str,
    mut phases: Option<(&Phases, Instant)>,
) -> Result<SignedTerms, MatchError> {
    let mut match_id = None;
    let mut phase = |i: usize| {
        if let Some((p, at)) = &mut phases {
            p.add(i, at);
        }
    };
    while let Some(event) = events.next().await {
        let e = event?;
        match e.get("type").and_then(Value::as_str) {
            Some("terms") if e.get("id").and_then(Value::as_str) == Some(id) => {
                let bytes = e
                    .get("terms")
                    .and_then(Value::as_str)
                    .and_then(protocol::hex::decode)
                    .ok_or_else(|| MatchError::Protocol("terms without bytes".into()))?;
                let terms = MatchTerms::from_canonical(&bytes)
                    .map_err(|e| MatchError::Protocol(format!("terms: {e}")))?;
                phase(3);
                client::agent::check_terms(
                    &terms,
                    identity,
                    &session.info.relay,
                    session.info.umpire.as_slice(),
                    false,
                    None,
                )
                .map_err(MatchError::Protocol)?;
                let sig = identity.sign(protocol::tags::TERMS, &bytes);
                session
                    .post(
                        &format!("/api/pending/{id}/sign"),
                        &json!({ "signature": signature_hex(&sig) }),
                    )
                    .await?;
                phase(4);
                match_id = e.get("matchId").and_then(Value::as_str).map(str::to_owned);
            }
            Some("gameStart")
                if match_id.is_some()
                    && e.pointer("/game/id").and_then(Value::as_str) == match_id.as_deref() =>
            {
                phase(5);
                return e
                    .pointer("/game/terms")
                    .and_then(Value::as_str)
                    .and_then(protocol::hex::decode)
                    .and_then(|b| SignedTerms::from_canonical(&b).ok())
                    .ok_or_else(|| MatchError::Protocol("gameStart without terms".into()));
            }
            Some("challengeCanceled" | "challengeDeclined")
                if e.pointer("/challenge/id").and_then(Value::as_str) == Some(id) =>
            {
                let mut why =
                    e.get("reason").and_then(Value::as_str).unwrap_or("no reason given").to_owned();
                // Who failed, by role, so that the errors count by kind ("... by the umpire").
                let umpire = session.info.umpire.map(|k| (k, "the umpire"));
                for (key, role) in umpire.into_iter().chain(std::iter::once((session.key, "me"))) {
                    why = why.replace(&key.to_string(), role);
                }
                return Err(MatchError::Protocol(format!("challenge {id} canceled: {why}")));
            }
            _ => {}
        }
    }
    Err(MatchError::Protocol("the event stream ended before the match started".into()))
}

/// One match, from the challenge to the server's `Finished`.
async fn play_match(
    shared: &Arc<Shared>,
    white: &(Identity, Session),
    black: &(Identity, Session),
    seed: [u8; 32],
) -> Result<(), MatchError> {
    let signed = match tokio::time::timeout(SETUP_TIMEOUT, set_up(shared, white, black)).await {
        Ok(r) => r?,
        Err(_) => return Err(MatchError::Protocol("the match did not start in time".into())),
    };
    shared.counters.started.fetch_add(1, Ordering::Relaxed);
    let line = Arc::new(script(shared.config.variant, seed, MAX_SCRIPT_PLIES));
    let joined = Arc::new(AtomicU64::new(0));
    let seat = |who: &(Identity, Session), resigns: bool, bot: u8| {
        let mut bot_seed = seed;
        bot_seed[0] ^= bot;
        let policy = Scripted::new(line.clone(), bot_seed);
        play_seat(shared.clone(), who.clone(), signed.clone(), policy, resigns, joined.clone())
    };
    // One seat failing ends the other (it would wait for its opponent's clock to run out).
    let played = tokio::try_join!(seat(white, true, 1), seat(black, false, 2));
    if joined.load(Ordering::Relaxed) == 2 {
        shared.counters.playing.fetch_sub(1, Ordering::Relaxed);
    }
    played?;
    shared.counters.finished.fetch_add(1, Ordering::Relaxed);
    Ok(())
}

/// One player's seat: its machine over its socket until the server says `Finished`.
async fn play_seat(
    shared: Arc<Shared>,
    (identity, session): (Identity, Session),
    signed: SignedTerms,
    mut policy: Scripted,
    resigns: bool,
    joined: Arc<AtomicU64>,
) -> Result<(), MatchError> {
    let agreed = signed.verify().map_err(|e| MatchError::Protocol(format!("terms: {e}")))?;
    let variant = agreed.terms.variant();
    let secret = protocol::keys::random_32().map_err(|e| MatchError::Protocol(e.to_string()))?;
    let mut player = Player::asking(identity, agreed.clone(), secret)
        .map_err(|e| MatchError::Protocol(format!("player: {e}")))?;
    let mut at = Instant::now();
    let mut socket = session.open(&agreed.match_id, None).await?;
    let catch_up = match socket.next().await {
        Some(Ok(ServerFrame::Welcome { catch_up, .. })) => catch_up,
        other => return Err(MatchError::Protocol(format!("no Welcome: {other:?}"))),
    };
    if resigns {
        shared.counters.phases.add(6, &mut at);
    }
    let mut seat = SeatLoop {
        shared: &shared,
        player: &mut player,
        policy: &mut policy,
        variant,
        sent: HashMap::new(),
        due: None,
        claim: None,
        resigns,
    };
    for _ in 0..catch_up {
        match socket.next().await {
            Some(Ok(ServerFrame::Entry(e))) => seat.deliver(e),
            other => return Err(MatchError::Protocol(format!("catch-up: {other:?}"))),
        }
    }
    if joined.fetch_add(1, Ordering::Relaxed) == 1 {
        shared.counters.playing.fetch_add(1, Ordering::Relaxed);
    }
    seat.drain(&mut socket).await?;
    loop {
        let due = seat.due.as_ref().map(|(at, _)| *at);
        tokio::select! {
            frame = socket.next() => match frame {
                Some(Ok(ServerFrame::Entry(e))) => {
                    seat.deliver(e);
                    seat.drain(&mut socket).await?;
                }
                Some(Ok(ServerFrame::Refused { message, reason })) => {
                    shared.counters.refused.fetch_add(1, Ordering::Relaxed);
                    if let Some(h) = message {
                        seat.sent.remove(&h);
                    }
                    shared.error(format!("refused: {reason}"));
                }
                Some(Ok(ServerFrame::Finished { .. })) => {
                    if resigns {
                        let claim = seat.claim.take().unwrap_or_else(|| "no claim".into());
                        let path =
                            format!("/api/match/{}/verdict", protocol::hex::encode(&agreed.match_id.0));
                        let verdict = match session.get(&path).await {
                            Ok(v) => {
                                let status = v.get("status").and_then(Value::as_str).unwrap_or("?");
                                if status != "valid" {
                                    shared.error(format!(
                                        "verdict {status}: {}",
                                        v.pointer("/faults/0/explanation")
                                            .and_then(Value::as_str)
                                            .unwrap_or_default()
                                    ));
                                }
                                status.to_owned()
                            }
                            Err(e) => format!("verdict unread: {e}"),
                        };
                        let reason = format!("{claim} ({verdict})");
                        *shared
                            .ends
                            .lock()
                            .unwrap_or_else(std::sync::PoisonError::into_inner)
                            .entry(reason)
                            .or_default() += 1;
                    }
                    return Ok(());
                }
                Some(Ok(ServerFrame::Welcome { .. })) => {
                    return Err(MatchError::Protocol("a second Welcome".into()));
                }
                Some(Ok(f @ (ServerFrame::For { .. } | ServerFrame::Left { .. }))) => {
                    return Err(MatchError::Protocol(format!("an unwrapped frame: {f:?}")));
                }
                Some(Err(e)) => return Err(e.into()),
                None => return Err(MatchError::Protocol("the socket closed".into())),
            },
            () = async { tokio::time::sleep_until(due.unwrap_or_else(tokio::time::Instant::now)).await },
                if due.is_some() => {
                seat.decide();
                seat.drain(&mut socket).await?;
            }
        }
    }
}

/// A seat's state between frames.
struct SeatLoop<'a> {
    shared: &'a Shared,
    player: &'a mut Player,
    policy: &'a mut Scripted,
    variant: Variant,
    /// Messages sent whose entries have not come back, with when they were sent.
    sent: HashMap<MessageHash, Instant>,
    /// The question waiting for its answer, and when to answer it.
    due: Option<(tokio::time::Instant, Ask)>,
    /// Why the machine considers the match over, once it does.
    claim: Option<String>,
    /// This seat resigns at its first turn once the load stops.
    resigns: bool,
}

impl SeatLoop<'_> {
    fn deliver(&mut self, entry: protocol::relay::Entry) {
        if let Some(at) = self.sent.remove(&entry.message.hash())
            && self.shared.window.open.load(Ordering::Relaxed)
        {
            let us = u32::try_from(at.elapsed().as_micros()).unwrap_or(u32::MAX);
            self.shared
                .window
                .samples
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .push(us);
        }
        if let Err(e) = self.player.handle(Input::Delivered(entry)) {
            self.shared.error(format!("the player found a fault: {e}"));
        }
    }

    fn decide(&mut self) {
        let Some((_, ask)) = self.due.take() else { return };
        if self.resigns && self.shared.stopping() {
            self.player.resign();
            return;
        }
        let Some(side) = self.player.side() else { return };
        let action = self.policy.decide(self.variant, side, &ask);
        if let Err(e) = self.player.handle(Input::Decision(action)) {
            self.shared.error(format!("decision refused by the player: {e}"));
        }
    }

    /// Sends what the machine wrote and schedules its questions (answered at once without a
    /// move interval).
    async fn drain(&mut self, socket: &mut MatchSocket) -> Result<(), MatchError> {
        loop {
            while let Some(out) = self.player.poll_output() {
                match out {
                    Output::Send(m) => {
                        self.sent.insert(m.hash(), Instant::now());
                        self.shared.counters.sent.fetch_add(1, Ordering::Relaxed);
                        socket.send(&m).await?;
                    }
                    Output::Decide(ask) => {
                        let at = tokio::time::Instant::now() + self.shared.config.move_interval;
                        self.due = Some((at, ask));
                    }
                    Output::Finished(claim) => self.claim = Some(claim.reason.to_string()),
                }
            }
            if self.shared.config.move_interval.is_zero() && self.due.is_some() {
                self.decide();
                continue;
            }
            return Ok(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kriegspiel_script_is_a_legal_game_and_the_same_for_one_seed() {
        let line = script(Variant::Kriegspiel, [3; 32], MAX_SCRIPT_PLIES);
        assert!(!line.is_empty());
        assert_eq!(line, script(Variant::Kriegspiel, [3; 32], MAX_SCRIPT_PLIES));
        assert_ne!(line, script(Variant::Kriegspiel, [4; 32], MAX_SCRIPT_PLIES));
        // Replayed through the rules, every ply is legal for the side to act.
        let options = rules::GameOptions::default_for(Variant::Kriegspiel);
        let mut game = rules::AnyGame::start(&options, None).expect("starts");
        for (i, action) in line.iter().enumerate() {
            let actor = if i % 2 == 0 { Color::White } else { Color::Black };
            assert!(game.legal_actions().contains(action), "ply {i}");
            game = game.apply(actor, action).expect("legal").state;
        }
        // It stops at the end of the game or at the cap.
        assert!(game.result().is_some() || line.len() == MAX_SCRIPT_PLIES);
        assert!(script(Variant::Sic, [3; 32], 10).is_empty());
    }

    #[test]
    fn the_scripted_policy_plays_its_side_of_the_script_then_what_it_is_offered() {
        let line = Arc::new(script(Variant::Kriegspiel, [5; 32], 4));
        // Attempts no script plays (a1 to a1, a1 to a2): one extra offer, and one only offer.
        let attempt = |to: u8| {
            let from = rules::Square::new(0, 0).expect("a1");
            let to = rules::Square::new(0, to).expect("a square of the a file");
            AnyAction::Kriegspiel(rules::Move::new(from, to))
        };
        let (x, only_one) = (attempt(0), attempt(1));
        assert!(!line.contains(&x) && !line.contains(&only_one));
        let all = |extra: &AnyAction| {
            let mut v: Vec<AnyAction> = line.iter().cloned().collect();
            v.push(extra.clone());
            Ask::Choose(v)
        };
        let mut black = Scripted::new(line.clone(), [1; 32]);
        assert_eq!(black.decide(Variant::Kriegspiel, Color::Black, &all(&x)), line[1]);
        assert_eq!(black.decide(Variant::Kriegspiel, Color::Black, &all(&x)), line[3]);
        // Past the script: something it was offered.
        let only = Ask::Choose(vec![only_one.clone()]);
        assert_eq!(black.decide(Variant::Kriegspiel, Color::Black, &only), only_one);
        // A script move it is not offered: off the script for good.
        let mut white = Scripted::new(line.clone(), [1; 32]);
        assert_eq!(white.decide(Variant::Kriegspiel, Color::White, &only), only_one);
        assert_eq!(white.decide(Variant::Kriegspiel, Color::White, &only), only_one);
    }

    #[test]
    fn errors_of_one_kind_differ_only_in_slots_ids_and_numbers() {
        let a = error_kind(
            "slot 12: http://127.0.0.1:41234/api/challenge/0f3a9c2b11aa/accept: 503: \
             the host is full (max_live_matches 1000), retry after 1 s",
        );
        let b = error_kind(
            "slot 7: http://127.0.0.1:41234/api/challenge/77e1d0a4c3b2/accept: 503: \
             the host is full (max_live_matches 1000), retry after 1 s",
        );
        assert_eq!(a, b);
        assert_eq!(
            a,
            "http://127.0.0.1:N/api/challenge/…/accept: 503: the host is full \
             (max_live_matches N), retry after 1 s"
        );
        // Another status or another text is another kind; words keep their digits.
        let c = error_kind("slot 7: http://127.0.0.1:41234/api/challenge: 429: too many");
        assert_ne!(a, c);
        assert_eq!(error_kind("sha256 mismatch"), "sha256 mismatch");
        // A kind is bounded, however long the error.
        assert!(error_kind(&"x".repeat(10_000)).chars().count() <= MAX_KIND_CHARS);
    }

    #[test]
    fn quantiles_are_nearest_rank() {
        let r = WindowReport { latencies_us: (1..=100).collect() };
        assert_eq!(r.quantile_us(0.5), Some(50));
        assert_eq!(r.quantile_us(0.99), Some(99));
        assert_eq!(r.quantile_us(1.0), Some(100));
        assert_eq!(WindowReport::default().quantile_us(0.5), None);
    }
}

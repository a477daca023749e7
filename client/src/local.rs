//! The local side of a player's agent: the [`Hub`] that holds each match's seat events, its
//! view and its question for whoever decides (a person at a terminal, `fogproof play`; or a
//! bot in any language over the lichess-shaped local HTTP API of [`router`], `fogproof
//! agent`), and turns their answers into [`SeatCommand`]s.
//!
//! The key stays in the agent's process: the hub only ever sees the seat's view (what the
//! player knows, never hidden truth), the question asked and the texts of the actions offered,
//! and sends back the chosen action's bytes, a resignation or a draw offer. Every answer is
//! checked here against what was offered (a move must be one of the texts offered; a setup or a
//! tie-break must be one the rules accept), so a bot's typo is a 400 naming the problem, never
//! a signed illegal move.
//!
//! The HTTP API (docs/SERVER.md, "The local bot API"; every field in docs/AGENT-API.md), a
//! superset of lichess's Bot and Board API ([`crate::lichess`] names its fields), NDJSON
//! streams:
//!
//! | call | what |
//! |---|---|
//! | `GET /api/account` | this agent's key, its display name (`username`) and the server |
//! | `POST /api/account` | set the display name (`{"name": ...}`; the agent signs it) |
//! | `GET /api/stream/event` | `gameStart`, `gameFinish`, `challenge`, `challengeCanceled`, `challengeDeclined`; current games and challenges first |
//! | `GET /api/bot/game/stream/{id}` | `gameFull`, then a `gameState` at every change |
//! | `GET /api/bot/game/{id}` | the current `gameState` |
//! | `POST /api/bot/game/{id}/move/{text}` | one of the actions offered (UCI text) |
//! | `POST /api/bot/game/{id}/setup` | Intrigue's or 6x6's secret setup (JSON) |
//! | `POST /api/bot/game/{id}/tiebreak` | 6x6's tie-break (JSON) |
//! | `POST /api/bot/game/{id}/resign` | resign |
//! | `POST /api/bot/game/{id}/draw/{yes,no}` | offer or accept a draw; decline |
//! | `/api/board/game/…` | the same routes under lichess's Board API names; `…/abort` resigns |
//! | `POST /api/challenge/{key,open,bot}` | challenge a key, seek, or challenge the server's house bot |
//! | `POST /api/challenge/{id}/{accept,decline,cancel}` | answer a challenge |
//! | `GET /api/lobby` | the server's public lobby: open seeks and live games |
//! | `GET /api/tournament` | the server's tournaments, lichess's `created`/`started`/`finished` |
//! | `GET /api/tournament/{id}` | one tournament: entrants, pairings, standings |
//! | `POST /api/tournament/{id}/{join,withdraw}` | join (then play its pairings) or withdraw |
//!
//! Every display name shown (player objects' `name`, `names` maps) is one its key signed,
//! checked here ([`Hub::vouch`]): a host can withhold a name, never make the agent show one.
//!
//! It also serves the agent's own web pages (`fogproof-web`): `/assets/*` and, at `/` and every
//! other path outside `/api/`, the agent page (the lobby and game pages of `fogproof play`).
//!
//! Only loopback callers are served by default, and never another web page: a request whose
//! `Host` is not a loopback name, or that carries an `Origin` header other than the agent's own
//! (`http://` + its `Host`; browsers add Origin to cross-site requests and set it themselves),
//! is refused, so no other web page can drive the agent (cross-site request forgery, DNS
//! rebinding).

use crate::agent::{Agent, AgentError, DeciderFactory};
use crate::net::NetError;
use crate::seat::{Decider, SeatCommand, SeatEvent};
use axum::Json;
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use protocol::message::{Claim, Outcome};
use protocol::names::SignedName;
use protocol::roles::Ask;
use protocol::terms::AgreedTerms;
use rules::seat::SeatView;
use rules::{Color, GameOptions, Square, Variant};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};
use thiserror::Error;
use tokio::sync::{broadcast, mpsc, watch};

mod bridge;

/// Why a call to the hub was refused.
#[derive(Debug, Error)]
pub enum LocalError {
    /// No such game or challenge here.
    #[error("{0}")]
    NotFound(String),
    /// The request is wrong: a move not offered, a setup the rules refuse, bad JSON.
    #[error("{0}")]
    Bad(String),
    /// Not now: nothing is asked, or the game is over.
    #[error("{0}")]
    Conflict(String),
    /// The server refused or could not be reached.
    #[error(transparent)]
    Net(#[from] NetError),
    /// The agent refused (its journal, or terms).
    #[error(transparent)]
    Agent(#[from] AgentError),
}

impl LocalError {
    fn status(&self) -> StatusCode {
        match self {
            LocalError::NotFound(_) => StatusCode::NOT_FOUND,
            LocalError::Bad(_) => StatusCode::BAD_REQUEST,
            LocalError::Conflict(_) => StatusCode::CONFLICT,
            LocalError::Net(NetError::Refused { status, .. }) => {
                StatusCode::from_u16(*status).unwrap_or(StatusCode::BAD_GATEWAY)
            }
            LocalError::Net(_) | LocalError::Agent(_) => StatusCode::BAD_GATEWAY,
        }
    }
}

impl IntoResponse for LocalError {
    fn into_response(self) -> Response {
        (self.status(), Json(json!({ "error": self.to_string() }))).into_response()
    }
}

/// Where a match stands, as the hub knows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Being played.
    Started,
    /// The result is known; openings and disclosures are being exchanged.
    Over,
    /// The record is final (and saved).
    Finished,
    /// The seat stopped before the record was final (`Snapshot::faults` says why; the agent's
    /// log has the details). Its journal stays: restarting the agent resumes the match.
    Stopped,
}

impl Status {
    /// The lowercase name used in the API.
    pub fn name(self) -> &'static str {
        match self {
            Status::Started => "started",
            Status::Over => "over",
            Status::Finished => "finished",
            Status::Stopped => "stopped",
        }
    }
}

/// One match as the person or bot deciding sees it: the seat's view and what is asked. Never
/// hidden truth: the view is the seat's own knowledge.
#[derive(Clone, Debug)]
pub struct Snapshot {
    /// The match id (64 hex digits).
    pub id: String,
    /// The game.
    pub variant: Variant,
    /// The terms' players, in order (keys).
    pub players: [String; 2],
    /// The umpire's key, in umpired games.
    pub umpire: Option<String>,
    /// Each side's initial clock and increment, ms.
    pub clock: (u64, u64),
    /// The terms' options.
    pub options: BTreeMap<String, String>,
    /// The seat's view, once the side is known.
    pub view: Option<SeatView>,
    /// The question outstanding, if any.
    pub ask: Option<Ask>,
    /// How many questions were asked so far: the id of the one outstanding.
    pub asked: u64,
    /// The texts of the actions offered, in order.
    pub offered: Vec<String>,
    /// Who offers a draw, as the player can tell.
    pub draw_offer: Option<Color>,
    /// Where the match stands.
    pub status: Status,
    /// The end, once known.
    pub claim: Option<Claim>,
    /// The relay's or the seat's last refusal of something this player sent.
    pub refused: Option<String>,
    /// Faults the player's machine found in what it was delivered.
    pub faults: Vec<String>,
    /// The clocks as the server last showed them: White's and Black's remaining ms, and whose
    /// runs.
    pub clocks: Option<(u64, u64, Option<String>)>,
    /// The server's verdict on the final record (JSON), once published.
    pub verdict: Option<Value>,
    /// Where the final record was saved.
    pub record: Option<PathBuf>,
    /// The end as the final record shows it ([`final_json`]): the full board and the opened
    /// setups, once the record is final.
    pub final_board: Option<Value>,
    /// The answers this player sent, by text, in order, each with whether the rules refused
    /// it (a Kriegspiel attempt the umpire called illegal): the player's own log.
    pub sent: Vec<(String, bool)>,
    /// Bumped at every change.
    pub seq: u64,
    /// When the agent registered the match (Unix ms; lichess's `createdAt`).
    pub created_ms: u64,
}

/// The moves played, in the game's own notation, as far as the seat knows them: SAN in chess
/// (every move is public), UCI with the game's letters in Espionage; empty for the hidden games,
/// whose seat knows only its own moves (`Snapshot::sent`) and what it was told.
pub fn notation(view: &SeatView) -> Vec<String> {
    use rules::seat::Knows;
    match &view.knows {
        Knows::Chess { moves } => {
            let mut pos = rules::chess::Position::start();
            moves
                .iter()
                .map(|m| {
                    let text = pos.san(m).unwrap_or_else(|| m.uci(Variant::Chess.alphabet()));
                    pos.play_unchecked(m);
                    text
                })
                .collect()
        }
        Knows::Espionage { moves } => {
            moves.iter().map(|m| m.uci(Variant::Espionage.alphabet())).collect()
        }
        _ => Vec::new(),
    }
}

/// The end of a match as its final record shows it, computed here from the record's own
/// bytes by the verifier's replay (never taken from the host): `board`, the full position at
/// the end with both sides' men (the rules' position string; `null` where the game never had
/// one); `start`, the full position when play began (after any secret setups); `setups`, each
/// side's setup as the record opens it (Intrigue's king square, informer and queen choice;
/// 6x6's formation, files a to f, and false squares), `null` for a side without one;
/// `steps`, the number of actions replayed. `None` when the record does not replay (the
/// server's verdict then says why). Everything here is public once the record is final.
pub fn final_json(record: &[u8]) -> Option<Value> {
    let replay = verifier::views::replay(record).ok()?;
    let mut setups = json!({ "white": null, "black": null });
    for f in &replay.frames {
        if let Ok(Value::Object(mut action)) = serde_json::from_str::<Value>(&f.action)
            && let Some(setup) = action.remove("setup")
        {
            setups[f.actor.to_string()] = setup;
        }
    }
    let board = replay
        .frames
        .iter()
        .rev()
        .find_map(|f| f.full.clone())
        .or_else(|| replay.start_full.clone());
    Some(json!({
        "board": board,
        "start": replay.start_full,
        "setups": setups,
        "steps": replay.frames.len(),
    }))
}

/// The PGN-style score of a claim.
pub fn score(claim: &Claim) -> &'static str {
    match claim.outcome {
        Outcome::WhiteWins => "1-0",
        Outcome::BlackWins => "0-1",
        Outcome::Draw => "1/2-1/2",
        Outcome::NoResult => "*",
    }
}

fn ask_json(variant: Variant, ask: &Ask, id: u64, offered: &[String]) -> Value {
    let kind = crate::view::ask_kind(variant, ask);
    match ask {
        Ask::Choose(_) => json!({ "id": id, "kind": kind, "moves": offered }),
        Ask::IntrigueSetup => json!({ "id": id, "kind": kind }),
        Ask::Sc6Setup { max_false_squares } => {
            json!({ "id": id, "kind": kind, "max_false_squares": max_false_squares })
        }
        Ask::Sc6TieBreak { opponent_turns } => {
            json!({ "id": id, "kind": kind, "opponent_turns": opponent_turns })
        }
    }
}

impl Snapshot {
    /// The `gameState` line of the game stream: lichess's fields (`moves` in UCI, the clocks
    /// `wtime`/`btime`/`winc`/`binc` in ms, `status` and `winner` as lichess names them,
    /// `wdraw`/`bdraw`), then fogproof's (`stage`, `san`, `view`, `ask`, ...:
    /// docs/AGENT-API.md).
    pub fn state_json(&self) -> Value {
        let side = self.view.as_ref().map(|v| v.side);
        let (wtime, btime) = match &self.clocks {
            Some((w, b, _)) => (*w, *b),
            None => (self.clock.0, self.clock.0),
        };
        json!({
            "type": "gameState",
            "moves": crate::lichess::moves_uci(self.view.as_ref()),
            "wtime": wtime,
            "btime": btime,
            "winc": self.clock.1,
            "binc": self.clock.1,
            "status": crate::lichess::status_name(self.status, self.claim.as_ref()),
            "winner": crate::lichess::winner(self.claim.as_ref()),
            "wdraw": self.draw_offer == Some(Color::White),
            "bdraw": self.draw_offer == Some(Color::Black),
            "id": self.id,
            "seq": self.seq,
            "stage": self.status.name(),
            "side": side,
            // Filled in by the hub, which knows its own key.
            "white": null,
            "black": null,
            "view": self.view,
            "ask": self.ask.as_ref().map(|a| ask_json(self.variant, a, self.asked, &self.offered)),
            "drawOffer": self.draw_offer,
            "result": self.claim.as_ref().map(score),
            "reason": self.claim.as_ref().map(|c| c.reason.to_string()),
            "refused": self.refused,
            "faults": self.faults,
            "clock": self.clocks.as_ref().map(|(w, b, running)| {
                json!({ "white_ms": w, "black_ms": b, "running": running })
            }),
            "verdict": self.verdict,
            "record": self.record.as_ref().map(|p| p.display().to_string()),
            "final": self.final_board,
            "san": self.view.as_ref().map(notation).unwrap_or_default(),
            "sent": self.sent.iter().map(|(t, refused)| json!({ "text": t, "refused": refused }))
                .collect::<Vec<_>>(),
        })
    }

    /// The `gameFull` line that opens the game stream: lichess's fields (`white` and `black`
    /// player objects, filled in by the hub once the side is known, `initialFen`, `variant`,
    /// `speed`, `clock`, `rated`, `state`), then fogproof's (`players`, `umpire`, `options`).
    pub fn full_json(&self) -> Value {
        use crate::lichess;
        let speed = lichess::speed(self.clock.0, self.clock.1);
        json!({
            "type": "gameFull",
            "id": self.id,
            "createdAt": self.created_ms,
            "rated": false,
            "variant": lichess::variant_json(self.variant),
            "speed": speed,
            "perf": { "name": speed },
            "initialFen": lichess::initial_fen(self.variant),
            "white": null,
            "black": null,
            "clock": { "initial": self.clock.0, "increment": self.clock.1 },
            "players": self.players,
            "umpire": self.umpire,
            "options": self.options,
            "state": self.state_json(),
        })
    }
}

struct Game {
    snap: Snapshot,
    terms: AgreedTerms,
    /// The bytes of each action offered, by text.
    offered: Vec<(String, Vec<u8>)>,
    commands: mpsc::Sender<SeatCommand>,
    watch: watch::Sender<Value>,
    /// When the clocks were last fetched.
    clocks_at: Option<Instant>,
}

#[derive(Default)]
struct HubState {
    games: BTreeMap<String, Game>,
    /// Open challenges seen on the event stream, by id.
    challenges: BTreeMap<String, Value>,
    /// Challenge id → match id, from the terms events.
    started: BTreeMap<String, String>,
}

/// The hub between an agent's seats and whoever decides (module docs).
pub struct Hub {
    state: Mutex<HubState>,
    agent: OnceLock<Agent>,
    dir: PathBuf,
    events: broadcast::Sender<Value>,
    /// Bumped whenever a game is added or changes (for a UI waiting on any game).
    changed: watch::Sender<u64>,
    /// Display names this agent checked ([`Hub::vouch`]), by key: each signed by its key.
    names: Mutex<BTreeMap<String, SignedName>>,
}

/// The most display names a hub keeps ([`Hub::vouch`]); past it one is dropped for each new
/// one.
pub const MAX_KNOWN_NAMES: usize = 4096;

/// The fields of a server's JSON that hold a player object (`{"id": key, "name", ...}`): their
/// `name` is shown only where the key signed it.
const PLAYER_FIELDS: [&str; 5] = ["challenger", "destUser", "white", "black", "opponent"];

fn lock(m: &Mutex<HubState>) -> std::sync::MutexGuard<'_, HubState> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn hex(id: &protocol::MatchId) -> String {
    protocol::hex::encode(&id.0)
}

impl Hub {
    /// A hub saving final records under `dir`.
    pub fn new(dir: PathBuf) -> Arc<Hub> {
        Arc::new(Hub {
            state: Mutex::new(HubState::default()),
            agent: OnceLock::new(),
            dir,
            events: broadcast::channel(256).0,
            changed: watch::channel(0).0,
            names: Mutex::new(BTreeMap::new()),
        })
    }

    /// The decider factory for the agent: each new match is registered here and decided by
    /// the hub's callers.
    pub fn factory(self: &Arc<Self>) -> DeciderFactory {
        let hub = Arc::downgrade(self);
        Arc::new(move |agreed: &AgreedTerms| {
            let (tx, rx) = mpsc::channel(16);
            let (etx, mut erx) = mpsc::unbounded_channel();
            let id = hex(&agreed.match_id);
            if let Some(h) = hub.upgrade() {
                h.register(agreed, tx);
            }
            let hub = hub.clone();
            tokio::spawn(async move {
                let mut finished = false;
                while let Some(event) = erx.recv().await {
                    let Some(h) = hub.upgrade() else { return };
                    finished |= matches!(event, SeatEvent::Finished { .. });
                    h.on_seat_event(&id, event);
                }
                // The seat is gone: without its final record, it stopped on an error.
                if !finished && let Some(h) = hub.upgrade() {
                    h.with_game(&id, |g| {
                        g.snap.faults.push("the seat stopped before the record was final".into());
                        g.snap.status = Status::Stopped;
                        g.snap.ask = None;
                        h.publish(g);
                    });
                }
            });
            (Decider::Remote(rx), Some(etx))
        })
    }

    /// Connects the hub to its running agent (before the agent runs, so no event is missed).
    pub fn attach(self: &Arc<Self>, agent: Agent) {
        let mut rx = agent.subscribe();
        let _ = self.agent.set(agent);
        let hub = Arc::downgrade(self);
        tokio::spawn(async move {
            loop {
                match rx.recv().await {
                    Ok(e) => {
                        let Some(h) = hub.upgrade() else { break };
                        h.on_server_event(&e);
                    }
                    Err(broadcast::error::RecvError::Lagged(_)) => {}
                    Err(broadcast::error::RecvError::Closed) => break,
                }
            }
        });
    }

    fn agent(&self) -> Result<&Agent, LocalError> {
        self.agent.get().ok_or_else(|| LocalError::Conflict("the agent is not running".into()))
    }

    /// The signed-in key.
    pub fn key(&self) -> Option<String> {
        self.agent.get().map(|a| a.session().key.to_string())
    }

    fn names(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, SignedName>> {
        self.names.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The display name of `key` this agent checked, if any.
    pub fn name_of(&self, key: &str) -> Option<SignedName> {
        self.names().get(key).cloned()
    }

    /// A lichess player object of `key`, with the display name it signed where this agent
    /// checked one ([`crate::lichess::player_json`]).
    pub fn player_json(&self, key: Option<&str>) -> Value {
        let name = key.and_then(|k| self.name_of(k));
        crate::lichess::player_json(key, name.as_ref())
    }

    /// Checks a display name the server passed on as `v` (the JSON of a [`SignedName`]) for
    /// `key` (if the place it was found names one): kept and returned if its key signed it.
    fn check_name(&self, v: &Value, key: Option<&str>) -> Option<SignedName> {
        let n: SignedName = serde_json::from_value(v.clone()).ok()?;
        let k = n.key.to_string();
        if key.is_some_and(|key| key != k) {
            return None;
        }
        let known = self.names().get(&k).cloned();
        if known.as_ref() != Some(&n) {
            n.verify().ok()?;
            let mut names = self.names();
            match names.get(&k) {
                Some(old) if !n.replaces(old) => {}
                Some(_) => {
                    names.insert(k, n.clone());
                }
                None => {
                    if names.len() >= MAX_KNOWN_NAMES
                        && let Some(first) = names.keys().next().cloned()
                    {
                        names.remove(&first);
                    }
                    names.insert(k, n.clone());
                }
            }
        }
        Some(n)
    }

    /// The server's JSON `v` with only the display names their keys signed: every `names` map
    /// (key → signed name) keeps the entries whose signature verifies; every player object
    /// (`challenger`, `destUser`, `white`, ...) keeps its `name` and `signedName` only where
    /// `signedName` is its key's and verifies. The names that verify are kept for the games'
    /// player objects. A host can withhold a name, never make this agent show one the key did
    /// not sign.
    pub fn vouch(&self, mut v: Value) -> Value {
        self.vouch_in(&mut v, 0);
        v
    }

    fn vouch_in(&self, v: &mut Value, depth: usize) {
        if depth > 16 {
            return;
        }
        match v {
            Value::Array(a) => a.iter_mut().for_each(|x| self.vouch_in(x, depth + 1)),
            Value::Object(m) => {
                if let Some(Value::Object(names)) = m.get_mut("names") {
                    let keys: Vec<String> = names.keys().cloned().collect();
                    for k in keys {
                        let ok = names.get(&k).and_then(|n| self.check_name(n, Some(&k)));
                        if ok.is_none() {
                            names.remove(&k);
                        }
                    }
                }
                for field in PLAYER_FIELDS {
                    let Some(Value::Object(p)) = m.get_mut(field) else { continue };
                    // A lichess player object: its `id` is a key. (Other objects, such as a
                    // tournament's entrants named by the organiser's signed definition, are
                    // not the player's own word and are left as they are.)
                    let Some(id) = p.get("id").and_then(Value::as_str).map(str::to_owned) else {
                        continue;
                    };
                    if id.parse::<protocol::PublicKey>().is_err() {
                        continue;
                    }
                    let signed = p.get("signedName").and_then(|n| self.check_name(n, Some(&id)));
                    match signed {
                        Some(n) => {
                            p.insert("name".into(), json!(n.name));
                        }
                        None => {
                            p.remove("signedName");
                            p.remove("name");
                        }
                    }
                }
                for (k, x) in m.iter_mut() {
                    if k != "names" && k != "signedName" {
                        self.vouch_in(x, depth + 1);
                    }
                }
            }
            _ => {}
        }
    }

    fn register(&self, agreed: &AgreedTerms, commands: mpsc::Sender<SeatCommand>) {
        let t = &agreed.terms;
        let snap = Snapshot {
            id: hex(&agreed.match_id),
            variant: t.variant,
            players: [t.players[0].key.to_string(), t.players[1].key.to_string()],
            umpire: t.umpire.as_ref().map(|u| u.key.to_string()),
            clock: (t.time_control.initial_ms, t.time_control.increment_ms),
            options: t.options.clone(),
            view: None,
            ask: None,
            asked: 0,
            offered: Vec::new(),
            draw_offer: None,
            status: Status::Started,
            claim: None,
            refused: None,
            faults: Vec::new(),
            clocks: None,
            verdict: None,
            record: None,
            final_board: None,
            sent: Vec::new(),
            seq: 0,
            created_ms: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
        };
        let watch = watch::channel(Value::Null).0;
        let mut game = Game {
            snap,
            terms: agreed.clone(),
            offered: Vec::new(),
            commands,
            watch,
            clocks_at: None,
        };
        self.publish(&mut game);
        lock(&self.state).games.insert(game.snap.id.clone(), game);
        self.changed.send_modify(|n| *n += 1);
    }

    /// Updates a game's snapshot and tells its watchers.
    fn publish(&self, game: &mut Game) {
        game.snap.seq += 1;
        let mut state = game.snap.state_json();
        // Fill in which key is White and which Black from the seat's side.
        if let Some(side) = game.snap.view.as_ref().map(|v| v.side)
            && let Some(me) = self.key()
        {
            let other = game.snap.players.iter().find(|k| **k != me).cloned();
            let (w, b) = match side {
                Color::White => (Some(me), other),
                Color::Black => (other, Some(me)),
            };
            state["white"] = json!(w);
            state["black"] = json!(b);
        }
        // The display names of the players' keys, as their keys signed them (checked here).
        let names: serde_json::Map<String, Value> = game
            .snap
            .players
            .iter()
            .filter_map(|k| self.name_of(k).map(|n| (k.clone(), json!(n))))
            .collect();
        state["names"] = Value::Object(names);
        game.watch.send_replace(state);
        self.changed.send_modify(|n| *n += 1);
    }

    fn with_game<T>(&self, id: &str, f: impl FnOnce(&mut Game) -> T) -> Option<T> {
        let mut s = lock(&self.state);
        let game = s.games.get_mut(id)?;
        Some(f(game))
    }

    fn on_seat_event(self: &Arc<Self>, id: &str, event: SeatEvent) {
        let mut fetch_clocks = false;
        let mut finished = None;
        {
            let mut s = lock(&self.state);
            let Some(game) = s.games.get_mut(id) else { return };
            match event {
                SeatEvent::View { view, draw_offer } => {
                    // A Kriegspiel attempt the umpire refused comes back in `tried`: mark the
                    // latest sent attempt of that text refused (R-K2).
                    if let rules::seat::Knows::Kriegspiel(k) = &view.knows {
                        for m in &k.tried {
                            let t = m.uci(Variant::Kriegspiel.alphabet());
                            if let Some(e) = game.snap.sent.iter_mut().rev().find(|(s, _)| *s == t)
                            {
                                e.1 = true;
                            }
                        }
                    }
                    game.snap.view = Some(*view);
                    game.snap.draw_offer = draw_offer;
                }
                SeatEvent::Ask(ask) => {
                    // The seat tells each question once, so this is a new one.
                    if game.snap.status != Status::Started {
                        return;
                    }
                    game.offered = crate::view::offered(game.snap.variant, &ask);
                    game.snap.offered = game.offered.iter().map(|(t, _)| t.clone()).collect();
                    game.snap.ask = Some(ask);
                    game.snap.asked += 1;
                    fetch_clocks =
                        game.clocks_at.is_none_or(|t| t.elapsed() > Duration::from_secs(1));
                }
                SeatEvent::Refused(reason) => game.snap.refused = Some(reason),
                SeatEvent::Fault(fault) => game.snap.faults.push(fault),
                SeatEvent::Claimed(claim) => {
                    game.snap.claim = Some(claim);
                    game.snap.status = Status::Over;
                    game.snap.ask = None;
                    game.offered.clear();
                    game.snap.offered.clear();
                    fetch_clocks = true;
                }
                SeatEvent::Finished { record } => finished = Some(record),
                SeatEvent::Joined { .. } | SeatEvent::Entry(_) => return,
            }
            if fetch_clocks {
                game.clocks_at = Some(Instant::now());
            }
            self.publish(game);
        }
        if fetch_clocks {
            self.spawn_clocks(id);
        }
        if let Some(record) = finished {
            self.spawn_finish(id, record);
        }
    }

    /// Fetches the clocks from the server's public match information.
    fn spawn_clocks(self: &Arc<Self>, id: &str) {
        let (Some(agent), hub, id) =
            (self.agent.get().cloned(), Arc::downgrade(self), id.to_owned())
        else {
            return;
        };
        tokio::spawn(async move {
            let Ok(v) = agent.session().get(&format!("/api/match/{id}")).await else { return };
            let Some(h) = hub.upgrade() else { return };
            // The players' display names come with the match (each checked here).
            let v = h.vouch(v);
            let (Some(w), Some(b)) = (v["white_ms"].as_u64(), v["black_ms"].as_u64()) else {
                return;
            };
            let running = v["running"].as_str().map(str::to_owned);
            h.with_game(&id, |g| {
                g.snap.clocks = Some((w, b, running));
                h.publish(g);
            });
        });
    }

    /// Saves the final record and fetches the server's verdict on it.
    fn spawn_finish(self: &Arc<Self>, id: &str, record: Vec<u8>) {
        let path = self.dir.join(format!("{id}.rec"));
        let saved = std::fs::create_dir_all(&self.dir)
            .and_then(|()| std::fs::write(&path, &record))
            .map(|()| path);
        let (agent, hub, id) = (self.agent.get().cloned(), Arc::downgrade(self), id.to_owned());
        tokio::spawn(async move {
            let verdict = match agent {
                Some(a) => a.session().get(&format!("/api/match/{id}/verdict")).await.ok(),
                None => None,
            };
            let Some(h) = hub.upgrade() else { return };
            h.with_game(&id, |g| {
                match &saved {
                    Ok(p) => g.snap.record = Some(p.clone()),
                    Err(e) => g.snap.faults.push(format!("the record could not be saved: {e}")),
                }
                g.snap.final_board = final_json(&record);
                g.snap.verdict = verdict;
                g.snap.status = Status::Finished;
                g.snap.ask = None;
                h.publish(g);
            });
        });
    }

    fn on_server_event(&self, e: &Value) {
        // Names the keys did not sign are dropped before anything is kept or passed on.
        let e = &self.vouch(e.clone());
        let kind = e["type"].as_str().unwrap_or("");
        let forward = match kind {
            "challenge" => {
                let c = &e["challenge"];
                if let Some(id) = c["id"].as_str() {
                    let mut s = lock(&self.state);
                    if c["status"] == "open" {
                        s.challenges.insert(id.to_owned(), c.clone());
                    } else {
                        s.challenges.remove(id);
                    }
                }
                Some(json!({ "type": "challenge", "challenge": crate::lichess::challenge(c) }))
            }
            "challengeCanceled" | "challengeDeclined" => {
                if let Some(id) = e["challenge"]["id"].as_str() {
                    lock(&self.state).challenges.remove(id);
                }
                Some(e.clone())
            }
            "terms" => {
                if let (Some(id), Some(m)) = (e["id"].as_str(), e["matchId"].as_str()) {
                    let mut s = lock(&self.state);
                    s.challenges.remove(id);
                    s.started.insert(id.to_owned(), m.to_owned());
                }
                self.changed.send_modify(|n| *n += 1);
                None
            }
            "gameStart" => e["game"]["id"].as_str().map(|id| self.game_start(id)),
            "gameFinish" => Some(e.clone()),
            _ => None,
        };
        if let Some(f) = forward {
            let _ = self.events.send(f);
        }
    }

    fn game_start(&self, id: &str) -> Value {
        use crate::lichess;
        let me = self.key();
        let s = lock(&self.state);
        let g = s.games.get(id).map(|g| &g.snap);
        let opponent = g.and_then(|g| g.players.iter().find(|k| Some(*k) != me.as_ref()));
        let side = g.and_then(|g| g.view.as_ref()).map(|v| v.side);
        let status = g.map(|g| lichess::status_name(g.status, g.claim.as_ref()));
        json!({
            "type": "gameStart",
            "game": {
                "id": id,
                "gameId": id,
                "fullId": id,
                "variant": g.map(|g| lichess::variant_json(g.variant)),
                "speed": g.map(|g| lichess::speed(g.clock.0, g.clock.1)),
                "rated": false,
                "color": side,
                "opponent": self.player_json(opponent.map(String::as_str)),
                "isMyTurn": g.is_some_and(|g| g.ask.is_some()),
                "source": "friend",
                "compat": { "bot": true, "board": true },
                "status": { "name": status },
                "stage": g.map(|g| g.status.name()),
            }
        })
    }

    /// The ids of the matches the hub holds, with where they stand.
    pub fn games(&self) -> Vec<(String, Status)> {
        lock(&self.state).games.values().map(|g| (g.snap.id.clone(), g.snap.status)).collect()
    }

    /// The match a challenge became, once its terms were sent.
    pub fn match_of_challenge(&self, challenge: &str) -> Option<String> {
        lock(&self.state).started.get(challenge).cloned()
    }

    /// A match's snapshot.
    pub fn snapshot(&self, id: &str) -> Option<Snapshot> {
        lock(&self.state).games.get(id).map(|g| g.snap.clone())
    }

    /// A match's snapshot watcher: its `gameState` JSON, replaced at every change.
    pub fn watch(&self, id: &str) -> Option<watch::Receiver<Value>> {
        lock(&self.state).games.get(id).map(|g| g.watch.subscribe())
    }

    /// A counter bumped whenever any match is added or changes.
    pub fn changes(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }

    /// The local event stream: the current games and open challenges, then what happens.
    pub fn events(&self) -> (Vec<Value>, broadcast::Receiver<Value>) {
        let rx = self.events.subscribe();
        let (ids, challenges): (Vec<String>, Vec<Value>) = {
            let s = lock(&self.state);
            let ids = s
                .games
                .values()
                .filter(|g| !matches!(g.snap.status, Status::Finished | Status::Stopped))
                .map(|g| g.snap.id.clone());
            (ids.collect(), s.challenges.values().cloned().collect())
        };
        let mut first: Vec<Value> = ids.iter().map(|id| self.game_start(id)).collect();
        first.extend(
            challenges.into_iter().map(
                |c| json!({ "type": "challenge", "challenge": crate::lichess::challenge(&c) }),
            ),
        );
        (first, rx)
    }

    fn command(&self, id: &str, cmd: SeatCommand) -> Result<(), LocalError> {
        let tx = self
            .with_game(id, |g| g.commands.clone())
            .ok_or_else(|| LocalError::NotFound(format!("no game {id} here")))?;
        tx.try_send(cmd).map_err(|_| LocalError::Conflict("the seat is busy or gone".into()))
    }

    /// Takes the answer to the question outstanding, if it passes `check`.
    fn answer(
        &self,
        id: &str,
        label: String,
        check: impl FnOnce(&Game, &Ask) -> Result<Vec<u8>, LocalError>,
    ) -> Result<(), LocalError> {
        let (bytes, tx) = {
            let mut s = lock(&self.state);
            let g = s
                .games
                .get_mut(id)
                .ok_or_else(|| LocalError::NotFound(format!("no game {id} here")))?;
            if g.snap.status != Status::Started {
                return Err(LocalError::Conflict("the game is over".into()));
            }
            let ask = g
                .snap
                .ask
                .clone()
                .ok_or_else(|| LocalError::Conflict("nothing is asked of you now".into()))?;
            let bytes = check(g, &ask)?;
            g.snap.sent.push((label, false));
            // Answered: nothing is asked until the seat asks again.
            g.snap.ask = None;
            g.offered.clear();
            g.snap.offered.clear();
            g.snap.refused = None;
            self.publish(g);
            (bytes, g.commands.clone())
        };
        tx.try_send(SeatCommand::Decide(bytes))
            .map_err(|_| LocalError::Conflict("the seat is busy or gone".into()))
    }

    /// Whether the seat is about to ask its player a move: an open game (chess, Espionage)
    /// being played, the player's turn by the moves known, and no question yet.
    pub fn awaiting_ask(&self, id: &str) -> bool {
        let s = lock(&self.state);
        let Some(g) = s.games.get(id) else { return false };
        let Some(view) = &g.snap.view else { return false };
        let played = match &view.knows {
            rules::seat::Knows::Chess { moves } | rules::seat::Knows::Espionage { moves } => {
                moves.len()
            }
            _ => return false,
        };
        let to_move = if played % 2 == 0 { Color::White } else { Color::Black };
        g.snap.status == Status::Started && g.snap.ask.is_none() && view.side == to_move
    }

    /// Plays one of the actions offered, by its text (a move in UCI, a Kriegspiel attempt, a
    /// 6x6 move, `freeze-<square>` or `end-turn`).
    pub fn play(&self, id: &str, text: &str) -> Result<(), LocalError> {
        let text = text.trim();
        self.answer(id, text.to_owned(), |g, ask| {
            if !matches!(ask, Ask::Choose(_)) {
                return Err(LocalError::Conflict(format!(
                    "a {} is asked, not a move",
                    crate::view::ask_kind(g.snap.variant, ask)
                )));
            }
            let found = g.offered.iter().find(|(t, _)| t == text).map(|(_, b)| b.clone());
            found.ok_or_else(|| {
                LocalError::Bad(format!(
                    "'{text}' is not among the {} offered: {}",
                    if g.snap.variant == Variant::Kriegspiel { "attempts" } else { "moves" },
                    g.snap.offered.join(" ")
                ))
            })
        })
    }

    /// Answers a setup or tie-break question with JSON (module docs of [`setup_action`]).
    pub fn setup(&self, id: &str, body: &Value) -> Result<(), LocalError> {
        self.answer(id, body.to_string(), |g, ask| {
            let side = g
                .snap
                .view
                .as_ref()
                .map(|v| v.side)
                .ok_or_else(|| LocalError::Conflict("the side is not known yet".into()))?;
            let options =
                g.terms.terms.game_options().map_err(|e| LocalError::Bad(e.to_string()))?;
            setup_action(&options, side, ask, body).map_err(LocalError::Bad)
        })
    }

    /// Resigns.
    pub fn resign(&self, id: &str) -> Result<(), LocalError> {
        self.command(id, SeatCommand::Resign)
    }

    /// Offers or accepts a draw (`yes`); declining (`no`) sends nothing: an offer lapses with
    /// the next move (PROTOCOL.md 13.1).
    pub fn draw(&self, id: &str, yes: bool) -> Result<(), LocalError> {
        if !yes {
            return self
                .with_game(id, |_| ())
                .ok_or_else(|| LocalError::NotFound(format!("no game {id} here")));
        }
        self.command(id, SeatCommand::OfferDraw)
    }

    /// Makes a challenge to `target`: a key (`ed25519:…`), `open` (a seek) or `bot` (the
    /// server's house bot). `body` may carry `variant` (default `chess`), `clock_limit` (s,
    /// default 300), `clock_increment` (s, default 3), `options`, `color`, `rated`, `umpire`.
    pub async fn challenge(&self, target: &str, body: &Value) -> Result<Value, LocalError> {
        let agent = self.agent()?;
        let opponent = match target {
            "open" => None,
            "bot" => Some(
                agent
                    .session()
                    .info
                    .bot
                    .ok_or_else(|| LocalError::Bad("the server runs no house bot".into()))?
                    .to_string(),
            ),
            key => Some(
                key.parse::<protocol::PublicKey>()
                    .map_err(|e| LocalError::Bad(format!("opponent '{key}': {e}")))?
                    .to_string(),
            ),
        };
        // lichess's names too: `clock.limit`, `clock.increment`, variant `standard`.
        let get = |k: &str| {
            let lichess = match k {
                "clock_limit" => Some("clock.limit"),
                "clock_increment" => Some("clock.increment"),
                _ => None,
            };
            body.get(k)
                .filter(|v| !v.is_null())
                .or_else(|| lichess.and_then(|l| body.get(l)).filter(|v: &&Value| !v.is_null()))
        };
        let key = get("variant").and_then(Value::as_str).unwrap_or("chess");
        let variant = crate::lichess::parse_variant(key)
            .ok_or_else(|| LocalError::Bad(format!("unknown variant {key}")))?;
        let number = |k: &str, default: u64| -> Result<u64, LocalError> {
            match get(k) {
                None => Ok(default),
                Some(v) => {
                    v.as_u64().ok_or_else(|| LocalError::Bad(format!("{k}: a number of seconds")))
                }
            }
        };
        let mut request = json!({
            "variant": variant.id(),
            "clock_limit": number("clock_limit", 300)?,
            "clock_increment": number("clock_increment", 3)?,
            "rated": get("rated").and_then(Value::as_bool).unwrap_or(false),
            "opponent": opponent,
        });
        for k in ["options", "color", "umpire"] {
            if let Some(v) = get(k) {
                request[k] = v.clone();
            }
        }
        let c = agent.challenge(request).await?;
        if let Some(id) = c["id"].as_str() {
            lock(&self.state).challenges.insert(id.to_owned(), c.clone());
        }
        Ok(c)
    }

    /// Finds a challenge by id: seen on the stream, or among the server's lists.
    async fn find_challenge(&self, id: &str) -> Result<Value, LocalError> {
        if let Some(c) = lock(&self.state).challenges.get(id).cloned() {
            return Ok(c);
        }
        let session = self.agent()?.session();
        let mine = session.get("/api/challenge").await?;
        let lobby = session.get("/api/lobby").await?;
        let lists = [&mine["in"], &mine["out"], &lobby["seeks"]];
        lists
            .iter()
            .filter_map(|l| l.as_array())
            .flatten()
            .find(|c| c["id"] == id)
            .cloned()
            .ok_or_else(|| LocalError::NotFound(format!("no open challenge {id}")))
    }

    /// Accepts a challenge (addressed to this key, or an open seek).
    pub async fn accept(&self, id: &str) -> Result<Value, LocalError> {
        let c = self.find_challenge(id).await?;
        self.agent()?.accept(&c).await?;
        Ok(c)
    }

    /// Declines (`decline`) or cancels (`cancel`) a challenge.
    pub async fn close(&self, id: &str, how: &str) -> Result<(), LocalError> {
        self.agent()?.session().post(&format!("/api/challenge/{id}/{how}"), &json!({})).await?;
        lock(&self.state).challenges.remove(id);
        Ok(())
    }
}

fn square_field(body: &Value, field: &str, size: rules::BoardSize) -> Result<Square, String> {
    let text = body[field].as_str().ok_or_else(|| format!("'{field}': a square name"))?;
    Square::parse(text, size).ok_or_else(|| format!("'{field}': '{text}' is not a square"))
}

/// The action answering a free-form question, from JSON, checked by the rules:
/// - Intrigue setup (R-I1): `{"king": "e4", "informer": "d2", "queen_on_king_square": false}`;
/// - 6x6 setup (R-G1): `{"formation": "NBKQ1R", "false_squares": ["b5", "e6"]}` (files a to f,
///   `1` for the empty file; at most the number asked);
/// - 6x6 tie-break (R-G8): `{"formation": "RNBQ1K", "moves": ["b6d4", "0000"]}`, the guess of
///   the opponent's formation and of its turns in order (as many as it had at most).
pub fn setup_action(
    options: &GameOptions,
    side: Color,
    ask: &Ask,
    body: &Value,
) -> Result<Vec<u8>, String> {
    use rules::Game as _;
    use rules::secretchess6::{Action as SixAction, Formation, TurnMove};
    let formation = |field: &str| -> Result<Formation, String> {
        let text =
            body[field].as_str().ok_or_else(|| format!("'{field}': six files, like NBKQ1R"))?;
        Formation::parse(text).map_err(|e| format!("'{field}': {e}"))
    };
    let action = match (ask, options) {
        (Ask::IntrigueSetup, GameOptions::Intrigue) => {
            let setup = rules::intrigue::Setup {
                king: square_field(body, "king", rules::BoardSize::Eight)?,
                informer: square_field(body, "informer", rules::BoardSize::Eight)?,
                queen_on_king_square: match &body["queen_on_king_square"] {
                    Value::Null => false,
                    v => v.as_bool().ok_or("'queen_on_king_square': true or false")?,
                },
            };
            let a = rules::intrigue::Action::Setup(setup);
            rules::intrigue::State::new().apply(side, &a).map_err(|e| e.to_string())?;
            rules::AnyAction::Intrigue(a)
        }
        (Ask::Sc6Setup { max_false_squares }, GameOptions::SecretChess6(o)) => {
            let mut false_squares = rules::Bitboard::EMPTY;
            let list = match &body["false_squares"] {
                Value::Null => Vec::new(),
                Value::Array(v) => v.clone(),
                _ => return Err("'false_squares': a list of square names".into()),
            };
            for v in &list {
                let text = v.as_str().ok_or("'false_squares': a list of square names")?;
                let sq = Square::parse(text, rules::BoardSize::Six)
                    .ok_or_else(|| format!("'false_squares': '{text}' is not a 6x6 square"))?;
                if false_squares.contains(sq) {
                    return Err(format!("'false_squares': {sq} is given twice"));
                }
                false_squares.insert(sq);
            }
            if list.len() > *max_false_squares {
                return Err(format!("at most {max_false_squares} false squares"));
            }
            let a = SixAction::Setup { formation: formation("formation")?, false_squares };
            rules::secretchess6::State::new(*o).apply(side, &a).map_err(|e| e.to_string())?;
            rules::AnyAction::SecretChess6(a)
        }
        (Ask::Sc6TieBreak { opponent_turns }, GameOptions::SecretChess6(_)) => {
            let moves = match &body["moves"] {
                Value::Null => Vec::new(),
                Value::Array(v) => v
                    .iter()
                    .map(|m| {
                        let t = m.as_str().ok_or("'moves': a list of moves like b6d4 or 0000")?;
                        TurnMove::parse(t).map_err(|e| format!("'moves': {e}"))
                    })
                    .collect::<Result<Vec<_>, String>>()?,
                _ => return Err("'moves': a list of moves like b6d4 or 0000".into()),
            };
            if moves.len() > *opponent_turns as usize {
                return Err(format!(
                    "'moves': {} given, the opponent had {opponent_turns} turns",
                    moves.len()
                ));
            }
            rules::AnyAction::SecretChess6(SixAction::TieBreak {
                formation: formation("formation")?,
                moves,
            })
        }
        (Ask::Choose(_), _) => {
            return Err("a move is asked: POST /api/bot/game/{id}/move/{text}".into());
        }
        _ => return Err("this question does not take that answer".into()),
    };
    Ok(protocol::game::encode_action(&action))
}

// ------------------------------------------------------------------ HTTP

/// Whether a request may be served: from a loopback name, and not from a browser page (module
/// docs).
fn allowed(headers: &HeaderMap, any_host: bool) -> Result<(), String> {
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("");
    if let Some(origin) = headers.get(header::ORIGIN) {
        // The agent's own pages (same origin: `http://` + the Host they were served from) may
        // call it; any other page may not (cross-site request forgery). Browsers set Origin
        // themselves, so a page elsewhere cannot claim to be this one.
        let same = origin.to_str().ok().is_some_and(|o| o == format!("http://{host}"));
        if !same {
            return Err("requests from other web pages (another Origin) are refused".into());
        }
    }
    if any_host {
        return Ok(());
    }
    let name = match host.rsplit_once(':') {
        Some((n, port)) if port.bytes().all(|b| b.is_ascii_digit()) => n,
        _ => host,
    };
    let loopback = name == "localhost"
        || name == "[::1]"
        || name.parse::<std::net::Ipv4Addr>().is_ok_and(|ip| ip.is_loopback());
    if loopback { Ok(()) } else { Err(format!("host '{host}' is not a loopback name")) }
}

#[derive(Clone)]
struct Api {
    hub: Arc<Hub>,
    any_host: bool,
}

async fn guard(
    State(api): State<Api>,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    if let Err(why) = allowed(req.headers(), api.any_host) {
        return (StatusCode::FORBIDDEN, Json(json!({ "error": why }))).into_response();
    }
    next.run(req).await
}

/// The lichess-shaped local API over `hub` (module docs). `any_host`: serve requests whatever
/// their `Host` (only when listening beyond loopback on purpose).
pub fn router(hub: Arc<Hub>, any_host: bool) -> axum::Router {
    let api = Api { hub, any_host };
    axum::Router::new()
        .route("/api/account", get(account).post(set_name))
        .route("/api/stream/event", get(event_stream))
        .route("/api/bot/game/stream/{id}", get(game_stream))
        .route("/api/bot/game/{id}", get(game_state))
        .route("/api/bot/game/{id}/move/{text}", post(play))
        .route("/api/bot/game/{id}/setup", post(setup))
        .route("/api/bot/game/{id}/tiebreak", post(setup))
        .route("/api/bot/game/{id}/resign", post(resign))
        .route("/api/bot/game/{id}/draw/{answer}", post(draw))
        // lichess's Board API names, and abort (fogproof has none: a resignation).
        .route("/api/bot/game/{id}/abort", post(resign))
        .route("/api/board/game/stream/{id}", get(game_stream))
        .route("/api/board/game/{id}/move/{text}", post(play))
        .route("/api/board/game/{id}/resign", post(resign))
        .route("/api/board/game/{id}/abort", post(resign))
        .route("/api/board/game/{id}/draw/{answer}", post(draw))
        .route("/api/challenge/{target}", post(challenge))
        .route("/api/challenge/{id}/accept", post(accept))
        .route("/api/challenge/{id}/decline", post(decline))
        .route("/api/challenge/{id}/cancel", post(cancel))
        .route("/api/lobby", get(lobby))
        // The rest of what the lichess-bot bridge calls (bridge.rs).
        .route("/api/token/test", post(bridge::token_test))
        .route("/api/bot/account/upgrade", post(bridge::upgrade))
        .route("/api/account/playing", get(bridge::playing))
        .route("/api/bot/game/{id}/chat", post(bridge::chat))
        .route("/api/bot/online", get(bridge::online))
        .route("/game/export/{id}", get(bridge::export))
        .route("/api/tournament", get(tournaments))
        .route("/api/tournament/{id}", get(tournament))
        .route("/api/tournament/{id}/join", post(join_tournament))
        .route("/api/tournament/{id}/withdraw", post(withdraw_tournament))
        .route("/assets/{*path}", get(web_asset))
        .route("/api/{*rest}", axum::routing::any(api_not_found))
        .fallback(get(web_page))
        .layer(axum::middleware::from_fn_with_state(api.clone(), guard))
        .with_state(api)
}

/// Serves the local API on `listener` until `shutdown` completes.
pub async fn serve(
    listener: tokio::net::TcpListener,
    hub: Arc<Hub>,
    any_host: bool,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, router(hub, any_host)).with_graceful_shutdown(shutdown).await
}

type ApiResult = Result<Json<Value>, LocalError>;

/// A file of the agent's pages (`fogproof-web`), or 404.
async fn web_asset(Path(path): Path<String>) -> Response {
    match fogproof_web::asset(&path) {
        Some(a) => web_response(a),
        None => (StatusCode::NOT_FOUND, Json(json!({ "error": format!("no asset {path}") })))
            .into_response(),
    }
}

/// The content security policy of the agent's pages, as the host's (`server::web`): scripts,
/// styles, images and API calls from the agent only (`'unsafe-inline'` styles for the board's
/// piece positions, `data:` for its SVG backgrounds), and no framing by any site.
pub const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
                       img-src 'self' data: blob:; connect-src 'self'; object-src 'none'; \
                       base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

fn web_response(a: fogproof_web::Asset) -> Response {
    (
        [
            (header::CONTENT_TYPE, a.content_type),
            // The pages are the binary's: they change only with it.
            (header::CACHE_CONTROL, "no-cache"),
            // The page drives a key's games: no other site frames it, no file is read as
            // another type than it says, no script but its own runs.
            (header::CONTENT_SECURITY_POLICY, CSP),
            (header::X_FRAME_OPTIONS, "DENY"),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
            (header::REFERRER_POLICY, "same-origin"),
        ],
        a.bytes,
    )
        .into_response()
}

/// The agent's page at `/` and at every other path that is not the API (the page routes
/// itself: `/game/{id}`, ...).
async fn web_page() -> Response {
    web_response(fogproof_web::agent_page())
}

async fn api_not_found(uri: axum::http::Uri) -> Response {
    LocalError::NotFound(format!("no such call: {}", uri.path())).into_response()
}

/// The server's public lobby (open seeks and live games: players, variant, clock; nothing of a
/// hidden board), for the agent's lobby page.
async fn lobby(State(api): State<Api>) -> ApiResult {
    Ok(Json(api.hub.vouch(api.hub.agent()?.session().get("/api/lobby").await?)))
}

/// The most tournaments not yet over whose entrants `GET /api/tournament` reads (one request
/// to the server each).
pub const MAX_TOURNAMENTS_LISTED: usize = 20;

/// `GET /api/tournament`: the server's tournaments in lichess's groups (`created`: joining,
/// `started`: being played, `finished`), each with lichess's `fullName`, `nbPlayers`,
/// `variant`, `clock` and fogproof's `entrant` (this key is named by its definition), `joined`
/// (the server counts it in), `playing` (this agent brings its seat to its games), `system`,
/// `rounds`, `roundsStarted`, `standings` (the server's, for one not joining).
async fn tournaments(State(api): State<Api>) -> ApiResult {
    let agent = api.hub.agent()?;
    let session = agent.session();
    let me = session.key.to_string();
    let list = api.hub.vouch(session.get("/api/tournaments").await?);
    let mine = agent.tournaments();
    let (mut created, mut started, mut finished) = (Vec::new(), Vec::new(), Vec::new());
    let all = list["tournaments"].as_array().cloned().unwrap_or_default();
    for (i, t) in all.iter().enumerate() {
        let Some(id) = t["id"].as_str() else { continue };
        let mut item = tournament_item(t, &mine);
        if t["status"] != "finished" && i < MAX_TOURNAMENTS_LISTED {
            let full = api.hub.vouch(session.get(&format!("/api/tournament/{id}")).await?);
            let entrant =
                full["entrants"].as_array().and_then(|e| e.iter().find(|p| p["key"] == me));
            item["entrant"] = json!(entrant.is_some());
            item["joined"] = json!(entrant.is_some_and(|p| p["joined"] == true));
            item["standings"] = full["standings"].clone();
            item["names"] = full["names"].clone();
        }
        match t["status"].as_str() {
            Some("joining") => created.push(item),
            Some("playing") => started.push(item),
            _ => finished.push(item),
        }
    }
    Ok(Json(json!({ "created": created, "started": started, "finished": finished })))
}

fn tournament_item(t: &Value, mine: &std::collections::BTreeSet<String>) -> Value {
    let (initial_ms, increment_ms) = t["time_control"]
        .as_str()
        .and_then(|tc| tc.split_once('+'))
        .and_then(|(m, s)| Some((m.parse::<u64>().ok()? * 60_000, s.parse::<u64>().ok()? * 1000)))
        .unwrap_or((0, 0));
    let variant = t["variant"].as_str().and_then(crate::lichess::parse_variant);
    let id = t["id"].as_str().unwrap_or_default();
    json!({
        "id": id,
        "fullName": t["name"],
        "nbPlayers": t["players"],
        "variant": variant.map(crate::lichess::variant_json),
        "clock": { "limit": initial_ms / 1000, "increment": increment_ms / 1000 },
        "status": t["status"],
        "system": t["system"],
        "rounds": t["rounds"],
        "roundsStarted": t["rounds_started"],
        "organiser": t["organiser"],
        "entrant": null,
        "joined": null,
        "playing": mine.contains(id),
    })
}

/// `GET /api/tournament/{id}`: the server's view of a tournament (entrants, pairings,
/// standings; names checked), and `playing`.
async fn tournament(State(api): State<Api>, Path(id): Path<String>) -> ApiResult {
    check_tournament_id(&id)?;
    let agent = api.hub.agent()?;
    let mut v = api.hub.vouch(agent.session().get(&format!("/api/tournament/{id}")).await?);
    v["playing"] = json!(agent.tournaments().contains(&id.to_ascii_lowercase()));
    Ok(Json(v))
}

/// `POST /api/tournament/{id}/join` (lichess's route): joins on the server; from then on the
/// agent brings its seat to every game the tournament pairs it in, and each game is played
/// like any other (`gameStart` on the event stream).
async fn join_tournament(State(api): State<Api>, Path(id): Path<String>) -> ApiResult {
    check_tournament_id(&id)?;
    api.hub.agent()?.join_tournament(&id).await.map_err(agent_error)?;
    ok()
}

fn check_tournament_id(id: &str) -> Result<(), LocalError> {
    protocol::hex::decode_array::<32>(id).map(drop).ok_or_else(|| {
        LocalError::NotFound(format!(
            "tournament {:?}: no such tournament (ids are 64 hex digits)",
            id.chars().take(80).collect::<String>()
        ))
    })
}

/// An agent's error, the server's refusal passed on with its status.
fn agent_error(e: AgentError) -> LocalError {
    match e {
        AgentError::Net(n) => LocalError::Net(n),
        other => LocalError::Agent(other),
    }
}

/// `POST /api/tournament/{id}/withdraw` (lichess's route): absent from the rounds started
/// from now on; the agent brings no seat to its games any more.
async fn withdraw_tournament(State(api): State<Api>, Path(id): Path<String>) -> ApiResult {
    check_tournament_id(&id)?;
    api.hub.agent()?.withdraw_tournament(&id).await.map_err(agent_error)?;
    ok()
}

fn ok() -> ApiResult {
    Ok(Json(json!({ "ok": true })))
}

/// Reads an optional JSON body (empty is `{}`).
fn body_json(bytes: &[u8]) -> Result<Value, LocalError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(json!({}));
    }
    serde_json::from_slice(bytes).map_err(|e| LocalError::Bad(format!("the body is not JSON: {e}")))
}

async fn account(State(api): State<Api>) -> ApiResult {
    let agent = api.hub.agent()?;
    let s = agent.session();
    let key = s.key.to_string();
    let name = s.name().or_else(|| api.hub.name_of(&key));
    Ok(Json(json!({
        "id": key,
        // lichess's `username`: the display name this key signed, or the key.
        "username": name.as_ref().map_or(key.clone(), |n| n.name.clone()),
        // lichess-bot plays only as a BOT account; the local API is a program's.
        "title": "BOT",
        "name": name.as_ref().map(|n| n.name.clone()),
        "signedName": name,
        "fingerprint": s.key.fingerprint(),
        "server": s.base(),
        "bot": s.info.bot.map(|k| k.to_string()),
        "umpire": s.info.umpire.map(|k| k.to_string()),
    })))
}

/// `POST /api/account` `{"name": "..."}`: sets this key's display name: the agent normalises
/// it, signs it with the key and sends it to the server (a name outside the allowed set is a
/// 400 naming why, nothing sent).
async fn set_name(State(api): State<Api>, body: axum::body::Bytes) -> ApiResult {
    let body = body_json(&body)?;
    let text = body["name"].as_str().ok_or_else(|| LocalError::Bad("'name': a text".into()))?;
    let agent = api.hub.agent()?;
    let signed = agent.session().set_name(text).await.map_err(|e| match e {
        NetError::Name(why) => LocalError::Bad(why.to_string()),
        other => LocalError::Net(other),
    })?;
    api.hub.check_name(&json!(signed), None);
    Ok(Json(json!({ "ok": true, "name": signed.name, "signedName": signed })))
}

async fn event_stream(State(api): State<Api>) -> Response {
    let (first, rx) = api.hub.events();
    let first: std::collections::VecDeque<Value> = first.into();
    let stream = futures_util::stream::unfold((first, rx), |(mut first, mut rx)| async move {
        if let Some(v) = first.pop_front() {
            return Some((v, (first, rx)));
        }
        loop {
            match tokio::time::timeout(Duration::from_secs(7), rx.recv()).await {
                Ok(Ok(v)) => return Some((v, (first, rx))),
                Ok(Err(broadcast::error::RecvError::Lagged(_))) => {}
                Ok(Err(broadcast::error::RecvError::Closed)) => return None,
                // Quiet for 7 s: a keep-alive (an empty line).
                Err(_) => return Some((Value::Null, (first, rx))),
            }
        }
    });
    ndjson(stream)
}

/// NDJSON, one value per line, a `null` item becoming an empty keep-alive line (as lichess
/// sends after a quiet while).
fn ndjson(stream: impl futures_util::Stream<Item = Value> + Send + 'static) -> Response {
    use futures_util::StreamExt;
    let lines = stream.map(|v| {
        Ok::<_, std::convert::Infallible>(if v.is_null() {
            "\n".to_owned()
        } else {
            format!("{v}\n")
        })
    });
    ([(header::CONTENT_TYPE, "application/x-ndjson")], Body::from_stream(lines)).into_response()
}

/// How long the game stream waits for the seat to know its side before its `gameFull`.
const SIDE_WAIT: Duration = Duration::from_secs(10);

async fn game_stream(
    State(api): State<Api>,
    Path(id): Path<String>,
) -> Result<Response, LocalError> {
    let snap =
        api.hub.snapshot(&id).ok_or_else(|| LocalError::NotFound(format!("no game {id} here")))?;
    let mut rx =
        api.hub.watch(&id).ok_or_else(|| LocalError::NotFound(format!("no game {id} here")))?;
    // lichess's gameFull names White and Black: wait for the seat to know its side (drawn
    // colours are settled by the protocol's first messages), a few seconds at most.
    let side_known = |v: &Value| !v["side"].is_null() || v["stage"] != "started";
    let _ = tokio::time::timeout(SIDE_WAIT, rx.wait_for(side_known)).await;
    let mut full = snap.full_json();
    full["state"] = rx.borrow_and_update().clone();
    for colour in ["white", "black"] {
        full[colour] = api.hub.player_json(full["state"][colour].as_str());
    }
    let done = |v: &Value| v["stage"] == "finished" || v["stage"] == "stopped";
    let first_done = done(&full["state"]);
    let stream = futures_util::stream::unfold(
        (Some(full), rx, first_done),
        move |(first, mut rx, finished)| async move {
            if let Some(f) = first {
                return Some((f, (None, rx, finished)));
            }
            if finished {
                return None;
            }
            match tokio::time::timeout(Duration::from_secs(7), rx.changed()).await {
                Ok(Ok(())) => {
                    let v = rx.borrow_and_update().clone();
                    let end = done(&v);
                    Some((v, (None, rx, end)))
                }
                Ok(Err(_)) => None,
                Err(_) => Some((Value::Null, (None, rx, false))),
            }
        },
    );
    Ok(ndjson(stream))
}

async fn game_state(State(api): State<Api>, Path(id): Path<String>) -> ApiResult {
    let rx =
        api.hub.watch(&id).ok_or_else(|| LocalError::NotFound(format!("no game {id} here")))?;
    let v = rx.borrow().clone();
    Ok(Json(v))
}

/// How long a move posted on the mover's turn waits for the seat's question (a lichess
/// client moves as soon as `moves` shows its turn; the seat asks a moment after its view
/// changes).
const ASK_WAIT: Duration = Duration::from_secs(5);

async fn play(State(api): State<Api>, Path((id, text)): Path<(String, String)>) -> ApiResult {
    let deadline = Instant::now() + ASK_WAIT;
    while api.hub.awaiting_ask(&id) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    api.hub.play(&id, &text)?;
    ok()
}

async fn setup(
    State(api): State<Api>,
    Path(id): Path<String>,
    body: axum::body::Bytes,
) -> ApiResult {
    api.hub.setup(&id, &body_json(&body)?)?;
    ok()
}

async fn resign(State(api): State<Api>, Path(id): Path<String>) -> ApiResult {
    api.hub.resign(&id)?;
    ok()
}

async fn draw(State(api): State<Api>, Path((id, answer)): Path<(String, String)>) -> ApiResult {
    let yes = match answer.as_str() {
        "yes" | "true" | "accept" => true,
        "no" | "false" | "decline" => false,
        other => return Err(LocalError::Bad(format!("draw/{other}: expected yes or no"))),
    };
    api.hub.draw(&id, yes)?;
    ok()
}

async fn challenge(
    State(api): State<Api>,
    Path(target): Path<String>,
    body: axum::body::Bytes,
) -> ApiResult {
    let c = api.hub.challenge(&target, &body_json(&body)?).await?;
    Ok(Json(json!({ "challenge": c })))
}

async fn accept(State(api): State<Api>, Path(id): Path<String>) -> ApiResult {
    api.hub.accept(&id).await?;
    ok()
}

async fn decline(State(api): State<Api>, Path(id): Path<String>) -> ApiResult {
    api.hub.close(&id, "decline").await?;
    ok()
}

async fn cancel(State(api): State<Api>, Path(id): Path<String>) -> ApiResult {
    api.hub.close(&id, "cancel").await?;
    ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, v.parse().expect("header value"));
        }
        h
    }

    #[test]
    fn only_loopback_names_and_no_browser_pages_are_served() {
        assert!(allowed(&headers(&[("host", "127.0.0.1:8765")]), false).is_ok());
        assert!(allowed(&headers(&[("host", "localhost:8765")]), false).is_ok());
        assert!(allowed(&headers(&[("host", "[::1]:8765")]), false).is_ok());
        // DNS rebinding: a page on evil.example resolving to 127.0.0.1.
        assert!(allowed(&headers(&[("host", "evil.example:8765")]), false).is_err());
        assert!(allowed(&headers(&[("host", "10.0.0.5:8765")]), false).is_err());
        // Cross-site requests carry an Origin, even to a loopback host.
        let page = headers(&[("host", "127.0.0.1:8765"), ("origin", "https://evil.example")]);
        assert!(allowed(&page, false).is_err());
        assert!(allowed(&page, true).is_err(), "never another page, whatever the host");
        // The agent's own page, served from the same origin, may call it.
        let own = headers(&[("host", "127.0.0.1:8765"), ("origin", "http://127.0.0.1:8765")]);
        assert!(allowed(&own, false).is_ok());
        // Another port on loopback is another origin (another local web server's page).
        let other = headers(&[("host", "127.0.0.1:8765"), ("origin", "http://127.0.0.1:3000")]);
        assert!(allowed(&other, false).is_err());
        // DNS rebinding with a matching Origin is still refused by the Host check.
        let rebound =
            headers(&[("host", "evil.example:8765"), ("origin", "http://evil.example:8765")]);
        assert!(allowed(&rebound, false).is_err());
        assert!(allowed(&headers(&[("origin", "null")]), false).is_err());
        assert!(allowed(&headers(&[("host", "10.0.0.5:8765")]), true).is_ok());
    }

    #[test]
    fn setups_are_checked_by_the_rules_before_anything_is_signed() {
        let intrigue = GameOptions::Intrigue;
        let ok = json!({ "king": "e4", "informer": "d2", "queen_on_king_square": true });
        let bytes = setup_action(&intrigue, Color::White, &Ask::IntrigueSetup, &ok).expect("valid");
        let decoded = protocol::game::decode_action(Variant::Intrigue, &bytes).expect("decodes");
        assert!(matches!(
            decoded,
            rules::AnyAction::Intrigue(rules::intrigue::Action::Setup(s))
                if s.queen_on_king_square && s.informer.to_string() == "d2"
        ));
        // Black's informer must be one of its own pawns (rank 7).
        let bad = json!({ "king": "e4", "informer": "d2" });
        assert!(setup_action(&intrigue, Color::Black, &Ask::IntrigueSetup, &bad).is_err());
        assert!(setup_action(&intrigue, Color::White, &Ask::IntrigueSetup, &json!({})).is_err());

        let six = GameOptions::default_for(Variant::SecretChess6);
        let ask = Ask::Sc6Setup { max_false_squares: 2 };
        let good = json!({ "formation": "NBKQ1R", "false_squares": ["b5", "e6"] });
        assert!(setup_action(&six, Color::White, &ask, &good).is_ok());
        for bad in [
            json!({ "formation": "NBKQ1R", "false_squares": ["b5", "e6", "a4"] }),
            json!({ "formation": "NBKQ1R", "false_squares": ["b2"] }),
            json!({ "formation": "NBKQRR", "false_squares": [] }),
            json!({ "formation": "NBKQ1R", "false_squares": ["b5", "b5"] }),
        ] {
            assert!(setup_action(&six, Color::White, &ask, &bad).is_err(), "{bad}");
        }
        let tie = Ask::Sc6TieBreak { opponent_turns: 2 };
        let guess = json!({ "formation": "RNBQ1K", "moves": ["b6d4", "0000"] });
        assert!(setup_action(&six, Color::White, &tie, &guess).is_ok());
        let long = json!({ "formation": "RNBQ1K", "moves": ["b6d4", "0000", "0000"] });
        assert!(setup_action(&six, Color::White, &tie, &long).is_err());
        assert!(setup_action(&six, Color::White, &Ask::Choose(vec![]), &guess).is_err());
    }

    #[test]
    fn the_host_cannot_make_the_agent_show_a_name_the_key_did_not_sign() {
        use protocol::Identity;
        let hub = Hub::new(std::env::temp_dir());
        let alice = Identity::from_seed(&[21; 32]);
        let mallory = Identity::from_seed(&[22; 32]);
        let (a, m) = (alice.public().to_string(), mallory.public().to_string());
        let genuine = SignedName::sign(&alice, "Alice", 1_000).expect("signs");
        // The host changes the name under Alice's signature, or has Mallory sign "Alice" and
        // files it under Alice's key, or states a bare name.
        let changed = SignedName { name: "Alice the Great".into(), ..genuine.clone() };
        let by_mallory = SignedName::sign(&mallory, "Alice", 2_000).expect("signs");
        let event = json!({
            "type": "challenge",
            "challenge": {
                "id": "c1",
                "challenger": { "id": a, "name": "Alice the Great", "signedName": changed },
                "destUser": { "id": m, "name": "Alice", "signedName": by_mallory },
            },
            "names": { a.clone(): by_mallory, m.clone(): genuine },
        });
        let v = hub.vouch(event);
        let c = &v["challenge"];
        assert!(c["challenger"].get("name").is_none(), "{v}");
        assert!(c["challenger"].get("signedName").is_none(), "{v}");
        // Mallory's own statement, under Mallory's key, is Mallory's name: shown as such.
        assert_eq!(c["destUser"]["name"], "Alice", "{v}");
        assert_eq!(v["names"], json!({}), "statements filed under another key are dropped");
        assert!(hub.name_of(&a).is_none());
        assert_eq!(hub.player_json(Some(&a))["name"], json!(a), "the key, not a name");
        // Alice's own statement is shown, in the game's player objects too.
        let v = hub.vouch(json!({ "challenger": { "id": a, "name": "x", "signedName": genuine } }));
        assert_eq!(v["challenger"]["name"], "Alice");
        let p = hub.player_json(Some(&a));
        assert_eq!((p["name"].clone(), p["username"].clone()), (json!("Alice"), json!("Alice")));
        assert_eq!(p["fingerprint"], json!(alice.public().fingerprint()));
        // An older statement does not replace a newer one the agent has seen.
        let newer = SignedName::sign(&alice, "Alice B", 5_000).expect("signs");
        hub.vouch(json!({ "names": { a.clone(): newer } }));
        hub.vouch(json!({ "names": { a.clone(): genuine } }));
        assert_eq!(hub.name_of(&a).map(|n| n.name), Some("Alice B".into()));
        // A name without a statement, where a key's player object has one, is removed.
        let v = hub.vouch(json!({ "white": { "id": a, "name": "Magnus" } }));
        assert!(v["white"].get("name").is_none(), "{v}");
        // Objects that are not a key's player object (an organiser's entrant) are left alone.
        let v = hub.vouch(json!({ "white": { "index": 0, "name": "P1", "key": a } }));
        assert_eq!(v["white"]["name"], "P1");
    }

    #[tokio::test]
    async fn the_agent_pages_send_the_same_security_headers_as_the_hosts() {
        let page = web_page().await;
        let asset = web_asset(Path("agent.js".to_owned())).await;
        assert_eq!(asset.status(), StatusCode::OK);
        for r in [&page, &asset] {
            let h = r.headers();
            let csp = h.get(header::CONTENT_SECURITY_POLICY).expect("a CSP");
            assert!(csp.to_str().unwrap().contains("frame-ancestors 'none'"), "{csp:?}");
            assert!(csp.to_str().unwrap().contains("script-src 'self'"), "{csp:?}");
            assert_eq!(h.get(header::X_FRAME_OPTIONS).expect("X-Frame-Options"), "DENY");
            assert_eq!(h.get(header::X_CONTENT_TYPE_OPTIONS).expect("nosniff"), "nosniff");
        }
        assert!(
            page.headers()[header::CONTENT_TYPE].to_str().unwrap().starts_with("text/html"),
            "the page itself"
        );
    }
}

//! The [`Hub`] between an agent's seats and whoever decides: each match's seat events, view
//! and question, the challenges seen, and the display names vouched for; answers are checked
//! against what was offered and turned into [`SeatCommand`]s (module docs of `local`). Uses
//! [`super::error`], [`super::snapshot`] and [`super::setup`]; knows nothing of HTTP routes.

use super::error::LocalError;
use super::setup::setup_action;
use super::snapshot::{Snapshot, Status, final_json};
use super::types::{Compat, GameStartGame, LichessVariant, StatusName};
use crate::agent::{Agent, DeciderFactory};
use crate::seat::{Decider, SeatCommand, SeatEvent};
use protocol::challenge::{ChallengeRequest, ColorChoice};
use protocol::names::SignedName;
use protocol::roles::Ask;
use protocol::terms::AgreedTerms;
use rules::{AnyAction, Color, Variant};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};
use tokio::sync::{broadcast, mpsc, watch};

struct Game {
    snap: Snapshot,
    terms: AgreedTerms,
    /// Each action offered, by its text.
    offered: Vec<(String, AnyAction)>,
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

    pub(super) fn agent(&self) -> Result<&Agent, LocalError> {
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
    pub(super) fn check_name(&self, v: &Value, key: Option<&str>) -> Option<SignedName> {
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
            variant: t.variant(),
            players: [t.players[0].key.to_string(), t.players[1].key.to_string()],
            umpire: t.umpire.as_ref().map(|u| u.key.to_string()),
            clock: (t.time_control.initial_ms, t.time_control.increment_ms),
            options: t.game.to_map(),
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
        let mut state = game.snap.state();
        // Fill in which key is White and which Black from the seat's side.
        if let Some(side) = game.snap.view.as_ref().map(|v| v.side)
            && let Some(me) = self.key()
        {
            let other = game.snap.players.iter().find(|k| **k != me).cloned();
            (state.white, state.black) = match side {
                Color::White => (Some(me), other),
                Color::Black => (other, Some(me)),
            };
        }
        // The display names of the players' keys, as their keys signed them (checked here).
        state.names = game
            .snap
            .players
            .iter()
            .filter_map(|k| self.name_of(k).map(|n| (k.clone(), n)))
            .collect();
        game.watch.send_replace(serde_json::to_value(state).unwrap_or_default());
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
                    game.offered = crate::view::offered(&ask);
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

    pub(super) fn game_start(&self, id: &str) -> Value {
        use crate::lichess;
        let me = self.key();
        let s = lock(&self.state);
        let g = s.games.get(id).map(|g| &g.snap);
        let opponent = g.and_then(|g| g.players.iter().find(|k| Some(*k) != me.as_ref()));
        let side = g.and_then(|g| g.view.as_ref()).map(|v| v.side);
        let status = g.map(|g| lichess::status_name(g.status, g.claim.as_ref()));
        let game = GameStartGame {
            id: id.to_owned(),
            game_id: id.to_owned(),
            full_id: id.to_owned(),
            variant: g.map(|g| LichessVariant::of(g.variant)),
            speed: g.map(|g| lichess::speed(g.clock.0, g.clock.1)),
            rated: false,
            color: side,
            opponent: self.player_json(opponent.map(String::as_str)),
            is_my_turn: g.is_some_and(|g| g.ask.is_some()),
            source: "friend",
            compat: Compat { bot: true, board: true },
            status: StatusName { name: status },
            stage: g.map(|g| g.status),
        };
        json!({ "type": "gameStart", "game": game })
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
        check: impl FnOnce(&Game, &Ask) -> Result<AnyAction, LocalError>,
    ) -> Result<(), LocalError> {
        let (action, tx) = {
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
            let action = check(g, &ask)?;
            g.snap.sent.push((label, false));
            // Answered: nothing is asked until the seat asks again.
            g.snap.ask = None;
            g.offered.clear();
            g.snap.offered.clear();
            g.snap.refused = None;
            self.publish(g);
            (action, g.commands.clone())
        };
        tx.try_send(SeatCommand::Decide(action))
            .map_err(|_| LocalError::Conflict("the seat is busy or gone".into()))
    }

    /// Whether the seat is about to ask its player a move: an open game (chess, Espionage)
    /// being played, the player's turn by the moves known, and no question yet.
    pub fn awaiting_ask(&self, id: &str) -> bool {
        let s = lock(&self.state);
        let Some(g) = s.games.get(id) else { return false };
        let Some(view) = &g.snap.view else { return false };
        let Some(played) = view.knows.open_moves().map(<[_]>::len) else { return false };
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
            let found = g.offered.iter().find(|(t, _)| t == text).map(|(_, a)| a.clone());
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
            setup_action(&g.terms.terms.game, side, ask, body).map_err(LocalError::Bad)
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
                    .ok_or_else(|| LocalError::Bad("the server runs no house bot".into()))?,
            ),
            key => Some(
                key.parse::<protocol::PublicKey>()
                    .map_err(|e| LocalError::Bad(format!("opponent '{key}': {e}")))?,
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
        // The page's fields, each read once into its type (the page is an edge): the options
        // from their text form, the color and the umpire from their words.
        let options: BTreeMap<String, String> = match get("options").cloned() {
            None => BTreeMap::new(),
            Some(v) => {
                serde_json::from_value(v).map_err(|e| LocalError::Bad(format!("options: {e}")))?
            }
        };
        let game = rules::GameOptions::parse(variant, &options)
            .map_err(|e| LocalError::Bad(format!("options: {e}")))?;
        let color = match get("color").cloned() {
            None => ColorChoice::Random,
            Some(v) => {
                serde_json::from_value(v).map_err(|e| LocalError::Bad(format!("color: {e}")))?
            }
        };
        let umpire = match get("umpire").cloned() {
            None => None,
            Some(v) => Some(
                v.as_str()
                    .and_then(|k| k.parse::<protocol::PublicKey>().ok())
                    .ok_or_else(|| LocalError::Bad(format!("umpire {v}: not a key")))?,
            ),
        };
        let request = ChallengeRequest {
            rated: get("rated").and_then(Value::as_bool).unwrap_or(false),
            color,
            opponent,
            umpire,
            ..ChallengeRequest::new(
                game,
                number("clock_limit", 300)?,
                number("clock_increment", 3)?,
            )
        };
        let c = agent.challenge(&request).await?;
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

#[cfg(test)]
mod tests {
    use super::*;

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
}

//! What every part of the server shares: configuration, clock, store, committer, event
//! streams, the registry of live matches, the lobby and sign-in state, connection counts.

// `lock` is re-exported for the tests that reach into the state (`server::state::lock`).
pub use crate::admission::lock;
use crate::admission::{Admit, Busy};
use crate::auth::Auth;
use crate::clock::Clock;
use crate::commit::Committer;
use crate::config::Config;
use crate::error::AppError;
use crate::events::EventBus;
pub use crate::finished::FinishedMatch;
use crate::ledger::{LedgerHost, ServerLedger};
use crate::live::MatchHandle;
use crate::lobby::Lobby;
use crate::store::Store;
use protocol::{MatchId, PublicKey};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Called with every finished match (the server's ledger writer, tests).
pub type FinishHook = Arc<dyn Fn(FinishedMatch) + Send + Sync>;

/// The server's ledger, once it has one: at start (a single server), or once this node leads
/// (a cluster).
#[derive(Default)]
pub struct LedgerSlot(std::sync::OnceLock<Arc<crate::ledger::ServerLedger>>);

impl LedgerSlot {
    /// A slot holding `ledger`, if any.
    pub fn new(ledger: Option<Arc<crate::ledger::ServerLedger>>) -> LedgerSlot {
        let slot = std::sync::OnceLock::new();
        if let Some(l) = ledger {
            let _ = slot.set(l);
        }
        LedgerSlot(slot)
    }

    /// The ledger, if this server keeps it now.
    pub fn as_ref(&self) -> Option<&Arc<crate::ledger::ServerLedger>> {
        self.0.get()
    }

    /// Installs the ledger (once).
    pub fn set(&self, l: Arc<crate::ledger::ServerLedger>) {
        let _ = self.0.set(l);
    }
}

/// The server's shared state.
pub struct Shared {
    /// The configuration.
    pub config: Config,
    /// The clock.
    pub clock: Arc<dyn Clock>,
    /// Durable storage.
    pub store: Arc<dyn Store>,
    /// Group commit of entries.
    pub committer: Committer,
    /// Event streams.
    pub events: EventBus,
    /// Live matches.
    pub matches: Mutex<BTreeMap<MatchId, MatchHandle>>,
    /// Challenges and terms being signed.
    pub lobby: Mutex<Lobby>,
    /// Sign-in challenges and tokens.
    pub auth: Mutex<Auth>,
    /// Open connections in total and per key.
    pub connections: Connections,
    /// Called with every finished match.
    pub on_finish: Mutex<Vec<FinishHook>>,
    /// Set when the server shuts down: streams and sockets end.
    pub shutdown: tokio::sync::watch::Sender<bool>,
    /// Places for uploaded records being verified (`max_concurrent_verifications`).
    pub verifications: tokio::sync::Semaphore,
    /// Places for renderings of finished matches (`max_concurrent_renderings`).
    pub renderings: tokio::sync::Semaphore,
    /// Places for uploads waiting for or holding a verification place
    /// (`max_concurrent_verifications + max_queued_verifications`).
    pub uploads: tokio::sync::Semaphore,
    /// The ledger, if the server keeps one.
    /// (A cluster's is installed once this node leads it: `crate::leader`.)
    pub ledger: LedgerSlot,
    /// The tournament invitations this node's runner announced (the invitations and their
    /// seats are in the store).
    pub tournaments: Mutex<crate::tournament::Arranging>,
    /// The PostgreSQL store of a cluster node (`serve --cluster`), for its leases.
    pub cluster: std::sync::OnceLock<Arc<crate::store::postgres::PostgresStore>>,
    /// What each umpire key owes (terms, answers), for admission (`max_umpire_lag_ms`).
    pub umpires: crate::admission::UmpireBacklog,
    /// A cluster follower's forwards of the log's routes to the leader
    /// (`max_forwarded_requests`).
    pub forwards: crate::forwarding::Forwarder,
    next_conn: AtomicU64,
}

impl crate::auth::NameBook for Shared {
    fn auth(&self) -> &Mutex<Auth> {
        &self.auth
    }
    fn store(&self) -> &dyn Store {
        &*self.store
    }
    fn now_ms(&self) -> u64 {
        self.clock.now_ms()
    }
    fn max_name_bytes(&self) -> usize {
        self.config.limits.max_name_bytes
    }
}

impl LedgerHost for Shared {
    fn ledger_store(&self) -> &dyn Store {
        &*self.store
    }
    fn ledger_config(&self) -> &Config {
        &self.config
    }
    fn stop_signal(&self) -> tokio::sync::watch::Receiver<bool> {
        self.shutdown.subscribe()
    }
}

/// Whether `shared` has a ledger (404 otherwise).
pub fn ledger_of(shared: &Shared) -> Result<&Arc<ServerLedger>, AppError> {
    shared.ledger.as_ref().ok_or_else(|| {
        AppError::new(axum::http::StatusCode::NOT_FOUND, "this server keeps no ledger")
    })
}

impl Shared {
    /// The shared state of a server.
    pub fn new(config: Config, clock: Arc<dyn Clock>, store: Arc<dyn Store>) -> Shared {
        Shared::with_ledger(config, clock, store, None)
    }

    /// The shared state of a server with a ledger.
    pub fn with_ledger(
        config: Config,
        clock: Arc<dyn Clock>,
        store: Arc<dyn Store>,
        ledger: Option<Arc<ServerLedger>>,
    ) -> Shared {
        let committer = Committer::start(store.clone());
        let verifications =
            tokio::sync::Semaphore::new(config.limits.max_concurrent_verifications.max(1));
        let renderings = tokio::sync::Semaphore::new(config.limits.max_concurrent_renderings);
        let uploads = tokio::sync::Semaphore::new(
            config.limits.max_concurrent_verifications.max(1)
                + config.limits.max_queued_verifications,
        );
        let forwards = crate::forwarding::Forwarder::new(
            config.limits.max_forwarded_requests.max(1),
            &config.relay,
        );
        Shared {
            config,
            clock,
            store,
            committer,
            events: EventBus::default(),
            matches: Mutex::new(BTreeMap::new()),
            lobby: Mutex::new(Lobby::default()),
            auth: Mutex::new(Auth::default()),
            connections: Connections::default(),
            on_finish: Mutex::new(Vec::new()),
            shutdown: tokio::sync::watch::Sender::new(false),
            verifications,
            renderings,
            uploads,
            ledger: LedgerSlot::new(ledger),
            tournaments: Mutex::new(crate::tournament::Arranging::default()),
            cluster: std::sync::OnceLock::new(),
            umpires: crate::admission::UmpireBacklog::default(),
            forwards,
            next_conn: AtomicU64::new(1),
        }
    }

    /// A receiver that sees `true` once the server shuts down.
    pub fn shutdown_signal(&self) -> tokio::sync::watch::Receiver<bool> {
        self.shutdown.subscribe()
    }

    /// A fresh connection number.
    pub fn next_conn(&self) -> u64 {
        self.next_conn.fetch_add(1, Ordering::Relaxed)
    }

    /// The live match, if any.
    pub fn live(&self, id: &MatchId) -> Option<MatchHandle> {
        lock(&self.matches).get(id).cloned()
    }

    /// Live matches in which `key` is a party.
    pub fn live_of(&self, key: &PublicKey) -> Vec<MatchHandle> {
        lock(&self.matches).values().filter(|h| h.parties.contains(key)).cloned().collect()
    }

    /// Matches live and terms being signed, over all keys (what `max_live_matches` bounds).
    pub fn live_and_pending(&self) -> usize {
        let live = lock(&self.matches).len();
        live + lock(&self.lobby).pending.len()
    }

    /// Whether the host admits new work of `kind` now (docs/SERVER.md, limits: admission):
    /// `Err` names the limit that is reached. A match already playing is never refused; what
    /// is refused is new work that would make the host fall behind on it.
    pub fn admit(&self, kind: Admit) -> Result<(), Busy> {
        let l = &self.config.limits;
        let queued = self.committer.queued();
        if queued >= l.max_pending_commits {
            return Err(Busy::new(
                format!(
                    "the host is behind on storage ({queued} entry batches queued, \
                     max_pending_commits): try again later"
                ),
                l.retry_after_s,
            ));
        }
        if kind == Admit::Match {
            let n = self.live_and_pending();
            if n >= l.max_live_matches {
                return Err(Busy::new(
                    format!("the host holds {n} matches (max_live_matches): try again later"),
                    l.retry_after_s,
                ));
            }
        }
        Ok(())
    }

    pub(crate) fn remove_match(&self, id: &MatchId) {
        lock(&self.matches).remove(id);
    }

    pub(crate) fn finished(&self, m: FinishedMatch) {
        let hooks: Vec<FinishHook> = lock(&self.on_finish).clone();
        for hook in hooks {
            hook(m.clone());
        }
    }
}

/// Counts of open connections, with the per-key and total limits.
#[derive(Debug, Default)]
pub struct Connections {
    total: AtomicUsize,
    by_key: Mutex<BTreeMap<PublicKey, usize>>,
}

impl Connections {
    /// Connections (sockets and event streams) open now, in total.
    pub fn total(&self) -> usize {
        self.total.load(Ordering::Relaxed)
    }

    /// Connections (sockets and event streams) of `key` open now.
    pub fn of(&self, key: &PublicKey) -> usize {
        lock(&self.by_key).get(key).copied().unwrap_or(0)
    }
}

/// One counted connection; dropping it frees its place.
#[derive(Debug)]
pub struct ConnectionSlot {
    shared: Arc<Shared>,
    key: Option<PublicKey>,
}

impl Drop for ConnectionSlot {
    fn drop(&mut self) {
        let c = &self.shared.connections;
        c.total.fetch_sub(1, Ordering::Relaxed);
        if let Some(k) = self.key {
            let mut by_key = lock(&c.by_key);
            if let Some(n) = by_key.get_mut(&k) {
                *n -= 1;
                if *n == 0 {
                    by_key.remove(&k);
                }
            }
        }
        metrics::gauge!(crate::metrics::CONNECTIONS).decrement(1.0);
    }
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared").field("relay", &self.config.relay.public()).finish_non_exhaustive()
    }
}

/// Takes a connection place for `key`, or says which limit is reached. The server's own umpire
/// service (`Config::default_umpire`) counts towards `max_connections` only: it is a party of
/// every umpired match, so it holds one socket per live match, which the total and the
/// players' own limits already bound (docs/SERVER.md, limits).
pub fn connect(shared: &Arc<Shared>, key: Option<PublicKey>) -> Result<ConnectionSlot, String> {
    let limits = shared.config.limits;
    let key = key.filter(|k| !shared.config.is_umpire_service(k));
    let c = &shared.connections;
    if c.total.fetch_add(1, Ordering::Relaxed) >= limits.max_connections {
        c.total.fetch_sub(1, Ordering::Relaxed);
        return Err(format!(
            "the server holds {} connections (max_connections)",
            limits.max_connections
        ));
    }
    if let Some(k) = key {
        let mut by_key = lock(&c.by_key);
        let n = by_key.entry(k).or_insert(0);
        if *n >= limits.max_connections_per_key {
            drop(by_key);
            c.total.fetch_sub(1, Ordering::Relaxed);
            return Err(format!(
                "{k} has {} connections open (max_connections_per_key)",
                limits.max_connections_per_key
            ));
        }
        *n += 1;
    }
    metrics::gauge!(crate::metrics::CONNECTIONS).increment(1.0);
    Ok(ConnectionSlot { shared: shared.clone(), key })
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::Identity;

    #[tokio::test]
    async fn the_umpire_service_is_bound_by_the_total_connections_only() {
        let dir = std::env::temp_dir().join(format!("fogproof-state-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut config = Config::new(dir.clone(), Identity::from_seed(&[1; 32]));
        let umpire = Identity::from_seed(&[2; 32]).public();
        let player = Identity::from_seed(&[3; 32]).public();
        config.default_umpire = Some(umpire);
        config.limits.max_connections_per_key = 2;
        config.limits.max_connections = 5;
        let store = crate::store::sqlite::SqliteStore::open(&dir).await.expect("store");
        let clock = Arc::new(crate::clock::TokioClock::system());
        let shared = Arc::new(Shared::new(config, clock, Arc::new(store)));
        let mine: Vec<_> =
            (0..2).map(|_| connect(&shared, Some(player)).expect("a place")).collect();
        let refused = connect(&shared, Some(player)).expect_err("a third for one key");
        assert!(refused.contains("max_connections_per_key"), "{refused}");
        // The umpire service holds one socket per match: past the per-key limit...
        let umpire_slots: Vec<_> =
            (0..3).map(|_| connect(&shared, Some(umpire)).expect("a place")).collect();
        // ...but not past the total.
        let refused = connect(&shared, Some(umpire)).expect_err("a sixth connection");
        assert!(refused.contains("(max_connections)"), "{refused}");
        drop(umpire_slots);
        let again = connect(&shared, Some(umpire)).expect("places freed");
        drop((mine, again));
        assert_eq!(shared.connections.total.load(Ordering::Relaxed), 0);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

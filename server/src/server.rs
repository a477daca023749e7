//! Starting and stopping a server: lock the data directory (and the ledger's), open the store,
//! rebuild the live matches from their stored entries, restore the lobby, reconcile the store
//! with the log, serve through the connection layer (`crate::conn`), and on shutdown stop
//! accepting, give the open connections `shutdown_grace_ms`, close every socket and stream,
//! and stop every match task (everything promised is already stored).

use crate::admission::lock;
use crate::clock::Clock;
use crate::config::Config;
use crate::live::Command;
use crate::services::live::MatchTask;
use crate::state::{FinishHook, Shared};
use crate::store::Store;
use crate::store::postgres::PostgresStore;
use crate::store::sqlite::SqliteStore;
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

/// Why a server could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The store could not be opened or read.
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
    /// The listener has no address.
    #[error("listener: {0}")]
    Listener(std::io::Error),
    /// The ledger could not be opened.
    #[error(transparent)]
    Ledger(#[from] crate::ledger::LedgerStartError),
    /// The umpire or the house bot has the relay's key.
    #[error("the relay's key must not be the {0}'s: give each role its own key")]
    SharedKey(&'static str),
    /// Another server owns the data directory or the ledger's (or it cannot be locked).
    #[error(transparent)]
    Locked(#[from] crate::dirlock::LockError),
    /// The store and the log could not be reconciled.
    #[error("reconciling the store with the ledger: {0}")]
    Reconcile(String),
}

/// A running server.
#[derive(Debug)]
pub struct Running {
    /// Where it listens.
    pub addr: SocketAddr,
    /// Its shared state (for tests and the ledger writer).
    pub shared: Arc<Shared>,
    /// Matches rebuilt from storage at start, and those that could not be.
    pub resumed: (usize, Vec<String>),
    /// Matches the store marked appended that the log lacked at start (appended again).
    pub reconciled: usize,
    /// The connection layer: its caps in force and its counts.
    pub tcp: Arc<crate::conn::Gate>,
    task: JoinHandle<std::io::Result<()>>,
    /// The data directory's lock (and the ledger's), held until the server has stopped.
    locks: Vec<crate::dirlock::DirLock>,
}

impl Running {
    /// Registers a hook called with every finished match.
    pub fn on_finish(&self, hook: FinishHook) {
        lock(&self.shared.on_finish).push(hook);
    }

    /// Stops: no new connections, the open ones given `shutdown_grace_ms` then closed, every
    /// socket and stream closed, every match task stopped; then the directories are unlocked.
    pub async fn shutdown(self) -> std::io::Result<()> {
        let _locks = self.locks;
        let _ = self.shared.shutdown.send(true);
        let result = match self.task.await {
            Ok(r) => r,
            Err(e) => Err(std::io::Error::other(e)),
        };
        let handles: Vec<_> = lock(&self.shared.matches).values().cloned().collect();
        for h in handles {
            let _ = h.tx.send(Command::Stop).await;
        }
        // Wait until every match task has left the registry.
        while !lock(&self.shared.matches).is_empty() {
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
        result
    }

    /// Runs until the server is told to stop (its task ends).
    pub async fn wait(self) -> std::io::Result<()> {
        let shutdown = self.shared.shutdown.subscribe();
        let mut s = shutdown;
        let _ = s.wait_for(|v| *v).await;
        self.shutdown().await
    }
}

/// Starts a server on `listener` with the SQLite store under `config.data_dir` (or the
/// PostgreSQL store of `config.database`).
pub async fn start(
    mut config: Config,
    listener: TcpListener,
    clock: Arc<dyn Clock>,
) -> Result<Running, StartError> {
    let relay = config.relay.public();
    // Sign-ins name the origin they were made at: the operator's public URLs, and always the
    // listening address's own (its loopback agents, the umpire service and the house bot).
    let listening = listener.local_addr().map_err(StartError::Listener)?;
    config.public_origins.extend(crate::config::default_origins(listening));
    // A cluster node's own URL, where a redirect sends players (they sign in there afresh).
    if let Some(url) = config.cluster.as_ref().and_then(|c| c.node_url.as_deref()) {
        config.public_origins.extend(protocol::wire::origin(url));
    }
    config.public_origins.sort();
    config.public_origins.dedup();
    if config.default_umpire == Some(relay) {
        return Err(StartError::SharedKey("umpire"));
    }
    if config.house_bot == Some(relay) {
        return Err(StartError::SharedKey("house bot"));
    }
    let mut locks = vec![crate::dirlock::lock_dir(&config.data_dir)?];
    // A cluster's ledger is opened (and its directory locked) by the node elected to lead it
    // (`crate::leader`), not at start.
    let elected = config.cluster.is_some() && config.database.is_some();
    if let Some(l) = config.ledger.as_ref().filter(|_| !elected) {
        locks.push(crate::dirlock::lock_dir(&l.dir)?);
    }
    // The data directory stays locked with PostgreSQL too: it holds the promises and the
    // server's files; the database has its own one-owner rule (`store::postgres`).
    let mut node = None;
    let store: Arc<dyn Store> = match (&config.database, &config.cluster) {
        (Some(url), Some(c)) => {
            let own = format!("http://{listening}");
            let url =
                PostgresStore::open_node(url, c.node_url.as_deref().unwrap_or(&own), c.lease_ms);
            let pg = Arc::new(url.await?);
            node = Some(pg.clone());
            pg
        }
        (Some(url), None) => Arc::new(PostgresStore::open(url).await?),
        (None, _) => Arc::new(SqliteStore::open(&config.data_dir).await?),
    };
    let ledger = match config.ledger.as_ref().filter(|_| !elected) {
        Some(l) => {
            let ledger = crate::ledger::ServerLedger::open(l).await?;
            ledger.set_clock(clock.clone());
            Some(Arc::new(ledger))
        }
        None => None,
    };
    let ledger_settings = config.ledger.clone().filter(|_| !elected);
    let candidate = config.ledger.clone().filter(|_| elected);
    let shared = Arc::new(Shared::with_ledger(config, clock, store, ledger));
    // Sign-in tokens are signed by the host's relay key: every node honours them.
    lock(&shared.auth).set_issuer(shared.config.relay.clone());
    let metrics = crate::metrics::install();
    metrics::gauge!(crate::metrics::RUNTIME_WORKERS)
        .set(tokio::runtime::Handle::current().metrics().num_workers() as f64);
    crate::services::lobby::restore(&shared)
        .await
        .map_err(|e| crate::store::StoreError::Database(e.to_string()))?;
    // A cluster node resumes no match at start: it takes the expired leases (a dead node's,
    // its own last run's) in its lease rounds, as any other node may.
    let resumed = match node {
        Some(pg) => {
            let _ = shared.cluster.set(pg.clone());
            crate::cluster::events(&shared, &pg);
            crate::cluster::round(&shared, &pg).await;
            if let Some(settings) = candidate {
                lock(&shared.on_finish).push(Arc::new(|m| crate::ledger::count_finished(&m)));
                tokio::spawn(crate::leader::run(shared.clone(), pg.clone(), settings));
            }
            tokio::spawn(crate::cluster::run(shared.clone(), pg));
            (lock(&shared.matches).len(), Vec::new())
        }
        None => resume(&shared).await?,
    };
    let mut reconciled = 0;
    if let Some(l) = shared.ledger.as_ref() {
        reconciled = crate::ledger::reconcile(&shared, l).await.map_err(StartError::Reconcile)?;
    }
    if let (Some(l), Some(settings)) = (shared.ledger.as_ref().cloned(), ledger_settings) {
        let kept = l.clone();
        lock(&shared.on_finish).push(Arc::new(move |m| {
            crate::ledger::count_finished(&m);
            kept.keep_verification(&m);
        }));
        crate::promise::install(&shared);
        tokio::spawn(crate::ledger::appender(
            shared.clone(),
            l,
            settings.append_interval_ms,
            settings.max_batch_matches,
            || true,
        ));
        tokio::spawn(crate::services::tournament::runner(shared.clone()));
    }
    {
        let shared = shared.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(std::time::Duration::from_secs(1));
            let mut stop = shared.shutdown_signal();
            loop {
                tokio::select! {
                    _ = tick.tick() => { crate::services::lobby::sweep(&shared).await; }
                    _ = stop.changed() => break,
                }
            }
        });
    }
    let addr = listener.local_addr().map_err(StartError::Listener)?;
    let app = crate::http::router(shared.clone(), metrics);
    let tcp = Arc::new(
        crate::conn::Gate::new(crate::conn::Settings::new(
            &shared.config.limits,
            shared.config.trust_forwarded_for,
        ))
        .with_tls(shared.config.tls.clone()),
    );
    let task =
        tokio::spawn(crate::conn::serve(listener, app, tcp.clone(), shared.shutdown_signal()));
    tracing::info!(
        %addr,
        relay = %relay,
        matches = resumed.0,
        max_tcp_connections = tcp.settings.max_tcp_connections,
        "serving"
    );
    Ok(Running { addr, shared, resumed, reconciled, tcp, task, locks })
}

/// Rebuilds every live match from its stored entries.
async fn resume(shared: &Arc<Shared>) -> Result<(usize, Vec<String>), StartError> {
    let mut ok = 0;
    let mut failed = Vec::new();
    for row in shared.store.live_matches().await? {
        let id = row.id;
        let entries = shared.store.entries(&id).await?;
        match MatchTask::resume(shared.clone(), shared.config.relay.clone(), row, &entries) {
            Ok((task, handle)) => {
                lock(&shared.matches).insert(id, handle);
                tokio::spawn(task.run());
                ok += 1;
            }
            Err(e) => {
                let id = crate::store::sqlite::id_text(&id);
                tracing::error!(match_id = %id, error = %e, "could not resume");
                failed.push(format!("{id}: {e}"));
            }
        }
    }
    Ok((ok, failed))
}

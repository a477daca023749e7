//! The ledger appender as one leader elected among a cluster's nodes (`fogproof serve
//! --cluster --ledger DIR` on every node, docs/SERVER.md, several nodes).
//!
//! **Election: a lease row in PostgreSQL** (`leaders (role, node, epoch, expires_at)`,
//! [`crate::store::lease::Leases::lead`]), the match leases' pattern: the leader renews it every
//! fifth of the lease in one statement; another node takes it only once it has expired on the
//! database's clock, raising the epoch; the leader appends only before its own monotonic
//! deadline (the start of its last successful renewal, plus the lease, less a fifth), so a
//! leader cut off from the database stops appending before anyone can take over.
//!
//! **The log's files** live in one directory every node mounts (`--ledger DIR`, a shared
//! volume), with one signing key (`ledger.key`, copied like `relay.key`). Only the leader
//! opens it, and it locks it first ([`crate::dirlock`]: a second writer is refused while the
//! first process lives, whatever the leases say), so a new leader whose predecessor is still
//! alive waits for its lock. On taking the lead a node reconciles the store with the log (the
//! "store agrees with the log at start" path: a match the store marks appended and the log
//! lacks, a predecessor dying between its two writes, is appended again), then appends as a
//! single server does. **A leader that finds its lease taken stops its process** (it was cut
//! off from the database for a whole lease, so its match leases are gone too): its supervisor
//! restarts it as a follower, and its lock on the directory goes with the process.

use crate::ledger::ServerLedger;
use crate::state::Shared;
use crate::store::postgres::PostgresStore;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// The role the ledger appender's lease is taken under.
pub const LEDGER_ROLE: &str = "ledger";

/// The exit status of a node that lost the ledger's leadership to another node.
pub const DEPOSED_EXIT: i32 = 75;

/// Whether this node leads now (its local deadline not passed).
#[derive(Debug, Default)]
pub struct Leadership(Mutex<Option<Instant>>);

impl Leadership {
    /// Whether this node may append now.
    pub fn leads(&self) -> bool {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .is_some_and(|d| Instant::now() < d)
    }

    fn until(&self, deadline: Option<Instant>) {
        *self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = deadline;
    }
}

/// Runs the ledger's election on a cluster node until the server shuts down: renews or takes
/// the lead every fifth of the lease; on taking it, opens the ledger and starts appending.
pub async fn run(shared: Arc<Shared>, store: Arc<PostgresStore>, settings: crate::LedgerConfig) {
    let Some(leases) = store.leases() else { return };
    let leadership = Arc::new(Leadership::default());
    let mut tick = tokio::time::interval(leases.renew_every());
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut stop = shared.shutdown_signal();
    let mut opened: Option<crate::dirlock::DirLock> = None;
    let mut epoch = None;
    loop {
        tokio::select! {
            _ = tick.tick() => {}
            _ = stop.changed() => return,
        }
        match leases.lead(store.pool(), LEDGER_ROLE).await {
            Ok(Some((e, deadline))) => {
                leadership.until(Some(deadline));
                if epoch != Some(e) {
                    tracing::info!(epoch = e, "this node leads the ledger");
                    epoch = Some(e);
                }
            }
            Ok(None) => {
                leadership.until(None);
                if opened.is_some() {
                    tracing::error!(
                        "another node took the ledger's lease: this node stops (exit {DEPOSED_EXIT}); \
                         restart it to serve as a follower"
                    );
                    std::process::exit(DEPOSED_EXIT);
                }
                continue;
            }
            Err(e) => {
                tracing::warn!(error = %e, "renewing the ledger's lease failed");
                continue;
            }
        }
        if opened.is_none() {
            match open(&shared, &settings, &leadership).await {
                Ok(lock) => opened = Some(lock),
                Err(e) => tracing::warn!(error = %e, "leading the ledger: not open yet"),
            }
        }
    }
}

/// Locks and opens the shared ledger directory, reconciles the store with it and starts the
/// appender (which appends only while this node leads).
async fn open(
    shared: &Arc<Shared>,
    settings: &crate::LedgerConfig,
    leadership: &Arc<Leadership>,
) -> Result<crate::dirlock::DirLock, String> {
    // The previous leader's process, while it lives, holds the lock.
    let lock = crate::dirlock::lock_dir(&settings.dir).map_err(|e| e.to_string())?;
    let ledger = ServerLedger::open(settings).await.map_err(|e| e.to_string())?;
    ledger.set_clock(shared.clock.clone());
    let ledger = Arc::new(ledger);
    let reconciled = crate::ledger::reconcile(shared, &ledger).await?;
    if reconciled > 0 {
        tracing::warn!(matches = reconciled, "the store marked matches appended the log lacks");
    }
    shared.ledger.set(ledger.clone());
    crate::promise::install(shared);
    // The appender's rounds, each only while this node leads.
    let leads = leadership.clone();
    tokio::spawn(crate::ledger::appender(
        shared.clone(),
        ledger,
        settings.append_interval_ms,
        settings.max_batch_matches,
        move || leads.leads(),
    ));
    tokio::spawn(crate::services::tournament::runner(shared.clone()));
    Ok(lock)
}

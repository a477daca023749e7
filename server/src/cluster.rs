//! A cluster node's lease keeper (`fogproof serve --cluster`, docs/SERVER.md, several nodes):
//! every fifth of the lease it renews the leases of the matches running here in one
//! statement ([`crate::store::lease::Leases::renew`]), stops the match tasks whose leases
//! another node took, and takes the leases that have expired on the database's clock (a dead
//! or cut-off node's), resuming each match from its stored entries exactly as a restart does
//! (relay time stands still for `resume_grace_ms`: the gap is charged to nobody).

use crate::live::{Command, MatchTask};
use crate::state::{Shared, lock};
use crate::store::lease::MAX_TAKEOVERS_PER_ROUND;
use crate::store::postgres::PostgresStore;
use protocol::MatchId;
use std::sync::Arc;

/// Runs until the server shuts down.
pub async fn run(shared: Arc<Shared>, store: Arc<PostgresStore>) {
    let Some(leases) = store.leases() else { return };
    let mut tick = tokio::time::interval(leases.renew_every());
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut stop = shared.shutdown_signal();
    loop {
        tokio::select! {
            _ = tick.tick() => {}
            _ = stop.changed() => return,
        }
        round(&shared, &store).await;
    }
}

/// One round: renew, stop what was lost, take what expired.
pub async fn round(shared: &Arc<Shared>, store: &Arc<PostgresStore>) {
    let Some(leases) = store.leases() else { return };
    let running = |id: &MatchId| lock(&shared.matches).contains_key(id);
    match leases.renew(store.pool(), &running).await {
        Ok(lost) => {
            for id in lost {
                tracing::warn!(match_id = %crate::store::sqlite::id_text(&id), "another node took this match's lease: stopping it here");
                if let Some(h) = shared.live(&id) {
                    let _ = h.tx.send(Command::Stop).await;
                }
            }
        }
        Err(e) => tracing::warn!(error = %e, "renewing the match leases failed"),
    }
    let taken = match leases.take_expired(store.pool(), MAX_TAKEOVERS_PER_ROUND).await {
        Ok(t) => t,
        Err(e) => {
            tracing::warn!(error = %e, "taking expired match leases failed");
            return;
        }
    };
    for id in taken {
        if let Err(e) = resume(shared, store, id).await {
            let text = crate::store::sqlite::id_text(&id);
            tracing::error!(match_id = %text, error = %e, "could not resume a match taken over");
            let _ = leases.release(store.pool(), None, &id).await;
        }
    }
}

/// Resumes a match whose lease this node has just taken.
async fn resume(
    shared: &Arc<Shared>,
    store: &Arc<PostgresStore>,
    id: MatchId,
) -> Result<(), String> {
    let Some(leases) = store.leases() else { return Ok(()) };
    let row = shared.store.get_match(&id).await.map_err(|e| e.to_string())?;
    let Some(row) = row.filter(|r| r.finish.is_none()) else {
        // Finished (or gone) meanwhile: nothing to serve.
        let row = shared.store.get_match(&id).await.ok().flatten();
        return leases.release(store.pool(), row.as_ref(), &id).await.map_err(|e| e.to_string());
    };
    if shared.live(&id).is_some() {
        return Ok(());
    }
    let entries = shared.store.entries(&id).await.map_err(|e| e.to_string())?;
    let (task, handle) =
        MatchTask::resume(shared.clone(), shared.config.relay.clone(), row, &entries)
            .map_err(|e| e.to_string())?;
    lock(&shared.matches).insert(id, handle);
    tokio::spawn(task.run());
    tracing::info!(match_id = %crate::store::sqlite::id_text(&id), entries = entries.len(), "took over a match");
    Ok(())
}

//! The tournament runner on the server's shared state (docs/SERVER.md, tournaments): every
//! 250 ms each tournament in the log moves on if it can: a round started, its games invited,
//! the players who did not show forfeited (see [`crate::tournament`]).

use crate::admission::lock;
use crate::error::AppError;
use crate::ledger::ServerLedger;
use crate::lobby::{Challenge, ChallengeStatus, ColorChoice, Seat};
use crate::state::{Shared, ledger_of};
use crate::store::InvitationRow;
use crate::store::pending::START_GRACE_MS;
use crate::tournament::{Invitation, internal, joined_now, parse_time_control, status};
use ledger::Submission;
use ledger::entry::{Absence, NoShowEntry};
use ledger::history::TournamentState;
use ledger::tournament::ByeKind;
use protocol::PublicKey;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// Runs the tournaments until the server stops: every 250 ms, each tournament in the log
/// moves on if it can (see the module docs).
pub async fn runner(shared: Arc<Shared>) {
    let mut stop = shared.shutdown_signal();
    let mut tick = tokio::time::interval(std::time::Duration::from_millis(250));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = tick.tick() => {}
            _ = stop.changed() => break,
        }
        if let Err(e) = step(&shared).await {
            tracing::error!(error = %e.message, "tournament runner");
        }
    }
}

/// One pass over every tournament that is not over.
pub async fn step(shared: &Arc<Shared>) -> Result<(), AppError> {
    let l = ledger_of(shared)?.clone();
    let running: Vec<TournamentState> = l
        .with(|led| {
            led.history().tournaments().filter(|t| status(t) != "finished").cloned().collect()
        })
        .await?;
    for t in running {
        if let Err(e) = step_one(shared, &l, &t).await {
            tracing::warn!(tournament = %protocol::hex::encode(&t.id), error = %e.message, "tournament step");
        }
    }
    Ok(())
}

async fn step_one(
    shared: &Arc<Shared>,
    l: &Arc<ServerLedger>,
    t: &TournamentState,
) -> Result<(), AppError> {
    let joined = joined_now(&*shared.store, &t.id).await?;
    let players = &t.definition.players;
    let absent: Vec<Absence> = players
        .iter()
        .enumerate()
        .filter(|(_, p)| !joined.contains(&p.key))
        .map(|(i, _)| Absence { player: i as u32, bye: ByeKind::Zero })
        .collect();
    let total = t.definition.rounds() as usize;
    let start_round = match t.rounds.last() {
        None => {
            let asked = shared.store.tournament_start_requested(&t.id).await.map_err(internal)?;
            (absent.is_empty() || asked).then_some(1)
        }
        Some(last) if last.is_complete() && t.rounds.len() < total => Some(last.round + 1),
        Some(_) => None,
    };
    if let Some(round) = start_round {
        let (tournament, now) = (t.id, shared.clock.now_ms());
        let r = l
            .with(move |led| {
                led.append(&[Submission::Round { tournament, round, absent, started_at_ms: now }])
                    .map(|_| ())
            })
            .await?;
        if let Err(e) = r {
            return Err(internal(format!("round {round} not started: {e}")));
        }
        tracing::info!(tournament = %protocol::hex::encode(&t.id), round, "round started");
        return Ok(());
    }
    let Some(last) = t.rounds.last() else { return Ok(()) };
    // The round's games: started already (a match exists), being arranged (an invitation in
    // the store, whichever node's runner made it), or to invite.
    let started = shared.store.tournament_games(&t.id, last.round).await.map_err(internal)?;
    let mut started_pairs = BTreeSet::new();
    for g in &started {
        if let Some(row) = shared.store.get_match(&g.match_id).await.map_err(internal)? {
            started_pairs.insert((row.players[0], row.players[1]));
        }
    }
    let open: BTreeSet<(PublicKey, PublicKey)> = last
        .pairings
        .games
        .iter()
        .enumerate()
        .filter(|(k, _)| last.results[*k].is_none())
        .map(|(_, &(w, b))| (players[w].key, players[b].key))
        .filter(|pair| !started_pairs.contains(pair))
        .collect();
    let mut arranging = BTreeMap::new();
    for row in shared.store.invitations(&t.id).await.map_err(internal)? {
        let pair = (row.white, row.black);
        if row.round == last.round && open.contains(&pair) {
            arranging.insert(pair, row);
        } else {
            // Started, played, or of a round gone by: done with.
            shared.store.remove_invitation(&row.id).await.map_err(internal)?;
        }
    }
    let now = shared.clock.now_ms();
    let mut forfeits = Vec::new();
    for &(white, black) in &open {
        let Some(row) = arranging.get(&(white, black)) else {
            let inv = invitation(shared, t, last.round, white, black, now)?;
            if shared.store.put_invitation(&inv.row()?).await.map_err(internal)? {
                lock(&shared.tournaments).announced.insert(inv.id.clone());
                shared.events.send_all([white, black].iter(), &inv.event());
            }
            continue;
        };
        if now < row.deadline_ms {
            announce(shared, row).await?;
            continue;
        }
        if let Some(f) = at_deadline(shared, row, now).await? {
            forfeits.push(f);
        }
    }
    {
        let stored: BTreeSet<&String> = arranging.values().map(|r| &r.id).collect();
        lock(&shared.tournaments).announced.retain(|id| stored.contains(id));
    }
    if !forfeits.is_empty() {
        let n = forfeits.len();
        let subs: Vec<Submission> = forfeits.iter().cloned().map(Submission::NoShow).collect();
        let r = l.with(move |led| led.append(&subs).map(|_| ())).await?;
        match r {
            Ok(()) => {
                metrics::counter!(crate::metrics::TOURNAMENT_NO_SHOWS).increment(n as u64);
                for f in &forfeits {
                    let e = json!({
                        "type": "tournamentNoShow",
                        "tournament": protocol::hex::encode(&f.tournament),
                        "round": f.round,
                        "white": f.white.to_string(),
                        "black": f.black.to_string(),
                        "white_absent": f.white_absent,
                        "black_absent": f.black_absent,
                    });
                    shared.events.send_all([f.white, f.black].iter(), &e);
                }
            }
            Err(e) => return Err(internal(format!("no-show not appended: {e}"))),
        }
    }
    Ok(())
}

/// Sends once the events of an invitation this node's runner did not make (the leader before
/// it did, and may have died before they left): its `tournamentGame` event to the players who
/// have not brought their seat, or, handed on a cluster, what its terms wait on (the umpire's
/// request, or the `terms` to the parties who have not signed).
async fn announce(shared: &Shared, row: &InvitationRow) -> Result<(), AppError> {
    if !lock(&shared.tournaments).announced.insert(row.id.clone()) {
        return Ok(());
    }
    if row.handed {
        if let Some((e, waiting)) = unsigned_terms(shared, &row.id).await? {
            shared.events.send_all(waiting.iter(), &e);
        }
        return Ok(());
    }
    let e = Invitation::from_row(row)?.event();
    let waiting: Vec<PublicKey> =
        [row.white, row.black].into_iter().filter(|k| row.seat_of(k).is_none()).collect();
    shared.events.send_all(waiting.iter(), &e);
    Ok(())
}

/// Ends an invitation past its deadline: the no-show of whoever did not show, if anyone.
///
/// Not handed: the invitation is removed, and whoever had not brought a seat by then did not
/// show (the removal is one statement: a seat either is in the row it returns or was refused).
/// Handed: its terms are withdrawn unless their last signature claimed them (on a cluster one
/// conditional delete, on a single server under the lobby's lock): withdrawn, a player who
/// did not sign complete terms did not show (terms the umpire never completed: nobody at
/// fault); claimed, the match is being started and the invitation stays until it is. Nobody
/// at fault: the pairing is invited again at the next pass.
async fn at_deadline(
    shared: &Arc<Shared>,
    row: &InvitationRow,
    now: u64,
) -> Result<Option<NoShowEntry>, AppError> {
    let (white, black) = (row.white, row.black);
    let absent = if row.handed {
        let withdrawn = match shared.cluster.get() {
            Some(pg) => {
                lock(&shared.lobby).pending.remove(&row.id);
                match pg.withdraw_pending(&row.id).await.map_err(internal)? {
                    Some(p) => Some(crate::lobby::Pending::load(&p.body)?),
                    // Claimed by the last signature (the match being started), or the match
                    // stored and its terms deleted (then the next pass finds it started).
                    None if pg.pending(&row.id).await.map_err(internal)?.is_some() => {
                        return Ok(None);
                    }
                    None => None,
                }
            }
            None => {
                let p = lock(&shared.lobby).pending.remove(&row.id);
                // Gone from the lobby: the last signature took them (its match is being
                // stored), or this server restarted since. Left for a grace while a start
                // may still be storing its match; then invited again.
                if p.is_none() && now < row.deadline_ms.saturating_add(START_GRACE_MS) {
                    return Ok(None);
                }
                p
            }
        };
        withdrawn.map(|p| {
            let complete = p.terms.is_some();
            (
                complete && !p.signatures.contains_key(&white),
                complete && !p.signatures.contains_key(&black),
            )
        })
    } else {
        None
    };
    let (white_absent, black_absent) = if row.handed {
        shared.store.remove_invitation(&row.id).await.map_err(internal)?;
        absent.unwrap_or((false, false))
    } else {
        // Handed since it was read, or ended by another runner: the next pass decides.
        let Some(ended) = shared.store.end_invitation(&row.id).await.map_err(internal)? else {
            return Ok(None);
        };
        (ended.white_seat.is_none(), ended.black_seat.is_none())
    };
    lock(&shared.tournaments).announced.remove(&row.id);
    if !(white_absent || black_absent) {
        return Ok(None);
    }
    Ok(Some(NoShowEntry {
        tournament: row.tournament,
        round: row.round,
        white,
        black,
        white_absent,
        black_absent,
        deadline_ms: row.deadline_ms,
    }))
}

fn invitation(
    shared: &Shared,
    t: &TournamentState,
    round: u32,
    white: PublicKey,
    black: PublicKey,
    now: u64,
) -> Result<Invitation, AppError> {
    let (initial_ms, increment_ms) = parse_time_control(&t.definition.time_control)
        .ok_or_else(|| internal("the definition's time control does not parse"))?;
    let id = protocol::hex::encode(&protocol::keys::random_32().map_err(internal)?[..8]);
    let variant = t.definition.variant;
    let umpire = (variant.mode() == rules::Mode::Umpire)
        .then_some(shared.config.default_umpire)
        .flatten()
        .map(|u| u.to_string());
    // The names their keys signed, as this server holds them in memory now (the invitation
    // is made under the arranging lock: no store read here). One lock, released here.
    let (challenger_name, dest_name) = {
        let auth = lock(&shared.auth);
        (auth.cached_name(&white), auth.cached_name(&black))
    };
    let challenge = Challenge {
        id: id.clone(),
        challenger: white.to_string(),
        dest: Some(black.to_string()),
        game: rules::GameOptions::default_for(variant),
        initial_ms,
        increment_ms,
        rated: true,
        color: ColorChoice::White,
        umpire,
        // White's seat, once brought.
        seat: Seat { seal_key: String::new(), nonce: String::new() },
        status: ChallengeStatus::Tournament,
        created_ms: now,
        challenger_name,
        dest_name,
    };
    Ok(Invitation {
        id,
        tournament: t.id,
        round,
        white,
        black,
        seats: BTreeMap::new(),
        deadline_ms: now + shared.config.limits.max_tournament_show_wait_ms,
        challenge,
        handed_to_lobby: false,
    })
}

/// What a new event stream of `key` is sent again of its tournament games: the
/// `tournamentGame` event of each invitation waiting for its seat (not handed, before its
/// deadline), and on a cluster the `terms` of each handed game it has not signed (from the
/// database: the event may have been lost with the node that handed them, or while the
/// player's stream was down; a single server's lobby sends its own terms again).
pub async fn reminders(
    shared: &Shared,
    key: &PublicKey,
    now_ms: u64,
) -> Result<Vec<Value>, AppError> {
    let rows = shared.store.invitations_for(key).await.map_err(internal)?;
    let mut out = Vec::new();
    for row in &rows {
        if !row.handed {
            if row.seat_of(key).is_none() && now_ms < row.deadline_ms {
                out.push(Invitation::from_row(row)?.event());
            }
        } else if let Some(e) = unsigned_terms(shared, &row.id)
            .await?
            .filter(|(_, waiting)| waiting.contains(key))
            .map(|(e, _)| e)
        {
            out.push(e);
        }
    }
    Ok(out)
}

/// On a cluster, the event handed tournament game `id`'s pending terms wait on and who it goes
/// to: the umpire's request while its seat is missing, else the `terms` to the parties who have
/// not signed; none once signed (or gone, or on a single server).
pub async fn unsigned_terms(
    shared: &Shared,
    id: &str,
) -> Result<Option<(Value, Vec<PublicKey>)>, AppError> {
    let Some(pg) = shared.cluster.get() else { return Ok(None) };
    let Some(row) = pg.pending(id).await.map_err(internal)? else { return Ok(None) };
    if row.signed {
        return Ok(None);
    }
    let p = crate::lobby::Pending::load(&row.body)?;
    Ok(match &p.umpire {
        Some((u, None)) => Some((p.umpire_event(), vec![*u])),
        _ => p.terms_event().map(|e| {
            let waiting =
                p.parties().into_iter().filter(|k| !p.signatures.contains_key(k)).collect();
            (e, waiting)
        }),
    })
}

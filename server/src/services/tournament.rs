//! The tournament runner on the server's shared state (docs/SERVER.md, tournaments): every
//! 250 ms each tournament in the log moves on if it can: a round started, its games invited,
//! the players who did not show forfeited (see [`crate::tournament`]).

use crate::admission::lock;
use crate::error::AppError;
use crate::ledger::ServerLedger;
use crate::lobby::{Challenge, ChallengeStatus, ColorChoice, Seat};
use crate::state::{Shared, ledger_of};
use crate::tournament::{Invitation, internal, joined_now, parse_time_control, status};
use ledger::Submission;
use ledger::entry::{Absence, NoShowEntry};
use ledger::history::TournamentState;
use ledger::tournament::ByeKind;
use protocol::PublicKey;
use serde_json::json;
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
            let asked = lock(&shared.tournaments).start_requested.contains(&t.id);
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
    // The round's games: started already (a match exists), being arranged, or to invite.
    let started = shared.store.tournament_games(&t.id, last.round).await.map_err(internal)?;
    let mut started_pairs = BTreeSet::new();
    for g in &started {
        if let Some(row) = shared.store.get_match(&g.match_id).await.map_err(internal)? {
            started_pairs.insert((row.players[0], row.players[1]));
        }
    }
    let now = shared.clock.now_ms();
    let mut forfeits = Vec::new();
    let mut invite = Vec::new();
    {
        let mut arranging = lock(&shared.tournaments);
        for (k, &(w, b)) in last.pairings.games.iter().enumerate() {
            if last.results[k].is_some() {
                continue;
            }
            let (white, black) = (players[w].key, players[b].key);
            let existing = arranging
                .games
                .iter()
                .find(|(_, g)| {
                    g.tournament == t.id
                        && g.round == last.round
                        && g.white == white
                        && g.black == black
                })
                .map(|(id, g)| (id.clone(), g.clone()));
            if started_pairs.contains(&(white, black)) {
                if let Some((id, _)) = existing {
                    arranging.games.remove(&id);
                }
                continue;
            }
            match existing {
                Some((id, g)) if now >= g.deadline_ms => {
                    // Under the lobby's lock: the last signature either started the match (its
                    // pending terms are gone) or it did not, never both.
                    let mut lobby = lock(&shared.lobby);
                    let (white_absent, black_absent) = if g.handed_to_lobby {
                        match lobby.pending.remove(&id) {
                            None => continue, // started: its match entry will come
                            Some(p) => (
                                !p.signatures.contains_key(&white),
                                !p.signatures.contains_key(&black),
                            ),
                        }
                    } else {
                        (!g.seats.contains_key(&white), !g.seats.contains_key(&black))
                    };
                    drop(lobby);
                    arranging.games.remove(&id);
                    if white_absent || black_absent {
                        forfeits.push(NoShowEntry {
                            tournament: t.id,
                            round: last.round,
                            white,
                            black,
                            white_absent,
                            black_absent,
                            deadline_ms: g.deadline_ms,
                        });
                    }
                    // Neither player at fault (the umpire did not sign): invited again next pass.
                }
                Some(_) => {}
                None => {
                    let inv = invitation(shared, t, last.round, white, black, now)?;
                    arranging.games.insert(inv.id.clone(), inv.clone());
                    invite.push(inv);
                }
            }
        }
    }
    for inv in invite {
        let e = inv.event();
        shared.events.send_all([inv.white, inv.black].iter(), &e);
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

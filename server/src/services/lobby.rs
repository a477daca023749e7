//! The lobby's services on the server's shared state (docs/SERVER.md, lobby): challenges are
//! created, accepted, declined and canceled, seats and signatures taken, matches started, and
//! what waited too long swept. The data and rules they use are in [`crate::lobby`].

use crate::admission::{Admit, Busy, Owed, lock};
use crate::lobby::{
    Challenge, ChallengeStatus, LobbyError, MAX_PENDING_RETRIES, NewChallenge, Pending, Seat,
    all_signed, challenge_body, cut, game_start, umpired, write_terms,
};
use crate::services::live::MatchTask;
use crate::state::Shared;
use crate::store::{ChallengeRow, MatchRow, MatchStatus};
use protocol::terms::SignedTerms;
use protocol::{PublicKey, Signature};
use serde_json::json;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// The cluster's store, when pending terms live in the database (a cluster node: every
/// challenge's terms and every tournament game's, `crate::tournament`).
fn shared_terms(shared: &Shared) -> Option<Arc<crate::store::postgres::PostgresStore>> {
    shared.cluster.get().cloned()
}

/// Keeps a cluster's copy of pending terms in this node's lobby (what `max_live_matches_per_key`
/// counts and a new event stream is sent), but a tournament game's: its runner ends those at
/// its deadline, on whichever node it runs, so a copy here would outlive them.
fn keep_copy(shared: &Shared, id: &str, p: &Pending) {
    if p.tournament.is_none() {
        lock(&shared.lobby).pending.insert(id.to_owned(), p.clone());
    }
}

/// Loads `id`'s pending terms from the cluster's database, with their version and whether
/// they are signed (their match being started).
async fn load_pending(
    pg: &crate::store::postgres::PostgresStore,
    id: &str,
    what: &str,
) -> Result<(Pending, i64, bool), LobbyError> {
    let row = pg.pending(id).await.map_err(|e| LobbyError::Store(e.to_string()))?;
    let Some(row) = row else {
        return Err(LobbyError::NotFound(format!("no terms being {what} for {}", cut(id))));
    };
    Ok((Pending::load(&row.body)?, row.version, row.signed))
}

fn contended(id: &str) -> LobbyError {
    LobbyError::Busy(Busy::new(
        format!(
            "the terms of {} were written by other nodes {MAX_PENDING_RETRIES} times meanwhile \
             (MAX_PENDING_RETRIES): try again",
            cut(id)
        ),
        1,
    ))
}

/// The matches `key` is in, as `max_live_matches_per_key` counts them: live ones, and terms
/// being signed that count against it ([`Pending::counts_against`]).
pub fn matches_of(shared: &Shared, key: &PublicKey) -> usize {
    shared.live_of(key).len()
        + lock(&shared.lobby).pending.values().filter(|p| p.counts_against(key)).count()
}

/// Creates a challenge of `key`'s.
pub async fn create(
    shared: &Arc<Shared>,
    key: PublicKey,
    new: NewChallenge,
) -> Result<Challenge, LobbyError> {
    let NewChallenge { request: req, seat } = new;
    let variant = req.game.variant();
    shared.admit(Admit::Match)?;
    let initial_ms = req.clock_limit.saturating_mul(1000);
    let increment_ms = req.clock_increment.saturating_mul(1000);
    let l = shared.config.limits;
    if !(l.min_initial_clock_ms..=l.max_initial_clock_ms).contains(&initial_ms)
        || increment_ms > l.max_increment_ms
    {
        return Err(LobbyError::Bad(format!(
            "time control {} s + {} s: the initial clock is {} s to {} s, the increment at most {} s",
            req.clock_limit,
            req.clock_increment,
            l.min_initial_clock_ms / 1000,
            l.max_initial_clock_ms / 1000,
            l.max_increment_ms / 1000
        )));
    }
    let dest = req.opponent;
    if dest == Some(key) {
        return Err(LobbyError::Bad("a challenge to oneself".into()));
    }
    let relay = shared.config.relay.public();
    let umpire = if umpired(variant) {
        let u = match req.umpire {
            Some(u) => u,
            None => shared.config.default_umpire.ok_or_else(|| {
                LobbyError::Bad(format!(
                    "{variant} needs an umpire and this server has none: name one"
                ))
            })?,
        };
        if u == key || Some(u) == dest || u == relay {
            return Err(LobbyError::Bad(
                "the umpire must be a party of its own (not a player, not the relay)".into(),
            ));
        }
        // An umpire that has fallen behind takes no new match (a 503: the host's capacity).
        shared.umpires.admit(&u, &l)?;
        Some(u.to_string())
    } else {
        None
    };
    let now = shared.clock.now_ms();
    let id = protocol::hex::encode(
        &protocol::keys::random_32().map_err(|e| LobbyError::Store(e.to_string()))?[..8],
    );
    let challenge = Challenge {
        id: id.clone(),
        challenger: key.to_string(),
        dest: dest.map(|d| d.to_string()),
        game: req.game,
        initial_ms,
        increment_ms,
        rated: req.rated,
        color: req.color,
        umpire,
        seat,
        status: ChallengeStatus::Open,
        created_ms: now,
        challenger_name: crate::auth::name_of(shared, &key).await,
        dest_name: match dest {
            Some(d) => crate::auth::name_of(shared, &d).await,
            None => None,
        },
    };
    let playing = matches_of(shared, &key);
    if playing >= l.max_live_matches_per_key {
        return Err(LobbyError::Limit(format!(
            "{key} is in {playing} matches (max_live_matches_per_key)"
        )));
    }
    {
        let mut lobby = lock(&shared.lobby);
        let mine = lobby.open.values().filter(|c| c.challenger == challenge.challenger).count();
        if mine >= l.max_open_challenges_per_key {
            return Err(LobbyError::Limit(format!(
                "{key} has {mine} open challenges (max_open_challenges_per_key)"
            )));
        }
        if challenge.dest.is_none() {
            let seeks = lobby.open.values().filter(|c| c.dest.is_none()).count();
            if seeks >= l.max_open_seeks {
                return Err(LobbyError::Busy(Busy::new(
                    format!("{seeks} seeks are open (max_open_seeks): try again later"),
                    l.retry_after_s,
                )));
            }
        }
        lobby.open.insert(id.clone(), challenge.clone());
    }
    store_challenge(shared, &challenge).await?;
    let event = json!({ "type": "challenge", "challenge": challenge.json() });
    shared.events.send(&key, &event);
    match dest {
        Some(d) => shared.events.send(&d, &event),
        None => {
            // A seek: the house bot (if any) hears of it like any listener of open games.
            if let Some(bot) = shared.config.house_bot {
                shared.events.send(&bot, &event);
            }
        }
    }
    Ok(challenge)
}

async fn store_challenge(shared: &Arc<Shared>, c: &Challenge) -> Result<(), LobbyError> {
    let row = ChallengeRow {
        id: c.id.clone(),
        challenger: c.challenger.parse().map_err(|e| LobbyError::Store(format!("{e}")))?,
        status: c.status.as_str().to_owned(),
        body: challenge_body(c)?,
        created_ms: c.created_ms,
    };
    // In the next group commit (server::commit): one fsync for many challenges and starts.
    let write = crate::store::Write::Challenge(row);
    shared.committer.write(write).await.map_err(|e| LobbyError::Store(e.to_string()))
}

/// Reloads open challenges after a restart (terms being signed are gone: nothing was
/// committed, so their challenges are canceled).
pub async fn restore(shared: &Arc<Shared>) -> Result<(), LobbyError> {
    let rows =
        shared.store.open_challenges().await.map_err(|e| LobbyError::Store(e.to_string()))?;
    let mut lobby = lock(&shared.lobby);
    for row in rows {
        if let Ok(c) = serde_json::from_str::<Challenge>(&row.body) {
            lobby.open.insert(c.id.clone(), c);
        }
    }
    Ok(())
}

/// Declines (the opponent) or cancels (the challenger) an open challenge.
pub async fn close(
    shared: &Arc<Shared>,
    key: PublicKey,
    id: &str,
    decline: bool,
) -> Result<(), LobbyError> {
    let mut c = {
        let mut lobby = lock(&shared.lobby);
        let Some(c) = lobby.open.get(id) else {
            return Err(LobbyError::NotFound(format!("no open challenge {}", cut(id))));
        };
        let mine = c.challenger == key.to_string();
        let to_me = c.dest.as_deref() == Some(key.to_string().as_str());
        if (decline && !to_me) || (!decline && !mine) {
            return Err(LobbyError::Forbidden(if decline {
                "only the challenged player declines".into()
            } else {
                "only the challenger cancels".into()
            }));
        }
        match lobby.open.remove(id) {
            Some(c) => c,
            None => return Err(LobbyError::NotFound(format!("no open challenge {}", cut(id)))),
        }
    };
    c.status = if decline { ChallengeStatus::Declined } else { ChallengeStatus::Canceled };
    store_challenge(shared, &c).await?;
    let kind = if decline { "challengeDeclined" } else { "challengeCanceled" };
    let event = json!({ "type": kind, "challenge": c.json() });
    let mut keys = vec![key];
    keys.extend(c.challenger.parse::<PublicKey>().ok());
    keys.extend(c.dest.as_deref().and_then(|d| d.parse::<PublicKey>().ok()));
    shared.events.send_all(keys.iter(), &event);
    Ok(())
}

/// Accepts a challenge: the terms are written (once the umpire brought its seat) and sent to
/// every party to sign.
pub async fn accept(
    shared: &Arc<Shared>,
    key: PublicKey,
    id: &str,
    seat: Seat,
) -> Result<(), LobbyError> {
    seat.check()?;
    shared.admit(Admit::Match)?;
    let live = matches_of(shared, &key);
    if live >= shared.config.limits.max_live_matches_per_key {
        return Err(LobbyError::Limit(format!(
            "{key} is in {live} matches (max_live_matches_per_key)"
        )));
    }
    let (challenge, pending, open) = {
        let mut lobby = lock(&shared.lobby);
        let Some(c) = lobby.open.get(id) else {
            return Err(LobbyError::NotFound(format!("no open challenge {}", cut(id))));
        };
        if c.challenger == key.to_string() {
            return Err(LobbyError::Bad("a challenge is accepted by someone else".into()));
        }
        if c.dest.as_ref().is_some_and(|d| *d != key.to_string()) {
            return Err(LobbyError::Forbidden("this challenge is for another player".into()));
        }
        let umpire =
            c.umpire.as_deref().and_then(|u| u.parse::<PublicKey>().ok()).map(|u| (u, None));
        if let Some((u, _)) = &umpire {
            shared.umpires.admit(u, &shared.config.limits)?;
        }
        let Some(open) = lobby.open.remove(id) else {
            return Err(LobbyError::NotFound(format!("no open challenge {}", cut(id))));
        };
        let mut c = open.clone();
        c.status = ChallengeStatus::Accepted;
        let mut p = Pending {
            challenge: c.clone(),
            acceptor: (key, seat),
            umpire,
            terms: None,
            signatures: BTreeMap::new(),
            deadline_ms: shared.clock.now_ms() + shared.config.limits.max_terms_wait_ms,
            tournament: None,
        };
        if p.umpire.is_none() {
            p.terms = match write_terms(&shared.config, &p) {
                Ok(t) => Some(t),
                Err(e) => {
                    lobby.open.insert(id.to_owned(), open);
                    return Err(e);
                }
            };
        }
        (c, p, open)
    };
    if let Some(pg) = shared.cluster.get() {
        // A cluster: the database decides which node's acceptance wins (store::pending), and
        // keeps the terms, so a party may seat or sign on any node.
        let claimed = match pg.claim_challenge(id, &challenge_body(&challenge)?).await {
            Ok(claimed) => claimed,
            Err(e) => {
                lock(&shared.lobby).open.insert(id.to_owned(), open);
                return Err(LobbyError::Store(e.to_string()));
            }
        };
        if !claimed {
            return Err(LobbyError::NotFound(format!(
                "challenge {} is no longer open: it was accepted (or canceled) on another node",
                cut(id)
            )));
        }
        pg.put_pending(id, &pending.stored()?, pending.deadline_ms)
            .await
            .map_err(|e| LobbyError::Store(e.to_string()))?;
    }
    {
        let p = &pending;
        lock(&shared.lobby).pending.insert(id.to_owned(), p.clone());
        if let Some((u, None)) = &p.umpire
            && shared.config.default_umpire == Some(*u)
        {
            // The host's own umpire service owes its seat from now on (admission:
            // max_umpire_lag_ms): its seat backlog is the host's capacity. Any other umpire
            // owes nothing before it takes its seat: strangers naming a key as umpire in
            // challenges they accept between themselves must not count against that key.
            shared.umpires.owe(*u, Owed::Terms(id.to_owned()), tokio::time::Instant::now());
        }
    }
    if shared.cluster.get().is_none() {
        // (A cluster's claim wrote it already: written again here, it could land after
        // another node's start of the match.)
        store_challenge(shared, &challenge).await?;
    }
    match &pending.umpire {
        Some((u, None)) => shared.events.send(u, &pending.umpire_event()),
        _ => {
            if let Some(e) = pending.terms_event() {
                shared.events.send_all(pending.parties().iter(), &e);
            }
        }
    }
    Ok(())
}

/// The umpire brings its seat; the terms are then written and sent to every party.
pub async fn umpire_seat(
    shared: &Arc<Shared>,
    key: PublicKey,
    id: &str,
    seat: Seat,
) -> Result<(), LobbyError> {
    seat.check()?;
    if let Some(pg) = shared_terms(shared) {
        for _ in 0..MAX_PENDING_RETRIES {
            let (mut p, version, _) = load_pending(&pg, id, "written").await?;
            match &mut p.umpire {
                Some((u, s @ None)) if *u == key => *s = Some(seat.clone()),
                _ => {
                    return Err(LobbyError::Forbidden(
                        "not the umpire these terms wait for".into(),
                    ));
                }
            }
            p.terms = Some(write_terms(&shared.config, &p)?);
            let written = pg
                .update_pending(id, version, &p.stored()?)
                .await
                .map_err(|e| LobbyError::Store(e.to_string()))?;
            if written {
                keep_copy(shared, id, &p);
                shared.umpires.owe(key, Owed::Terms(id.to_owned()), tokio::time::Instant::now());
                if let Some(e) = p.terms_event() {
                    shared.events.send_all(p.parties().iter(), &e);
                }
                return Ok(());
            }
        }
        return Err(contended(id));
    }
    let event = {
        let mut lobby = lock(&shared.lobby);
        let Some(p) = lobby.pending.get_mut(id) else {
            return Err(LobbyError::NotFound(format!("no terms being written for {}", cut(id))));
        };
        match &mut p.umpire {
            Some((u, s @ None)) if *u == key => *s = Some(seat),
            _ => return Err(LobbyError::Forbidden("not the umpire these terms wait for".into())),
        }
        let terms = write_terms(&shared.config, p)?;
        p.terms = Some(terms);
        // Its seat is in; its signature is owed from now on.
        shared.umpires.owe(key, Owed::Terms(id.to_owned()), tokio::time::Instant::now());
        (p.terms_event(), p.parties())
    };
    if let (Some(e), parties) = event {
        shared.events.send_all(parties.iter(), &e);
    }
    Ok(())
}

/// A party's signature on pending terms; the match starts when every party has signed.
pub async fn sign(
    shared: &Arc<Shared>,
    key: PublicKey,
    id: &str,
    signature: Signature,
) -> Result<Option<String>, LobbyError> {
    if let Some(pg) = shared_terms(shared) {
        return sign_shared(shared, &pg, key, id, signature).await;
    }
    let ready = {
        let mut lobby = lock(&shared.lobby);
        let Some(p) = lobby.pending.get_mut(id) else {
            return Err(LobbyError::NotFound(format!("no terms being signed for {}", cut(id))));
        };
        p.check_signature(&key, &signature)?;
        let Some((terms, bytes)) = &p.terms else {
            return Err(LobbyError::Bad("the terms are not complete yet".into()));
        };
        p.signatures.insert(key, signature);
        if p.umpire.as_ref().is_some_and(|(u, _)| *u == key) {
            shared.umpires.paid(&key, &Owed::Terms(id.to_owned()));
        }
        if let Some(signed) = all_signed(&shared.config, terms, bytes, &p.signatures) {
            let p = lobby.pending.remove(id);
            p.map(|p| (p, signed))
        } else {
            None
        }
    };
    let Some((p, signed)) = ready else { return Ok(None) };
    start(shared, p, signed).await.map(Some)
}

/// [`sign`] on a cluster: the terms are read from the database, the signature checked and
/// written back at the version read (read again and written again when another node wrote
/// meanwhile); the node whose write completes the signatures claims the row (marked signed,
/// kept) and starts the match, and deletes the row once the match is stored: a node dying in
/// between leaves the row to another node's sweep, which starts the match ([`sweep`]).
async fn sign_shared(
    shared: &Arc<Shared>,
    pg: &crate::store::postgres::PostgresStore,
    key: PublicKey,
    id: &str,
    signature: Signature,
) -> Result<Option<String>, LobbyError> {
    let store = |e: crate::store::StoreError| LobbyError::Store(e.to_string());
    for _ in 0..MAX_PENDING_RETRIES {
        let (mut p, version, claimed) = load_pending(pg, id, "signed").await?;
        p.check_signature(&key, &signature)?;
        if claimed {
            // Every signature is in (this one again, from another process of the key): the
            // match is being started.
            return Ok(None);
        }
        let Some((terms, bytes)) = &p.terms else {
            return Err(LobbyError::Bad("the terms are not complete yet".into()));
        };
        p.signatures.insert(key, signature);
        let umpire = p.umpire.as_ref().is_some_and(|(u, _)| *u == key);
        if let Some(signed) = all_signed(&shared.config, terms, bytes, &p.signatures) {
            let hold = shared.clock.now_ms() + crate::store::pending::START_GRACE_MS;
            if pg.claim_signed(id, version, &p.stored()?, hold).await.map_err(store)? {
                crate::fault::point(crate::fault::TERMS_CLAIMED);
                lock(&shared.lobby).pending.remove(id);
                if umpire {
                    shared.umpires.paid(&key, &Owed::Terms(id.to_owned()));
                }
                let started = start(shared, p, signed).await?;
                // Stored: the terms are done with (a failed delete leaves them to a sweep,
                // which finds the match stored).
                if let Err(e) = pg.drop_pending(id).await {
                    tracing::warn!(error = %e, "deleting the started match's terms failed");
                }
                return Ok(Some(started));
            }
        } else if pg.update_pending(id, version, &p.stored()?).await.map_err(store)? {
            if umpire {
                shared.umpires.paid(&key, &Owed::Terms(id.to_owned()));
            }
            keep_copy(shared, id, &p);
            return Ok(None);
        }
    }
    Err(contended(id))
}

/// Starts a match from fully signed terms.
async fn start(
    shared: &Arc<Shared>,
    p: Pending,
    signed: SignedTerms,
) -> Result<String, LobbyError> {
    let agreed = signed.verify().map_err(|e| LobbyError::Bad(format!("terms: {e}")))?;
    let id = agreed.match_id;
    let row = MatchRow {
        id,
        terms: protocol::codec::Canonical::to_canonical(&signed),
        variant: agreed.terms.variant().id().to_owned(),
        players: [agreed.terms.players[0].key, agreed.terms.players[1].key],
        rated: p.challenge.rated,
        challenge: Some(p.challenge.id.clone()),
        created_ms: shared.clock.now_ms(),
        status: MatchStatus::Live,
        finish: None,
    };
    if let Some(t) = p.tournament {
        record_game(shared, id, t).await.map_err(|e| LobbyError::Store(e.to_string()))?;
    }
    let (task, handle) =
        MatchTask::create(shared.clone(), shared.config.relay.clone(), row, signed.clone())
            .await
            .map_err(|e| LobbyError::Store(e.to_string()))?;
    lock(&shared.matches).insert(id, handle);
    tokio::spawn(task.run());
    let mut c = p.challenge.clone();
    c.status = ChallengeStatus::Started;
    store_challenge(shared, &c).await?;
    let id_text = protocol::hex::encode(&id.0);
    let mut event = game_start(&id_text, agreed.terms.variant().id(), &signed);
    event["game"]["names"] = crate::auth::names_for(
        shared,
        &json!(p.parties().iter().map(ToString::to_string).collect::<Vec<_>>()),
    )
    .await;
    shared.events.send_all(p.parties().iter(), &event);
    Ok(id_text)
}

/// Cancels pending terms past their deadline and challenges open longer than
/// `max_challenge_open_ms`; returns how many of both.
pub async fn sweep(shared: &Arc<Shared>) -> usize {
    let now = shared.clock.now_ms();
    let stale: Vec<Challenge> = {
        let max = shared.config.limits.max_challenge_open_ms;
        let mut lobby = lock(&shared.lobby);
        let ids: Vec<String> = lobby
            .open
            .iter()
            .filter(|(_, c)| c.created_ms.saturating_add(max) <= now)
            .map(|(k, _)| k.clone())
            .collect();
        ids.iter().filter_map(|id| lobby.open.remove(id)).collect()
    };
    for c in &stale {
        let mut c = c.clone();
        c.status = ChallengeStatus::Canceled;
        let _ = store_challenge(shared, &c).await;
        let event = json!({
            "type": "challengeCanceled",
            "challenge": c.json(),
            "reason": format!(
                "nobody answered it within {} s (max_challenge_open_ms)",
                shared.config.limits.max_challenge_open_ms / 1000
            ),
        });
        let mut keys: Vec<PublicKey> = c.challenger.parse().ok().into_iter().collect();
        keys.extend(c.dest.as_deref().and_then(|d| d.parse::<PublicKey>().ok()));
        shared.events.send_all(keys.iter(), &event);
    }
    let mut expired: Vec<Pending> = {
        let mut lobby = lock(&shared.lobby);
        let ids: Vec<String> = lobby
            .pending
            .iter()
            .filter(|(_, p)| p.deadline_ms <= now)
            .map(|(k, _)| k.clone())
            .collect();
        ids.iter().filter_map(|id| lobby.pending.remove(id)).collect()
    };
    if let Some(pg) = shared.cluster.get() {
        // A cluster: the terms this node knew of are dropped here, but canceled by the node
        // whose sweep takes their row (once, whichever node: a dead acceptor's too), and not
        // at all when another node started the match.
        expired.retain(|p| p.tournament.is_some());
        let hold = now + crate::store::pending::START_GRACE_MS;
        match pg.expire_pending(now, hold).await {
            Ok(rows) => {
                for row in rows {
                    match Pending::load(&row.body) {
                        Ok(p) if row.signed => start_claimed(shared, pg, p).await,
                        Ok(p) => expired.push(p),
                        Err(e) => tracing::warn!(error = %e, "expired pending terms unreadable"),
                    }
                }
            }
            Err(e) => tracing::warn!(error = %e, "sweeping the expired pending terms failed"),
        }
    }
    for p in &expired {
        if let Some((u, _)) = &p.umpire {
            shared.umpires.paid(u, &Owed::Terms(p.challenge.id.clone()));
        }
        let mut c = p.challenge.clone();
        c.status = ChallengeStatus::Canceled;
        let _ = store_challenge(shared, &c).await;
        let missing: Vec<String> = p
            .parties()
            .iter()
            .filter(|k| !p.signatures.contains_key(k))
            .map(ToString::to_string)
            .collect();
        let event = json!({
            "type": "challengeCanceled",
            "challenge": c.json(),
            "reason": format!("the terms were not signed in time by {}", missing.join(", ")),
        });
        shared.events.send_all(p.parties().iter(), &event);
    }
    // Terms that ended by another way (a tournament's runner) owe nothing any more.
    let pending: BTreeSet<String> = lock(&shared.lobby).pending.keys().cloned().collect();
    shared.umpires.retain_terms(|id| pending.contains(id));
    expired.len() + stale.len()
}

/// Starts the match of signed terms a node claimed and did not store within
/// [`crate::store::pending::START_GRACE_MS`] (it died, or its database connection did), which
/// this node's sweep has claimed again; or, when the match is stored after all, only deletes
/// the terms. Two nodes starting it at once store it once (the match id is the row's key).
async fn start_claimed(
    shared: &Arc<Shared>,
    pg: &crate::store::postgres::PostgresStore,
    p: Pending,
) {
    let id = p.challenge.id.clone();
    let Some((terms, bytes)) = &p.terms else { return };
    let Some(signed) = all_signed(&shared.config, terms, bytes, &p.signatures) else {
        tracing::warn!(challenge = %cut(&id), "terms marked signed lack a signature");
        return;
    };
    let stored = match signed.verify() {
        Ok(agreed) => shared.store.get_match(&agreed.match_id).await.map(|m| m.is_some()),
        Err(e) => {
            tracing::warn!(challenge = %cut(&id), error = %e, "terms marked signed do not verify");
            return;
        }
    };
    match stored {
        Ok(true) => {}
        Ok(false) => match start(shared, p, signed).await {
            Ok(m) => {
                tracing::warn!(challenge = %cut(&id), match_id = %m, "started the match of terms another node claimed and did not store")
            }
            Err(e) => {
                tracing::warn!(challenge = %cut(&id), error = %e, "starting claimed terms failed; a later sweep tries again");
                return;
            }
        },
        Err(e) => {
            tracing::warn!(error = %e, "reading a claimed match failed; a later sweep tries again");
            return;
        }
    }
    if let Err(e) = pg.drop_pending(&id).await {
        tracing::warn!(error = %e, "deleting the started match's terms failed");
    }
}

/// Records a tournament game's match before the match is created (so its record is appended
/// with its round even after a crash).
pub async fn record_game(
    shared: &Shared,
    match_id: protocol::MatchId,
    (tournament, round): (ledger::entry::Sha256Digest, u32),
) -> Result<(), crate::store::StoreError> {
    shared
        .store
        .put_tournament_game(&crate::store::TournamentGameRow { match_id, tournament, round })
        .await
}

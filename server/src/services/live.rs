//! One task per live match: it owns the match's [`Relay`] (the sans-IO machine, unchanged),
//! feeds it the frames its sockets receive and the time, arms a timer from
//! [`Relay::poll_timeout`], stores every new entry (group commit) before any receipt leaves,
//! and then pushes each entry to the sockets entitled to read its channel.
//!
//! When the relay has closed the match, the task waits for every party's countersignature (or
//! `countersign_ms`), assembles the record, verifies it, stores the verdict and ends.

use crate::live::{
    Command, JoinError, Joined, MATCH_OVER, MatchHandle, MatchInfo, Mux, Outgoing, UMPIRE_NOTICE_MS,
};
use crate::state::{FinishedMatch, Shared};
use crate::store::{EntryRow, Finish, MatchRow, Write};
use axum::body::Bytes;
use protocol::codec::Canonical;
use protocol::keys::ByColor;
use protocol::message::{MessageBody, SignedMessage};
use protocol::record::MatchRecord;
use protocol::relay::{Entry, Relay, RelayEvent, SenderError};
use protocol::terms::{AgreedTerms, SignedTerms};
use protocol::wire::ServerFrame;
use protocol::{Channel, Color, Identity, PublicKey};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};
use std::time::Instant;
use tokio::sync::{mpsc, oneshot};

/// Commands queued to one match task (sockets wait when it is full; their frames keep the
/// time they arrived).
const QUEUE_COMMANDS: usize = 1024;

/// Messages already queued that the task accepts together before one flush (one group commit
/// and one push for all of them, not one each): an umpire's answers to a move arrive together.
const MAX_MESSAGES_PER_FLUSH: usize = 64;

/// A hidden game's public clocks: fixed at each change of turn.
#[derive(Clone, Copy, Debug)]
struct TurnClock {
    /// Whose turn it became.
    side: Color,
    /// When that side's clock runs out, as it stood then (relay ms).
    due_ms: u64,
    /// The other side's clock then.
    other_ms: u64,
}

/// What became of one message given to the relay.
enum Taken {
    /// Accepted: its entry waits for the next flush.
    Accepted,
    /// Refused: the encoded frame that says why, sent after the flush.
    Refused(Bytes),
    /// Not taken: its subscription is gone or was closed for it.
    Closed,
}

struct Sub {
    key: Option<PublicKey>,
    tx: mpsc::Sender<Outgoing>,
    refusals: u32,
    mux: Option<Mux>,
}

/// The task of one live match.
pub struct MatchTask {
    shared: Arc<Shared>,
    row: MatchRow,
    signed: SignedTerms,
    agreed: AgreedTerms,
    relay: Relay,
    open_game: bool,
    parties: Vec<PublicKey>,
    channels: Vec<Channel>,
    persisted: usize,
    subs: BTreeMap<u64, Sub>,
    offset_ms: u64,
    close_at_ms: Option<u64>,
    /// Arrival instants of accepted messages, by position, until their receipts leave.
    arrivals: Vec<(usize, Instant)>,
    /// The channels of accepted messages, by position, until they are stored.
    admitted: Vec<(usize, Channel)>,
    /// A hidden game's public clocks, since the first turn.
    turn: Option<TurnClock>,
    /// A hidden game's public clocks when its game ended (they stand still from then).
    ended: Option<[u64; 2]>,
    info: Arc<Mutex<MatchInfo>>,
    rx: mpsc::Receiver<Command>,
    /// A command taken from the queue while gathering messages to flush together, handled
    /// next (before anything still queued).
    deferred: Option<Command>,
    /// The umpire's key (umpired games) and the deadline it owes now, if any, as last told to
    /// the host's [`crate::admission::UmpireBacklog`].
    umpire: Option<(PublicKey, Option<(u64, protocol::message::Expectation)>)>,
    /// When (server ms) to tell the umpire's key that its seat has no connection (umpired
    /// games while none is connected; [`UMPIRE_NOTICE_MS`]).
    umpire_notice_at: Option<u64>,
}

impl Drop for MatchTask {
    fn drop(&mut self) {
        // However the task ends, its umpire owes nothing more here.
        if let Some((u, Some(_))) = self.umpire {
            self.shared.umpires.paid(&u, &crate::admission::Owed::Answer(self.row.id));
        }
    }
}

/// Why a match task could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The stored terms do not verify.
    #[error("terms: {0}")]
    Terms(String),
    /// The stored entries do not rebuild the relay.
    #[error("resume: {0}")]
    Resume(#[from] protocol::relay::ResumeError),
    /// The relay refused to start.
    #[error("relay: {0}")]
    Relay(#[from] protocol::relay::RelayError),
    /// A stored entry does not decode.
    #[error("stored entry {index}: {why}")]
    Entry {
        /// Its position.
        index: usize,
        /// Why.
        why: String,
    },
}

fn body_of(message: &SignedMessage) -> Option<MessageBody> {
    MessageBody::from_canonical(&message.body).ok()
}

impl MatchTask {
    /// A match task over a relay that already holds `persisted` stored entries. `offset_ms` is
    /// subtracted from the server clock to give relay time.
    fn new(
        shared: Arc<Shared>,
        row: MatchRow,
        signed: SignedTerms,
        agreed: AgreedTerms,
        relay: Relay,
        persisted: usize,
        offset_ms: u64,
    ) -> (MatchTask, MatchHandle) {
        let (tx, rx) = mpsc::channel(QUEUE_COMMANDS);
        let mut parties = vec![agreed.terms.players[0].key, agreed.terms.players[1].key];
        if let Some(u) = &agreed.terms.umpire {
            parties.push(u.key);
        }
        let open_game = agreed.terms.variant().mode() == rules::Mode::Open;
        let channels = relay
            .entries()
            .iter()
            .map(|e| body_of(&e.message).map_or(Channel::Public, |b| b.channel))
            .collect();
        let info = Arc::new(Mutex::new(MatchInfo {
            id: crate::store::sqlite::id_text(&row.id),
            variant: row.variant.clone(),
            rated: row.rated,
            players: row.players.map(|k| k.to_string()),
            white: None,
            black: None,
            umpire: agreed.terms.umpire.as_ref().map(|u| u.key.to_string()),
            started_ms: row.created_ms,
            white_ms: agreed.terms.time_control.initial_ms,
            black_ms: agreed.terms.time_control.initial_ms,
            running: None,
            entries: open_game.then_some(0),
            stored: 0,
        }));
        let handle = MatchHandle { tx, info: info.clone(), parties: parties.clone() };
        let umpire = agreed.terms.umpire.as_ref().map(|u| (u.key, None));
        let task = MatchTask {
            shared,
            row,
            signed,
            agreed,
            relay,
            open_game,
            parties,
            channels,
            persisted,
            subs: BTreeMap::new(),
            offset_ms,
            close_at_ms: None,
            arrivals: Vec::new(),
            admitted: Vec::new(),
            turn: None,
            ended: None,
            info,
            rx,
            deferred: None,
            umpire,
            umpire_notice_at: None,
        };
        (task, handle)
    }

    /// A new match: its relay writes `Start` now; the row and that first entry are stored
    /// before the task exists.
    pub async fn create(
        shared: Arc<Shared>,
        relay_identity: Identity,
        row: MatchRow,
        signed: SignedTerms,
    ) -> Result<(MatchTask, MatchHandle), StartError> {
        let agreed = signed.verify().map_err(|e| StartError::Terms(e.to_string()))?;
        let now = shared.clock.now_ms();
        let relay = Relay::new(relay_identity, agreed.clone(), now)?;
        let first: Vec<EntryRow> = relay
            .entries()
            .iter()
            .enumerate()
            .map(|(i, e)| EntryRow { match_id: row.id, seq: i as u64, bytes: e.to_canonical() })
            .collect();
        let n = first.len();
        // In the next group commit with other matches' entries and starts (one fsync for all).
        shared
            .committer
            .write(Write::Match(row.clone(), first))
            .await
            .map_err(|e| StartError::Terms(format!("storing the new match: {e}")))?;
        let (mut task, handle) = MatchTask::new(shared, row, signed, agreed, relay, n, 0);
        task.refresh_info();
        task.watch_umpire();
        Ok((task, handle))
    }

    /// A match rebuilt after a restart from its stored entries. Relay time resumes where its
    /// last receipt left it, after `resume_grace_ms` in which it stands still: time while the
    /// server was down is charged to nobody.
    pub fn resume(
        shared: Arc<Shared>,
        relay_identity: Identity,
        row: MatchRow,
        stored: &[Vec<u8>],
    ) -> Result<(MatchTask, MatchHandle), StartError> {
        let signed = SignedTerms::from_canonical(&row.terms)
            .map_err(|e| StartError::Terms(e.to_string()))?;
        let agreed = signed.verify().map_err(|e| StartError::Terms(e.to_string()))?;
        let entries = stored
            .iter()
            .enumerate()
            .map(|(index, b)| {
                Entry::from_canonical(b)
                    .map_err(|e| StartError::Entry { index, why: e.to_string() })
            })
            .collect::<Result<Vec<Entry>, StartError>>()?;
        let last_ms = entries
            .last()
            .and_then(|e| e.receipt.open(&agreed.terms.relay).ok())
            .map_or(0, |r| r.time_ms);
        let relay = Relay::resume(relay_identity, agreed.clone(), &entries)?;
        let grace = shared.config.deadlines.resume_grace_ms;
        let offset = (shared.clock.now_ms() + grace).saturating_sub(last_ms);
        let n = entries.len();
        let (mut task, handle) = MatchTask::new(shared, row, signed, agreed, relay, n, offset);
        if task.relay.coordinator().is_closed() {
            task.close_at_ms =
                Some(task.shared.clock.now_ms() + task.shared.config.deadlines.countersign_ms);
        }
        task.refresh_info();
        task.watch_umpire();
        Ok((task, handle))
    }

    fn relay_now(&self) -> u64 {
        self.shared.clock.now_ms().saturating_sub(self.offset_ms)
    }

    fn colors(&self) -> ByColor<PublicKey> {
        self.relay.colors().unwrap_or(ByColor {
            white: self.agreed.terms.players[0].key,
            black: self.agreed.terms.players[1].key,
        })
    }

    fn may_read(&self, key: Option<&PublicKey>, channel: Channel) -> bool {
        match key {
            Some(k) if self.parties.contains(k) => {
                protocol::relay::reads(&self.agreed, &self.colors(), k, channel)
            }
            _ => self.open_game,
        }
    }

    /// Runs the match until it is finished, stopped, or its storage fails.
    pub async fn run(mut self) {
        let id = self.row.id;
        metrics::gauge!(crate::metrics::MATCHES_LIVE).increment(1.0);
        loop {
            let wake = self.next_wake_ms().map(|ms| self.shared.clock.instant_at(ms));
            let step = if let Some(cmd) = self.deferred.take() {
                self.handle(cmd).await
            } else {
                tokio::select! {
                    cmd = self.rx.recv() => match cmd {
                        None | Some(Command::Stop) => break,
                        Some(cmd) => self.handle(cmd).await,
                    },
                    () = async { tokio::time::sleep_until(wake.unwrap_or_else(tokio::time::Instant::now)).await },
                        if wake.is_some() => self.on_timer().await,
                }
            };
            match step {
                Ok(false) => self.watch_umpire(),
                Ok(true) => break,
                Err(why) => {
                    tracing::error!(match_id = %crate::store::sqlite::id_text(&id), %why, "match stopped");
                    let conns: Vec<u64> = self.subs.keys().copied().collect();
                    for conn in conns {
                        self.close_sub(
                            conn,
                            format!(
                                "the server could not store this match ({why}); reconnect later"
                            ),
                        );
                    }
                    break;
                }
            }
        }
        metrics::gauge!(crate::metrics::MATCHES_LIVE).decrement(1.0);
        self.shared.remove_match(&id);
    }

    /// The server-clock ms of the next timer: the relay's earliest deadline, or the end of the
    /// countersignature wait.
    fn next_wake_ms(&self) -> Option<u64> {
        let relay = self.relay.poll_timeout().map(|due| due.saturating_add(1) + self.offset_ms);
        [relay, self.close_at_ms, self.umpire_notice_at].into_iter().flatten().min()
    }

    /// Whether the umpire (umpired games) has a connection to this match now.
    fn umpire_connected(&self) -> bool {
        let Some((u, _)) = self.umpire else { return true };
        self.subs.values().any(|s| s.key == Some(u) && !s.tx.is_closed())
    }

    /// Arms the umpire's notice while its seat has no connection, disarms it once one has.
    fn watch_umpire(&mut self) {
        if self.umpire_connected() {
            self.umpire_notice_at = None;
        } else if self.umpire_notice_at.is_none() {
            self.umpire_notice_at = Some(self.shared.clock.now_ms() + UMPIRE_NOTICE_MS);
        }
    }

    /// Tells the umpire's key that this match's seat has no connection (every umpire process
    /// of the key hears it, through any node), and again every [`UMPIRE_NOTICE_MS`].
    fn notice_umpire(&mut self) {
        let now = self.shared.clock.now_ms();
        if self.umpire_notice_at.is_none_or(|at| now < at) {
            return;
        }
        self.umpire_notice_at = Some(now + UMPIRE_NOTICE_MS);
        let Some((u, _)) = self.umpire else { return };
        // As `gameStart` (the lobby's), under its own type.
        let event = serde_json::json!({
            "type": "umpireSeatOpen",
            "game": {
                "id": crate::store::sqlite::id_text(&self.row.id),
                "variant": self.row.variant,
                "terms": protocol::hex::encode(&self.signed.to_canonical()),
            }
        });
        self.shared.events.send(&u, &event);
    }

    async fn on_timer(&mut self) -> Result<bool, String> {
        self.notice_umpire();
        // Messages already queued arrived before this timer fired: they go first, each at its
        // arrival time, so a move that reached the socket in time is not timed out because
        // the host was slow to take it (at most one queue's worth, so a busy match's timers
        // still fire).
        for _ in 0..QUEUE_COMMANDS {
            match self.deferred.take().map_or_else(|| self.rx.try_recv(), Ok) {
                Ok(cmd) => {
                    if self.handle(cmd).await? {
                        return Ok(true);
                    }
                }
                Err(_) => break,
            }
        }
        if self.timer_lagged() {
            // Relay time moved back: the timer is armed again for the deadline's new moment.
            self.refresh_info();
            return Ok(false);
        }
        let now = self.relay_now();
        self.relay.set_wall_ms(self.shared.clock.now_ms());
        self.relay.handle_timeout(now);
        self.after_relay().await?;
        if self.close_at_ms.is_some_and(|at| self.shared.clock.now_ms() >= at) {
            self.finish().await?;
            return Ok(true);
        }
        Ok(false)
    }

    /// Handles one command; `Ok(true)` when the match is over.
    async fn handle(&mut self, cmd: Command) -> Result<bool, String> {
        match cmd {
            Command::Join { conn, key, since, tx, mux, reply } => {
                let _ = reply.send(self.join(conn, key, since, tx, mux));
                Ok(false)
            }
            Command::Leave { conn } => {
                self.subs.remove(&conn);
                Ok(false)
            }
            Command::Message { conn, bytes, arrived } => self.messages(conn, bytes, arrived).await,
            Command::Deliver { bytes, arrived, reply } => self.deliver(bytes, arrived, reply).await,
            Command::Stop => Ok(true),
        }
    }

    fn join(
        &mut self,
        conn: u64,
        key: Option<PublicKey>,
        since: Option<u64>,
        tx: mpsc::Sender<Outgoing>,
        mux: Option<Mux>,
    ) -> Result<Joined, JoinError> {
        let party = key.is_some_and(|k| self.parties.contains(&k));
        if !party && !self.open_game {
            return Err(JoinError::Hidden);
        }
        // The umpire's seat is served by one connection at a time: its live socket is the
        // seat's lease among the umpire processes of its key (a second process would write
        // messages of its own under the same numbers: a fork of the umpire's channels).
        if self.umpire.as_ref().is_some_and(|(u, _)| key == Some(*u)) && self.umpire_connected() {
            return Err(JoinError::UmpireSeated);
        }
        // `since` counts in the joiner's own view (the entries it may read), and so does
        // `entries`: nothing here tells a participant how many entries another channel holds.
        let from = since.map_or(0, |s| usize::try_from(s).unwrap_or(usize::MAX).saturating_add(1));
        let entries = self.relay.entries();
        let id = self.row.id;
        let muxed = mux.is_some();
        let wrap = |bytes: Vec<u8>| if muxed { ServerFrame::wrap(&id, &bytes) } else { bytes };
        let visible: Vec<usize> = (0..self.persisted)
            .filter(|&i| self.may_read(key.as_ref(), self.channels[i]))
            .collect();
        let catch_up: Vec<Bytes> = visible
            .iter()
            .skip(from)
            .map(|&i| Bytes::from(wrap(ServerFrame::entry(&entries[i].to_canonical()))))
            .collect();
        let welcome = ServerFrame::Welcome {
            version: protocol::codec::VERSION,
            match_id: self.row.id,
            terms: self.signed.clone(),
            entries: visible.len() as u64,
            catch_up: catch_up.len() as u64,
        }
        .to_canonical();
        let welcome = wrap(welcome);
        self.subs.insert(conn, Sub { key, tx, refusals: 0, mux });
        Ok(Joined { welcome, catch_up })
    }

    /// Sends one encoded frame to a subscription (wrapped for a multiplexed socket).
    fn send_frame(&mut self, conn: u64, frame: &Bytes, wrapped: &mut Option<Bytes>) {
        let full = match self.subs.get(&conn) {
            Some(sub) if sub.mux.is_some() => {
                let match_id = self.row.id;
                let bytes =
                    wrapped.get_or_insert_with(|| Bytes::from(ServerFrame::wrap(&match_id, frame)));
                sub.tx.try_send(Outgoing::For { match_id, conn, frame: bytes.clone() }).is_err()
            }
            Some(sub) => sub.tx.try_send(Outgoing::Frame(frame.clone())).is_err(),
            None => false,
        };
        if full {
            self.drop_slow(conn);
        }
    }

    /// Ends a subscription with a reason: a socket of its own is closed; on a multiplexed
    /// socket only this match's subscription ends.
    fn close_sub(&mut self, conn: u64, reason: String) {
        let Some(sub) = self.subs.remove(&conn) else { return };
        let out = if sub.mux.is_some() {
            Outgoing::Left { match_id: self.row.id, conn, reason }
        } else {
            Outgoing::Close(reason)
        };
        if sub.tx.try_send(out).is_err()
            && let Some(mux) = &sub.mux
        {
            mux.slow.notify_one();
        }
    }

    fn drop_slow(&mut self, conn: u64) {
        if let Some(sub) = self.subs.remove(&conn) {
            metrics::counter!(crate::metrics::CONNECTIONS_REFUSED).increment(1);
            // The queue is full: a socket of its own sees its channel close and says why; a
            // multiplexed socket is woken to close (its queue is every match's on it).
            if let Some(mux) = &sub.mux {
                mux.slow.notify_one();
            }
            drop(sub);
        }
    }

    /// A message, and the messages queued right behind it (at most
    /// [`MAX_MESSAGES_PER_FLUSH`]): each is taken by the relay at its own arrival time, then
    /// one flush stores all their entries (one group commit) before any of their receipts
    /// leaves, and pushes them together. Gathering stops at a refusal (its `Refused` frame
    /// leaves after the flush, after the entries before it, as for a message alone), at a
    /// subscription closed, and at any other command (handled next, before the queue).
    async fn messages(
        &mut self,
        conn: u64,
        bytes: Vec<u8>,
        arrived: Instant,
    ) -> Result<bool, String> {
        let mut next = Some((conn, bytes, arrived));
        let mut relayed = false;
        let mut refusal = None;
        let mut taken = 0;
        while let Some((conn, bytes, arrived)) = next.take() {
            taken += 1;
            match self.take_message(conn, &bytes, arrived) {
                Taken::Accepted => relayed = true,
                Taken::Refused(frame) => {
                    relayed = true;
                    refusal = Some((conn, frame));
                    break;
                }
                Taken::Closed => break,
            }
            if taken >= MAX_MESSAGES_PER_FLUSH {
                break;
            }
            match self.rx.try_recv() {
                Ok(Command::Message { conn, bytes, arrived }) => {
                    next = Some((conn, bytes, arrived))
                }
                Ok(other) => {
                    self.deferred = Some(other);
                    break;
                }
                Err(_) => break,
            }
        }
        if !relayed {
            return Ok(false);
        }
        let over = self.after_relay().await?;
        if let Some((conn, frame)) = refusal {
            self.send_frame(conn, &frame, &mut None);
            let max = self.shared.config.limits.max_refusals_per_connection;
            let over = self.subs.get_mut(&conn).is_some_and(|sub| {
                sub.refusals += 1;
                sub.refusals > max
            });
            if over {
                self.close_sub(
                    conn,
                    format!(
                        "more than {max} refused messages on this socket \
                         (max_refusals_per_connection)"
                    ),
                );
                metrics::counter!(crate::metrics::CONNECTIONS_REFUSED).increment(1);
            }
        }
        Ok(over)
    }

    /// One message from subscription `conn`, given to the relay (not yet stored or pushed).
    fn take_message(&mut self, conn: u64, bytes: &[u8], arrived: Instant) -> Taken {
        let Some(sub) = self.subs.get(&conn) else { return Taken::Closed };
        let Some(key) = sub.key.filter(|k| self.parties.contains(k)) else {
            self.close_sub(conn, "only the match's players and umpire send messages".into());
            return Taken::Closed;
        };
        // The receipt says when the frame was read from the socket: the relay never goes
        // back in time (it takes the later of this and its last time), but a message that
        // waited in this task's queue is not charged the wait.
        let waited = u64::try_from(arrived.elapsed().as_millis()).unwrap_or(u64::MAX);
        let now = self.relay_now().saturating_sub(waited);
        // The close notice carries wall time, which an outage does not hold back.
        self.relay.set_wall_ms(self.shared.clock.now_ms());
        // The author must be the signed-in key (checked first): nobody writes for another
        // seat, even with a signature the relay would accept (a stolen message replayed by
        // someone else).
        match self.relay.accept_by(&key, bytes, now) {
            Ok(accepted) => {
                metrics::counter!(crate::metrics::MESSAGES_ACCEPTED).increment(1);
                self.arrivals.push((accepted.index, arrived));
                self.admitted.push((accepted.index, accepted.body.channel));
                Taken::Accepted
            }
            Err(SenderError::Impostor { author }) => {
                self.close_sub(
                    conn,
                    format!(
                        "signed in as {key}, but this message is by {author}: nobody writes \
                         for another party"
                    ),
                );
                Taken::Closed
            }
            Err(SenderError::Refused(e)) => {
                metrics::counter!(crate::metrics::MESSAGES_REFUSED).increment(1);
                let hash = SignedMessage::from_canonical(bytes).ok().map(|m| m.hash());
                Taken::Refused(Bytes::from(
                    ServerFrame::refused(hash, &e.to_string()).to_canonical(),
                ))
            }
        }
    }

    /// A message forwarded by a delivery witness: accepted as from its author's socket (the
    /// signature is the author's; who carried it does not matter), answered once stored.
    async fn deliver(
        &mut self,
        bytes: Vec<u8>,
        arrived: Instant,
        reply: oneshot::Sender<Result<Entry, String>>,
    ) -> Result<bool, String> {
        let Ok(message) = SignedMessage::from_canonical(&bytes) else {
            let _ = reply.send(Err("not a signed message".into()));
            return Ok(false);
        };
        // Already in the log (its receipt was only late): the same entry again. The same
        // signed message is the same bytes (no hash of every entry per delivery).
        if let Some(e) = self.relay.entries().iter().find(|e| e.message == message).cloned() {
            let _ = reply.send(Ok(e));
            return Ok(false);
        }
        let waited = u64::try_from(arrived.elapsed().as_millis()).unwrap_or(u64::MAX);
        let now = self.relay_now().saturating_sub(waited);
        let answer = match self.relay.accept(&bytes, now) {
            Ok(accepted) => {
                metrics::counter!(crate::metrics::MESSAGES_ACCEPTED).increment(1);
                self.arrivals.push((accepted.index, arrived));
                self.admitted.push((accepted.index, accepted.body.channel));
                Ok(accepted.entry)
            }
            Err(e) => {
                metrics::counter!(crate::metrics::MESSAGES_REFUSED).increment(1);
                Err(e.to_string())
            }
        };
        let over = self.after_relay().await?;
        let _ = reply.send(answer);
        Ok(over)
    }

    /// After the relay moved: its events, then store and push the new entries; `Ok(true)` if
    /// the match is over.
    async fn after_relay(&mut self) -> Result<bool, String> {
        while let Some(event) = self.relay.poll_event() {
            if let RelayEvent::Closed { .. } = event {
                self.close_at_ms =
                    Some(self.shared.clock.now_ms() + self.shared.config.deadlines.countersign_ms);
            }
        }
        self.flush().await?;
        self.refresh_info();
        if self.relay.coordinator().is_closed() {
            let signed = self.relay.coordinator().countersigned();
            if self.parties.iter().all(|p| signed.contains(p)) {
                self.finish().await?;
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Stores the entries not yet stored, then pushes each to the sockets that may read it.
    /// Each entry is encoded once: its stored row, and its `Entry` frame from the same bytes.
    async fn flush(&mut self) -> Result<(), String> {
        let entries = self.relay.entries();
        if self.persisted == entries.len() {
            return Ok(());
        }
        let mut channels = Vec::with_capacity(entries.len() - self.persisted);
        let mut frames = Vec::with_capacity(entries.len() - self.persisted);
        let mut rows = Vec::with_capacity(entries.len() - self.persisted);
        for (i, e) in entries.iter().enumerate().skip(self.persisted) {
            // The channel as the relay admitted it (no second decoding of the body), else from
            // the entry (entries the relay wrote itself).
            let channel = match self.admitted.iter().find(|(at, _)| *at == i) {
                Some((_, c)) => *c,
                None => body_of(&e.message).map_or(Channel::Public, |b| b.channel),
            };
            let bytes = e.to_canonical();
            frames.push(Bytes::from(ServerFrame::entry(&bytes)));
            channels.push(channel);
            rows.push(EntryRow { match_id: self.row.id, seq: i as u64, bytes });
        }
        self.admitted.clear();
        let started = Instant::now();
        self.shared.committer.commit(rows).await.map_err(|e| e.to_string())?;
        self.host_stall(started.elapsed());
        for (frame, channel) in frames.into_iter().zip(channels) {
            self.channels.push(channel);
            let readers: Vec<u64> = self
                .subs
                .iter()
                .filter(|(_, s)| self.may_read(s.key.as_ref(), channel))
                .map(|(c, _)| *c)
                .collect();
            let mut wrapped = None;
            for conn in readers {
                self.send_frame(conn, &frame, &mut wrapped);
            }
            self.persisted += 1;
        }
        for (_, arrived) in self.arrivals.drain(..) {
            metrics::histogram!(crate::metrics::RECEIPT_SECONDS).record(arrived.elapsed());
        }
        Ok(())
    }

    /// A storage commit took `took`: what it took beyond `max_host_stall_ms` is the host's
    /// delay, and relay time stands still for it (as over a restart): the clock that was
    /// running is not charged for it, and the deadlines move with it.
    fn host_stall(&mut self, took: std::time::Duration) {
        let took_ms = u64::try_from(took.as_millis()).unwrap_or(u64::MAX);
        let excess = took_ms.saturating_sub(self.shared.config.limits.max_host_stall_ms);
        if excess > 0 {
            metrics::counter!(crate::metrics::HOST_STALLS, "cause" => "storage").increment(1);
            tracing::warn!(
                match_id = %crate::store::sqlite::id_text(&self.row.id),
                took_ms,
                "a storage commit stalled; the excess is charged to nobody"
            );
            self.offset_ms = self.offset_ms.saturating_add(excess);
        }
    }

    /// Whether the deadline timer fired more than `max_timer_lag_ms` late: the host did not
    /// run this match for that long (a storage commit held the task, or its runtime was
    /// behind), so the party that owes may not have been sent its question, or its answer may
    /// wait unread in a socket. Relay time then stands still for the lateness and
    /// `max_timer_lag_ms` more (the deadline is not missed yet), and the deadline is checked
    /// again that long after the host caught up; a timer on time (or late by less) times out
    /// as due. It only ever delays a timeout, for every party of the match alike, and no party
    /// can make one match's timer late without loading the whole host (which admission
    /// bounds).
    fn timer_lagged(&mut self) -> bool {
        let Some(due) = self.relay.poll_timeout() else { return false };
        let fire = due.saturating_add(1);
        let late = self.relay_now().saturating_sub(fire);
        if late <= self.shared.config.limits.max_timer_lag_ms {
            return false;
        }
        metrics::counter!(crate::metrics::HOST_STALLS, "cause" => "timer").increment(1);
        tracing::warn!(
            match_id = %crate::store::sqlite::id_text(&self.row.id),
            late_ms = late,
            "a deadline's timer fired late; relay time stands still for it"
        );
        // Relay time goes back to `max_timer_lag_ms` before the timer was due to fire.
        let grace = self.shared.config.limits.max_timer_lag_ms;
        self.offset_ms = self.offset_ms.saturating_add(late.saturating_add(grace));
        true
    }

    /// Tells the host's umpire backlog whether this match waits for its umpire, and since
    /// when (a new deadline is a new question: it is owed from now).
    fn owes_umpire(&mut self, deadlines: &[protocol::coordinator::Deadline]) {
        let Some((key, before)) = self.umpire else { return };
        let now = deadlines
            .iter()
            .find(|d| d.party == protocol::Party::Umpire)
            .map(|d| (d.due_ms, d.expectation));
        if now == before {
            return;
        }
        let item = crate::admission::Owed::Answer(self.row.id);
        match now {
            Some(_) => self.shared.umpires.owe(key, item, tokio::time::Instant::now()),
            None => self.shared.umpires.paid(&key, &item),
        }
        self.umpire = Some((key, now));
    }

    fn refresh_info(&mut self) {
        let deadlines = self.relay.coordinator().deadlines();
        self.owes_umpire(&deadlines);
        let colors = self.relay.colors();
        let coordinator = self.relay.coordinator();
        let now = self.relay_now();
        let running = deadlines
            .into_iter()
            .find(|d| d.expectation == protocol::message::Expectation::Move)
            .and_then(|d| d.party.side().map(|s| (s, d.due_ms)));
        let (clocks, running) = if self.open_game {
            let clock = |side: Color| match running {
                Some((s, due)) if s == side => due.saturating_sub(now),
                _ => coordinator.remaining_ms(side),
            };
            ([clock(Color::White), clock(Color::Black)], running.map(|(s, _)| s))
        } else {
            // Only what changes at a change of turn (the type's docs).
            if self.ended.is_none()
                && let Some((side, due_ms)) = running
                && self.turn.map(|t| t.side) != Some(side)
            {
                let other_ms = coordinator.remaining_ms(side.other());
                self.turn = Some(TurnClock { side, due_ms, other_ms });
            }
            let at = |t: TurnClock, when: u64| {
                let mine = t.due_ms.saturating_sub(when);
                match t.side {
                    Color::White => [mine, t.other_ms],
                    Color::Black => [t.other_ms, mine],
                }
            };
            let initial = self.agreed.terms.time_control.initial_ms;
            if self.ended.is_none() && coordinator.is_over() {
                self.ended = Some(self.turn.map_or([initial; 2], |t| at(t, now)));
            }
            match (self.ended, self.turn) {
                (Some(clocks), _) => (clocks, None),
                (None, Some(t)) => (at(t, now), Some(t.side)),
                (None, None) => ([initial; 2], None),
            }
        };
        let mut info = self.info.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        // The colors are drawn once: their text is made once, not on every message.
        if info.white.is_none()
            && let Some(c) = colors
        {
            info.white = Some(c.white.to_string());
            info.black = Some(c.black.to_string());
        }
        info.white_ms = clocks[0];
        info.black_ms = clocks[1];
        info.running = running.map(|s| match s {
            Color::White => "white",
            Color::Black => "black",
        });
        info.entries = self.open_game.then_some(self.persisted as u64);
        info.stored = self.persisted as u64;
    }

    /// The match is over: the record, its verdict, stored; every socket told; the ledger hook.
    async fn finish(&mut self) -> Result<(), String> {
        let record = MatchRecord {
            version: protocol::codec::VERSION,
            terms: self.signed.clone(),
            entries: self.relay.entries().to_vec(),
        };
        let bytes = Arc::new(record.to_canonical());
        let for_verifier = bytes.clone();
        let verified = tokio::task::spawn_blocking(move || verifier::verify_match(&for_verifier))
            .await
            .map_err(|e| format!("verifier task: {e}"))?;
        let finish = Finish {
            finished_ms: self.shared.clock.now_ms(),
            record_sha256: verified.record_sha256,
            verdict: verifier::json::verified(&verified).to_string(),
            result: verified.result.map_or("*", |r| r.score()).to_owned(),
        };
        self.shared.store.finish_match(&self.row.id, &finish).await.map_err(|e| e.to_string())?;
        metrics::counter!(crate::metrics::MATCHES_FINISHED).increment(1);
        let done =
            Bytes::from(ServerFrame::Finished { entries: self.persisted as u64 }.to_canonical());
        let mut wrapped = None;
        let conns: Vec<u64> = self.subs.keys().copied().collect();
        for conn in conns {
            self.send_frame(conn, &done, &mut wrapped);
            self.close_sub(conn, MATCH_OVER.into());
        }
        let event = serde_json::json!({
            "type": "gameFinish",
            "game": {
                "id": crate::store::sqlite::id_text(&self.row.id),
                "variant": self.row.variant,
                "result": finish.result,
                "status": if verified.verdict.is_valid() { "valid" } else { "faults" },
            }
        });
        let unique: BTreeSet<PublicKey> = self.parties.iter().copied().collect();
        self.shared.events.send_all(unique.iter(), &event);
        self.shared.finished(FinishedMatch {
            row: self.row.clone(),
            record: bytes,
            verified,
            finished_ms: finish.finished_ms,
        });
        Ok(())
    }
}

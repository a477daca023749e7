//! A seat: one participant machine (a [`Player`] or the [`Umpire`]) driven over a match socket,
//! with its journal, reconnecting until the match is over (docs/SERVER.md, the agent).
//!
//! The machines are the sans-IO ones of `protocol::roles`, unchanged: the seat feeds them the
//! entries the server delivers and the decisions of its [`Decider`], and sends what they
//! write. Every decision is journaled (fsynced) before the machine sees it, so a seat rebuilt
//! from its journal after a crash writes the very same messages again; those the relay already
//! has are recognised by hash and not sent twice, the others are sent once the socket has
//! caught up.

use crate::journal::{Journal, Record};
use crate::net::{MatchSocket, NetError, Session};
use protocol::codec::Canonical;
use protocol::message::{Claim, SignedMessage};
use protocol::relay::Entry;
use protocol::roles::{Ask, Input, Output, Participant, Player, Policy, Umpire};
use protocol::terms::AgreedTerms;
use protocol::wire::ServerFrame;
use protocol::{MatchId, MessageHash};
use std::collections::VecDeque;
use thiserror::Error;
use tokio::sync::mpsc;

/// The machine a seat drives.
pub enum Machine {
    /// A player.
    Player(Box<Player>),
    /// The umpire.
    Umpire(Box<Umpire>),
}

impl Machine {
    fn handle(&mut self, input: Input) -> Result<(), String> {
        match self {
            Machine::Player(p) => p.handle(input).map_err(|e| e.to_string()),
            Machine::Umpire(u) => u.handle(input).map_err(|e| e.to_string()),
        }
    }

    fn poll_output(&mut self) -> Option<Output> {
        match self {
            Machine::Player(p) => p.poll_output(),
            Machine::Umpire(u) => u.poll_output(),
        }
    }

    fn take_opened(&mut self) -> Option<MessageHash> {
        match self {
            Machine::Player(p) => p.take_opened(),
            Machine::Umpire(u) => u.take_opened(),
        }
    }

    /// The player, if this is one.
    pub fn player(&self) -> Option<&Player> {
        match self {
            Machine::Player(p) => Some(p),
            Machine::Umpire(_) => None,
        }
    }
}

/// Who answers a player's questions.
pub enum Decider {
    /// A policy in this process (a house bot), asked at once.
    Policy(Box<dyn Policy>),
    /// Someone else (a person at a UI, a bot behind the local API): questions go out as
    /// [`SeatEvent::Ask`], answers come back as [`SeatCommand::Decide`].
    Remote(mpsc::Receiver<SeatCommand>),
    /// Nobody (the umpire).
    None,
}

/// What a remote decider sends a seat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SeatCommand {
    /// The answer to the last question: the game's action or setup, typed.
    Decide(rules::AnyAction),
    /// Resign.
    Resign,
    /// Offer a draw, or accept the opponent's standing offer (`Player::offer_draw`).
    OfferDraw,
}

/// What a seat reports as the match goes on.
#[derive(Clone, Debug)]
pub enum SeatEvent {
    /// The socket is open (again) and the terms are known.
    Joined {
        /// The terms.
        terms: Box<AgreedTerms>,
    },
    /// An entry was delivered to the machine.
    Entry(Box<Entry>),
    /// What the player knows changed: its seat's view (never hidden truth) and the standing
    /// draw offer as it can tell. Reported to a remote decider only, before each question.
    View {
        /// The seat's snapshot.
        view: Box<rules::seat::SeatView>,
        /// Who offers a draw, if anyone does.
        draw_offer: Option<rules::Color>,
    },
    /// The player must decide (told once per question; the next question comes only after
    /// this one is answered).
    Ask(Ask),
    /// The relay refused one of the seat's messages.
    Refused(String),
    /// The machine found a fault in what it was delivered.
    Fault(String),
    /// The machine considers the match over with this result.
    Claimed(Claim),
    /// The record is final.
    Finished {
        /// Its bytes, as the server published them.
        record: Vec<u8>,
    },
}

/// Why a seat stopped before the end.
#[derive(Debug, Error)]
pub enum SeatError {
    /// The server refused the seat for good (not transient).
    #[error(transparent)]
    Net(#[from] NetError),
    /// The journal could not be written: the seat stops rather than send what it could not
    /// make durable.
    #[error(transparent)]
    Journal(#[from] crate::journal::JournalError),
    /// The published record does not hold an entry this seat received (the relay showed it
    /// another history).
    #[error("the published record differs from what this seat received: {0}")]
    Record(String),
    /// The relay serves this umpire seat to another connection of the same key (another
    /// umpire process took it: the seat's live socket is its lease): this one leaves it.
    #[error("{}", protocol::wire::UMPIRE_SEATED)]
    Taken,
}

/// Whether `e` is the relay's refusal of a second connection of a match's umpire.
fn seat_taken(e: &NetError) -> bool {
    matches!(e, NetError::Connect { why, .. } if why.contains(protocol::wire::UMPIRE_SEATED))
}

/// A seat.
pub struct Seat {
    session: Session,
    terms: AgreedTerms,
    machine: Machine,
    journal: Journal,
    decider: Decider,
    events: Option<mpsc::UnboundedSender<SeatEvent>>,
    /// The index, among the entries this seat may read, of the last one delivered to the
    /// machine (what `Hello` names; it counts nothing of another side's channel).
    since: Option<u64>,
    /// The last position delivered on each channel (by [`protocol::Channel::byte`]), to know an
    /// entry sent again.
    positions: [Option<u64>; 3],
    /// Messages the machine wrote that the log does not show yet, in order, with their hashes
    /// (computed once, not on every delivery).
    unconfirmed: VecDeque<(MessageHash, SignedMessage)>,
    /// Journaled decisions not yet replayed (after a resume).
    replay: VecDeque<Record>,
    /// The question outstanding, if any.
    question: Option<Ask>,
    /// Whether the remote decider was told of it (each question is told once, so an answer
    /// can never be taken for the answer to a later one).
    told: bool,
    /// Entries received, by channel and position (to compare with the published record). Kept
    /// decoded: both sides are decoded canonically (one encoding per value), so comparing the
    /// values compares the bytes, without encoding each entry again as it arrives.
    received: Vec<((protocol::Channel, u64), Entry)>,
    claim: Option<Claim>,
    /// The last view reported (to report only changes).
    shown: Option<(rules::seat::SeatView, Option<rules::Color>)>,
    /// The delivery witness late messages are offered to, if any ([`Seat::with_courier`]).
    courier: Option<crate::delivery::Courier>,
    /// The relay's receipt times checked against this seat's clock
    /// ([`crate::receipt_time`]).
    receipt_clock: crate::receipt_time::ReceiptClock,
    /// With a delivery witness: what the machine wrote that waits, in order, until every
    /// message sent before has its receipt, was refused, or has its notice
    /// ([`crate::delivery::Courier::may_send`], docs/PROTOCOL.md 16a).
    held: VecDeque<(MessageHash, SignedMessage)>,
    /// The hashes of messages whose notice the offering task obtained.
    noticed: (mpsc::UnboundedSender<MessageHash>, mpsc::UnboundedReceiver<MessageHash>),
    /// The seat's clock's origin (its milliseconds are since this instant).
    origin: tokio::time::Instant,
    /// The owner's URL named by the last socket's refusal (a cluster node that does not run
    /// the match), to follow ([`Seat::follow`]).
    moved: Option<String>,
    /// The origins followed since the match was last reached (at most
    /// [`crate::net::MAX_REDIRECTS`]; one named twice is a loop, not followed).
    hops: Vec<String>,
}

impl Seat {
    /// A seat for `machine` (fresh, or rebuilt: then `journaled` holds the journal's records
    /// after `Start`, replayed as the entries come back).
    pub fn new(
        session: Session,
        terms: AgreedTerms,
        machine: Machine,
        journal: Journal,
        journaled: Vec<Record>,
        decider: Decider,
        events: Option<mpsc::UnboundedSender<SeatEvent>>,
    ) -> Seat {
        let replay = journaled
            .into_iter()
            .filter(|r| {
                matches!(
                    r,
                    Record::Decision { .. } | Record::Resign { .. } | Record::OfferDraw { .. }
                )
            })
            .collect();
        Seat {
            session,
            terms,
            machine,
            journal,
            decider,
            events,
            since: None,
            positions: [None; 3],
            unconfirmed: VecDeque::new(),
            replay,
            question: None,
            told: false,
            received: Vec::new(),
            claim: None,
            shown: None,
            courier: None,
            receipt_clock: crate::receipt_time::ReceiptClock::new(),
            held: VecDeque::new(),
            noticed: mpsc::unbounded_channel(),
            origin: tokio::time::Instant::now(),
            moved: None,
            hops: Vec::new(),
        }
    }

    /// The seat's monotonic clock, in ms since it was made.
    fn now_ms(&self) -> u64 {
        u64::try_from(self.origin.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// A receipt of this seat's own message whose time its clock contradicts
    /// ([`crate::receipt_time`]): reported as a fault naming the relay, kept as evidence beside
    /// the journal (`<match id>.<message hash prefix>.receipt-time.json`), and, where a delivery
    /// witness is configured, the message is offered to it so that its signed notice (the
    /// witness's time for the message, and the relay's receipt again) is kept too.
    fn receipt_time_fault(&mut self, finding: &crate::receipt_time::TimeFinding, entry: &Entry) {
        let id = self.terms.match_id;
        let relay = self.terms.terms.relay;
        let mut said = format!("{} (relay {relay})", finding.describe());
        let (skew, by_ms) = match finding.skew {
            crate::receipt_time::Skew::PostDated { by_ms } => ("post-dated", by_ms),
            crate::receipt_time::Skew::PreDated { by_ms } => ("pre-dated", by_ms),
        };
        let evidence = serde_json::json!({
            "finding": "receipt time",
            "relay": relay.to_string(),
            "match_id": protocol::hex::encode(&id.0),
            "message": finding.message.to_string(),
            "skew": skew,
            "by_ms": by_ms,
            "receipt_time_ms": finding.time_ms,
            "sent_ms": finding.sent_ms,
            "arrived_ms": finding.arrived_ms,
            "clock": "this agent's monotonic clock, ms since its seat began",
            "tolerance_ms": crate::receipt_time::RECEIPT_TIME_TOLERANCE_MS,
            "entry": protocol::hex::encode(&entry.to_canonical()),
            "explanation": finding.describe(),
        });
        if let Some(dir) = self.journal.path().parent() {
            let h = protocol::hex::encode(&finding.message.0);
            let file = dir.join(format!(
                "{}.{}.receipt-time.json",
                protocol::hex::encode(&id.0),
                &h[..16]
            ));
            match serde_json::to_vec_pretty(&evidence)
                .map_err(|e| e.to_string())
                .and_then(|b| std::fs::write(&file, b).map_err(|e| e.to_string()))
            {
                Ok(()) => said.push_str(&format!("; evidence kept at {}", file.display())),
                Err(e) => said.push_str(&format!("; the evidence could not be kept: {e}")),
            }
        }
        tracing::warn!("{said}");
        self.report(SeatEvent::Fault(said));
        let Some(courier) = self.courier.clone() else { return };
        let (message, events) = (entry.message.clone(), self.events.clone());
        tokio::spawn(async move {
            let said = match courier.offer(id, &message).await {
                Ok(o) => format!(
                    "the message with the contested receipt time was offered to the delivery \
                     witness; its notice is kept at {}",
                    o.file.display()
                ),
                Err(why) => format!(
                    "the message with the contested receipt time could not be offered to the \
                     delivery witness: {why}"
                ),
            };
            tracing::info!("{said}");
            if let Some(tx) = &events {
                let _ = tx.send(SeatEvent::Fault(said));
            }
        });
    }

    /// Offers every message that gets no receipt within `delivery::GRACE_MS` to a delivery
    /// witness, and keeps its notices (docs/PROTOCOL.md, delivery notices).
    #[must_use]
    pub fn with_courier(mut self, courier: crate::delivery::Courier) -> Seat {
        self.courier = Some(courier);
        self
    }

    /// Offers the overdue unreceipted messages to the delivery witness, in a task of their own
    /// (the seat goes on meanwhile; an entry the relay then makes comes through the socket).
    fn offer_overdue(&mut self) {
        let Some(courier) = self.courier.as_mut() else { return };
        let unconfirmed: Vec<_> = self.unconfirmed.iter().cloned().collect();
        let late = courier.take_overdue(&unconfirmed);
        if late.is_empty() {
            return;
        }
        let (courier, id, events) = (courier.clone(), self.terms.match_id, self.events.clone());
        let noticed = self.noticed.0.clone();
        tokio::spawn(async move {
            let hashes: Vec<MessageHash> = late.iter().map(SignedMessage::hash).collect();
            for (r, h) in courier.offer_all(id, late).await.into_iter().zip(hashes) {
                if r.is_ok() {
                    let _ = noticed.send(h);
                }
                let said = match r {
                    Ok(o) => match o.relay {
                        protocol::delivery::RelayAnswer::Receipted(_) => {
                            tracing::info!(notice = %o.file.display(), "a late message went through the delivery witness");
                            continue;
                        }
                        protocol::delivery::RelayAnswer::Refused(why)
                        | protocol::delivery::RelayAnswer::Unreachable(why) => format!(
                            "the relay did not receipt a message the delivery witness forwarded \
                             ({why}); if it times this seat out, the notice kept at {} proves a \
                             relay fault: dropped message (fogproof verify RECORD --notice FILE \
                             --witness-key KEY)",
                            o.file.display()
                        ),
                    },
                    Err(why) => format!(
                        "a late message could not be offered to the delivery witness: {why}"
                    ),
                };
                tracing::warn!("{said}");
                if let Some(tx) = &events {
                    let _ = tx.send(SeatEvent::Fault(said));
                }
            }
        });
    }

    fn report(&self, e: SeatEvent) {
        if let Some(tx) = &self.events {
            let _ = tx.send(e);
        }
    }

    /// Reports the player's view if it changed (only when someone listens).
    fn report_view(&mut self) {
        if self.events.is_none() {
            return;
        }
        let Some(p) = self.machine.player() else { return };
        let Some(view) = p.view() else { return };
        let now = (view, p.draw_offer());
        if self.shown.as_ref() == Some(&now) {
            return;
        }
        self.report(SeatEvent::View { view: Box::new(now.0.clone()), draw_offer: now.1 });
        self.shown = Some(now);
    }

    /// The match id.
    pub fn match_id(&self) -> MatchId {
        self.terms.match_id
    }

    /// Runs the seat until the record is final; returns the record's bytes. A cluster node
    /// that does not run the match names the node that does (docs/SERVER.md, several nodes):
    /// the seat follows it at once ([`Seat::follow`]), and goes back to its configured server
    /// once that node's socket drops.
    pub async fn run(mut self) -> Result<Vec<u8>, SeatError> {
        let id = self.terms.match_id;
        let mut backoff = crate::retry::Delays::default();
        self.drain(None).await?;
        // The owner node's session, while the seat follows a redirect.
        let mut at: Option<Session> = None;
        loop {
            let session = at.clone().unwrap_or_else(|| self.session.clone());
            let socket = match session.open(&id, self.since).await {
                Ok(s) => s,
                Err(e) if seat_taken(&e) => return Err(SeatError::Taken),
                Err(e) if e.is_transient() || at.is_some() => {
                    at = None;
                    self.hops.clear();
                    backoff.sleep().await;
                    continue;
                }
                Err(e) => return Err(e.into()),
            };
            match self.serve(socket).await? {
                Some(record) => {
                    self.journal.append(&Record::Finished)?;
                    self.report(SeatEvent::Finished { record: record.clone() });
                    return Ok(record);
                }
                None => {
                    if let Some(url) = self.moved.take()
                        && let Some(next) = self.follow(&url).await
                    {
                        at = Some(next);
                        continue;
                    }
                    at = None;
                    self.hops.clear();
                    backoff.sleep().await;
                }
            }
        }
    }

    /// The session at the node a redirect named, if the seat follows it: at most
    /// [`crate::net::MAX_REDIRECTS`] in a row, never to an origin already followed since the
    /// match was last reached (nor to the configured server's: a loop), and only where
    /// [`Session::at_node`] accepts the address and finds the relay key of this match's terms
    /// there (a sign-in of its own: the configured server's token never goes to it).
    async fn follow(&mut self, url: &str) -> Option<Session> {
        let id = crate::net::hex_id(&self.terms.match_id);
        if self.hops.len() >= crate::net::MAX_REDIRECTS {
            tracing::warn!(match_id = %id, to = url, "too many redirects in a row: waiting");
            return None;
        }
        let next = match self.session.at_node(url, &self.terms.terms.relay).await {
            Ok(s) => s,
            Err(e) => {
                tracing::warn!(match_id = %id, to = url, error = %e, "redirect not followed");
                return None;
            }
        };
        let to = next.base().to_owned();
        if to == self.session.base() || self.hops.contains(&to) {
            tracing::warn!(match_id = %id, to = url, "a redirect loop: waiting");
            return None;
        }
        self.hops.push(to);
        Some(next)
    }

    /// One socket's life; `Some(record)` at the end of the match, `None` if the socket
    /// dropped.
    async fn serve(&mut self, mut socket: MatchSocket) -> Result<Option<Vec<u8>>, SeatError> {
        let catch_up = match socket.next().await {
            Some(Ok(ServerFrame::Welcome { catch_up, .. })) => catch_up,
            Some(Ok(ServerFrame::Refused { reason, .. })) => {
                self.moved = protocol::wire::redirect_target(&reason).map(str::to_owned);
                self.report(SeatEvent::Refused(reason));
                return Ok(None);
            }
            Some(Err(e)) if seat_taken(&e) => return Err(SeatError::Taken),
            Some(Err(e)) => {
                self.moved = e.moved_to().map(str::to_owned);
                return Ok(None);
            }
            _ => return Ok(None),
        };
        self.hops.clear();
        self.report(SeatEvent::Joined { terms: Box::new(self.terms.clone()) });
        self.receipt_clock.reconnected();
        self.shown = None;
        self.report_view();
        for _ in 0..catch_up {
            match socket.next().await {
                Some(Ok(ServerFrame::Entry(e))) => self.deliver(e, None).await?,
                _ => return Ok(None),
            }
        }
        // Caught up: what the machine wrote that the log does not show goes out now.
        for (h, m) in self.unconfirmed.clone() {
            if socket.send(&m).await.is_err() {
                return Ok(None);
            }
            let now = self.now_ms();
            self.receipt_clock.sent(h, now);
        }
        self.release(Some(&mut socket)).await;
        loop {
            let due = self
                .courier
                .as_ref()
                .and_then(|c| c.next_due(self.unconfirmed.iter().map(|(h, _)| h)));
            let release_at = if self.held.is_empty() {
                None
            } else {
                self.courier
                    .as_ref()
                    .and_then(|c| c.next_release(self.unconfirmed.iter().map(|(h, _)| h)))
            };
            let release = async {
                match release_at {
                    Some(at) => tokio::time::sleep_until(at).await,
                    None => std::future::pending().await,
                }
            };
            let noticed = &mut self.noticed.1;
            let late = async {
                match due {
                    Some(at) => tokio::time::sleep_until(at).await,
                    None => std::future::pending().await,
                }
            };
            let command = async {
                match &mut self.decider {
                    Decider::Remote(rx) => rx.recv().await,
                    _ => std::future::pending().await,
                }
            };
            tokio::select! {
                frame = socket.next() => match frame {
                    Some(Ok(ServerFrame::Entry(e))) => self.deliver(e, Some(&mut socket)).await?,
                    Some(Ok(ServerFrame::Refused { message, reason })) => {
                        if let Some(h) = message {
                            self.unconfirmed.retain(|(u, _)| *u != h);
                        }
                        self.report(SeatEvent::Refused(reason));
                        self.release(Some(&mut socket)).await;
                    }
                    Some(Ok(ServerFrame::Finished { .. })) => return self.finished().await.map(Some),
                    // A second Welcome, or frames of the multiplexed socket itself (the match
                    // socket unwraps them): start again.
                    Some(Ok(
                        ServerFrame::Welcome { .. } | ServerFrame::For { .. } | ServerFrame::Left { .. },
                    ))
                    | Some(Err(_))
                    | None => return Ok(None),
                },
                cmd = command => match cmd {
                    Some(cmd) => self.command(cmd, Some(&mut socket)).await?,
                    // The remote decider is gone: the player waits for its clock to run out.
                    None => self.decider = Decider::None,
                },
                () = late => self.offer_overdue(),
                Some(h) = noticed.recv() => {
                    if let Some(c) = self.courier.as_mut() {
                        c.noticed(h);
                    }
                    self.release(Some(&mut socket)).await;
                }
                () = release => self.release(Some(&mut socket)).await,
            }
        }
    }

    async fn deliver(
        &mut self,
        entry: Entry,
        mut socket: Option<&mut MatchSocket>,
    ) -> Result<(), SeatError> {
        // The machine checks the relay's signature on the receipt first thing and changes
        // nothing if it is wrong; the seat decodes the receipt for its position only and checks
        // the signature itself only when the machine refused the entry or it is a repeat, so a
        // delivered entry costs one verification of the receipt, not two (docs/LOADTEST.md).
        let relay = self.terms.terms.relay;
        let not_the_relays = |entry: &Entry| entry.receipt.open(&relay).is_err();
        let Ok(receipt) = protocol::message::Receipt::from_canonical(&entry.receipt.receipt) else {
            self.report(SeatEvent::Fault("an entry whose receipt is not the relay's".into()));
            return Ok(());
        };
        let channel = usize::from(receipt.channel.byte());
        if self.positions[channel].is_some_and(|p| receipt.position <= p) {
            if not_the_relays(&entry) {
                self.report(SeatEvent::Fault("an entry whose receipt is not the relay's".into()));
            }
            return Ok(());
        }
        let handled = self.machine.handle(Input::Delivered(entry.clone()));
        // The machine hashed the message when it opened the entry; hashed here only if it did
        // not get that far.
        let hash: MessageHash = self.machine.take_opened().unwrap_or_else(|| entry.message.hash());
        if let Err(e) = handled {
            if not_the_relays(&entry) {
                self.report(SeatEvent::Fault("an entry whose receipt is not the relay's".into()));
                return Ok(());
            }
            self.report(SeatEvent::Fault(e));
        } else {
            // The machine checked the relay's signature on the receipt: its time is the
            // relay's word, checked against this seat's clock.
            let now = self.now_ms();
            let live = socket.is_some();
            if let Some(f) = self.receipt_clock.delivered(hash, receipt.time_ms, now, live) {
                self.receipt_time_fault(&f, &entry);
            }
        }
        self.unconfirmed.retain(|(u, _)| *u != hash);
        self.release(socket.as_deref_mut()).await;
        self.positions[channel] = Some(receipt.position);
        self.since = Some(self.since.map_or(0, |s| s + 1));
        // Copied only for a listener (none for the umpire's seats); the seat keeps the entry.
        if self.events.is_some() {
            self.report(SeatEvent::Entry(Box::new(entry.clone())));
        }
        self.received.push(((receipt.channel, receipt.position), entry));
        self.drain(socket).await?;
        self.report_view();
        Ok(())
    }

    /// With a delivery witness, sends the held messages that may go now (docs/PROTOCOL.md 16a):
    /// the first only once every unconfirmed message before it has its receipt, its refusal,
    /// or its notice and [`crate::delivery::NOTICE_WAIT_MS`] since.
    async fn release(&mut self, mut socket: Option<&mut MatchSocket>) {
        while let Some(c) = self.courier.as_ref() {
            if self.held.is_empty() || !c.may_send(self.unconfirmed.iter().map(|(h, _)| h)) {
                return;
            }
            let Some((h, m)) = self.held.pop_front() else { return };
            if let Some(s) = socket.as_deref_mut()
                && s.send(&m).await.is_ok()
            {
                let now = self.now_ms();
                self.receipt_clock.sent(h, now);
            }
            if let Some(c) = self.courier.as_mut() {
                c.sent(h);
            }
            self.unconfirmed.push_back((h, m));
        }
    }

    /// Sends (or queues) what the machine wrote, answers its questions, replays journaled
    /// decisions due at this position.
    async fn drain(&mut self, mut socket: Option<&mut MatchSocket>) -> Result<(), SeatError> {
        loop {
            while let Some(out) = self.machine.poll_output() {
                match out {
                    Output::Send(m) => {
                        let h = m.hash();
                        if self.courier.is_some() {
                            // In order, each only once those before are receipted or noticed.
                            self.held.push_back((h, m));
                            self.release(socket.as_deref_mut()).await;
                            continue;
                        }
                        if let Some(s) = socket.as_deref_mut()
                            && s.send(&m).await.is_ok()
                        {
                            let now = self.now_ms();
                            self.receipt_clock.sent(h, now);
                        }
                        self.unconfirmed.push_back((h, m));
                    }
                    Output::Decide(ask) => {
                        self.question = Some(ask);
                        self.told = false;
                    }
                    Output::Finished(claim) => {
                        // The view with the last move first: whoever reads the end (a lichess
                        // bot's `gameState` with status `mate`) sees the board it ended on.
                        self.report_view();
                        self.report(SeatEvent::Claimed(claim.clone()));
                        self.claim = Some(claim);
                    }
                }
            }
            // A journaled decision (after a resume) due now goes first.
            let due = match self.replay.front() {
                Some(
                    Record::Decision { after, .. }
                    | Record::Resign { after }
                    | Record::OfferDraw { after },
                ) => *after == self.since,
                _ => false,
            };
            if due {
                match self.replay.pop_front() {
                    Some(Record::Decision { bytes, .. }) => {
                        let variant = self.terms.terms.variant();
                        let action =
                            protocol::game::decode_action(variant, &bytes).map_err(|e| {
                                crate::journal::JournalError::Corrupt {
                                    path: self.journal.path().to_owned(),
                                    why: format!(
                                        "a journaled decision is no {variant} action: {e}"
                                    ),
                                }
                            })?;
                        self.question = None;
                        if let Err(e) = self.machine.handle(Input::Decision(action)) {
                            self.report(SeatEvent::Fault(e));
                        }
                    }
                    Some(Record::Resign { .. }) => {
                        if let Machine::Player(p) = &mut self.machine {
                            p.resign();
                        }
                    }
                    Some(Record::OfferDraw { .. }) => {
                        if let Machine::Player(p) = &mut self.machine {
                            p.offer_draw();
                        }
                    }
                    _ => {}
                }
                continue;
            }
            if !self.replay.is_empty() {
                return Ok(()); // replaying: later decisions wait for their position
            }
            let Some(ask) = self.question.clone() else { return Ok(()) };
            match &mut self.decider {
                Decider::Policy(policy) => {
                    let Some(p) = self.machine.player() else { return Ok(()) };
                    let Some(side) = p.side() else { return Ok(()) };
                    let variant = self.terms.terms.variant();
                    let color = side;
                    let action = policy.decide_seeing(p.seat(), variant, color, &ask);
                    self.decide(action)?;
                }
                Decider::Remote(_) => {
                    if !self.told {
                        self.told = true;
                        self.report_view();
                        self.report(SeatEvent::Ask(ask));
                    }
                    return Ok(());
                }
                Decider::None => return Ok(()),
            }
        }
    }

    /// Journals a decision, then gives it to the machine.
    fn decide(&mut self, action: rules::AnyAction) -> Result<(), SeatError> {
        let bytes = protocol::game::encode_action(&action);
        self.journal.append(&Record::Decision { after: self.since, bytes })?;
        self.question = None;
        if let Err(e) = self.machine.handle(Input::Decision(action)) {
            self.report(SeatEvent::Fault(e));
        }
        Ok(())
    }

    async fn command(
        &mut self,
        cmd: SeatCommand,
        socket: Option<&mut MatchSocket>,
    ) -> Result<(), SeatError> {
        match cmd {
            SeatCommand::Decide(action) => {
                if self.question.is_none() {
                    self.report(SeatEvent::Refused("no question is waiting for an answer".into()));
                    return Ok(());
                }
                self.decide(action)?;
            }
            SeatCommand::Resign => {
                if let Machine::Player(p) = &mut self.machine {
                    self.journal.append(&Record::Resign { after: self.since })?;
                    p.resign();
                }
            }
            SeatCommand::OfferDraw => {
                if let Machine::Player(p) = &mut self.machine {
                    // Journaled first like every decision: the offer is a signed message, and
                    // a rebuilt machine must write it again at the same position.
                    self.journal.append(&Record::OfferDraw { after: self.since })?;
                    if !p.offer_draw() {
                        self.report(SeatEvent::Refused(
                            "a draw can be offered only during play, before the end".into(),
                        ));
                    }
                }
            }
        }
        self.drain(socket).await?;
        self.report_view();
        Ok(())
    }

    /// The end: the published record must hold every entry this seat received, unchanged.
    async fn finished(&mut self) -> Result<Vec<u8>, SeatError> {
        let id = self.terms.match_id;
        let mut backoff = crate::retry::Delays::default();
        let bytes = loop {
            match self.session.record(&id).await {
                Ok(b) => break b,
                Err(e)
                    if e.is_transient() || matches!(e, NetError::Refused { status: 409, .. }) =>
                {
                    backoff.sleep().await;
                }
                Err(e) => return Err(e.into()),
            }
        };
        let record = protocol::record::MatchRecord::from_canonical(&bytes)
            .map_err(|e| SeatError::Record(format!("the record does not decode: {e}")))?;
        published_holds(&self.received, &record).map_err(SeatError::Record)?;
        Ok(bytes)
    }
}

/// Whether the published `record` holds every entry of `received` (each under the channel and
/// position its receipt gave it) unchanged; else which one it does not. Entries are compared as
/// decoded values: both sides were decoded canonically (one encoding per value), so equal
/// values are equal bytes. The record may hold more (entries this seat was never sent).
pub fn published_holds(
    received: &[((protocol::Channel, u64), Entry)],
    record: &protocol::record::MatchRecord,
) -> Result<(), String> {
    let mut held = std::collections::BTreeMap::new();
    for e in &record.entries {
        if let Ok(r) = protocol::message::Receipt::from_canonical(&e.receipt.receipt) {
            held.entry((r.channel, r.position)).or_insert(e);
        }
    }
    for ((channel, position), entry) in received {
        if held.get(&(*channel, *position)) != Some(&entry) {
            return Err(format!(
                "the entry at position {position} of the {channel} channel is not the one received"
            ));
        }
    }
    Ok(())
}

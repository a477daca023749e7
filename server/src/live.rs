//! A live match as the rest of the server sees it (below `crate::state`, whose registry holds
//! a [`MatchHandle`] per live match): the commands its task is sent ([`Command`]), what its
//! sockets are sent ([`Outgoing`]), its public facts ([`MatchInfo`]). The task itself, which
//! owns the match's relay, is `crate::services::live::MatchTask`.

use axum::body::Bytes;
use protocol::PublicKey;
use protocol::relay::Entry;
use serde::Serialize;
use std::sync::{Arc, Mutex};
use std::time::Instant;
use tokio::sync::{mpsc, oneshot};

/// What a socket task is sent: an encoded `protocol::wire::ServerFrame`, or the order to close with a
/// reason.
#[derive(Clone, Debug)]
pub enum Outgoing {
    /// Bytes of one `ServerFrame`.
    Frame(Bytes),
    /// Close the socket, saying why.
    Close(String),
    /// On a multiplexed socket: the bytes of one `ServerFrame::For` of subscription `conn`
    /// (the socket drops it if that subscription has since been replaced or left, so a match
    /// opened again never sees the old subscription's frames after its new `Welcome`).
    For {
        /// The match.
        match_id: protocol::MatchId,
        /// The subscription.
        conn: u64,
        /// The wrapped frame.
        frame: Bytes,
    },
    /// On a multiplexed socket: the match task stopped sending this subscription anything
    /// (the match is over, or a fault of this match's frames); the socket forgets it and, but
    /// for the end of the match, tells the client why with a wrapped `Left`.
    Left {
        /// The match.
        match_id: protocol::MatchId,
        /// The subscription.
        conn: u64,
        /// Why.
        reason: String,
    },
}

/// What the match task is told of a subscription on a multiplexed socket: every frame it
/// sends there is wrapped in `ServerFrame::For`, and when that socket's queue is full it
/// wakes the socket to close (the queue is the whole socket's, so the socket is the slow
/// reader, not this match).
#[derive(Clone, Debug, Default)]
pub struct Mux {
    /// Woken when the socket's queue is full.
    pub slow: Arc<tokio::sync::Notify>,
}

/// Why a subscription ends because the match is over (the socket says nothing more).
pub const MATCH_OVER: &str = "the match is over";

/// A socket joining a match.
#[derive(Debug)]
pub struct Joined {
    /// The encoded `Welcome`.
    pub welcome: Vec<u8>,
    /// The encoded entries after the socket's `since` that it may read.
    pub catch_up: Vec<Bytes>,
}

/// Why a socket may not join.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum JoinError {
    /// Not a party, and the game hides information.
    #[error("this game hides information: only its players and umpire follow it live")]
    Hidden,
    /// The match is not live here.
    #[error("no live match {0}")]
    NotLive(String),
    /// The umpire's seat is served by another connection (the seat's live socket is its
    /// lease: one at a time, docs/SERVER.md, several umpire processes).
    #[error("{}", protocol::wire::UMPIRE_SEATED)]
    UmpireSeated,
}

/// How often a live umpired match whose umpire has no connection tells the umpire's key so
/// (`umpireSeatOpen`, with the signed terms), until one connects: every umpire process of
/// that key hears it and the first to open the match takes the seat over.
pub const UMPIRE_NOTICE_MS: u64 = 2_000;

/// What the match task is asked to do.
#[derive(Debug)]
pub enum Command {
    /// A socket joins, holding everything up to `since`.
    Join {
        /// The socket.
        conn: u64,
        /// Its signed-in key (`None`: a spectator without one).
        key: Option<PublicKey>,
        /// The last position it holds.
        since: Option<u64>,
        /// Where its frames go.
        tx: mpsc::Sender<Outgoing>,
        /// Set when the socket is multiplexed.
        mux: Option<Mux>,
        /// The answer.
        reply: oneshot::Sender<Result<Joined, JoinError>>,
    },
    /// A socket has gone.
    Leave {
        /// The socket.
        conn: u64,
    },
    /// A message from a socket: the bytes of a `SignedMessage` as received.
    Message {
        /// The socket.
        conn: u64,
        /// The bytes.
        bytes: Vec<u8>,
        /// When the socket read them: the receipt's time is this moment, not the (later)
        /// moment the match task gets to them, so time the host spends queueing a message is
        /// not charged to its author; also the start of the receipt latency.
        arrived: Instant,
    },
    /// A message a delivery witness forwards (`POST /api/match/{id}/deliver`, docs/SERVER.md):
    /// the relay takes it like any other and answers with its entry (also when it already had
    /// it), or why it refused it.
    Deliver {
        /// The bytes of a `SignedMessage`.
        bytes: Vec<u8>,
        /// When the route read them.
        arrived: Instant,
        /// The stored entry, or the refusal.
        reply: oneshot::Sender<Result<Entry, String>>,
    },
    /// Stop (the server is shutting down): everything promised is already stored.
    Stop,
}

/// What anyone may see of a live match: no hidden board, only who plays what, and the clocks.
///
/// A game that hides information (every mode but open games) publishes nothing that depends
/// on what it hides (ARCHITECTURE.md, what each party observes): no count of entries (a
/// Kriegspiel player's illegal attempts would show in it, R-K1), and its clocks and side to move
/// only as they stood at the last change of turn, a moment both players are told of (the
/// mover's clock stops while the umpire answers each attempt, so the live values would count
/// them). Finished matches show everything.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export_to = "host/"))]
pub struct MatchInfo {
    /// The match id (hex).
    pub id: String,
    /// The variant id.
    #[cfg_attr(feature = "ts", ts(as = "rules::Variant"))]
    pub variant: String,
    /// Rated or casual.
    pub rated: bool,
    /// `players[0]` and `players[1]` of the terms.
    pub players: [String; 2],
    /// White and Black once known.
    pub white: Option<String>,
    /// Black, once known.
    pub black: Option<String>,
    /// The umpire, in umpired games.
    pub umpire: Option<String>,
    /// When it started (server ms).
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub started_ms: u64,
    /// White's clock, ms (as of its last completed move, or running now).
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub white_ms: u64,
    /// Black's clock, ms.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub black_ms: u64,
    /// Whose clock runs, if one does.
    #[cfg_attr(feature = "ts", ts(as = "Option<rules::Color>"))]
    pub running: Option<&'static str>,
    /// Entries in the log so far: open games only (absent for games that hide information).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional, type = "number"))]
    pub entries: Option<u64>,
    /// Entries stored so far, whatever the game (for the operator and tests, never published
    /// while the match is live).
    #[serde(skip)]
    pub stored: u64,
}

/// A live match as the server's registry holds it.
#[derive(Clone, Debug)]
pub struct MatchHandle {
    /// Commands to its task.
    pub tx: mpsc::Sender<Command>,
    /// Its public information, refreshed by the task.
    pub info: Arc<Mutex<MatchInfo>>,
    /// Its players and umpire.
    pub parties: Vec<PublicKey>,
}

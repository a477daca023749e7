//! Durable storage: accounts, challenges, matches and every accepted entry.
//!
//! [`Store`] is the interface; [`sqlite::SqliteStore`] the embedded default (one file under the
//! data directory, WAL, `synchronous = FULL`, so a commit survives a crash of the process or
//! the machine); [`postgres::PostgresStore`] the second implementation (`fogproof serve
//! --database postgres://...`: `synchronous_commit = on`, one server owns the database at a
//! time, fenced by an epoch; or, with `--cluster`, any number of nodes, each live match
//! owned by one through a lease fencing its writes: [`lease`], docs/SERVER.md, several nodes). Everything a store holds is bytes,
//! text and integers; PostgreSQL's schema is SQLite's with the types translated
//! ([`postgres::translate_schema`]).
//!
//! The rule the server keeps (docs/SERVER.md, durability): an entry is committed before its
//! receipt leaves the server, so every receipt any client holds is in the store.

mod invitations;
pub mod lease;
pub mod pending;
pub mod postgres;
pub mod sqlite;
#[cfg(test)]
pub(crate) mod suite;

use protocol::{MatchId, PublicKey};
use std::future::Future;
use std::pin::Pin;
use thiserror::Error;

/// A boxed future of a store operation.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// Why a store operation failed.
#[derive(Debug, Error)]
pub enum StoreError {
    /// The database refused or failed.
    #[error("storage: {0}")]
    Database(String),
    /// Stored bytes that do not read back as what was written (a corrupt store).
    #[error("storage is corrupt: {0}")]
    Corrupt(String),
}

/// An account: a public key and its display name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Account {
    /// The key.
    pub key: PublicKey,
    /// Its display name.
    pub name: String,
    /// When it first signed in (server ms).
    pub created_ms: u64,
}

/// A challenge as stored: its JSON body (`lobby::Challenge`) and status.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChallengeRow {
    /// Its id.
    pub id: String,
    /// Who made it.
    pub challenger: PublicKey,
    /// `open`, `accepted`, `declined`, `canceled`, `started`.
    pub status: String,
    /// The challenge as JSON.
    pub body: String,
    /// When it was made (server ms).
    pub created_ms: u64,
}

/// Whether a match is being played or is over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatchStatus {
    /// Being played: rebuilt from its entries on restart.
    Live,
    /// Over: its record is final.
    Finished,
}

impl MatchStatus {
    fn as_str(self) -> &'static str {
        match self {
            MatchStatus::Live => "live",
            MatchStatus::Finished => "finished",
        }
    }
}

/// A match as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatchRow {
    /// The match id.
    pub id: MatchId,
    /// The canonical bytes of the signed terms.
    pub terms: Vec<u8>,
    /// The variant id.
    pub variant: String,
    /// `players[0]`, `players[1]` of the terms.
    pub players: [PublicKey; 2],
    /// Rated or casual.
    pub rated: bool,
    /// The challenge it came from.
    pub challenge: Option<String>,
    /// When it started (server ms).
    pub created_ms: u64,
    /// Live or finished.
    pub status: MatchStatus,
    /// Filled in when it finishes.
    pub finish: Option<Finish>,
}

/// What the server records when a match is over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finish {
    /// When its record became final (server ms).
    pub finished_ms: u64,
    /// SHA-256 of the record bytes.
    pub record_sha256: [u8; 32],
    /// The verifier's verdict, as the `/verdict` JSON.
    pub verdict: String,
    /// The result in PGN form (`1-0`, `0-1`, `1/2-1/2`, `*`).
    pub result: String,
}

/// One accepted entry: a message with its receipt, canonical bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryRow {
    /// Its match.
    pub match_id: MatchId,
    /// Its position in the relay's sequence.
    pub seq: u64,
    /// `protocol::relay::Entry`, canonical.
    pub bytes: Vec<u8>,
}

/// One write of a group commit ([`Store::write_batch`], `server::commit`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Write {
    /// A new live match with its first entries ([`Store::create_match`]).
    Match(MatchRow, Vec<EntryRow>),
    /// A challenge created or updated ([`Store::put_challenge`]).
    Challenge(ChallengeRow),
    /// Entries appended ([`Store::append_entries`]).
    Entries(Vec<EntryRow>),
}

/// What became of a finished match in the ledger.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LedgerMark {
    /// Its entry is in the log.
    Appended,
    /// The ledger refused it (the reason): it will not be tried again.
    Refused(String),
}

/// A tournament game the server started: its match and its place in the tournament.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TournamentGameRow {
    /// The match.
    pub match_id: MatchId,
    /// The tournament's id.
    pub tournament: [u8; 32],
    /// The round, from 1.
    pub round: u32,
}

/// A tournament game being arranged (docs/SERVER.md, tournaments): its invitation, the seats
/// its players brought, and whether its terms went to be signed. Every node reads and writes
/// it: a player brings its seat on whichever node it reaches, and the tournament runner (on
/// the ledger's node) invites, and forfeits at the deadline, from it, so a new leader carries
/// the arrangement on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvitationRow {
    /// Its id (also the id of its pending terms).
    pub id: String,
    /// The tournament's id.
    pub tournament: [u8; 32],
    /// The round, from 1.
    pub round: u32,
    /// White.
    pub white: PublicKey,
    /// Black.
    pub black: PublicKey,
    /// When the players must have shown (server ms).
    pub deadline_ms: u64,
    /// The challenge the agents check the terms against (`lobby::Challenge`, JSON).
    pub challenge: String,
    /// White's seat once brought (`lobby::Seat`, JSON).
    pub white_seat: Option<String>,
    /// Black's seat once brought (`lobby::Seat`, JSON).
    pub black_seat: Option<String>,
    /// Both seats were in and the terms went to be signed ([`Store::hand_invitation`]).
    pub handed: bool,
}

impl InvitationRow {
    /// The seat `key` brought, if it is a player of this game and brought one.
    pub fn seat_of(&self, key: &PublicKey) -> Option<&str> {
        if *key == self.white {
            self.white_seat.as_deref()
        } else if *key == self.black {
            self.black_seat.as_deref()
        } else {
            None
        }
    }
}

/// Where the server keeps what must survive it.
pub trait Store: Send + Sync + 'static {
    /// Creates or renames an account.
    fn put_account<'a>(&'a self, account: &'a Account) -> StoreFuture<'a, ()>;
    /// The account of `key`, if any.
    fn account<'a>(&'a self, key: &'a PublicKey) -> StoreFuture<'a, Option<Account>>;
    /// Creates or updates a challenge.
    fn put_challenge<'a>(&'a self, challenge: &'a ChallengeRow) -> StoreFuture<'a, ()>;
    /// Every challenge with status `open`.
    fn open_challenges(&self) -> StoreFuture<'_, Vec<ChallengeRow>>;
    /// Creates a live match with its first entries, in one transaction.
    fn create_match<'a>(&'a self, row: &'a MatchRow, first: &'a [EntryRow]) -> StoreFuture<'a, ()>;
    /// Appends entries (of any matches), in one transaction: all or none.
    fn append_entries<'a>(&'a self, rows: &'a [EntryRow]) -> StoreFuture<'a, ()>;
    /// Several writes in one transaction, all or none (one commit and one fsync for all:
    /// the group commit of entries, challenges and new matches). The default writes them one
    /// by one, each its own commit (all or none only for a single write): a store overrides
    /// it (SQLite does).
    fn write_batch<'a>(&'a self, batch: &'a [Write]) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            for w in batch {
                match w {
                    Write::Match(row, first) => self.create_match(row, first).await?,
                    Write::Challenge(c) => self.put_challenge(c).await?,
                    Write::Entries(rows) => self.append_entries(rows).await?,
                }
            }
            Ok(())
        })
    }
    /// Marks a match finished.
    fn finish_match<'a>(&'a self, id: &'a MatchId, finish: &'a Finish) -> StoreFuture<'a, ()>;
    /// A match, if stored.
    fn get_match<'a>(&'a self, id: &'a MatchId) -> StoreFuture<'a, Option<MatchRow>>;
    /// Every live match.
    fn live_matches(&self) -> StoreFuture<'_, Vec<MatchRow>>;
    /// The latest finished matches, newest first.
    fn finished_matches(&self, limit: u32) -> StoreFuture<'_, Vec<MatchRow>>;
    /// A match's entries, in sequence order.
    fn entries<'a>(&'a self, id: &'a MatchId) -> StoreFuture<'a, Vec<Vec<u8>>>;
    /// Finished matches the ledger has not taken yet (no [`LedgerMark`]), oldest first.
    fn unledgered(&self, limit: u32) -> StoreFuture<'_, Vec<MatchRow>>;
    /// Records what became of finished matches in the ledger, in one transaction.
    fn mark_ledgered<'a>(&'a self, marks: &'a [(MatchId, LedgerMark)]) -> StoreFuture<'a, ()>;
    /// The matches marked [`LedgerMark::Appended`] whose id comes after `after` (from the
    /// first when none), in id order, at most `limit` (the start's reconciliation with the
    /// log pages through them).
    fn appended_after<'a>(
        &'a self,
        after: Option<&'a MatchId>,
        limit: u32,
    ) -> StoreFuture<'a, Vec<MatchId>>;
    /// Forgets the ledger marks of matches, in one transaction: the appender takes them again.
    fn unmark_ledgered<'a>(&'a self, ids: &'a [MatchId]) -> StoreFuture<'a, ()>;
    /// Records that a tournament game's match exists (before the match is created).
    fn put_tournament_game<'a>(&'a self, row: &'a TournamentGameRow) -> StoreFuture<'a, ()>;
    /// The tournament game a match is, if any.
    fn tournament_game<'a>(&'a self, id: &'a MatchId)
    -> StoreFuture<'a, Option<TournamentGameRow>>;
    /// Every tournament game of a tournament's round.
    fn tournament_games<'a>(
        &'a self,
        tournament: &'a [u8; 32],
        round: u32,
    ) -> StoreFuture<'a, Vec<TournamentGameRow>>;
    /// Records a player's signed-in request to join a tournament (idempotent).
    fn join_tournament<'a>(
        &'a self,
        tournament: &'a [u8; 32],
        key: &'a PublicKey,
        at_ms: u64,
    ) -> StoreFuture<'a, ()>;
    /// Records a player's withdrawal from a tournament: it no longer counts as joined until it
    /// joins again (idempotent; persisted, so a restart keeps it).
    fn withdraw_tournament<'a>(
        &'a self,
        tournament: &'a [u8; 32],
        key: &'a PublicKey,
    ) -> StoreFuture<'a, ()>;
    /// The players who joined a tournament and have not withdrawn since.
    fn tournament_joins<'a>(&'a self, tournament: &'a [u8; 32]) -> StoreFuture<'a, Vec<PublicKey>>;
    /// Stores a new invitation, unless its pairing (tournament, round, white, black) has one
    /// already: `false` then (two runners at once, an old leader and a new one, invite once).
    fn put_invitation<'a>(&'a self, row: &'a InvitationRow) -> StoreFuture<'a, bool>;
    /// The invitation `id`, if it is being arranged.
    fn invitation<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<InvitationRow>>;
    /// Every invitation of a tournament, by round and id.
    fn invitations<'a>(&'a self, tournament: &'a [u8; 32]) -> StoreFuture<'a, Vec<InvitationRow>>;
    /// Every invitation naming `key` as White or Black, by tournament, round and id.
    fn invitations_for<'a>(&'a self, key: &'a PublicKey) -> StoreFuture<'a, Vec<InvitationRow>>;
    /// Records `key`'s seat (JSON) in invitation `id` (replacing one it brought before), if
    /// `key` is one of its players, `now_ms` is before its deadline and its terms were not
    /// handed yet; the invitation as it is after, or none when nothing was written. One
    /// statement: a removal at the deadline either sees the seat or refuses it.
    fn seat_invitation<'a>(
        &'a self,
        id: &'a str,
        key: &'a PublicKey,
        seat: &'a str,
        now_ms: u64,
    ) -> StoreFuture<'a, Option<InvitationRow>>;
    /// Marks invitation `id` handed (its terms go to be signed) if both seats are in and it
    /// was not handed: `true` for exactly one caller.
    fn hand_invitation<'a>(&'a self, id: &'a str) -> StoreFuture<'a, bool>;
    /// Deletes invitation `id`; the row as it was when deleted (its seats then), if it was
    /// there.
    fn remove_invitation<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<InvitationRow>>;
    /// Deletes invitation `id` if its terms were not handed: the row as it was when deleted
    /// (its seats then); none if it is gone or was handed (the runner's end at the deadline:
    /// one statement, so a seat is either in the row returned or refused, and a handing
    /// either happened before or is refused).
    fn end_invitation<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<InvitationRow>>;
    /// Records that the organiser asked to start tournament `tournament`'s first round
    /// without waiting for every entrant (idempotent).
    fn request_tournament_start<'a>(&'a self, tournament: &'a [u8; 32]) -> StoreFuture<'a, ()>;
    /// Whether the organiser asked to start tournament `tournament`.
    fn tournament_start_requested<'a>(&'a self, tournament: &'a [u8; 32]) -> StoreFuture<'a, bool>;
}

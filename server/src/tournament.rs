//! Tournaments the server runs (docs/SERVER.md, tournaments), all through its ledger:
//!
//! 1. An organiser, signed in with the organiser's key, sends a definition they signed
//!    (`fogproof tournament define`): `POST /api/tournament`. Its tournament entry goes into the
//!    log; the entry's id is the tournament's.
//! 2. Entrants named by the definition join, signed in with their own key
//!    (`POST /api/tournament/{id}/join`). Round 1 starts when every entrant has joined, or when
//!    the organiser says so (`POST /api/tournament/{id}/start`); whoever has not joined by a
//!    round's start is absent from it (a zero-point bye; a late entry).
//! 3. Each round is paired by the ledger (`TournamentState::next_pairings`, FIDE Dutch or
//!    Berger) and started by a round entry in the log. For each game the server invites both
//!    players (`tournamentGame` event); each player's agent brings its seat
//!    (`POST /api/tournament/game/{id}/seat`), the server writes the terms as the lobby does
//!    (White first, fixed colors, the definition's clock, the server's umpire for umpired
//!    variants), every party signs them, and the match starts. Its record, when finished, is
//!    appended with the round in its context.
//! 4. A player who has not brought their seat and signed the terms within
//!    `max_tournament_show_wait_ms` of the invitation loses by forfeit: a no-show entry in the
//!    log names the pairing, the deadline and who did not show (both: a double forfeit). If only
//!    the umpire failed to sign, nobody is forfeited and the game is invited again.
//! 5. The next round starts when every game of the round has a result in the log.
//!
//! Invitations live in the store ([`crate::store::InvitationRow`]), with the seats brought
//! for them: on a cluster any node takes a player's seat and signature, and a new leader's
//! runner carries on the arrangement of the one before (the pairing's invitation is made
//! once; a seat brought is kept; a no-show is decided from what the store holds at the
//! deadline). Once both seats are in, the terms go to be signed as a lobby's do: on a cluster
//! in the database's pending terms (`crate::store::pending`, claimed by the last signature),
//! on a single server in its lobby's memory (after a restart, an invitation whose terms were
//! lost is invited again once its deadline and [`crate::store::pending::START_GRACE_MS`] have
//! passed, nobody forfeited).
//!
//! This module holds the tournaments' data and rules (below `crate::state`, which keeps the
//! [`Arranging`]: what this node announced); the runner that moves them on is `crate::services::tournament`, the HTTP
//! handlers `crate::http::tournament`.

use crate::error::AppError;
use crate::lobby::{Challenge, Seat};
use crate::store::{InvitationRow, Store};
use axum::http::StatusCode;
use ledger::entry::Sha256Digest;
use ledger::history::TournamentState;
use protocol::PublicKey;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};

/// A tournament game being arranged: the invitation, the seats brought so far (the store's
/// [`InvitationRow`], read).
#[derive(Clone, Debug)]
pub struct Invitation {
    /// Its id (also the id of its pending terms in the lobby).
    pub id: String,
    /// The tournament.
    pub tournament: Sha256Digest,
    /// The round.
    pub round: u32,
    /// White.
    pub white: PublicKey,
    /// Black.
    pub black: PublicKey,
    /// Seats brought.
    pub seats: BTreeMap<PublicKey, Seat>,
    /// When the players must have shown (server ms).
    pub deadline_ms: u64,
    /// The lichess-shaped challenge the agents check the terms against.
    pub challenge: Challenge,
    /// Both seats were in and the terms went to the lobby to be signed.
    pub handed_to_lobby: bool,
}

impl Invitation {
    /// The `tournamentGame` event.
    pub fn event(&self) -> Value {
        json!({
            "type": "tournamentGame",
            "id": self.id,
            "tournament": protocol::hex::encode(&self.tournament),
            "round": self.round,
            "white": self.white.to_string(),
            "black": self.black.to_string(),
            "deadline_ms": self.deadline_ms,
            "challenge": self.challenge.json(),
        })
    }

    /// The invitation a stored row holds.
    pub fn from_row(row: &InvitationRow) -> Result<Invitation, AppError> {
        let challenge: Challenge = serde_json::from_str(&row.challenge)
            .map_err(|e| internal(format!("stored invitation {}: {e}", row.id)))?;
        let mut seats = BTreeMap::new();
        for (k, s) in [(row.white, &row.white_seat), (row.black, &row.black_seat)] {
            if let Some(s) = s {
                let seat: Seat = serde_json::from_str(s)
                    .map_err(|e| internal(format!("stored seat of {}: {e}", row.id)))?;
                seats.insert(k, seat);
            }
        }
        Ok(Invitation {
            id: row.id.clone(),
            tournament: row.tournament,
            round: row.round,
            white: row.white,
            black: row.black,
            seats,
            deadline_ms: row.deadline_ms,
            challenge,
            handed_to_lobby: row.handed,
        })
    }

    /// The row that stores a new invitation (no seat yet).
    pub fn row(&self) -> Result<InvitationRow, AppError> {
        Ok(InvitationRow {
            id: self.id.clone(),
            tournament: self.tournament,
            round: self.round,
            white: self.white,
            black: self.black,
            deadline_ms: self.deadline_ms,
            challenge: serde_json::to_string(&self.challenge).map_err(internal)?,
            white_seat: None,
            black_seat: None,
            handed: false,
        })
    }
}

/// What this node's tournament runner announced: the invitations whose `tournamentGame` event
/// it sent (a new leader sends the event of each invitation it finds once, whoever made it: the
/// one before may have died before its events left).
#[derive(Debug, Default)]
pub struct Arranging {
    /// Invitations announced, by id.
    pub announced: BTreeSet<String>,
}

pub(crate) fn not_found(what: impl Into<String>) -> AppError {
    AppError::new(StatusCode::NOT_FOUND, what)
}

/// A tournament id from 64 hex digits (404 naming it otherwise: no tournament has that id).
pub fn parse_tournament_id(text: &str) -> Result<Sha256Digest, AppError> {
    protocol::hex::decode_array::<32>(text).ok_or_else(|| {
        not_found(format!(
            "tournament {:?}: no such tournament (ids are 64 hex digits)",
            text.chars().take(80).collect::<String>()
        ))
    })
}

/// The clock of a definition's `time_control`, `minutes+seconds` (`15+10`), in ms.
pub fn parse_time_control(text: &str) -> Option<(u64, u64)> {
    let (m, s) = text.split_once('+')?;
    let digits = |t: &str| !t.is_empty() && t.len() <= 4 && t.bytes().all(|b| b.is_ascii_digit());
    if !digits(m) || !digits(s) {
        return None;
    }
    Some((m.parse::<u64>().ok()? * 60_000, s.parse::<u64>().ok()? * 1000))
}

/// The entrants of tournament `id` who joined and have not withdrawn since (the store keeps
/// both: a withdrawal survives a restart).
pub(crate) async fn joined_now(
    store: &dyn Store,
    id: &Sha256Digest,
) -> Result<BTreeSet<PublicKey>, AppError> {
    let joined = store.tournament_joins(id).await.map_err(internal)?;
    Ok(joined.into_iter().collect())
}

pub(crate) fn internal(e: impl std::fmt::Display) -> AppError {
    AppError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string())
}

pub(crate) fn status(t: &TournamentState) -> &'static str {
    let total = t.definition.rounds() as usize;
    if t.rounds.is_empty() {
        "joining"
    } else if t.rounds.len() == total && t.rounds.iter().all(|r| r.is_complete()) {
        "finished"
    } else {
        "playing"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_controls_are_minutes_plus_seconds() {
        assert_eq!(parse_time_control("15+10"), Some((900_000, 10_000)));
        assert_eq!(parse_time_control("1+0"), Some((60_000, 0)));
        for bad in ["15", "+10", "15+", "a+1", "1+-1", "99999+1", " 1+1"] {
            assert_eq!(parse_time_control(bad), None, "{bad}");
        }
    }
}

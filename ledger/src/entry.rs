//! Ledger entries: what one leaf of the log says, in canonical, versioned, domain-separated bytes.
//!
//! ```text
//! entry bytes = "fogproof/v1/ledger-entry\n" || postcard(LedgerEntry)   (strictly decoded)
//! leaf hash   = SHA-256(0x00 || entry bytes)                             (RFC 6962)
//! ```
//!
//! The prefix keeps an entry from ever being read as any other fogproof object; decoding goes
//! through [`protocol::codec`], so every entry has exactly one accepted encoding. An entry is at
//! most [`MAX_ENTRY_BYTES`] (the tlog-tiles entry bundle's 16-bit length prefix).
//!
//! A **match entry** is a pure function of the record's bytes (through `verifier::verify_match`)
//! and of the tournament round the appender states: its close time is the relay's signed wall
//! time in the record's `Close` notice ([`close_time_ms`]), not the appender's clock, and
//! whether it is rated is the terms' `rated` and how the game ended ([`is_rated`]). An auditor
//! recomputes the entry from the record and compares the bytes. A **tournament entry**
//! names the SHA-256 of an organiser-signed [`SignedDefinition`] stored beside the log; that
//! hash is the tournament's id.
//!
//! Both the record and the definition are stored content-addressed at `records/<sha256 hex>`.

use crate::tournament::definition::{DefinitionError, SignedDefinition};
use protocol::PublicKey;
use protocol::codec::{self, Canonical, DecodeError};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use verifier::{FaultKind, MatchRole, VerifiedMatch};

/// The version every entry carries (2: match entries say whether they are rated).
pub const ENTRY_VERSION: u8 = 2;
/// The domain prefix of every entry's bytes.
pub const ENTRY_PREFIX: &[u8] = b"fogproof/v1/ledger-entry\n";
/// The largest entry, prefix included (an entry bundle's length prefix is 16 bits).
pub const MAX_ENTRY_BYTES: usize = u16::MAX as usize;
/// At most this many faults are named in an entry; `total` counts them all.
pub const MAX_ENTRY_FAULTS: usize = 16;
/// The largest signed tournament definition file.
pub const MAX_DEFINITION_BYTES: usize = 1024 * 1024;

/// A SHA-256 digest.
pub type Sha256Digest = [u8; 32];

/// One leaf of the log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LedgerEntry {
    /// Always [`ENTRY_VERSION`].
    pub version: u8,
    /// What the entry records.
    pub body: EntryBody,
}

/// What an entry records.
#[allow(
    clippy::large_enum_variant,
    reason = "entries are decoded one at a time; boxing would only add indirection to the common case"
)]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum EntryBody {
    /// A finished match.
    Match(MatchEntry),
    /// A tournament definition.
    Tournament(TournamentEntry),
    /// The start of a tournament round: who is absent from it.
    Round(RoundEntry),
    /// A tournament game that was paired but never started: a party did not show.
    NoShow(NoShowEntry),
}

/// A paired tournament game that never started because one party, or both, did not show: did
/// not bring their seat to the terms, or did not sign them, by the deadline. The appender (the
/// server) states it; the log's key signs it with the checkpoint that covers it. It is the
/// evidence of the adjudication: the pairing (the round and both keys, in their colors), the
/// deadline, and who did not show. A party who did not show loses by forfeit; both: a double
/// forfeit.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NoShowEntry {
    /// The tournament's id.
    pub tournament: Sha256Digest,
    /// The round, from 1.
    pub round: u32,
    /// White's key in the pairing.
    pub white: PublicKey,
    /// Black's key in the pairing.
    pub black: PublicKey,
    /// White did not show.
    pub white_absent: bool,
    /// Black did not show.
    pub black_absent: bool,
    /// The deadline the party missed, milliseconds since the Unix epoch, by the appender's clock.
    pub deadline_ms: u64,
}

/// A player absent from a round, and the bye they get (TRF `Z`, `H` or `F`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Absence {
    /// The player's index in the definition.
    pub player: u32,
    /// Zero (absent, not entered yet, withdrawn), half (a requested bye) or full (administrative).
    pub bye: crate::tournament::ByeKind,
}

/// The start of round `round` of a tournament. The round's pairings are a pure function of the
/// definition, the rounds before and this list of absences
/// ([`crate::tournament::pair_next_round`]); late entries are absent until they join, and
/// withdrawn players absent from then on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundEntry {
    /// The tournament's id.
    pub tournament: Sha256Digest,
    /// The round, from 1.
    pub round: u32,
    /// Who does not play this round, by player index, ascending.
    pub absent: Vec<Absence>,
    /// When the round was started, milliseconds since the Unix epoch, by the appender's clock.
    pub started_at_ms: u64,
}

/// A tournament and one of its rounds (1-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct TournamentRound {
    /// The tournament's id (the SHA-256 of its signed definition file).
    pub tournament: Sha256Digest,
    /// The round, from 1.
    pub round: u32,
}

/// What the appender states about a match beyond its record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatchContext {
    /// The tournament round the match was played in, if any.
    pub tournament: Option<TournamentRound>,
    /// The match's close time, in milliseconds since the Unix epoch: the wall time the relay
    /// signed in the record's `Close` notice (`Close { wall_ms }`), or, in a record its relay
    /// never closed, the `time_ms` of its last relay-signed receipt ([`close_time_ms`]). The
    /// ledger fills it from the record and refuses an entry that states another; ratings are
    /// computed in (close time, match id) order.
    pub finished_at_ms: u64,
}

/// One fault as the ledger keeps it: kind, role and culprit (the evidence stays in the record).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntryFault {
    /// What went wrong.
    pub kind: FaultKind,
    /// The culprit's role.
    pub role: MatchRole,
    /// The key that signed the false statement, if any.
    pub culprit: Option<PublicKey>,
}

/// The verifier's verdict as the ledger keeps it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum EntryVerdict {
    /// Every check passed.
    Valid,
    /// Faults were found: the first [`MAX_ENTRY_FAULTS`], and how many in all.
    Faults {
        /// The first faults, in the verifier's order.
        faults: Vec<EntryFault>,
        /// How many faults the verifier found.
        total: u32,
    },
}

/// A finished match.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatchEntry {
    /// The match id (the hash of the signed terms).
    pub match_id: Sha256Digest,
    /// SHA-256 of the record file (its name under `records/`).
    pub record_sha256: Sha256Digest,
    /// The variant id (`kriegspiel`, ...).
    pub variant: String,
    /// The ruleset's stable name.
    pub ruleset: String,
    /// White's key (the first player's when colors were never drawn).
    pub white: PublicKey,
    /// Black's key.
    pub black: PublicKey,
    /// Whether `white` and `black` are by color.
    pub colors_known: bool,
    /// The umpire's key in umpired games.
    pub umpire: Option<PublicKey>,
    /// The relay's key.
    pub relay: PublicKey,
    /// The verdict.
    pub verdict: EntryVerdict,
    /// The result the verdict gives (the game's, or a forfeit); `None`: void.
    pub result: Option<rules::GameResult>,
    /// Whether the game counts in ratings ([`is_rated`]): the signed terms say rated, it has a
    /// result, and both players moved or the end came after the coin toss or the army was seen.
    pub rated: bool,
    /// Tournament round and finish time.
    pub context: MatchContext,
    /// The version of the verifier that judged the record.
    pub verifier_version: String,
}

/// A tournament definition published in the log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TournamentEntry {
    /// SHA-256 of the signed definition file: the tournament's id and its name under `records/`.
    pub definition_sha256: Sha256Digest,
    /// The organiser who signed it.
    pub organiser: PublicKey,
    /// The tournament's name (from the definition).
    pub name: String,
    /// The variant id (from the definition).
    pub variant: String,
    /// When it was published, milliseconds since the Unix epoch, by the appender's clock.
    pub published_at_ms: u64,
}

impl Canonical for LedgerEntry {
    const NAME: &'static str = "ledger entry";
    const MAX_BYTES: usize = MAX_ENTRY_BYTES - ENTRY_PREFIX.len();
    fn check(&self) -> Result<(), DecodeError> {
        if self.version == ENTRY_VERSION {
            Ok(())
        } else {
            Err(DecodeError::UnsupportedVersion { what: Self::NAME, found: self.version })
        }
    }
}

impl Canonical for SignedDefinition {
    const NAME: &'static str = "signed tournament definition";
    const MAX_BYTES: usize = MAX_DEFINITION_BYTES;
}

/// Why an entry could not be made or read.
#[derive(Debug, thiserror::Error)]
pub enum EntryError {
    /// The bytes do not start with [`ENTRY_PREFIX`].
    #[error("not a fogproof ledger entry (missing the '{}' prefix)", String::from_utf8_lossy(ENTRY_PREFIX).trim_end())]
    Prefix,
    /// The entry does not decode strictly.
    #[error(transparent)]
    Decode(#[from] DecodeError),
    /// The record's terms cannot be read: there is no match to log.
    #[error("the record's terms cannot be read ({0}): it names no match to log")]
    Unreadable(&'static str),
    /// The encoded entry is over [`MAX_ENTRY_BYTES`].
    #[error("the entry would be {0} bytes, over the limit of {MAX_ENTRY_BYTES}")]
    TooLarge(usize),
    /// The signed definition does not verify.
    #[error(transparent)]
    Definition(#[from] DefinitionError),
    /// No receipt of the record verifies under its relay's key: it has no signed close time.
    #[error("no receipt of the record is signed by its relay: it has no close time to log")]
    NoCloseTime,
    /// The record's close time is later than the log's own clock allows: a relay's clock far
    /// ahead would otherwise hold every later entry of the log back as "too early".
    #[error(
        "the record closes at {close_ms} ms, more than {tolerance_ms} ms after the log's clock \
         ({log_ms} ms): a relay clock this far ahead is refused"
    )]
    CloseInFuture {
        /// The record's close time.
        close_ms: u64,
        /// The log's clock when it was appended.
        log_ms: u64,
        /// The tolerance ([`crate::history::CLOSE_TIME_TOLERANCE_MS`]).
        tolerance_ms: u64,
    },
    /// The entry states another close time than the relay signed in the record.
    #[error(
        "the entry states close time {stated} ms, its record's relay-signed close time says \
         {signed} ms (the entry is {} ms {})",
        stated.abs_diff(*signed),
        if stated > signed { "later" } else { "earlier" }
    )]
    CloseTime {
        /// What the entry states.
        stated: u64,
        /// What the relay signed.
        signed: u64,
    },
}

impl LedgerEntry {
    /// The entry's bytes: prefix, then the canonical encoding.
    pub fn to_bytes(&self) -> Result<Vec<u8>, EntryError> {
        let mut out = ENTRY_PREFIX.to_vec();
        out.extend(self.to_canonical());
        if out.len() > MAX_ENTRY_BYTES {
            return Err(EntryError::TooLarge(out.len()));
        }
        Ok(out)
    }

    /// Decodes entry bytes strictly.
    pub fn from_bytes(bytes: &[u8]) -> Result<LedgerEntry, EntryError> {
        let body = bytes.strip_prefix(ENTRY_PREFIX).ok_or(EntryError::Prefix)?;
        Ok(codec::decode(body)?)
    }

    /// The match entry, if this is one.
    pub fn as_match(&self) -> Option<&MatchEntry> {
        match &self.body {
            EntryBody::Match(m) => Some(m),
            EntryBody::Tournament(_) | EntryBody::Round(_) | EntryBody::NoShow(_) => None,
        }
    }

    /// The SHA-256 of the file stored beside the log for this entry, if it has one.
    pub fn stored_file(&self) -> Option<Sha256Digest> {
        match &self.body {
            EntryBody::Match(m) => Some(m.record_sha256),
            EntryBody::Tournament(t) => Some(t.definition_sha256),
            EntryBody::Round(_) | EntryBody::NoShow(_) => None,
        }
    }

    /// The tournament this entry belongs to, if any.
    pub fn tournament(&self) -> Option<Sha256Digest> {
        match &self.body {
            EntryBody::Match(m) => m.context.tournament.map(|t| t.tournament),
            EntryBody::Tournament(t) => Some(t.definition_sha256),
            EntryBody::Round(r) => Some(r.tournament),
            EntryBody::NoShow(n) => Some(n.tournament),
        }
    }
}

/// What [`relay_signed`] reads of one entry: its receipt time, its message's hash and body.
type SignedItem = (u64, protocol::MessageHash, Option<protocol::message::MessageBody>);

/// The record's entries whose receipts verify as its relay's (the terms' relay key signed
/// them, for this match and for exactly that entry's signed message), each with its receipt
/// time, its message's hash and body (`None` where the message does not verify), in order.
///
/// The signatures are not checked again when `valid` says `v` is a valid verdict on exactly
/// these bytes: the verifier refuses a record with any receipt or message signature that
/// fails. Otherwise every receipt's and message's signature is first checked in one batch
/// ([`protocol::batch::verify_batch`], the verifier's own rules and its one documented
/// laxity); only when the batch fails is each checked alone (`verify_strict`), so a record
/// with a bad signature reads exactly as before. The other checks (the receipt's match and
/// message, the message's match) are made on every entry either way.
fn relay_signed(
    record: &[u8],
    v: &VerifiedMatch,
    valid: bool,
) -> Result<Vec<SignedItem>, EntryError> {
    use protocol::batch::{Item, verify_batch};
    use protocol::message::{MessageBody, Receipt};
    use protocol::tags;
    let match_id = v.match_id.ok_or(EntryError::Unreadable("no match id"))?;
    let relay = v.relay.ok_or(EntryError::Unreadable("no relay"))?;
    let parsed = protocol::record::MatchRecord::read_prefix(record)
        .ok_or(EntryError::Unreadable("no terms"))?;
    let bodies: Vec<Option<MessageBody>> =
        parsed.entries.iter().map(|e| MessageBody::from_canonical(&e.message.body).ok()).collect();
    let all_signed = valid || {
        let mut items = Vec::with_capacity(2 * parsed.entries.len());
        for (e, body) in parsed.entries.iter().zip(&bodies) {
            items.push(Item {
                key: relay,
                tag: tags::RECEIPT,
                bytes: &e.receipt.receipt,
                signature: e.receipt.signature,
            });
            if let Some(b) = body {
                items.push(Item {
                    key: b.author,
                    tag: tags::MESSAGE,
                    bytes: &e.message.body,
                    signature: e.message.signature,
                });
            }
        }
        verify_batch(&items).is_ok()
    };
    Ok(parsed
        .entries
        .iter()
        .zip(bodies)
        .filter_map(|(e, body)| {
            let receipt = if all_signed {
                Receipt::from_canonical(&e.receipt.receipt)
                    .ok()
                    .filter(|r| r.match_id == match_id && r.message == e.message.signed_hash())?
            } else {
                e.receipt.verify(&relay, &match_id, &e.message).ok()?
            };
            let body = if all_signed {
                body.filter(|b| b.match_id == match_id)
            } else {
                e.message.verify_for(&match_id).ok()
            };
            Some((receipt.time_ms, e.message.hash(), body))
        })
        .collect())
}

/// Whether `v` is a valid verdict on exactly `record` (its SHA-256).
fn valid_on(record: &[u8], v: &VerifiedMatch) -> bool {
    v.verdict.is_valid() && v.record_sha256 == sha256(record)
}

/// A record's close time. If its relay closed it (a `Close` notice by the relay, with a
/// receipt that verifies as the relay's), the wall-clock time that notice carries
/// (`Close { wall_ms }`): the relay's calendar time when the match was complete, which an
/// outage of the server does not hold back (receipt times are the relay's match time, which
/// stands still while the server is down). Otherwise the `time_ms` of its last entry whose
/// receipt verifies as its relay's (receipt times never go back in a record whose envelope
/// verifies). The relay signed either; in a closed valid record the players' countersignatures
/// of the close bind the log head, which chains the `Close` and every receipt. Refused when no
/// receipt verifies (a record with no entry, or with none its relay signed). `v` is the
/// record's verification (for its match id and relay key).
pub fn close_time_ms(record: &[u8], v: &VerifiedMatch) -> Result<u64, EntryError> {
    close_time_of(&relay_signed(record, v, valid_on(record, v))?, v)
}

/// [`close_time_ms`] of a record's [`relay_signed`] entries.
fn close_time_of(signed: &[SignedItem], v: &VerifiedMatch) -> Result<u64, EntryError> {
    let relay = v.relay.ok_or(EntryError::Unreadable("no relay"))?;
    let close = signed.iter().rev().find_map(|(_, _, body)| match body {
        Some(b) if b.author == relay => match b.payload {
            protocol::message::Payload::Close { wall_ms } => Some(wall_ms),
            _ => None,
        },
        _ => None,
    });
    close.or_else(|| signed.last().map(|(time, _, _)| *time)).ok_or(EntryError::NoCloseTime)
}

/// Whether a record's game is rated (docs/LEDGER.md, "How each end is rated"): its signed
/// terms say `rated`, `result` (the verdict's) is a result, not a void, and either both players
/// moved (a player's `Action` in an open or owner game; in an umpired game an umpire's `Turn`
/// answering one of the player's messages, i.e. a legal action) or the end came after a player
/// saw what it might quit over: a public contribution revealed, when colors are drawn (the
/// coin toss) or the variant's army depends on it (SIC). So a game in which a player never
/// moved is not rated (as lichess aborts), but a last revealer who dislikes its colors or its
/// army and quits forfeits a rated game, even though the colors are never known. Only
/// entries whose receipts verify as the relay's are read.
pub fn is_rated(
    record: &[u8],
    v: &VerifiedMatch,
    result: Option<rules::GameResult>,
) -> Result<bool, EntryError> {
    rated_of(record, &relay_signed(record, v, valid_on(record, v))?, result)
}

/// [`is_rated`] of a record whose [`relay_signed`] entries are `signed`.
fn rated_of(
    record: &[u8],
    signed: &[SignedItem],
    result: Option<rules::GameResult>,
) -> Result<bool, EntryError> {
    use protocol::message::Payload;
    let parsed = protocol::record::MatchRecord::read_prefix(record)
        .ok_or(EntryError::Unreadable("no terms"))?;
    let terms = protocol::terms::MatchTerms::from_canonical(&parsed.terms.terms)
        .map_err(|_| EntryError::Unreadable("no terms"))?;
    if !terms.rated || result.is_none() {
        return Ok(false);
    }
    let players = [terms.players[0].key, terms.players[1].key];
    let umpire = terms.umpire.as_ref().map(|u| u.key);
    let author_of: std::collections::BTreeMap<protocol::MessageHash, PublicKey> = signed
        .iter()
        .filter_map(|(_, hash, body)| body.as_ref().map(|b| (*hash, b.author)))
        .collect();
    let mut moved = [false; 2];
    let mut revealed = false;
    for body in signed.iter().filter_map(|(_, _, b)| b.as_ref()) {
        let mover = match (&body.payload, body.re) {
            (Payload::Action(_), _) => Some(body.author),
            (Payload::Turn { .. }, Some(re)) if Some(body.author) == umpire => {
                author_of.get(&re).copied()
            }
            (Payload::Reveal { purpose, .. }, _)
                if *purpose == protocol::commitment::PUBLIC_CONTRIBUTION
                    && players.contains(&body.author) =>
            {
                revealed = true;
                None
            }
            _ => None,
        };
        for (i, p) in players.iter().enumerate() {
            moved[i] |= mover == Some(*p);
        }
    }
    let informative = terms.colors == protocol::terms::ColorAssignment::Drawn
        || terms.variant() == rules::Variant::Sic;
    Ok(moved == [true, true] || (informative && revealed))
}

/// SHA-256 of some bytes.
pub fn sha256(bytes: &[u8]) -> Sha256Digest {
    Sha256::digest(bytes).into()
}

impl MatchEntry {
    /// The entry for a verified record in its context. Refused when the record's terms cannot
    /// be read (no match id, players, variant or relay): such bytes name no match.
    pub fn from_verified(
        v: &VerifiedMatch,
        context: MatchContext,
    ) -> Result<MatchEntry, EntryError> {
        let match_id = v.match_id.ok_or(EntryError::Unreadable("no match id"))?;
        let (variant, ruleset) = v.variant.clone().ok_or(EntryError::Unreadable("no variant"))?;
        let players = v.players.ok_or(EntryError::Unreadable("no players"))?;
        let relay = v.relay.ok_or(EntryError::Unreadable("no relay"))?;
        let verdict = match &v.verdict {
            verifier::Verdict::Valid { .. } => EntryVerdict::Valid,
            verifier::Verdict::Faults(faults) => EntryVerdict::Faults {
                faults: faults
                    .iter()
                    .take(MAX_ENTRY_FAULTS)
                    .map(|f| EntryFault { kind: f.kind, role: f.role, culprit: f.culprit })
                    .collect(),
                total: u32::try_from(faults.len()).unwrap_or(u32::MAX),
            },
        };
        Ok(MatchEntry {
            match_id: match_id.0,
            record_sha256: v.record_sha256,
            variant: variant.id().to_owned(),
            ruleset,
            white: players.white,
            black: players.black,
            colors_known: v.colors_known,
            umpire: v.umpire,
            relay,
            verdict,
            result: v.result,
            rated: false,
            context,
            verifier_version: v.verifier_version.to_string(),
        })
    }

    /// Verifies `record` and builds its entry in `tournament` (if any), its close time the
    /// record's ([`close_time_ms`]): what the ledger appends.
    pub fn from_record_in(
        record: &[u8],
        tournament: Option<TournamentRound>,
    ) -> Result<MatchEntry, EntryError> {
        MatchEntry::of_verification(record, tournament, &verifier::verify_match(record))
    }

    /// [`MatchEntry::from_record_in`], reusing `verified` when it is this verifier's
    /// ([`verifier::VERSION`]) [`verifier::verify_match`] of exactly `record` (its SHA-256):
    /// what a host that verified the record when the match ended appends without verifying
    /// it twice. Any other `verified` is not used and the record is verified here, so the
    /// entry is the same either way.
    pub fn from_record_verified(
        record: &[u8],
        tournament: Option<TournamentRound>,
        verified: &VerifiedMatch,
    ) -> Result<MatchEntry, EntryError> {
        if verified.verifier_version == verifier::VERSION
            && verified.record_sha256 == sha256(record)
        {
            MatchEntry::of_verification(record, tournament, verified)
        } else {
            MatchEntry::from_record_in(record, tournament)
        }
    }

    /// The entry of `record` given `v`, the verifier's verification of exactly these bytes.
    fn of_verification(
        record: &[u8],
        tournament: Option<TournamentRound>,
        v: &VerifiedMatch,
    ) -> Result<MatchEntry, EntryError> {
        // The relay's signatures are read once, for the close time and the rating.
        let signed = relay_signed(record, v, v.verdict.is_valid())?;
        let finished_at_ms = close_time_of(&signed, v)?;
        let mut entry = MatchEntry::from_verified(v, MatchContext { tournament, finished_at_ms })?;
        entry.rated = rated_of(record, &signed, entry.result)?;
        Ok(entry)
    }

    /// Verifies `record` and builds its entry in `context` (what an auditor does with an
    /// entry's context). Refused, naming both times, when `context.finished_at_ms` is not the
    /// record's close time.
    pub fn from_record(record: &[u8], context: MatchContext) -> Result<MatchEntry, EntryError> {
        let entry = MatchEntry::from_record_in(record, context.tournament)?;
        let signed = entry.context.finished_at_ms;
        if context.finished_at_ms != signed {
            return Err(EntryError::CloseTime { stated: context.finished_at_ms, signed });
        }
        Ok(entry)
    }

    /// Whether `other` says the same as `self`, apart from the verifier's version (an auditor
    /// with a newer verifier compares everything else).
    pub fn same_judgement(&self, other: &MatchEntry) -> bool {
        let mut a = self.clone();
        a.verifier_version.clone_from(&other.verifier_version);
        a == *other
    }
}

impl TournamentEntry {
    /// Verifies a signed definition file's bytes and builds its entry.
    pub fn from_definition_file(
        file: &[u8],
        published_at_ms: u64,
    ) -> Result<(TournamentEntry, SignedDefinition), EntryError> {
        let signed: SignedDefinition = codec::decode(file)?;
        let def = signed.verify()?;
        Ok((
            TournamentEntry {
                definition_sha256: sha256(file),
                organiser: signed.organiser,
                name: def.name,
                variant: def.variant.id().to_string(),
                published_at_ms,
            },
            signed,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> LedgerEntry {
        LedgerEntry {
            version: ENTRY_VERSION,
            body: EntryBody::Tournament(TournamentEntry {
                definition_sha256: [1; 32],
                organiser: PublicKey([2; 32]),
                name: "Spring open".into(),
                variant: "kriegspiel".into(),
                published_at_ms: 1_700_000_000_000,
            }),
        }
    }

    #[test]
    fn entries_round_trip_and_are_strict() {
        let e = sample();
        let bytes = e.to_bytes().unwrap();
        assert!(bytes.starts_with(ENTRY_PREFIX));
        assert_eq!(LedgerEntry::from_bytes(&bytes).unwrap(), e);
        assert!(matches!(LedgerEntry::from_bytes(&bytes[1..]), Err(EntryError::Prefix)));
        let mut trailing = bytes.clone();
        trailing.push(0);
        assert!(matches!(
            LedgerEntry::from_bytes(&trailing),
            Err(EntryError::Decode(DecodeError::TrailingBytes { .. }))
        ));
        let mut other_version = bytes.clone();
        other_version[ENTRY_PREFIX.len()] = 1;
        assert!(matches!(
            LedgerEntry::from_bytes(&other_version),
            Err(EntryError::Decode(DecodeError::UnsupportedVersion { found: 1, .. }))
        ));
    }
}

//! Stage 4: what may be written where, timeouts, disclosures, commitments and openings, and
//! what was never revealed.

use super::checked::{CheckedCommitment, CheckedEntry, roles};
use super::coordinate::Coordinated;
use super::{Auth, Blame, Checked, who};
use crate::{Fault, FaultKind, MatchRole};
use protocol::commitment::{self, Opening};
use protocol::keys::ByColor;
use protocol::message::{Expectation, Payload};
use protocol::record::MatchRecord;
use protocol::terms::{AgreedTerms, ColorAssignment};
use protocol::{MessageHash, Party, PublicKey};
use rules::Variant;
use std::collections::BTreeMap;

/// Runs stage 4 and assembles the [`Checked`] record.
pub(crate) fn check(
    record: MatchRecord,
    terms: AgreedTerms,
    variant: Variant,
    (colors, contributions): (ByColor<PublicKey>, Option<[[u8; 32]; 2]>),
    entries: Vec<Auth>,
    mut coordinated: Coordinated,
) -> Result<Checked, Vec<Fault>> {
    let mut faults = Vec::new();
    // Stage 3b (the coordinator) opened every disclosed sealed message when it admitted its
    // disclosure (one key agreement per channel, then one AEAD opening per message), checked
    // that it opens to a non-sealed payload, and kept that payload: nothing is opened twice.
    let mut disclosed = std::mem::take(&mut coordinated.disclosed);
    let mut checked_entries = Vec::with_capacity(entries.len());
    let mut undisclosed = Vec::new();
    for e in entries {
        let role = roles(&terms, &colors, &e.body.author).unwrap_or(MatchRole::Record);
        // Taken, not copied: no message hash is in two entries here (stage 3a refuses a
        // repeated entry, stage 3b a message accepted twice).
        let (payload, sealed) = match (&e.body.payload, disclosed.remove(&e.hash)) {
            (Payload::Sealed(_), Some(p)) => (p, true),
            (Payload::Sealed(_), None) => {
                undisclosed.push((e.index, e.hash, role));
                (e.body.payload.clone(), true)
            }
            (p, _) => (p.clone(), false),
        };
        let void = coordinated.void.get(e.index).copied().unwrap_or(false);
        let seen =
            coordinated.seen.get(e.index).copied().flatten().and_then(|s| usize::try_from(s).ok());
        checked_entries.push(CheckedEntry {
            void,
            seen,
            index: e.index,
            hash: e.hash,
            body: e.body,
            receipt: e.receipt,
            role,
            payload,
            sealed,
        });
    }
    let commitments = commitments(&terms, &checked_entries, &mut faults);
    if !faults.is_empty() {
        return Err(faults);
    }
    missing(
        &terms,
        &colors,
        &checked_entries,
        &commitments,
        &undisclosed,
        &coordinated.timeouts,
        &mut faults,
    );
    if faults.is_empty() && terms.terms.colors == ColorAssignment::Drawn && contributions.is_none()
    {
        // Colors never drawn. A player the relay timed out for its commitments or its reveal
        // (and the other not) forfeits: the match did not begin because of it (PROTOCOL.md
        // 13.3). Both timed out, or neither: nobody can be sanctioned.
        let silent: Vec<&(usize, protocol::Party, protocol::message::Expectation, u64)> =
            coordinated
                .timeouts
                .iter()
                .filter(|t| {
                    t.1 != protocol::Party::Umpire && t.2 == protocol::message::Expectation::Reveal
                })
                .collect();
        let one = match silent.as_slice() {
            [t] => Some(t),
            [a, b] if a.1 == b.1 => Some(a),
            _ => None,
        };
        match one {
            Some(&&(at, party, _, deadline_ms)) => {
                let i = usize::from(party == protocol::Party::Black);
                let key = terms.terms.players[i].key;
                let role = roles(&terms, &colors, &key).unwrap_or(MatchRole::Record);
                let hash = checked_entries.get(at).map(|e| e.hash);
                faults.push(Blame { key: Some(key), role }.fault(
                    FaultKind::Timeout,
                    hash.map(|h| (at, h)),
                    format!(
                        "relay timeout: players[{i}] did not commit or reveal by {deadline_ms} ms"
                    ),
                    format!(
                        "players[{i}] did not make or open its commitments in time, so colours \
                         were never drawn; the relay's signed timeout proves it, and it forfeits."
                    ),
                ));
            }
            None => faults.push(Blame::record().fault(
                if silent.is_empty() { FaultKind::TruncatedRecord } else { FaultKind::Timeout },
                None,
                "no two public contributions committed and revealed".to_owned(),
                if silent.is_empty() {
                    "The record ends before colours were drawn.".to_owned()
                } else {
                    "Neither player committed and revealed in time: the match never began, and \
                     there is no result."
                        .to_owned()
                },
            )),
        }
    }
    if !faults.is_empty() {
        return Err(faults);
    }
    Ok(Checked {
        record,
        terms,
        variant,
        colors,
        contributions,
        entries: checked_entries,
        commitments,
        timeouts: coordinated.timeouts,
    })
}

/// Every commitment (public only: one sealed to the umpire would escape the relay's deadlines
/// and the opponent's view), distinct, and every opening against its commitment.
fn commitments(
    terms: &AgreedTerms,
    entries: &[CheckedEntry],
    faults: &mut Vec<Fault>,
) -> Vec<CheckedCommitment> {
    let mut out: Vec<CheckedCommitment> = Vec::new();
    for e in entries {
        if e.sealed && matches!(e.payload, Payload::Commit { .. } | Payload::Reveal { .. }) {
            faults.push(Blame { key: Some(e.author()), role: e.role }.fault(
                FaultKind::NotAllowed,
                Some((e.index, e.hash)),
                format!("a sealed {} in entry {}", e.payload.kind(), e.index),
                format!(
                    "{} sealed a {} to the umpire: commitments and reveals are public only.",
                    who(e.role),
                    e.payload.kind()
                ),
            ));
            continue;
        }
        let Payload::Commit { purpose, commitment } = &e.payload else { continue };
        let name = who(e.role);
        let blame = Blame { key: Some(e.author()), role: e.role };
        if let Some(first) = out.iter().find(|c| c.author == e.author() && c.purpose == *purpose) {
            faults.push(blame.fault(
                FaultKind::DuplicateCommitment,
                Some((e.index, e.hash)),
                format!("'{purpose}' committed in entries {} and {}", first.entry, e.index),
                format!("{name} committed twice to its '{purpose}', so it could open either."),
            ));
            continue;
        }
        if let Some(first) = out.iter().find(|c| c.commitment == *commitment) {
            let copied = first.author != e.author();
            faults.push(blame.fault(
                FaultKind::DuplicateCommitment,
                Some((e.index, e.hash)),
                format!(
                    "commitment {commitment} published in entry {} ('{}') and entry {} ('{purpose}')",
                    first.entry, first.purpose, e.index
                ),
                if copied {
                    format!("{name} published a copy of {}'s commitment.", who(first.role).to_lowercase())
                } else {
                    format!("{name} published the same commitment twice.")
                },
            ));
            continue;
        }
        out.push(CheckedCommitment {
            author: e.author(),
            role: e.role,
            purpose: *purpose,
            commitment: *commitment,
            entry: e.index,
            opening: None,
        });
    }
    for e in entries {
        let (Payload::Reveal { purpose, opening } | Payload::Open { purpose, opening }) =
            &e.payload
        else {
            continue;
        };
        let name = who(e.role);
        let blame = || Blame { key: Some(e.author()), role: e.role };
        let at = Some((e.index, e.hash));
        let Some(c) = out.iter_mut().find(|c| c.author == e.author() && c.purpose == *purpose)
        else {
            faults.push(blame().fault(
                FaultKind::BadOpening,
                at,
                format!("opening of '{purpose}' by {} with no commitment", e.author()),
                format!("{name} opened a '{purpose}' commitment it never made."),
            ));
            continue;
        };
        if let Err(err) = commitment::check_opening(
            &c.commitment,
            *purpose,
            &terms.match_id,
            &e.author(),
            opening,
        ) {
            faults.push(blame().fault(
                FaultKind::BadOpening,
                at,
                err.to_string(),
                format!(
                    "{name}'s opening of its '{purpose}' commitment (entry {}) does not match \
                     what it committed to in entry {}.",
                    e.index, c.entry
                ),
            ));
            continue;
        }
        if *purpose == commitment::PUBLIC_CONTRIBUTION && opening.value.len() != 32 {
            faults.push(blame().fault(
                FaultKind::BadOpening,
                at,
                format!("public contribution of {} bytes", opening.value.len()),
                format!("{name}'s public contribution is not 32 bytes."),
            ));
            continue;
        }
        if c.opening.is_none() {
            c.opening =
                Some((e.index, Opening { value: opening.value.clone(), nonce: opening.nonce }));
        }
    }
    out
}

/// Commitments never opened and sealed messages never disclosed: the side's fault when a relay
/// timeout after which the coordinator expects nothing more of it is in the record (a missed
/// reveal, or the umpire's missed answer: "what it still owes stays missing, in its name"),
/// else the record is incomplete. A player's move timeout is not such a timeout: the player
/// still owes its openings and disclosures, under a reveal deadline of their own.
fn missing(
    terms: &AgreedTerms,
    colors: &ByColor<PublicKey>,
    entries: &[CheckedEntry],
    commitments: &[CheckedCommitment],
    undisclosed: &[(usize, MessageHash, MatchRole)],
    timeouts: &[(usize, Party, Expectation, u64)],
    faults: &mut Vec<Fault>,
) {
    let mut timed_out: BTreeMap<Party, (usize, Expectation)> = BTreeMap::new();
    for &(index, party, expectation, _) in timeouts {
        if expectation != Expectation::Move {
            timed_out.entry(party).or_insert((index, expectation));
        }
    }
    let mut report = |role: MatchRole, at: (usize, MessageHash), what: String| {
        let party = match role {
            MatchRole::White => Some(Party::White),
            MatchRole::Black => Some(Party::Black),
            MatchRole::Umpire => Some(Party::Umpire),
            MatchRole::Relay | MatchRole::Record => None,
        };
        match party.and_then(|p| timed_out.get(&p).map(|t| (p, *t))) {
            Some((party, (t, expectation))) => {
                let key = match party.side() {
                    Some(side) => colors[side],
                    None => terms.terms.umpire.as_ref().map_or(terms.terms.relay, |u| u.key),
                };
                faults.push(Blame { key: Some(key), role }.fault(
                    FaultKind::MissingReveal,
                    Some(at),
                    format!(
                        "{what}; relay timeout notice for {party} ({expectation:?}) in entry {t}"
                    ),
                    format!(
                        "{} never sent {what}: the relay's signed timeout (entry {t}) shows it \
                         fell silent, after which it owes nothing more and sends nothing.",
                        who(role)
                    ),
                ));
            }
            None => faults.push(Blame::record().fault(
                FaultKind::TruncatedRecord,
                Some(at),
                format!("{what}; no relay timeout notice explains it"),
                format!(
                    "The record ends without {}'s {what} and without a relay timeout: it is \
                     incomplete.",
                    who(role).to_lowercase()
                ),
            )),
        }
    };
    for c in commitments.iter().filter(|c| c.opening.is_none()) {
        let hash = entries.get(c.entry).map_or(MessageHash([0; 32]), |e| e.hash);
        report(c.role, (c.entry, hash), format!("the opening of its '{}' commitment", c.purpose));
    }
    for (index, hash, role) in undisclosed {
        report(*role, (*index, *hash), format!("the disclosure of its sealed message {index}"));
    }
}

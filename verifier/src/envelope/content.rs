//! Stage 4: what may be written where, timeouts, disclosures, commitments and openings, and
//! what was never revealed.

use super::checked::{CheckedCommitment, CheckedEntry, roles};
use super::coordinate::Coordinated;
use super::{Auth, Blame, Checked, who};
use crate::{Fault, FaultKind, Role, VerifyOptions};
use protocol::codec::Canonical;
use protocol::commitment::{self, Opening};
use protocol::keys::ByColour;
use protocol::message::{Expectation, Payload, seal_context};
use protocol::record::{MatchRecord, recipient_seal_key};
use protocol::seal::{self, SealDisclosure};
use protocol::terms::{AgreedTerms, Colours};
use protocol::{MessageHash, Party, Side};
use rules::Variant;
use std::collections::BTreeMap;

/// Runs stage 4 and assembles the [`Checked`] record.
pub(crate) fn check(
    record: MatchRecord,
    terms: AgreedTerms,
    variant: Variant,
    (colours, contributions): (ByColour, Option<[[u8; 32]; 2]>),
    entries: Vec<Auth>,
    coordinated: Coordinated,
    options: &VerifyOptions,
) -> Result<Checked, Vec<Fault>> {
    let mut faults = Vec::new();
    let disclosed = disclosures(&record, &terms, &colours, &entries, options, &mut faults);
    if !faults.is_empty() {
        return Err(faults);
    }
    let mut checked_entries = Vec::with_capacity(entries.len());
    let mut undisclosed = Vec::new();
    for e in entries {
        let role = roles(&terms, &colours, &e.body.author).unwrap_or(Role::Record);
        let (payload, sealed) = match (&e.body.payload, disclosed.get(&e.hash)) {
            (Payload::Sealed(_), Some(p)) => (p.clone(), true),
            (Payload::Sealed(_), None) => {
                undisclosed.push((e.index, e.hash, role));
                (e.body.payload.clone(), true)
            }
            (p, _) => (p.clone(), false),
        };
        let void = coordinated.void.get(e.index).copied().unwrap_or(false);
        checked_entries.push(CheckedEntry {
            void,
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
        &colours,
        &checked_entries,
        &commitments,
        &undisclosed,
        &coordinated.timeouts,
        &mut faults,
    );
    if faults.is_empty() && terms.terms.colours == Colours::Drawn && contributions.is_none() {
        faults.push(Blame::record().fault(
            FaultKind::TruncatedRecord,
            None,
            "no two public contributions committed and revealed".to_owned(),
            "The record ends before colours were drawn.".to_owned(),
        ));
    }
    if !faults.is_empty() {
        return Err(faults);
    }
    Ok(Checked {
        record,
        terms,
        variant,
        colours,
        contributions,
        entries: checked_entries,
        commitments,
        timeouts: coordinated.timeouts,
    })
}

/// Checks every disclosure against the plaintext commitment its author signed (and, with
/// `options.deep_seal_check`, by re-sealing it); returns the disclosed payloads by message.
fn disclosures(
    record: &MatchRecord,
    terms: &AgreedTerms,
    colours: &ByColour,
    entries: &[Auth],
    options: &VerifyOptions,
    faults: &mut Vec<Fault>,
) -> BTreeMap<MessageHash, Payload> {
    let by_hash: BTreeMap<MessageHash, &Auth> = entries.iter().map(|e| (e.hash, e)).collect();
    let mut out = BTreeMap::new();
    let mut seen: BTreeMap<MessageHash, ()> = BTreeMap::new();
    for (n, d) in record.disclosures.iter().enumerate() {
        let bad_record = |evidence: String, explanation: String| {
            Blame::record().fault(FaultKind::BadDisclosure, None, evidence, explanation)
        };
        if seen.insert(d.message, ()).is_some() {
            faults.push(bad_record(
                format!("disclosure {n} repeats the disclosure of message {}", d.message),
                "The record discloses the same message twice.".to_owned(),
            ));
            continue;
        }
        let Some(e) = by_hash.get(&d.message) else {
            faults.push(bad_record(
                format!("disclosure {n} names message {}, which is not in the record", d.message),
                "The record discloses a message it does not contain.".to_owned(),
            ));
            continue;
        };
        let recipient = e
            .body
            .channel
            .side()
            .and_then(|side| recipient_seal_key(terms, colours, side, &e.body.author));
        let (Payload::Sealed(sealed), Some(recipient)) = (&e.body.payload, recipient) else {
            faults.push(bad_record(
                format!("disclosure {n} names message {}, which is not sealed", d.message),
                format!("The record discloses entry {}, which was never sealed.", e.index),
            ));
            continue;
        };
        let context = seal_context(&e.body);
        if let Err(err) =
            seal::check_disclosure_commitment(&context, sealed, &d.plaintext, &d.seal_seed)
        {
            faults.push(Blame::record().fault(
                FaultKind::BadDisclosure,
                e.at(),
                err.to_string(),
                format!(
                    "The disclosure of entry {} does not match the plaintext commitment its \
                     author signed; nobody signed the disclosure, so it proves nothing.",
                    e.index
                ),
            ));
            continue;
        }
        // The disclosed seed opens the signed commitment, so it is the author's seed (its
        // salt is a preimage only the author knew): if re-sealing with it gives other bytes, the
        // author signed a ciphertext that does not carry the plaintext it committed to.
        let deep = || {
            seal::check_disclosure_deep(&recipient, &context, sealed, &d.plaintext, &d.seal_seed)
        };
        if let Some(Err(err)) = options.deep_seal_check.then(deep) {
            let author = Blame::signer(terms, colours, &e.body.author);
            let name = who(author.role);
            faults.push(author.fault(
                FaultKind::BadDisclosure,
                e.at(),
                err.to_string(),
                format!(
                    "{name} signed a commitment to a plaintext its ciphertext does not carry \
                     (entry {}); its recipient could not have opened it honestly.",
                    e.index
                ),
            ));
            continue;
        }
        match inner_payload(d) {
            Ok(p) => {
                out.insert(d.message, p);
            }
            Err(evidence) => {
                let author = Blame::signer(terms, colours, &e.body.author);
                let name = who(author.role);
                faults.push(author.fault(
                    FaultKind::BadDisclosure,
                    e.at(),
                    evidence,
                    format!("{name} sealed bytes that are not a valid message payload."),
                ));
            }
        }
    }
    out
}

fn inner_payload(d: &SealDisclosure) -> Result<Payload, String> {
    match Payload::from_canonical(&d.plaintext) {
        Ok(Payload::Sealed(_)) => Err("a sealed payload inside a sealed payload".to_owned()),
        Ok(p) => Ok(p),
        Err(e) => Err(format!("disclosed plaintext: {e}")),
    }
}

/// Every commitment (public or disclosed), distinct, and every opening against its commitment.
fn commitments(
    terms: &AgreedTerms,
    entries: &[CheckedEntry],
    faults: &mut Vec<Fault>,
) -> Vec<CheckedCommitment> {
    let mut out: Vec<CheckedCommitment> = Vec::new();
    for e in entries {
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
            purpose: purpose.clone(),
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
        if let Err(err) =
            commitment::check_opening(&c.commitment, purpose, &terms.match_id, &e.author(), opening)
        {
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
        if purpose == commitment::PUBLIC_CONTRIBUTION && opening.value.len() != 32 {
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

/// Commitments never opened and sealed messages never disclosed: the side's fault when the
/// relay's signed reveal timeout for it is in the record, else the record is incomplete.
fn missing(
    colours: &ByColour,
    entries: &[CheckedEntry],
    commitments: &[CheckedCommitment],
    undisclosed: &[(usize, MessageHash, Role)],
    timeouts: &[(usize, Party, Expectation, u64)],
    faults: &mut Vec<Fault>,
) {
    let mut reveal_timeouts: BTreeMap<Side, (usize, MessageHash)> = BTreeMap::new();
    for &(index, party, expectation, _) in timeouts {
        if let (Some(side), Expectation::Reveal) = (party.side(), expectation) {
            let hash =
                entries.iter().find(|e| e.index == index).map_or(MessageHash([0; 32]), |e| e.hash);
            reveal_timeouts.entry(side).or_insert((index, hash));
        }
    }
    let mut report = |role: Role, at: (usize, MessageHash), what: String| {
        let side = super::side_of_role(role);
        match side.and_then(|s| reveal_timeouts.get(&s).map(|t| (s, *t))) {
            Some((side, (t, _))) => faults
                .push(Blame { key: Some(colours.key(side)), role }.fault(
                FaultKind::MissingReveal,
                Some(at),
                format!("{what}; relay timeout notice for {side}'s reveal in entry {t}"),
                format!(
                    "{} never revealed {what} before the deadline, as the relay's signed timeout \
                     (entry {t}) shows.",
                    who(role)
                ),
            )),
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
        let hash =
            entries.iter().find(|e| e.index == c.entry).map_or(MessageHash([0; 32]), |e| e.hash);
        report(c.role, (c.entry, hash), format!("the opening of its '{}' commitment", c.purpose));
    }
    for (index, hash, role) in undisclosed {
        report(*role, (*index, *hash), format!("the disclosure of its sealed message {index}"));
    }
}

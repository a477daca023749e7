//! Stage 3b: the relay's own rule books, replayed. Every entry goes through the same
//! [`Sequence`] and [`Coordinator`] the relay runs (`protocol::relay`), at its receipt's time:
//! who may say what, on which channel, in which phase; each author's numbering and what it had
//! seen; every deadline and every timeout. So a timeout is accepted only where the coordinator
//! issues the very same one, and a race is told apart from a cheat by the same rule.
//!
//! Blame follows what the signatures prove:
//! - a message outside the table (docs/PROTOCOL.md, who may say what): its author, who signed it
//!   (`NotAllowed`);
//! - a message from a party after the relay timed it out, a timeout the coordinator does not
//!   give (wrong party, too early, a wait that was not running), a deadline passed while the
//!   relay went on accepting without a timeout, a `Start` notice not first: the relay, which
//!   signed the receipts (`Timeout`, `NotAllowed`);
//! - a message numbered below one its author used before on its channel (out of the order its
//!   author signed them in), or naming as seen an order head the relay's log does not have (or
//!   one of a channel its author does not read): the relay, which refuses such messages and
//!   receipted it anyway (`BrokenChain`, `Equivocation`). Gaps in an author's numbers are
//!   allowed: a number its message was refused under is not used again (PROTOCOL.md 11);
//! - two messages an author signed with one number, or a `seen` going back: the author, whose
//!   own signatures contradict each other (`BrokenChain`).
//!
//! Only the first such fault is reported: what follows it is its consequence.

use super::{Auth, Blame, who};
use crate::{Fault, FaultKind};
use protocol::coordinator::{Admission, Coordinator, NotEntitled};
use protocol::keys::ByColor;
use protocol::message::{Expectation, Payload};
use protocol::record::RecordBudget;
use protocol::relay::{ChainError, Sequence, reads};
use protocol::terms::AgreedTerms;
use protocol::{Party, PublicKey};
use std::collections::BTreeMap;

/// What the coordinator made of the record.
pub(crate) struct Coordinated {
    /// Entry indices that are void races.
    pub void: Vec<bool>,
    /// For each entry, the index of the entry its `seen` names (the relay's log maps the order
    /// head to it).
    pub seen: Vec<Option<u64>>,
    /// The timeouts the record holds, all confirmed: (entry, party, expectation, deadline).
    pub timeouts: Vec<(usize, Party, Expectation, u64)>,
    /// What the admitted disclosures opened, by sealed message (the coordinator opens each
    /// disclosed message once, when it admits the disclosure; nothing opens it again).
    pub disclosed: BTreeMap<protocol::MessageHash, protocol::message::Payload>,
}

/// The seal keys of the parties that countersigned after the relay's close: each attests, by
/// signing a head that chains through every setup sent to it, that those setups gave it the
/// keys they commit to (an honest machine countersigns only when all of them opened,
/// `seal::Inbox::opened_all`), so their disclosures need no key agreement
/// (`Coordinator::attest`, docs/PROTOCOL.md 14.2). A countersignature the relay left out only
/// costs the verifier that key agreement.
pub(crate) fn attested(
    terms: &AgreedTerms,
    entries: &[Auth],
) -> Vec<protocol::seal::SealPublicKey> {
    let t = &terms.terms;
    let Some(close) = entries
        .iter()
        .position(|e| e.body.author == t.relay && matches!(e.body.payload, Payload::Close { .. }))
    else {
        return Vec::new();
    };
    let seal_key_of = |key: &PublicKey| {
        t.players
            .iter()
            .find(|p| p.key == *key)
            .map(|p| p.seal_key)
            .or_else(|| t.umpire.as_ref().filter(|u| u.key == *key).map(|u| u.seal_key))
    };
    entries[close + 1..]
        .iter()
        .filter(|e| e.body.payload == Payload::Countersign)
        .filter_map(|e| seal_key_of(&e.body.author))
        .collect()
}

/// Runs the sequence and the coordinator over the entries (in the relay's order, already
/// checked by stage 3a, which gives each entry's channel head and order head: `heads`).
pub(crate) fn check(
    terms: &AgreedTerms,
    entries: &[Auth],
    heads: &[(protocol::LogHead, protocol::LogHead)],
) -> Result<Coordinated, Box<Fault>> {
    let relay_key = terms.terms.relay;
    let relay = || Blame::relay(terms);
    let mut sequence = Sequence::new(&terms.match_id);
    let mut coordinator = Coordinator::new(terms.clone());
    coordinator.attest(attested(terms, entries));
    let mut out = Coordinated {
        void: Vec::with_capacity(entries.len()),
        seen: Vec::with_capacity(entries.len()),
        timeouts: Vec::new(),
        disclosed: BTreeMap::new(),
    };
    let mut sent: BTreeMap<PublicKey, u32> = BTreeMap::new();
    let mut numbered: BTreeMap<(PublicKey, u8, u64), protocol::MessageHash> = BTreeMap::new();
    let max_messages = terms.terms.limits.max_messages_per_side;
    let mut budget = RecordBudget::new(terms);
    for (e, &known) in entries.iter().zip(heads) {
        let b = &e.body;
        let t = e.receipt.time_ms;
        let colors = coordinator.colors().unwrap_or(ByColor {
            white: terms.terms.players[0].key,
            black: terms.terms.players[1].key,
        });
        let signer = Blame::signer(terms, &colors, &b.author);
        let name = who(signer.role);
        if b.author == relay_key {
            relay_notice(&coordinator, e, out.void.is_empty()).map_err(|(evidence, why)| {
                let kind = if matches!(b.payload, Payload::Timeout { .. }) {
                    FaultKind::Timeout
                } else {
                    FaultKind::NotAllowed
                };
                relay().fault(kind, e.at(), evidence, why)
            })?;
            if let Err(over) = budget.charge(&b.author, e.len) {
                return Err(Box::new(relay().fault(
                    FaultKind::NotAllowed,
                    e.at(),
                    over.to_string(),
                    "The relay wrote more notices than the record keeps room for.".into(),
                )));
            }
            if let Payload::Timeout { party, expectation, deadline_ms } = b.payload {
                out.timeouts.push((e.index, party, expectation, deadline_ms));
            }
            out.seen.push(b.seen.and_then(|s| sequence.position_of(&s.order)));
            sequence.push_known(b, &e.receipt.message, t, known);
            coordinator.apply(b, e.hash, Admission::Counts, t);
            out.void.push(false);
            continue;
        }
        if out.void.is_empty() {
            return Err(Box::new(
                relay().fault(
                    FaultKind::NotAllowed,
                    e.at(),
                    format!(
                        "entry 0 is {}'s {}, not the relay's start notice",
                        name.to_lowercase(),
                        b.payload.kind()
                    ),
                    "The relay's log does not begin with its start notice, so no clock can be \
                 rebuilt."
                        .into(),
                ),
            ));
        }
        if let Some(d) = coordinator.overdue(t).first() {
            return Err(Box::new(relay().fault(
                FaultKind::Timeout,
                e.at(),
                format!(
                    "{} owed a {:?} by {} ms; the relay accepted entry {} at {t} ms without \
                     timing it out",
                    d.party, d.expectation, d.due_ms, e.index
                ),
                format!(
                    "The relay let {}'s deadline pass and went on accepting messages instead of \
                     timing it out.",
                    d.party
                ),
            )));
        }
        let seen = match sequence.check(b, |c| reads(terms, &colors, &b.author, c)) {
            Ok(seen) => seen,
            Err(err) => {
                // The very same message again is the relay's acceptance of a replay, not two
                // messages its author signed with one number.
                let replay = matches!(err, ChainError::Replayed { .. })
                    && numbered.get(&(b.author, b.channel.byte(), b.seq)) == Some(&e.hash);
                if replay {
                    return Err(Box::new(relay().fault(
                        FaultKind::BrokenChain,
                        e.at(),
                        format!("message {} accepted twice", e.hash),
                        "The relay accepted the same message twice.".into(),
                    )));
                }
                return Err(Box::new(chain_fault(terms, &signer, name, e, &err)));
            }
        };
        numbered.insert((b.author, b.channel.byte(), b.seq), e.hash);
        let admission = match coordinator.admit_opening(b, seen, &relay_key) {
            Ok((a, opened)) => {
                out.disclosed.extend(opened);
                a
            }
            Err(NotEntitled::TimedOut { party }) => {
                return Err(Box::new(relay().fault(
                    FaultKind::Timeout,
                    e.at(),
                    format!("{party} was timed out before entry {}", e.index),
                    format!(
                        "The relay accepted a move from {party} after timing it out: the \
                         timeout or the move is false."
                    ),
                )));
            }
            Err(err @ NotEntitled::Stranger { .. }) => {
                return Err(Box::new(relay().fault(
                    FaultKind::NotAllowed,
                    e.at(),
                    err.to_string(),
                    format!(
                        "The relay receipted a message (entry {}) from a key that is not in this \
                         match.",
                        e.index
                    ),
                )));
            }
            Err(err @ (NotEntitled::DuplicateCommitment(_) | NotEntitled::Recommitted { .. })) => {
                let copied = matches!(&err, NotEntitled::DuplicateCommitment(d) if d.first.author != d.second.author);
                return Err(Box::new(signer.fault(
                    FaultKind::DuplicateCommitment,
                    e.at(),
                    err.to_string(),
                    if copied {
                        format!("{name} published a copy of another party's commitment.")
                    } else {
                        format!(
                            "{name} committed twice to the same thing, so it could open either."
                        )
                    },
                )));
            }
            Err(
                err @ (NotEntitled::BadOpening(_)
                | NotEntitled::NothingToOpen { .. }
                | NotEntitled::ContributionLength { .. }),
            ) => {
                return Err(Box::new(signer.fault(
                    FaultKind::BadOpening,
                    e.at(),
                    err.to_string(),
                    format!("{name}'s opening does not open a commitment it owes an opening of."),
                )));
            }
            Err(err @ NotEntitled::SealedSize { .. }) => {
                return Err(Box::new(signer.fault(
                    FaultKind::NotAllowed,
                    e.at(),
                    err.to_string(),
                    format!(
                        "{name} sealed a payload of another size than every sealed payload of \
                         this variant and direction has (PROTOCOL.md, padding): its size could \
                         tell the relay what it says."
                    ),
                )));
            }
            Err(err @ NotEntitled::BadDisclosure { .. }) => {
                return Err(Box::new(signer.fault(
                    FaultKind::BadDisclosure,
                    e.at(),
                    err.to_string(),
                    format!(
                        "{name} disclosed a channel falsely: its key is not the one the setup \
                         it signed commits to, or its seal seed does not reproduce that setup, \
                         or a sealed message it signed there does not open under that key to \
                         its committed plaintext, or it owes no disclosure there."
                    ),
                )));
            }
            Err(err) => {
                return Err(Box::new(signer.fault(
                    FaultKind::NotAllowed,
                    e.at(),
                    format!("{} on {}: {err}", b.payload.kind(), b.channel),
                    format!(
                        "{name} sent a {} message it may not send on the {} channel at this \
                         point of the match.",
                        b.payload.kind(),
                        b.channel
                    ),
                )));
            }
        };
        if terms.terms.player(&b.author).is_some() {
            let n = sent.entry(b.author).or_insert(0);
            *n += 1;
            if *n > max_messages {
                return Err(Box::new(signer.fault(
                    FaultKind::NotAllowed,
                    e.at(),
                    format!("message {n} of {}; the terms allow {max_messages}", b.author),
                    format!("{name} sent more messages than the terms allow."),
                )));
            }
        }
        if let Err(over) = budget.charge_message(b, e.hash, e.len) {
            return Err(Box::new(signer.fault(
                FaultKind::NotAllowed,
                e.at(),
                over.to_string(),
                format!(
                    "{name} signed more of the record than its share of the terms' size limit \
                     (PROTOCOL.md, limits)."
                ),
            )));
        }
        sequence.push_known(b, &e.receipt.message, t, known);
        coordinator.apply(b, e.hash, admission, t);
        out.void.push(admission == Admission::Void);
        out.seen.push(seen);
    }
    Ok(out)
}

/// The relay's own notices: `Start` first and only first; a `Timeout` exactly the earliest
/// deadline the coordinator says was missed at the notice's time; `Close` exactly when the
/// match is complete (over, nothing owed).
fn relay_notice(coordinator: &Coordinator, e: &Auth, first: bool) -> Result<(), (String, String)> {
    let t = e.receipt.time_ms;
    match (&e.body.payload, first) {
        (Payload::Start, true) => Ok(()),
        (Payload::Start, false) => Err((
            format!("a second start notice in entry {}", e.index),
            "The relay started the match twice.".into(),
        )),
        (_, true) => Err((
            format!("entry 0 is a relay {}", e.body.payload.kind()),
            "The relay's log does not begin with its start notice.".into(),
        )),
        (Payload::Timeout { party, expectation, deadline_ms }, false) => {
            let due = coordinator.overdue(t).first().copied();
            match due {
                Some(d)
                    if d.party == *party
                        && d.expectation == *expectation
                        && d.due_ms == *deadline_ms =>
                {
                    Ok(())
                }
                _ => {
                    let running = coordinator
                        .deadlines()
                        .iter()
                        .map(|d| format!("{} {:?} by {} ms", d.party, d.expectation, d.due_ms))
                        .collect::<Vec<_>>()
                        .join(", ");
                    Err((
                        format!(
                            "timeout of {party} ({expectation:?}, deadline {deadline_ms} ms) at \
                             {t} ms; the clocks give: {}",
                            if running.is_empty() { "nobody owes anything" } else { &running }
                        ),
                        format!(
                            "The relay timed out {party}, but by the terms' clocks and the \
                             receipts {party} was not past a deadline it owed then."
                        ),
                    ))
                }
            }
        }
        (Payload::Close { .. }, false) if coordinator.ready_to_close() => Ok(()),
        (Payload::Close { .. }, false) => Err((
            format!(
                "close notice in entry {} while {}",
                e.index,
                if coordinator.is_closed() {
                    "the match is closed already".to_owned()
                } else {
                    let owed = coordinator
                        .deadlines()
                        .iter()
                        .map(|d| format!("{} owes {:?}", d.party, d.expectation))
                        .collect::<Vec<_>>();
                    if owed.is_empty() {
                        "the game is not over".to_owned()
                    } else {
                        owed.join(", ")
                    }
                }
            ),
            "The relay closed the match before it was complete.".into(),
        )),
        (other, false) => Err((
            format!("relay-authored {} payload in entry {}", other.kind(), e.index),
            "The relay wrote a message other than its start, timeout and close notices.".into(),
        )),
    }
}

fn chain_fault(
    terms: &AgreedTerms,
    signer: &Blame,
    name: &str,
    e: &Auth,
    err: &ChainError,
) -> Fault {
    let author = Blame { key: signer.key, role: signer.role };
    let relay = Blame::relay(terms);
    let lower = name.to_lowercase();
    let (blame, kind, explanation) = match err {
        ChainError::Replayed { .. } => (
            author,
            FaultKind::BrokenChain,
            format!("{name} signed two different messages with the same sequence number."),
        ),
        ChainError::SeenBackwards { .. } => (
            author,
            FaultKind::BrokenChain,
            format!("{name} signed a message saying it had seen less than an earlier one said."),
        ),
        ChainError::OutOfOrder { .. } => (
            relay,
            FaultKind::BrokenChain,
            format!(
                "The relay accepted a message of {lower} numbered below one it had accepted \
                 from {lower} on that channel before: it reordered {lower}'s messages."
            ),
        ),
        ChainError::SeenUnknown { .. } => (
            relay,
            FaultKind::Equivocation,
            format!(
                "{name} signed that it had seen an entry the relay's log does not hold there: \
                 the relay showed it a different history from the one it recorded."
            ),
        ),
        ChainError::SeenInvisible { .. } => (
            relay,
            FaultKind::Equivocation,
            format!(
                "{name} signed that it had seen an entry of a channel it does not read: the \
                 relay showed it something else there."
            ),
        ),
    };
    blame.fault(kind, e.at(), err.to_string(), explanation)
}

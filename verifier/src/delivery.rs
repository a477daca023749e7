//! Delivery notices (docs/PROTOCOL.md, delivery notices): a record judged with the notices of
//! delivery witnesses beside it.
//!
//! The relay's clock is the clock, and its timeout is what convicts a silent party. A relay that
//! drops a party's messages would convict an honest party that way; the party's delivery notices
//! answer it. For each timeout in the record, in order, the notices of the timed-out party are
//! tried: a notice counts only if
//!
//! 1. it is signed by a witness the caller trusts (the host's published witness policy), for
//!    this match, and names exactly the message beside it, which its author signed
//!    (`protocol::delivery::Delivered::check`);
//! 2. its author is the party timed out, and the message is not receipted before the timeout;
//! 3. it was offered in time: `witness_time_ms + CLOCK_TOLERANCE_MS <= deadline_ms` (a notice
//!    after that changes nothing: late is late);
//! 4. the rules would have taken it there: replayed right before the timeout, through the same
//!    [`Sequence`] and [`Coordinator`] the relay runs, it fits its author's numbering and what it
//!    had seen, is entitled and counts (no void race), is within the author's message limit and
//!    record share, and (with the party's other such notices, in its numbering order) it answers
//!    the very duty timed out: that deadline is gone.
//!
//! Besides, every notice for a message the record does not receipt, by a player or the
//! umpire, is judged by [`skipped`], whether or not the record times anyone out (a dropped
//! message can cost its author otherwise: a later message of its on the channel receipted
//! first puts it behind the channel's number; a skipped Intrigue owner's answer reads as a
//! false answer at its next move; the umpire's skipped `Turn` makes its next answer read as an
//! answer without it): the relay's fault, at the first entry receipted more than
//! [`CLOCK_TOLERANCE_MS`] after the notice, if the rules would have taken the message, counting,
//! wherever within [`CLOCK_TOLERANCE_MS`] of the notice it could have arrived; nothing
//! otherwise (its author may have sent a later message first: an honest agent sends its next
//! message only `client::delivery::NOTICE_WAIT_MS` after the notice).
//!
//! The earliest entry a notice proves the relay's fault at is the verdict, `DroppedMessage`:
//! the relay was offered a message the rules would have taken, through a witness that
//! forwarded it, and timed the party out or went on without it. The game is void, and the
//! party is never named for it. Anything the record proves against anyone before that entry
//! stands, except the party's own silence, which the drop caused (for a skipped message: unless
//! the relay timed the party out before it had the message, since late is late).

use crate::envelope::{self, Auth};
use crate::{Fault, FaultKind, MatchRole, Verdict};
use protocol::coordinator::{Admission, Coordinator};
use protocol::delivery::{CLOCK_TOLERANCE_MS, Delivered};
use protocol::keys::ByColor;
use protocol::message::{MessageBody, Payload};
use protocol::record::RecordBudget;
use protocol::relay::{Sequence, reads};
use protocol::{Party, PublicKey};
use std::collections::BTreeMap;

/// What became of one notice.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NoticeFinding {
    /// It proves the relay dropped the message: the relay's fault is at this entry (the timeout
    /// it defeats, or the later receipted message of its author it was skipped behind).
    ProvesDrop {
        /// The entry of the relay's fault.
        entry: usize,
    },
    /// It proves nothing, and why.
    ProvesNothing(String),
}

/// A record's verdict with delivery notices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoticeVerdict {
    /// The verdict: the record's own, or the relay's `DroppedMessage` fault.
    pub verdict: Verdict,
    /// One finding per notice, in the order given.
    pub findings: Vec<NoticeFinding>,
}

/// Verifies a record with delivery notices from the witnesses in `witnesses` (see the module
/// docs). Without a notice that proves a drop, the verdict is exactly [`crate::verify`]'s.
#[must_use]
pub fn verify_with_notices(
    record_bytes: &[u8],
    notices: &[Delivered],
    witnesses: &[PublicKey],
) -> NoticeVerdict {
    let base = crate::verify(record_bytes);
    let mut findings =
        vec![NoticeFinding::ProvesNothing("no timeout in the record".to_owned()); notices.len()];
    let Some(ordered) = envelope::ordered(record_bytes) else {
        let why = "the record's order does not check out; its own faults stand";
        findings.fill(NoticeFinding::ProvesNothing(why.to_owned()));
        return NoticeVerdict { verdict: base, findings };
    };
    let match_id = ordered.terms.match_id;
    // Step 1, once per notice.
    let mut checked: Vec<Option<(u64, MessageBody, &Delivered)>> = Vec::new();
    for (i, d) in notices.iter().enumerate() {
        match d.check(witnesses, &match_id) {
            Ok((notice, body)) => checked.push(Some((notice.witness_time_ms, body, d))),
            Err(e) => {
                findings[i] = NoticeFinding::ProvesNothing(e.to_string());
                checked.push(None);
            }
        }
    }
    // Skipped (PROTOCOL.md 16a, "skipped"), judged whether or not the record times anyone out:
    // a dropped message can cost its author other than by its timeout (a later message of its
    // behind it, an Intrigue owner's answer read as a false answer at its next move, the
    // umpire's answer without its `Turn`), and skipping an acceptable message is the relay's
    // fault by itself.
    let receipted: Vec<bool> = checked
        .iter()
        .map(|c| {
            c.as_ref().is_some_and(|(_, _, d)| {
                let signed = d.message.signed_hash();
                ordered.entries.iter().any(|e| e.receipt.message == signed)
            })
        })
        .collect();
    let mut behind_found: Option<(usize, usize)> = None;
    // Why each notice proves no skip, noted after the timeouts' own reasons (which come first).
    let mut skip_why: Vec<Option<String>> = vec![None; notices.len()];
    for (i, c) in checked.iter().enumerate() {
        let Some((time, body, d)) = c else { continue };
        if receipted[i] {
            continue;
        }
        if !is_party(&ordered, &body.author) {
            note(&mut findings[i], "not by a player or the umpire".to_owned());
            continue;
        }
        match skipped(&ordered, body, d, *time) {
            Ok(at) => {
                findings[i] = NoticeFinding::ProvesDrop { entry: at };
                if behind_found.is_none_or(|(e, _)| at < e) {
                    behind_found = Some((at, i));
                }
            }
            Err(why) => skip_why[i] = Some(why),
        }
    }
    // Notices behind a later receipted message of their author on their channel: the rules
    // refuse them at any later timeout (their number is behind); judged above only.
    let later_of: Vec<Option<usize>> = checked
        .iter()
        .map(|c| {
            let (_, body, _) = c.as_ref()?;
            ordered.entries.iter().position(|e| {
                e.body.author == body.author
                    && e.body.channel == body.channel
                    && e.body.seq > body.seq
            })
        })
        .collect();
    for &(entry, timed_out, expectation, deadline) in &ordered.timeouts {
        if behind_found.is_some_and(|(later, _)| later < entry) {
            break; // the skipped message comes first
        }
        let party = party_name(timed_out);
        let before = Replay::to(&ordered, entry);
        let key = before.key_of(timed_out);
        // Step 2 and 3: this party's notices, in time, not receipted before the timeout, and
        // not behind a later receipted message of theirs (judged above).
        let mut candidates: Vec<(usize, &MessageBody, &Delivered)> = Vec::new();
        for (i, c) in checked.iter().enumerate() {
            let Some((time, body, d)) = c else { continue };
            if Some(body.author) != key {
                note(&mut findings[i], format!("not by {party}, timed out in entry {entry}"));
                continue;
            }
            let signed = d.message.signed_hash();
            if ordered.entries[..entry].iter().any(|e| e.receipt.message == signed) {
                note(&mut findings[i], format!("receipted before the timeout in entry {entry}"));
                continue;
            }
            if later_of[i].is_some_and(|later| later < entry) {
                continue;
            }
            if time.saturating_add(CLOCK_TOLERANCE_MS) > deadline {
                note(
                    &mut findings[i],
                    format!(
                        "offered at {time} ms by the witness's clock, not {CLOCK_TOLERANCE_MS} ms \
                         before {party}'s deadline of {deadline} ms (entry {entry}): late is late"
                    ),
                );
                continue;
            }
            candidates.push((i, body, *d));
        }
        candidates.sort_by_key(|(i, body, _)| (body.seq, *i));
        if candidates.is_empty() {
            continue;
        }
        // Step 4: the rules, right before the timeout.
        let mut state = before;
        let mut used = Vec::new();
        for (i, body, d) in &candidates {
            match state.take(body, d, deadline) {
                Ok(()) => used.push(*i),
                Err(why) => note(&mut findings[*i], why),
            }
        }
        let answered =
            !state.coordinator.deadlines().iter().any(|d| {
                d.party == timed_out && d.expectation == expectation && d.due_ms <= deadline
            });
        if !answered {
            for &i in &used {
                note(
                    &mut findings[i],
                    format!("does not answer {party}'s {expectation:?} timed out in entry {entry}"),
                );
            }
            continue;
        }
        for &i in &used {
            findings[i] = NoticeFinding::ProvesDrop { entry };
        }
        let first = used[0];
        let Some((time, body, d)) = &checked[first] else { continue };
        let fault = Fault {
            kind: FaultKind::DroppedMessage,
            culprit: Some(ordered.terms.terms.relay),
            role: MatchRole::Relay,
            entry: Some(entry),
            message: Some(ordered.entries[entry].hash),
            evidence: format!(
                "{party} owed a {expectation:?} by {deadline} ms; witness {} signed that it was \
                 offered {party}'s message {} (seq {}) at {time} ms and forwarded it; the relay \
                 did not receipt it and timed {party} out in entry {entry}",
                witness_of(d),
                d.message.hash(),
                body.seq,
            ),
            explanation: format!(
                "Relay fault: dropped message. {party}'s message answering what it owed reached \
                 the relay through a delivery witness before the deadline, and the relay timed \
                 {party} out instead of receipting it. The game is void; {party} is not at fault."
            ),
        };
        let verdict = match &base {
            Verdict::Faults(faults)
                if faults.first().is_some_and(|f| stands(f, entry, key.as_ref())) =>
            {
                base.clone()
            }
            _ => Verdict::Faults(vec![fault]),
        };
        fill(&mut findings, skip_why);
        return NoticeVerdict { verdict, findings };
    }
    if let Some((at, i)) = behind_found
        && let Some((time, body, d)) = &checked[i]
    {
        let verdict = skipped_verdict(&ordered, &base, at, *time, body, d);
        if verdict == base {
            // The record's own first fault, before the relay had the message, stands.
            let why = format!(
                "the record's own fault before entry {at} stands: its author's message reached \
                 the relay only after it (late is late)"
            );
            for f in &mut findings {
                if matches!(f, NoticeFinding::ProvesDrop { entry } if *entry >= at) {
                    *f = NoticeFinding::ProvesNothing(why.clone());
                }
            }
        }
        fill(&mut findings, skip_why);
        return NoticeVerdict { verdict, findings };
    }
    fill(&mut findings, skip_why);
    NoticeVerdict { verdict: base, findings }
}

/// The verdict where the relay skipped `body` (noticed at `time`) and went on without it at
/// entry `at`: `DroppedMessage` there, unless the record's own first fault, before it, stands:
/// the author's silence only where the relay timed the author out before `at` (the notice
/// does not show that the relay had the message any earlier: late is late).
fn skipped_verdict(
    ordered: &envelope::Ordered,
    base: &Verdict,
    at: usize,
    time: u64,
    body: &MessageBody,
    d: &Delivered,
) -> Verdict {
    let replay = Replay::to(ordered, at);
    let party = [Party::White, Party::Black]
        .into_iter()
        .find(|p| replay.key_of(*p) == Some(body.author))
        .map_or("the umpire", party_name);
    let e = &ordered.entries[at];
    let fault = Fault {
        kind: FaultKind::DroppedMessage,
        culprit: Some(ordered.terms.terms.relay),
        role: MatchRole::Relay,
        entry: Some(at),
        message: Some(e.hash),
        evidence: format!(
            "witness {} signed that it was offered {party}'s message {} (seq {} on {}) at {time} \
             ms and forwarded it; the rules would have taken it wherever it arrived within \
             {CLOCK_TOLERANCE_MS} ms of that; the relay did not receipt it, and went on to entry \
             {at} at {} ms without it",
            witness_of(d),
            d.message.hash(),
            body.seq,
            body.channel,
            e.receipt.time_ms,
        ),
        explanation: format!(
            "Relay fault: dropped message. {party}'s message reached the relay through a \
             delivery witness, the rules would have taken it, and the relay went on without it. \
             The game is void; {party} is not at fault."
        ),
    };
    // The author's silence stands only if the relay timed it out before `at` (before the relay
    // had the message: late is late); any other fault before `at` stands.
    let timed_out_before = ordered
        .timeouts
        .iter()
        .any(|&(entry, party, _, _)| entry < at && replay.key_of(party) == Some(body.author));
    let stands = |f: &Fault| {
        let silence = matches!(f.kind, FaultKind::Timeout | FaultKind::MissingReveal)
            && f.culprit == Some(body.author);
        if silence { timed_out_before } else { f.entry.is_some_and(|e| e < at) }
    };
    match base {
        Verdict::Faults(faults) if faults.first().is_some_and(stands) => base.clone(),
        _ => Verdict::Faults(vec![fault]),
    }
}

/// Whether `key` is a player's or the umpire's in the record's terms.
fn is_party(ordered: &envelope::Ordered, key: &PublicKey) -> bool {
    let terms = &ordered.terms.terms;
    terms.player(key).is_some() || terms.umpire.as_ref().is_some_and(|u| u.key == *key)
}

/// Judges a notice for `body` (witness time `time`), a message the record does not receipt:
/// the witness forwarded it, so it reached the relay within [`CLOCK_TOLERANCE_MS`] of `time`
/// (by the relay's clock). It proves a drop, at the first entry receipted after that window
/// (the relay went on without it), if the rules would have taken it, counting (a void race
/// changes nothing), at every point of the log where it could have arrived: right before each
/// entry receipted within the window, and after the last of them. Otherwise it proves nothing:
/// the record ends before the window does, or an honest relay could have refused it (a message
/// its author sent after a later one on its channel, for one: behind the channel's number).
fn skipped(
    ordered: &envelope::Ordered,
    body: &MessageBody,
    d: &Delivered,
    time: u64,
) -> Result<usize, String> {
    let end = time.saturating_add(CLOCK_TOLERANCE_MS);
    let Some(hi) = ordered.entries.iter().position(|x| x.receipt.time_ms > end) else {
        return Err(format!(
            "offered at {time} ms by the witness's clock; the record has no entry after {end} \
             ms, by when the relay had it"
        ));
    };
    let lo = ordered.entries[..hi]
        .iter()
        .position(|x| x.receipt.time_ms.saturating_add(CLOCK_TOLERANCE_MS) >= time)
        .unwrap_or(hi);
    let mut state = Replay::to(ordered, lo);
    for k in lo..=hi {
        state
            .clone()
            .take(body, d, time)
            .map_err(|why| format!("{why} (arriving before entry {k})"))?;
        if k < hi {
            state.push(&ordered.entries[k], ordered.void.get(k).copied().unwrap_or(false));
        }
    }
    Ok(hi)
}

/// A party's name in sentences.
fn party_name(p: Party) -> &'static str {
    match p {
        Party::White => "White",
        Party::Black => "Black",
        Party::Umpire => "the umpire",
    }
}

/// Whether the record's own first fault stands before a dropped message proven at `entry`: a
/// fault before it, unless it is the timed-out party's silence (which the timeout caused).
fn stands(f: &Fault, entry: usize, timed_out: Option<&PublicKey>) -> bool {
    let silence = matches!(f.kind, FaultKind::Timeout | FaultKind::MissingReveal)
        && f.culprit.as_ref() == timed_out;
    !silence && f.entry.is_some_and(|e| e < entry)
}

/// Notes the reasons a notice proves no skipped message, where no other reason was given.
fn fill(findings: &mut [NoticeFinding], skip_why: Vec<Option<String>>) {
    for (f, why) in findings.iter_mut().zip(skip_why) {
        if let Some(why) = why {
            note(f, why);
        }
    }
}

/// Records why a notice proved nothing (the first reason given stays).
fn note(finding: &mut NoticeFinding, why: String) {
    if let NoticeFinding::ProvesNothing(old) = finding
        && old.as_str() == "no timeout in the record"
    {
        *old = why;
    }
}

/// The key of the witness that signed a notice (already checked).
fn witness_of(d: &Delivered) -> String {
    protocol::codec::Canonical::from_canonical(&d.notice.notice)
        .map(|n: protocol::delivery::DeliveryNotice| n.witness.to_string())
        .unwrap_or_default()
}

/// The relay's two rule books replayed over a record's first entries.
#[derive(Clone)]
struct Replay {
    sequence: Sequence,
    coordinator: Coordinator,
    budget: RecordBudget,
    sent: BTreeMap<PublicKey, u32>,
    terms: protocol::terms::AgreedTerms,
}

impl Replay {
    /// The state right before entry `end`.
    fn to(ordered: &envelope::Ordered, end: usize) -> Replay {
        let terms = ordered.terms.clone();
        let mut r = Replay {
            sequence: Sequence::new(&terms.match_id),
            coordinator: Coordinator::new(terms.clone()),
            budget: RecordBudget::new(&terms),
            sent: BTreeMap::new(),
            terms,
        };
        // The same countersignatures spare the same key agreements as in the replay proper.
        r.coordinator.attest(envelope::coordinate::attested(&r.terms, &ordered.entries));
        for (e, &void) in ordered.entries[..end].iter().zip(&ordered.void) {
            r.push(e, void);
        }
        r
    }

    fn push(&mut self, e: &Auth, void: bool) {
        let t = e.receipt.time_ms;
        let _ = self.budget.charge_message(&e.body, e.hash, e.len);
        if e.body.author != self.terms.terms.relay
            && self.terms.terms.player(&e.body.author).is_some()
        {
            *self.sent.entry(e.body.author).or_default() += 1;
        }
        self.sequence.push(&e.body, &e.receipt.message, t);
        let admission = if void { Admission::Void } else { Admission::Counts };
        self.coordinator.apply(&e.body, e.hash, admission, t);
    }

    fn colors(&self) -> ByColor<PublicKey> {
        self.coordinator.colors().unwrap_or(ByColor {
            white: self.terms.terms.players[0].key,
            black: self.terms.terms.players[1].key,
        })
    }

    fn key_of(&self, party: Party) -> Option<PublicKey> {
        match party.side() {
            Some(side) => Some(self.colors()[side]),
            None => self.terms.terms.umpire.as_ref().map(|u| u.key),
        }
    }

    /// Takes a noticed message as the relay should have, at the deadline; why not otherwise.
    fn take(&mut self, body: &MessageBody, d: &Delivered, deadline: u64) -> Result<(), String> {
        let colors = self.colors();
        let terms = self.terms.clone();
        let seen = self
            .sequence
            .check(body, |c| reads(&terms, &colors, &body.author, c))
            .map_err(|e| format!("the relay would have refused it: {e}"))?;
        match self.coordinator.admit(body, seen, &terms.terms.relay) {
            Ok(Admission::Counts) => {}
            Ok(Admission::Void) => return Err("a void race where it would have stood".to_owned()),
            Err(e) => return Err(format!("the relay would have refused it: {e}")),
        }
        if matches!(body.payload, Payload::Timeout { .. } | Payload::Start | Payload::Close { .. })
        {
            return Err("a relay notice".to_owned());
        }
        if terms.terms.player(&body.author).is_some() {
            let n = self.sent.entry(body.author).or_default();
            if *n >= terms.terms.limits.max_messages_per_side {
                return Err("over the terms' max_messages_per_side".to_owned());
            }
            *n += 1;
        }
        self.budget
            .charge_message(body, d.message.hash(), d.message.encoded_len())
            .map_err(|e| format!("the relay would have refused it: {e}"))?;
        let hash = d.message.hash();
        self.sequence.push(body, &d.message.signed_hash(), deadline);
        self.coordinator.apply(body, hash, Admission::Counts, deadline);
        Ok(())
    }
}

//! Layer 1: the record's envelope. Encoding, terms, signatures (batch-verified), match ids,
//! receipts, the order and hash chains of every channel, equivocation, what may be written where,
//! seal disclosures, and commitments against their openings.
//!
//! The checks run in four stages; each stage runs only on a record the previous stages passed,
//! so one cheat is reported once and not as a cascade of consequences:
//!
//! 1. **Bytes.** The record decodes strictly (`protocol::codec`): malformed, truncated,
//!    non-canonical or trailing bytes are the record's fault (`MatchRole::Record`, no culprit key).
//! 2. **Terms and signatures.** The terms decode and pass the one terms gate every party calls
//!    (`MatchTerms::validate`: strict keys, seal keys that can be sealed to, the variant's
//!    ruleset, an umpire exactly in umpired games, options, every deadline, cap and budget in
//!    range); what it refuses is `BadTerms`, blaming nobody's gameplay. All signatures (both terms signatures, every
//!    message, every receipt) are checked in **one batch** (`protocol::batch`); only if the batch
//!    fails are they checked one by one with `verify_strict`, to name the culprits. Then each
//!    entry: its receipt must be the relay's receipt for this very message (else the record
//!    paired them: `MatchRole::Record`); given that, whatever is wrong with the message is the relay's
//!    fault, since it receipted it (`BadSignature`, `WrongMatch`), except a body its author
//!    signed but did not encode canonically (`NonCanonical`, the author).
//! 3. **Order.** The relay's receipts number each channel 0, 1, 2, ... with each channel head
//!    chaining from the one before, every entry follows the one before it in the record by the
//!    order head, and time never goes back (`Equivocation` otherwise). Then the relay's own rule books, replayed
//!    ([`coordinate`]): each author's numbering and `seen`, who may say what where and when,
//!    every clock, deadline and timeout, the race rule, and every disclosure checked against the
//!    sealing setup its author signed, every sealed message of its channel opened under the
//!    disclosed key (`BadDisclosure`, the author). Blame goes to whoever's
//!    signatures alone prove the fault.
//! 4. **Content.** Commitments distinct (`DuplicateCommitment`), every opening against its
//!    commitment (`BadOpening`), every commitment opened and every sealed message disclosed
//!    (`MissingReveal` when the relay's signed reveal timeout for that party proves who failed,
//!    `TruncatedRecord` otherwise).
//!
//! Colors drawn from the players' contributions are known only once those are revealed; a fault
//! in a match whose colors were never drawn names `players[0]` as white (the players' order).

mod checked;
mod content;
pub(crate) mod coordinate;
mod order;

pub use checked::{Checked, CheckedCommitment, CheckedEntry, role_of_side, side_of_role};

use crate::{Fault, FaultKind, MatchRole};
use protocol::batch::{self, Item};
use protocol::codec::{Canonical, DecodeError};
use protocol::commitment;
use protocol::keys::ByColor;
use protocol::message::{MessageBody, Payload, Receipt, message_hash};
use protocol::record::MatchRecord;
use protocol::terms::{AgreedTerms, ColorAssignment, MatchTerms, TermsError};
use protocol::{MessageHash, PublicKey, tags};
use rules::Variant;

/// Checks the envelope of a record given as stored bytes (see the module docs).
pub fn check(record_bytes: &[u8]) -> Result<Checked, Vec<Fault>> {
    if let Some(why) = not_versioned(record_bytes) {
        return Err(vec![Blame::record().fault(
            FaultKind::MalformedRecord,
            None,
            why,
            "The file is not a fogproof match record.".to_owned(),
        )]);
    }
    let record = MatchRecord::from_canonical(record_bytes).map_err(|e| vec![bytes_fault(&e)])?;
    let (terms, variant) = check_terms(&record)?;
    let raws = decode_entries(&record);
    let sigs = check_signatures(&record, &terms, &raws)?;
    let (entries, mut faults) = authenticate(&terms, raws, &sigs);
    let (colors, contributions) = colors(&terms, &entries);
    if !faults.is_empty() {
        // Stage 2 blamed authors before colors were known: name their roles now.
        for f in &mut faults {
            if let Some(key) = f.culprit {
                f.role = checked::roles(&terms, &colors, &key).unwrap_or(f.role);
            }
        }
        return Err(faults);
    }
    let heads = order::check(&terms, &entries)?;
    let coordinated = coordinate::check(&terms, &entries, &heads).map_err(|mut f| {
        if let Some(key) = f.culprit {
            f.role = checked::roles(&terms, &colors, &key).unwrap_or(f.role);
        }
        vec![*f]
    })?;
    content::check(record, terms, variant, (colors, contributions), entries, coordinated)
}

/// Stages 1 to 3 of [`check`] only (bytes, terms, signatures, order and the relay's rule
/// books), for the delivery-notice check (`crate::delivery`): the terms, the authenticated
/// entries, which are void races, and the confirmed timeouts. `None` if any of them fails.
pub(crate) fn ordered(record_bytes: &[u8]) -> Option<Ordered> {
    not_versioned(record_bytes).is_none().then_some(())?;
    let record = MatchRecord::from_canonical(record_bytes).ok()?;
    let (terms, _) = check_terms(&record).ok()?;
    let raws = decode_entries(&record);
    let sigs = check_signatures(&record, &terms, &raws).ok()?;
    let (entries, faults) = authenticate(&terms, raws, &sigs);
    if !faults.is_empty() {
        return None;
    }
    let heads = order::check(&terms, &entries).ok()?;
    let coordinated = coordinate::check(&terms, &entries, &heads).ok()?;
    Some(Ordered { terms, entries, void: coordinated.void, timeouts: coordinated.timeouts })
}

/// What [`ordered`] gives.
pub(crate) struct Ordered {
    pub terms: AgreedTerms,
    pub entries: Vec<Auth>,
    pub void: Vec<bool>,
    pub timeouts: Vec<(usize, protocol::Party, protocol::message::Expectation, u64)>,
}

/// What a record says it is, for a summary: read without checking anything, so it is shown even
/// for a faulty record (and must not be trusted unless the verdict is valid).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Description {
    /// The terms' variant id.
    pub variant: Variant,
    /// The terms' ruleset.
    pub ruleset: String,
    /// The players by color (in `players` order if colors were never drawn).
    pub colors: ByColor<PublicKey>,
    /// Whether the colors are known (fixed, or drawn from two revealed contributions).
    pub colors_known: bool,
}

/// Describes a record whose bytes and terms can be read (`None` otherwise).
pub fn describe(record_bytes: &[u8]) -> Option<Description> {
    let record = MatchRecord::read_prefix(record_bytes)?;
    let terms = MatchTerms::from_canonical(&record.terms.terms).ok()?;
    let agreed = AgreedTerms {
        match_id: protocol::terms::match_id(&record.terms.terms),
        bytes: record.terms.terms.clone(),
        terms,
    };
    let entries: Vec<Auth> = decode_entries(&record)
        .into_iter()
        .enumerate()
        .filter_map(|(index, raw)| {
            Some(Auth {
                index,
                hash: raw.hash,
                body: raw.body.ok()?,
                receipt: raw.receipt.ok()?,
                len: raw.len,
            })
        })
        .collect();
    let (colors, contributions) = colors(&agreed, &entries);
    let t = agreed.terms;
    Some(Description {
        colors_known: t.colors == ColorAssignment::FirstIsWhite || contributions.is_some(),
        variant: t.variant(),
        ruleset: t.ruleset().to_owned(),
        colors,
    })
}

/// Why `record_bytes` are not a match record at all (`None` when they are one, even a faulty,
/// truncated or non-canonical one): empty, too long, or bytes that do not decode as a record.
pub fn not_a_record(record_bytes: &[u8]) -> Option<String> {
    if let Some(why) = not_versioned(record_bytes) {
        return Some(why);
    }
    match MatchRecord::from_canonical(record_bytes) {
        Err(e @ DecodeError::TooLong { .. }) => Some(e.to_string()),
        Err(DecodeError::Malformed {
            reason: postcard::Error::DeserializeUnexpectedEnd, ..
        }) => None,
        Err(e @ DecodeError::Malformed { .. }) => Some(e.to_string()),
        _ => None,
    }
}

/// Empty bytes, or bytes that do not start with the record's version byte.
fn not_versioned(record_bytes: &[u8]) -> Option<String> {
    match record_bytes.first() {
        None => Some("the file is empty".to_owned()),
        Some(1) => Some(
            "this is a version 1 record; fogproof reads version 3 records only (version 1 was \
             never published: play the match again)"
                .to_owned(),
        ),
        Some(2) => Some(
            "this is a version 2 record; fogproof reads version 3 records only (version 3 \
             changed the sealing, the deadlines and the record: docs/PROTOCOL.md section 22)"
                .to_owned(),
        ),
        Some(&v) if v != protocol::codec::VERSION => Some(format!(
            "the first byte is {v:#04x}, not the record version {:#04x}",
            protocol::codec::VERSION
        )),
        Some(_) => None,
    }
}

/// A finding, built field by field.
pub(crate) struct Blame {
    pub key: Option<PublicKey>,
    pub role: MatchRole,
}

impl Blame {
    pub fn record() -> Blame {
        Blame { key: None, role: MatchRole::Record }
    }

    pub fn relay(terms: &AgreedTerms) -> Blame {
        Blame { key: Some(terms.terms.relay), role: MatchRole::Relay }
    }

    /// The signer of a message; a key the terms do not name is reported as the record's.
    pub fn signer(terms: &AgreedTerms, colors: &ByColor<PublicKey>, key: &PublicKey) -> Blame {
        match checked::roles(terms, colors, key) {
            Some(role) => Blame { key: Some(*key), role },
            None => Blame::record(),
        }
    }

    pub fn fault(
        self,
        kind: FaultKind,
        at: Option<(usize, MessageHash)>,
        evidence: String,
        explanation: String,
    ) -> Fault {
        Fault {
            kind,
            culprit: self.key,
            role: self.role,
            entry: at.map(|(i, _)| i),
            message: at.map(|(_, h)| h),
            evidence,
            explanation,
        }
    }
}

/// How a role is named in sentences.
pub(crate) fn who(role: MatchRole) -> &'static str {
    match role {
        MatchRole::White => "White",
        MatchRole::Black => "Black",
        MatchRole::Umpire => "The umpire",
        MatchRole::Relay => "The relay",
        MatchRole::Record => "The record",
    }
}

/// Stage 1: the record's own bytes.
fn bytes_fault(e: &DecodeError) -> Fault {
    let truncated = matches!(
        e,
        DecodeError::Malformed { reason: postcard::Error::DeserializeUnexpectedEnd, .. }
    );
    let (kind, explanation) = match e {
        _ if truncated => (
            FaultKind::TruncatedRecord,
            "The record's bytes end in the middle of a value: the file is cut short.",
        ),
        DecodeError::NonCanonical { .. } => (
            FaultKind::NonCanonical,
            "The record is not in its one canonical encoding (for example an overlong number), \
             so it is not the record that was produced.",
        ),
        DecodeError::TrailingBytes { .. } => (
            FaultKind::MalformedRecord,
            "The record is followed by extra bytes that belong to no part of it.",
        ),
        _ => (FaultKind::MalformedRecord, "The file is not a readable fogproof match record."),
    };
    Blame::record().fault(kind, None, e.to_string(), explanation.to_owned())
}

/// Stage 2a: the terms (their signatures are checked in the batch).
fn check_terms(record: &MatchRecord) -> Result<(AgreedTerms, Variant), Vec<Fault>> {
    let bad = |evidence: String, explanation: &str| {
        vec![Blame::record().fault(FaultKind::BadTerms, None, evidence, explanation.to_owned())]
    };
    let bytes = &record.terms.terms;
    let terms = MatchTerms::from_canonical(bytes)
        .map_err(|e| bad(e.to_string(), "The match terms cannot be read."))?;
    // The one gate every party calls (the relay, the machines, the agent): what it refuses,
    // no relay ran and no agent signed, so the record binds nobody and judges no gameplay.
    terms.validate().map_err(|e| bad(e.to_string(), terms_explanation(&e)))?;
    let variant = terms.variant();
    let match_id = protocol::terms::match_id(bytes);
    Ok((AgreedTerms { terms, bytes: bytes.clone(), match_id }, variant))
}

/// What a refusal of the terms gate means, in words.
fn terms_explanation(e: &TermsError) -> &'static str {
    match e {
        TermsError::Key { .. } => {
            "The terms name a signing key that is not a strict ed25519 key, so nothing signed \
             under it proves anything."
        }
        TermsError::SealKey { .. } => {
            "The terms name a seal key nothing can be sealed to (of small order, off the curve \
             or not canonical), so the match could never have been played: nobody's gameplay \
             is judged."
        }
        TermsError::KeyInTwoRoles { .. } | TermsError::SealKeyInTwoRoles => {
            "The terms name one key in two roles."
        }
        TermsError::Umpire { named: false, .. } => "The terms of an umpired game name no umpire.",
        TermsError::Umpire { named: true, .. } => {
            "The terms name an umpire for a game that has none."
        }
        TermsError::Options(_) => "The terms' options are not valid for this game.",
        TermsError::OutOfRange { .. } => {
            "A deadline, cap or budget in the terms is outside the range every party accepts \
             (docs/PROTOCOL.md 7.1)."
        }
        _ => "The match terms are not valid terms.",
    }
}

/// One entry as decoded, before its signatures are known.
struct Raw {
    hash: MessageHash,
    /// The hash of the whole signed message, signature included: what a receipt covers.
    signed: protocol::SignedHash,
    body: Result<MessageBody, DecodeError>,
    /// The author a lenient (non-strict) decoding finds, when the strict one fails.
    lenient_author: Option<PublicKey>,
    receipt: Result<Receipt, DecodeError>,
    /// The signed message's length in bytes, as the record budget charges it.
    len: usize,
}

impl Raw {
    fn author(&self) -> Option<PublicKey> {
        self.body.as_ref().ok().map(|b| b.author).or(self.lenient_author)
    }
}

fn decode_entries(record: &MatchRecord) -> Vec<Raw> {
    record
        .entries
        .iter()
        .map(|e| {
            let body = MessageBody::from_canonical(&e.message.body);
            let lenient_author = match &body {
                Ok(_) => None,
                Err(_) => postcard::take_from_bytes::<MessageBody>(&e.message.body)
                    .ok()
                    .map(|(b, _)| b.author),
            };
            Raw {
                hash: message_hash(&e.message.body),
                signed: e.message.signed_hash(),
                body,
                lenient_author,
                receipt: Receipt::from_canonical(&e.receipt.receipt),
                len: e.message.encoded_len(),
            }
        })
        .collect()
}

/// Which signatures verify: `message[i]`, `receipt[i]`.
struct Signatures {
    message: Vec<bool>,
    receipt: Vec<bool>,
}

/// Every signature of the record, in one batch: the terms', then per entry the message's (when
/// its author is known) and the receipt's.
pub fn signature_items<'a>(record: &'a MatchRecord) -> Vec<Item<'a>> {
    let terms = MatchTerms::from_canonical(&record.terms.terms).ok();
    let raws = decode_entries(record);
    match terms {
        Some(t) => items(record, &t, &raws).0,
        None => Vec::new(),
    }
}

/// The batch items and, per entry, the positions of its message and receipt items.
fn items<'a>(
    record: &'a MatchRecord,
    terms: &MatchTerms,
    raws: &[Raw],
) -> (Vec<Item<'a>>, Vec<(Option<usize>, usize)>) {
    let mut items = Vec::with_capacity(4 + 2 * raws.len());
    for (key, signature) in terms.signers().into_iter().zip(&record.terms.signatures) {
        items.push(Item {
            key,
            tag: tags::TERMS,
            bytes: &record.terms.terms,
            signature: *signature,
        });
    }
    let mut at = Vec::with_capacity(raws.len());
    for (e, raw) in record.entries.iter().zip(raws) {
        let m = raw.author().map(|key| {
            items.push(Item {
                key,
                tag: tags::MESSAGE,
                bytes: &e.message.body,
                signature: e.message.signature,
            });
            items.len() - 1
        });
        items.push(Item {
            key: terms.relay,
            tag: tags::RECEIPT,
            bytes: &e.receipt.receipt,
            signature: e.receipt.signature,
        });
        at.push((m, items.len() - 1));
    }
    (items, at)
}

fn check_signatures(
    record: &MatchRecord,
    terms: &AgreedTerms,
    raws: &[Raw],
) -> Result<Signatures, Vec<Fault>> {
    let (items, at) = items(record, &terms.terms, raws);
    let ok: Vec<bool> = if batch::verify_batch(&items).is_ok() {
        vec![true; items.len()]
    } else {
        items.iter().map(|i| i.verify().is_ok()).collect()
    };
    let signers = terms.terms.signers().len();
    if record.terms.signatures.len() != signers {
        return Err(vec![
            Blame::record().fault(
                FaultKind::BadTerms,
                None,
                format!(
                    "the terms carry {} signatures for {signers} signers",
                    record.terms.signatures.len()
                ),
                "The terms are not signed by every party they name (players, relay, umpire), so \
             they bind nobody."
                    .to_owned(),
            ),
        ]);
    }
    for (index, good) in ok[..signers].iter().enumerate() {
        if !good {
            return Err(vec![Blame::record().fault(
                FaultKind::BadTerms,
                None,
                format!(
                    "signature {index} on the terms does not verify under {}",
                    items[index].key
                ),
                format!(
                    "The terms are not signed by signer {index} ({}), so they bind nobody.",
                    items[index].key.fingerprint()
                ),
            )]);
        }
    }
    Ok(Signatures {
        message: at.iter().map(|(m, _)| m.is_some_and(|m| ok[m])).collect(),
        receipt: at.iter().map(|(_, r)| ok[*r]).collect(),
    })
}

/// An entry whose message and receipt are authenticated.
pub(crate) struct Auth {
    pub index: usize,
    pub hash: MessageHash,
    pub body: MessageBody,
    pub receipt: Receipt,
    /// The signed message's length in bytes ([`protocol::message::SignedMessage::encoded_len`]).
    pub len: usize,
}

impl Auth {
    pub fn at(&self) -> Option<(usize, MessageHash)> {
        Some((self.index, self.hash))
    }
}

/// Stage 2b: each entry's message and receipt, and who is to blame for what is wrong with them.
/// Takes the decoded entries by value: an authenticated entry's body and receipt move into it
/// (a sealed body is up to a few KiB; nothing is copied).
fn authenticate(terms: &AgreedTerms, raws: Vec<Raw>, sigs: &Signatures) -> (Vec<Auth>, Vec<Fault>) {
    let relay = || Blame::relay(terms);
    let mut faults = Vec::new();
    let mut out = Vec::with_capacity(raws.len());
    let unknown = ByColor { white: terms.terms.players[0].key, black: terms.terms.players[1].key };
    for (index, raw) in raws.into_iter().enumerate() {
        let at = Some((index, raw.hash));
        let receipt = match raw.receipt {
            Err(e) if sigs.receipt[index] => {
                faults.push(relay().fault(
                    FaultKind::BadReceipt,
                    at,
                    e.to_string(),
                    format!(
                        "The relay signed a receipt for entry {index} that is not a valid receipt."
                    ),
                ));
                continue;
            }
            Err(e) => {
                faults.push(Blame::record().fault(
                    FaultKind::BadReceipt,
                    at,
                    e.to_string(),
                    format!(
                        "Entry {index}'s receipt cannot be read and is not signed by the relay."
                    ),
                ));
                continue;
            }
            Ok(r) => r,
        };
        if !sigs.receipt[index] {
            faults.push(Blame::record().fault(
                FaultKind::BadReceipt,
                at,
                format!("receipt signature does not verify under relay {}", terms.terms.relay),
                format!("Entry {index}'s receipt is not signed by the relay the terms name: the message was never shown to be accepted."),
            ));
            continue;
        }
        if receipt.message != raw.signed {
            // The receipt covers body and signature: a message changed in any bit (its
            // signature included) is no longer the one the relay accepted. Nobody signed the
            // pairing, so the record is at fault (PROTOCOL.md: blame only what is signed).
            faults.push(Blame::record().fault(
                FaultKind::BadReceipt,
                at,
                format!(
                    "receipt is for signed message {}, the entry holds signed message {}",
                    receipt.message, raw.signed
                ),
                format!(
                    "Entry {index} pairs a message with the receipt of another message (or of \
                     the same message with other signature bytes)."
                ),
            ));
            continue;
        }
        // From here the receipt is the relay's signed statement about this very message.
        let body = match raw.body {
            Ok(b) => b,
            Err(e) => {
                let by_author = raw.lenient_author.filter(|_| sigs.message[index]);
                let blame = match by_author {
                    Some(key) => Blame::signer(terms, &unknown, &key),
                    None => relay(),
                };
                let explanation = if by_author.is_some() {
                    "signed a message that is not in its one canonical encoding."
                } else {
                    "receipted bytes that are not a signed, canonical message."
                };
                let role = blame.role;
                faults.push(blame.fault(
                    FaultKind::NonCanonical,
                    at,
                    e.to_string(),
                    format!("{} {explanation}", who(role)),
                ));
                continue;
            }
        };
        if receipt.match_id != terms.match_id {
            let blame = if body.match_id == terms.match_id { relay() } else { Blame::record() };
            let kind = if body.match_id == terms.match_id {
                FaultKind::BadReceipt
            } else {
                FaultKind::WrongMatch
            };
            faults.push(blame.fault(
                kind,
                at,
                format!(
                    "receipt names match {}, this match is {}",
                    receipt.match_id, terms.match_id
                ),
                format!("Entry {index} was receipted in another match."),
            ));
            continue;
        }
        if !sigs.message[index] {
            faults.push(relay().fault(
                FaultKind::BadSignature,
                at,
                format!("message signature does not verify under its author {}", body.author),
                format!(
                    "The relay receipted entry {index}, whose signature is not its stated author's: \
                     the author never signed it."
                ),
            ));
            continue;
        }
        if body.match_id != terms.match_id {
            faults.push(relay().fault(
                FaultKind::WrongMatch,
                at,
                format!("message names match {}, this match is {}", body.match_id, terms.match_id),
                format!(
                    "The relay receipted as part of this match a message its author signed for \
                     another match (entry {index}): a replay."
                ),
            ));
            continue;
        }
        out.push(Auth { index, hash: raw.hash, body, receipt, len: raw.len });
    }
    (out, faults)
}

/// The colors (fixed, or drawn from both revealed public contributions) and the contributions.
/// Undrawn colors fall back to the players' order (see the module docs); stage 4 reports why.
fn colors(terms: &AgreedTerms, entries: &[Auth]) -> (ByColor<PublicKey>, Option<[[u8; 32]; 2]>) {
    let t = &terms.terms;
    let fallback = ByColor { white: t.players[0].key, black: t.players[1].key };
    // Only reveals before the relay's first timeout or close draw the colors: one after them
    // (a player that withheld its reveal and sent it after it was timed out) is a void race.
    let live = entries
        .iter()
        .position(|e| {
            e.body.author == t.relay
                && matches!(e.body.payload, Payload::Timeout { .. } | Payload::Close { .. })
        })
        .unwrap_or(entries.len());
    let entries = &entries[..live];
    let contribution = |key: PublicKey| -> Option<[u8; 32]> {
        let public =
            |e: &&Auth| e.body.author == key && e.body.channel == protocol::Channel::Public;
        let commitment = entries.iter().filter(public).find_map(|e| match &e.body.payload {
            Payload::Commit { purpose, commitment }
                if *purpose == commitment::PUBLIC_CONTRIBUTION =>
            {
                Some(*commitment)
            }
            _ => None,
        })?;
        entries.iter().filter(public).find_map(|e| match &e.body.payload {
            Payload::Reveal { purpose, opening } if *purpose == commitment::PUBLIC_CONTRIBUTION => {
                commitment::check_opening(&commitment, *purpose, &terms.match_id, &key, opening)
                    .ok()?;
                opening.value.as_slice().try_into().ok()
            }
            _ => None,
        })
    };
    let contributions = match (contribution(t.players[0].key), contribution(t.players[1].key)) {
        (Some(a), Some(b)) => Some([a, b]),
        _ => None,
    };
    let colors = match (t.colors, contributions) {
        (ColorAssignment::FirstIsWhite, _) => fallback,
        (ColorAssignment::Drawn, Some(c)) => protocol::seed::draw_colors(t, &terms.match_id, &c),
        (ColorAssignment::Drawn, None) => fallback,
    };
    (colors, contributions)
}
